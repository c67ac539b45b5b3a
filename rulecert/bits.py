"""Packed bit vectors: numpy ``uint64`` words counted with ``np.bitwise_count``.

A bit vector over ``n`` samples is stored in ``n_words(n) = ceil(n / 64)`` words; sample ``i``
is bit ``i % 64`` of word ``i // 64`` (little-endian bit order).  Padding bits past ``n`` are
always zero, so a popcount never needs a mask, and the complement of a vector must be taken
with :func:`complement` (which re-applies the padding mask), never with a bare ``~``.
A matrix of vectors (for example antecedents x samples) is a 2-D ``uint64`` array with one row
per vector.
"""
from __future__ import annotations

import numpy as np

WORD = 64


def n_words(n: int) -> int:
    """Number of 64-bit words needed for ``n`` bits."""
    return (int(n) + WORD - 1) // WORD


def pack(bits) -> np.ndarray:
    """Pack a boolean array (last axis = samples) into uint64 words.

    ``bits`` may be 1-D (one vector) or 2-D (one vector per row). Values must be 0/1 or
    boolean; anything else raises ``ValueError``.
    """
    a = np.asarray(bits)
    if a.dtype != np.bool_:
        if a.size and not np.isin(a, (0, 1)).all():
            raise ValueError("pack expects binary (0/1 or boolean) values")
        a = a.astype(np.bool_)
    one_d = a.ndim == 1
    a2 = np.atleast_2d(a)
    rows, n = a2.shape
    w = n_words(n)
    padded = np.zeros((rows, w * WORD), dtype=np.bool_)
    padded[:, :n] = a2
    # packbits with little bit order gives bytes whose bit j is sample 8*byte + j; viewing
    # 8 consecutive bytes as a little-endian uint64 keeps sample order inside each word.
    by = np.packbits(padded, axis=1, bitorder="little")
    words = np.ascontiguousarray(by).view("<u8").astype(np.uint64, copy=False)
    words = words.reshape(rows, w)
    return words[0].copy() if one_d else words


def unpack(words: np.ndarray, n: int) -> np.ndarray:
    """Inverse of :func:`pack`: a boolean array with ``n`` samples on the last axis."""
    w = np.asarray(words, dtype=np.uint64)
    one_d = w.ndim == 1
    w2 = np.atleast_2d(w)
    by = np.ascontiguousarray(w2.astype("<u8")).view(np.uint8)
    bits = np.unpackbits(by, axis=1, bitorder="little")[:, :n].astype(np.bool_)
    return bits[0] if one_d else bits


def ones(n: int) -> np.ndarray:
    """The all-ones vector over ``n`` samples (padding bits zero)."""
    w = n_words(n)
    v = np.full(w, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    rem = n % WORD
    if w and rem:
        v[-1] = np.uint64((1 << rem) - 1)
    return v


def zeros(n: int) -> np.ndarray:
    """The all-zeros vector over ``n`` samples."""
    return np.zeros(n_words(n), dtype=np.uint64)


def complement(v: np.ndarray, n: int) -> np.ndarray:
    """Bitwise NOT restricted to the ``n`` real samples (padding stays zero)."""
    return np.bitwise_and(np.bitwise_not(v), ones(n))


def count(v: np.ndarray, axis: int = -1) -> np.ndarray | int:
    """Number of set bits, per row for a matrix (``axis=-1``) or in total for a vector."""
    c = np.bitwise_count(v).sum(axis=axis, dtype=np.int64)
    return int(c) if np.ndim(c) == 0 else c
