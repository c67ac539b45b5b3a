"""The one place each objective is computed exactly, from a model and a RuleProblem.

Every solver's reported objective is re-checked against these functions in the tests.

Rule-list objective (CORELS, JMLR 2018 eq. (2)):
    R(d) = mistakes(d) / n + c * K,
where K is the number of rules before the default rule.  With sample weights, mistakes are
weighted and divided by the total weight.  The labels are those carried by the model; the
CORELS labelling (majority of newly captured samples, ties predict 1) is in
:func:`rulecert.rules.rule_list_from_prefix`.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from . import bits


@dataclasses.dataclass(frozen=True)
class RuleListScore:
    mistakes: float
    """Number (or weighted mass) of misclassified samples."""
    n_rules: int
    objective: float
    """mistakes / total + c * n_rules."""


def _mass(problem, v: np.ndarray) -> float:
    """Number (or weighted mass) of samples in packed vector ``v``."""
    if problem.sample_weight is None:
        return bits.count(v)
    return float(problem.sample_weight[bits.unpack(v, problem.n_samples)].sum())


def total_mass(problem) -> float:
    return float(problem.n_samples if problem.sample_weight is None else problem.sample_weight.sum())


def capture_counts(problem, prefix: Sequence[int]):
    """For each rule of ``prefix`` and then the default: ((pos_mass, neg_mass), (pos, neg)).

    The first pair is weighted (equal to the counts when unweighted); the second pair is the
    integer counts of newly captured positives and negatives.
    """
    M = problem.n_antecedents
    for i in prefix:
        if not 0 <= int(i) < M:
            raise ValueError(f"antecedent index {i} out of range for {M} antecedents")
    remaining = problem.all.copy()
    out = []
    for i in prefix:
        cap = problem.captures[int(i)] & remaining
        remaining &= ~problem.captures[int(i)]
        out.append(_split(problem, cap))
    out.append(_split(problem, remaining))
    return out


def _split(problem, cap):
    pos_v = cap & problem.labels
    neg_v = cap & ~problem.labels
    p, q = bits.count(pos_v), bits.count(neg_v)
    if problem.sample_weight is None:
        return (p, q), (p, q)
    return (_mass(problem, pos_v), _mass(problem, neg_v)), (p, q)


def rule_list_mistakes(rule_list, problem) -> float:
    """Misclassified samples (or weighted mass) of ``rule_list`` on ``problem``.

    Antecedents are matched by index into the problem (falling back to names).
    """
    C = rule_list.captures_from_problem(problem)
    pred = rule_list.predict_captures(C)
    wrong = pred != problem.y
    if problem.sample_weight is None:
        return int(wrong.sum())
    return float(problem.sample_weight[wrong].sum())


def rule_list_objective(rule_list, problem, c: float) -> RuleListScore:
    """Exact CORELS objective of a rule list (labels as carried by the list)."""
    m = rule_list_mistakes(rule_list, problem)
    return RuleListScore(m, rule_list.n_rules, m / total_mass(problem) + c * rule_list.n_rules)


def prefix_objective(problem, prefix: Sequence[int], c: float) -> RuleListScore:
    """Objective of the CORELS-labelled rule list with antecedent ``prefix``."""
    from .rules import rule_list_from_prefix
    return rule_list_objective(rule_list_from_prefix(problem, prefix), problem, c)
