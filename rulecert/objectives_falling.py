"""Exact objectives of falling (FRL) and softly falling (softFRL) rule lists.

Chen & Rudin (AISTATS 2018); notation of ``shared/papers/frl_math.md``.  For a rule list d
with K rules and an else clause (index K), rule j newly captures n+_j positives and n-_j
negatives, alpha_j = n+_j / (n+_j + n-_j), and at the threshold tau = 1/(1+w):

    L(d)  = sum_{j=0..K} min(w * n+_j, n-_j) / n  +  C * K                   (Program 2.9)
    L~(d) = L(d) + C1 * sum_{j=1..K} max(alpha_j - min_{k<j} alpha_k, 0)      (Program 5.1)

Rule j predicts 1 exactly when w * n+_j > n-_j (alpha_j > tau); on a tie both labels cost the
same.  A list is *compatible* when every rule and the else clause capture at least one sample
(Def 2.6), and *falling* when alpha_0 >= alpha_1 >= ... >= alpha_K (else clause included).
Proportions are compared exactly on integer counts (cross-multiplication).

These functions recompute everything from the problem's capture matrix; every FRL / softFRL
solver's reported objective is checked against them in the tests.  Sample weights are not
supported by the falling programs (a weighted problem raises ``ValueError``).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Sequence

from .objectives import capture_counts


@dataclasses.dataclass(frozen=True)
class FallingScore:
    """Objective of one rule list under Program 2.9 or 5.1, with its parts."""

    objective: float
    """loss + C * n_rules (+ C1 * penalty for softFRL)."""
    loss: float
    """Weighted empirical risk R = sum_j min(w n+_j, n-_j) / n."""
    penalty: float
    """Unscaled softness penalty S = sum_j max(alpha_j - min_{k<j} alpha_k, 0) (0 for FRL)."""
    n_rules: int
    counts: tuple[tuple[int, int], ...]
    """(n+_j, n-_j) newly captured by each rule, then the else clause."""
    proportions: tuple[float, ...]
    """alpha_j of each rule, then the else clause."""
    falling: bool
    """alpha_0 >= ... >= alpha_K (else clause included)."""


def check_falling_params(w, C, C1=None) -> tuple[float, float, float | None]:
    """Validate the positive-class weight ``w`` (> 0), rule cost ``C`` (>= 0), softness ``C1`` (>= 0)."""
    def num(v, name):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a finite number, got {v!r}") from None
        if not math.isfinite(f):
            raise ValueError(f"{name} must be a finite number, got {v!r}")
        return f
    w = num(w, "w")
    if w <= 0:
        raise ValueError(f"the positive-class weight w must be > 0, got {w!r}")
    C = num(C, "C")
    if C < 0:
        raise ValueError(f"the rule cost C must be >= 0, got {C!r}")
    if C1 is not None:
        C1 = num(C1, "C1")
        if C1 < 0:
            raise ValueError(f"the softness penalty C1 must be >= 0, got {C1!r}")
    return w, C, C1


def check_falling_problem(problem) -> None:
    """Shared bad-input checks of the falling programs: unweighted, two classes."""
    if problem.sample_weight is not None:
        raise ValueError("the falling rule list programs take unweighted problems "
                         "(sample_weight is not supported)")
    problem.check_two_classes()


def _prefix_of(problem, model_or_prefix) -> list[int]:
    from .falling_model import FallingRuleList
    if isinstance(model_or_prefix, FallingRuleList):
        return model_or_prefix.prefix_indices(problem)
    return [int(i) for i in model_or_prefix]


def falling_counts(problem, prefix: Sequence[int]) -> list[tuple[int, int]]:
    """(n+_j, n-_j) newly captured by each antecedent of ``prefix``, then the remainder."""
    if problem.sample_weight is not None:
        raise ValueError("the falling rule list programs take unweighted problems "
                         "(sample_weight is not supported)")
    return [cnt for _, cnt in capture_counts(problem, list(prefix))]


def counts_fall(counts: Sequence[tuple[int, int]]) -> bool:
    """True when the proportions of ``counts`` never increase (exact integer comparison)."""
    for (p0, q0), (p1, q1) in zip(counts[:-1], counts[1:]):
        # p1/(p1+q1) <= p0/(p0+q0)
        if p1 * (p0 + q0) > p0 * (p1 + q1):
            return False
    return True


def _check_compatible(counts) -> None:
    for j, (p, q) in enumerate(counts):
        if p + q == 0:
            what = "the else clause" if j == len(counts) - 1 else f"rule {j}"
            raise ValueError(f"{what} captures no sample: the falling-list objective is defined "
                             "for compatible lists only (every rule and the else clause capture "
                             "at least one sample, Def 2.6)")


def _loss(counts, n, w) -> float:
    return sum(min(w * p, q) for p, q in counts) / n


def _evaluate(problem, model_or_prefix, w):
    """(prefix, per-rule (pos, neg) counts, weighted loss, proportions) of a compatible list."""
    prefix = _prefix_of(problem, model_or_prefix)
    counts = falling_counts(problem, prefix)
    _check_compatible(counts)
    loss = _loss(counts, problem.n_samples, w)
    props = tuple(p / (p + q) for p, q in counts)
    return prefix, counts, loss, props


def frl_objective(problem, model_or_prefix, w: float, C: float) -> FallingScore:
    """L(d) of Program 2.9 for a FallingRuleList or an antecedent-index prefix."""
    w, C, _ = check_falling_params(w, C)
    prefix, counts, loss, props = _evaluate(problem, model_or_prefix, w)
    K = len(prefix)
    return FallingScore(loss + C * K, loss, 0.0, K, tuple(counts), props, counts_fall(counts))


def softness_penalty(proportions: Sequence[float]) -> float:
    """S = sum_j max(alpha_j - min_{k<j} alpha_k, 0) (the j = 0 term is 0)."""
    s = 0.0
    m = math.inf
    for a in proportions:
        if a > m:
            s += a - m
        m = min(m, a)
    return s


def soft_frl_objective(problem, model_or_prefix, w: float, C: float, C1: float) -> FallingScore:
    """L~(d) of Program 5.1 (on the unmodified proportions) for a list or a prefix."""
    w, C, C1 = check_falling_params(w, C, C1)
    prefix, counts, loss, props = _evaluate(problem, model_or_prefix, w)
    pen = softness_penalty(props)
    K = len(prefix)
    return FallingScore(loss + C * K + C1 * pen, loss, pen, K, tuple(counts), props,
                        counts_fall(counts))
