"""The restricted master IP: its warm start and its solve, after column generation.

The restricted master (the clauses generated so far, switched to binary) is solved in HiGHS,
warm-started from the best of (a) a greedy rounding of the LP or a greedy cover, improved by
local search (:mod:`.improvers.selection_search`: add / drop / swap descent and iterated kicks, at most
the planner's ``"local search"`` share of the time left), (b) the IP over the LP solution's support alone (a
small IP given at most half the time left) and (c) the caller's ``initial_solution``.  When
the full restricted IP stalls under a time limit, its start is what is returned.  After a
dive (:mod:`.improvers.dive`), the IP is solved again over its columns too, from the better of its own
selection and the dive's rule set.
"""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from .improvers.selection_search import SelectionSearch, local_search
from .master import RestrictedMaster
from .plan import seconds_left, step_deadline

LIGHT_IP_OPTIONS = {"mip_pscost_minreliable": 0, "mip_heuristic_effort": 0.0,
                    "mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False,
                    "mip_heuristic_run_root_reduced_cost": False}
"""HiGHS options (``ColGenOptions.primal.ip_options``) for a cheaper restricted IP under a node
limit: no strong branching (pseudocosts are trusted from the first branching) and no root
sub-MIP heuristics; the warm start already is a good incumbent."""
STOPPED = ("interrupted", "memory_limit")
"""Stops after which the restricted IP is only warm-started (and not solved again after a
dive) and gap closing is skipped."""
STOPPED_LOCAL_SEARCH_SECONDS = 0.2
"""The local search's time after Ctrl-C or the memory cap stopped column generation."""



@dataclasses.dataclass
class RestrictedIP:
    """The restricted master IP's selection and what the certificate reports of it."""

    selected: np.ndarray
    """The chosen columns (bool over the master's columns)."""
    objective: float
    start_objective: float
    """The objective of the warm start the IP was given."""
    start: str
    """Which start won: "greedy", "greedy + local search", "LP support IP", "initial_solution",
    "dive"."""
    result: object | None = None
    """The last HiGHS result (``MipResult``), None when there was no column."""
    bound: float = -math.inf
    columns: int = 0
    """The master's columns when HiGHS last solved the IP: ``result.bound`` bounds the IP over
    those columns only (polishing may add more)."""
    local_search: dict = dataclasses.field(default_factory=dict)
    support: dict = dataclasses.field(default_factory=dict)


def solve_restricted_ip(run, clean) -> RestrictedIP:
    """The restricted IP of ``run`` (the loop's state) from its best start; ``clean``
    normalizes a clause of ``initial_solution``."""
    master, st, o, end = run.master, run.st, run.o, run.end
    stopped = run.stop in STOPPED
    w_lp = None if stopped else _lp_values(run)
    ta = time.perf_counter()
    ls_end = step_deadline(end, "local search", ta).end
    if stopped:  # Ctrl-C / memory cap: a quick start only, no HiGHS IP
        ls_end = ta + STOPPED_LOCAL_SEARCH_SECONDS if ls_end is None else \
            min(ls_end, ta + STOPPED_LOCAL_SEARCH_SECONDS)
    selected, ws_obj, ls_info = _greedy_selection(
        master, st, w_lp, seed=o.seed, improve=o.primal._local_search, deadline=ls_end)
    run.times["local_search"] += time.perf_counter() - ta
    ip = RestrictedIP(selected, math.nan, ws_obj,
                      "greedy + local search" if o.primal._local_search else "greedy",
                      local_search=ls_info)
    if w_lp is not None:
        # the IP over the LP solution's support: small, usually solved at once, and a far
        # better start than the greedy one when the full restricted IP stalls
        ta = time.perf_counter()
        sel_s, ip.support = _support_ip(master, w_lp, ip.selected, ip.start_objective, o.seed,
                                        run.ip_gap,
                                        None if end.end is None else 0.5 * seconds_left(end),
                                        o.limits.ip_nodes, o.primal.ip_options)
        run.times["ip"] += time.perf_counter() - ta
        obj_s = math.inf if sel_s is None else master.selection_objective(sel_s)
        if obj_s < ip.start_objective - 1e-9:
            ip.selected, ip.start_objective, ip.start = sel_s, obj_s, "LP support IP"
    if run.initial_solution:
        _try_initial_solution(run, ip, clean)
    if master.n_columns and not stopped:
        resolve(run, ip, ip.start_objective)
        ip.bound = ip.result.bound
    ip.objective = master.selection_objective(ip.selected)
    return ip


def resolve_after_dive(run, ip: RestrictedIP) -> None:
    """The restricted IP again, over the dive's columns too (:mod:`.improvers.dive`), warm-started from
    the better of its own selection and the dive's rule set: never worse than the restricted
    IP without the dive (a node-limited IP over more columns alone could be worse)."""
    master, dv = run.master, run.dive
    grew = master.n_columns > len(ip.selected)          # the dive added columns
    ip.selected = master.padded(ip.selected)
    if dv["selection"] is not None and dv["objective"] < ip.objective - 1e-9:
        ip.selected, ip.start_objective, ip.start = dv["selection"], dv["objective"], "dive"
    if run.stop not in STOPPED and grew:
        resolve(run, ip, master.selection_objective(ip.selected))
        ip.bound = ip.result.bound
    ip.objective = master.selection_objective(ip.selected)


def _lp_values(run):
    """The LP value of every column: the last batch of columns may not be in the LP solution
    yet, so the LP is re-solved once (cheap)."""
    master = run.master
    if master.is_mip or not master.n_columns or run.stop == "lp_failed":
        return None
    ta = time.perf_counter()
    res_lp, _, _ = master.solve_lp(seconds_left(run.end))
    run.times["lp"] += time.perf_counter() - ta
    return None if res_lp.x is None else master.clause_values(res_lp.x)


def _try_initial_solution(run, ip: RestrictedIP, clean) -> None:
    """Start from ``initial_solution`` when all its clauses are columns, it fits C and it
    beats the start held."""
    sel0 = run.selection_of(list(map(clean, run.initial_solution)))
    if sel0 is None:
        return
    obj0 = run.master.selection_objective(sel0)
    if obj0 < ip.start_objective:
        ip.selected, ip.start_objective, ip.start = sel0, obj0, "initial_solution"


def resolve(run, ip: RestrictedIP, incumbent_obj: float) -> None:
    """Solve the restricted IP warm-started from ``ip.selected`` (of objective
    ``incumbent_obj``); keep the better selection and the result in ``ip``."""
    master = run.master
    ta = time.perf_counter()
    res = master.solve_ip(seconds_left(run.end), ip.selected, mip_abs_gap=run.ip_gap,
                          warm_start_objective=incumbent_obj, node_limit=run.o.limits.ip_nodes,
                          options=run.o.primal.ip_options, sample_map=lambda obj, bound: (
                              incumbent_obj if obj is None else min(obj, incumbent_obj),
                              run.best_bound))
    run.times["ip"] += time.perf_counter() - ta
    if res.x is not None:
        cand = master.clause_values(res.x) > 0.5
        if master.selection_objective(cand) <= incumbent_obj + 1e-9:
            ip.selected = cand
    ip.result, ip.columns = res, master.n_columns


def _support_ip(master: RestrictedMaster, w_lp, selected, objective, seed, mip_abs_gap,
                time_limit, node_limit=None, options=None):
    """The restricted IP over only the columns in the support of the LP solution ``w_lp``
    and in ``selected`` (a feasible selection of objective ``objective``, its warm start);
    returns its best selection (over all columns), or None if it found none or would not be
    smaller than the full restricted IP, and a summary for the certificate's stats."""
    cols = np.flatnonzero((w_lp > 1e-6) | selected)
    if cols.size == 0 or cols.size == master.n_columns:
        return None, {}
    sub = RestrictedMaster(master.fn_cost, master.C, seed=seed)
    sub.monitor = master.monitor
    sub.add_columns([master.covers[k] for k in cols], np.asarray(master.costs)[cols],
                    np.asarray(master.complexities)[cols])
    res = sub.solve_ip(math.inf if time_limit is None else time_limit, selected[cols],
                       mip_abs_gap=mip_abs_gap, warm_start_objective=objective,
                       node_limit=node_limit, options=options)
    info = {"columns": int(cols.size), "termination": res.termination.value,
            "objective": res.objective, "wall_time": res.wall_time}
    if res.x is None:
        return None, info
    sel = np.zeros(master.n_columns, dtype=bool)
    sel[cols[sub.clause_values(res.x) > 0.5]] = True
    return sel, info


def _greedy_selection(master: RestrictedMaster, st, w_lp, *, seed: int = 0,
                      deadline: float | None = None, improve: bool = True):
    """A feasible 0/1 selection to warm-start the restricted IP: the better of (a) columns in
    decreasing LP value added while the complexity fits and the objective decreases and (b)
    the greedy covering rule (repeatedly add the column with the largest objective decrease
    per unit of complexity), then (``improve``) improved by local search (``improvers/selection_search.py``:
    add / drop / swap descent and iterated kicks, until ``deadline``).  Returns
    ``(selection, objective, info)``."""
    m = master.n_columns
    empty = np.zeros(m, dtype=bool)
    if m == 0:
        return empty, master.selection_objective(empty), {}
    A = np.zeros((m, master.n_pos), dtype=bool)
    for k, cov in enumerate(master.covers):
        A[k, cov] = True
    search = SelectionSearch(A, master.fn_cost, np.asarray(master.costs, dtype=float),
                             np.asarray(master.complexities, dtype=float),
                             math.inf if st.C is None else st.C)
    # (a) LP order: add each column that fits and lowers the objective (by what it newly covers)
    sel_a = empty.copy()
    uncovered = np.ones(master.n_pos, dtype=bool)
    order = np.lexsort((search.costs, -(w_lp if w_lp is not None else np.zeros(m))))
    used = 0.0
    for k in order:
        if used + search.cpx[k] > search.budget:
            continue
        if float(search.a[A[k] & uncovered].sum()) - search.costs[k] > 1e-12:
            sel_a[k] = True
            used += search.cpx[k]
            uncovered &= ~A[k]
    # (b) greedy covering by gain per complexity
    sel_b = empty.copy()
    search.refill(sel_b)
    va, vb = search.objective(sel_a), search.objective(sel_b)
    start = sel_a if va <= vb else sel_b
    info = {}
    sel = start
    if improve:
        sel, _, info = local_search(search, start, seed=seed, deadline=deadline)
    info["greedy_objective"] = min(va, vb)
    return sel, master.selection_objective(sel), info
