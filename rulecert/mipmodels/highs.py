"""HiGHS through highspy: limits, warm start and status mapping, in one place.

We read HiGHS's own model status and info (``mip_dual_bound``, ``objective_function_value``,
``primal_solution_status``, ``mip_node_count``) and map them to our two statuses.  We never
trust a wrapper's word: PuLP, for instance, reports a HiGHS time-limit stop as "Optimal".
Certifying runs set ``mip_rel_gap = 0`` and an absolute gap below the objective's granularity.

Stopping and watching a run (:doc:`/architecture`, conventions) is also done here, once for
HiGHS and CP-SAT (:mod:`.cpsat` uses :func:`run_watched`): the solver runs in a worker thread while the calling
thread waits in short steps (:data:`POLL_SECONDS`), so that a Ctrl-C reaches Python's handler
at once (:mod:`rulecert.monitor`).  At each step the waiting thread asks whether the run must
stop (Ctrl-C, the user's callback, the memory cap, a phase that overran its time limit by
:data:`TIME_LIMIT_GRACE_SECONDS`) and, if so, asks the solver to stop: HiGHS through its own
interrupt callbacks (``kCallbackMipInterrupt``, ``kCallbackSimplexInterrupt``,
``kCallbackIpmInterrupt`` set ``user_interrupt``), CP-SAT through ``stop_search``.  The
solver returns its incumbent and proven bound and we map the stop to our termination
(``INTERRUPTED``, ``MEMORY_LIMIT``, ``TIME_LIMIT``).  The waiting thread always waits for
the solver to return after the request (it stops at its next check), so that the run returns
the solver's own incumbent and bound and no solver thread outlives the call, however slowly a
loaded machine runs it.  HiGHS checks its interrupt callbacks between nodes and in standalone
LP iterations, not inside its MIP presolve or the MIP's root LP: a stop requested there takes
effect when that step ends.  Only an abort (a second Ctrl-C, a failing callback) leaves at
once; its solver thread, asked to stop, is waited for before the next run starts and at
interpreter exit (:func:`join_abandoned`, registered with :mod:`atexit`), so that no solver
is still running while the interpreter and the solvers' C++ globals are torn down (HiGHS then
aborts the process: "terminate called without an active exception", exit code 134, after
the command printed its result).
The waiting thread also samples the run into the monitor's history (objective, bound, nodes)
every ``history_every`` seconds and at every improving solution.  A second Ctrl-C raises
``KeyboardInterrupt`` in the waiting thread at once (abort); the solver is asked to stop too.
"""
from __future__ import annotations

import atexit
import dataclasses
import math
import os
import sys
import threading
import time
from typing import Any, Callable

import numpy as np

from ..certificate import SolutionStatus, Termination
from ..monitor import Monitor, interrupt_requested

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
    finished: bool = True
    """False when the solver did not run to its return (the run was stopped before it started):
    its Highs object holds no result then and must not be read (``getModelStatus``,
    ``getSolution``, PuLP's ``findSolutionValues``)."""


def new_highs(*, workers: int | None = None, seed: int = 0) -> "highspy.Highs":
    """A quiet, seeded Highs object with ``workers`` threads (HiGHS's ``threads`` option;
    raises RuntimeError with the import error if highspy is missing)."""
    if highspy is None:
        raise RuntimeError(f"highspy is not available: {_IMPORT_ERROR}")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("random_seed", int(seed))
    if workers is not None:
        h.setOptionValue("threads", int(workers))
    return h


SET_BY_SOLVE = ("output_flag", "random_seed", "threads", "time_limit", "mip_rel_gap",
                "mip_abs_gap", "mip_max_nodes", "simplex_iteration_limit")
"""The HiGHS options :func:`new_highs` and :func:`solve` set themselves: a caller's value
would be overwritten, so :func:`check_options` refuses them."""


def check_options(options, name: str = "options", reserved=SET_BY_SOLVE,
                  instead: dict | None = None) -> dict:
    """``options`` (a mapping of HiGHS option names to values) checked against HiGHS's own
    option table before any work: an unknown name, a value of the wrong type or a name in
    ``reserved`` (options rulecert sets itself; ``instead`` maps some of them to the caller's
    option to use) raises a ValueError naming the option.  Returns a plain dict (empty for
    None)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"{name} must be a dict of HiGHS option names to values, got "
                         f"{type(options).__name__}")
    if highspy is None:
        raise RuntimeError(f"highspy is not available: {_IMPORT_ERROR}")
    h = new_highs()
    for key, val in options.items():
        if not isinstance(key, str):
            raise ValueError(f"{name}: HiGHS option names are strings, got {key!r}")
        if key in reserved:
            use = (instead or {}).get(key)
            raise ValueError(f"{name}: {key!r} is set by rulecert"
                             + (f"; use {use}" if use else ""))
        status, _ = h.getOptionValue(key)
        if status != highspy.HighsStatus.kOk:
            raise ValueError(f"{name}: {key!r} is not a HiGHS option")
        if h.setOptionValue(key, val) != highspy.HighsStatus.kOk:
            raise ValueError(f"{name}: HiGHS refuses {key}={val!r} (wrong type or out of range)")
    return dict(options)


def set_options(h: "highspy.Highs", options: dict) -> dict:
    """Set ``options`` (checked by :func:`check_options`) on ``h``; returns the values they
    replace, for :func:`set_options` to restore."""
    old = {key: h.getOptionValue(key)[1] for key in options}
    for key, val in options.items():
        h.setOptionValue(key, val)
    return old


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


# ---------------------------------------------------------------------------------------------
# stopping and watching a solver run (module doc)
# ---------------------------------------------------------------------------------------------

POLL_SECONDS = 0.05
"""How often the waiting thread checks for a stop request and samples the run."""
TIME_LIMIT_GRACE_SECONDS = 0.5
"""A phase that overruns its own time limit by this much is stopped by us (HiGHS 1.12's MIP
presolve does not check the time limit)."""

_ABANDONED: list[threading.Thread] = []
"""Solver threads of aborted runs, asked to stop (joined before the next run and at
interpreter exit, :func:`join_abandoned`)."""


def join_abandoned() -> None:
    """Wait for every solver thread left running by an aborted run (each was asked to stop and
    ends at its next check of the request or its own time limit).

    Registered with :mod:`atexit`: a solver thread still inside HiGHS's C++ code when the
    interpreter finalizes makes the process abort (exit 134) after its output was written.
    Waits in short steps so that a Ctrl-C is handled; a Ctrl-C while waiting at exit leaves at
    once through ``os._exit`` (after flushing stdout and stderr), which runs no C++ destructor.
    """
    try:
        while _ABANDONED:
            thread = _ABANDONED[-1]
            thread.join(POLL_SECONDS)
            if not thread.is_alive():
                _ABANDONED.pop()
    except KeyboardInterrupt:  # pragma: no cover - a Ctrl-C while leaving: quit at once
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(130)


atexit.register(join_abandoned)


class Watch:
    """What a solver's callbacks saw, shared between the solver thread and the waiting thread.

    Raw solver units (the caller's ``sample_map`` turns them into the reported scale).
    ``stop`` is ``(Termination, message)`` once the run was asked to stop.
    """

    def __init__(self):
        self.stop: tuple[Termination, str] | None = None
        self.objective: float | None = None
        self.bound: float | None = None
        self.nodes = 0
        self.iterations = 0
        self.events: list[tuple[float | None, float | None, int]] = []

    def improved(self, objective, bound, nodes) -> None:
        """Record an improving solution (called from the solver thread)."""
        self.note(objective, bound, nodes)
        self.events.append((self.objective, self.bound, self.nodes))

    def note(self, objective=None, bound=None, nodes=None, iterations=None) -> None:
        if objective is not None and math.isfinite(objective):
            self.objective = (float(objective) if self.objective is None
                              else min(self.objective, float(objective)))
        if bound is not None and math.isfinite(bound):
            self.bound = float(bound) if self.bound is None else max(self.bound, float(bound))
        if nodes is not None:
            self.nodes = max(self.nodes, int(nodes))
        if iterations is not None:
            self.iterations = max(self.iterations, int(iterations))


def _stop_reason(monitor: Monitor | None, phase_end: float | None):
    """Why the run must stop now, or None (the solver's own time limit is left to it, with
    :data:`TIME_LIMIT_GRACE_SECONDS` of slack)."""
    if interrupt_requested():
        return Termination.INTERRUPTED, "interrupted by the user (Ctrl-C)"
    if monitor is not None:
        why = monitor.should_stop()
        if why is not None and why[0] is not Termination.TIME_LIMIT:
            return why
        if why is not None:     # the deadline passed: the memory cap still counts
            why = monitor.memory_reason()
            if why is not None:
                return why
    if phase_end is not None and time.perf_counter() > phase_end + TIME_LIMIT_GRACE_SECONDS:
        return Termination.TIME_LIMIT, "time limit (the solver overran it; stopped by rulecert)"
    return None


def run_watched(target: Callable[[], Any], stop_solver: Callable[[], None], watch: Watch, *,
                monitor: Monitor | None = None, sample_map=None, time_limit: float | None = None,
                solver: str = "solver") -> tuple[bool, Any]:
    """Run ``target()`` (a blocking solver call) in a worker thread; wait, watch and stop it.

    ``stop_solver()`` asks the solver to stop (it is called from the waiting thread; HiGHS's
    interrupt callbacks read ``watch.stop`` instead and need a no-op here).  ``sample_map(obj,
    bound) -> (obj, bound)`` turns the callbacks' raw values into the history's scale (None:
    no history samples).  Returns ``(finished, value)``: ``finished`` is False (``value``
    None) only when the run was stopped before it started, while an aborted earlier run's
    solver was still stopping.  A stop request never abandons the solver: the call returns
    once the solver has returned (module doc); an abort (second Ctrl-C, failing callback)
    raises at once and leaves the solver, asked to stop, to :func:`join_abandoned`.
    """
    while _ABANDONED:  # an earlier run asked to stop: let it end before a new one starts
        _ABANDONED[-1].join(POLL_SECONDS)
        if not _ABANDONED[-1].is_alive():
            _ABANDONED.pop()
            continue
        why = _stop_reason(monitor, None)
        if why is not None:  # stopped while waiting for it: this run never started
            watch.stop = why
            return False, None
    out: dict[str, Any] = {}
    done = threading.Event()

    def work():
        try:
            out["value"] = target()
        except BaseException as exc:  # re-raised in the waiting thread
            out["error"] = exc
        finally:
            done.set()

    phase_end = None if time_limit is None or not math.isfinite(time_limit) else \
        time.perf_counter() + float(time_limit)
    thread = threading.Thread(target=work, name=f"rulecert-{solver}", daemon=True)
    thread.start()
    while True:
        try:
            if done.wait(POLL_SECONDS):
                break
            if watch.stop is None:
                why = _stop_reason(monitor, phase_end)
                if why is not None:
                    watch.stop = why
                    stop_solver()
            _sample(monitor, watch, sample_map)
        except KeyboardInterrupt:
            if interrupt_requested() or watch.stop is not None:
                _abort(thread, watch, stop_solver)  # the second Ctrl-C: abort at once
                raise
            # raised by a callback (or outside catch_interrupt): a request to stop
            watch.stop = (Termination.INTERRUPTED, "interrupted (KeyboardInterrupt)")
            stop_solver()
        except BaseException:  # a failing callback: stop the solver, report the error
            _abort(thread, watch, stop_solver)
            raise
    thread.join()   # done is set in its last statement: the thread is ending
    _sample(monitor, watch, sample_map)
    if "error" in out:
        raise out["error"]
    return True, out.get("value")


def _abort(thread, watch: Watch, stop_solver) -> None:
    """Leave the run: the solver is asked to stop and joined before the next run starts."""
    if watch.stop is None:
        watch.stop = (Termination.INTERRUPTED, "aborted")
    stop_solver()
    _ABANDONED.append(thread)


def _sample(monitor, watch: Watch, sample_map) -> None:
    """Flush the callbacks' improvement events and take a periodic sample."""
    if monitor is None or sample_map is None:
        watch.events.clear()
        return
    while watch.events:
        obj, bound, nodes = watch.events.pop(0)
        o, b = sample_map(obj, bound)
        monitor.sample(o, b, event="incumbent", nodes=nodes)
    o, b = sample_map(watch.objective, watch.bound)
    monitor.sample(o, b, nodes=watch.nodes, iterations=watch.iterations)


def _highs_callback(watch: Watch):
    """The HiGHS user callback: interrupt when asked, record bounds and incumbents."""
    CB = highspy.cb.HighsCallbackType
    improving = CB.kCallbackMipImprovingSolution
    mip_types = (CB.kCallbackMipInterrupt, CB.kCallbackMipImprovingSolution)

    def callback(ctype, message, out, inp, data):
        try:
            if ctype in mip_types:
                is_improving = ctype == improving
                obj = out.objective_function_value if is_improving else out.mip_primal_bound
                if is_improving:
                    watch.improved(obj, out.mip_dual_bound, out.mip_node_count)
                else:
                    watch.note(obj, out.mip_dual_bound, out.mip_node_count)
            else:
                watch.note(iterations=out.simplex_iteration_count)
            if inp is not None and (watch.stop is not None or interrupt_requested()):
                inp.user_interrupt = True
        except BaseException:  # never let an exception cross HiGHS's C++ frames
            if inp is not None:
                inp.user_interrupt = True
    return callback


_HIGHS_CALLBACKS = ("kCallbackMipInterrupt", "kCallbackSimplexInterrupt", "kCallbackIpmInterrupt",
                    "kCallbackMipImprovingSolution")


def _run_highs(h, watch: Watch, *, monitor, sample_map, time_limit):
    """``h.run()`` watched (module doc): ``(finished, HighsStatus or None)``."""
    h.setCallback(_highs_callback(watch), None)
    for name in _HIGHS_CALLBACKS:
        h.startCallback(getattr(highspy.cb.HighsCallbackType, name))

    def target():
        try:
            return h.run()
        finally:
            # as highspy's own threaded solve does: the next run (another thread) starts afresh
            highspy._core._Highs.resetGlobalScheduler(False)

    finished, status = run_watched(target, lambda: None, watch, monitor=monitor,
                                   sample_map=sample_map, time_limit=time_limit, solver="highs")
    if finished:
        h.setCallback(None, None)  # also stops every callback
        if hasattr(h, "enableCallbacks"):  # highspy.Highs: its own dispatcher back
            h.enableCallbacks()
    return finished, status


def stopped_result(why: tuple[Termination, str], *, solver: str, version: str, wall: float,
                   bound: float | None = None, warm_start_objective=None,
                   nodes: int = 0) -> "MipResult":
    """The result of a run that was stopped before it started: no solver solution, the last
    proven bound seen (or none)."""
    term, msg = why
    b = -math.inf if bound is None or not math.isfinite(bound) else float(bound)
    return MipResult(term, SolutionStatus.NONE, None, b, None, nodes, 0, wall, msg, solver,
                     version, warm_start_objective, finished=False)


def solve(h: "highspy.Highs", *, is_mip: bool, time_limit: float | None = None,
          node_limit: int | None = None, mip_rel_gap: float = 0.0, mip_abs_gap: float | None = None,
          warm_start: np.ndarray | None = None, warm_start_objective: float | None = None,
          iteration_limit: int | None = None, monitor: Monitor | None = None,
          sample_map=None) -> MipResult:
    """Run ``h`` with the given limits and map the outcome.

    ``warm_start`` is a full column vector passed to ``setSolution`` (HiGHS checks feasibility
    itself).  A MIP run is called OPTIMAL only when HiGHS reports kOptimal with
    ``mip_rel_gap == 0`` and the dual bound is within ``mip_abs_gap`` of the objective.
    ``iteration_limit`` is HiGHS's simplex iteration limit (deterministic).

    The run can be stopped (module doc): by Ctrl-C under :func:`rulecert.monitor.catch_interrupt`
    always, and with a ``monitor`` by its callback and memory cap; ``sample_map(obj, bound)``
    (raw HiGHS objective values -> the reported scale) makes the run sample its history into
    ``monitor``.  A run asked to stop before it starts returns at once, without a solution.
    """
    t0 = time.perf_counter()
    why = _stop_reason(monitor, None)
    if why is not None:
        return stopped_result(why, solver="highs", version=highs_version(), wall=0.0,
                              warm_start_objective=warm_start_objective)
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
    if iteration_limit is not None:
        h.setOptionValue("simplex_iteration_limit", int(iteration_limit))
    if warm_start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = [float(v) for v in warm_start]
        sol.value_valid = True
        h.setSolution(sol)
    watch = Watch()
    finished, run_status = _run_highs(h, watch, monitor=monitor, sample_map=sample_map,
                                      time_limit=time_limit)
    wall = time.perf_counter() - t0
    if not finished:
        return stopped_result(watch.stop, solver="highs", version=highs_version(), wall=wall,
                              bound=watch.bound if is_mip else None,
                              warm_start_objective=warm_start_objective, nodes=watch.nodes)
    ms = h.getModelStatus()
    info = h.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    term = _map_status(h, ms, has_solution, {"node_limit": node_limit})
    msg = h.modelStatusToString(ms)
    if watch.stop is not None and term in (Termination.INTERRUPTED, Termination.TIME_LIMIT):
        term, msg = watch.stop[0], f"{msg}: {watch.stop[1]}"
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
