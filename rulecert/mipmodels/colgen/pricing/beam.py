"""Beam-search pricing for Boolean rule-set column generation, batched over each level.

The search is the one of IBM AIX360's ``BooleanRuleCG`` (see :func:`beam_pricing`).  Each
level is expanded with a few numpy calls per batch of beam nodes instead of per node:

* the coverages of the beam nodes are a boolean ``(nodes x G)`` matrix, with its rows also
  packed into ``uint64`` words (exact coverage keys);
* the reduced costs and the extension bounds of *all* children of a batch come from two matrix
  products, ``(C * v) @ X`` and ``(C * min(v, 0)) @ X`` restricted to the groups where the
  weights are not zero; whether a literal changes a node's coverage comes from the packed
  coverages (a literal must be false on a covered group);
* the per-node best children (by reduced cost for the output, by score for the beam) are
  selected with row-wise partitions, the beam with one stable sort of the candidates (listed in
  (node, literal) order, so ties fall as in the per-node code), and equal coverages are found
  by hashing the packed rows, with an exact check;
* the pool of clauses found is a set of arrays (coverage key, reduced cost, length, clause)
  reduced each level to the best clause per coverage and the ``max_return`` best in the order
  (reduced cost, length, clause).

A batch is a millisecond or two of work; the deadline is checked before each batch.  The
search runs with one BLAS thread (:data:`BLAS_THREADS`).

Floating point.  Reduced costs are sums of ``v_g`` over covered groups, and ties between them
are broken by the clause and node order exactly as in the original per-node code, so equal
results need equal floating-point sums.  The per-node code summed with one product per node
over the node's covered groups; OpenBLAS accumulates a product sequentially along its inner
dimension in blocks of up to 256 (``GEMM_Q`` of its Haswell kernels, the one-row and gemv
kernels aside, see ``_ROW_ALIGN``), so each sum over at most 256 covered groups was the
plain sequential sum in group order.  Here the products of a batch run over the groups that
matter to at least one of its nodes (zero terms change nothing): when there are at most 256 of
them the sums are sequential, bit for bit the per-node values; otherwise the groups are cut
into fixed chunks of 256 (by group index), each chunk is summed sequentially and the chunk
sums are added in order.  So the results are the per-node code's whenever ``G <= 256`` (or a
batch's groups fit in 256), and whenever the sums are exact (e.g. weights on a dyadic grid);
past that, sums can differ in the last bits, which can only change the order of clauses whose
reduced costs are equal in exact arithmetic (ties).  The per-node code's own results change
as much when the groups are merely listed in another order.
"""
from __future__ import annotations

import contextlib
import math
import time

import numpy as np

from ....certificate import Termination
from ....monitor import heartbeat, interrupt_requested
from .instance import PricingInstance, PricingResult

__all__ = ["beam_pricing", "BLAS_THREADS"]

BLAS_THREADS: int | None = 1
"""BLAS threads during a search; None leaves the process's setting.  A batch's products take
a millisecond or two: threads gain little, and on a loaded machine a threaded OpenBLAS can be
several times slower than one thread (the per-node products of the original code were below
OpenBLAS's threading threshold, i.e. single-threaded, too).  The limit (threadpoolctl) holds
for the whole process while a search runs and is restored after it."""
_SEQ_ROWS = 256
"""Products over at most this many rows are sequential sums (OpenBLAS Haswell ``GEMM_Q``)."""
_ROW_ALIGN = 16
"""The left factor of a product gets an even number of rows (zero rows added) -- a multiple of
this when BLAS could not be limited to one thread: OpenBLAS computes a lone last row of a block
of rows with a one-row kernel that does not sum sequentially (a one-row product goes to gemv,
which does not either), and a threaded product splits its rows into 2 x (threads) nearly equal
blocks (with a multiple of 16 rows, even blocks for up to 4 threads)."""
_SMALL_BATCH = 8
"""Batches of at most this many nodes use one product (fewer calls) over all covered groups,
larger ones two products over fewer groups and bit operations (fewer flops)."""
_GATHER_COST = 4
"""Copying a row of ``X`` costs about as much as this many rows of a product's left factor."""
_POOL_QUEUE = 2000
"""Offers queued before they are merged into the pool of clauses found."""
_BATCH_FLOPS = 2e7
"""Work of one batch of nodes (multiply-adds of its products): a millisecond or two."""


def beam_pricing(inst: PricingInstance, *, threshold: float = 0.0, beam_width: int = 5,
                 max_return: int | None = 50, deadline: float | None = None,
                 max_width: int | None = None) -> PricingResult:
    """Beam search over clauses (AIX360's ``beam_search``, ``wLB = 0.5``; see module doc).

    Level 1 scores every literal ``j``: its reduced cost ``rc = const + lit + sum_{g in j}
    v_g`` and the bound on its extensions ``lb = const + 2 lit + sum_{g in j} min(v_g, 0)``.
    The ``beam_width`` clauses of smallest ``0.5 rc + 0.5 lb`` among those with ``lb`` below
    the cut (``threshold``, or the ``max_return``-th best reduced cost found once that many
    are held: nothing else can enter the output) are extended by every other literal (all the
    children of a batch of clauses from two matrix products), the ``beam_width`` best distinct
    children are kept, and so on up to ``max_length`` literals.  Literals that do not change a
    clause's coverage are not added (with ``lit >= 0`` such a clause and its extensions are
    dominated) and clauses with equal coverage are kept once (the shortest, then the
    lexicographically first): equal coverage at equal length means equal reduced costs for the
    whole subtree.  Ties in a score are broken by the parent's rank in the beam, then by the
    added literal.

    Returns every clause generated with reduced cost ``< threshold`` (best first, distinct
    coverages, at most ``max_return``; ``None`` = all).  A heuristic: ``bound`` is ``-inf``,
    ``complete`` is False; termination is ``TIME_LIMIT`` when ``deadline`` (a
    ``time.perf_counter()`` value, checked before each batch of a millisecond or two) cut the
    search, else ``ITERATION_LIMIT``.  ``best_clause`` is the best clause seen, negative or not
    (a CP-SAT hint).  With ``beam_width`` at least the number of clauses of ``max_length - 1``
    literals the search is exhaustive (but still reports no bound).

    ``max_width``: when the search finds no clause below the threshold, it is run again with
    the width doubled, up to ``max_width`` (a narrow beam often dies out after a few levels
    in a few milliseconds; a search of width ``B`` costs about ``B`` times one of width 1).
    ``generated`` and ``wall_time`` then cover all the runs.
    """
    if (isinstance(beam_width, bool) or not isinstance(beam_width, (int, np.integer))
            or beam_width < 1):
        raise ValueError(f"beam_width must be an integer >= 1, got {beam_width!r}")
    if max_return is not None and max_return < 1:
        raise ValueError(f"max_return must be >= 1 or None, got {max_return!r}")
    t0 = time.perf_counter()
    width, generated, best = int(beam_width), 0, None
    data = _Data(inst)
    with _blas_threads(BLAS_THREADS) as single:
        data.align = 2 if single else _ROW_ALIGN
        while True:
            r, best_rc, truncated = _beam_once(data, threshold, width, max_return, deadline)
            generated += r.generated
            if r.best_clause is not None and (best is None or best_rc < best[0]):
                best = (best_rc, r.best_clause)
            if (r.clauses or r.termination is Termination.TIME_LIMIT or max_width is None
                    or 2 * width > max_width or not truncated):  # a wider beam would not differ
                break
            width *= 2
    r.generated, r.wall_time = generated, time.perf_counter() - t0
    r.best_clause = None if best is None else best[1]
    return r


# ---- BLAS threads ----------------------------------------------------------------------------
_CONTROLLER: list = []


@contextlib.contextmanager
def _blas_threads(limit: int | None):
    """Run the block with at most ``limit`` BLAS threads (threadpoolctl, a dependency of
    scikit-learn; nothing is changed if it is missing or ``limit`` is None).  Yields whether
    every BLAS library in the process then runs one thread."""
    if limit is None:
        yield False
        return
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
            _CONTROLLER.append(ThreadpoolController())
        except Exception:  # pragma: no cover - threadpoolctl missing or broken
            _CONTROLLER.append(None)
    ctl = _CONTROLLER[0]
    if ctl is None:  # pragma: no cover
        yield False
        return
    with ctl.limit(limits=limit, user_api="blas"):
        info = ctl.select(user_api="blas").info()
        yield bool(info) and all(lib.get("num_threads") == 1 for lib in info)


# ---- data shared by the runs of one call -----------------------------------------------------
class _Data:
    """The instance's arrays in the layouts the search uses (built once per call)."""

    def __init__(self, inst: PricingInstance):
        self.inst = inst
        self.X = inst.X
        self.G, self.d = inst.X.shape
        self.v = inst.v
        self.vneg = np.minimum(inst.v, 0.0)
        self.align = _ROW_ALIGN
        self._XTp = self._notXTpT = None

    @property
    def XT(self) -> np.ndarray:
        """``X.T`` contiguous (literal ``j``'s coverage is row ``j``; the instance's)."""
        return self.inst.XT

    @property
    def XTp(self) -> np.ndarray:
        """The rows of ``XT`` packed into ``uint64`` words (coverage keys)."""
        if self._XTp is None:
            self._XTp = _pack(self.XT)
        return self._XTp

    @property
    def notXTpT(self) -> np.ndarray:
        """``~XTp`` transposed: word ``w`` of the complement of literal ``j`` at ``[w, j]``."""
        if self._notXTpT is None:
            self._notXTpT = np.ascontiguousarray(~self.XTp.T)
        return self._notXTpT


def _pack(B: np.ndarray) -> np.ndarray:
    """Rows of a boolean matrix packed into ``uint64`` words (zero-padded)."""
    n, G = B.shape
    out = np.zeros((n, 8 * max(1, -(-G // 64))), dtype=np.uint8)
    if G:
        out[:, : -(-G // 8)] = np.packbits(B, axis=1, bitorder="little")
    return out.view(np.uint64)


# ---- distinct coverages ----------------------------------------------------------------------
_MULT = np.zeros(0, dtype=np.uint64)


def _first_distinct(keys: np.ndarray) -> np.ndarray:
    """Positions (increasing) of the first occurrence of each distinct row of ``keys``
    (``uint64``): rows are grouped by a hash, then checked for exact equality."""
    global _MULT
    m, W = keys.shape
    if m <= 1:
        return np.arange(m)
    if _MULT.size < W:     # random odd multipliers (fixed seed)
        rng = np.random.default_rng(0x5EED)
        _MULT = (rng.integers(0, 2**63, size=max(W, 64), dtype=np.int64).astype(np.uint64)
                 * np.uint64(2) + np.uint64(1))
    with np.errstate(over="ignore"):
        h = (keys * _MULT[:W]).sum(axis=1, dtype=np.uint64)
    o = np.argsort(h, kind="stable")
    hs = h[o]
    start = np.ones(m, dtype=bool)
    start[1:] = hs[1:] != hs[:-1]
    if start.all():
        return np.arange(m)
    first = o[start]                    # the first position of each hash value (stable sort)
    rep = first[np.cumsum(start) - 1]   # the representative of each row, in sorted order
    if not np.array_equal(keys[o], keys[rep]):       # a hash collision: exact fallback
        _, idx = np.unique(np.ascontiguousarray(keys).view(
            np.dtype((np.void, keys.dtype.itemsize * W))).ravel(), return_index=True)
        return np.sort(idx)
    return np.sort(first)


# ---- the pool of clauses found ---------------------------------------------------------------
def _clause_order(rc: np.ndarray, length: np.ndarray, clauses: np.ndarray) -> np.ndarray:
    """Indices sorting by (rc, length, clause lexicographically); ``clauses`` rows are
    padded with -1 past their length."""
    o = np.argsort(rc, kind="stable")
    rs = rc[o]
    tie = rs[1:] == rs[:-1]
    if not tie.any():
        return o
    inv = np.zeros(o.size, dtype=bool)
    inv[1:] |= tie
    inv[:-1] |= tie
    sub = o[inv]                        # runs of equal rc, in place in the sorted order
    keys = [clauses[sub, c] for c in range(clauses.shape[1] - 1, -1, -1)]
    keys += [length[sub], rc[sub]]
    o[inv] = sub[np.lexsort(keys)]
    return o


class _Pool:
    """The clauses found: coverage keys, reduced costs, lengths, clauses (padded with -1);
    after :meth:`prune`, the first clause of each coverage in the order (rc, length, clause)
    and, with ``K``, only the ``K`` first of these."""

    def __init__(self, words: int, width: int, K: int | None):
        self.K = K
        self.keys = np.zeros((0, words), dtype=np.uint64)
        self.rc = np.zeros(0)
        self.length = np.zeros(0, dtype=np.int64)
        self.clauses = np.zeros((0, width), dtype=np.int64)
        self._new: list = []
        self._queued = 0

    def offer(self, keys: np.ndarray, rc: np.ndarray, clauses: np.ndarray) -> None:
        """Queue clauses (rows of ``clauses``, sorted, all of one length) with their keys."""
        if self.K is not None and self.rc.size >= self.K:
            # worse than the K-th clause held: can neither enter nor improve a coverage
            keep = rc <= self.rc[self.K - 1]
            if not keep.all():
                keys, rc, clauses = keys[keep], rc[keep], clauses[keep]
        if rc.size:
            self._new.append((keys, rc, clauses))
            self._queued += rc.size
            if self._queued > _POOL_QUEUE:
                self.merge()

    def prune(self, threshold: float) -> float:
        """Merge the offers; return the cut below which a node can still help
        (``threshold``, or the ``K``-th best reduced cost once ``K`` clauses are held)."""
        self.merge()
        if self.K is None or self.rc.size < self.K:
            return threshold
        return min(threshold, float(self.rc[self.K - 1]))

    def merge(self) -> None:
        """Merge the queued offers into the pool.  Merging at any time keeps the same
        clauses: one among the ``K`` best of everything offered so far is among the ``K``
        best of any subset holding it."""
        self._queued = 0
        if self._new:
            W = self.clauses.shape[1]
            keys, rc, length, cls = [self.keys], [self.rc], [self.length], [self.clauses]
            for k, r, c in self._new:
                pad = np.full((r.size, W), -1, dtype=np.int64)
                pad[:, : c.shape[1]] = c
                keys.append(k)
                rc.append(r)
                length.append(np.full(r.size, c.shape[1]))
                cls.append(pad)
            self._new = []
            keys, rc, length, cls = map(np.concatenate, (keys, rc, length, cls))
            o = _clause_order(rc, length, cls)
            o = o[_first_distinct(keys[o])]
            if self.K is not None:
                o = o[: self.K]
            self.keys, self.rc, self.length, self.clauses = keys[o], rc[o], length[o], cls[o]

    def result(self) -> tuple[list[tuple[int, ...]], list[float]]:
        clauses = [tuple(int(j) for j in row[:n]) for row, n in zip(self.clauses, self.length)]
        return clauses, [float(r) for r in self.rc]


# ---- one level -------------------------------------------------------------------------------
def _batch_size(covp: np.ndarray, sizes: np.ndarray, per_row: int) -> int:
    """How many of the next nodes (packed coverages ``covp``, of ``sizes`` groups) to expand
    in one batch of about ``_BATCH_FLOPS`` multiply-adds (nodes x union x ``per_row``)."""
    m = covp.shape[0]
    if per_row * m * int(sizes.sum()) <= _BATCH_FLOPS:
        return m
    # the union is at least the largest coverage: no batch is longer than ``top`` nodes
    most = np.maximum.accumulate(np.maximum(sizes, 1)) * per_row * np.arange(1, m + 1)
    top = max(1, int(np.searchsorted(most, _BATCH_FLOPS, side="right")))
    if top == 1:
        return 1
    union = np.bitwise_count(np.bitwise_or.accumulate(covp[:top], axis=0)).sum(axis=1)
    work = per_row * np.arange(1, top + 1) * np.maximum(union, 1)
    return max(1, int(np.searchsorted(work, _BATCH_FLOPS, side="right")))


def _sums(Cb: np.ndarray, rows: np.ndarray, vecs: list, Xf: np.ndarray,
          align: int) -> np.ndarray:
    """``[Cb * vec for vec in vecs] @ Xf`` stacked (``len(vecs) nb x d``; ``None`` in ``vecs``
    stands for ones), computed over ``rows`` only (they must include every group where a
    ``Cb * vec`` is not zero): each entry is summed sequentially in group order within each
    chunk of ``_SEQ_ROWS`` groups, chunks added in order (see the module doc)."""
    nb, G = Cb.shape
    M = len(vecs) * nb
    A = np.zeros((M + (-M) % align, rows.size))
    Cr = Cb[:, rows]
    for i, vec in enumerate(vecs):
        if vec is None:
            A[i * nb:(i + 1) * nb] = Cr
        else:
            np.multiply(Cr, vec[rows], out=A[i * nb:(i + 1) * nb])
    if rows.size <= _SEQ_ROWS:
        return (A @ Xf[rows])[:M]
    # chunks of _SEQ_ROWS groups; a dense chunk is used whole (no copy of its rows of Xf)
    Ma = A.shape[0]
    cuts = np.searchsorted(rows, np.arange(0, G + _SEQ_ROWS, _SEQ_ROWS))
    W = None
    for c in range(cuts.size - 1):
        lo, hi = cuts[c], cuts[c + 1]
        if lo == hi:
            continue
        g0, g1 = c * _SEQ_ROWS, min(G, (c + 1) * _SEQ_ROWS)
        if (hi - lo) * (Ma + _GATHER_COST) > (g1 - g0) * Ma:
            Ac = np.zeros((Ma, g1 - g0))
            Ac[:, rows[lo:hi] - g0] = A[:, lo:hi]
            part = Ac @ Xf[g0:g1]
        else:
            part = A[:, lo:hi] @ Xf[rows[lo:hi]]
        W = part if W is None else W + part
    return W[:M]


def _removes(cp: np.ndarray, notXTpT: np.ndarray) -> np.ndarray:
    """``R[p, j]``: literal ``j`` is false on some group node ``p`` covers (``cp``: packed
    coverages of the nodes; ``notXTpT[w, j]``: word ``w`` of literal ``j``'s complement)."""
    return np.bitwise_or.reduce(cp.T[:, :, None] & notXTpT[:, None, :], axis=0) != 0


def _top_mask(S: np.ndarray, valid: np.ndarray, k: int | None) -> np.ndarray:
    """The valid entries among their row's ``k`` smallest (ties: the smaller column), i.e.
    what ``argsort(S[row, valid], kind="stable")[:k]`` picks."""
    if k is None or k >= S.shape[1]:
        return valid
    over = np.flatnonzero(valid.sum(axis=1) > k)
    if not over.size:
        return valid
    sel = valid.copy()
    if k == 1:
        sel[over] = False
        sel[over, np.argmin(np.where(valid[over], S[over], np.inf), axis=1)] = True
        return sel
    Sm = np.where(valid[over], S[over], np.inf)
    kth = np.partition(Sm, k - 1, axis=1)[:, k - 1:k]    # finite: the row has > k valid
    less = Sm < kth
    eq = Sm == kth
    need = k - less.sum(axis=1, keepdims=True)
    sel[over] = less | (eq & (np.cumsum(eq, axis=1) <= need))
    return sel


def _add_literal(clauses: np.ndarray, lits: np.ndarray) -> np.ndarray:
    """Sorted rows of ``clauses`` (sorted) with one more literal each."""
    return np.sort(np.column_stack((clauses, lits)), axis=1)


def _first_in_order(scores: np.ndarray, m: int) -> np.ndarray:
    """The first ``m`` (or more) positions of ``argsort(scores, kind="stable")``."""
    if scores.size <= 4 * m:
        return np.argsort(scores, kind="stable")
    thr = np.partition(scores, m - 1)[m - 1]
    pre = np.flatnonzero(scores <= thr)
    return pre[np.argsort(scores[pre], kind="stable")]


# ---- one search of a given width -------------------------------------------------------------
def _beam_once(data: _Data, threshold: float, beam_width: int, max_return: int | None,
               deadline: float | None):
    """One beam search of width ``beam_width`` (see :func:`beam_pricing`); returns the
    result, the reduced cost of its best clause and whether the beam ever dropped a node."""
    t0 = time.perf_counter()
    inst = data.inst
    B, K, D = int(beam_width), max_return, int(inst.max_length)
    d = data.d
    if d == 0 or D < 1:
        return PricingResult([], [], -math.inf, False, "beam", Termination.ITERATION_LIMIT,
                             time.perf_counter() - t0), math.inf, False
    Xf, v, vneg = inst.Xf, data.v, data.vneg
    XT, XTp = data.XT, data.XTp
    drop_redundant = inst.lit >= 0
    pool = _Pool(XTp.shape[1], min(D, d), K)

    # ---- level 1: every literal
    rc1 = inst.fixed(1) + v @ Xf
    j0 = int(np.argmin(rc1))
    best_rc, best_clause = float(rc1[j0]), (j0,)
    generated = d
    imp = np.flatnonzero(rc1 < threshold)
    if K is not None and imp.size > K:
        imp = imp[np.argsort(rc1[imp], kind="stable")[:K]]
    pool.offer(XTp[imp], rc1[imp], imp[:, None].astype(np.int64))
    cut = pool.prune(threshold)
    truncated = False
    n = 0
    if D >= 2:
        lb1 = inst.fixed(2) + vneg @ Xf
        ok = np.flatnonzero(lb1 < cut)
        truncated = ok.size > B
        if ok.size:
            score = 0.5 * rc1[ok] + 0.5 * lb1[ok]
            cand = ok[np.argsort(score, kind="stable")]
            lits = cand[_first_distinct(XTp[cand])[:B]]
            n = lits.size
            clauses = lits[:, None].astype(np.int64)     # the nodes: clauses (sorted rows),
            covb = XT[lits]                              # coverages,
            covp = XTp[lits]                             # packed coverages

    # ---- levels 2..D: extend the beam
    level = 1            # literals of the clauses of the nodes
    timed_out = False
    vnz, vlt = v != 0, v < 0          # the groups that count in the sums of v, min(v, 0)
    while n and level < D:
        deeper = level + 2 <= D          # children can still be extended
        rc_fixed, lb_fixed = inst.fixed(level + 1), inst.fixed(level + 2)
        sizes = covb.sum(axis=1)
        cand_s, cand_o, cand_l = [], [], []
        a = 0
        while a < n:
            if deadline is not None and time.perf_counter() > deadline or interrupt_requested():
                timed_out = True
                break
            heartbeat(phase="beam pricing")
            b = a + _batch_size(covp[a:], sizes[a:], (1 + deeper + drop_redundant) * d)
            nb = b - a
            Cb = covb[a:b]
            used = Cb.any(axis=0)
            mask = np.ones((nb, d), dtype=bool)
            mask[np.arange(nb)[:, None], clauses[a:b]] = False
            if nb <= _SMALL_BATCH:       # one product for all (counts: a row of ones)
                vecs = [v] + [vneg] * deeper + [None] * drop_redundant
                Wm = _sums(Cb, np.flatnonzero(used), vecs, Xf, data.align)
                R = rc_fixed + Wm[:nb]
                if deeper:
                    L = lb_fixed + Wm[nb:2 * nb]
                if drop_redundant:       # the literal must remove a covered group
                    mask &= Wm[(1 + deeper) * nb:] < sizes[a:b, None] - 0.5
            else:
                R = rc_fixed + _sums(Cb, np.flatnonzero(used & vnz), [v], Xf, data.align)
                if deeper:
                    L = lb_fixed + _sums(Cb, np.flatnonzero(used & vlt), [vneg], Xf,
                                         data.align)
                if drop_redundant:
                    mask &= _removes(covp[a:b], data.notXTpT)
            generated += int(mask.sum())
            # the best clause seen (the first node, then literal, reaching the minimum)
            Rm = np.where(mask, R, np.inf)
            jm = np.argmin(Rm, axis=1)
            rowmin = Rm[np.arange(nb), jm]
            p = int(np.argmin(rowmin))
            if rowmin[p] < best_rc:
                best_rc = float(rowmin[p])
                best_clause = tuple(sorted(clauses[a + p].tolist() + [int(jm[p])]))
            # improving children: each node's K best by reduced cost
            imp = mask & (R < threshold)
            if imp.any():
                r_, c_ = np.nonzero(_top_mask(R, imp, K))
                pool.offer(covp[a + r_] & XTp[c_], R[r_, c_], _add_literal(clauses[a + r_], c_))
            if deeper:                   # beam candidates: each node's B best by score
                ok = mask & (L < cut)
                if ok.any():
                    score = 0.5 * R + 0.5 * L
                    truncated |= bool((ok.sum(axis=1) > B).any())
                    r_, c_ = np.nonzero(_top_mask(score, ok, B))
                    cand_s.append(score[r_, c_])
                    cand_o.append(a + r_)
                    cand_l.append(c_)
            a = b
        cut = pool.prune(threshold)
        if timed_out or not cand_s:
            break
        # the candidates are in (node, literal) order: a stable sort by score gives the
        # order (score, node, literal); keep the B first distinct coverages in that order
        scores, owner, lits = map(np.concatenate, (cand_s, cand_o, cand_l))
        truncated |= scores.size > B
        m = 2 * B
        while True:
            o = _first_in_order(scores, m)[:m]
            keys = covp[owner[o]] & XTp[lits[o]]
            sel = _first_distinct(keys)
            if sel.size >= B or o.size == scores.size:
                break
            m *= 2
        sel = sel[:B]
        o = o[sel]
        clauses = _add_literal(clauses[owner[o]], lits[o])
        covp = keys[sel]
        covb = covb[owner[o]] & XT[lits[o]]
        n = o.size
        level += 1
    clauses_found, rcs = pool.result()
    term = Termination.TIME_LIMIT if timed_out else Termination.ITERATION_LIMIT
    return PricingResult(clauses_found, rcs, -math.inf, False, "beam", term,
                         time.perf_counter() - t0, generated,
                         best_clause=best_clause), best_rc, truncated
