"""Boolean rule sets: DNF (OR of ANDs, a decision rule set) and CNF (AND of ORs).

A literal ``(j, v)`` is true for a sample when binary column ``j`` equals ``v`` (0 or 1), as in
:class:`rulecert.models.Antecedent`.  A clause is a tuple of literals: in a DNF a clause is a
conjunction and the rule set predicts 1 when at least one clause holds; in a CNF a clause is a
disjunction and the rule set predicts 1 when every clause holds.

Complexity (Dash, Gunluk & Wei, NeurIPS 2018): each clause costs one plus its number of
literals; the complexity of a rule set is the sum over its clauses.  The empty DNF predicts 0
everywhere, the empty CNF predicts 1 everywhere.  A clause without literals is the empty
conjunction (always true, complexity 1) in a DNF and the empty disjunction (always false) in a
CNF: the paper's pricing problem (6)-(10) admits it, and AIX360's BooleanRuleCG returns it.

The exact objective (Dash, Gunluk & Wei, NeurIPS 2018, eq. (1)), in :func:`ruleset_objective`:

DNF, Hamming loss:
    H = fn_weight * sum_{i positive} w_i [no clause holds on i]
        + sum_{i negative} w_i * #{clauses that hold on i}
i.e. false negatives plus, for each negative sample, the number of selected clauses it
satisfies.  ``w_i`` are the sample weights (1 by default).

CNF is learned as the DNF of the negated problem (De Morgan: labels and literals negated),
so its Hamming loss is the DNF loss of that problem:
    H = fn_weight * sum_{i negative} w_i [every clause holds on i]
        + sum_{i positive} w_i * #{clauses that are false on i}.

The penalized form adds ``clause_penalty * n_clauses + literal_penalty * n_literals`` (not
scaled by n).  The complexity (clauses + literals) is reported but is a constraint, not a
term, of the paper's objective.

The binary features are either a matrix ``X`` or a :class:`~rulecert.problem.RuleProblem`
whose capture rows are the binary feature columns (row ``j`` = column ``j``).
"""
from __future__ import annotations

import dataclasses
import json
from typing import Sequence

import numpy as np

from ..checks import check_binary_matrix
from .antecedent import AND, OR, list_from_json, literal_from_json, negated_text
from .rulelist import _label_text, label_consistent_probability

FORMS = ("dnf", "cnf")

Literal = tuple[int, int]
Clause = tuple[Literal, ...]


def _normalize_clause(clause) -> Clause:
    lits = []
    for lit in clause:
        try:
            j, v = lit
        except (TypeError, ValueError):
            raise ValueError(f"a literal must be a pair (column, value), got {lit!r}") from None
        j, v = int(j), int(v)
        if j < 0:
            raise ValueError(f"literal column must be >= 0, got {j}")
        if v not in (0, 1):
            raise ValueError(f"literal value must be 0 or 1, got {v}")
        lits.append((j, v))
    return tuple(sorted(set(lits)))


def _num(v):
    """An int when integral (unweighted counts), else a float."""
    v = float(v)
    return int(v) if v.is_integer() else v


def check_complexity_bound(C, empty_clause: bool, name: str = "complexity_bound C") -> None:
    """A bound ``C`` below the smallest clause complexity (2, or 1 with the empty clause)
    admits only the empty rule set: a clear error."""
    lo = 1 if empty_clause else 2
    if C is not None and C < lo:
        raise ValueError(f"{name}={C:g} < {lo}: no clause fits (a clause with one literal has "
                         "complexity 2, the empty clause, admitted by empty_clause=True, "
                         "complexity 1)")


@dataclasses.dataclass
class RuleSet:
    """A DNF or CNF Boolean rule over binary features.

    Parameters
    ----------
    clauses : list of clauses; each clause is a sequence of literals ``(column, value)``.
    form : ``"dnf"`` (default) or ``"cnf"``.
    feature_names : names of the binary columns (for text); ``x{j}`` when missing.
    counts : training ``(positives, negatives)`` (weighted when fitted with weights) of the
        samples each clause *decides*: a DNF clause that holds, a CNF clause that fails; the
        last entry for the samples no clause decides.  Optional; ``with_counts`` fills it
        and ``predict_proba`` reads it.
    """

    clauses: list[Clause]
    form: str = "dnf"
    feature_names: list[str] | None = None
    counts: list[tuple[float, float]] = dataclasses.field(default_factory=list)

    def __post_init__(self):
        if self.form not in FORMS:
            raise ValueError(f"form must be one of {FORMS}, got {self.form!r}")
        self.clauses = [_normalize_clause(c) for c in self.clauses]
        if self.feature_names is not None:
            self.feature_names = [str(s) for s in self.feature_names]
            for c in self.clauses:
                for j, _ in c:
                    if j >= len(self.feature_names):
                        raise ValueError(f"literal column {j} is out of range for "
                                         f"{len(self.feature_names)} feature names")
        self.counts = [(_num(a), _num(b)) for a, b in self.counts]
        if self.counts and len(self.counts) != self.n_clauses + 1:
            raise ValueError(f"counts must have one entry per clause plus one for the samples no "
                             f"clause decides: {self.n_clauses + 1}, got {len(self.counts)}")

    # ---- size -------------------------------------------------------------------------
    @property
    def n_clauses(self) -> int:
        return len(self.clauses)

    @property
    def n_literals(self) -> int:
        return sum(len(c) for c in self.clauses)

    @property
    def complexity(self) -> int:
        """Number of clauses plus total number of literals (the paper's complexity)."""
        return self.n_clauses + self.n_literals

    def __len__(self) -> int:
        return self.n_clauses

    # ---- evaluation -------------------------------------------------------------------
    def _check_X(self, X) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be two-dimensional, got shape {X.shape}")
        need = max((j for c in self.clauses for j, _ in c), default=-1) + 1
        if X.shape[1] < need:
            raise ValueError(f"X has {X.shape[1]} columns but the rule set uses column {need - 1}")
        return X

    def clause_values(self, X) -> np.ndarray:
        """Boolean matrix (n x n_clauses): the truth value of each clause on each sample
        (a conjunction for DNF, a disjunction for CNF)."""
        X = self._check_X(X)
        out = np.empty((X.shape[0], self.n_clauses), dtype=bool)
        for k, c in enumerate(self.clauses):
            if self.form == "dnf":
                col = np.ones(X.shape[0], dtype=bool)
                for j, v in c:
                    col &= X[:, j] == v
            else:
                col = np.zeros(X.shape[0], dtype=bool)
                for j, v in c:
                    col |= X[:, j] == v
            out[:, k] = col
        return out

    def predict(self, X) -> np.ndarray:
        """0/1 predictions on a binary feature matrix."""
        V = self.clause_values(X)
        if self.form == "dnf":
            return V.any(axis=1).astype(np.int64)
        return V.all(axis=1).astype(np.int64)

    @property
    def decided_label(self) -> int:
        """The label a deciding clause gives: 1 for a DNF (a clause holds), 0 for a CNF (a
        clause fails)."""
        return 1 if self.form == "dnf" else 0

    def decisions(self, X) -> np.ndarray:
        """Boolean matrix (n x n_clauses): clause k decides sample i (a DNF clause holds, a
        CNF clause fails); a sample no clause decides gets the other label."""
        V = self.clause_values(X)
        return V if self.form == "dnf" else ~V

    def with_counts(self, X, y, sample_weight=None) -> "RuleSet":
        """This rule set with the training counts of ``counts`` taken on ``X``, ``y``."""
        y = np.asarray(y).astype(np.int64).ravel()
        D = self.decisions(X)
        if y.shape[0] != D.shape[0]:
            raise ValueError(f"X has {D.shape[0]} samples but y has {y.shape[0]}")
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        pos, neg = w * (y == 1), w * (y != 1)
        cols = [*D.T, ~D.any(axis=1)]
        counts = [(float(pos[c].sum()), float(neg[c].sum())) for c in cols]
        return dataclasses.replace(self, counts=counts)

    def predict_proba(self, X) -> np.ndarray:
        """P(y=1) of each sample from the training counts.

        A sample some clauses decide gets the training rate of the decided label among the
        samples of the *most precise* of those clauses (the highest rate); a sample no clause
        decides gets the rate among the training samples no clause decided.  The value is then
        put on the side of the Boolean prediction
        (``rulecert.models.rulelist.label_consistent_probability``), so
        ``predict(X) == (predict_proba(X) > 0.5)``.
        """
        if not self.counts:
            raise ValueError("this rule set carries no training counts (see with_counts)")
        D = self.decisions(X)
        t = self.decided_label
        rate = np.array([(p if t == 1 else q) / (p + q) if p + q else 0.5 for p, q in self.counts])
        score = np.where(D.any(axis=1), np.where(D, rate[:-1], -np.inf).max(axis=1, initial=-np.inf),
                         rate[-1])
        p1 = score if t == 1 else 1.0 - score
        return label_consistent_probability(p1, self.predict(X))

    # ---- text and JSON ----------------------------------------------------------------
    def literal_text(self, lit: Literal) -> str:
        j, v = lit
        name = self.feature_names[j] if self.feature_names is not None else f"x{j}"
        return name if v == 1 else negated_text(name)

    def clause_text(self, clause: Clause) -> str:
        if not clause:
            return "true" if self.form == "dnf" else "false"
        op = AND if self.form == "dnf" else OR
        return op.join(self.literal_text(l) for l in clause)

    def to_text(self, labels=(0, 1)) -> str:
        """The rule as text; ``labels`` name the classes 0 and 1 (e.g. ``est.classes_``)."""
        neg, pos = (_label_text(v) for v in labels)
        if not self.clauses:
            return f"predict {neg if self.form == 'dnf' else pos} (empty {self.form.upper()})"
        join = OR.strip() + " " if self.form == "dnf" else AND.strip() + " "
        lines = [f"predict {pos} if"]
        for k, c in enumerate(self.clauses):
            lines.append(("      " if k == 0 else "   " + join) + f"({self.clause_text(c)})")
        lines.append(f"else predict {neg}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def to_dict(self) -> dict:
        return {"type": "RuleSet", "form": self.form,
                "clauses": [[list(l) for l in c] for c in self.clauses],
                "feature_names": None if self.feature_names is None else list(self.feature_names),
                "counts": [list(c) for c in self.counts], "text": self.to_text()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "RuleSet":
        if not isinstance(d, dict) or d.get("type") != "RuleSet":
            raise ValueError(f"not a RuleSet document (type={d.get('type')!r})")
        clauses = list_from_json(d, "clauses")
        for k, c in enumerate(clauses):
            if not isinstance(c, list):
                raise ValueError(f"clauses[{k}]: expected a list of [column, value] pairs")
        names = d.get("feature_names")
        if names is not None and not (isinstance(names, list)
                                      and all(isinstance(n, str) for n in names)):
            raise ValueError("feature_names: expected a list of texts or null")
        return cls([tuple(literal_from_json(l, f"clauses[{k}][{i}]") for i, l in enumerate(c))
                    for k, c in enumerate(clauses)], d.get("form", "dnf"), names,
                   [tuple(c) for c in list_from_json(d, "counts", [])])

    @classmethod
    def from_json(cls, s: str) -> "RuleSet":
        return cls.from_dict(json.loads(s))

    @classmethod
    def from_feature_sets(cls, feature_sets: Sequence[Sequence[int]], form: str = "dnf",
                          feature_names=None) -> "RuleSet":
        """Clauses given as sets of binary columns, each literal meaning "column == 1"."""
        return cls([tuple((int(j), 1) for j in s) for s in feature_sets], form, feature_names)


# ---- the exact objective ------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class RuleSetScore:
    """The exact objective of a rule set on a problem and its parts: the Hamming loss of
    Dash, Günlük & Wei and the complexity of the set."""

    false_negatives: float
    """(Weighted) samples of the learned class that no clause covers (DNF view)."""
    false_positive_hits: float
    """Sum over samples of the other class of w_i times the number of clauses covering them."""
    hamming_loss: float
    """fn_weight * false_negatives + false_positive_hits."""
    n_clauses: int
    n_literals: int
    complexity: int
    objective: float
    """hamming_loss + clause_penalty * n_clauses + literal_penalty * n_literals."""
    errors: float
    """(Weighted) misclassified samples (0-1 loss), for information."""


def ruleset_objective_xy(ruleset, X, y, sample_weight=None, *, fn_weight: float = 1.0,
                         clause_penalty: float = 0.0, literal_penalty: float = 0.0) -> RuleSetScore:
    """Exact objective of ``ruleset`` on binary features ``X`` and 0/1 labels ``y``."""
    X = check_binary_matrix(X)
    y = np.asarray(y).astype(np.int64).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}")
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    V = ruleset.clause_values(X)
    if ruleset.form == "dnf":
        target = y == 1
        hits = V.sum(axis=1)
    else:  # DNF of the negated problem: target = negatives, "covered" = CNF clause false
        target = y == 0
        hits = (~V).sum(axis=1)
    fn = float(w[target & (hits == 0)].sum())
    fp = float((w[~target] * hits[~target]).sum())
    weighted = sample_weight is not None
    if not weighted:
        fn, fp = int(round(fn)), int(round(fp))
    h = fn_weight * fn + fp
    obj = h + clause_penalty * ruleset.n_clauses + literal_penalty * ruleset.n_literals
    pred = ruleset.predict(X)
    err = float(w[pred != y].sum())
    if not weighted:
        err = int(round(err))
    return RuleSetScore(fn, fp, h, ruleset.n_clauses, ruleset.n_literals, ruleset.complexity,
                        obj, err)


def ruleset_objective(ruleset, problem, *, fn_weight: float = 1.0, clause_penalty: float = 0.0,
                      literal_penalty: float = 0.0) -> RuleSetScore:
    """Exact objective of ``ruleset`` on a RuleProblem whose antecedents are binary features."""
    return ruleset_objective_xy(ruleset, problem.dense(), problem.y, problem.sample_weight,
                                fn_weight=fn_weight, clause_penalty=clause_penalty,
                                literal_penalty=literal_penalty)
