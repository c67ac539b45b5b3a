"""Compiled (numba) core of the CORELS search: child evaluation, queue, trie, symmetry map.

State lives in plain numpy arrays owned by :mod:`.loop`; :func:`search_chunk` runs the
branch-and-bound loop for a bounded number of node expansions and returns a status code, so
the Python driver can check time, memory, callbacks and grow arrays between chunks.

Trie (append-only arrays indexed by node id; a child's id is larger than its parent's):
``n_parent`` (int32), ``n_ant`` (int32, last antecedent), ``n_depth`` (int16), ``n_flags``
(uint8, bit 0 = deleted), ``n_m`` (int32, mistakes of the prefix rules), ``n_eq`` (int32,
``N * b_0(d_p)``, the equivalent-points minority left uncaptured, 0 when that bound is off,
raised with the lookahead to the gain bound's whole samples beyond ``C``; the scaled lower
bound ``lb = n_m + C * depth + n_eq`` is at most the prefix's own objective, and ``lb + C``
bounds its strict extensions).  A node
is dead when it or an ancestor is deleted; deletion is lazy (JMLR section 5.5): the queue
skips dead nodes when it pops them and :func:`gc_pass` filters them out.  Prefixes, not bit
vectors, are stored: the uncaptured vector is recomputed from the path when a node is popped.

Queue: binary heap of uint64 entries ordering like (key, node id): the policy's key rounded to
float32, ties broken by node id (FIFO, or LIFO for dfs); see :func:`heap_entry`.

Symmetry-aware map (JMLR section 5.3, Algorithm 6, keyed on the captured samples as in
Theorem 15): open addressing with linear probing (load at most 3/4) on a 64-bit hash of the
samples a prefix leaves uncaptured.  A slot (``mslot``, uint64, 0 = empty) packs the hash's top
32 bits (which also give the home slot) and the node id + 1.  A hash match is verified exactly
by recomputing the stored node's uncaptured samples from its path, so the map is exact.  Of two
prefixes leaving the same samples, the one with the smaller ``b(d_p)`` is kept
(:func:`equivalent_support_verdict`); permutations of one antecedent set (Corollary 16) are
the special case of equal lengths.

The lookahead includes the gain bound (module doc of :mod:`rulecert.search.corels.rashomon`,
bullet "gain bound"):
an expansion first counts every child, then closes the node at once when the bound on all its
strict extensions (from those exact counts) reaches the incumbent; otherwise each child gets
the bound from its parent's counts (:func:`child_gain_bound`) and is not queued when that
reaches the incumbent (its own objective is checked first).  Tails are capped at
``max_length`` and, with the prefix-length bound, at Theorem 4's ``k_max``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import intrinsic
from llvmlite import ir

TOL = 1e-9
"""Tolerance on the scaled objective ``mistakes + C * K`` (units of one mistake); see .bounds."""
FIELD_BITS = 21
"""Bits per weight field in the packed group tables (see .data)."""
FIELD_MASK = (1 << FIELD_BITS) - 1


@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return sig, codegen


@njit(cache=True)
def popcount64(x):
    """Set bits of a uint64 (LLVM ctpop: one POPCNT instruction), as int64."""
    return np.int64(_ctpop(x))


# ---- the bounds (documented in .bounds; scaled objective = mistakes + C * K) ----------------
@njit(cache=True)
def rule_correct(pos, neg):
    """Correctly classified samples of a rule predicting the majority (ties predict 1)."""
    return pos if pos >= neg else neg


@njit(cache=True)
def default_mistakes(pos, neg):
    """Mistakes of the default rule on the uncaptured samples (majority, ties predict 1)."""
    return neg if pos >= neg else pos


# ---- the bounds -----------------------------------------------------------------------------
@njit(cache=True)
def support_prunes(n_captured, C):
    """Theorem 10: the last antecedent captures fewer than ``c * N`` new samples."""
    return n_captured < C - TOL


@njit(cache=True)
def accurate_support_prunes(n_correct, C):
    """Theorem 11: the last rule classifies fewer than ``c * N`` of its samples correctly."""
    return n_correct < C - TOL


@njit(cache=True)
def hierarchical_lower_bound(prefix_mistakes, depth, C):
    """Equation (5): ``b(d_p) = prefix mistakes + C * K`` (scaled)."""
    return prefix_mistakes + C * depth


@njit(cache=True)
def subtree_prunes(lb, R):
    """Theorem 1 / Theorem 20: no list in the subtree ``sigma(d_p)`` is strictly better than R.

    ``lb`` is ``b(d_p)`` (Theorem 1) or ``b(d_p) + b_0(d_p)`` (Theorem 20).
    """
    return lb >= R - TOL


@njit(cache=True)
def lookahead_prunes(lb, C, R):
    """Lemma 2 (with Theorem 20 when ``lb`` includes ``b_0``): no strict extension of the
    prefix is strictly better than R."""
    return lb + C >= R - TOL


@njit(cache=True)
def permutation_dominated(new_mistakes, kept_mistakes):
    """Corollary 16: a permutation of a kept prefix with no fewer prefix mistakes is dominated.

    Two permutations of one antecedent set have the same length and capture the same samples
    (hence the same ``C * K`` and the same equivalent points bound), so comparing their lower
    bounds is comparing their integer prefix mistakes.
    """
    return new_mistakes >= kept_mistakes


@njit(cache=True)
def equivalent_support_verdict(new_mistakes, new_len, kept_mistakes, kept_len, C, any_length):
    """Theorem 15 (equivalent support): two prefixes that capture the same samples leave the same
    subproblem, so every extension of one has the objective of the same extension of the other
    plus the difference of their hierarchical bounds ``b = mistakes + C * K``.

    Returns 1 when the new prefix is dominated (its ``b`` is no smaller and, unless
    ``any_length``, it is no shorter: a ``max_length`` cap leaves it no more room), -1 when it
    dominates the kept one (strictly smaller ``b``, no longer unless ``any_length``), 0 when
    neither (only under a length cap).  Equal lengths compare integer mistakes (Corollary 16 for
    permutations); ties keep the kept prefix.
    """
    if new_len == kept_len:
        return 1 if permutation_dominated(new_mistakes, kept_mistakes) else -1
    b_new = new_mistakes + C * new_len
    b_kept = kept_mistakes + C * kept_len
    if b_new >= b_kept and (any_length or new_len > kept_len):
        return 1
    if b_new < b_kept and (any_length or new_len < kept_len):
        return -1
    return 0


@njit(cache=True)
def max_prefix_length(R, C, M):
    """Theorem 4: any list with objective ``<= R`` (scaled) has at most ``floor(R / C)`` rules
    (and at most ``M``). With ``c = 0`` the only cap is ``M``."""
    if C <= 0.0:
        return M
    k = math.floor(R / C + 1e-9)
    return M if k > M else int(k)


@njit(cache=True)
def prefix_length_prunes_children(depth, b, R, C, k_max):
    """Theorems 4 and 6: a prefix of length ``depth`` with hierarchical bound ``b`` has no
    extension strictly better than ``R``: either ``depth + 1`` exceeds the global cap ``k_max``
    (Theorem 4), or every extension has ``b' >= b + C >= R`` (Theorem 6 for one more step).

    JMLR eq. (11) states ``K' < K + floor((R - b) / c)``; from its proof the valid form is
    ``K' - K < (R - b) / c`` (the floor version would wrongly cut a child when ``(R - b) / c``
    is not an integer, e.g. 1.5), which is what this function uses."""
    if depth + 1 > k_max:
        return True
    return C > 0.0 and b + C >= R - TOL


@njit(cache=True, inline="always")
def _lb(n_m, n_depth, n_eq, i, C):
    """The stored node's scaled lower bound ``b(d_p) (+ b_0(d_p))``, with the float operations
    of its computation when it was created."""
    return (n_m[i] + C * n_depth[i]) + n_eq[i]


@njit(cache=True, inline="always")
def _node_prunes(lb, C, R, look):
    """Prune a queued prefix: Lemma 2 when the lookahead is on, else Theorems 1/20."""
    return lookahead_prunes(lb, C, R) if look else subtree_prunes(lb, R)


# ---- the gain bound (module doc of .rashomon; shared with the Rashomon enumeration) ----------
@njit(cache=True)
def tail_cost(X, m, first, gain, jmax, Cs):
    """Least ``j Cs + max(m, X - first - (j - 1) gain)`` over ``1 <= j <= jmax``.

    The gain bound (module doc of :mod:`rulecert.search.corels.rashomon`) on a tail of ``j``
    rules after a prefix
    whose default then predicts a label ``l``: ``X`` uncaptured samples are not labelled ``l``,
    ``m`` is the uncaptured equivalent-points minority, the tail's first rule fixes at most
    ``first`` of the ``X`` and each later rule at most ``gain``.  The expression is convex in
    ``j``: its least value is at ``j = 1`` or next to the kink.  Scalars or arrays alike.
    """
    one = Cs + np.maximum(m, X - first)
    r = 1.0 + (X - first - m) / np.maximum(gain, 1e-300)
    jf = np.minimum(jmax, np.maximum(1.0, np.floor(r)))
    jc = np.minimum(jmax, np.maximum(1.0, np.ceil(r)))
    return np.minimum(one, np.minimum(jf * Cs + np.maximum(m, X - first - (jf - 1) * gain),
                                      jc * Cs + np.maximum(m, X - first - (jc - 1) * gain)))


@njit(cache=True)
def extension_bound(b, deficit, pos, tot, mn, g0, g1, f0, f1, jmax, Cs, opt_scaled):
    """Scaled lower bound on every list that extends by 1 to ``jmax`` rules a prefix with
    scaled bound ``b`` and deficit ``deficit`` that leaves ``pos`` positives, ``tot`` samples and
    ``mn`` equivalent-points minority uncaptured, where no antecedent fixes more than ``g0``
    positives (for a default 0) or ``g1`` negatives (default 1) and the first rule appended
    at most ``f0`` or ``f1``."""
    tail = np.minimum(tail_cost(pos, mn, f0, g0, jmax, Cs),
                      tail_cost(tot - pos, mn, f1, g1, jmax, Cs))
    return np.maximum(b + tail, opt_scaled + deficit + np.maximum(0.0, Cs - np.maximum(g0, g1)))


@njit(cache=True)
def gain_figures(pos, tot, mnr, fig, arg):
    """What one antecedent ``m`` fixes within the samples U a prefix leaves uncaptured,
    ``pos/tot/mnr[m]`` being its positives, samples and equivalent-points minority in U (0 for
    the prefix's own antecedents, which capture nothing in U and so are never a best), for a
    default 0 and 1: group by group (``g0 = pos - min``, ``g1 = neg - min``, for any part of its
    capture) and net (``n0 = pos - neg``, ``n1 = neg - pos``, for all of it), at least 0.
    ``fig`` gets the best and the second best of each, ``[g0, g0', g1, g1', n0, n0', n1, n1']``,
    ``arg`` the antecedent of each best.  Used by the CORELS search and the Rashomon
    enumeration alike."""
    g0 = g0s = g1 = g1s = n0 = n0s = n1 = n1s = 0.0
    ag0 = ag1 = an0 = an1 = np.int64(-1)
    for m in range(pos.shape[0]):
        p = pos[m]
        n = tot[m] - p
        mn = mnr[m]
        x = p - mn
        if x > g0:
            g0s, g0, ag0 = g0, x, m
        elif x > g0s:
            g0s = x
        x = n - mn
        if x > g1:
            g1s, g1, ag1 = g1, x, m
        elif x > g1s:
            g1s = x
        x = p - n
        if x > n0:
            n0s, n0, an0 = n0, x, m
        elif x > n0s:
            n0s = x
        if -x > n1:
            n1s, n1, an1 = n1, -x, m
        elif -x > n1s:
            n1s = -x
    fig[0], fig[1], fig[2], fig[3] = g0, g0s, g1, g1s
    fig[4], fig[5], fig[6], fig[7] = n0, n0s, n1, n1s
    arg[0], arg[1], arg[2], arg[3] = ag0, ag1, an0, an1


@njit(cache=True, inline="always")
def child_figures(fig, arg, j, pv, nv, mv):
    """``(c0, c1, e0, e1)``: what any antecedent fixes after the child ``p + j`` (``j`` captures
    ``pv`` positives, ``nv`` negatives and ``mv`` minority of the parent's U), from the
    parent's :func:`gain_figures`, for a default 0 and 1: group by group at most what it did
    before (the best over ``m != j``), and net at most its net figure before plus what ``j``
    takes that it would get wrong (``j``'s group-by-group figure for the other default)."""
    c0 = fig[1] if j == arg[0] else fig[0]
    c1 = fig[3] if j == arg[1] else fig[2]
    e0 = min(c0, max(0.0, (fig[5] if j == arg[2] else fig[4]) + (nv - mv)))
    e1 = min(c1, max(0.0, (fig[7] if j == arg[3] else fig[6]) + (pv - mv)))
    return c0, c1, e0, e1


@njit(cache=True)
def gain_bound(b, pu, nu, mn, fig, jmax, C):
    """The gain bound on every strict extension (``1 <= j <= jmax`` more rules) of a prefix with
    scaled bound ``b`` that leaves ``pu`` positives, ``nu`` negatives and ``mn`` minority (0
    without that bound) uncaptured, from its exact :func:`gain_figures` (the first rule
    appended fixes at most the net figure, every later one at most the group-by-group one)."""
    return extension_bound(b, 0.0, pu, pu + nu, mn, fig[0], fig[2], min(fig[4], fig[0]),
                           min(fig[6], fig[2]), jmax, C, -np.inf)


@njit(cache=True)
def child_gain_bound(b, pu, nu, mn, pv, nv, mv, j, fig, arg, jmax, C):
    """The gain bound on every strict extension of the child ``p + j`` (scaled bound ``b``;
    ``j`` captures ``pv`` positives, ``nv`` negatives and ``mv`` minority of the parent's
    uncaptured ``pu``, ``nu``; the child leaves ``mn`` minority, 0 without that bound)
    from the parent's :func:`gain_figures` through :func:`child_figures` (module doc of
    :mod:`rulecert.search.corels.rashomon`, bullet "gain bound")."""
    c0, c1, e0, e1 = child_figures(fig, arg, j, pv, nv, mv)
    return extension_bound(b, 0.0, pu - pv, pu + nu - pv - nv, mn, c0, c1, e0, e1, jmax, C,
                           -np.inf)


@njit(cache=True, inline="always")
def gain_stored_eq(bound, b, C):
    """The whole samples ``e`` stored for a node whose strict extensions cost at least ``bound``,
    so that ``b + e + C <= bound`` (within TOL): its lower bound ``b + e`` (``_lb``) stays at most
    its own objective, and ``b + e + C`` still bounds its strict extensions."""
    return np.int64(math.floor(bound - b - C + TOL))


# ---- constants ----------------------------------------------------------------------------
DELETED = np.uint8(1)

# policies
BFS, DFS, LOWER_BOUND, OBJECTIVE, CURIOSITY = 0, 1, 2, 3, 4
POLICY_CODES = {"bfs": BFS, "dfs": DFS, "lower_bound": LOWER_BOUND, "objective": OBJECTIVE,
                "curiosity": CURIOSITY}

# params (int64 array)
P_HIER, P_LOOK, P_SUPP, P_ACC, P_EQ, P_PERM, P_PLEN, P_POLICY, P_MAXLEN, P_N = range(10)
N_PARAMS = 10

# integer state (int64 array)
(S_NODES, S_HEAP, S_MAP, S_INC_LEN, S_INC_M, S_INC_K, S_KMAX, S_EXPANDED, S_POPS, S_MAX_HEAP,
 S_TRIE_INS, S_MAP_NEW, S_MAP_REPL, S_MAP_REJ, S_PR_SUPP, S_PR_ACC, S_PR_HIER, S_PR_LB,
 S_PR_PLEN, S_PR_MAXLEN, S_SKIP_DEAD, S_SKIP_BOUND, S_IMPROVED, S_CHILDREN, S_MAX_DEPTH,
 S_PR_GAIN, S_CLOSED_GAIN) = range(27)
N_STATE = 27
STATE_NAMES = ["nodes", "heap", "map_entries", "inc_len", "inc_mistakes", "inc_rules", "k_max",
               "nodes_expanded", "queue_pops", "max_queue_size", "trie_insertions",
               "map_insertions_new", "map_replacements", "map_rejections", "pruned_support",
               "pruned_accurate_support", "pruned_hierarchical", "pruned_lookahead_or_equivalent",
               "pruned_prefix_length", "pruned_max_length", "popped_dead", "popped_bound",
               "incumbent_updates", "children_evaluated", "max_depth_expanded", "pruned_gain",
               "expansions_closed_by_gain"]

# return codes of search_chunk
RC_BUDGET, RC_EMPTY, RC_GROW, RC_IMPROVED = 0, 1, 2, 3

_U8 = np.uint64(8)
_U16 = np.uint64(16)
_U24 = np.uint64(24)
_U32 = np.uint64(32)
_U40 = np.uint64(40)
_U48 = np.uint64(48)
_U56 = np.uint64(56)
_UFF = np.uint64(255)
_LOW32 = np.uint64(0xFFFFFFFF)
_F21 = np.int64(FIELD_BITS)
_F42 = np.int64(2 * FIELD_BITS)
_FMASK = np.int64(FIELD_MASK)


# ---- counting -----------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _sums(u, capg, j, tables, upos, umin, Wh, W, has_umin):
    """(pos, neg, minority) of the columns set in ``u & capg[j]`` (``j < 0``: in ``u``)."""
    acc = np.int64(0)
    for w in range(Wh):
        x = u[w] if j < 0 else (u[w] & capg[j, w])
        if x != 0:
            t = w * 8
            acc += (tables[t, x & _UFF] + tables[t + 1, (x >> _U8) & _UFF]
                    + tables[t + 2, (x >> _U16) & _UFF] + tables[t + 3, (x >> _U24) & _UFF]
                    + tables[t + 4, (x >> _U32) & _UFF] + tables[t + 5, (x >> _U40) & _UFF]
                    + tables[t + 6, (x >> _U48) & _UFF] + tables[t + 7, x >> _U56])
    tot = np.int64(0)
    pos = np.int64(0)
    mn = np.int64(0)
    for w in range(Wh, W):
        x = u[w] if j < 0 else (u[w] & capg[j, w])
        if x != 0:
            tot += popcount64(x)
            pos += popcount64(x & upos[w])
            if has_umin:
                mn += popcount64(x & umin[w])
    p = (acc & _FMASK) + pos
    n = ((acc >> _F21) & _FMASK) + tot - pos
    m = (acc >> _F42) + mn
    return p, n, m


@njit(cache=True)
def child_counts(capg, tables, upos, umin, allcols, Wh, has_umin, prefix):
    """Counts of every child of ``prefix`` (for tests against the numpy reference)."""
    M, W = capg.shape
    u = allcols.copy()
    for k in range(prefix.shape[0]):
        a = prefix[k]
        for w in range(W):
            u[w] &= ~capg[a, w]
    pos = np.zeros(M, dtype=np.int64)
    neg = np.zeros(M, dtype=np.int64)
    mnr = np.zeros(M, dtype=np.int64)
    for j in range(M):
        p, n, m = _sums(u, capg, j, tables, upos, umin, Wh, W, has_umin)
        pos[j] = p
        neg[j] = n
        mnr[j] = m
    pu, nu, mu = _sums(u, capg, -1, tables, upos, umin, Wh, W, has_umin)
    return pos, neg, mnr, pu, nu, mu


# ---- heap ---------------------------------------------------------------------------------
@intrinsic
def _f32_bits(typingctx, x):
    sig = types.uint32(types.float32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return sig, codegen


_SIGN32 = np.uint32(0x80000000)
_ID_MAX = np.uint64(0x7FFFFFFF)


@njit(cache=True, inline="always")
def heap_entry(key, nid, lifo):
    """One uint64 that orders like (key, node id) -- (key, -node id) when ``lifo``: the key
    rounded to float32 in its order-preserving bit pattern, then the id.  The key only orders
    the search; every bound is read from the node arrays."""
    b = _f32_bits(np.float32(key))
    b = ~b if b & _SIGN32 else b | _SIGN32
    low = (_ID_MAX - np.uint64(nid)) if lifo else np.uint64(nid)
    return (np.uint64(b) << _U32) | low


@njit(cache=True, inline="always")
def heap_id(e, lifo):
    """The node id of a heap entry."""
    low = e & _LOW32
    return np.int64(_ID_MAX - low) if lifo else np.int64(low)


@njit(cache=True)
def heap_push(heap, size, e):
    i = size
    while i > 0:
        par = (i - 1) >> 1
        if e < heap[par]:
            heap[i] = heap[par]
            i = par
        else:
            break
    heap[i] = e
    return size + 1


@njit(cache=True)
def _sift_down(heap, size, i):
    e = heap[i]
    while True:
        l = 2 * i + 1
        if l >= size:
            break
        c = l
        if l + 1 < size and heap[l + 1] < heap[l]:
            c = l + 1
        if heap[c] < e:
            heap[i] = heap[c]
            i = c
        else:
            break
    heap[i] = e


@njit(cache=True)
def heap_pop(heap, size):
    """Remove the top; returns (entry, new size)."""
    top = heap[0]
    size -= 1
    if size > 0:
        heap[0] = heap[size]
        _sift_down(heap, size, 0)
    return top, size


@njit(cache=True)
def heapify(heap, size):
    for i in range((size >> 1) - 1, -1, -1):
        _sift_down(heap, size, i)


# ---- trie / map helpers -----------------------------------------------------------------------
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_HASH0 = np.uint64(0x5EED_C0DE_0123_4567)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)


@njit(cache=True, inline="always")
def _mix(h):
    """splitmix64's finalizer (a bijection of uint64 that spreads every bit)."""
    h = (h ^ (h >> _U30)) * _MIX1
    h = (h ^ (h >> _U27)) * _MIX2
    return h ^ (h >> _U31)


@njit(cache=True, inline="always")
def _captured_hash(u, capg, j, W):
    """Hash of the samples (columns) left uncaptured by the prefix of ``u`` followed by ``j``."""
    h = _HASH0
    for w in range(W):
        h = _mix(h ^ (u[w] & ~capg[j, w]))
    return h


@njit(cache=True, inline="always")
def _same_captured(node, u, capg, j, allcols, n_parent, n_ant, n_depth, v, W):
    """Does the prefix of ``node`` leave exactly the samples that ``u`` minus ``j`` leaves?"""
    for w in range(W):
        v[w] = allcols[w]
    x = node
    for _ in range(n_depth[node]):
        a = n_ant[x]
        for w in range(W):
            v[w] &= ~capg[a, w]
        x = n_parent[x]
    for w in range(W):
        if v[w] != (u[w] & ~capg[j, w]):
            return False
    return True


@njit(cache=True, inline="always")
def _map_shift(mcap):
    """Right shift of a 32-bit hash prefix that leaves its home slot in a table of ``mcap``
    (a power of two, at most 2**32) slots."""
    k = 0
    while (1 << k) < mcap:
        k += 1
    return np.uint64(32 - k)


@njit(cache=True)
def map_rehash(mslot, new_slot):
    """Move every map entry into the larger table ``new_slot`` (zeroed)."""
    mask = np.uint64(new_slot.shape[0] - 1)
    shift = _map_shift(new_slot.shape[0])
    for s in range(mslot.shape[0]):
        e = mslot[s]
        if e != 0:
            slot = (e >> _U32) >> shift
            while new_slot[slot] != 0:
                slot = (slot + np.uint64(1)) & mask
            new_slot[slot] = e


@njit(cache=True, inline="always")
def _priority(policy, depth, lb, b, obj, ncap):
    if policy == 0:
        return float(depth)
    if policy == 1:
        return -float(depth)
    if policy == 2:
        return lb
    if policy == 3:
        return obj
    # curiosity (JMLR section 5.6): b(d_p) / supp(d_p), scaled by 1/N (order unchanged)
    if ncap <= 0:
        return np.inf
    return b / ncap


# ---- the branch-and-bound loop ----------------------------------------------------------------
@njit(cache=True)
def search_chunk(capg, tables, upos, umin, allcols, Wh, has_umin, C, params,
                 n_parent, n_ant, n_depth, n_flags, n_m, n_eq,
                 heap, mslot, ist, fst, inc_prefix,
                 max_expansions, max_pops, path, inmask, u, v):
    """Pop and expand queue nodes (JMLR Algorithms 5 and 6) until a budget, an empty queue,
    an incumbent improvement (returned after the expansion that found it) or a capacity need."""
    M, W = capg.shape
    hier = params[P_HIER] != 0
    look = params[P_LOOK] != 0
    supp = params[P_SUPP] != 0
    acc = params[P_ACC] != 0
    eq = params[P_EQ] != 0
    perm = params[P_PERM] != 0
    plen = params[P_PLEN] != 0
    policy = params[P_POLICY]
    max_len = params[P_MAXLEN]
    N = params[P_N]
    lifo = policy == DFS
    use_lb = hier or eq or look
    node_cap = n_parent.shape[0]
    heap_cap = heap.shape[0]
    mcap = mslot.shape[0]
    mmask = np.uint64(mcap - 1)
    mshift = _map_shift(mcap)
    # the children's counts (evaluated before any is queued) and their gain figures
    cpos = np.zeros(M, np.int64)
    ctot = np.zeros(M, np.int64)
    cmin = np.zeros(M, np.int64)
    fig = np.zeros(8, np.float64)
    arg = np.zeros(4, np.int64)
    expanded = 0
    pops = 0
    while True:
        if ist[S_HEAP] == 0:
            return RC_EMPTY
        if expanded >= max_expansions or pops >= max_pops:
            return RC_BUDGET
        if (ist[S_NODES] + M > node_cap or ist[S_HEAP] + M > heap_cap
                or (perm and 4 * (ist[S_MAP] + M) > 3 * mcap)):
            return RC_GROW
        top, hs = heap_pop(heap, ist[S_HEAP])
        nd = heap_id(top, lifo)
        ist[S_HEAP] = hs
        pops += 1
        ist[S_POPS] += 1
        R = fst[0]
        d = np.int64(n_depth[nd])
        # walk the path (lazy deletion: a dead ancestor kills the node)
        dead = False
        x = nd
        for k in range(d - 1, -1, -1):
            if n_flags[x] & DELETED:
                dead = True
                break
            path[k] = n_ant[x]
            x = n_parent[x]
        if dead or (n_flags[x] & DELETED):
            ist[S_SKIP_DEAD] += 1
            continue
        if use_lb and _node_prunes(_lb(n_m, n_depth, n_eq, nd, C), C, R, look):
            ist[S_SKIP_BOUND] += 1
            continue
        if plen and d + 1 > ist[S_KMAX]:
            ist[S_SKIP_BOUND] += 1
            continue
        # ---- expand: evaluate every child (Algorithm 5) ----
        expanded += 1
        ist[S_EXPANDED] += 1
        if d > ist[S_MAX_DEPTH]:
            ist[S_MAX_DEPTH] = d
        for w in range(W):
            u[w] = allcols[w]
        for k in range(d):
            a = path[k]
            inmask[a] = True
            for w in range(W):
                u[w] &= ~capg[a, w]
        pu, nu, mu = _sums(u, capg, -1, tables, upos, umin, Wh, W, has_umin)
        m_par = np.int64(n_m[nd])
        K1 = d + 1
        improved = False
        for j in range(M):
            if inmask[j]:       # captures nothing in u
                cpos[j] = ctot[j] = cmin[j] = 0
            else:
                ist[S_CHILDREN] += 1
                pv, nv, cmin[j] = _sums(u, capg, j, tables, upos, umin, Wh, W, has_umin)
                cpos[j] = pv
                ctot[j] = pv + nv
        # the gain bound: with the exact counts, on every strict extension of the node (all its
        # children at once); the longest tail is capped by max_length and Theorem 4
        L = max_len
        if plen and ist[S_KMAX] < L:
            L = ist[S_KMAX]
        if look:
            gain_figures(cpos, ctot, cmin, fig, arg)
            if (K1 <= L and gain_bound(m_par + C * d, pu, nu, mu if eq else 0, fig, L - d, C)
                    >= R - TOL):
                ist[S_CLOSED_GAIN] += 1
                for k in range(d):
                    inmask[path[k]] = False
                continue
        for j in range(M):
            if inmask[j]:
                continue
            pv = cpos[j]
            nv = ctot[j] - pv
            mv = cmin[j]
            ncap = pv + nv
            if supp and support_prunes(ncap, C):
                ist[S_PR_SUPP] += 1
                continue
            correct = rule_correct(pv, nv)
            if acc and accurate_support_prunes(correct, C):
                ist[S_PR_ACC] += 1
                continue
            m_ch = m_par + ncap - correct
            b = m_ch + C * K1
            if use_lb and subtree_prunes(b, R):
                ist[S_PR_HIER] += 1
                continue
            pf = pu - pv
            nf = nu - nv
            dm = default_mistakes(pf, nf)
            obj = b + dm
            if obj < R - TOL:
                R = obj
                fst[0] = R
                ist[S_INC_M] = m_ch + dm
                ist[S_INC_K] = K1
                ist[S_INC_LEN] = K1
                for k in range(d):
                    inc_prefix[k] = path[k]
                inc_prefix[d] = j
                ist[S_KMAX] = max_prefix_length(R, C, M)
                ist[S_IMPROVED] += 1
                improved = True
            if K1 >= max_len:
                ist[S_PR_MAXLEN] += 1
                continue
            lbn_eq = (mu - mv) if eq else 0
            lbn = b + lbn_eq
            if use_lb and _node_prunes(lbn, C, R, look):
                ist[S_PR_LB] += 1
                continue
            if plen and prefix_length_prunes_children(K1, b, R, C, ist[S_KMAX]):
                ist[S_PR_PLEN] += 1
                continue
            if look:   # the gain bound from the parent's counts; stored in whole samples
                L = max_len
                if plen and ist[S_KMAX] < L:
                    L = ist[S_KMAX]
                gb = child_gain_bound(b, pu, nu, (mu - mv) if eq else 0, pv, nv, mv, j, fig, arg,
                                      L - K1, C)
                if gb >= R - TOL:
                    ist[S_PR_GAIN] += 1
                    continue
                e = gain_stored_eq(gb, b, C)
                if e > lbn_eq:
                    lbn_eq = e
                    lbn = b + lbn_eq
            # ---- symmetry-aware map (Algorithm 6), keyed on the captured samples ----
            slot = np.uint64(0)
            mapped = perm
            if perm:
                top = _captured_hash(u, capg, j, W) >> _U32
                slot = top >> mshift
                old = np.int64(-1)
                while True:
                    e = mslot[slot]
                    if e == 0:
                        break
                    if (e >> _U32) == top:
                        x = np.int64(e & _LOW32) - 1
                        if _same_captured(x, u, capg, j, allcols, n_parent, n_ant, n_depth, v, W):
                            old = x
                            break
                    slot = (slot + np.uint64(1)) & mmask
                if old >= 0:
                    verdict = equivalent_support_verdict(m_ch, K1, n_m[old], n_depth[old], C,
                                                         max_len >= M)
                    if verdict > 0:
                        ist[S_MAP_REJ] += 1
                        continue
                    if verdict < 0:
                        n_flags[old] |= DELETED
                        ist[S_MAP_REPL] += 1
                    else:   # lengths and bounds disagree under max_length: keep both
                        mapped = False
                else:
                    ist[S_MAP] += 1
                    ist[S_MAP_NEW] += 1
            # ---- insert into trie and queue ----
            nid = ist[S_NODES]
            ist[S_NODES] = nid + 1
            ist[S_TRIE_INS] += 1
            n_parent[nid] = nd
            n_ant[nid] = j
            n_depth[nid] = K1
            n_flags[nid] = 0
            n_m[nid] = m_ch
            n_eq[nid] = lbn_eq
            if mapped:
                mslot[slot] = (top << _U32) | np.uint64(nid + 1)
            key = _priority(policy, K1, lbn, b, obj, N - pf - nf)
            ist[S_HEAP] = heap_push(heap, ist[S_HEAP], heap_entry(key, nid, lifo))
            if ist[S_HEAP] > ist[S_MAX_HEAP]:
                ist[S_MAX_HEAP] = ist[S_HEAP]
        for k in range(d):
            inmask[path[k]] = False
        if improved:
            return RC_IMPROVED


# ---- garbage collection and queue scans --------------------------------------------------------
@njit(cache=True)
def _mark_dead(n_parent, n_flags, n_m, n_depth, n_eq, nn, dead, R, C, look, use_lb, gc_mark):
    """dead[i] = node i or an ancestor is deleted; with ``gc_mark`` also delete (flag) every node
    whose bound shows its strict extensions cannot beat R (JMLR section 5.5). Returns #marked."""
    marked = 0
    for i in range(nn):
        p = n_parent[i]
        dd = (n_flags[i] & DELETED) != 0
        if not dd and p >= 0 and dead[p]:
            dd = True
        if not dd and gc_mark and use_lb and _node_prunes(_lb(n_m, n_depth, n_eq, i, C), C, R, look):
            n_flags[i] |= DELETED
            marked += 1
            dd = True
        dead[i] = dd
    return marked


@njit(cache=True)
def gc_pass(n_parent, n_flags, n_m, n_depth, n_eq, nn, heap, hsize, R, C, look, use_lb, plen,
            k_max, lifo, dead):
    """Delete nodes that can no longer beat the incumbent and drop dead queue entries.

    Returns (new heap size, nodes newly marked deleted)."""
    marked = _mark_dead(n_parent, n_flags, n_m, n_depth, n_eq, nn, dead, R, C, look, use_lb, True)
    k = 0
    for i in range(hsize):
        nid = heap_id(heap[i], lifo)
        if dead[nid]:
            continue
        if plen and n_depth[nid] + 1 > k_max:
            continue
        heap[k] = heap[i]
        k += 1
    heapify(heap, k)
    return k, marked


@njit(cache=True)
def queue_scan(n_parent, n_flags, n_m, n_depth, n_eq, nn, heap, hsize, lifo, C, k_max, dead,
               by_depth):
    """Live queue entries: their count by prefix length (into ``by_depth``) and the minimum of
    ``lb + C`` (Lemma 2 with Theorem 20: every strict extension of a queued prefix has at least
    this scaled objective; the prefix itself was evaluated when it was created).  Entries whose
    extensions are longer than ``k_max`` (Theorem 4) cannot beat the incumbent and are skipped.

    Returns (minimum bound or +inf, number of live entries)."""
    _mark_dead(n_parent, n_flags, n_m, n_depth, n_eq, nn, dead, 0.0, C, False, False, False)
    for k in range(by_depth.shape[0]):
        by_depth[k] = 0
    best = np.inf
    live = 0
    for i in range(hsize):
        nid = heap_id(heap[i], lifo)
        if dead[nid]:
            continue
        live += 1
        dep = n_depth[nid]
        if dep < by_depth.shape[0]:
            by_depth[dep] += 1
        if dep + 1 > k_max:
            continue
        v = _lb(n_m, n_depth, n_eq, nid, C) + C
        if v < best:
            best = v
    return best, live


@njit(cache=True)
def root_push(heap, key, lifo):
    return heap_push(heap, 0, heap_entry(key, 0, lifo))
