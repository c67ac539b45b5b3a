"""Boolean rule sets: DNF (OR of ANDs, a decision rule set) and CNF (AND of ORs).

A literal ``(j, v)`` is true for a sample when binary column ``j`` equals ``v`` (0 or 1), as in
:class:`rulecert.rules.Antecedent`.  A clause is a tuple of literals: in a DNF a clause is a
conjunction and the rule set predicts 1 when at least one clause holds; in a CNF a clause is a
disjunction and the rule set predicts 1 when every clause holds.

Complexity (Dash, Gunluk & Wei, NeurIPS 2018): each clause costs one plus its number of
literals; the complexity of a rule set is the sum over its clauses.  The empty DNF predicts 0
everywhere, the empty CNF predicts 1 everywhere.  A clause without literals is the empty
conjunction (always true, complexity 1) in a DNF and the empty disjunction (always false) in a
CNF: the paper's pricing problem (6)-(10) admits it, and AIX360's BooleanRuleCG returns it.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Sequence

import numpy as np

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
    """

    clauses: list[Clause]
    form: str = "dnf"
    feature_names: list[str] | None = None

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

    # ---- text and JSON ----------------------------------------------------------------
    def literal_text(self, lit: Literal) -> str:
        j, v = lit
        name = self.feature_names[j] if self.feature_names is not None else f"x{j}"
        return name if v == 1 else f"not ({name})"

    def clause_text(self, clause: Clause) -> str:
        if not clause:
            return "TRUE" if self.form == "dnf" else "FALSE"
        op = " AND " if self.form == "dnf" else " OR "
        return op.join(self.literal_text(l) for l in clause)

    def to_text(self) -> str:
        if not self.clauses:
            return f"predict {0 if self.form == 'dnf' else 1} (empty {self.form.upper()})"
        join = "OR " if self.form == "dnf" else "AND "
        lines = ["predict 1 if"]
        for k, c in enumerate(self.clauses):
            lines.append(("      " if k == 0 else "   " + join) + f"({self.clause_text(c)})")
        lines.append("else predict 0")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def to_dict(self) -> dict:
        return {"type": "RuleSet", "form": self.form,
                "clauses": [[list(l) for l in c] for c in self.clauses],
                "feature_names": None if self.feature_names is None else list(self.feature_names)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "RuleSet":
        if d.get("type") != "RuleSet":
            raise ValueError(f"not a RuleSet document (type={d.get('type')!r})")
        return cls([tuple(tuple(l) for l in c) for c in d["clauses"]], d.get("form", "dnf"),
                   d.get("feature_names"))

    @classmethod
    def from_json(cls, s: str) -> "RuleSet":
        return cls.from_dict(json.loads(s))

    @classmethod
    def from_feature_sets(cls, feature_sets: Sequence[Sequence[int]], form: str = "dnf",
                          feature_names=None) -> "RuleSet":
        """Clauses given as sets of binary columns, each literal meaning "column == 1"."""
        return cls([tuple((int(j), 1) for j in s) for s in feature_sets], form, feature_names)
