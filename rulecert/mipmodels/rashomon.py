"""The Rashomon set through the rule-list MIP: exact discrepancy and a solution count.

The rule-list MIP of :mod:`rulecert.mipmodels.rulelist` (without its optimality cuts, which
would remove near-optimal lists) is extended so that its feasible set is exactly the Rashomon
set of lists of at most ``max_rules`` rules:

* **CORELS labels**: a rule predicts 1 only if it newly captures at least as many positives as
  negatives, 0 only if strictly more negatives (ties predict 1), and likewise the default:
  ``sum_g (pos_g - neg_g) w[g,k,1] >= 0`` and ``sum_g (neg_g - pos_g) w[g,k,0] >= sum_r x[k,r,0]``
  (default: ``>= 1 - d``).  With them a prefix has exactly one feasible labelling.
* **capture**: each used rule newly captures at least ``min_capture`` samples;
* **threshold**: ``mistakes + c N rules <= threshold N``.

:func:`max_discrepancy` then maximises the number of samples on which the list disagrees with a
reference list (Marx, Calmon & Ustun, ICML 2020, compute discrepancy this way), on HiGHS or
CP-SAT; :func:`count_rule_lists` counts the feasible prefixes with CP-SAT's solution enumeration
(small instances: it lists every solution).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..certificate import Termination
from ..monitor import catch_interrupt
from . import cpsat as cx
from . import highs as hx
from .rulelist import RuleListMIP

BACKENDS = ("highs", "cpsat")


@dataclasses.dataclass
class DiscrepancyResult:
    """Largest disagreement with the reference over the set (fractions of the samples).

    ``discrepancy`` is the best list found, ``upper_bound`` what the solver proved (equal
    when ``proven``); ``prefix`` is that list's antecedents."""

    discrepancy: float | None
    upper_bound: float
    proven: bool
    prefix: tuple[int, ...] | None
    termination: Termination
    solver: str
    message: str
    wall_time: float


def _model(problem, c, max_rules, min_capture) -> RuleListMIP:
    return RuleListMIP(problem, float(c), int(max_rules), cuts=())


def _rows(model: RuleListMIP, threshold: float, min_capture: int):
    """(name, indices, coefficients, lower, upper) of the rows that make the feasible set
    the Rashomon set (module doc); the threshold row is in mistakes (x N)."""
    G, K = model.G, model.K
    pos, neg = G.pos.astype(float), G.neg.astype(float)
    mass = pos + neg
    xi, wi = model.x_idx, model.w_idx
    out = []
    for k in range(K + 1):
        w1, w0 = wi[:, k, 1], wi[:, k, 0]
        m1, m0 = w1 >= 0, w0 >= 0
        out.append((f"label1_k{k}", w1[m1], (pos - neg)[m1], 0.0, math.inf))
        if k < K:
            x0 = xi[k, :, 0][xi[k, :, 0] >= 0]
            out.append((f"label0_k{k}", np.r_[w0[m0], x0],
                        np.r_[(neg - pos)[m0], -np.ones(len(x0))], 0.0, math.inf))
            if min_capture:
                ws = wi[:, k, :]
                m = ws >= 0
                out.append((f"capture_k{k}", np.r_[ws[m], model.u_idx[k]],
                            np.r_[np.broadcast_to(mass[:, None], ws.shape)[m], -float(min_capture)],
                            0.0, math.inf))
        else:       # default: sum (neg - pos) w[g,K,0] + d >= 1
            out.append(("label0_def", np.r_[w0[m0], model.d_idx],
                        np.r_[(neg - pos)[m0], 1.0], 1.0, math.inf))
    nz = np.flatnonzero(model.col_cost)
    out.append(("threshold", nz, model.col_cost[nz], -math.inf,
                threshold * G.N + 1e-7 * max(1.0, threshold * G.N)))
    return out


def _disagree_cost(model: RuleListMIP, reference_group_pred: np.ndarray) -> np.ndarray:
    """Cost vector: minus the mass of each group on the label the reference does not predict."""
    G, K = model.G, model.K
    cost = np.zeros(model.n_variables)
    mass = (G.pos + G.neg).astype(float)
    for g in range(G.n_groups):
        other = 1 - int(reference_group_pred[g])
        for k in range(K + 1):
            j = model.w_idx[g, k, other]
            if j >= 0:
                cost[j] = -mass[g]
    return cost


def group_predictions(model: RuleListMIP, problem, prefix) -> np.ndarray:
    """0/1 prediction of the CORELS-labelled list ``prefix`` for each of the model's groups."""
    from ..models.rulelist import rule_list_from_prefix
    rl = rule_list_from_prefix(problem, list(prefix))
    P = model.G.P
    out = np.full(model.G.n_groups, rl.default, dtype=np.int64)
    open_ = np.ones(model.G.n_groups, dtype=bool)
    for r, label in zip(prefix, rl.predictions):    # the first rule that captures a group
        hit = open_ & P[:, r]
        out[hit] = label
        open_ &= ~hit
    return out


def max_discrepancy(problem, c: float, threshold: float, reference_prefix, *, max_rules: int,
                    min_capture: int = 1, backend: str = "highs", time_limit: float | None = None,
                    seed: int = 0) -> DiscrepancyResult:
    """The largest share of samples on which a list of the Rashomon set (at most ``max_rules``
    rules, objective ``<= threshold``) disagrees with the list ``reference_prefix``."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    model = _model(problem, c, max_rules, min_capture)
    ref = group_predictions(model, problem, reference_prefix)
    cost = _disagree_cost(model, ref)
    rows = _rows(model, threshold, min_capture)
    N = float(model.G.N)
    with catch_interrupt():  # Ctrl-C stops the solve with its incumbent and bound
        if backend == "highs":
            res = _solve_highs(model, rows, cost, time_limit, seed)
        else:
            res = _solve_cpsat(model, rows, cost, time_limit, seed)
    obj = None if res.objective is None else -res.objective
    ub = -res.bound if math.isfinite(res.bound) else N
    prefix = None
    if res.x is not None:
        prefix, _, _ = model.decode(np.asarray(res.x, dtype=float))
        prefix = tuple(int(a) for a in prefix)
    proven = res.termination is Termination.OPTIMAL
    return DiscrepancyResult(None if obj is None else obj / N, min(ub, N) / N, proven, prefix,
                             res.termination, res.solver, res.message, res.wall_time)


def _solve_highs(model, rows, cost, time_limit, seed):
    import highspy
    h = hx.new_highs(workers=1, seed=seed)
    model.to_highs(h)
    n = model.n_variables
    h.changeColsCost(n, np.arange(n, dtype=np.int32), cost)
    for _, idx, val, lo, hi in rows:
        h.addRow(-highspy.kHighsInf if lo == -math.inf else lo,
                 highspy.kHighsInf if hi == math.inf else hi,
                 len(idx), np.asarray(idx, dtype=np.int32), np.asarray(val, dtype=float))
    return hx.solve(h, is_mip=True, time_limit=time_limit, mip_rel_gap=0.0, mip_abs_gap=0.5)


def _cpsat_model(model, rows):
    """CP-SAT model of the rule-list MIP with the rows, all in integers."""
    from ortools.sat.python import cp_model
    m, vs, scale = model.to_cpsat()
    m.clear_objective()
    (ca, _) = model.cpsat_scaling()
    for name, idx, val, lo, hi in rows:
        if name == "threshold":     # in CP-SAT's integer units: mistakes * q + p * N per rule
            p, q = ca.numerator, ca.denominator
            icost = np.zeros(model.n_variables, dtype=np.int64)
            w_all = model.w_idx[model.w_idx >= 0]
            icost[w_all] = np.rint(model.col_cost[w_all]).astype(np.int64) * q
            icost[model.u_idx] = p * int(model.G.N)
            nz = np.flatnonzero(icost)
            e = cp_model.LinearExpr.weighted_sum([vs[j] for j in nz], [int(a) for a in icost[nz]])
            m.add(e <= int(math.floor(hi * q + 1e-6)))
            continue
        coefs = np.rint(val).astype(np.int64)
        e = cp_model.LinearExpr.weighted_sum([vs[j] for j in idx], [int(a) for a in coefs])
        if hi < math.inf:
            m.add(e <= int(math.floor(hi)))
        if lo > -math.inf:
            m.add(e >= int(math.ceil(lo)))
    return m, vs


def _solve_cpsat(model, rows, cost, time_limit, seed):
    from ortools.sat.python import cp_model
    m, vs = _cpsat_model(model, rows)
    nz = np.flatnonzero(cost)
    m.minimize(cp_model.LinearExpr.weighted_sum([vs[j] for j in nz], [int(round(cost[j])) for j in nz]))
    return cx.solve(m, vs, time_limit=time_limit, workers=1, seed=seed)


def count_rule_lists(problem, c: float, threshold: float, *, max_rules: int,
                     min_capture: int = 1, time_limit: float | None = 60.0) -> tuple[int, bool]:
    """(number of rule lists in the set, complete) by CP-SAT solution enumeration.

    Each feasible assignment is one prefix of at most ``max_rules`` rules (labels, default,
    capture variables are all determined by the antecedents), so the count is the size of the
    Rashomon set of lists of at most ``max_rules`` rules.  For small instances."""
    from ortools.sat.python import cp_model
    model = _model(problem, c, max_rules, min_capture)
    m, vs = _cpsat_model(model, _rows(model, threshold, min_capture))
    xs = [vs[j] for j in model.x_idx[model.x_idx >= 0]]
    seen = set()

    class _Count(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            seen.add(tuple(int(self.Value(v)) for v in xs))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.catch_sigint_signal = False  # rulecert's Ctrl-C handler decides
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    with catch_interrupt():  # Ctrl-C stops the enumeration: the count so far, incomplete
        finished, st = hx.run_watched(lambda: solver.Solve(m, _Count()), solver.StopSearch,
                                      hx.Watch(), time_limit=time_limit, solver="cp-sat")
    return len(seen), finished and st in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
