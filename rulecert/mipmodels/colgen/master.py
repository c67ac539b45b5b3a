"""The restricted master LP / IP of Boolean rule-set column generation, in one Highs object.

Master IP (Dash, Gunluk & Wei 2018, (1)-(4)), aggregated over groups of identical samples
(samples with identical binary features are covered by exactly the same clauses):

    min  sum_{g in P} a_g xi_g + sum_k cost_k w_k
    s.t. xi_g + sum_{k covers g} w_k >= 1        g in P   (cover rows, duals mu_g >= 0)
         sum_k c_k w_k <= C                               (complexity row, dual -lambda <= 0)
         w_k in {0, 1},  xi_g >= 0

with ``a_g = fn_weight * (positive mass of g)``, ``cost_k = (negative mass covered by k)
+ clause_penalty + literal_penalty * |k|`` and ``c_k = 1 + |k|``.  In the LP relaxation
``w_k >= 0`` has no upper bound: an optimal LP never needs ``w_k > 1`` because costs are
non-negative, so the optimum is that of the paper's MLP and the reduced cost of a column is
simply ``cost_k - sum_{g in k} mu_g + lambda c_k`` (no bound duals).

New columns are appended to the same Highs object and the LP is re-solved warm from the
previous basis; the final restricted IP switches the clause columns to binary in place.
"""
from __future__ import annotations

import time

import numpy as np

from ...certificate import SolutionStatus, Termination
from .. import highs as hx

try:
    import highspy
except Exception:  # pragma: no cover - reported by highs.new_highs
    highspy = None


PRESOLVE_SECONDS_PER_NONZERO = 1e-4
"""A time-limited restricted IP runs without presolve unless its limit is at least this many
seconds per non-zero: HiGHS 1.12's MIP presolve does not check the time limit, and its
time grows with the non-zeros.  Untimed solves (and long limits, e.g. certification runs)
keep it."""
IP_SETS = hx.SET_BY_SOLVE + ("presolve",)
"""The HiGHS options a restricted-IP solve (:meth:`RestrictedMaster.solve_ip`) sets itself."""
SCAN_MAX_PAIRABLE = 3000
"""The restricted IP is solved by scanning (:meth:`RestrictedMaster.scan_ip`) when no three
columns (apart from those covering every positive group) fit ``C`` together and at most
this many columns can enter a pair (the pair table is this number squared)."""


def best_pair(A: np.ndarray, a: np.ndarray, cost: np.ndarray, ok: np.ndarray):
    """The best two of the sets ``A`` (rows, 0/1 over the positives of weights ``a``) chosen
    together where ``ok[i, j]``: the least ``sum a - a(A_i | A_j) + cost_i + cost_j`` over
    ``i < j``, as ``(value, i, j)`` (``inf`` when no pair is ok).  Serves the restricted IP's
    scan (columns) and the small class's pairs of one-literal clauses (literals)."""
    gain = A @ a
    both = (A * a) @ A.T                                   # weight covered by both
    pair = a.sum() - gain[:, None] - gain[None, :] + both + cost[:, None] + cost[None, :]
    pair = np.where(np.triu(ok, k=1), pair, np.inf)
    i, j = np.unravel_index(int(np.argmin(pair)), pair.shape)
    return float(pair[i, j]), int(i), int(j)


class RestrictedMaster:
    """Restricted master problem over the positive groups.

    Parameters
    ----------
    fn_cost : array (P,)
        Objective coefficient of each false-negative variable ``xi_g``.
    complexity_bound : float or None
        ``C``; ``None`` drops the complexity row (penalized form only).
    """

    def __init__(self, fn_cost: np.ndarray, complexity_bound: float | None, *,
                 workers: int | None = 1, seed: int = 0):
        self.h = hx.new_highs(workers=workers, seed=seed)
        inf = highspy.kHighsInf
        self.n_pos = int(len(fn_cost))
        self.C = complexity_bound
        self.fn_cost = np.asarray(fn_cost, dtype=float)
        P = self.n_pos
        if P:
            self.h.addCols(P, self.fn_cost, np.zeros(P), np.full(P, inf), 0,
                           np.zeros(P, dtype=np.int32), np.array([], dtype=np.int32),
                           np.array([], dtype=float))
            # cover rows: xi_g >= 1 - sum w  ->  xi_g + sum w >= 1
            self.h.addRows(P, np.ones(P), np.full(P, inf), P, np.arange(P, dtype=np.int32),
                           np.arange(P, dtype=np.int32), np.ones(P))
        self.complexity_row = None
        if complexity_bound is not None:
            self.complexity_row = P
            self.h.addRow(-inf, float(complexity_bound), 0, np.array([], dtype=np.int32),
                          np.array([], dtype=float))
        self.costs: list[float] = []
        self.complexities: list[int] = []
        self.covers: list[np.ndarray] = []
        self.is_mip = False
        self.monitor = None
        """The solve's :class:`rulecert.monitor.Monitor` (Ctrl-C, callback, memory cap)."""

    @property
    def n_columns(self) -> int:
        return len(self.costs)

    def add_columns(self, covers: list[np.ndarray], costs, complexities) -> None:
        """Append clause columns; ``covers[k]`` holds the indices of the positive groups
        clause k covers."""
        if not covers:
            return
        inf = highspy.kHighsInf
        starts, idx, vals = [], [], []
        for cov, c in zip(covers, complexities):
            starts.append(len(idx))
            cov = np.asarray(cov, dtype=np.int32)
            idx.extend(cov.tolist())
            vals.extend([1.0] * len(cov))
            if self.complexity_row is not None:
                idx.append(self.complexity_row)
                vals.append(float(c))
        m = len(covers)
        first = self.n_pos + self.n_columns
        ub = np.ones(m) if self.is_mip else np.full(m, inf)
        self.h.addCols(m, np.asarray(costs, dtype=float), np.zeros(m), ub, len(idx),
                       np.asarray(starts, dtype=np.int32), np.asarray(idx, dtype=np.int32),
                       np.asarray(vals, dtype=float))
        if self.is_mip:
            self.h.changeColsIntegrality(m, np.arange(first, first + m, dtype=np.int32),
                                         np.array([highspy.HighsVarType.kInteger] * m))
        self.costs.extend(float(c) for c in costs)
        self.complexities.extend(int(c) for c in complexities)
        self.covers.extend(np.asarray(c, dtype=np.int64) for c in covers)

    # ---- LP ------------------------------------------------------------------------------
    def solve_lp(self, time_limit: float | None):
        """Solve the restricted master LP (warm).  Returns ``(result, mu, lam)``; ``mu`` and
        ``lam`` are ``None`` when no optimal dual solution is available.  ``mu >= 0`` and
        ``lam >= 0`` are clipped at zero (HiGHS may return -1e-17)."""
        if self.is_mip:
            raise RuntimeError("the master has been switched to an IP")
        res = hx.solve(self.h, is_mip=False, time_limit=time_limit, monitor=self.monitor)
        if res.termination.value != "optimal":
            return res, None, None
        duals = hx.lp_row_duals(self.h)
        if duals is None:
            return res, None, None
        mu = np.maximum(duals[:self.n_pos], 0.0)
        lam = 0.0 if self.complexity_row is None else max(0.0, -float(duals[self.complexity_row]))
        return res, mu, lam

    def fix_columns(self, columns, lower: float) -> None:
        """Set the LP lower bound of clause columns ``columns`` (indices among the clauses) to
        ``lower`` (1: fixed in, for a dive; 0: released)."""
        if self.is_mip:
            raise RuntimeError("the master has been switched to an IP")
        cols = np.asarray(list(columns), dtype=np.int32)
        if len(cols):
            self.h.changeColsBounds(len(cols), cols + self.n_pos, np.full(len(cols), float(lower)),
                                    np.full(len(cols), highspy.kHighsInf))

    def clause_values(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x[self.n_pos:self.n_pos + self.n_columns], dtype=float)

    # ---- IP ------------------------------------------------------------------------------
    def to_ip(self) -> None:
        """Switch the clause columns to binary (in place, same Highs object)."""
        if not self.is_mip:
            self._switch_clause_columns(mip=True)

    def _switch_clause_columns(self, mip: bool) -> None:
        """The clause columns binary (``mip``) or continuous ``w >= 0``, in place."""
        m = self.n_columns
        if m:
            cols = np.arange(self.n_pos, self.n_pos + m, dtype=np.int32)
            self.h.changeColsBounds(m, cols, np.zeros(m),
                                    np.ones(m) if mip else np.full(m, highspy.kHighsInf))
            kind = highspy.HighsVarType.kInteger if mip else highspy.HighsVarType.kContinuous
            self.h.changeColsIntegrality(m, cols, np.array([kind] * m))
        self.is_mip = mip

    def to_lp(self) -> None:
        """Switch the clause columns back to continuous ``w >= 0`` (in place; a dive after
        the restricted IP prices on the LP again)."""
        if self.is_mip:
            self._switch_clause_columns(mip=False)

    def padded(self, selected: np.ndarray) -> np.ndarray:
        """A selection over the first columns, extended with False for the columns added
        since (by the dive or gap closing)."""
        return np.concatenate([np.asarray(selected, dtype=bool),
                               np.zeros(self.n_columns - len(selected), dtype=bool)])

    def full_vector(self, selected: np.ndarray) -> np.ndarray:
        """Column vector (xi, w) for a 0/1 selection of clause columns."""
        covered = np.zeros(self.n_pos, dtype=bool)
        for k in np.flatnonzero(selected):
            covered[self.covers[k]] = True
        return np.concatenate([(~covered).astype(float), np.asarray(selected, dtype=float)])

    def selection_objective(self, selected: np.ndarray) -> float:
        x = self.full_vector(selected)
        return float(self.fn_cost @ x[:self.n_pos] + np.asarray(self.costs) @ x[self.n_pos:])

    def solve_ip(self, time_limit: float | None, warm_start: np.ndarray | None,
                 mip_abs_gap: float, warm_start_objective: float | None = None,
                 node_limit: int | None = None, sample_map=None, options: dict | None = None):
        """The restricted IP in HiGHS; ``options`` (HiGHS option names to values) apply to
        this solve only."""
        self.to_ip()
        scanned = self.scan_ip()
        if scanned is not None:
            return scanned
        ws = None if warm_start is None else self.full_vector(warm_start)
        # HiGHS 1.12's MIP presolve does not check the time limit (PRESOLVE_SECONDS_PER_NONZERO)
        short = (time_limit is not None
                 and time_limit < self.h.getNumNz() * PRESOLVE_SECONDS_PER_NONZERO)
        self.h.setOptionValue("presolve", "off" if short else "choose")
        old = hx.set_options(self.h, options or {})
        try:
            return hx.solve(self.h, is_mip=True, time_limit=time_limit, node_limit=node_limit,
                            mip_rel_gap=0.0, mip_abs_gap=mip_abs_gap, warm_start=ws,
                            warm_start_objective=warm_start_objective, monitor=self.monitor,
                            sample_map=sample_map)
        finally:
            hx.set_options(self.h, old)

    def scan_ip(self):
        """The restricted IP solved exactly by scanning every selection, when no three
        columns fit ``C`` together apart from columns that cover every positive group:
        the empty selection, every single column and every pair that fits.  A column that
        covers every positive group (the empty clause) leaves nothing for another to cover,
        so with costs >= 0 it is best alone and is scanned alone; the others fit three at
        a time only from ``C = 6`` (complexity >= 2 each).  The fits of the simplest models
        (``C`` of 1 to 5, the start of a cross-validated path) otherwise ask HiGHS to branch
        over thousands of columns of which at most two can be chosen.  Returns a
        ``MipResult`` (:mod:`rulecert.mipmodels.highs`; optimal; ties: the first selection in
        this order, then by column index), or None when more columns fit, the penalized form
        has no ``C``, or more than ``SCAN_MAX_PAIRABLE`` columns can pair."""
        if self.C is None or not self.n_columns:
            return None
        t0 = time.perf_counter()
        cpx = np.asarray(self.complexities, dtype=float)
        cost = np.asarray(self.costs, dtype=float)
        covered = [self.fn_cost[cov] for cov in self.covers]     # each column's positives
        gain = np.array([c.sum() for c in covered])
        needed = np.count_nonzero(self.fn_cost > 0)
        full = np.array([np.count_nonzero(c > 0) == needed for c in covered]) \
            & (cost.min() >= 0)
        low = np.sort(cpx[~full])[:3]
        if len(low) == 3 and low.sum() <= self.C:
            return None
        fits = np.flatnonzero(cpx <= self.C)
        pair = fits[~full[fits]]
        pair = pair[cpx[pair] + low[0] <= self.C] if len(low) >= 2 else fits[:0]
        if len(pair) > SCAN_MAX_PAIRABLE:
            return None
        total = float(self.fn_cost.sum())
        best, chosen = total, []                     # the empty selection
        if len(fits):
            single = total - gain[fits] + cost[fits]
            i = int(np.argmin(single))
            if single[i] < best:
                best, chosen = float(single[i]), [int(fits[i])]
        if len(pair) >= 2:
            A = np.zeros((len(pair), self.n_pos))
            for r, k in enumerate(pair):
                A[r, self.covers[k]] = 1.0
            obj, i, j = best_pair(A, self.fn_cost, cost[pair],
                                  cpx[pair][:, None] + cpx[pair][None, :] <= self.C)
            if obj < best:
                best, chosen = obj, [int(pair[i]), int(pair[j])]
        sel = np.zeros(self.n_columns, dtype=bool)
        sel[chosen] = True
        best = self.selection_objective(sel)
        return hx.MipResult(Termination.OPTIMAL, SolutionStatus.OPTIMAL, best, best,
                            self.full_vector(sel), wall_time=time.perf_counter() - t0,
                            message="solved by scanning every selection of at most two "
                                    "columns (no three fit C; a column covering every "
                                    "positive group is best alone)", solver="scan")
