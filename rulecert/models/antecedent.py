"""Antecedents (conjunctions of binary literals) and first-match evaluation of ordered rules.

An :class:`Antecedent` is a conjunction of literals over a binary feature matrix; a literal
``(j, v)`` is true for a sample when column ``j`` equals ``v`` (``v`` is 0 or 1).  Antecedents
read from a CORELS ``.out`` file have no literal definition (``literals=None``); they are
evaluated through a capture matrix instead.

:class:`OrderedRules` is what every ordered model (rule lists, falling rule lists) shares: the
first rule that holds classifies a sample, and antecedents are found in a problem by index or
name (:func:`antecedent_rows`, the one lookup).
"""
from __future__ import annotations

import dataclasses
import re
from numbers import Integral
from typing import Sequence

import numpy as np

from .. import bits


AND = " and "
"""The one spelling of a conjunction in rule text (rule lists, falling lists, DNF clauses)."""
OR = " or "
"""The one spelling of a disjunction (CNF clauses, a DNF's clauses)."""


def negated_text(name: str) -> str:
    """The one spelling of a negated literal: ``not smoker``, ``not (age == 18-20)``."""
    name = str(name)
    return f"not {name}" if not any(ch.isspace() for ch in name) else f"not ({name})"


def conjunction_text(names: Sequence[str]) -> str:
    """``a and b and c``."""
    return AND.join(str(n) for n in names)


def _fmt(v) -> str:
    """Readable, round-trippable text for a threshold or category value."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (Integral, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if v.is_integer():
            return str(int(v))
        return np.format_float_positional(v, trim="-")
    return str(v)


_OPERATOR_VALUE = re.compile(r"^\s*(<=|>=|<|>|==|=)\s*(-?\d+(?:\.\d+)?)\s*$")


def literal_text(col: str, op: str, value=None) -> str:
    """The one spelling of a literal: ``age <= 25.5``, ``sex == Female``, ``sex != Female``,
    ``age is missing``.  A category that is itself a comparison (the CORELS files' ``>3``,
    ``=0``) reads as one: ``priors > 3``, ``priors == 0`` (and ``!=`` as ``not (priors > 3)``).
    Values that are empty or padded with spaces are quoted."""
    if op in ("is missing", "is not missing"):
        return f"{col} {op}"
    if op in ("==", "!=") and isinstance(value, str):
        m = _OPERATOR_VALUE.match(value)
        if m:
            vop = "==" if m.group(1) in ("=", "==") else m.group(1)
            text = f"{col} {vop} {m.group(2)}"
            return text if op == "==" else f"not ({text})"
        if value != value.strip() or not value:
            return f"{col} {op} {value!r}"
    return f"{col} {op} {_fmt(value)}"


_CORELS_ITEM = re.compile(r"^([^:,{}]+):([^,{}]+)$")


def corels_name_text(name: str) -> str:
    """A CORELS file's antecedent name in rulecert's spelling: ``sex:Female,priors:>3`` reads
    ``sex == Female and priors > 3``; a name of another shape is kept as it is."""
    items = str(name).strip().strip("{}").split(",")
    parsed = [_CORELS_ITEM.match(it.strip()) for it in items]
    if not all(parsed):
        return str(name)
    return conjunction_text(literal_text(m.group(1).strip(), "==", m.group(2).strip())
                            for m in parsed)


def antecedent_rows(problem, antecedents: Sequence["Antecedent"], indices: Sequence[int] = ()) -> list[int]:
    """Rows of ``antecedents`` in ``problem``: ``indices`` when they name the same antecedents,
    else a lookup by name (``ValueError`` naming the antecedents the problem lacks)."""
    names = problem.antecedent_names
    if indices and len(indices) == len(antecedents) and all(
            0 <= i < len(names) and names[i] == a.name for i, a in zip(indices, antecedents)):
        return [int(i) for i in indices]
    pos = {nm: i for i, nm in enumerate(names)}
    missing = [a.name for a in antecedents if a.name not in pos]
    if missing:
        raise ValueError(f"antecedents not present in the problem: {missing}")
    return [pos[a.name] for a in antecedents]


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

    @property
    def text(self) -> str:
        """The antecedent as printed: its name, or for a CORELS file's opaque antecedent
        (``sex:Female,age:18-20``) the same in rulecert's spelling
        (``sex == Female and age == 18-20``, ``corels_name_text``)."""
        return self.name if self.literals is not None else corels_name_text(self.name)

    def to_dict(self) -> dict:
        return {"name": self.name,
                "literals": None if self.literals is None else [list(l) for l in self.literals]}

    @classmethod
    def from_dict(cls, d: dict, where: str = "antecedent") -> "Antecedent":
        """The antecedent of ``to_dict``, checked (``ValueError`` naming the field
        ``where``.name / .literals[i])."""
        if not isinstance(d, dict) or not isinstance(d.get("name"), str):
            raise ValueError(f"{where}: expected an object with a text 'name', got {d!r:.80}")
        lits = d.get("literals")
        if lits is None:
            return cls(d["name"], None)
        if not isinstance(lits, list):
            raise ValueError(f"{where}.literals: expected a list of [column, value] pairs")
        return cls(d["name"], tuple(literal_from_json(l, f"{where}.literals[{i}]")
                                    for i, l in enumerate(lits)))


def integer_from_json(x, where: str, low: int = 0, high: int | None = None) -> int:
    """An integer of a JSON document in ``[low, high]`` (``high`` None: no upper end): 4.7,
    true or "3" is not an integer and -1 is not an index (``ValueError`` naming ``where``)."""
    if not isinstance(x, Integral) or isinstance(x, bool) or x < low or (
            high is not None and x > high):
        want = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"
        raise ValueError(f"{where}: expected {want}, got {x!r:.40}")
    return int(x)


def list_from_json(d: dict, key: str, default=None) -> list:
    """``d[key]``, a list (``default`` when absent and a default is given), else ``ValueError``
    naming the field."""
    v = d[key] if default is None else d.get(key, default)
    if not isinstance(v, list):
        raise ValueError(f"{key}: expected a list, got {type(v).__name__}")
    return v


def literal_from_json(lit, where: str) -> tuple[int, int]:
    """A literal ``[column, value]`` of a JSON document: ``column`` an index (an integer
    >= 0), ``value`` 0 or 1 (``ValueError`` naming ``where``)."""
    if not isinstance(lit, (list, tuple)) or len(lit) != 2:
        raise ValueError(f"{where}: a literal is a pair [column, value], got {lit!r:.40}")
    return (integer_from_json(lit[0], f"{where} column"),
            integer_from_json(lit[1], f"{where} value", 0, 1))


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

    def rows_in(self, problem) -> list[int]:
        """Row indices of the antecedents in ``problem`` (by index, falling back to names)."""
        return antecedent_rows(problem, self.antecedents, getattr(self, "indices", ()))

    def captures_from_problem(self, problem) -> np.ndarray:
        """Boolean capture matrix (n x n_rules) on a RuleProblem, antecedents found by
        index or by name."""
        rows = self.rows_in(problem)
        if not rows:
            return np.zeros((problem.n_samples, 0), dtype=bool)
        return bits.unpack(problem.captures[rows], problem.n_samples).T
