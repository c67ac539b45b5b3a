"""Rule lists and their exact objective (CORELS, Angelino et al., JMLR 2018).

A :class:`RuleList` is ``if a_1 then q_1 elif a_2 then q_2 ... else q_0``.

Objective (JMLR eq. (2)), the one definition every rule-list solver is checked against:
    R(d) = mistakes(d) / n + c * K,
where K is the number of rules before the default rule.  With sample weights, mistakes are
weighted and divided by the total weight.  :func:`rule_list_objective` scores the labels the
model carries; :func:`rule_list_from_prefix` builds the CORELS labelling: each rule predicts
the majority of the samples it newly captures, the default the majority of the rest, and
**ties predict 1** (:func:`majority_label`, as the reference CORELS, everywhere in rulecert).
"""
from __future__ import annotations

import dataclasses
import json
from typing import Sequence

import numpy as np

from .antecedent import Antecedent, OrderedRules, integer_from_json, list_from_json


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

    def predict_proba_captures(self, captures) -> np.ndarray:
        """P(y=1) of each sample: the training positive rate of the rule that classifies it,
        moved to the side of that rule's label (``label_consistent_probability``)."""
        labels = np.array([*self.predictions, self.default], dtype=np.int64)
        per_rule = label_consistent_probability(self.rule_probabilities(), labels)
        return per_rule[self.rule_index(captures)]

    def predict_proba(self, X) -> np.ndarray:
        """P(y=1) of each sample of a binary feature matrix (see :meth:`predict_proba_captures`)."""
        return self.predict_proba_captures(self.captures_from_features(X))

    # ---- text and JSON ----------------------------------------------------------------
    def to_text(self, probabilities: bool = False, labels=(0, 1)) -> str:
        """``if (a) then predict 1 / else if ... / else predict 0``; ``labels`` name the
        classes 0 and 1 (e.g. an estimator's ``classes_``), ``probabilities`` adds each rule's
        training frequency of class 1 and its counts."""
        names = [_label_text(v) for v in labels]
        pos_name = names[1]
        lines = []
        probs = self.rule_probabilities() if (probabilities and self.counts) else None

        def extra(k):
            if probs is None:
                return ""
            pos, neg = self.counts[k]
            return f"   (P({pos_name})={probs[k]:.3f}, +{pos}/-{neg})"

        for k, (a, p) in enumerate(zip(self.antecedents, self.predictions)):
            kw = "if" if k == 0 else "else if"
            lines.append(f"{kw} ({a.text}) then predict {names[p]}{extra(k)}")
        lines.append(("else " if self.antecedents else "")
                     + f"predict {names[self.default]}{extra(self.n_rules)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def to_dict(self) -> dict:
        return {"type": "RuleList",
                "rules": [{"antecedent": a.to_dict(), "prediction": p}
                          for a, p in zip(self.antecedents, self.predictions)],
                "default": self.default, "indices": list(self.indices),
                "counts": [list(c) for c in self.counts],
                "text": self.to_text()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "RuleList":
        if not isinstance(d, dict) or d.get("type") != "RuleList":
            raise ValueError(f"not a RuleList document (type={d.get('type')!r})")
        rules = list_from_json(d, "rules")
        return cls([Antecedent.from_dict(r["antecedent"], f"rules[{k}].antecedent")
                    for k, r in enumerate(rules)],
                   [integer_from_json(r["prediction"], f"rules[{k}].prediction", 0, 1)
                    for k, r in enumerate(rules)],
                   integer_from_json(d["default"], "default", 0, 1),
                   [integer_from_json(i, f"indices[{k}]")
                    for k, i in enumerate(list_from_json(d, "indices", []))],
                   [tuple(c) for c in list_from_json(d, "counts", [])])

    @classmethod
    def from_json(cls, s: str) -> "RuleList":
        return cls.from_dict(json.loads(s))


def _label_text(label) -> str:
    """A class label as printed: ``Yes``, ``1``, never ``np.int64(1)``."""
    if isinstance(label, np.generic):
        label = label.item()
    return str(label)


def majority_label(pos: float, neg: float) -> int:
    """The label rule shared by every learner: the majority, ties predict 1."""
    return 1 if pos >= neg else 0


_ABOVE_HALF = float(np.nextafter(0.5, 1.0))


def label_consistent_probability(p1, labels) -> np.ndarray:
    """Scores that agree with the model's 0/1 labels: ``p1`` where ``p1 > 0.5`` exactly when
    the label is 1; otherwise the nearest such value (the float just above 0.5 for a label 1
    whose training rate is at most 0.5, e.g. a tie, which predicts 1; 0.5 for a label 0 whose
    rate is above 0.5, possible with sample weights or a rule set's Boolean output).

    So ``predict == classes_[argmax(predict_proba)]`` and ``predict == (decision_function > 0)``
    hold for every rulecert classifier, and the ranking by score is the ranking by training
    frequency wherever the frequency agrees with the label.
    """
    p1 = np.array(p1, dtype=float)
    labels = np.asarray(labels)
    p1[(labels == 1) & (p1 <= 0.5)] = _ABOVE_HALF
    p1[(labels != 1) & (p1 > 0.5)] = 0.5
    return p1


def rule_list_from_prefix(problem, prefix: Sequence[int]) -> RuleList:
    """The CORELS-labelled rule list for an antecedent prefix on ``problem``.

    Each rule predicts the majority of the samples it newly captures, the default rule the
    majority of the samples no rule captures; ties predict 1 (as the reference CORELS).
    Weighted problems use weighted majorities.
    """
    pos_neg = problem.capture_counts(prefix)
    preds = [majority_label(*pw) for pw, _ in pos_neg[:-1]]
    default = majority_label(*pos_neg[-1][0])
    counts = [cnt for _, cnt in pos_neg]
    return RuleList([problem.antecedents[i] for i in prefix], preds, default, list(prefix), counts)


# ---- the exact objective ------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class RuleListScore:
    """The exact objective of a rule list on a problem and its parts
    (:func:`rule_list_objective`)."""

    mistakes: float
    """Number (or weighted mass) of misclassified samples."""
    n_rules: int
    objective: float
    """mistakes / total + c * n_rules."""


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
    return RuleListScore(m, rule_list.n_rules, m / problem.total_mass + c * rule_list.n_rules)


def prefix_objective(problem, prefix: Sequence[int], c: float) -> RuleListScore:
    """Objective of the CORELS-labelled rule list with antecedent ``prefix``."""
    return rule_list_objective(rule_list_from_prefix(problem, prefix), problem, c)
