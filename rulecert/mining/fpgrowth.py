"""Class-wise frequent itemsets (FP-growth) as antecedents for falling rule lists.

Chen & Rudin (AISTATS 2018), following Wang & Rudin (2015), mine the candidate antecedents
with FP-growth (Han, Pei & Yin 2000) *separately* within the positive and within the negative
samples: an itemset (conjunction of binary literals) of at most ``max_predicates`` literals is
a candidate when its support *within one class* reaches ``min_support`` (a fraction of that
class).  The candidates are the union over both classes.

:func:`mine_fpgrowth` returns that union as an :class:`~rulecert.mining.AntecedentSet`
(captures over *all* samples).  Two exact methods give the same itemsets:

* ``method="fptree"``: FP-growth proper -- an FP-tree per class (identical transactions
  compressed first), mined recursively through conditional trees, depth-limited to
  ``max_predicates``;
* ``method="bitset"`` (default, fastest for small ``max_predicates``): level-wise
  enumeration on packed bits, counting each candidate's support in both classes with
  ``np.bitwise_count`` (Apriori pruning: a superset of an itemset that is infrequent in both
  classes is infrequent in both classes).

Definition used by both: an itemset is frequent in class ``c`` when its count ``k_c`` in that
class satisfies ``k_c >= 1`` and ``k_c / n_c >= min_support`` (floating point, inclusive).
The ``k_c >= 1`` condition only matters for ``min_support = 0``: FP-growth never produces
itemsets that occur in no transaction.  Itemsets are returned shortest first, then in
lexicographic order of their literal indices (positive literals ``col`` first, then the
negations ``not col`` when ``negations=True``).
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Sequence

import numpy as np

from .. import bits
from ..checks import as_binary_labels
from ..monitor import stop_check
from ..problem import unique_rows
from .antecedents import (AntecedentSet, _binary_input, _build_set, _check_card,
                          _check_fraction, _enumerate, _literals, literal_name)

__all__ = ["mine_fpgrowth", "fpgrowth_itemsets"]


def _min_count(min_support: float, n: int) -> int:
    """Smallest integer ``k >= 1`` with ``k / n >= min_support`` (same float comparison)."""
    k = max(1, math.ceil(min_support * n))
    while k > 1 and (k - 1) / n >= min_support:
        k -= 1
    while k <= n and k / n < min_support:
        k += 1
    return k


# ---- FP-growth proper ---------------------------------------------------------------------
class _Node:
    __slots__ = ("item", "count", "parent", "children")

    def __init__(self, item, parent):
        self.item = item
        self.count = 0
        self.parent = parent
        self.children = {}


def _build_tree(transactions, min_count):
    """FP-tree of weighted transactions ``[(items, weight)]``; returns (header, item counts)."""
    counts = defaultdict(int)
    for items, w in transactions:
        for i in items:
            counts[i] += w
    freq = {i: c for i, c in counts.items() if c >= min_count}
    if not freq:
        return None, freq
    rank = {i: r for r, i in enumerate(sorted(freq, key=lambda i: (-freq[i], i)))}
    root = _Node(None, None)
    header = defaultdict(list)
    for items, w in transactions:
        path = sorted((i for i in items if i in rank), key=rank.__getitem__)
        node = root
        for i in path:
            child = node.children.get(i)
            if child is None:
                child = _Node(i, node)
                node.children[i] = child
                header[i].append(child)
            child.count += w
            node = child
    return header, freq


def _mine_tree(header, freq, min_count, max_len, suffix, out, check):
    # items from least to most frequent (conventional FP-growth order; the result is a set)
    for item in sorted(freq, key=lambda i: (freq[i], i), reverse=False):
        check(f" ({len(out):,} itemsets found)")
        itemset = suffix + (item,)
        out[tuple(sorted(itemset))] = freq[item]
        if len(itemset) >= max_len:
            continue
        base = []
        for node in header[item]:
            path, p = [], node.parent
            while p is not None and p.item is not None:
                path.append(p.item)
                p = p.parent
            if path:
                base.append((path, node.count))
        if not base:
            continue
        sub_header, sub_freq = _build_tree(base, min_count)
        if sub_header is not None:
            _mine_tree(sub_header, sub_freq, min_count, max_len, itemset, out, check)


def fpgrowth_itemsets(A, min_count: int, max_len: int, check=None) -> dict[tuple[int, ...], int]:
    """All itemsets of at most ``max_len`` columns of the boolean matrix ``A`` (transactions
    = rows, items = columns) contained in at least ``min_count`` rows, with their counts.

    Plain FP-growth; identical rows are merged into one weighted transaction first.
    ``check`` (``rulecert.monitor.stop_check``) is called at every item.
    """
    check = check or stop_check(None, "mining itemsets")
    A = np.asarray(A, dtype=bool)
    if A.shape[0] == 0 or A.shape[1] == 0:
        return {}
    rows, _, weights = unique_rows(A)
    transactions = [(np.flatnonzero(r).tolist(), int(w)) for r, w in zip(rows, weights)]
    header, freq = _build_tree(transactions, max(1, int(min_count)))
    out: dict[tuple[int, ...], int] = {}
    if header is not None:
        _mine_tree(header, freq, max(1, int(min_count)), int(max_len), (), out, check)
    return out


# ---- public -------------------------------------------------------------------------------
def mine_fpgrowth(X, y, feature_names: Sequence[str] | None = None, *, max_predicates: int = 2,
                  min_support: float = 0.1, negations: bool = False,
                  merge_identical: bool = True, method: str = "bitset",
                  monitor=None) -> AntecedentSet:
    """Antecedents frequent within the positives or within the negatives (FRL mining).

    Parameters
    ----------
    X : binary DataFrame or array (n, d)
    y : array (n,) of 0/1 labels (both classes must occur)
    feature_names : list of str, optional
    max_predicates : int, default=2
        Largest number of literals in an antecedent.
    min_support : float in [0, 1], default=0.1
        Minimum support as a fraction *of one class* (see the module docstring).
    negations : bool, default=False
        Also use the literals ``col == 0`` (named ``not col``) as items.
    merge_identical : bool, default=True
        Keep only the first antecedent of each distinct capture vector (over all samples).
    method : {"bitset", "fptree"}
        Two exact implementations with identical output.
    monitor : rulecert.monitor.Monitor, optional
        Asked during the mining (the deadline, the memory cap, Ctrl-C); a stop raises
        ``rulecert.limits.LimitStop``, as in
        :func:`~rulecert.mining.antecedents.mine_antecedents`.
    """
    A, feature_names = _binary_input(X, feature_names)
    n, d = A.shape
    y = as_binary_labels(y, n)
    npos = int(y.sum())
    nneg = n - npos
    if npos == 0 or nneg == 0:
        raise ValueError(f"the labels contain one class only ({int(y[0])}); class-wise "
                         "frequent itemsets need both 0 and 1")
    max_predicates = _check_card(max_predicates, "max_predicates")
    min_support = _check_fraction(min_support, "min_support")
    if method not in ("bitset", "fptree"):
        raise ValueError(f"method must be 'bitset' or 'fptree', got {method!r}")

    check = stop_check(monitor, "mining class-wise frequent itemsets")
    lits, V = _literals(A, bool(negations), check)
    names = [literal_name(feature_names[j], v) for j, v in lits]
    feat = np.array([j for j, _ in lits], dtype=np.int64)
    kpos, kneg = _min_count(min_support, npos), _min_count(min_support, nneg)

    if method == "bitset":
        ypos = bits.pack(y.astype(bool))
        yneg = bits.complement(ypos, n)

        def frequent(block):
            if not len(block):
                return np.zeros(0, dtype=bool)
            cp = bits.count(np.bitwise_and(block, ypos[None, :]))
            cn = bits.count(np.bitwise_and(block, yneg[None, :]))
            return (cp >= kpos) | (cn >= kneg)

        def keep(block):
            return np.ones(len(block), dtype=bool)

        sets, vecs = _enumerate(V, feat, max_predicates, frequent, keep, check)
    else:
        L = bits.unpack(V, n).T if len(lits) else np.zeros((n, 0), bool)  # n x literals
        found = set(fpgrowth_itemsets(L[y == 1], kpos, max_predicates, check))
        found |= set(fpgrowth_itemsets(L[y == 0], kneg, max_predicates, check))
        sets = sorted(found, key=lambda s: (len(s), s))
        W = bits.n_words(n)
        vecs = np.empty((len(sets), W), dtype=np.uint64)
        for r, s in enumerate(sets):
            v = V[s[0]].copy()
            for i in s[1:]:
                np.bitwise_and(v, V[i], out=v)
            vecs[r] = v
    return _build_set(sets, vecs, lits, names, n, feature_names, merge_identical, check)
