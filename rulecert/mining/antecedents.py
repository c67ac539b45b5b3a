"""Antecedent mining: all conjunctions of binary literals up to a cardinality.

:func:`mine_antecedents` enumerates every conjunction of at most ``max_card`` literals of a
binary matrix whose support lies in ``[min_support, max_support]`` and returns an
:class:`AntecedentSet` (definitions + packed capture vectors), ready to become a
:class:`~rulecert.problem.RuleProblem`.

Semantics of the reference CORELS Python binding (pycorels ``mine_rules`` in
``corels/src/utils.cpp``), which this function follows:

* literals are the columns (``col == 1``, named ``col``) and, with ``negations=True``, their
  negations (``col == 0``, named ``not col``), all positive literals first;
* supports are fractions of the samples compared in floating point:
  a literal or conjunction is kept when ``count / n >= min_support`` and
  ``count / n <= max_support`` (both inclusive; ``max_support`` defaults to
  ``1 - min_support``).  Literals with support above ``max_support`` are not antecedents
  themselves but still take part in conjunctions;
* conjunctions are enumerated over literal combinations in index order, shortest first.

Differences: a conjunction of a literal with its own negation (always empty) is skipped
here (the binding only drops it through ``min_support``, so it keeps them when
``min_support == 0``), and ``merge_identical=True`` (the default) keeps only the first
(shortest) of several antecedents with the same capture vector; the binding does not merge.
So ``mine_antecedents(X, max_card=2, min_support=0.005, negations=True,
merge_identical=False)`` gives the binding's antecedents (362 on CORELS'
``compas_train-binary.csv``; 324 distinct capture vectors with the default merging).

Older pycorels releases compared integer counts with ``round(min_support * n)``; pass
``support_rounding="round"`` to reproduce that.

A ``monitor`` (:class:`rulecert.monitor.Monitor`: the deadline, the memory cap, Ctrl-C) is
asked inside the enumeration; when it says stop, mining raises
``rulecert.limits.LimitStop`` (a mining cut short has no antecedent set to return).
Without one, a Ctrl-C request (``rulecert.monitor.interrupt_requested``) still stops it.

Names use rulecert's one spelling of rule text (:mod:`rulecert.models.antecedent`):
``a and b``, ``not a`` and ``not (age <= 30)`` for a literal whose name has spaces.
"""
from __future__ import annotations

import dataclasses
import hashlib
from typing import Sequence

import numpy as np

from .. import bits
from ..checks import check_binary_matrix
from ..limits import machine_memory_bytes
from ..monitor import stop_check
from ..problem import RuleProblem
from ..models.antecedent import Antecedent, conjunction_text, negated_text

__all__ = ["AntecedentSet", "mine_antecedents", "literal_name", "conjunction_name"]

_CHECK_EVERY = 16
"""Candidate blocks counted between two questions to the monitor (each is a few microseconds
of numpy at least, so the checks cost nothing and come every few milliseconds)..."""
_CHECK_WORDS = 1 << 22
"""... or fewer blocks when they hold this many words (32 MB: large data)."""
_PACK_CELLS = 1 << 25
"""Cells (samples x columns) of the 0/1 matrix packed into literals between two checks."""


def literal_name(feature: str, value: int) -> str:
    """Name of the literal ``feature == value`` (``value`` 1 -> ``feature``, 0 -> its
    negation, ``rulecert.models.antecedent.negated_text``)."""
    return str(feature) if value == 1 else negated_text(feature)


def conjunction_name(names: Sequence[str]) -> str:
    """The name of the conjunction of the literals ``names`` (``a and b and c``)."""
    return conjunction_text(names)


@dataclasses.dataclass
class AntecedentSet:
    """Mined antecedents with their packed capture vectors.

    Attributes
    ----------
    antecedents : list of Antecedent
        Definitions; ``literals`` are ``(column, value)`` pairs over the mined matrix.
    captures : uint64 array (M, ceil(n/64))
        Packed capture vector of each antecedent (:mod:`rulecert.bits`).
    n_samples : int
    feature_names : list of str
        Names of the binary columns the literals refer to.
    merged : dict
        Kept antecedent name -> names of the antecedents with an identical capture vector
        that were dropped in its favour (empty when ``merge_identical=False``).
    """

    antecedents: list[Antecedent]
    captures: np.ndarray
    n_samples: int
    feature_names: list[str]
    merged: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        W = bits.n_words(self.n_samples)
        if self.captures.shape != (len(self.antecedents), W):
            raise ValueError(f"captures have shape {self.captures.shape}, expected "
                             f"({len(self.antecedents)}, {W})")

    def __len__(self) -> int:
        return len(self.antecedents)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.antecedents]

    @property
    def supports(self) -> np.ndarray:
        """Number of samples captured by each antecedent."""
        if not len(self.antecedents):
            return np.zeros(0, dtype=np.int64)
        return bits.count(self.captures)

    def dense(self) -> np.ndarray:
        """Boolean capture matrix, n samples x M antecedents."""
        if not len(self.antecedents):
            return np.zeros((self.n_samples, 0), dtype=bool)
        return bits.unpack(self.captures, self.n_samples).T

    def to_problem(self, y, sample_weight=None) -> RuleProblem:
        """The :class:`~rulecert.RuleProblem` of these antecedents with labels ``y``."""
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != self.n_samples:
            raise ValueError(f"y has shape {y.shape} but the antecedents were mined on "
                             f"{self.n_samples} samples")
        return RuleProblem(self.captures, y, self.antecedents, sample_weight,
                           self.feature_names)


# ---- helpers shared with fpgrowth ---------------------------------------------------------
def _binary_input(X, feature_names, what="X") -> tuple[np.ndarray, list[str]]:
    if feature_names is None and hasattr(X, "columns"):
        feature_names = [str(c) for c in X.columns]
    A = check_binary_matrix(X, what)
    n, d = A.shape
    if n == 0:
        raise ValueError(f"{what} has no samples")
    if feature_names is None:
        feature_names = [f"x{j}" for j in range(d)]
    feature_names = [str(f) for f in feature_names]
    if len(feature_names) != d:
        raise ValueError(f"{len(feature_names)} feature names for {d} columns")
    if len(set(feature_names)) != d:
        dup = sorted({f for f in feature_names if feature_names.count(f) > 1})
        raise ValueError(f"duplicate feature names: {dup[:5]}")
    return A, feature_names


def _literals(A: np.ndarray, negations: bool,
              check=None) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Literal definitions and their packed vectors (all positives, then all negations),
    packed a block of :data:`_PACK_CELLS` cells at a time, ``check()`` asked before each."""
    n, d = A.shape
    lits = [(j, 1) for j in range(d)] + ([(j, 0) for j in range(d)] if negations else [])
    V = np.zeros((len(lits), bits.n_words(n)), np.uint64)
    step = max(1, _PACK_CELLS // max(1, n))
    for j in range(0, d, step):
        if check is not None:
            check()
        block = A[:, j:j + step].T
        V[j:j + len(block)] = bits.pack(block)
        if negations:
            V[d + j:d + j + len(block)] = bits.pack(~block)
    return lits, V


def _check_fraction(value, name: str, allow_none: bool = False):
    if value is None and allow_none:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}") from None
    if not np.isfinite(v) or v < 0 or v > 1:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return v


def _check_card(max_card, name="max_card") -> int:
    if isinstance(max_card, bool) or not isinstance(max_card, (int, np.integer)) or max_card < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {max_card!r}")
    return int(max_card)


def _merge(antecedents: list[Antecedent], captures: np.ndarray, check=None):
    """Keep the first antecedent of each distinct capture vector (found by a 16-byte digest
    of each vector, then compared in full); ``check(detail)`` every 4,096 vectors."""
    keep, merged, seen = [], {}, {}
    for i, a in enumerate(antecedents):
        if check is not None and i % 4096 == 0:
            check(f" (merging identical antecedents: {i:,} of {len(antecedents):,})")
        key = hashlib.blake2b(np.ascontiguousarray(captures[i]), digest_size=16).digest()
        j = seen.get(key)
        if j is not None and np.array_equal(captures[i], captures[j]):
            merged.setdefault(antecedents[j].name, []).append(a.name)
            continue
        seen.setdefault(key, i)
        keep.append(i)
    return keep, merged


def _enumerate(V: np.ndarray, feat: np.ndarray, max_card: int, frequent, keep_itemset,
               check=None):
    """Level-wise enumeration of literal combinations on packed bits.

    ``V`` holds the packed literal vectors, ``feat[i]`` the source column of literal ``i``
    (combinations with two literals of one column are skipped).  ``frequent(counts_block)``
    says which candidates may be extended (an anti-monotone test: a superset of a rejected
    combination is never accepted) and ``keep_itemset(count_info)`` which are reported.
    Both receive the candidates' packed vectors.  Returns the accepted combinations (tuples
    of literal indices, shortest first, lexicographic within a cardinality) and their
    packed vectors.  ``check(detail)`` (``stop_check``) is called every few candidate
    blocks and raises to stop.
    """
    check = check or stop_check(None, "mining antecedents")
    L = V.shape[0]
    out_sets: list[tuple[int, ...]] = []
    out_vecs: list[np.ndarray] = []
    # level 1
    ok1 = frequent(V)
    level_sets = [(i,) for i in range(L) if ok1[i]]
    level_vecs = V[ok1]
    rep = keep_itemset(level_vecs)
    out_sets += [s for s, r in zip(level_sets, rep) if r]
    out_vecs.append(level_vecs[rep])
    pool = np.flatnonzero(ok1)            # literals that can appear in larger combinations
    pool_pos = {int(i): k for k, i in enumerate(pool)}
    Vp = V[pool]
    featp = feat[pool]
    W = V.shape[1]
    for card in range(2, max_card + 1):
        if not level_sets:
            break
        new_sets, new_vecs, made, buf = [], [], 0, None
        if card == max_card:
            # the last level's conjunctions go straight into one array, sized for every
            # candidate: its pages are touched only as rows are written, and no copy follows
            rows = sum(len(v) for v in out_vecs)
            bound = rows + sum(len(pool) - pool_pos[s[-1]] - 1 for s in level_sets)
            try:
                buf = (np.empty((bound, W), np.uint64)
                       if bound * W * 8 <= machine_memory_bytes() // 2 else None)
            except MemoryError:          # no address space for it: the blocks are joined
                buf = None
            if buf is not None:
                buf[:rows] = np.vstack(out_vecs) if out_vecs else buf[:0]
                out_vecs = [buf[:rows]]
        for k, (s, vec) in enumerate(zip(level_sets, level_vecs)):
            if k % _CHECK_EVERY == 0 or made >= _CHECK_WORDS:
                made = 0
                check(f" (conjunctions of {card} literals: {k:,} of {len(level_sets):,} "
                      f"extended, {len(out_sets) + len(new_sets):,} found)")
            start = pool_pos[s[-1]] + 1
            if start >= len(pool):
                continue
            cand = np.bitwise_and(Vp[start:], vec[None, :])
            made += cand.size
            ok = frequent(cand)
            used = featp[[pool_pos[i] for i in s]]
            ok &= ~np.isin(featp[start:], used)
            if not ok.any():
                continue
            idx = np.flatnonzero(ok)
            if card == max_card:    # the last level is not extended: keep what is reported
                idx = idx[keep_itemset(cand[idx])]
                out_sets.extend(s + (int(pool[start + k]),) for k in idx)
                if buf is not None:
                    top = rows + len(idx)
                    buf[rows:top] = cand[idx]
                    rows, out_vecs[-1] = top, buf[:top]
                else:
                    out_vecs.append(cand[idx])
                continue
            new_sets.extend(s + (int(pool[start + k]),) for k in idx)
            new_vecs.append(cand[idx])
        if not new_sets:
            break
        level_sets = new_sets
        check(f" (conjunctions of {card} literals: {len(new_sets):,} found)")
        level_vecs = np.vstack(new_vecs)
        del new_vecs
        check(f" (conjunctions of {card} literals: {len(new_sets):,} found)")
        rep = keep_itemset(level_vecs)
        out_sets += [s for s, r in zip(level_sets, rep) if r]
        out_vecs.append(level_vecs[rep])
    check(f" ({len(out_sets):,} antecedents found)")
    if len(out_vecs) == 1:
        return out_sets, out_vecs[0]
    vecs = np.vstack(out_vecs) if out_vecs else np.zeros((0, W), np.uint64)
    return out_sets, np.ascontiguousarray(vecs)


def _build_set(sets, vecs, lits, names, n, feature_names, merge_identical,
               check=None) -> AntecedentSet:
    ants = []
    for k, s in enumerate(sets):
        if check is not None and k % 4096 == 0:
            check(f" (naming the antecedents: {k:,} of {len(sets):,})")
        literals = tuple(lits[i] for i in s)
        ants.append(Antecedent(conjunction_name([names[i] for i in s]), literals))
    merged: dict[str, list[str]] = {}
    if merge_identical and ants:
        keep, merged = _merge(ants, vecs, check)
        if len(keep) < len(ants):
            ants = [ants[i] for i in keep]
            vecs = np.ascontiguousarray(vecs)
            if vecs.flags.writeable and vecs.base is not None:   # ours: compacted in place
                for j, i in enumerate(keep):
                    if i != j:
                        vecs[j] = vecs[i]
                vecs = vecs[:len(keep)]
            else:
                vecs = vecs[keep]
    W = bits.n_words(n)
    if not ants:
        vecs = np.zeros((0, W), np.uint64)
    return AntecedentSet(ants, np.ascontiguousarray(vecs), n, list(feature_names), merged)


# ---- public -------------------------------------------------------------------------------
def mine_antecedents(X, feature_names: Sequence[str] | None = None, *, max_card: int = 2,
                     min_support: float = 0.0, max_support: float | None = None,
                     negations: bool = False, merge_identical: bool = True,
                     support_rounding: str = "fraction", monitor=None) -> AntecedentSet:
    """All conjunctions of up to ``max_card`` literals with support in range.

    Parameters
    ----------
    X : binary DataFrame or array (n, d)
        0/1 or boolean features (use :class:`~rulecert.mining.FeatureBinarizer` first for
        raw data).  Checked with ``rulecert.problem.check_binary_matrix``.
    feature_names : list of str, optional
        Column names (default: the DataFrame's columns, else ``x0, x1, ...``).
    max_card : int, default=2
        Largest number of literals in a conjunction.
    min_support, max_support : float in [0, 1]
        Inclusive bounds on the fraction of samples captured; ``max_support`` defaults to
        ``1 - min_support``.
    negations : bool, default=False
        Also use the literals ``col == 0`` (named ``not col``).
    merge_identical : bool, default=True
        Keep only the first (shortest, then earliest) antecedent of each distinct capture
        vector and record the others in ``AntecedentSet.merged``.
    support_rounding : {"fraction", "round"}, default="fraction"
        ``"fraction"`` compares ``count / n`` with the bounds (current pycorels);
        ``"round"`` compares ``count`` with ``round(bound * n)`` (older pycorels).
    monitor : rulecert.monitor.Monitor, optional
        Asked during the enumeration (see the module doc); a stop raises
        ``rulecert.limits.LimitStop``.

    Returns
    -------
    AntecedentSet
    """
    A, feature_names = _binary_input(X, feature_names)
    max_card = _check_card(max_card)
    min_support = _check_fraction(min_support, "min_support")
    max_support = _check_fraction(max_support, "max_support", allow_none=True)
    if max_support is None:
        max_support = 1.0 - min_support
    if support_rounding not in ("fraction", "round"):
        raise ValueError(f"support_rounding must be 'fraction' or 'round', got {support_rounding!r}")
    n, d = A.shape
    check = stop_check(monitor, "mining antecedents")
    lits, V = _literals(A, bool(negations), check)
    names = [literal_name(feature_names[j], v) for j, v in lits]
    feat = np.array([j for j, _ in lits], dtype=np.int64)

    if support_rounding == "fraction":
        def frequent(block):
            return bits.count(block) / n >= min_support if len(block) else np.zeros(0, bool)

        def keep(block):
            return bits.count(block) / n <= max_support if len(block) else np.zeros(0, bool)
    else:
        lo, hi = round(min_support * n), round(max_support * n)

        def frequent(block):
            return bits.count(block) >= lo if len(block) else np.zeros(0, bool)

        def keep(block):
            return bits.count(block) <= hi if len(block) else np.zeros(0, bool)

    sets, vecs = _enumerate(V, feat, max_card, frequent, keep, check)
    return _build_set(sets, vecs, lits, names, n, feature_names, merge_identical, check)
