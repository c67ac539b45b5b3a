"""Raise the certified bound of a finished column-generation solve, by counted work.

A solve stopped by ``max_iter``, a time limit or Ctrl-C keeps the last duals it priced at
(:class:`~rulecert.mipmodels.colgen.loop.BoundState`).  Any duals give a valid Lagrangian
bound (``bounds.py``), so :func:`strengthen_bound` can spend more branch-and-bound nodes
there, by the same descent in the complexity dual as the solve's last search
(``bound_search.final_bound_search``), and return the solution with the better of the two
bounds.  The rule set is unchanged; the bound never decreases, and it never decreases when
the node budget grows.  This keeps a solve's own bound non-decreasing in its limits (a
longer solve repeats a shorter one) while a stopped solve can still be certified further.
"""
from __future__ import annotations

import dataclasses
import time

from ...certificate import certify
from ...limits import Deadline, check_count_limit, check_time_limit
from ...monitor import Monitor, catch_interrupt, interrupt_requested, reporting
from .provers.lagrangian import bound_pricer, final_bound_search
from .loop import ColGenSolution, bound_message
from .state import BoundKind, State


def strengthen_bound(problem, solution: ColGenSolution, node_budget: int, *,
                     time_limit: float | None = None, callback=None) -> ColGenSolution:
    """``solution`` (of ``solve(problem, ...)``) with its bound raised by at most
    ``node_budget`` branch-and-bound nodes of the complexity-dual descent at its last duals.

    Refuses (``ValueError``, before any work) a solution without a bound state or a problem
    other than the one solved.  A proven-optimal solution, or duals where pricing proved no
    negative reduced cost, is returned as it is.  Ctrl-C, and ``time_limit`` seconds, stop
    the search with the bound proven so far; ``callback`` gets the progress info dicts of
    :mod:`rulecert.monitor` while it runs (its return value is ignored).
    """
    time_limit = check_time_limit(time_limit)
    state = getattr(solution, "bound_state", None)
    if state is None:
        raise ValueError("this solution has no bound state to strengthen (no column-generation "
                         "iteration ran, or it is not a colgen solution)")
    node_budget = check_count_limit(node_budget, "node_budget", allow_none=False)
    o = state.options
    st = State(problem, o)
    if st.fingerprint() != state.fingerprint:
        raise ValueError("problem is not the one this solution was solved on (its samples, "
                         "labels, weights or options differ)")
    cert = solution.certificate
    if cert.proven_optimal or state.pricing_bound >= -o.tol or st.C is None:
        return solution
    if node_budget <= state.searched_nodes:
        return _with_strengthening(solution, node_budget=node_budget, nodes=0, seconds=0.0,
                                   bound_before=cert.lower_bound, bound=cert.lower_bound,
                                   interrupted=False, complexity_dual=None, skipped=(
                                       f"the solve's last search already spent up to "
                                       f"{state.searched_nodes:g} nodes at these duals; a "
                                       f"budget no larger repeats it"))
    t0 = time.perf_counter()
    used = [0]

    def account(seconds, nodes):
        used[0] += nodes

    monitor = Monitor(cert.solver, deadline=Deadline(time_limit, start=t0), callback=callback)
    end = monitor.deadline.end
    monitor.sample(cert.objective, cert.lower_bound, event="bound strengthening")
    with catch_interrupt(), reporting(monitor):
        sr = final_bound_search(st, o, state.duals, state.pricing_bound, [], state.ub,
                                bound_pricer(st, o, deadline=lambda: end, account=account),
                                node_budget, best_known=cert.lower_bound, target=cert.objective,
                                share=state.share)
        interrupted = interrupt_requested()
    timed_out = monitor.deadline.expired()
    seconds = time.perf_counter() - t0
    raised = sr.bound > cert.lower_bound
    kind, detail = ((BoundKind.LAGRANGIAN, f"at the last duals, raised after the solve "
                     f"(complexity dual {sr.t:.6g}, {used[0]} nodes)") if raised
                    else (state.bound_kind, state.bound_detail))
    new = certify(cert.objective, max(cert.lower_bound, sr.bound), cert.termination,
                  solver=cert.solver, abs_tol=cert.abs_tol, solver_version=cert.solver_version,
                  rel_tol=cert.rel_tol, nodes=cert.nodes, iterations=cert.iterations,
                  wall_time=cert.wall_time + seconds, seed=cert.seed,
                  warm_start_objective=cert.warm_start_objective, message=cert.message,
                  history=list(cert.history), stats=dict(cert.stats))
    old_said = bound_message(state.bound_kind, state.bound_detail, state.bound_class, cert)
    head = cert.message[:-len(old_said)].rstrip("; ") if cert.message.endswith(old_said) \
        else cert.message
    said = bound_message(kind, detail, state.bound_class, new)
    new.message = f"{head}; {said}" if head else said
    new.stats.update(bound_kind=kind.value, bound_detail=detail,
                     bound_is_conflict_floor=kind is BoundKind.CONFLICT_FLOOR, bound_trivial=new.lower_bound <= 0.0,
                     bound_strengthening={"node_budget": node_budget, "nodes": used[0],
                                          "seconds": seconds, "bound_before": cert.lower_bound,
                                          "bound": new.lower_bound, "interrupted": interrupted,
                                          "time_limit": timed_out,
                                          "complexity_dual": sr.t if raised else None,
                                          "skipped": None})
    new.history.append({"time": cert.wall_time + seconds, "objective": new.objective,
                        "lower_bound": new.lower_bound, "event": "bound strengthened",
                        "nodes": used[0]})
    # a repeat is skipped
    searched = state.searched_nodes if interrupted or timed_out else node_budget
    return dataclasses.replace(solution, certificate=new, bound_state=dataclasses.replace(
        state, bound_kind=kind, bound_detail=detail, searched_nodes=searched))


def _with_strengthening(solution: ColGenSolution, **record) -> ColGenSolution:
    """``solution`` with ``record`` as its certificate's ``stats["bound_strengthening"]``."""
    cert = solution.certificate
    new = dataclasses.replace(cert, stats={**cert.stats, "bound_strengthening": record})
    return dataclasses.replace(solution, certificate=new)
