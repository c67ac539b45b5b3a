"""Local search on the restricted master IP: a better warm start for HiGHS.

The restricted IP (``master.py``) selects clause columns ``w`` to minimize

    sum_g a_g [no selected column covers g] + sum_k cost_k w_k,   sum_k c_k w_k <= C.

Only the positive groups make columns interact (a negative sample's cost is additive per
column), so with ``cnt_g`` = the number of selected columns covering group g every move's
change of objective is one matrix-vector product over the columns:

* add k:        cost_k - sum_{g in k, cnt_g = 0} a_g
* drop j:       sum_{g in j, cnt_g = 1} a_g - cost_j
* swap j -> k:  drop j, then add k with ``cnt`` updated (one product per selected j)

Best-improvement descent over these moves, then iterated local search: remove one or two
selected columns at random, refill greedily without them (at random among the three largest
gains per unit of complexity), descend again, keep the result if it is better.  Under a
time limit HiGHS often cannot improve its start on these cover-with-knapsack IPs, so the
start is what a limit-stopped fit returns.  Deterministic for a seed unless the deadline
cuts it short.
"""
from __future__ import annotations

import time

import numpy as np

from ....monitor import heartbeat

_EPS = 1e-9


class SelectionSearch:
    """Moves on 0/1 selections of the columns of a restricted master.

    ``A`` (m x P, bool): column k covers positive group g; ``a`` (P,) the false-negative cost
    of each group; ``costs`` (m,) the additive column costs; ``cpx`` (m,) the complexities;
    ``budget`` the complexity bound (``inf``: none)."""

    def __init__(self, A: np.ndarray, a: np.ndarray, costs: np.ndarray, cpx: np.ndarray,
                 budget: float):
        self.A = np.asarray(A, dtype=bool)
        self.Af = self.A.astype(float)
        self.a = np.asarray(a, dtype=float)
        self.costs = np.asarray(costs, dtype=float)
        self.cpx = np.asarray(cpx, dtype=float)
        self.budget = float(budget) + 1e-9

    def objective(self, sel: np.ndarray) -> float:
        covered = self.A[sel].any(axis=0)
        return float(self.a[~covered].sum() + self.costs[sel].sum())

    def _gains_add(self, cnt, extra_uncovered=None):
        """Decrease of the objective when adding each column (negative: it gets worse)."""
        unc = cnt == 0 if extra_uncovered is None else (cnt == 0) | extra_uncovered
        return self.Af @ (self.a * unc) - self.costs

    def descend(self, sel: np.ndarray, deadline: float | None = None, max_moves: int = 10_000):
        """Best-improvement descent over add / drop / swap moves, in place.  Returns the
        number of moves made."""
        cnt = self.A[sel].sum(axis=0).astype(np.int64)
        used = float(self.cpx[sel].sum())
        moves = 0
        while moves < max_moves and (deadline is None or time.perf_counter() < deadline):
            heartbeat(phase="local search", moves=moves)
            best_gain, best = _EPS, None
            g_add = self._gains_add(cnt)
            ok = ~sel & (used + self.cpx <= self.budget)
            if ok.any():
                k = int(np.argmax(np.where(ok, g_add, -np.inf)))
                if g_add[k] > best_gain:
                    best_gain, best = g_add[k], (None, k)
            one = cnt == 1
            for j in np.flatnonzero(sel):
                lost = one & self.A[j]
                g_drop = self.costs[j] - float(self.a[lost].sum())
                if g_drop > best_gain:
                    best_gain, best = g_drop, (j, None)
                ok = ~sel & (used - self.cpx[j] + self.cpx <= self.budget)
                if not ok.any():
                    continue
                g_swap = g_drop + self._gains_add(cnt, lost)
                k = int(np.argmax(np.where(ok, g_swap, -np.inf)))
                if g_swap[k] > best_gain:
                    best_gain, best = g_swap[k], (j, k)
            if best is None:
                break
            j, k = best
            if j is not None:
                sel[j] = False
                cnt -= self.A[j]
                used -= self.cpx[j]
            if k is not None:
                sel[k] = True
                cnt += self.A[k]
                used += self.cpx[k]
            moves += 1
        return moves

    def refill(self, sel: np.ndarray, forbidden: np.ndarray | None = None, rng=None,
               choices: int = 1) -> None:
        """Greedily add columns by largest gain per unit of complexity while one helps,
        never one of ``forbidden``; with ``rng``, each step picks at random among the
        ``choices`` best."""
        cnt = self.A[sel].sum(axis=0).astype(np.int64)
        used = float(self.cpx[sel].sum())
        while True:
            gain = self._gains_add(cnt)
            ok = ~sel & (used + self.cpx <= self.budget) & (gain > _EPS)
            if forbidden is not None:
                ok &= ~forbidden
            if not ok.any():
                return
            ratio = np.where(ok, gain / self.cpx, -np.inf)
            if rng is None or choices <= 1:
                k = int(np.argmax(ratio))
            else:
                top = np.argsort(-ratio, kind="stable")[:min(choices, int(ok.sum()))]
                k = int(top[rng.integers(top.size)])
            sel[k] = True
            cnt += self.A[k]
            used += self.cpx[k]


def local_search(search: SelectionSearch, sel: np.ndarray, *, kicks: int = 200, seed: int = 0,
                 deadline: float | None = None):
    """Descent from ``sel`` then ``kicks`` rounds of iterated local search.  Returns
    ``(selection, objective, info)``; the selection is never worse than ``sel``."""
    rng = np.random.default_rng(seed)
    cur = np.array(sel, dtype=bool)
    moves = search.descend(cur, deadline)
    cur_obj = search.objective(cur)
    done = 0
    improved = 0
    for _ in range(kicks):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        on = np.flatnonzero(cur)
        if on.size == 0:
            break
        cand = cur.copy()
        out = rng.choice(on, size=min(on.size, int(rng.integers(1, 3))), replace=False)
        cand[out] = False
        tabu = np.zeros(cand.size, dtype=bool)
        tabu[out] = True
        search.refill(cand, tabu, rng, choices=3)
        moves += search.descend(cand, deadline)
        obj = search.objective(cand)
        done += 1
        if obj < cur_obj - _EPS:
            cur, cur_obj = cand, obj
            improved += 1
    return cur, cur_obj, {"moves": moves, "kicks": done, "kicks_improved": improved}
