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


def _transposed(captures: np.ndarray, n: int) -> np.ndarray:
    """The packed captures (M x words, one row per antecedent) as :func:`_packed_rows` of
    the dense matrix (one row per sample), without unpacking: every 8 antecedents x 8
    samples block of bits is one uint64 transposed in place (Hacker's Delight, 7-8)."""
    M, W = captures.shape
    out = np.zeros((n, 8 * -(-M // 64)), dtype=np.uint8)
    if M == 0 or n == 0:
        return out
    G = -(-M // 8)
    by = np.zeros((8 * G, 8 * W), dtype=np.uint8)           # bit c of byte j: sample 8j + c
    by[:M] = captures.astype("<u8").view(np.uint8)
    # one uint64 per block, byte r = antecedent 7 - r of the block (so antecedent 0 ends up
    # in the top bit), bit 8r + c = sample c
    x = np.ascontiguousarray(by.reshape(G, 8, 8 * W)[:, ::-1].transpose(0, 2, 1))
    x = x.view("<u8")[..., 0].astype(np.uint64)              # G x 8W
    for mask, shift in _T8:                                   # bit 8r + c -> bit 8c + r
        t = (x ^ (x >> shift)) & mask
        x ^= t ^ (t << shift)
    rows = x.astype("<u8").T.copy().view(np.uint8).reshape(8 * W, G, 8).transpose(0, 2, 1)
    out[:, :G] = rows.reshape(64 * W, G)[:n]
    return out


def unique_packed_rows(packed: np.ndarray, M: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`unique_rows` of rows packed by :func:`_packed_rows` (``M`` columns): one sort of
    the rows as raw bytes (a sort of integers for up to 64 columns), whose order is the
    lexicographic order of the boolean rows."""
    n = packed.shape[0]
    if n == 0:
        return np.zeros((0, M), dtype=bool), np.zeros(0, dtype=np.int64), np.zeros(0, np.int64)
    if M == 0:
        return np.zeros((1, 0), dtype=bool), np.zeros(n, dtype=np.int64), np.array([n])
    width = packed.shape[1]
    keys = (packed.view(">u8")[:, 0].astype(np.uint64) if width == 8
            else packed.view(f"V{width}")[:, 0])             # compared bytewise, unsigned
    order = np.argsort(keys, kind="stable")
    ordered = packed[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    counts = np.diff(np.append(first, n))
    rows = np.unpackbits(ordered[first], axis=1, count=M).astype(bool)
    return rows, inverse, counts


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
        pad = np.bitwise_and(captures, np.bitwise_not(bits.ones(n))[None, :])
        if pad.any():
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
    @functools.cached_property
    def groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Samples with identical capture patterns.

        Returns ``(patterns, inverse, pos, neg)``: ``patterns`` is a boolean matrix
        (G x M) of the distinct patterns in lexicographic order (as ``np.unique(dense,
        axis=0)`` orders them), ``inverse[i]`` the group of sample i, and ``pos`` / ``neg`` the
        (weighted) positive and negative mass of each group.  One sort of the packed rows
        (``unique_packed_rows``).
        """
        M = self.n_antecedents
        patterns, inverse, _ = unique_packed_rows(_transposed(self.captures, self.n_samples), M)
        w = self.sample_weight if self.weighted else np.ones(self.n_samples)
        G = patterns.shape[0]
        pos = np.bincount(inverse, weights=w * (self.y == 1), minlength=G)
        neg = np.bincount(inverse, weights=w * (self.y == 0), minlength=G)
        if not self.weighted:
            pos, neg = pos.round().astype(np.int64), neg.round().astype(np.int64)
        return patterns, inverse, pos, neg

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
        _, inverse, pos, neg = self.groups
        minority_label = (pos < neg).astype(np.int8)  # label whose members are the minority
        mark = self.y == minority_label[inverse]
        return bits.pack(mark)

    def __repr__(self) -> str:
        return (f"RuleProblem(n_samples={self.n_samples}, n_antecedents={self.n_antecedents}, "
                f"positives={self.n_positive}, weighted={self.weighted})")
