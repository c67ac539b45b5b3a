"""The depth-first Rashomon enumeration compiled with numba (the default ``policy="dfs"``).

Same bounds and the same arithmetic as :class:`rulecert.search.corels.rashomon._Enumeration`
(the readable reference used by the ``"bfs"`` and ``"lower_bound"`` policies), over groups of
identical samples, with the search state in preallocated arrays indexed by depth so that a run
can stop after a budget of expansions (for the time limit) and resume.  ``tests/test_rashomon.py``
checks that every policy returns the same lists after expanding the same number of prefixes.
:func:`~.kernel.extension_bound` (defined in :mod:`.kernel`, where the CORELS search uses it too)
serves both (the reference calls it on arrays).
"""
from __future__ import annotations

import numba
import numpy as np

# numba's on-disk cache checks only this file: change it too when extension_bound changes
from .kernel import extension_bound

RC_DONE, RC_BUDGET, RC_FULL, RC_MODELS = 0, 1, 2, 3


@numba.njit(cache=True)
def _first_gain(counts, d, a, w0, w1):
    """The most the first rule after antecedent ``a`` fixes within U[d] minus what ``a``
    takes, for a default 0 and 1: over the antecedents ``m`` other than ``a``,
    ``min(g_m, n_m + w)`` (``w``: what ``a`` takes that is wrong for that default), at least 0
    (module doc of :mod:`.rashomon`; the prefix's antecedents count 0)."""
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
def _expand(d, A, stats, U, left, counts, prefix, b, mk, deficit, ch_ants, ch_b, ch_mk, ch_def,
            ch_deep, nch, nxt, Cs, T, opt_scaled, L, min_capture, c, N, thr_incl,
            out_prefix, out_len, out_obj, nout):
    """Children of the prefix at depth ``d``: record those within the threshold, keep those
    an extension could keep.  ``counts[d]`` holds what each antecedent captures within U[d]."""
    nch[d] = 0
    nxt[d] = 0
    K = d
    if K >= L:
        return
    M = A.shape[0]
    l0 = left[d, 0]
    l1 = left[d, 1]
    l2 = left[d, 2]
    # what one antecedent fixes within U[d] for a default 0 / 1: group by group (any part of
    # its capture, g) and net (its whole capture, n); the best two of each (a child's own
    # antecedent captures nothing after it; those of the prefix capture nothing, so 0)
    g0 = g0s = g1 = g1s = n0 = n0s = n1 = n1s = 0.0
    ag0 = ag1 = an0 = an1 = -1
    for m in range(M):
        x = counts[d, m, 0] - counts[d, m, 2]
        if x > g0:
            g0s, g0, ag0 = g0, x, m
        elif x > g0s:
            g0s = x
        x = counts[d, m, 1] - counts[d, m, 0] - counts[d, m, 2]
        if x > g1:
            g1s, g1, ag1 = g1, x, m
        elif x > g1s:
            g1s = x
        x = 2.0 * counts[d, m, 0] - counts[d, m, 1]
        if x > n0:
            n0s, n0, an0 = n0, x, m
        elif x > n0s:
            n0s = x
        if -x > n1:
            n1s, n1, an1 = n1, -x, m
        elif -x > n1s:
            n1s = -x
    if extension_bound(b[d], deficit[d], l0, l1, l2, g0, g1, min(n0, g0), min(n1, g1),
                       L - K, Cs, opt_scaled) > T:
        return
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
        defc = deficit[d] + max(0.0, Cs - (tot - mist) + mn)
        sup = opt_scaled + defc
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
            # what an antecedent fixes after the child's: at most its group-by-group figure
            # now, and at most its net figure now plus what the child's antecedent takes that
            # is wrong for that default (w0, w1)
            c0 = g0s if m == ag0 else g0
            c1 = g1s if m == ag1 else g1
            w0 = tot - pos - mn         # what m takes that is wrong for a default 0 (and 1)
            w1 = pos - mn
            e0 = min(c0, max(0.0, (n0s if m == an0 else n0) + w0))
            e1 = min(c1, max(0.0, (n1s if m == an1 else n1) + w1))
            deep = extension_bound(bch, defc, pos_left, tot_left, l2 - mn, c0, c1, e0, e1,
                                   L - K - 1, Cs, opt_scaled)
            if deep <= T:   # the same, antecedent by antecedent
                e0, e1 = _first_gain(counts, d, m, w0, w1)
                deep = extension_bound(bch, defc, pos_left, tot_left, l2 - mn, c0, c1,
                                       min(c0, e0), min(c1, e1), L - K - 1, Cs, opt_scaled)
            if deep <= T:
                j = nch[d]
                ch_ants[d, j] = m
                ch_b[d, j] = bch
                ch_mk[d, j] = mk[d] + mist
                ch_def[d, j] = defc
                ch_deep[d, j] = deep
                nch[d] = j + 1


@numba.njit(cache=True)
def dfs(A, capt, grp_ptr, grp_ants, stats, U, left, counts, prefix, b, mk, deficit, ch_ants,
        ch_b, ch_mk, ch_def, ch_deep, nch, nxt, state, Cs, T, opt_scaled, L, min_capture, c, N,
        thr_incl, out_prefix, out_len, out_obj, nout, budget, max_models):
    """Run the depth-first search from ``state = [depth, expansions]`` for ``budget`` more
    expansions (``grp_ants[grp_ptr[g]:grp_ptr[g + 1]]``: the antecedents that capture group
    ``g``; ``left[d]``: positives, samples and minority U[d] holds).  Returns RC_DONE
    (finished), RC_BUDGET, RC_MODELS (``max_models`` lists held; -1: no cap) or RC_FULL (the output arrays need room for one more expansion's lists; the
    caller grows them and calls again)."""
    M, G = A.shape
    cap = out_obj.shape[0]
    depth = state[0]
    if state[1] == 0:           # the root
        _expand(0, A, stats, U, left, counts, prefix, b, mk, deficit, ch_ants, ch_b, ch_mk, ch_def,
                ch_deep, nch, nxt, Cs, T, opt_scaled, L, min_capture, c, N, thr_incl,
                out_prefix, out_len, out_obj, nout)
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
                out_prefix, out_len, out_obj, nout)
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
