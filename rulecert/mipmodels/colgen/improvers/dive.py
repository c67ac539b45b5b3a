"""A column-generation dive: a primal heuristic after the restricted IP.

Column generation ends with an LP solution that is often far from integral, and the
restricted IP over the columns it generated may hold no good integral solution: columns that
combine well fractionally need not combine well whole.  This is sharpest when the LP bound
is (near) 0, i.e. the positives can be covered fractionally by (nearly) pure clauses.

The dive (diving with column generation, as in branch-and-price heuristics, e.g. Sadykov et
al., INFORMS J. Computing 2019): fix the column of largest fractional LP value to 1 (its
lower bound; it must fit in what is left of C), re-run column generation on the restricted
LP with the fixings for at most ``dive_rounds`` pricing rounds, while its
branch-and-bound pricers have nodes left of ``dive_nodes`` (then it only fixes), and
repeat until the LP solution is integral (that is the dive's rule set) or no fractional
column fits in C (then the columns at 1 are).  Before the first fixing it prices only when
column generation stopped with pricing still finding clauses (``max_iter``).  Pricing is the
solve's own chain on the restricted LP's duals: a column's reduced cost does not depend on
bounds of other columns, so the clauses it finds are valid columns; but those duals are not
those of the master LP, so nothing the dive prices enters the lower bound.  Its columns stay
in the master, the fixings are released, and the restricted IP is solved again over all the
columns from the better of its own selection and the dive's rule set
(``restricted_ip.resolve_after_dive``): never worse than without the dive.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ....limits import Deadline
from ..bounds import read_duals
from ..pricing import price

_INTEGRAL = 1e-6


def _stopped(run, end: Deadline) -> str | None:
    """Why the dive must stop now: its time share, or Ctrl-C, the user's callback or the memory
    cap (the monitor's termination, e.g. "interrupted", which then stops the solve as in
    column generation: the restricted IP is not solved again, no gap closing); None: go on."""
    if end.expired():
        return "time limit"
    term = run.check_stop("in the dive", overriding=True)
    return None if term is None else term.value


def dive_applies(run, ip) -> bool:
    """The dive is on, the master LP did not fail and holds columns."""
    return run.o.primal.dive and run.stop != "lp_failed" and run.master.n_columns > 0


def dive(run, improving, end: Deadline) -> dict:
    """Dive from the restricted LP of ``run`` (:class:`.state.Run`); ``improving(duals)`` turns a
    pricing result into the master's new clauses.  Returns the record of the dive (its
    rule set, a bool selection over the columns, in ``"selection"``; None when it found
    none); the fixings are released, its columns stay."""
    master, st, o = run.master, run.st, run.o
    t0 = time.perf_counter()
    budget = math.inf if st.C is None else st.C
    # the penalized form has no C to run out of: at most the clauses that a rule set better
    # than the empty one holds
    most = st.n_max(run.ub_empty) if st.C is None else math.inf
    n0, fixed, used, iterations, nodes = master.n_columns, [], 0.0, 0, 0
    info = {"selection": None, "objective": None, "stop": None}   # the counts: at the end

    nodes_left = math.inf if o.primal.dive_nodes is None else o.primal.dive_nodes

    def lp():
        res, mu, lam = master.solve_lp(end.remaining())
        return res, (None if mu is None else read_duals(st, res.objective, mu, lam,
                                                          o.model.empty_clause))
    # column generation that ended with pricing finding no clause leaves nothing to price
    # before the first fixing
    rounds = 0 if run.stop in ("converged", "pricing_exhausted") else o.primal.dive_rounds
    try:
        while True:
            res, duals = lp()
            for _ in range(rounds):                # column generation under the fixings
                if duals is None or nodes_left <= 0 or _stopped(run, end):
                    break
                # the branch-and-bound pricers get what is left of the dive's nodes
                oi = o if nodes_left == math.inf else o.replace(
                    pricing_nodes=int(min(o.pricing.pricing_nodes or math.inf, nodes_left)))
                round_log = []
                rnd = price(st.X, duals.v, duals.const, duals.lit, st.D, oi, rng=run.rng,
                            iteration=run.it + iterations, cg_deadline=end,
                            improving=improving(duals), times=run.times, calls=run.calls,
                            log=round_log, monitor=run.monitor, history=run.pricing_log)
                used_nodes = sum(c["work"] for c in round_log if c["method"].startswith("bnb"))
                nodes_left -= used_nodes
                nodes += used_nodes
                iterations += 1
                added = run.add_clauses(rnd.clauses)
                # progress (and the user's callback, which may stop the solve); no bound
                run.monitor.sample(run.ub_empty, run.best_bound, event="dive", phase="dive",
                                   fixed=len(fixed), dive_iterations=iterations,
                                   columns=master.n_columns, new_columns=added)
                if not added:
                    break
                res, duals = lp()
            if duals is None:
                info["stop"] = _stopped(run, end) or f"restricted LP: {res.termination.value}"
                break
            x = master.clause_values(res.x)
            # (a fixed column is >= 1: never fractional)
            frac = np.flatnonzero((x > _INTEGRAL) & (x < 1 - _INTEGRAL))
            if not len(frac):
                info["selection"], info["stop"] = x > 0.5, "integral LP solution"
                break
            why = _stopped(run, end)
            if why:
                info["stop"] = why
                break
            cpx = np.asarray(master.complexities, dtype=float)
            fits = [j for j in frac if used + cpx[j] <= budget + 1e-9]
            if len(fixed) >= most:
                fits = []
            if not fits:             # the columns at 1 (the fixed among them) fit in C
                info["selection"], info["stop"] = x >= 1 - _INTEGRAL, "no fractional column fits"
                break
            j = max(fits, key=lambda k: (x[k], -k))   # the largest value, ties by index
            fixed.append(int(j))
            used += cpx[j]
            master.fix_columns([j], 1.0)
            rounds = o.primal.dive_rounds
    finally:
        master.fix_columns(fixed, 0.0)
    sel = info["selection"]
    if sel is not None:
        sel = info["selection"] = master.padded(sel)
        info["objective"] = master.selection_objective(sel)
    info.update(fixed=len(fixed), iterations=iterations, columns=master.n_columns - n0,
                nodes=nodes, seconds=time.perf_counter() - t0)
    return info
