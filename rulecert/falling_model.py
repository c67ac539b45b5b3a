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
"""
from __future__ import annotations

import dataclasses
import json
from typing import Sequence

import numpy as np

from .rules import Antecedent, OrderedRules, RuleList

KINDS = ("falling", "softly_falling")


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

    def prefix_indices(self, problem) -> list[int]:
        """Row indices of the antecedents in ``problem`` (by index, falling back to names)."""
        names = problem.antecedent_names
        if self.indices and all(i < len(names) and names[i] == a.name
                                for i, a in zip(self.indices, self.antecedents)):
            return list(self.indices)
        pos = {nm: i for i, nm in enumerate(names)}
        missing = [a.name for a in self.antecedents if a.name not in pos]
        if missing:
            raise ValueError(f"antecedents not present in the problem: {missing}")
        return [pos[a.name] for a in self.antecedents]

    # ---- evaluation -----------------------------------------------------------------------
    def captures_from_problem(self, problem) -> np.ndarray:
        from . import bits
        rows = self.prefix_indices(problem)
        if not rows:
            return np.zeros((problem.n_samples, 0), dtype=bool)
        return bits.unpack(problem.captures[rows], problem.n_samples).T

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
        """The same rules as a plain :class:`~rulecert.rules.RuleList` with 0/1 labels."""
        preds = self.predictions
        return RuleList(self.antecedents, preds[:-1], preds[-1], self.indices, self.counts)

    # ---- text and JSON ----------------------------------------------------------------------
    def to_text(self, decimals: int = 2) -> str:
        """A table as the paper's Table 1: rule, probability, positive and negative counts."""
        heads = []
        for k, a in enumerate(self.antecedents):
            heads.append(("IF " if k == 0 else "ELSE IF ") + a.name + " THEN")
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
        foot = f"(P(y=1); predict 1 when above 1/(1+w) = {self.threshold:.4g}; {self.kind.replace('_', ' ')})"
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
                "proportions": list(self.proportions)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "FallingRuleList":
        if d.get("type") != "FallingRuleList":
            raise ValueError(f"not a FallingRuleList document (type={d.get('type')!r})")
        probs = [r["probability"] for r in d["rules"]] + [d["else_probability"]]
        return cls([Antecedent.from_dict(r["antecedent"]) for r in d["rules"]], probs,
                   [tuple(c) for c in d.get("counts", [])], d["w"], d.get("indices", []),
                   d.get("kind", "falling"), d.get("proportions", []))

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
        from .objectives_falling import falling_counts
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
