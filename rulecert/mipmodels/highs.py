"""HiGHS through highspy: limits, warm start and status mapping, in one place.

We read HiGHS's own model status and info (``mip_dual_bound``, ``objective_function_value``,
``primal_solution_status``, ``mip_node_count``) and map them to our two statuses.  We never
trust a wrapper's word: PuLP, for instance, reports a HiGHS time-limit stop as "Optimal".
Certifying runs set ``mip_rel_gap = 0`` and an absolute gap below the objective's granularity.
"""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from ..certificate import SolutionStatus, Termination

try:  # the import is checked when a solve is requested, so a missing solver reports ERROR
    import highspy
    _IMPORT_ERROR = None
except Exception as exc:  # pragma: no cover - exercised only without highspy
    highspy = None
    _IMPORT_ERROR = exc


def highs_version() -> str:
    if highspy is None:
        return "unavailable"
    h = highspy.Highs()
    return f"{h.versionMajor()}.{h.versionMinor()}.{h.versionPatch()}"


@dataclasses.dataclass
class MipResult:
    """What a MIP/LP run holds, in solver-independent terms (minimization)."""

    termination: Termination
    status: SolutionStatus
    objective: float | None
    bound: float
    x: np.ndarray | None
    nodes: int = 0
    iterations: int = 0
    wall_time: float = 0.0
    message: str = ""
    solver: str = "highs"
    solver_version: str = ""
    warm_start_objective: float | None = None


def new_highs(*, threads: int | None = None, seed: int = 0) -> "highspy.Highs":
    """A quiet, seeded Highs object (raises RuntimeError with the import error if missing)."""
    if highspy is None:
        raise RuntimeError(f"highspy is not available: {_IMPORT_ERROR}")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("random_seed", int(seed))
    if threads is not None:
        h.setOptionValue("threads", int(threads))
    return h


def _map_status(h, model_status, has_solution: bool, limits_requested: dict) -> Termination:
    S = highspy.HighsModelStatus
    if model_status == S.kOptimal:
        return Termination.OPTIMAL
    if model_status == S.kTimeLimit:
        return Termination.TIME_LIMIT
    if model_status in (S.kSolutionLimit,):
        return Termination.NODE_LIMIT if limits_requested.get("node_limit") else Termination.ITERATION_LIMIT
    if model_status == S.kIterationLimit:
        return Termination.ITERATION_LIMIT
    if model_status in (S.kInterrupt, getattr(S, "kHighsInterrupt", S.kInterrupt)):
        return Termination.INTERRUPTED
    if model_status == S.kMemoryLimit:
        return Termination.MEMORY_LIMIT
    if model_status in (S.kInfeasible,):
        return Termination.INFEASIBLE
    return Termination.ERROR


def solve(h: "highspy.Highs", *, is_mip: bool, time_limit: float | None = None,
          node_limit: int | None = None, mip_rel_gap: float = 0.0, mip_abs_gap: float | None = None,
          warm_start: np.ndarray | None = None, warm_start_objective: float | None = None) -> MipResult:
    """Run ``h`` with the given limits and map the outcome.

    ``warm_start`` is a full column vector passed to ``setSolution`` (HiGHS checks feasibility
    itself).  A MIP run is called OPTIMAL only when HiGHS reports kOptimal with
    ``mip_rel_gap == 0`` and the dual bound is within ``mip_abs_gap`` of the objective.
    """
    t0 = time.perf_counter()
    if time_limit is not None:
        if time_limit <= 0:
            return MipResult(Termination.TIME_LIMIT, SolutionStatus.NONE, None, -math.inf, None,
                             message="no time left for this phase", solver_version=highs_version(),
                             warm_start_objective=warm_start_objective)
        h.setOptionValue("time_limit", float(time_limit))
    if is_mip:
        h.setOptionValue("mip_rel_gap", float(mip_rel_gap))
        if mip_abs_gap is not None:
            h.setOptionValue("mip_abs_gap", float(mip_abs_gap))
        if node_limit is not None:
            h.setOptionValue("mip_max_nodes", int(node_limit))
    if warm_start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = [float(v) for v in warm_start]
        sol.value_valid = True
        h.setSolution(sol)
    run_status = h.run()
    wall = time.perf_counter() - t0
    ms = h.getModelStatus()
    info = h.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    term = _map_status(h, ms, has_solution, {"node_limit": node_limit})
    msg = h.modelStatusToString(ms)
    if run_status == highspy.HighsStatus.kError and term is not Termination.ERROR:
        term = Termination.ERROR
    x = np.array(h.getSolution().col_value) if has_solution else None
    obj = float(info.objective_function_value) if has_solution else None
    if is_mip:
        bound = float(info.mip_dual_bound)
        if not math.isfinite(bound):
            bound = -math.inf
        nodes = int(info.mip_node_count)
        iters = int(info.simplex_iteration_count)
    else:
        bound = obj if (term is Termination.OPTIMAL and obj is not None) else -math.inf
        nodes = 0
        iters = int(info.simplex_iteration_count)
    if term is Termination.OPTIMAL and obj is not None and bound > obj:
        bound = obj  # HiGHS may report a dual bound a hair above the objective
    if term is Termination.OPTIMAL and is_mip and obj is not None:
        tol = mip_abs_gap if mip_abs_gap is not None else 1e-6
        if obj - bound > tol or mip_rel_gap > 0:
            # HiGHS stopped on a relative/absolute gap test, not a proof of optimality
            term = Termination.ITERATION_LIMIT
            msg += f" (stopped on the gap tolerance: objective {obj} vs bound {bound})"
    if obj is None:
        status = SolutionStatus.NONE
    elif term is Termination.OPTIMAL:
        status = SolutionStatus.OPTIMAL
    else:
        status = SolutionStatus.FEASIBLE
    if term is Termination.INFEASIBLE:
        bound = math.inf
    return MipResult(term, status, obj, bound, x, nodes, iters, wall, msg, "highs",
                     highs_version(), warm_start_objective)


def lp_row_duals(h: "highspy.Highs") -> np.ndarray | None:
    """Row duals of the last LP solve (HiGHS sign convention: d objective / d row bound, so
    a binding ``>=`` row of a minimization has a dual >= 0 and a binding ``<=`` row a dual
    <= 0), or ``None`` when HiGHS holds no feasible dual solution.  Added for column
    generation, which reads the duals of the restricted master LP after each warm re-solve."""
    info = h.getInfo()
    if info.dual_solution_status != 2:  # kSolutionStatusFeasible
        return None
    return np.asarray(h.getSolution().row_dual, dtype=float)
