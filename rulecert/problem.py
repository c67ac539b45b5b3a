"""RuleProblem: the solver-agnostic instance every learner takes.

It holds the packed capture matrix (antecedents x samples, uint64 words), the 0/1 labels, the
optional sample weights and the antecedent definitions (names and, when known, literals).
Everything is validated once, here, before any solver runs.
"""
from __future__ import annotations

import functools
import warnings
from typing import Sequence

import numpy as np

from . import bits
from .checks import as_binary_labels, check_binary_matrix
from .models.antecedent import Antecedent


def unique_rows(D: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of the boolean matrix ``D`` (n x M) in lexicographic order (False
    before True, column 0 first), as ``np.unique(D, axis=0, return_inverse=True,
    return_counts=True)`` gives them: ``(rows, inverse, counts)`` with ``rows[inverse] == D``.

    A matrix with no columns has one (empty) distinct row when it has rows.
    """
    D = np.asarray(D, dtype=bool)
    return unique_packed_rows(_packed_rows(np.ascontiguousarray(D)), D.shape[1])


def _packed_rows(D: np.ndarray) -> np.ndarray:
    """Each row of the boolean ``D`` (n x M) as ``8 ceil(M / 64)`` bytes, column 0 the top
    bit of the first byte, zeros after column M: byte order is row order."""
    n, M = D.shape
    out = np.zeros((n, 8 * -(-M // 64)), dtype=np.uint8)
    out[:, :-(-M // 8)] = np.packbits(D, axis=1)
    return out


_T8 = ((np.uint64(0x00AA00AA00AA00AA), np.uint64(7)),
       (np.uint64(0x0000CCCC0000CCCC), np.uint64(14)),
       (np.uint64(0x00000000F0F0F0F0), np.uint64(28)))


_CHUNK_BYTES = 1 << 22
"""Bytes of captures transposed at a time (a block that stays in cache; the check between)."""

_REVERSED = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.uint8)
"""Each byte with its bits in reverse order (packbits' big-endian order <-> little-endian)."""


def _transposed(captures: np.ndarray, n: int, check=None) -> np.ndarray:
    """The packed captures (M x words, one row per antecedent) as :func:`_packed_rows` of
    the dense matrix (one row per sample), without unpacking: every 8 antecedents x 8
    samples block of bits is one uint64 transposed in place (Hacker's Delight, 7-8).
    The words are taken a block of about ``_CHUNK_BYTES`` at a time, ``check()`` before each
    (:func:`rulecert.monitor.stop_check`: it raises to stop)."""
    M, W = captures.shape
    out = np.zeros((n, 8 * -(-M // 64)), dtype=np.uint8)
    if M == 0 or n == 0:
        return out
    G = -(-M // 8)
    step = max(1, _CHUNK_BYTES // (64 * G))                  # words per block
    for w0 in range(0, W, step):
        if check is not None:
            check()
        k = min(W, w0 + step) - w0
        by = np.zeros((8 * G, 8 * k), dtype=np.uint8)       # bit c of byte j: sample 8j + c
        by[:M] = captures[:, w0:w0 + k].astype("<u8").view(np.uint8)
        # one uint64 per block, byte r = antecedent 7 - r of the block (so antecedent 0 ends
        # up in the top bit), bit 8r + c = sample c
        x = np.ascontiguousarray(by.reshape(G, 8, 8 * k)[:, ::-1].transpose(0, 2, 1))
        x = x.view("<u8")[..., 0].astype(np.uint64)          # G x 8k
        for mask, shift in _T8:                               # bit 8r + c -> bit 8c + r
            t = (x ^ (x >> shift)) & mask
            x ^= t ^ (t << shift)
        rows = x.astype("<u8").T.copy().view(np.uint8).reshape(8 * k, G, 8).transpose(0, 2, 1)
        s0, s1 = 64 * w0, min(n, 64 * (w0 + k))
        out[s0:s1, :G] = rows.reshape(64 * k, G)[:s1 - s0]
    return out


def packed_columns(rows: np.ndarray, M: int, check=None) -> np.ndarray:
    """The inverse of :func:`_transposed`: rows packed by :func:`_packed_rows` (G x bytes,
    ``M`` columns) as packed vectors over the rows, one per column (M x ``bits.n_words(G)``
    uint64, as :attr:`RuleProblem.captures`).  The same block transpose, on the rows with
    the bits of each byte reversed (packbits' order is big-endian, the words' little)."""
    G = rows.shape[0]
    if G == 0:
        return np.zeros((M, 0), dtype=np.uint64)
    as_words = _REVERSED[rows].view("<u8")                 # row g: its columns as a vector
    return _REVERSED[_transposed(as_words, M, check)].view("<u8").astype(np.uint64, copy=False)


def _unique_packed(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct rows, still packed; inverse; counts) of rows packed by :func:`_packed_rows`:
    one sort of the rows as raw bytes (a sort of integers for up to 64 columns), whose order
    is the lexicographic order of the boolean rows."""
    n, width = packed.shape
    if n == 0:
        return packed[:0], np.zeros(0, dtype=np.int64), np.zeros(0, np.int64)
    if width == 0:
        return packed[:1], np.zeros(n, dtype=np.int64), np.array([n])
    keys = (packed.view(">u8")[:, 0].astype(np.uint64) if width == 8
            else packed.view(f"V{width}")[:, 0])             # compared bytewise, unsigned
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    new = np.ones(n, dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    counts = np.diff(np.append(first, n))
    return packed[order[first]], inverse, counts


def unique_packed_rows(packed: np.ndarray, M: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`unique_rows` of rows packed by :func:`_packed_rows` (``M`` columns)."""
    rows, inverse, counts = _unique_packed(packed)
    return np.unpackbits(rows, axis=1, count=M).view(bool), inverse, counts


class RuleProblem:
    """Packed antecedent capture matrix + labels (+ weights) + antecedent definitions.

    Parameters
    ----------
    captures : uint64 array (M, ceil(n/64))
        Packed capture vectors, one row per antecedent (see :mod:`rulecert.bits`).
    y : array (n,)
        0/1 labels.
    antecedents : sequence of Antecedent or str
        Definitions (or just names) of the M antecedents.
    sample_weight : array (n,), optional
        Non-negative finite weights.
    feature_names : sequence of str, optional
        Names of the binary feature columns the literals refer to.

    The number of samples is taken from ``y``.
    """

    def __init__(self, captures: np.ndarray, y, antecedents: Sequence[Antecedent | str],
                 sample_weight=None, feature_names: Sequence[str] | None = None):
        y = as_binary_labels(y)
        n = int(y.shape[0])
        if n == 0:
            raise ValueError("the problem has no samples")
        W = bits.n_words(n)
        captures = np.asarray(captures)
        if captures.ndim != 2 or captures.shape[1] != W or captures.dtype != np.uint64:
            raise ValueError(f"captures must be a uint64 array of shape (M, {W}) for {n} samples, "
                             f"got {captures.dtype} {captures.shape}")
        # only the last word has padding bits (no M x words temporary)
        if np.bitwise_and(captures[:, -1], np.bitwise_not(bits.ones(n)[-1])).any():
            raise ValueError("captures have bits set past the last sample (padding must be zero)")
        ants = [a if isinstance(a, Antecedent) else Antecedent(str(a)) for a in antecedents]
        if len(ants) != captures.shape[0]:
            raise ValueError(f"{captures.shape[0]} capture rows but {len(ants)} antecedents")
        if sample_weight is not None:
            w = np.asarray(sample_weight, dtype=float)
            if w.shape != (n,):
                raise ValueError(f"sample_weight has shape {w.shape}, expected ({n},)")
            if not np.isfinite(w).all() or (w < 0).any():
                raise ValueError("sample_weight must be finite and non-negative")
            if w.sum() <= 0:
                raise ValueError("sample_weight sums to zero")
            sample_weight = w
        self.captures = np.ascontiguousarray(captures)
        self.y = y
        self.antecedents = ants
        self.sample_weight = sample_weight
        self.feature_names = list(feature_names) if feature_names is not None else None
        self.n_samples = n
        self.labels = bits.pack(y.astype(bool))
        self.all = bits.ones(n)

    # ---- constructors -----------------------------------------------------------------
    @classmethod
    def from_matrix(cls, A, y, antecedents: Sequence[Antecedent | str] | None = None,
                    sample_weight=None, feature_names=None) -> "RuleProblem":
        """Build from a boolean capture matrix ``A`` (n samples x M antecedents)."""
        A = check_binary_matrix(A, "antecedent matrix")
        y = as_binary_labels(y, A.shape[0])
        if antecedents is None:
            antecedents = [f"a{j}" for j in range(A.shape[1])]
        W = bits.n_words(A.shape[0])
        packed = bits.pack(A.T) if A.shape[1] else np.zeros((0, W), dtype=np.uint64)
        return cls(packed, y, antecedents, sample_weight, feature_names)

    # ---- basic facts ------------------------------------------------------------------
    @property
    def n_antecedents(self) -> int:
        return self.captures.shape[0]

    @property
    def n_words(self) -> int:
        return self.captures.shape[1]

    @property
    def antecedent_names(self) -> list[str]:
        return [a.name for a in self.antecedents]

    @property
    def weighted(self) -> bool:
        return self.sample_weight is not None

    @property
    def n_positive(self) -> int:
        return int(self.y.sum())

    def check_two_classes(self) -> None:
        """Raise ``ValueError`` unless both labels occur (shared bad-input check)."""
        pos = self.n_positive
        if pos == 0 or pos == self.n_samples:
            raise ValueError(f"the labels contain one class only ({int(self.y[0])}); "
                             "a classifier needs both 0 and 1")

    def check_regularization(self, c: float, name: str = "c") -> float:
        """Validate a per-rule penalty in [0, 1); warn when it is below 1/n."""
        try:
            c = float(c)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a number in [0, 1), got {c!r}") from None
        if not np.isfinite(c) or c < 0 or c >= 1:
            raise ValueError(f"{name} must be in [0, 1), got {c!r}")
        if 0 < c < 1.0 / self.n_samples:
            warnings.warn(f"{name}={c} is below 1/n={1.0 / self.n_samples:.3g}: a rule is cheaper "
                          "than one mistake, so the search space is hardly pruned", stacklevel=3)
        return c

    # ---- counting: what a prefix of antecedents captures --------------------------------
    @property
    def total_mass(self) -> float:
        """Number of samples, or total sample weight on a weighted problem."""
        return float(self.n_samples if self.sample_weight is None else self.sample_weight.sum())

    def mass(self, v: np.ndarray) -> float:
        """Number (or weighted mass) of samples in packed vector ``v``."""
        if self.sample_weight is None:
            return bits.count(v)
        return float(self.sample_weight[bits.unpack(v, self.n_samples)].sum())

    def capture_counts(self, prefix: Sequence[int]):
        """For each rule of ``prefix`` and then the default: ((pos_mass, neg_mass), (pos, neg)).

        Rule k counts the samples it newly captures (no earlier rule of ``prefix`` captured
        them); the last entry counts the samples no rule captures.  The first pair is
        weighted (equal to the counts when unweighted); the second pair is the integer counts
        of newly captured positives and negatives.
        """
        M = self.n_antecedents
        for i in prefix:
            if not 0 <= int(i) < M:
                raise ValueError(f"antecedent index {i} out of range for {M} antecedents")
        remaining = self.all.copy()
        out = []
        for i in prefix:
            cap = self.captures[int(i)] & remaining
            remaining &= ~self.captures[int(i)]
            out.append(self._split(cap))
        out.append(self._split(remaining))
        return out

    def _split(self, cap):
        pos_v = cap & self.labels
        neg_v = cap & ~self.labels
        p, q = bits.count(pos_v), bits.count(neg_v)
        if self.sample_weight is None:
            return (p, q), (p, q)
        return (self.mass(pos_v), self.mass(neg_v)), (p, q)

    def subset(self, antecedent_indices: Sequence[int]) -> "RuleProblem":
        """The same samples with only the given antecedents."""
        idx = list(antecedent_indices)
        return RuleProblem(self.captures[idx] if idx else np.zeros((0, self.n_words), np.uint64),
                           self.y, [self.antecedents[i] for i in idx], self.sample_weight,
                           self.feature_names)

    def dense(self) -> np.ndarray:
        """Boolean capture matrix, n samples x M antecedents."""
        return bits.unpack(self.captures, self.n_samples).T.reshape(self.n_samples, self.n_antecedents)

    # ---- groups of identical capture patterns (equivalent points) -----------------------
    def group_rows(self, check=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:attr:`groups` with the distinct patterns still packed (G x ``8 ceil(M / 64)``
        bytes, column 0 the top bit of the first byte; ``packed_columns`` turns them into
        packed vectors over the groups).  Computed once; ``check()``
        (:func:`rulecert.monitor.stop_check`) is asked between blocks of the work and raises
        to stop it."""
        cached = self.__dict__.get("_group_rows")
        if cached is None:
            rows, inverse, _ = _unique_packed(_transposed(self.captures, self.n_samples, check))
            w = self.sample_weight if self.weighted else np.ones(self.n_samples)
            G = rows.shape[0]
            pos = np.bincount(inverse, weights=w * (self.y == 1), minlength=G)
            neg = np.bincount(inverse, weights=w * (self.y == 0), minlength=G)
            if not self.weighted:
                pos, neg = pos.round().astype(np.int64), neg.round().astype(np.int64)
            cached = self.__dict__["_group_rows"] = (rows, inverse, pos, neg)
        return cached

    @functools.cached_property
    def groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Samples with identical capture patterns.

        Returns ``(patterns, inverse, pos, neg)``: ``patterns`` is a boolean matrix
        (G x M) of the distinct patterns in lexicographic order (as ``np.unique(dense,
        axis=0)`` orders them), ``inverse[i]`` the group of sample i, and ``pos`` / ``neg`` the
        (weighted) positive and negative mass of each group.  One sort of the packed rows
        (:meth:`group_rows`).
        """
        rows, inverse, pos, neg = self.group_rows()
        return np.unpackbits(rows, axis=1, count=self.n_antecedents).view(bool), inverse, pos, neg

    @functools.cached_property
    def minority(self) -> np.ndarray:
        """Packed indicator of equivalent-point minority samples (JMLR Theorem 20).

        Within each group of samples with identical capture patterns, every rule list
        classifies all members alike, so at least min(pos, neg) of them are misclassified.
        The vector marks that many samples of the minority label per group (ties: label 0),
        so ``popcount(uncaptured & minority)`` is the equivalent-points lower bound for any
        uncaptured set that is a union of groups (which every prefix's is).
        """
        if self.weighted:
            raise ValueError("the packed minority vector is defined for unweighted problems")
        _, inverse, pos, neg = self.group_rows()
        minority_label = (pos < neg).astype(np.int8)  # label whose members are the minority
        mark = self.y == minority_label[inverse]
        return bits.pack(mark)

    def __repr__(self) -> str:
        return (f"RuleProblem(n_samples={self.n_samples}, n_antecedents={self.n_antecedents}, "
                f"positives={self.n_positive}, weighted={self.weighted})")
