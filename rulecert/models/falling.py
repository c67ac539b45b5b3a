"""FallingRuleList: a probabilistic decision list whose probabilities never increase.

``if a_0 then P(y=1) = p_0  elif a_1 then p_1 ... else p_K`` with p_0 >= p_1 >= ... >= p_K.
A sample gets the probability of the first rule it satisfies; it is predicted positive when
that probability exceeds the threshold tau = 1/(1+w) (w = positive-class weight), the rule
used by the weighted risk of Chen & Rudin (2018): a rule predicts 1 iff w * n+ > n-.

For a falling rule list (Program 2.9) ``probabilities`` equal the training proportions
``proportions``.  For a softly falling list (Program 5.1) the learned proportions need not
fall; the model then carries ``probabilities[j] = min_{k<=j} proportions[k]`` (the paper's
conversion), and predicts with those.  The constructor refuses probabilities that increase, so
a FallingRuleList always falls.

Exact objectives of falling (FRL) and softly falling (softFRL) rule lists, Chen & Rudin
(AISTATS 2018); notation of ``shared/papers/frl_math.md``.  For a rule list d
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
import json
import math
from typing import Sequence

import numpy as np

from .antecedent import Antecedent, OrderedRules, integer_from_json, list_from_json
from .rulelist import RuleList, _label_text

KINDS = ("falling", "softly_falling")


def _number(x, where: str) -> float:
    """A real number of a JSON document (``ValueError`` naming ``where``)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        raise ValueError(f"{where}: expected a number, got {x!r:.40}")
    return float(x)


@dataclasses.dataclass
class FallingRuleList(OrderedRules):
    """Rules with probabilities, training counts and the positive-class weight.

    Parameters
    ----------
    antecedents : list of Antecedent
        The K rules' antecedents, in order.
    probabilities : list of float, length K + 1
        P(y=1) of each rule and of the else clause (last); must not increase.
    counts : list of (positives, negatives), length K + 1
        Training samples newly captured by each rule and by the else clause.
    w : float
        Positive-class weight; the decision threshold is 1 / (1 + w).
    indices : list of int
        Positions of the antecedents in the RuleProblem the list was learned on.
    kind : "falling" or "softly_falling"
    proportions : list of float, optional
        Raw training proportions n+/(n+ + n-) (default: derived from ``counts``).
    """

    antecedents: list[Antecedent]
    probabilities: list[float]
    counts: list[tuple[int, int]]
    w: float
    indices: list[int] = dataclasses.field(default_factory=list)
    kind: str = "falling"
    proportions: list[float] = dataclasses.field(default_factory=list)

    def __post_init__(self):
        self.antecedents = [a if isinstance(a, Antecedent) else Antecedent(str(a))
                            for a in self.antecedents]
        self.probabilities = [float(p) for p in self.probabilities]
        self.counts = [(int(a), int(b)) for a, b in self.counts]
        self.indices = [int(i) for i in self.indices]
        self.w = float(self.w)
        K = len(self.antecedents)
        if not (self.w > 0 and np.isfinite(self.w)):
            raise ValueError(f"the positive-class weight w must be a finite number > 0, got {self.w!r}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if len(self.probabilities) != K + 1:
            raise ValueError(f"{K} rules need {K + 1} probabilities (the else clause last), "
                             f"got {len(self.probabilities)}")
        if self.counts and len(self.counts) != K + 1:
            raise ValueError(f"{K} rules need {K + 1} count pairs, got {len(self.counts)}")
        if self.indices and len(self.indices) != K:
            raise ValueError(f"{K} rules but {len(self.indices)} indices")
        for j, p in enumerate(self.probabilities):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"probability of rule {j} must be in [0, 1], got {p!r}")
        for j in range(K):
            if self.probabilities[j + 1] > self.probabilities[j] + 1e-12:
                raise ValueError(
                    f"not a falling rule list: probability {self.probabilities[j + 1]!r} of "
                    f"{'the else clause' if j + 1 == K else f'rule {j + 1}'} exceeds "
                    f"{self.probabilities[j]!r} of rule {j}")
        if not self.proportions:
            self.proportions = ([p / (p + q) if p + q else float("nan") for p, q in self.counts]
                                if self.counts else list(self.probabilities))
        self.proportions = [float(a) for a in self.proportions]
        if len(self.proportions) != K + 1:
            raise ValueError(f"{K} rules need {K + 1} proportions, got {len(self.proportions)}")

    # ---- basic facts --------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.antecedents)

    @property
    def n_rules(self) -> int:
        """Number of rules before the else clause."""
        return len(self.antecedents)

    @property
    def threshold(self) -> float:
        """tau = 1 / (1 + w): a rule predicts 1 when its probability exceeds it."""
        return 1.0 / (1.0 + self.w)

    @property
    def predictions(self) -> list[int]:
        """0/1 label of each rule and the else clause (probability > threshold)."""
        if self.counts and self.kind == "falling":
            # exact on counts: w * n+ > n-
            return [int(self.w * p > q) for p, q in self.counts]
        return [int(p > self.threshold) for p in self.probabilities]

    # ---- evaluation -----------------------------------------------------------------------
    def predict_proba_captures(self, captures) -> np.ndarray:
        return np.asarray(self.probabilities)[self.rule_index(captures)]

    def predict_captures(self, captures) -> np.ndarray:
        return np.asarray(self.predictions, dtype=np.int64)[self.rule_index(captures)]

    def predict_proba(self, X) -> np.ndarray:
        """P(y=1) of each sample of a binary feature matrix (its rule's probability)."""
        return self.predict_proba_captures(self.captures_from_features(X))

    def predict(self, X) -> np.ndarray:
        """0/1 labels on a binary feature matrix (probability > 1/(1+w))."""
        return self.predict_captures(self.captures_from_features(X))

    def to_rule_list(self) -> RuleList:
        """The same rules as a plain :class:`~rulecert.models.RuleList` with 0/1 labels."""
        preds = self.predictions
        return RuleList(self.antecedents, preds[:-1], preds[-1], self.indices, self.counts)

    # ---- text and JSON ----------------------------------------------------------------------
    def to_text(self, decimals: int = 2, labels=(0, 1)) -> str:
        """A table as the paper's Table 1: rule, probability, positive and negative counts;
        ``labels`` name the classes 0 and 1 (e.g. an estimator's ``classes_``)."""
        neg_name, pos_name = (_label_text(v) for v in labels)
        heads = []
        for k, a in enumerate(self.antecedents):
            heads.append(("IF " if k == 0 else "ELSE IF ") + a.text + " THEN")
        heads.append("ELSE" if self.antecedents else "ALWAYS")
        width = max(len(h) for h in heads)
        lines = [f"{'Rule':<{width}}  {'Prob':>{decimals + 3}}  {'n+':>7}  {'n-':>7}"]
        for k, h in enumerate(heads):
            p = self.probabilities[k]
            if self.counts:
                pos, neg = self.counts[k]
                cnt = f"{pos:>7}  {neg:>7}"
            else:
                cnt = f"{'':>7}  {'':>7}"
            lines.append(f"{h:<{width}}  {p:>{decimals + 3}.{decimals}f}  {cnt}")
        foot = (f"(Prob = P({pos_name}); predict {pos_name} when above 1/(1+w) = "
                f"{self.threshold:.4g}, else {neg_name}; {self.kind.replace('_', ' ')})")
        lines.append(foot)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def to_dict(self) -> dict:
        return {"type": "FallingRuleList", "kind": self.kind, "w": self.w,
                "rules": [{"antecedent": a.to_dict(), "probability": p}
                          for a, p in zip(self.antecedents, self.probabilities)],
                "else_probability": self.probabilities[-1],
                "indices": list(self.indices), "counts": [list(c) for c in self.counts],
                "proportions": list(self.proportions), "text": self.to_text()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "FallingRuleList":
        if not isinstance(d, dict) or d.get("type") != "FallingRuleList":
            raise ValueError(f"not a FallingRuleList document (type={d.get('type')!r})")
        rules = list_from_json(d, "rules")
        probs = [_number(r["probability"], f"rules[{k}].probability")
                 for k, r in enumerate(rules)]
        probs.append(_number(d["else_probability"], "else_probability"))
        return cls([Antecedent.from_dict(r["antecedent"], f"rules[{k}].antecedent")
                    for k, r in enumerate(rules)], probs,
                   [tuple(c) for c in list_from_json(d, "counts", [])], _number(d["w"], "w"),
                   [integer_from_json(i, f"indices[{k}]")
                    for k, i in enumerate(list_from_json(d, "indices", []))],
                   d.get("kind", "falling"), list_from_json(d, "proportions", []))

    @classmethod
    def from_json(cls, s: str) -> "FallingRuleList":
        return cls.from_dict(json.loads(s))

    # ---- construction from a prefix ---------------------------------------------------------
    @classmethod
    def from_prefix(cls, problem, prefix: Sequence[int], w: float,
                    kind: str = "falling") -> "FallingRuleList":
        """The list with antecedents ``prefix`` on ``problem``, probabilities from the counts.

        ``kind="falling"`` requires the training proportions to fall (else ``ValueError``);
        ``kind="softly_falling"`` takes probabilities = running minimum of the proportions.
        """
        prefix = [int(i) for i in prefix]
        counts = falling_counts(problem, prefix)
        for j, (p, q) in enumerate(counts):
            if p + q == 0:
                what = "the else clause" if j == len(prefix) else f"rule {j}"
                raise ValueError(f"{what} captures no training sample (the list is not compatible)")
        props = [p / (p + q) for p, q in counts]
        if kind == "falling":
            probs = props
        elif kind == "softly_falling":
            probs = list(np.minimum.accumulate(props)) if props else []
        else:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        return cls([problem.antecedents[i] for i in prefix], probs, counts, w, prefix, kind, props)


# ---- the exact objectives ------------------------------------------------------------------
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


@dataclasses.dataclass(frozen=True)
class FallingParams:
    """The validated parameters of one falling program (see :func:`make_params`)."""

    program: str  # "frl" or "softfrl"
    w: float
    C: float
    C1: float = 0.0

    @property
    def tau(self) -> float:
        return 1.0 / (1.0 + self.w)


def make_params(program: str, w, C, C1=None) -> FallingParams:
    """Validate ``program`` ("frl" or "softfrl") and its parameters (softFRL needs ``C1``)."""
    if program == "frl":
        w, C, _ = check_falling_params(w, C)
        return FallingParams("frl", w, C, 0.0)
    if program == "softfrl":
        if C1 is None:
            raise ValueError("softFRL needs the softness penalty C1")
        w, C, C1 = check_falling_params(w, C, C1)
        return FallingParams("softfrl", w, C, C1)
    raise ValueError(f"program must be 'frl' or 'softfrl', got {program!r}")


def check_falling_problem(problem) -> None:
    """Shared bad-input checks of the falling programs: unweighted, two classes."""
    if problem.sample_weight is not None:
        raise ValueError("the falling rule list programs take unweighted problems "
                         "(sample_weight is not supported)")
    problem.check_two_classes()


def _prefix_of(problem, model_or_prefix) -> list[int]:
    if isinstance(model_or_prefix, FallingRuleList):
        return model_or_prefix.rows_in(problem)
    return [int(i) for i in model_or_prefix]


def falling_counts(problem, prefix: Sequence[int]) -> list[tuple[int, int]]:
    """(n+_j, n-_j) newly captured by each antecedent of ``prefix``, then the remainder."""
    if problem.sample_weight is not None:
        raise ValueError("the falling rule list programs take unweighted problems "
                         "(sample_weight is not supported)")
    return [cnt for _, cnt in problem.capture_counts(list(prefix))]


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
