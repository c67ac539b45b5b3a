"""The search's view of a RuleProblem: antecedent captures over *columns* of packed words.

Samples with identical antecedent vectors (the equivalent-points groups of JMLR section 3.14)
are indistinguishable for every rule list, so the search works on groups instead of samples
("groups" mode).  A column is then a group with three weights: positives, negatives and its
minority count ``min(pos, neg)``.  The captured counts of a packed column vector are sums of
weights, taken with one lookup per byte in precomputed tables (the three weights packed in one
int64, 21 bits each).  Groups of a single sample (weights 0/1, minority 0) are put in separate
trailing words and counted with popcounts.  On COMPAS (6,489 samples, 155 antecedents) the 194
groups take 4 words instead of 102.

"samples" mode (one column per sample, popcounts only, minority from
:attr:`RuleProblem.minority`) is used when ``n_samples >= 2**21`` (the packed table fields would
overflow) or on request; both modes give identical counts.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ... import bits
from ...problem import packed_columns

from .kernel import FIELD_BITS

MAX_GROUP_SAMPLES = 1 << FIELD_BITS


@dataclasses.dataclass
class KernelData:
    mode: str
    n_samples: int
    n_antecedents: int
    n_columns: int
    capg: np.ndarray      # uint64 (M, W) captures over columns
    tables: np.ndarray    # int64 (Wh*8, 256) packed (pos | neg << 21 | min << 42) per byte value
    upos: np.ndarray      # uint64 (W,) positive single-sample columns (words >= Wh)
    umin: np.ndarray      # uint64 (W,) minority single-sample columns (samples mode only)
    allcols: np.ndarray   # uint64 (W,) all valid columns
    n_heavy_words: int    # Wh: words counted through the tables
    has_umin: bool
    n_pos: int
    n_neg: int
    n_minority: int

    @property
    def n_words(self) -> int:
        return self.capg.shape[1]


def ungrouped_kernel_data(problem, minority=None) -> KernelData:
    """"samples" mode with the packed equivalent-point ``minority`` vector, or none (all
    zero: the equivalent-points bound is then 0, still a valid bound) -- the search's data
    when grouping the samples was stopped by a limit, or found every sample alone in its
    group: no work beyond the captures."""
    N, M = problem.n_samples, problem.n_antecedents
    n_pos = int(problem.n_positive)
    minority = bits.zeros(N) if minority is None else minority
    return KernelData("samples", N, M, N, np.ascontiguousarray(problem.captures, dtype=np.uint64),
                      np.zeros((0, 256), dtype=np.int64), problem.labels.copy(), minority,
                      problem.all.copy(), 0, True, n_pos, N - n_pos, bits.count(minority))


def build_kernel_data(problem, mode: str = "auto", check=None) -> KernelData:
    """Compile ``problem`` (unweighted) into the arrays the numba kernel reads.  ``check()``
    (:func:`rulecert.monitor.stop_check`) is asked between blocks of the grouping and of the
    transposes, and raises :class:`~rulecert.limits.LimitStop` to stop."""
    if mode not in ("auto", "groups", "samples"):
        raise ValueError(f"mode must be 'auto', 'groups' or 'samples', got {mode!r}")
    N, M = problem.n_samples, problem.n_antecedents
    n_pos = int(problem.n_positive)
    auto = mode == "auto"
    if auto:
        mode = "groups" if N < MAX_GROUP_SAMPLES else "samples"
    if mode == "groups" and N >= MAX_GROUP_SAMPLES:
        raise ValueError(f"groups mode needs fewer than {MAX_GROUP_SAMPLES} samples")
    rows, _, pos, neg = problem.group_rows(check)
    if mode == "samples":
        return ungrouped_kernel_data(problem, problem.minority.copy())
    if auto and not (np.asarray(pos) + np.asarray(neg) >= 2).any():
        return ungrouped_kernel_data(problem)    # no two samples alike: no minority, no transpose

    pos = np.asarray(pos, dtype=np.int64)
    neg = np.asarray(neg, dtype=np.int64)
    mnr = np.minimum(pos, neg)
    size = pos + neg
    heavy = np.flatnonzero(size >= 2)
    single = np.flatnonzero(size == 1)
    Gh, Gs = heavy.size, single.size
    Wh = bits.n_words(Gh)
    Ws = bits.n_words(Gs)
    W = max(Wh + Ws, 1)
    capg = np.zeros((M, W), dtype=np.uint64)
    if M:
        if Gh:
            capg[:, :Wh] = packed_columns(rows[heavy], M, check)
        if Gs:
            capg[:, Wh:Wh + Ws] = packed_columns(rows[single], M, check)
    allcols = np.zeros(W, dtype=np.uint64)
    if Gh:
        allcols[:Wh] = bits.ones(Gh)
    if Gs:
        allcols[Wh:Wh + Ws] = bits.ones(Gs)
    upos = np.zeros(W, dtype=np.uint64)
    if Gs:
        upos[Wh:Wh + Ws] = bits.pack(pos[single] == 1)
    # byte tables: table[w*8 + b][v] = packed weights of the columns set in byte value v
    packed = np.zeros(Wh * 64, dtype=np.int64)
    packed[:Gh] = pos[heavy] | (neg[heavy] << FIELD_BITS) | (mnr[heavy] << (2 * FIELD_BITS))
    vals = np.arange(256, dtype=np.int64)
    sel = ((vals[:, None] >> np.arange(8)[None, :]) & 1).astype(np.int64)  # (256, 8)
    tables = packed.reshape(Wh * 8, 8) @ sel.T
    return KernelData("groups", N, M, Gh + Gs, capg, tables, upos, np.zeros(W, dtype=np.uint64),
                      allcols, Wh, False, n_pos, N - n_pos, int(mnr.sum()))
