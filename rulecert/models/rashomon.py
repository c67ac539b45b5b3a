"""The Rashomon set of rule lists and what it says: predictive multiplicity, usage, reliance.

A :class:`RashomonSet` holds every CORELS-labelled rule list (as antecedent prefixes) whose
objective is at most a threshold, with its :class:`EnumerationCertificate` (complete, or
stopped by a limit with a bound on the objective of any list not returned).  It is produced
by :func:`rulecert.search.corels.rashomon_set`.  Measures over the set, on a problem's
training samples (Marx, Calmon & Ustun, ICML 2020; Fisher, Rudin & Dominici, JMLR 2019):

* **ambiguity**: the fraction of samples whose prediction some list of the set changes
  relative to the reference list (the first: smallest objective, ties by prefix);
* **discrepancy**: the largest fraction of samples on which one list of the set disagrees
  with the reference;
* **distinct predictions**: lists that differ only in the order of rules capturing disjoint
  samples (or in rules that capture nothing) predict alike; their prediction vectors are
  counted once;
* **usage**: the share of lists using each antecedent, and each feature (an antecedent's
  features are read from its name: literals split at ``,``, `` and `` or `` && ``, a literal's feature is
  the text before its first ``:``, ``<``, ``>``, ``=`` or ``!``);
* **model reliance**: for each feature, the accuracy lost when the feature is permuted across
  samples (every antecedent that reads it sees the permuted sample order), its range over the
  set.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import re
from typing import Any, Callable, Sequence

import numpy as np

from .. import bits
from ..certificate import Certificate
from .antecedent import corels_name_text
from .rulelist import RuleList, rule_list_from_prefix

_LITERAL_SPLIT = re.compile(r"\s*(?:&&|,|\s+and\s+)\s*")
_FEATURE = re.compile(r"^\s*(?:not\s+|!|~)?\s*\(?\s*([^:<>=!()]+?)\s*(?:[:<>=!()]|\bis (?:not )?missing|$)")


_CELLS = 1 << 21
"""Lists x groups (or lists x features) handled at once by the measures over the set."""


def _shares(names: list[str], count: np.ndarray, k: int) -> dict[str, float]:
    """Each feature read by some list with its share of the ``k`` lists, largest first."""
    return dict(sorted(((f, int(v) / k) for f, v in zip(names, count) if v),
                       key=lambda kv: (-kv[1], kv[0])))


def antecedent_features(name: str) -> list[str]:
    """The features an antecedent reads, from its name (see the module doc)."""
    name = name.strip().strip("{}()").strip()
    out = []
    for lit in _LITERAL_SPLIT.split(name):
        m = _FEATURE.match(lit)
        f = m.group(1) if m else lit
        if f and f not in out:
            out.append(f)
    return out


@dataclasses.dataclass
class EnumerationCertificate:
    """What an enumeration proves.

    ``complete`` is True when every list with objective ``<= threshold`` was enumerated
    (``termination == "complete"``).  Otherwise the run was stopped by ``node_limit``,
    ``time_limit`` or ``max_models`` (``model_limit``): the lists returned are a subset of the
    set and every missing list has objective ``>= missing_lower_bound``.  ``optimum`` is the
    objective CORELS certified first (``optimum_proven`` False when a limit stopped it: the
    threshold of an ``epsilon`` is then relative to an upper bound on the optimum).
    """

    termination: str
    complete: bool
    n_found: int
    threshold: float
    epsilon: float | None
    optimum: float
    optimum_proven: bool
    missing_lower_bound: float
    nodes: int
    open_prefixes: int
    wall_time: float
    enumeration_time: float
    policy: str
    min_capture: int
    max_length: int | None
    message: str = ""
    optimum_certificate: Certificate | None = None

    def summary(self) -> str:
        eps = "" if self.epsilon is None else f" = (1 + {self.epsilon:g}) x optimum"
        lines = [f"termination     : {self.termination}",
                 f"complete        : {self.complete}",
                 f"lists found     : {self.n_found}",
                 f"threshold       : {self.threshold:.10f}{eps}",
                 f"optimum         : {self.optimum:.10f} ({'proven' if self.optimum_proven else 'NOT proven'})"]
        if not self.complete:
            lines.append(f"missing lists   : objective >= {self.missing_lower_bound:.10f} "
                         f"({self.open_prefixes} prefixes left open)")
        lines += [f"prefixes        : {self.nodes} visited ({self.policy})",
                  f"wall time       : {self.wall_time:.3f} s (enumeration {self.enumeration_time:.3f} s)"]
        if self.message:
            lines.append(f"message         : {self.message}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
             if f.name != "optimum_certificate"}
        if math.isinf(d["missing_lower_bound"]):
            d["missing_lower_bound"] = None
        d["optimum_certificate"] = (None if self.optimum_certificate is None
                                    else self.optimum_certificate.to_dict())
        return d


@dataclasses.dataclass
class RashomonSet:
    """Rule lists (antecedent prefixes) with objective ``<= threshold``, sorted by objective."""

    prefixes: list[tuple[int, ...]]
    objectives: np.ndarray
    c: float
    threshold: float
    certificate: EnumerationCertificate
    antecedent_names: list[str]

    def __len__(self) -> int:
        return len(self.prefixes)

    def rule_lists(self, problem, limit: int | None = None) -> list[RuleList]:
        """The lists as :class:`~rulecert.models.RuleList` objects (the first ``limit``)."""
        return [rule_list_from_prefix(problem, p) for p in self.prefixes[:limit]]

    # ---- predictions on the training samples ---------------------------------------------
    def _check_problem(self, problem) -> None:
        if list(problem.antecedent_names) != self.antecedent_names:
            raise ValueError("the problem's antecedents are not those the set was enumerated on")

    def packed_predictions(self, problem, captures: np.ndarray | None = None) -> np.ndarray:
        """Packed 0/1 predictions (lists x words) of every list on the problem's samples.

        Labels are those learned on the problem (majority of what each rule newly captures,
        ties predict 1); ``captures`` replaces the capture rows used to *apply* the lists
        (for permutation importance) while the labels stay the learned ones.
        """
        self._check_problem(problem)
        caps, lab, n = problem.captures, problem.labels, problem.n_samples
        apply = caps if captures is None else captures
        out = np.zeros((len(self.prefixes), bits.n_words(n)), dtype=np.uint64)
        for i, prefix in enumerate(self.prefixes):
            U_learn, U_apply = problem.all.copy(), problem.all.copy()
            pred = out[i]
            for a in prefix:
                new = caps[a] & U_learn
                p = int(np.bitwise_count(new & lab).sum())
                t = int(np.bitwise_count(new).sum())
                if p >= t - p:
                    pred |= apply[a] & U_apply
                U_learn &= ~caps[a]
                U_apply &= ~apply[a]
            p = int(np.bitwise_count(U_learn & lab).sum())
            t = int(np.bitwise_count(U_learn).sum())
            if p >= t - p:
                pred |= U_apply
        return out

    def predictions(self, problem) -> np.ndarray:
        """0/1 predictions, lists x samples (uint8)."""
        P = self.packed_predictions(problem)
        return np.array([bits.unpack(row, problem.n_samples) for row in P], dtype=np.uint8) \
            if len(P) else np.zeros((0, problem.n_samples), np.uint8)

    def _padded(self, start: int, stop: int) -> np.ndarray:
        """Lists ``start:stop`` as an int array, one row each, padded with -1."""
        chunk = self.prefixes[start:stop]
        lengths = np.fromiter(map(len, chunk), dtype=np.int64, count=len(chunk))
        out = np.full((len(chunk), max(1, int(lengths.max(initial=0)))), -1, dtype=np.int64)
        rows = np.repeat(np.arange(len(chunk)), lengths)
        cols = np.arange(len(rows)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        out[rows, cols] = np.fromiter(itertools.chain.from_iterable(chunk), dtype=np.int64,
                                      count=len(rows))
        return out

    def group_predictions(self, problem, start: int = 0, stop: int | None = None) -> np.ndarray:
        """0/1 predictions (bool, lists x groups) of lists ``start:stop`` on the problem's
        groups of identical samples (:attr:`rulecert.RuleProblem.groups`: every
        list predicts a group alike), all lists of the chunk at once, rule by rule."""
        self._check_problem(problem)
        patterns, inverse, _, _ = problem.groups
        G = patterns.shape[0]
        tot = np.bincount(inverse, minlength=G)
        pos = np.bincount(inverse, weights=problem.y, minlength=G).round().astype(np.int64)
        capt = np.vstack([patterns.T, np.zeros((1, G), dtype=bool)])   # row -1: the padding
        P = self._padded(start, len(self.prefixes) if stop is None else stop)
        left = np.ones((len(P), G), dtype=bool)
        pred = np.zeros((len(P), G), dtype=bool)
        for k in range(P.shape[1]):
            new = capt[P[:, k]] & left
            p, t = new @ pos, new @ tot
            pred |= new & (2 * p >= t)[:, None]          # majority of the new captures, ties 1
            left &= ~new
        p, t = left @ pos, left @ tot
        pred |= left & (2 * p >= t)[:, None]
        return pred

    def multiplicity(self, problem, monitor=None, feature_of=None) -> dict[str, Any]:
        """``n_lists``, ``n_distinct_predictions``, ``ambiguity``, ``discrepancy`` (see the
        module doc; the reference is the first list) and ``feature_usage`` (as
        :meth:`feature_usage`), counted over groups of identical samples a chunk of lists at
        a time.

        ``monitor`` (:class:`rulecert.monitor.Monitor`: a deadline, the memory cap, Ctrl-C)
        is asked between chunks; when it says stop, the measures are those of the first
        ``n_lists`` lists (the best ones), ``complete`` is False and ``stopped`` says why
        (``"time_limit"``, ``"interrupted"``, ...; ``None`` when complete).
        """
        self._check_problem(problem)
        n, L = problem.n_samples, len(self.prefixes)
        out = {"n_lists": 0, "n_distinct_predictions": 0, "ambiguity": 0.0, "discrepancy": 0.0,
               "feature_usage": {}, "complete": True, "stopped": None}
        if L == 0:
            return out
        _, inverse, _, _ = problem.groups
        tot = np.bincount(inverse)
        names, reads = self._feature_reads(feature_of)
        count = np.zeros(len(names), dtype=np.int64)
        step = max(1, _CELLS // max(len(tot), len(names)))   # lists x groups of about 2 million
        ref, any_diff, worst, distinct = None, np.zeros(len(tot), dtype=bool), 0, []
        for start in range(0, L, step):
            reason = monitor.should_stop() if monitor is not None and start else None
            if reason is not None:
                out["complete"], out["stopped"] = False, reason[0].value
                break
            pred = self.group_predictions(problem, start, start + step)
            ref = pred[0] if ref is None else ref
            diff = pred ^ ref[None, :]
            any_diff |= diff.any(axis=0)
            worst = max(worst, int((diff @ tot).max()))
            packed = np.packbits(pred, axis=1)
            distinct.append(np.unique(packed.view(f"V{packed.shape[1]}")[:, 0]))
            count += self._lists_reading(reads, start, start + step)
            out["n_lists"] += len(pred)
        out.update(n_distinct_predictions=len(np.unique(np.concatenate(distinct))),
                   ambiguity=int(tot[any_diff].sum()) / n, discrepancy=worst / n,
                   feature_usage=_shares(names, count, out["n_lists"]))
        return out

    # ---- usage and reliance ------------------------------------------------------------------
    def antecedent_usage(self) -> np.ndarray:
        """Share of the lists that use each antecedent (length: number of antecedents)."""
        use = np.zeros(len(self.antecedent_names))
        for p in self.prefixes:
            use[list(p)] += 1
        return use / max(1, len(self.prefixes))

    def _features(self, feature_of: Callable[[str], Sequence[str]] | None) -> list[list[str]]:
        f = feature_of or antecedent_features
        return [list(f(nm)) for nm in self.antecedent_names]

    def _feature_reads(self, feature_of) -> tuple[list[str], np.ndarray]:
        """The features the antecedents read, and which antecedent reads which (bool,
        antecedents + 1 x features; the last row, the padding, reads none)."""
        feats = self._features(feature_of)
        names = sorted({f for fs in feats for f in fs})
        index = {f: j for j, f in enumerate(names)}
        reads = np.zeros((len(feats) + 1, len(names)), dtype=bool)
        for a, fs in enumerate(feats):
            reads[a, [index[f] for f in fs]] = True
        return names, reads

    def _lists_reading(self, reads: np.ndarray, start: int, stop: int) -> np.ndarray:
        """How many of lists ``start:stop`` read each feature."""
        return np.logical_or.reduce(reads[self._padded(start, stop)], axis=1).sum(axis=0)

    def feature_usage(self, feature_of: Callable[[str], Sequence[str]] | None = None) -> dict[str, float]:
        """Share of the lists that read each feature, largest first."""
        names, reads = self._feature_reads(feature_of)
        count = np.zeros(len(names), dtype=np.int64)
        step = max(1, _CELLS // max(1, len(names)))
        for start in range(0, len(self.prefixes) if names else 0, step):
            count += self._lists_reading(reads, start, start + step)
        return _shares(names, count, len(self.prefixes))

    def model_reliance(self, problem, *, seed: int = 0,
                       feature_of: Callable[[str], Sequence[str]] | None = None) -> dict[str, tuple[float, float]]:
        """For each feature some list reads: (min, max) over the set of the training accuracy
        lost when that feature is permuted across samples (one permutation, seeded)."""
        self._check_problem(problem)
        feats = self._features(feature_of)
        n = problem.n_samples
        y = problem.labels
        base = self.packed_predictions(problem)
        acc = np.bitwise_count(~(base ^ y[None, :]) & problem.all[None, :]).sum(axis=1) / n
        perm = np.random.default_rng(seed).permutation(n)
        out = {}
        for f in sorted({f for fs in feats for f in fs}):
            rows = [a for a, fs in enumerate(feats) if f in fs]
            caps = problem.captures.copy()
            for a in rows:
                caps[a] = bits.pack(bits.unpack(problem.captures[a], n)[perm])
            P = self.packed_predictions(problem, captures=caps)
            acc_f = np.bitwise_count(~(P ^ y[None, :]) & problem.all[None, :]).sum(axis=1) / n
            drop = acc - acc_f
            out[f] = (float(drop.min()), float(drop.max())) if len(drop) else (0.0, 0.0)
        return out

    def summary(self, problem=None, top: int = 5) -> str:
        """The certificate, the best ``top`` lists and (with the problem) the multiplicity."""
        lines = [self.certificate.summary(), ""]
        for i, (p, o) in enumerate(zip(self.prefixes[:top], self.objectives[:top])):
            names = " -> ".join(corels_name_text(self.antecedent_names[a]) for a in p) \
                or "(default rule only)"
            lines.append(f"  #{i + 1}  objective {o:.6f}  {names}")
        if len(self) > top:
            lines.append(f"  ... and {len(self) - top} more")
        if problem is not None and len(self):
            m = self.multiplicity(problem)
            lines.append(f"distinct prediction vectors: {m['n_distinct_predictions']}; ambiguity "
                         f"{m['ambiguity']:.4f}; discrepancy {m['discrepancy']:.4f}")
        return "\n".join(lines)
