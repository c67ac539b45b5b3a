"""Exact combinatorial pricing: depth-first branch-and-bound over clauses on packed bits.

The pricing problem ``min_k rc(k) = const + lit |k| + sum_{g covered by k} v_g`` over clauses
of 1..D features is searched depth first in canonical order (features added in increasing
index), with

* the optimistic estimate ``const + lit (|k|+1) + sum_{g covered by k} min(v_g, 0)`` of any
  extension of ``k`` (the best an extension can do is keep exactly the groups with
  ``v_g < 0``), pruning against the current threshold;
* redundant literals skipped: adding a feature that does not shrink the coverage gives the
  same coverage with one more literal (``lit >= 0``), and the irredundant clause with that
  coverage is reached along another canonical path (keep the literals that shrink the
  coverage when added in increasing order); a first literal true on every group is a clause
  of its own but is not extended;
* dominated literals skipped: a feature that implies (on the training groups) a literal
  already in the clause makes that literal redundant, so the child has the coverage of a
  shorter clause.  Every clause is dominated (same coverage, a subset of its literals) by
  one whose literals imply each other nowhere (drop, from every implication chain, all but
  the strongest literal, ties by index) and shrink the coverage at each step of the
  canonical order; that clause is never skipped;
* empty coverages skipped (their reduced cost is ``>= 0``, irrelevant to ``min(0, .)``);
* the *exclusion bound*, tighter than the optimistic estimate when that one would not prune.
  Write ``N(c)`` / ``P(c)`` for the positive / negative parts of ``v`` summed over a coverage
  ``c`` (so the sum of ``v`` is ``N - P``).  At a node of coverage ``c`` with candidate
  literals ``k`` (coverage ``c_k``), a descendant ``S + j + E`` (``E`` non-empty, ``m = |E|``)
  keeps at most ``min(P(c_j), min_{k in E} P(c_k))`` of ``P`` and at least
  ``max(0, N(c_j) - sum_{k in E} x_k)`` of ``N``, with ``x_k = N(c) - N(c_k)`` (a literal
  removes from any smaller coverage at most what it removes from ``c``).  A reached clause
  never holds two features of one implication chain (one would be redundant or dominated,
  see above; chains by :func:`implication_chains`), so ``sum x_k`` is at most ``G_m``, the
  sum of the ``m`` largest per-chain maxima of ``x``.  Splitting on ``min_k P(c_k)`` by a few
  quantile thresholds ``A_i`` (literals with ``P(c_k) >= A_i`` only, kept mass capped by
  ``A_{i-1}``) gives ``const + lit (|S|+1) + min_i min_m [lit m + max(0, N(c_j) - G_{i,m})
  - min(P(c_j), A_{i-1})]``.
* *inherited candidates*: a child ``S + j`` tries only its parent's candidates that survived
  there (and still do, at the current threshold) past ``j``.  The parent's bound for a
  candidate ``k`` holds for every ``S + k + E`` with ``E`` among the parent's candidates
  (the exclusion bound takes ``E`` from all of them, not only those after ``k``), and every
  literal of a clause the search must reach is one of those (a redundant, dominated or
  emptying literal at ``S`` stays one below ``S``), so a pruned ``k`` cannot enter a better
  clause below ``S + j`` either.

Two modes: *top-K pricing* (the threshold is the K-th best reduced cost found, starting at
``upper``, so the search returns the K best clauses below ``upper`` and proves the minimum)
and *enumeration* (the threshold stays fixed; every irredundant clause with ``rc < threshold``
is collected, or the search reports itself incomplete past ``K`` of them).

Bound.  The result's ``bound`` is a valid lower bound on ``min(upper, min_k rc(k))``: the
best clause found, the threshold of everything pruned, the clauses an enumeration dropped
past ``K``, and on an early stop the optimistic estimates of the open nodes on the DFS stack.  The search runs in resumable chunks of nodes
so that the caller can check the wall clock between chunks.

Coverage sums use per-byte lookup tables (``W x 8 x 256``), so a child costs ``O(W)``.

Workers.  The compiled search releases the GIL, so ``workers`` threads can share the tree
(``_parallel``): every one expands the root and its children, then takes every
``workers``-th grandchild; they run in rounds of a fixed node count and share, between
rounds, the K-th best reduced cost (top-K) and the stops.  Same clauses and bound as one
worker when the search completes; under node limits a different, equally valid, result, the
same for a given number of workers.

Per node.  The candidates' sorts write into preallocated arrays (numba's own quicksort, so
the same order), the exclusion bound walks ``m`` only while it gains (convex), dominated
literals come from a bitset kept along the path, and both sums of a byte from one table
entry; none of this changes the nodes, clauses or bound of the search.
"""
from __future__ import annotations

import dataclasses
import hashlib
import math
import time

import numba as nb
import numpy as np

from .... import bits
from ....certificate import Termination
from ....monitor import heartbeat, interrupt_requested
from .instance import PricingInstance, PricingResult


@nb.njit(cache=True, nogil=True)
def _sums(c, T):
    s = 0.0
    sn = 0.0
    for w in range(c.shape[0]):
        x = c[w]
        if x == 0:
            continue
        for b in range(8):
            byte = (x >> np.uint64(8 * b)) & np.uint64(255)
            if byte:
                s += T[w, b, byte, 0]
                sn += T[w, b, byte, 1]
    return s, sn


@nb.njit(cache=True, nogil=True)
def _argsort_into(A, n, R, stack):
    """``R[:n]`` = numba's ``np.argsort(A[:n])`` into preallocated ``R`` and ``stack`` (100 x
    2): the same algorithm (numba/misc/quicksort.py: median of three, insertion sort below
    15 elements), so the same order, ties included.  ``np.argsort`` allocated its result and
    its partition stack at every node; this allocates nothing."""
    for i in range(n):
        R[i] = i
    if n < 2:
        return
    stack[0, 0] = 0
    stack[0, 1] = n - 1
    ns = 1
    while ns > 0:
        ns -= 1
        low = stack[ns, 0]
        high = stack[ns, 1]
        while high - low >= 15:
            mid = (low + high) >> 1
            if A[R[mid]] < A[R[low]]:
                R[low], R[mid] = R[mid], R[low]
            if A[R[high]] < A[R[mid]]:
                R[high], R[mid] = R[mid], R[high]
            if A[R[mid]] < A[R[low]]:
                R[low], R[mid] = R[mid], R[low]
            pivot = A[R[mid]]
            R[high], R[mid] = R[mid], R[high]
            i = low
            j = high - 1
            while True:
                while i < high and A[R[i]] < pivot:
                    i += 1
                while j >= low and pivot < A[R[j]]:
                    j -= 1
                if i >= j:
                    break
                R[i], R[j] = R[j], R[i]
                i += 1
                j -= 1
            R[i], R[high] = R[high], R[i]
            if high - i > i - low:
                if high > i:
                    stack[ns, 0] = i + 1
                    stack[ns, 1] = high
                    ns += 1
                high = i - 1
            else:
                if i > low:
                    stack[ns, 0] = low
                    stack[ns, 1] = i - 1
                    ns += 1
                low = i + 1
        for i in range(low + 1, high + 1):
            k = R[i]
            v = A[k]
            j = i
            while j > low and v < A[R[j - 1]]:
                R[j] = R[j - 1]
                j -= 1
            R[j] = k


FOUND_GRACE_DIVISOR = 10
"""Top-K pricing with ``found_node_limit`` goes on for ``found_node_limit //
FOUND_GRACE_DIVISOR`` nodes after its first clause (when that comes past ``found_node_limit
(1 - 1/FOUND_GRACE_DIVISOR)``; earlier, it stops at ``found_node_limit``).  The stop is
tested inside the search, at a node, so it does not depend on how the caller cuts the search
into chunks; a clause found late is seldom alone, and stopping at the first late clause (one
column per iteration) makes the tail of column generation long."""


@nb.njit(cache=True, nogil=True)
def _run(F, IMPT, CHAIN, n_chains, T, const, lit, D, K, tighten, by_rc, cov, ch, chlb, nch, ptr,
         clause, best_rc, best_cl, istate, fstate, node_budget, found_stop, stride, offset,
         split):
    """Advance the search by at most ``node_budget`` expansions; in top-K mode stop too once a
    clause is held, ``found_stop >= 0`` nodes were expanded and ``found_stop //
    FOUND_GRACE_DIVISOR`` more since the first clause (at a node, so the stop does not
    depend on how the caller cut the search into chunks).  A worker's share of the tree
    (``stride`` > 1): at depth ``split`` it descends only into the children at positions ``p``
    with ``p + path = offset (mod stride)``, ``path`` the sum of the positions taken above;
    above ``split`` into every child.  The lists themselves stay whole (a child's candidates
    are its parent's).

    istate = [depth, nfound, nodes, expand_pending, finished, overflow, nodes at the first
    clause (-1: none yet), found-stopped]
    fstate = [threshold, least reduced cost dropped past K in enumeration]
    """
    d, W = F.shape
    depth = istate[0]
    nfound = istate[1]
    nodes = istate[2]
    expand = istate[3] == 1
    thr = fstate[0]
    c2 = np.empty(W, dtype=np.uint64)
    tmp_lb = np.empty(d)
    tmp_key = np.empty(d)
    tmp_j = np.empty(d, dtype=np.int64)
    tmp_sn = np.empty(d)
    tmp_neg = np.empty(d)
    tmp_same = np.empty(d, dtype=np.bool_)
    po = np.empty(d, dtype=np.int64)
    order = np.empty(d, dtype=np.int64)
    qstack = np.empty((100, 2), dtype=np.int64)
    chain_x = np.zeros(max(n_chains, 1))
    NB = 4
    G = np.zeros((NB, D + 1))
    TOP = np.zeros((NB, D + 1))       # TOP[i, m]: G[i, m + 1] - G[i, m]
    top = np.zeros(D + 1)
    A = np.zeros(NB)
    stop_nodes = nodes + node_budget
    # dom[l, k]: feature k implies one of the clause's first l literals (IMPT[i, k]: k
    # implies i), kept along the path instead of testing the clause's literals per candidate
    dom = np.zeros((D + 1, d), dtype=np.bool_)
    for l in range(depth):
        for k in range(d):
            dom[l + 1, k] = dom[l, k] | IMPT[clause[l], k]
    finished = False
    overflow = istate[5] == 1
    first = istate[6]
    grace = -1 if found_stop < 0 else found_stop // FOUND_GRACE_DIVISOR
    while True:
        if expand:
            nodes += 1
            last = clause[depth - 1] if depth > 0 else -1
            s0, sn0 = _sums(cov[depth], T)
            neg0 = s0 - sn0            # the positive part of v over the node's coverage
            cnt = 0
            # a child's candidates: its parent's that survived there (and still do) past the
            # branching literal -- one the parent pruned cannot enter a better clause (module doc)
            n_cand = d if depth == 0 else nch[depth - 1]
            for idx in range(n_cand):
                if depth == 0:
                    j = idx
                else:
                    j = ch[depth - 1, idx]
                    if j <= last or chlb[depth - 1, idx] >= thr:
                        continue
                if dom[depth, j]:       # j implies a literal of the clause: dominated
                    continue
                same = True
                empty = True
                for w in range(W):
                    c2[w] = cov[depth, w] & F[j, w]
                    if c2[w] != cov[depth, w]:
                        same = False
                    if c2[w] != 0:
                        empty = False
                if empty or (same and depth > 0):
                    continue
                s, sn = _sums(c2, T)
                rc = const + lit * (depth + 1) + s
                if rc < thr:
                    if nfound < K:
                        pos = nfound
                        nfound += 1
                        if first < 0:
                            first = nodes
                    elif tighten:
                        pos = 0
                        for k in range(1, K):
                            if best_rc[k] > best_rc[pos]:
                                pos = k
                    else:
                        overflow = True
                        pos = -1
                        if rc < fstate[1]:
                            fstate[1] = rc     # kept for the bound: this clause is dropped
                    if pos >= 0:
                        best_rc[pos] = rc
                        for q in range(D):
                            best_cl[pos, q] = clause[q] if q < depth else -1
                        best_cl[pos, depth] = j
                        if tighten and nfound == K:
                            t = best_rc[0]
                            for k in range(1, K):
                                if best_rc[k] > t:
                                    t = best_rc[k]
                            thr = t
                tmp_j[cnt] = j
                tmp_sn[cnt] = sn
                tmp_neg[cnt] = s - sn
                tmp_key[cnt] = rc
                tmp_same[cnt] = same
                cnt += 1
            # exclusion bound (module doc): G[i, m] bounds the positive-v mass that m more
            # literals, all keeping negative-v mass >= A[i], can remove from a coverage.
            # Computed only when a child survives the plain bound.
            M = D - depth - 1
            live = False
            if M > 0:
                for q in range(cnt):
                    if not tmp_same[q] and const + lit * (depth + 2) + tmp_sn[q] < thr:
                        live = True
                        break
            if live:
                _argsort_into(tmp_sn, cnt, po, qstack)  # by kept negative-v mass, largest first
                for c in range(n_chains):
                    chain_x[c] = 0.0
                q0 = 0
                q_done = 0
                for i in range(NB):
                    # bucket i: every candidate down to rank (i + 1) cnt / NB (the last: all)
                    if i < NB - 1:
                        r = min(cnt - 1, ((i + 1) * cnt) // NB)
                        A[i] = -tmp_sn[po[r]]
                        while q0 < cnt and -tmp_sn[po[q0]] >= A[i]:
                            q0 += 1
                    else:
                        A[i] = -np.inf
                        q0 = cnt
                    for qq in range(q_done, q0):
                        q = po[qq]
                        x = neg0 - tmp_neg[q]
                        c = CHAIN[tmp_j[q]]
                        if x > chain_x[c]:
                            chain_x[c] = x
                    q_done = q0
                    # the M largest per-chain maxima, by insertion into top[0..M)
                    for m in range(M):
                        top[m] = 0.0
                    for c in range(n_chains):
                        x = chain_x[c]
                        if x > top[M - 1]:
                            k = M - 1
                            while k > 0 and top[k - 1] < x:
                                top[k] = top[k - 1]
                                k -= 1
                            top[k] = x
                    G[i, 0] = 0.0
                    for m in range(1, M + 1):
                        G[i, m] = G[i, m - 1] + top[m - 1]
                        TOP[i, m - 1] = top[m - 1]
            ncnt = 0     # without a live child (or at depth D - 1) no child is pushed
            for q in range(cnt if live else 0):
                if not tmp_same[q]:
                    # S + j + E (m = |E| >= 1) keeps negative-v mass at most
                    # min(P_j, min_{k in E} P_k) and positive-v mass at least
                    # max(0, N_j - sum_{k in E} x_k); by the bucket of min_k P_k:
                    negc = tmp_neg[q]
                    posc = -tmp_sn[q]
                    extra = np.inf
                    for i in range(NB):
                        cap = posc if i == 0 else min(posc, A[i - 1])
                        # lit m + max(0, negc - G[i, m]) is convex in m (its steps, lit -
                        # min(TOP[i, m], max(0, negc - G[i, m])), never fall): walk m up
                        # while the next step gains (the minimum of the full scan)
                        m = 1
                        e = lit + max(0.0, negc - G[i, 1]) - cap
                        if e < extra:
                            extra = e
                        while m < M and lit < min(TOP[i, m], max(0.0, negc - G[i, m])):
                            m += 1
                            e = lit * m + max(0.0, negc - G[i, m]) - cap
                            if e < extra:
                                extra = e
                    lb = const + lit * (depth + 1) + extra
                    if lb < thr:
                        tmp_j[ncnt] = tmp_j[q]
                        tmp_lb[ncnt] = lb
                        tmp_key[ncnt] = tmp_key[q] if by_rc else lb
                        ncnt += 1
            cnt = ncnt
            _argsort_into(tmp_key, cnt, order, qstack)
            for q in range(cnt):
                ch[depth, q] = tmp_j[order[q]]
                chlb[depth, q] = tmp_lb[order[q]]
            nch[depth] = cnt
            ptr[depth] = 0
            expand = False
        if overflow:
            break
        p = ptr[depth]
        path = -1
        if stride > 1 and depth == split:
            path = 0
            for dd in range(depth):
                path += ptr[dd] - 1
        while p < nch[depth] and (chlb[depth, p] >= thr
                                  or path >= 0 and (p + path) % stride != offset):
            p += 1
        ptr[depth] = p
        if p < nch[depth]:
            if nodes >= stop_nodes:
                break
            if tighten and found_stop >= 0 and nfound > 0 and nodes >= found_stop \
                    and nodes >= first + grace:
                istate[7] = 1
                break
            j = ch[depth, p]
            ptr[depth] = p + 1
            clause[depth] = j
            for w in range(W):
                cov[depth + 1, w] = cov[depth, w] & F[j, w]
            for k in range(d):
                dom[depth + 1, k] = dom[depth, k] | IMPT[j, k]
            depth += 1
            expand = True
        else:
            nch[depth] = 0
            ptr[depth] = 0
            if depth == 0:
                finished = True
                break
            depth -= 1
    istate[0] = depth
    istate[1] = nfound
    istate[2] = nodes
    istate[3] = 1 if expand else 0
    istate[4] = 1 if finished else 0
    istate[5] = 1 if overflow else 0
    istate[6] = first
    fstate[0] = thr


def implications(X: np.ndarray) -> np.ndarray:
    """``IMP[j, i]``: feature ``j`` implies feature ``i`` on the groups (``F_j`` within
    ``F_i``), ``i != j``."""
    # j implies i  <=>  no group has j true and i false.  A float product (BLAS; counts are
    # exact below 2**53) instead of an integer one (numpy's integer matmul is not BLAS)
    Xf = X.astype(np.float64)
    viol = Xf.T @ (1.0 - Xf)        # viol[j, i] = #groups with j=1, i=0
    IMP = viol == 0
    np.fill_diagonal(IMP, False)
    return np.ascontiguousarray(IMP)


def implication_chains(X: np.ndarray, IMP: np.ndarray) -> tuple[np.ndarray, int]:
    """A partition of the features into chains of implication (any two features of a chain,
    one implies the other on the groups), greedily: features by decreasing support, each
    appended to the first chain whose last (smallest) feature it implies.  The search never
    holds two features of one chain (the weaker is redundant or dominated), which the
    exclusion bound uses.  Returns (chain id per feature, number of chains)."""
    d = X.shape[1]
    support = X.sum(axis=0)
    order = np.argsort(-support, kind="stable")
    chain = np.zeros(d, dtype=np.int64)
    lasts: list[int] = []
    for j in order:
        for c, k in enumerate(lasts):
            if IMP[j, k]:
                chain[j] = c
                lasts[c] = int(j)
                break
        else:
            chain[j] = len(lasts)
            lasts.append(int(j))
    return chain, len(lasts)


_TABLES: dict = {}
""":func:`data_tables` of the last few matrices, by their shape and a digest of their bits."""


def data_tables(X: np.ndarray) -> tuple:
    """What the search needs of the groups ``X`` alone, whatever the duals: the packed
    features, the implications (transposed), the implication chains and their number.  A
    solve prices the same groups many times, so the tables of the last few matrices are kept
    (their cost grows with groups x features^2: seconds on tens of thousands of groups; the
    digest that recognises a matrix costs milliseconds)."""
    key = (X.shape, hashlib.blake2b(np.ascontiguousarray(X).view(np.uint8), digest_size=16)
           .hexdigest())
    if key in _TABLES:
        return _TABLES[key]
    G, d = X.shape
    F = bits.pack(X.T) if d else np.zeros((0, bits.n_words(G)), np.uint64)
    IMP = implications(X)
    CHAIN, n_chains = implication_chains(X, IMP)
    tables = (F, np.ascontiguousarray(IMP.T), CHAIN, n_chains)
    while len(_TABLES) >= 4:
        _TABLES.pop(next(iter(_TABLES)))
    _TABLES[key] = tables
    return tables


def byte_tables(v: np.ndarray, n_words: int) -> np.ndarray:
    """The lookup table ``T[w, b, byte, 0]`` = sum of v over the set bits of ``byte`` at byte
    ``b`` of word ``w``, ``T[w, b, byte, 1]`` the same for min(v, 0) (side by side: both
    sums of a byte from one cache line)."""
    vp = np.zeros(n_words * 64)
    vp[:len(v)] = v
    m = ((np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1).astype(float)  # 256 x 8
    V = vp.reshape(n_words * 8, 8)
    T = (V @ m.T).reshape(n_words, 8, 256)
    Tn = (np.minimum(V, 0.0) @ m.T).reshape(n_words, 8, 256)
    return np.ascontiguousarray(np.stack([T, Tn], axis=-1))


@dataclasses.dataclass
class BnBResult:
    """What the branch-and-bound pricer returns: clauses below the threshold, their reduced
    costs, the proven bound, whether the search was complete, its nodes and time."""

    clauses: list[tuple[int, ...]]
    reduced_costs: list[float]
    bound: float
    complete: bool
    nodes: int
    wall_time: float
    overflow: bool = False
    unheld_bound: float = -math.inf
    """A lower bound on the reduced cost of every clause the search does not return (the
    threshold of the pruned, the clauses dropped past K, the open nodes' estimates):
    ``upper`` when complete; an incomplete enumeration still returns every clause below it."""


PARALLEL_SPLIT_DEPTH = 1
"""With ``workers > 1``, the depth at which the tree is dealt to the workers: every worker
expands the root and its children (the same nodes, counted in each), then takes the
grandchildren round-robin.  Dealing the root's children instead can leave one worker with
most of the nodes."""
PARALLEL_ROUND = 20_000
"""With ``workers > 1``, each worker's share of nodes per round at most (a count, so that the
rounds, and what is shared between them, do not depend on the clock), and the serial
search's first chunk at most; on large data fewer (:func:`round_nodes`)."""
ROUND_WORK = 10**8
"""Word operations a round (or a first chunk) may cost: a node evaluates its children over
``words`` 64-bit words per literal, so a round is at most ``ROUND_WORK / (words * literals)``
nodes -- a count fixed by the data's size, short enough that the clock is checked within a
fraction of a second on large tables."""


def round_nodes(words: int, literals: int) -> int:
    """Nodes per round (and in the first chunk) on data of ``words`` 64-bit words per
    literal and ``literals`` literals: :data:`PARALLEL_ROUND`, fewer on large data (at
    least 50)."""
    return int(max(50, min(PARALLEL_ROUND, ROUND_WORK // max(1, words * literals))))


class _Search:
    """One search state of :func:`_run` (the DFS stack, the clauses held, the counters)."""

    def __init__(self, D: int, d: int, W: int, G: int, K: int, upper: float):
        self.cov = np.zeros((D + 1, W), dtype=np.uint64)
        self.cov[0] = bits.ones(G)
        self.ch = np.zeros((D + 1, d), dtype=np.int64)
        self.chlb = np.zeros((D + 1, d))
        self.nch = np.zeros(D + 1, dtype=np.int64)
        self.ptr = np.zeros(D + 1, dtype=np.int64)
        self.clause = np.full(D, -1, dtype=np.int64)
        self.best_rc = np.full(K, np.inf)
        self.best_cl = np.full((K, D), -1, dtype=np.int64)
        self.istate = np.array([0, 0, 0, 1, 0, 0, -1, 0], dtype=np.int64)
        self.fstate = np.array([float(upper), np.inf])
        self.stride, self.offset = 1, 0

    def copy(self, offset: int, stride: int) -> "_Search":
        c = _Search.__new__(_Search)
        c.__dict__ = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                      for k, v in self.__dict__.items()}
        c.stride, c.offset = stride, offset
        return c

    @property
    def nodes(self) -> int:
        return int(self.istate[2])

    @property
    def done(self) -> bool:
        """Finished, overflowed or found-stopped: no more nodes to run."""
        return bool(self.istate[4] or self.istate[5] or self.istate[7])

    def held(self) -> dict:
        """The clauses held, to their reduced costs."""
        n = int(self.istate[1])
        return {tuple(int(j) for j in self.best_cl[k] if j >= 0): float(self.best_rc[k])
                for k in range(n)}

    def bound(self) -> float:
        """A lower bound on every clause of this state's share not held: the threshold of the
        pruned, the clauses dropped past K, and the open nodes' estimates on the stack."""
        b = min(float(self.fstate[0]), float(self.fstate[1]))
        if not self.istate[4]:
            for dd in range(int(self.istate[0]) + 1):
                p, n = int(self.ptr[dd]), int(self.nch[dd])
                lbs = self.chlb[dd, p:n]
                if dd == PARALLEL_SPLIT_DEPTH and self.stride > 1:     # this share's only
                    path = int((self.ptr[:dd] - 1).sum())
                    lbs = lbs[(np.arange(p, n) + path) % self.stride == self.offset]
                if len(lbs):
                    b = min(b, float(lbs.min()))   # open children
            # (a chunk always stops after an expansion, never with one pending)
        return b


def price_by_branch_and_bound(X: np.ndarray, v: np.ndarray, const: float, lit: float,
                              max_length: int, *, K: int = 50, upper: float = 0.0, tighten: bool = True,
                              node_limit: int | None = None, deadline: float | None = None,
                              chunk: int | None = None, order: str = "lb",
                              found_node_limit: int | None = None, workers: int = 1) -> BnBResult:
    """Run the search on groups ``X`` (G x d bool) with coefficients ``v`` (see module doc).

    ``tighten=True``: top-K pricing below ``upper``; ``False``: enumerate every clause with
    ``rc < upper`` (incomplete with ``overflow`` past ``K`` of them).
    ``found_node_limit``: in top-K mode, return (incomplete, with a valid bound) once at least
    one clause below ``upper`` is held, this many nodes were expanded, and a tenth of them
    (``FOUND_GRACE_DIVISOR``) since the first clause -- column generation needs improving
    columns, not the proof of the best one, until the end; a clause found late is seldom
    alone, and one column per iteration makes the tail of column generation long.
    ``workers > 1``: the tree is dealt round-robin to that many threads (the compiled
    search releases the GIL), see ``_parallel``.
    """
    t0 = time.perf_counter()
    X = np.asarray(X, dtype=bool)
    G, d = X.shape
    D = int(max(1, min(max_length, d)))
    W = bits.n_words(G)
    F, IMPT, CHAIN, n_chains = data_tables(X)
    T = byte_tables(np.asarray(v, dtype=float), W)
    K = max(1, int(K))
    fixed = (F, IMPT, CHAIN, n_chains, T, float(const), float(lit), D, K,
             bool(tighten), order == "rc")
    found = -1 if found_node_limit is None else int(found_node_limit)

    def run(s: _Search, budget: int, found_stop: int = found) -> None:
        _run(*fixed, s.cov, s.ch, s.chlb, s.nch, s.ptr, s.clause, s.best_rc, s.best_cl,
             s.istate, s.fstate, int(budget), found_stop, s.stride, s.offset,
             PARALLEL_SPLIT_DEPTH)

    root = _Search(D, d, W, G, K, upper)
    per_round = round_nodes(W, d)
    if workers > 1:
        return _parallel(root, run, int(workers), K, bool(tighten), float(upper), node_limit,
                         deadline, found_node_limit, t0, per_round)
    budget = per_round if chunk is None else chunk
    while True:
        if node_limit is not None:
            budget = min(budget, node_limit - root.nodes)
            if budget <= 0:
                break
        tc = time.perf_counter()
        run(root, budget)
        if root.done:     # finished, overflowed, found-stopped
            break
        heartbeat(phase="branch-and-bound pricing", nodes=root.nodes)
        now = time.perf_counter()
        if deadline is not None and now >= deadline or interrupt_requested():
            break  # Ctrl-C: the bound below stays valid (open nodes' estimates)
        # aim for chunks of about a quarter of a second, or of the time left when less
        # (a chunk is not interrupted: a long chunk overruns a short time limit)
        target = 0.25 if deadline is None else min(0.25, max(deadline - now, 0.002))
        el = max(now - tc, 1e-4)
        budget = int(min(max(budget * target / el, 1000), 5_000_000))
    return _result([root], K, bool(tighten), float(upper), root.nodes, t0)


def _merge(shares: list) -> dict:
    """The clauses the shares hold (some in several), to their reduced costs."""
    held = {}
    for s in shares:
        held.update(s.held())
    return held


def _parallel(root: _Search, run, workers: int, K: int, tighten: bool, upper: float,
              node_limit: int | None, deadline: float | None, found_node_limit: int | None,
              t0: float, per_round: int = PARALLEL_ROUND) -> BnBResult:
    """The search on ``workers`` threads, deterministic for a given number of workers: the
    root is expanded once; every worker, with a copy of the state, expands the nodes above
    :data:`PARALLEL_SPLIT_DEPTH` and takes, below each, the children at positions ``p`` with
    ``p + path = w (mod workers)`` (lists sorted by the bound).  The workers run in
    rounds of :data:`PARALLEL_ROUND` nodes each (fewer when the node limit is near: what is
    left is split evenly among the unfinished ones, so a worker that finishes early leaves its
    nodes to the others); between rounds, in top-K mode, every worker's threshold drops to the
    K-th best reduced cost held by all, and the stops are tested on the counts: the node
    limit, the deadline, Ctrl-C, and ``found_node_limit`` on the total nodes (a clause held,
    ``found_node_limit`` nodes, and ``found_node_limit // FOUND_GRACE_DIVISOR`` more since the
    round that found the first).  The result is the K best clauses held (enumeration: every
    clause found, incomplete past K); the bound is the least of the workers' (each valid
    over its share) and of the clauses dropped."""
    from concurrent.futures import ThreadPoolExecutor
    run(root, 1, -1)                     # expand the root only
    total = root.nodes
    if root.done or (node_limit is not None and total >= node_limit):
        shares = [root]
    else:
        shares = [root.copy(w, workers) for w in range(workers)]
        for s in shares:
            s.istate[2] = 0              # the root's node is counted once, in ``total``
    first = -1
    grace = -1 if found_node_limit is None else found_node_limit // FOUND_GRACE_DIVISOR
    with ThreadPoolExecutor(max_workers=workers) as pool:
        while len(shares) > 1:
            active = [s for s in shares if not s.done]
            if not active:
                break
            per = per_round
            if node_limit is not None:
                per = min(per, (node_limit - total) // len(active))
                if per <= 0:
                    break
            before = sum(s.nodes for s in shares)
            list(pool.map(lambda s: run(s, per, -1), active))
            total += sum(s.nodes for s in shares) - before
            heartbeat(phase="branch-and-bound pricing", nodes=total)
            if deadline is not None and time.perf_counter() >= deadline \
                    or interrupt_requested():
                break    # Ctrl-C: the bound stays valid (each share's open nodes)
            if not tighten:
                # past K clauses in all (the shares hold some of the same), it is over
                if sum(int(s.istate[1]) for s in shares) > K and len(_merge(shares)) > K:
                    break
                continue
            held = _merge(shares)
            if len(held) >= K:
                kth = sorted(held.values())[K - 1]
                for s in shares:
                    s.fstate[0] = min(float(s.fstate[0]), kth)
            if held and first < 0:
                first = total
            if found_node_limit is not None and held \
                    and total >= found_node_limit and total >= first + grace:
                break
    return _result(shares, K, tighten, upper, total, t0)


def _result(shares: list, K: int, tighten: bool, upper: float, nodes: int,
            t0: float) -> BnBResult:
    """The result of a search (one share, or the workers'): the clauses held by reduced cost
    (stable: ties in the order found; past K, only K: top-K keeps the best, an enumeration is
    incomplete), complete when every share finished without overflow; the bound is the
    least of the shares' (each valid over its share), ``upper``, the best clause held and
    any clause dropped."""
    held = _merge(shares)
    dropped = math.inf
    clauses = sorted(held, key=held.get)
    overflow = any(bool(s.istate[5]) for s in shares)
    if len(clauses) > K:                 # only when the workers' clauses are merged
        dropped = held[clauses[K]]
        overflow = overflow or not tighten
        clauses = clauses[:K]
    unheld = min([s.bound() for s in shares] + [float(upper), dropped])
    bound = min(unheld, held[clauses[0]]) if clauses else unheld
    finished = all(bool(s.istate[4]) for s in shares)    # every share searched to its end
    return BnBResult(clauses, [held[c] for c in clauses], bound, finished and not overflow,
                     nodes, time.perf_counter() - t0, overflow, unheld)


def bnb_pricing(inst: PricingInstance, *, threshold: float = 0.0, max_return: int = 50,
                node_limit: int | None = None, deadline: float | None = None,
                found_node_limit: int | None = None, workers: int = 1) -> PricingResult:
    """Top-``max_return`` clauses below ``threshold`` by the depth-first branch-and-bound of
    :func:`price_by_branch_and_bound`; exact (``complete``) unless the node limit or the deadline stops it."""
    r = price_by_branch_and_bound(inst.X, inst.v, inst.const, inst.lit, inst.max_length,
                                  K=max_return, upper=threshold, tighten=True,
                                  node_limit=node_limit, deadline=deadline,
                                  found_node_limit=found_node_limit, workers=workers)
    if r.complete:
        term = Termination.OPTIMAL
    elif deadline is not None and time.perf_counter() >= deadline:
        term = Termination.TIME_LIMIT
    else:
        term = Termination.NODE_LIMIT
    # the search bounds min(threshold, min rc); with threshold <= 0 that is all we need
    return PricingResult(list(r.clauses), list(r.reduced_costs), r.bound, r.complete, "bnb", term,
                         r.wall_time, r.nodes, best_clause=r.clauses[0] if r.clauses else None)


_warm = False


def warm_up() -> None:
    """Load the compiled search into this process (once; from numba's cache, longer after
    an install or an edit).  Time-limited callers run it before they split their
    budget, so that the first pricing call of a process does not overrun its share."""
    global _warm
    if not _warm:
        price_by_branch_and_bound(np.array([[True, False], [False, True]]),
                                  np.array([-1.0, 1.0]), 0.0, 0.0, 2, K=1)
        _warm = True
