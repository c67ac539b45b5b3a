"""Rule models: antecedents (conjunctions of binary literals) and rule lists.

An :class:`Antecedent` is a conjunction of literals over a binary feature matrix; a literal
``(j, v)`` is true for a sample when column ``j`` equals ``v`` (``v`` is 0 or 1).  Antecedents
read from a CORELS ``.out`` file have no literal definition (``literals=None``); they are
evaluated through a capture matrix instead.

A :class:`RuleList` is ``if a_1 then q_1 elif a_2 then q_2 ... else q_0``.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Sequence

import numpy as np


@dataclasses.dataclass(frozen=True)
class Antecedent:
    """A named conjunction of binary literals ``(column, value)``; ``literals=None`` if opaque."""

    name: str
    literals: tuple[tuple[int, int], ...] | None = None

    def evaluate(self, X) -> np.ndarray:
        """Boolean capture vector on a binary feature matrix ``X`` (n x d)."""
        if self.literals is None:
            raise ValueError(
                f"antecedent {self.name!r} has no literal definition (it was read from a "
                "CORELS file); evaluate the rule list on a capture matrix instead")
        X = np.asarray(X)
        out = np.ones(X.shape[0], dtype=bool)
        for j, v in self.literals:
            out &= X[:, j] == v
        return out

    def to_dict(self) -> dict:
        return {"name": self.name,
                "literals": None if self.literals is None else [list(l) for l in self.literals]}

    @classmethod
    def from_dict(cls, d: dict) -> "Antecedent":
        lits = d.get("literals")
        return cls(d["name"], None if lits is None else tuple((int(j), int(v)) for j, v in lits))


class OrderedRules:
    """First-match evaluation shared by every ordered rule model (rule lists, falling lists).

    Subclasses hold ``antecedents`` and define ``n_rules``.
    """

    def rule_index(self, captures: np.ndarray) -> np.ndarray:
        """Index of the rule that classifies each sample (``n_rules`` for the default).

        ``captures`` is a boolean matrix (n x n_rules): column k = antecedent k holds.
        """
        C = np.asarray(captures, dtype=bool)
        if C.ndim != 2 or C.shape[1] != self.n_rules:
            raise ValueError(f"capture matrix must be n x {self.n_rules}, got {C.shape}")
        idx = np.full(C.shape[0], self.n_rules, dtype=np.int64)
        for k in range(self.n_rules - 1, -1, -1):
            idx[C[:, k]] = k
        return idx

    def captures_from_features(self, X) -> np.ndarray:
        X = np.asarray(X)
        if not self.antecedents:
            return np.zeros((X.shape[0], 0), dtype=bool)
        return np.column_stack([a.evaluate(X) for a in self.antecedents])


@dataclasses.dataclass
class RuleList(OrderedRules):
    """An ordered list of rules followed by a default rule.

    ``indices`` are the positions of the antecedents in the :class:`~rulecert.problem.RuleProblem`
    the list was learned on; ``predictions[k]`` is the label of rule ``k`` and ``default`` the
    label of the else clause.  ``counts[k] = (positives, negatives)`` newly captured by rule
    ``k`` on the training data (the last entry is the default rule), used for
    ``predict_proba`` and printing; it may be empty.
    """

    antecedents: list[Antecedent]
    predictions: list[int]
    default: int
    indices: list[int] = dataclasses.field(default_factory=list)
    counts: list[tuple[int, int]] = dataclasses.field(default_factory=list)

    def __post_init__(self):
        self.antecedents = list(self.antecedents)
        self.predictions = [int(p) for p in self.predictions]
        self.default = int(self.default)
        self.indices = [int(i) for i in self.indices]
        self.counts = [(int(a), int(b)) for a, b in self.counts]
        if len(self.predictions) != len(self.antecedents):
            raise ValueError(f"{len(self.antecedents)} antecedents but {len(self.predictions)} predictions")
        if self.indices and len(self.indices) != len(self.antecedents):
            raise ValueError(f"{len(self.antecedents)} antecedents but {len(self.indices)} indices")
        if self.counts and len(self.counts) != len(self.antecedents) + 1:
            raise ValueError("counts must have one entry per rule plus one for the default rule")
        for p in [*self.predictions, self.default]:
            if p not in (0, 1):
                raise ValueError(f"rule predictions must be 0 or 1, got {p!r}")

    def __len__(self) -> int:
        return len(self.antecedents)

    @property
    def n_rules(self) -> int:
        """Number of rules before the default rule."""
        return len(self.antecedents)

    # ---- evaluation -------------------------------------------------------------------
    def captures_from_problem(self, problem) -> np.ndarray:
        """Capture matrix on a RuleProblem, matching antecedents by index or by name."""
        from . import bits
        names = problem.antecedent_names
        if self.indices and all(i < len(names) and names[i] == a.name
                                for i, a in zip(self.indices, self.antecedents)):
            rows = self.indices
        else:
            pos = {nm: i for i, nm in enumerate(names)}
            missing = [a.name for a in self.antecedents if a.name not in pos]
            if missing:
                raise ValueError(f"antecedents not present in the problem: {missing}")
            rows = [pos[a.name] for a in self.antecedents]
        if not rows:
            return np.zeros((problem.n_samples, 0), dtype=bool)
        return bits.unpack(problem.captures[rows], problem.n_samples).T

    def predict_captures(self, captures) -> np.ndarray:
        labels = np.array([*self.predictions, self.default], dtype=np.int64)
        return labels[self.rule_index(captures)]

    def predict(self, X) -> np.ndarray:
        """Predict 0/1 labels on a binary feature matrix (uses the literal definitions)."""
        return self.predict_captures(self.captures_from_features(X))

    def rule_probabilities(self) -> np.ndarray:
        """Empirical P(y=1) of each rule and the default (training counts; 0.5 where empty)."""
        if not self.counts:
            raise ValueError("this rule list carries no training counts")
        out = []
        for pos, neg in self.counts:
            out.append(pos / (pos + neg) if pos + neg else 0.5)
        return np.array(out)

    # ---- text and JSON ----------------------------------------------------------------
    def to_text(self, probabilities: bool = False) -> str:
        lines = []
        probs = self.rule_probabilities() if (probabilities and self.counts) else None
        for k, (a, p) in enumerate(zip(self.antecedents, self.predictions)):
            kw = "if" if k == 0 else "else if"
            extra = ""
            if probs is not None:
                pos, neg = self.counts[k]
                extra = f"   (P(y=1)={probs[k]:.3f}, +{pos}/-{neg})"
            lines.append(f"{kw} ({a.name}) then predict {p}{extra}")
        extra = ""
        if probs is not None:
            pos, neg = self.counts[-1]
            extra = f"   (P(y=1)={probs[-1]:.3f}, +{pos}/-{neg})"
        lines.append(("else " if self.antecedents else "") + f"predict {self.default}{extra}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def to_dict(self) -> dict:
        return {"type": "RuleList",
                "rules": [{"antecedent": a.to_dict(), "prediction": p}
                          for a, p in zip(self.antecedents, self.predictions)],
                "default": self.default, "indices": list(self.indices),
                "counts": [list(c) for c in self.counts]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "RuleList":
        if d.get("type") != "RuleList":
            raise ValueError(f"not a RuleList document (type={d.get('type')!r})")
        return cls([Antecedent.from_dict(r["antecedent"]) for r in d["rules"]],
                   [r["prediction"] for r in d["rules"]], d["default"],
                   d.get("indices", []), [tuple(c) for c in d.get("counts", [])])

    @classmethod
    def from_json(cls, s: str) -> "RuleList":
        return cls.from_dict(json.loads(s))


def majority_label(pos: float, neg: float) -> int:
    """The label rule shared by every learner: the majority, ties predict 1."""
    return 1 if pos >= neg else 0


def rule_list_from_prefix(problem, prefix: Sequence[int]) -> RuleList:
    """The CORELS-labelled rule list for an antecedent prefix on ``problem``.

    Each rule predicts the majority of the samples it newly captures, the default rule the
    majority of the samples no rule captures; ties predict 1 (as the reference CORELS).
    Weighted problems use weighted majorities.
    """
    from .objectives import capture_counts
    pos_neg = capture_counts(problem, prefix)
    preds = [majority_label(*pw) for pw, _ in pos_neg[:-1]]
    default = majority_label(*pos_neg[-1][0])
    counts = [cnt for _, cnt in pos_neg]
    return RuleList([problem.antecedents[i] for i in prefix], preds, default, list(prefix), counts)
