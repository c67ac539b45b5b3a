"""OR-Tools CP-SAT: limits, hints and status mapping, in one place.

CP-SAT reports OPTIMAL, FEASIBLE (a limit stopped it with a solution), INFEASIBLE,
MODEL_INVALID or UNKNOWN (a limit stopped it without a solution).  We map these with the
limit that was set, and read ``best_objective_bound`` for the proven bound.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..certificate import SolutionStatus, Termination
from .highs import MipResult

try:
    import ortools
    from ortools.sat.python import cp_model
    _IMPORT_ERROR = None
except Exception as exc:  # pragma: no cover
    cp_model = None
    ortools = None
    _IMPORT_ERROR = exc


def cpsat_version() -> str:
    return getattr(ortools, "__version__", "unavailable") if ortools is not None else "unavailable"


def new_model() -> "cp_model.CpModel":
    if cp_model is None:
        raise RuntimeError(f"ortools is not available: {_IMPORT_ERROR}")
    return cp_model.CpModel()


def solve(model: "cp_model.CpModel", variables, *, time_limit: float | None = None,
          workers: int = 2, seed: int = 0, deterministic_time: float | None = None,
          hint: np.ndarray | None = None, warm_start_objective: float | None = None,
          callback=None, rel_gap: float = 0.0, abs_gap: float = 0.0,
          objective_scale: float = 1.0) -> MipResult:
    """Solve and map; ``variables`` is the list whose values form ``MipResult.x``.

    ``deterministic_time`` is CP-SAT's deterministic limit (use it in tests);
    ``objective_scale`` divides the integer objective and bound (models that scale a
    fractional objective to integers).
    """
    t0 = time.perf_counter()
    if time_limit is not None and time_limit <= 0:
        return MipResult(Termination.TIME_LIMIT, SolutionStatus.NONE, None, -math.inf, None,
                         message="no time left for this phase", solver="cp-sat",
                         solver_version=cpsat_version(), warm_start_objective=warm_start_objective)
    if hint is not None:
        model.ClearHints()
        for v, val in zip(variables, hint):
            model.AddHint(v, int(round(float(val))))
    solver = cp_model.CpSolver()
    p = solver.parameters
    p.num_workers = int(workers)
    p.random_seed = int(seed)
    p.relative_gap_limit = float(rel_gap)
    p.absolute_gap_limit = float(abs_gap)
    if time_limit is not None:
        p.max_time_in_seconds = float(time_limit)
    if deterministic_time is not None:
        p.max_deterministic_time = float(deterministic_time)
    st = solver.Solve(model, callback) if callback is not None else solver.Solve(model)
    wall = time.perf_counter() - t0
    limit_term = Termination.TIME_LIMIT if deterministic_time is None else Termination.ITERATION_LIMIT
    if st == cp_model.OPTIMAL:
        term, status = Termination.OPTIMAL, SolutionStatus.OPTIMAL
    elif st == cp_model.FEASIBLE:
        term, status = limit_term, SolutionStatus.FEASIBLE
    elif st == cp_model.INFEASIBLE:
        term, status = Termination.INFEASIBLE, SolutionStatus.NONE
    elif st == cp_model.UNKNOWN:
        term, status = limit_term, SolutionStatus.NONE
    else:
        term, status = Termination.ERROR, SolutionStatus.NONE
    has = status is not SolutionStatus.NONE
    obj = solver.ObjectiveValue() / objective_scale if has else None
    if st == cp_model.INFEASIBLE:
        bound = math.inf
    elif st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        bound = solver.BestObjectiveBound() / objective_scale
    else:
        # UNKNOWN: CP-SAT reports best_objective_bound = 0 when it stopped before proving
        # anything (seen with a time limit hit in presolve), which is no bound at all
        bound = -math.inf
    if term is Termination.OPTIMAL and (rel_gap > 0 or abs_gap > 0) and obj is not None and obj - bound > 1e-9:
        term, status = limit_term, SolutionStatus.FEASIBLE
    x = np.array([solver.Value(v) for v in variables]) if has else None
    return MipResult(term, status, obj, bound, x, int(solver.NumBranches()), int(solver.NumConflicts()),
                     wall, solver.StatusName(st), "cp-sat", cpsat_version(), warm_start_objective)
