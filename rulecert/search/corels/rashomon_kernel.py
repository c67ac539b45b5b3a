"""The depth-first Rashomon enumeration compiled with numba (the default ``policy="dfs"``).

Same bounds and the same arithmetic as :class:`rulecert.search.corels.rashomon._Enumeration`
(the readable reference used by the ``"bfs"`` and ``"lower_bound"`` policies), over groups of
identical samples, with the search state in preallocated arrays indexed by depth so that a run
can stop after a budget of expansions (for the time limit) and resume; plus the memo
(module doc of :mod:`rulecert.search.corels.rashomon`, :func:`dfs`), which only the
depth-first search has.
``tests/test_rashomon.py`` checks that every policy returns the same lists, after expanding the
same number of prefixes when the memo is off.
:func:`~.kernel.extension_bound` and :func:`~.kernel.tail_cost` (defined in :mod:`.kernel`,
where the CORELS search uses them too) serve both (the reference calls them on arrays).
"""
from __future__ import annotations

import numba
import numpy as np

# numba's on-disk cache checks only this file: change it too when the kernel's functions change
from .kernel import child_figures, gain_figures, tail_cost

RC_DONE, RC_BUDGET, RC_FULL, RC_MODELS = 0, 1, 2, 3


@numba.njit(cache=True)
def _first_gain(counts, d, a, w0, w1):
    """The most the first rule after antecedent ``a`` fixes within U[d] minus what ``a``
    takes, for a default 0 and 1: over the antecedents ``m`` other than ``a``,
    ``min(g_m, n_m + w)`` (``w``: what ``a`` takes that is wrong for that default), at least 0
    (module doc of :mod:`rulecert.search.corels.rashomon`; the prefix's antecedents count 0)."""
    e0 = 0.0
    e1 = 0.0
    for m in range(counts.shape[1]):
        if m == a:
            continue
        pos = counts[d, m, 0]
        tot = counts[d, m, 1]
        mn = counts[d, m, 2]
        e0 = max(e0, min(pos - mn, 2.0 * pos - tot + w0))
        e1 = max(e1, min(tot - pos - mn, tot - 2.0 * pos + w1))
    return e0, e1


@numba.njit(cache=True)
def _bound_parts(pos, tot, mn, g0, g1, f0, f1, jmax, Cs):
    """The two parts of :func:`extension_bound` that do not depend on the prefix's order:
    the least objective increment of a strict extension (scaled; added to ``b``) and the
    least deficit increment (added to ``deficit``): ``extension_bound`` is
    ``max(b + tail, opt_scaled + deficit + dd)``."""
    tail = min(tail_cost(pos, mn, f0, g0, jmax, Cs), tail_cost(tot - pos, mn, f1, g1, jmax, Cs))
    return tail, max(0.0, Cs - max(g0, g1))


@numba.njit(cache=True)
def _memo_slot(mrow, d, words):
    """The slot of the memo table ``mrow`` (rows ``[depth, U's words...]``, a power-of-two
    number of them) that holds the prefixes of ``d`` rules leaving ``words`` uncaptured, or
    ``-(a free or evictable slot) - 1`` when none does.  Four slots are probed; a row matches
    only when its depth and every word are equal (a collision of the hash is never a hit)."""
    h = np.uint64(d) * np.uint64(0x9E3779B97F4A7C15)
    for w in range(words.shape[0]):
        h = (h ^ words[w]) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    ways = min(4, mrow.shape[0])
    i0 = np.int64(h & np.uint64(mrow.shape[0] - ways))
    free = -1
    for i in range(i0, i0 + ways):
        if mrow[i, 0] == np.uint64(d):
            same = True
            for w in range(words.shape[0]):
                if mrow[i, w + 1] != words[w]:
                    same = False
                    break
            if same:
                return i
        if free < 0 and mrow[i, 0] == np.uint64(0):
            free = i
    return -(i0 if free < 0 else free) - 1


@numba.njit(cache=True)
def _memo_store(mrow, mval, d, words, tail, dd):
    """Keep (tail, dd) for the prefixes of ``d`` rules leaving ``words`` uncaptured (the
    larger of two valid bounds when the row is already there; evicts when the slots are
    taken: the table is a cache)."""
    i = _memo_slot(mrow, d, words)
    if i >= 0:
        mval[i, 0] = max(mval[i, 0], tail)
        mval[i, 1] = max(mval[i, 1], dd)
        return
    i = -i - 1
    mrow[i, 0] = np.uint64(d)
    for w in range(words.shape[0]):
        mrow[i, w + 1] = words[w]
    mval[i, 0] = tail
    mval[i, 1] = dd


@numba.njit(cache=True)
def _expand(d, A, stats, U, left, counts, prefix, b, mk, deficit, ch_ants, ch_b, ch_mk, ch_def,
            ch_deep, nch, nxt, Cs, T, opt_scaled, L, min_capture, c, N, thr_incl,
            out_prefix, out_len, out_obj, nout, Uw, captw, mrow, mval, tw, mres, fig, arg):
    """Children of the prefix at depth ``d``: record those within the threshold, keep those
    an extension could keep.  ``counts[d]`` holds what each antecedent captures within U[d].

    ``mres`` receives what the expansion found that depends only on U[d] and ``d`` (the
    memo, :func:`dfs`): the least objective increment (scaled, over ``b[d]``) and the least
    deficit increment (over ``deficit[d]``) of every list that strictly extends the prefix
    and could be within the threshold; a child whose U and depth are in the table
    (``mrow``/``mval``, none when ``mrow`` has one row) gets those bounds instead of
    recounting."""
    nch[d] = 0
    nxt[d] = 0
    mres[0] = np.inf
    mres[1] = np.inf
    K = d
    if K >= L:
        return
    M = A.shape[0]
    memo = mrow.shape[0] > 1
    l0 = left[d, 0]
    l1 = left[d, 1]
    l2 = left[d, 2]
    # what one antecedent fixes within U[d] for a default 0 / 1, the best two of each (a
    # child's own antecedent captures nothing after it; those of the prefix capture nothing)
    gain_figures(counts[d, :, 0], counts[d, :, 1], counts[d, :, 2], fig, arg)
    g0, g1, n0, n1 = fig[0], fig[2], fig[4], fig[6]
    tail, dd = _bound_parts(l0, l1, l2, g0, g1, min(n0, g0), min(n1, g1), L - K, Cs)
    mres[0] = tail
    mres[1] = dd
    if max(b[d] + tail, opt_scaled + deficit[d] + dd) > T:     # extension_bound
        return
    least = np.inf      # least increments over the strict extensions, child by child
    least_dd = np.inf
    for m in range(M):
        used = False
        for k in range(K):
            if prefix[k] == m:
                used = True
                break
        if used:
            continue
        pos = counts[d, m, 0]
        tot = counts[d, m, 1]
        mn = counts[d, m, 2]
        if tot < min_capture:
            continue
        mist = min(pos, tot - pos)
        bch = b[d] + Cs + mist
        pos_left = l0 - pos
        tot_left = l1 - tot
        neg_left = tot_left - pos_left
        dflt = neg_left if pos_left >= neg_left else pos_left
        own = bch + dflt
        inc_def = max(0.0, Cs - (tot - mist) + mn)
        defc = deficit[d] + inc_def
        sup = opt_scaled + defc
        least = min(least, Cs + mist + dflt)       # the child itself, then what extends it
        least_dd = min(least_dd, inc_def)
        if own <= T and sup <= T:
            objective = (mk[d] + mist + dflt) / N + c * (K + 1)
            if objective <= thr_incl:
                i = nout[0]
                for k in range(K):
                    out_prefix[i, k] = prefix[k]
                out_prefix[i, K] = m
                out_len[i] = K + 1
                out_obj[i] = objective
                nout[0] = i + 1
        if K + 1 < L:
            # what an antecedent fixes after the child's (child_figures)
            c0, c1, e0, e1 = child_figures(fig, arg, m, pos, tot - pos, mn)
            w0 = tot - pos - mn         # what m takes that is wrong for a default 0 (and 1)
            w1 = pos - mn
            t1, dd1 = _bound_parts(pos_left, tot_left, l2 - mn, c0, c1, e0, e1, L - K - 1, Cs)
            deep = max(bch + t1, opt_scaled + defc + dd1)
            if deep <= T:
                slot = -1
                if memo:    # the child's U: another ordering of its rules may have been seen
                    for w in range(tw.shape[0]):
                        tw[w] = Uw[d, w] & ~captw[m, w]
                    slot = _memo_slot(mrow, K + 1, tw)
                if slot >= 0:   # the bounds its own expansion would give, or better
                    t1 = max(t1, mval[slot, 0])
                    dd1 = max(dd1, mval[slot, 1])
                else:           # the same, antecedent by antecedent
                    e0, e1 = _first_gain(counts, d, m, w0, w1)
                    t1, dd1 = _bound_parts(pos_left, tot_left, l2 - mn, c0, c1, min(c0, e0),
                                           min(c1, e1), L - K - 1, Cs)
                deep = max(bch + t1, opt_scaled + defc + dd1)
            least = min(least, Cs + mist + t1)
            if deep <= T:
                j = nch[d]
                ch_ants[d, j] = m
                ch_b[d, j] = bch
                ch_mk[d, j] = mk[d] + mist
                ch_def[d, j] = defc
                ch_deep[d, j] = deep
                nch[d] = j + 1
    mres[0] = max(tail, least)
    mres[1] = max(dd, least_dd)


@numba.njit(cache=True)
def dfs(A, capt, grp_ptr, grp_ants, stats, U, left, counts, prefix, b, mk, deficit, ch_ants,
        ch_b, ch_mk, ch_def, ch_deep, nch, nxt, state, Cs, T, opt_scaled, L, min_capture, c, N,
        thr_incl, out_prefix, out_len, out_obj, nout, budget, max_models, Uw, captw, mrow,
        mval):
    """Run the depth-first search from ``state = [depth, expansions]`` for ``budget`` more
    expansions (``grp_ants[grp_ptr[g]:grp_ptr[g + 1]]``: the antecedents that capture group
    ``g``; ``left[d]``: positives, samples and minority U[d] holds).  Returns RC_DONE
    (finished), RC_BUDGET, RC_MODELS (``max_models`` lists held; -1: no cap) or RC_FULL (the
    output arrays need room for one more expansion's lists; the caller grows them and calls
    again).

    The memo: what happens below a prefix depends on its rules' order only through ``b`` and
    the deficit (the samples left, the antecedents allowed, their counts, hence every bound's
    increment, depend on the set of its antecedents, in fact on U and the depth only).  Each
    expansion stores its least increments (``_expand``'s ``mres``) under (depth, U as bit
    words ``Uw``) in a fixed-size table; a later ordering of the same antecedents is then cut
    by its parent, without recounting, when its own ``b`` and deficit plus them pass the
    threshold."""
    M, G = A.shape
    cap = out_obj.shape[0]
    tw = np.zeros(Uw.shape[1], dtype=np.uint64)
    mres = np.zeros(2)
    fig = np.zeros(8)
    arg = np.zeros(4, dtype=np.int64)
    memo = mrow.shape[0] > 1
    depth = state[0]
    if state[1] == 0:           # the root
        _expand(0, A, stats, U, left, counts, prefix, b, mk, deficit, ch_ants, ch_b, ch_mk, ch_def,
                ch_deep, nch, nxt, Cs, T, opt_scaled, L, min_capture, c, N, thr_incl,
                out_prefix, out_len, out_obj, nout, Uw, captw, mrow, mval, tw, mres, fig, arg)
        state[1] = 1
        depth = 0
    done = 0
    while depth >= 0:
        if nxt[depth] >= nch[depth]:
            depth -= 1
            continue
        if done >= budget:
            state[0] = depth
            return RC_BUDGET
        if max_models >= 0 and nout[0] >= max_models:
            state[0] = depth
            return RC_MODELS
        if nout[0] + M > cap:
            state[0] = depth
            return RC_FULL
        j = nxt[depth]
        nxt[depth] = j + 1
        a = ch_ants[depth, j]
        d1 = depth + 1
        for m in range(M):
            counts[d1, m, 0] = counts[depth, m, 0]
            counts[d1, m, 1] = counts[depth, m, 1]
            counts[d1, m, 2] = counts[depth, m, 2]
        left[d1, 0] = left[depth, 0] - counts[depth, a, 0]
        left[d1, 1] = left[depth, 1] - counts[depth, a, 1]
        left[d1, 2] = left[depth, 2] - counts[depth, a, 2]
        for w in range(Uw.shape[1]):
            Uw[d1, w] = Uw[depth, w] & ~captw[a, w]
        for g in range(G):
            inside = U[depth, g]
            if inside and capt[a, g]:
                U[d1, g] = False
                s0 = stats[0, g]
                s1 = stats[1, g]
                s2 = stats[2, g]
                for i in range(grp_ptr[g], grp_ptr[g + 1]):
                    m = grp_ants[i]
                    counts[d1, m, 0] -= s0
                    counts[d1, m, 1] -= s1
                    counts[d1, m, 2] -= s2
            else:
                U[d1, g] = inside
        prefix[depth] = a
        b[d1] = ch_b[depth, j]
        mk[d1] = ch_mk[depth, j]
        deficit[d1] = ch_def[depth, j]
        _expand(d1, A, stats, U, left, counts, prefix, b, mk, deficit, ch_ants, ch_b, ch_mk, ch_def,
                ch_deep, nch, nxt, Cs, T, opt_scaled, L, min_capture, c, N, thr_incl,
                out_prefix, out_len, out_obj, nout, Uw, captw, mrow, mval, tw, mres, fig, arg)
        if memo:
            _memo_store(mrow, mval, d1, Uw[d1], mres[0], mres[1])
        state[1] += 1
        done += 1
        if nch[d1] > 0:
            depth = d1
    state[0] = -1
    return RC_DONE


def open_bound(ch_deep, nch, nxt, depth: int) -> float:
    """Least bound over the children not yet expanded (``inf`` when none are left)."""
    best = np.inf
    for d in range(depth + 1):
        if nxt[d] < nch[d]:
            best = min(best, float(ch_deep[d, nxt[d]:nch[d]].min()))
    return best


def open_count(nch, nxt, depth: int) -> int:
    return int(sum(max(0, int(nch[d]) - int(nxt[d])) for d in range(depth + 1)))
