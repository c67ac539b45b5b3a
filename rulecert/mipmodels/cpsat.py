"""OR-Tools CP-SAT: limits, hints and status mapping, in one place.

CP-SAT reports OPTIMAL, FEASIBLE (a limit stopped it with a solution), INFEASIBLE,
MODEL_INVALID or UNKNOWN (a limit stopped it without a solution).  We map these with the
limit that was set, and read ``best_objective_bound`` for the proven bound.

A solve runs watched (:func:`rulecert.mipmodels.highs.run_watched`): in a worker thread, the
calling thread waiting in short steps so that Ctrl-C reaches Python at once, and stopped with
``stop_search`` on Ctrl-C, the user's callback or the memory cap (CP-SAT's own SIGINT handler is
switched off: ``catch_sigint_signal = False``, so rulecert's handler decides).  A solution
callback and CP-SAT's ``best_bound_callback`` feed the history samples.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..certificate import SolutionStatus, Termination
from ..monitor import Monitor, interrupt_requested
from .highs import MipResult, Watch, _stop_reason, run_watched, stopped_result

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


def _watcher(watch: Watch, on_solution):
    """A solution callback recording each solution's objective and bound (raw units) and
    passing the callback object to ``on_solution`` (which reads values with ``cb.Value``)."""

    class _Watcher(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            watch.improved(self.objective_value, self.best_objective_bound, self.num_branches)
            if on_solution is not None:
                on_solution(self)
            if watch.stop is not None or interrupt_requested():
                self.stop_search()
    return _Watcher()


def set_parameters(p, parameters: dict) -> None:
    """Set CP-SAT parameters by name on ``p`` (``solver.parameters``): a list extends a
    repeated field (``"subsolvers"``), a string given to an enum field names one of that
    field's constants (``"max_sat_stratification": "STRATIFICATION_NONE"``), anything else is
    set as it is.  An unknown parameter or constant raises before anything is solved."""
    for name, value in parameters.items():
        if isinstance(value, (list, tuple)):
            getattr(p, name).extend(value)
            continue
        constants = getattr(type(getattr(p, name)), "__members__", None)   # an enum field's
        if isinstance(value, str) and constants is not None:
            if value not in constants:
                raise ValueError(f"CP-SAT parameter {name}: {value!r} is not one of "
                                 f"{sorted(constants)}")
            value = constants[value]
        setattr(p, name, value)


def solve(model: "cp_model.CpModel", variables, *, time_limit: float | None = None,
          workers: int = 2, seed: int = 0, deterministic_time: float | None = None,
          hint: np.ndarray | None = None, warm_start_objective: float | None = None,
          on_solution=None, rel_gap: float = 0.0, abs_gap: float = 0.0,
          objective_scale: float = 1.0, monitor: Monitor | None = None,
          sample_map=None, parameters: dict | None = None) -> MipResult:
    """Solve and map; ``variables`` is the list whose values form ``MipResult.x``.

    ``deterministic_time`` is CP-SAT's deterministic limit (use it in tests);
    ``objective_scale`` divides the integer objective and bound (models that scale a
    fractional objective to integers).  ``on_solution(cb)`` is called at every solution
    with the solution callback (``cb.Value(var)``).  Stopping and history as in
    :func:`rulecert.mipmodels.highs.solve` (``sample_map`` receives CP-SAT's raw integer
    objective and bound).  ``parameters`` sets further CP-SAT parameters by name (a model's
    own search settings, e.g. ``num_full_subsolvers``).
    """
    t0 = time.perf_counter()
    if time_limit is not None and time_limit <= 0:
        return MipResult(Termination.TIME_LIMIT, SolutionStatus.NONE, None, -math.inf, None,
                         message="no time left for this phase", solver="cp-sat",
                         solver_version=cpsat_version(), warm_start_objective=warm_start_objective)
    why = _stop_reason(monitor, None)
    if why is not None:
        return stopped_result(why, solver="cp-sat", version=cpsat_version(), wall=0.0,
                              warm_start_objective=warm_start_objective)
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
    p.catch_sigint_signal = False  # rulecert's Ctrl-C handler decides (module doc)
    if time_limit is not None:
        p.max_time_in_seconds = float(time_limit)
    if deterministic_time is not None:
        p.max_deterministic_time = float(deterministic_time)
    set_parameters(p, parameters or {})
    watch = Watch()
    solver.best_bound_callback = lambda b: watch.note(bound=b)
    cb = _watcher(watch, on_solution)
    finished, st = run_watched(lambda: solver.Solve(model, cb), solver.StopSearch, watch,
                               monitor=monitor, sample_map=sample_map, time_limit=time_limit,
                               solver="cp-sat")
    wall = time.perf_counter() - t0
    if not finished:
        bound = None if watch.bound is None else watch.bound / objective_scale
        return stopped_result(watch.stop, solver="cp-sat", version=cpsat_version(), wall=wall,
                              bound=bound, warm_start_objective=warm_start_objective,
                              nodes=watch.nodes)
    if watch.stop is None:
        # a Ctrl-C (or the callback, the memory cap) that arrived as CP-SAT returned on its
        # own: CP-SAT can end its search at a SIGINT before the watcher asks it to stop
        # (seen in CI: FEASIBLE 50 ms after the SIGINT, then reported as a time limit)
        why = _stop_reason(monitor, None)
        if why is not None and why[0] is not Termination.TIME_LIMIT:
            watch.stop = why
    limit_term = Termination.TIME_LIMIT if deterministic_time is None else Termination.ITERATION_LIMIT
    msg = solver.StatusName(st)
    if watch.stop is not None:
        limit_term, msg = watch.stop[0], f"{msg}: {watch.stop[1]}"
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
                     wall, msg, "cp-sat", cpsat_version(), warm_start_objective)
