"""Column generation for Boolean rule sets with a certified gap (Dash, Gunluk & Wei 2018).

``solve(problem, options) -> ColGenSolution`` (unpacks as ``(RuleSet, Certificate)``; it also
carries the column pool).  The capture rows of ``problem`` are
the binary features (row ``j`` = column ``j``), for example
``RuleProblem.from_matrix(X_binary, y, feature_names)``.

Algorithm
---------
1. Restricted master LP (``master.py``) over the clauses generated so far, in one Highs
   object, re-solved warm after each batch of new columns; its duals give ``mu`` (cover
   rows) and ``lambda`` (complexity row).
2. Pricing (``pricing/``, the chain in ``pricing/chain.py``), each pricer tried only when the previous one found nothing
   (``pricers="auto"``): the paper's greedy heuristic; the beam search of AIX360's
   ``BooleanRuleCG`` (width ``beam_width``, clauses of up to D literals, re-run with the
   width doubled up to ``BEAM_WIDENING`` times when it finds nothing; cheap, finds columns
   when the greedy heuristic's capped breadth-first search over many features does not; it
   proves no bound); the exact branch-and-bound
   (``pricing/bnb.py``) restricted to ``_heuristic_max_length`` literals (fast, finds good columns
   when D is large; its bound is not used); the exact branch-and-bound over all clauses of
   up to D literals (returns early once it holds improving columns, see
   ``_found_nodes``); the pricing IP (6)-(10) in CP-SAT.  ``pricers="exact"`` is the
   paper's order (CP-SAT, then the heuristic); ``pricers="heuristic"`` is the paper's greedy
   heuristic only.  Past ``sample_rows`` distinct samples the
   pricers first run on the paper's random sample (rows, and features past
   ``max_nonzeros``), then on the full data.  Returned clauses are made irredundant on the
   training data (a literal that does not change the coverage is dropped, which never
   increases the reduced cost), re-priced exactly on the full data and added when negative.
   Only pricers run on the full data contribute pricing bounds.
3. Stop when pricing proves that no clause has a negative reduced cost (the LP is optimal),
   when the proven bound already equals ``ceil(z_RMLP)`` (no column can raise it), when
   pricing finds nothing within its limits, or at ``max_iter`` / ``_max_columns`` / the
   time limit.
4. Restricted master IP in HiGHS (``restricted_ip.py``) (the same object, clause columns switched to binary),
   warm-started from the best of (a) a greedy rounding of the LP or a greedy cover, improved
   by local search (``improvers/selection_search.py``: add / drop / swap descent and iterated kicks, at most
   the planner's ``"local search"`` share of the time left) and (b) the IP over the LP solution's support
   alone (a small IP given at most half the time left).  When the full restricted IP stalls
   under a time limit, its start is what is returned.
   Then polishing (``improvers/polish.py``, ``polish``): local search over literals from the IP's rule
   set (drop, add or swap a literal, drop a clause, add a clause of one or two literals,
   random kicks), which reaches clauses no dual point made improving; a better rule set's
   clauses become columns and its selection the incumbent.
5. Optional gap closing (``close_gap``): every clause whose reduced cost is small enough to
   appear in a better solution is enumerated and added, then the IP is re-solved (below).
6. A bound still below one error's weight is raised to it when no rule set of complexity
   ``<= C`` is error-free by the packing bound (``provers/packing.py``: positive groups that no
   clause covering no negative covers two at a time, too many to fit ``C``) or, where that
   proves nothing and ``error_free_cover_lps`` allows, by the LP of the least-complexity
   error-free cover (``provers/cover_lp.py``: column generation over those clauses, Farley's bound
   above ``C``, and where that LP is at most ``C``, a reduced-cost enumeration of the
   clauses an error-free rule set could use, then their cover IP).
7. Under a time limit, the time the phases left raises the bound (``provers/lagrangian.py``: the
   last search's descent at the last duals, stopped by the clock).

Lower bound (Lagrangian / LP duality).  For any duals ``mu >= 0``, ``lambda >= 0`` and any
integer solution ``(xi, w)`` with ``xi in [0,1]``,

    obj(xi, w) >= L(mu, lambda) + sum_{k selected} rc_k,
    L = sum_g mu_g - lambda C + sum_g min(0, a_g - mu_g).

If ``z_CG`` is a proven lower bound on every clause's reduced cost (CP-SAT's bound, the
branch-and-bound's bound, the heuristic's bound, or the cheap single-literal bound of
``pricing/instance.py``, all on the full data; the largest is used; the beam search gives none) and a
solution holds at most ``N`` clauses, then ``z_MIP >= L + N min(0, z_CG)``.  Since every
clause has complexity >= 2, ``N = floor(C/2)``: this is the paper's ``z_RMLP + (C/2) z_CG``
(at the RMLP optimum ``L = z_RMLP``), computed from the duals themselves so that it stays
valid whatever the LP's accuracy.  In the penalized form without ``C`` we use
``N = floor(UB / (clause_penalty + literal_penalty))`` for any known objective ``UB``.  With
``empty_clause`` the empty clause is a master column from the start and appears at most once:
its ``min(0, rc)`` is added to ``L`` and ``z_CG`` and ``N`` concern the other clauses.  When
``z_CG >= 0`` the bound is ``z_LP`` (the LP is optimal).  When every objective coefficient
is an integer (unit or integer weights, integer penalties) the bound is rounded up.

The paper states ``ceil(z_RMLP + (C/2) z_CG)``; ``floor(C/2)`` is valid too because the
inequality is applied to integer solutions.  The inequality holds at *any* complexity dual
``t >= 0``, not only the LP's ``lambda``, and clause by clause length (a knapsack over the
lengths that fit in ``C``): ``bounds.py`` derives it and searches ``t`` each iteration where
pricing's best clause is mild (``bound_search_steps`` branch-and-bound calls at larger ``t``,
short clauses priced exactly, long ones only down to a small negative threshold), so that a
fit stopped before the LP is optimal still certifies a bound ``B(mu) - t C - ...`` instead of
``0``.  The certificate's message and ``stats["bound_class"]`` name the class
the bound holds over (clauses of 1..D literals, the empty clause) and say when it is trivial.  Bounds are kept over the iterations (the best
one is reported); ``history`` has one entry per iteration (``rmlp``, ``pricing_bound``,
``lower_bound``; ``objective`` is the best rule set known: the empty one until the restricted
IP), periodic samples of the restricted IP's incumbent (``history_every``) and a final entry.

Stopping ("every run can be stopped and watched", :doc:`/architecture`).  Ctrl-C, the
``callback`` returning True and the memory cap (``memory_limit_mb``) are checked before each iteration and after pricing; the master LP, the
CP-SAT pricer and the restricted IP are stopped inside their solver (``highs.run_watched``),
the combinatorial pricers between chunks.  The loop then ends with ``INTERRUPTED`` /
``MEMORY_LIMIT``: the restricted IP is only warm-started (greedy rounding and a short local
search, no HiGHS solve), gap closing is skipped, and the bound is the best proven so far.

Gap closing.  The same inequality shows that a clause ``k`` can appear in a solution of
objective ``<= UB - granularity`` only if ``rc_k <= UB - granularity - L -
(N - 1) min(0, z_CG)``.  Enumerating all such clauses (a complete search, capped by
``close_gap_columns``) and re-solving the restricted IP therefore solves the master IP
exactly: the certificate's bound becomes the restricted IP's own proven bound.  An
enumeration that its node limit or its cap cuts short has still returned every clause of
reduced cost below its proven bound ``u`` on the rest (``u < T``, ``T`` the threshold above);
a solution holding a clause of reduced cost ``>= u`` costs at least ``UB - granularity -
(T - u)``, so with the clauses below ``u`` added, the least of that and the restricted IP's
bound is a bound of the master IP (tried when it beats the bound so far).  The enumeration
is also a pricing proof at its duals (no clause it did not return costs less than ``u``), so
the Lagrangian bound there, with the returned clauses as knapsack items, is tried too
(``gap_closing._enumerated_lagrangian``).  With an integral
objective the whole threshold gets half of ``close_gap_nodes``; when that does not
finish (its node limit, not the cap, stopped it), the rest climbs a ladder of lower
thresholds, each the one that proves the next integer (``gap_closing.gap_ladder``;
``stats["gap_closing"]["ladder"]`` lists the rungs).  Past the cap the ladder is climbed only
with ``ladder_after_cap``: a fit whose enumeration reaches the cap early would otherwise
spend the rest of the node budget on the ladder.

CNF (De Morgan).  A CNF over the features is the negation of a DNF over the negated
features for the negated labels; we learn that DNF (labels and features complemented,
``fn_weight`` applying to the original negatives) and report its clauses as CNF clauses.
"""
from __future__ import annotations

import dataclasses
import logging
import time

import numpy as np

from ... import _compat
from ...certificate import Certificate, Solution, Termination, certify
from ...limits import Deadline, resolve_memory_limit_mb
from ...monitor import Monitor, catch_interrupt, interrupt_requested, reporting
from ...models.ruleset import RuleSet, ruleset_objective
from .. import cpsat as cx
from .. import highs as hx
from .provers.lagrangian import dual_search
from .bounds import Duals, conflict_bound, read_duals
from .master import RestrictedMaster
from .options import ColGenOptions, check_problem, resolve
from .pricing import PricingRound, price
from .plan import seconds_left
from .restricted_ip import RestrictedIP, solve_restricted_ip
from .state import CONFLICT_DETAIL, BoundKind, Run, State, improving_clauses, irredundant
from .steps import run_steps

log = logging.getLogger(__name__)



@dataclasses.dataclass(frozen=True)
class ColGenSolution(Solution):
    """What :func:`solve` returns; unpacks as ``rule_set, certificate = solve(...)``.

    ``column_pool`` holds every clause the master held (in the learned DNF's features, the
    ``initial_clauses`` of a later solve on the same data); ``solution_clauses`` the clauses of
    the returned rule set in the same features (an ``initial_solution``).
    """

    model: RuleSet
    certificate: Certificate
    column_pool: list[tuple[int, ...]]
    solution_clauses: list[tuple[int, ...]]
    bound_state: BoundState | None = None
    """What :func:`rulecert.mipmodels.colgen.strengthen_bound` needs to raise the bound
    later (None: no iteration ran)."""


@dataclasses.dataclass(frozen=True)
class BoundState:
    """The last duals column generation priced at, and what pricing proved there: any
    ``mu >= 0`` gives a valid Lagrangian bound (``bounds.py``), so a later search at these
    duals may raise the certified bound of a finished solve."""

    options: ColGenOptions
    duals: Duals
    pricing_bound: float
    """The proven lower bound on the reduced costs at ``duals``."""
    ub: float
    """An upper bound on the objective (the empty rule set's)."""
    fingerprint: str
    """``State.fingerprint`` of the instance solved."""
    bound_kind: BoundKind
    bound_detail: str
    bound_class: str
    share: float = 0.1
    """The share of ``z_RMLP`` the complexity-dual descent starts from (``bounds.py``): where
    the solve's last search at ``duals`` started, else where its next one would have."""
    searched_nodes: float = 0
    """The node budget of the last search the solve itself ran at ``duals`` on counted
    limits alone (``final_bound_nodes``, ``inf`` for none; 0: no such search).  The
    descent from ``share`` is the same for every budget but in its last call's limit, so a
    budget no larger than this cannot raise the bound past the solve's."""


def _clean(cl) -> tuple[int, ...]:
    return tuple(sorted({int(j) for j in cl}))


def solve(problem, options: ColGenOptions | None = None, *, effort: str | None = None,
          initial_clauses=None, initial_solution=None, callback=None,
          **settings) -> ColGenSolution:
    """Learn a DNF (or CNF) rule set by column generation; returns a :class:`ColGenSolution`
    (unpacks as ``(RuleSet, Certificate)``).

    ``settings`` are options by their flat names (:class:`ColGenOptions`), set over
    ``options``; ``effort`` ("fast", "default", "certify": :mod:`.presets`) gives the budgets
    neither sets.  Every option is checked before any work.  ``initial_clauses`` (clauses as
    sets of feature indices in the learned DNF's features, e.g. the ``column_pool`` of an
    earlier solve on the same data; longer than ``D``: skipped) start the master;
    ``initial_solution`` (a rule set's clauses, e.g. an earlier ``solution_clauses``) is the
    restricted IP's start when it fits ``C`` and beats the greedy one.  ``callback`` is called with the progress info dict of
    :mod:`rulecert.monitor` at every iteration and history sample; returning True stops the
    solve (``INTERRUPTED``).  Ctrl-C stops it cleanly too (the solve runs under
    :func:`rulecert.monitor.catch_interrupt`): the LP, pricing and the restricted IP are
    interrupted, and the rule set of the columns held is returned with the bound proven so
    far (the restricted IP is then only warm-started: greedy rounding and local search).
    """
    if effort is not None:
        o = resolve(effort, problem.n_samples, options, **settings)
    else:
        o = (options or ColGenOptions()).replace(**settings)
    check_problem(problem)
    with catch_interrupt():
        run = _setup(problem, o, callback, initial_clauses, initial_solution)
        with reporting(run.monitor):    # progress also from inside pricing and the provers
            while run.stop is None:
                try:
                    if not run.check_stop():
                        _iterate(run)
                except KeyboardInterrupt:
                    if interrupt_requested():
                        raise  # the second Ctrl-C: abort
                    run.halt("interrupted", Termination.INTERRUPTED,
                             "interrupted (KeyboardInterrupt raised by the callback)")
            run.cg_time = time.perf_counter() - run.t0
            ip = solve_restricted_ip(run, _clean)
            run_steps(run, ip)
            return _finalize(run, ip, problem)


# ---- setup --------------------------------------------------------------------------------
def _setup(problem, o: ColGenOptions, callback=None, initial_clauses=None,
           initial_solution=None) -> Run:
    """The transformed instance, the master and its first columns (the empty clause,
    ``initial_clauses`` and ``initial_solution``)."""
    t0 = time.perf_counter()
    end = Deadline(o.limits.time_limit, start=t0)
    cg_end = Deadline(None if o.limits.time_limit is None
                      else (1.0 - o.limits._ip_time_fraction) * float(o.limits.time_limit), start=t0)
    st = State(problem, o)
    run = Run(o, st, RestrictedMaster(st.a, st.C, workers=1, seed=o.seed),
               np.random.default_rng(o.seed), end, cg_end, float(st.a.sum()),
               (1.0 - 1e-6) if st.integral else 1e-9,   # an integral objective moves by >= 1
               monitor=Monitor("colgen", deadline=Deadline(None, start=t0),
                               memory_limit_mb=resolve_memory_limit_mb(o.limits.memory_limit_mb),
                               callback=callback, history_every=o.history_every))
    run.master.monitor = run.monitor
    run.conflict_floor = conflict_bound(st)
    run.offer_bound(run.conflict_floor, BoundKind.CONFLICT_FLOOR, CONFLICT_DETAIL)
    if o.model.empty_clause:
        run.add_clauses([()])
    run.initial_solution = None if initial_solution is None else list(initial_solution)
    if initial_clauses or initial_solution:
        init = []
        for cl in map(_clean, list(initial_clauses or []) + list(initial_solution or [])):
            if not cl and o.model.empty_clause:
                continue   # already a column
            if not cl or max(cl) >= st.d or min(cl) < 0:
                raise ValueError(f"initial clause {cl!r} is not a non-empty set of feature "
                                 f"indices in [0, {st.d})")
            if len(cl) <= st.D:
                init.append(cl)
        run.add_clauses(init)
    return run


# ---- one column-generation iteration ------------------------------------------------------
def _iterate(run: Run) -> None:
    """LP solve, pricing chain, bound update, stop test, new columns."""
    if run.cg_end.expired():
        run.halt("time_limit", Termination.TIME_LIMIT, "time limit in column generation")
        return
    duals = _solve_lp(run)
    if duals is None:
        return
    rnd = price(run.st.X, duals.v, duals.const, duals.lit, run.st.D, run.o, rng=run.rng,
                iteration=run.it, cg_deadline=run.cg_end,
                improving=lambda inst, r: improving_clauses(run.st, duals, inst, r, run.o.tol),
                times=run.times, calls=run.calls, log=run.pricing_log, monitor=run.monitor)
    run.sampled_any |= rnd.sampled
    _update_bound(run, duals, rnd)
    if run.check_stop() or _converged(run, rnd):
        return
    _add_round(run, rnd.clauses)


def _solve_lp(run: Run) -> Duals | None:
    """The restricted master LP and its duals (None, with the stop recorded, on failure)."""
    ta = time.perf_counter()
    lp_res, mu, lam = run.master.solve_lp(seconds_left(run.cg_end))
    run.times["lp"] += time.perf_counter() - ta
    if mu is None:
        if run.check_stop():  # the LP was stopped by Ctrl-C, the callback or the memory cap
            return None
        run.halt("time_limit" if lp_res.termination is Termination.TIME_LIMIT else "lp_failed",
                 (lp_res.termination if lp_res.termination is not Termination.OPTIMAL
                  else Termination.ERROR), f"restricted master LP: {lp_res.message}")
        return None
    run.last_rmlp = lp_res.objective
    return read_duals(run.st, lp_res.objective, mu, lam, run.o.model.empty_clause)


def _update_bound(run: Run, duals: Duals, rnd: PricingRound) -> None:
    """This iteration's Lagrangian bound (the prover :func:`.provers.lagrangian.dual_search`,
    at the best complexity dual it finds) offered to :meth:`Run.offer_bound`; the improving
    clauses its search found join the round's; the history sample (and the progress
    callback), whose objective is the best rule set known: the empty one until the
    restricted IP."""
    st, zlb = run.st, rnd.bound
    run.last_priced = (duals, zlb)
    sr, proof = dual_search(run, duals, rnd)
    run.offer_bound(proof.bound, proof.kind, proof.detail)
    if sr.clauses:
        have = set(rnd.clauses)
        for cl in sr.clauses:
            g = irredundant(st.X, tuple(sorted(cl)))
            if g not in have and st.coverage(g).tobytes() not in st.keys:
                have.add(g)
                rnd.clauses.append(g)
    run.monitor.sample(run.ub_empty, run.best_bound, event="iteration", iterations=run.it,
                       rmlp=run.last_rmlp, pricing_bound=zlb, pricing_bound_kind=rnd.bound_kind,
                       complexity_dual=sr.t, iteration_bound=proof.bound,
                       complexity_dual_steps=sr.steps, columns=run.master.n_columns,
                       new_columns=len(rnd.clauses))
    log.debug("cg iter %d: rmlp=%.6g zlb=%.6g bound=%.6g new=%d", run.it, run.last_rmlp, zlb,
              run.best_bound, len(rnd.clauses))


def _converged(run: Run, rnd: PricingRound) -> bool:
    """The stop test after pricing: the LP is optimal, the bound is attained, or pricing
    found nothing."""
    zlb = rnd.bound
    if zlb >= -run.o.tol:
        run.halt("converged", Termination.OPTIMAL, "pricing proved the LP optimal")
    elif run.best_bound >= run.st.round_bound(run.last_rmlp) - 1e-9:
        # no column can raise the bound any more (it is ceil(z_RMLP) >= ceil(z_MLP))
        run.halt("lp_bound_attained", Termination.OPTIMAL,
                 "the lower bound equals the restricted LP bound")
    elif not rnd.clauses:
        stop, term = "pricing_exhausted", Termination.ITERATION_LIMIT
        if run.cg_end.expired():
            stop, term = "time_limit", Termination.TIME_LIMIT
        elif rnd.last is not None and rnd.last.termination is Termination.TIME_LIMIT:
            term = Termination.TIME_LIMIT
        run.halt(stop, term, "pricing found no improving clause within its limits and did not "
                 f"prove that none exists (best pricing bound {zlb:.6g})")
    return run.stop is not None


def _add_round(run: Run, new: list) -> None:
    """Add the round's columns (up to ``_max_columns``) and apply the iteration limits."""
    o = run.o
    if o.limits._max_columns is not None:
        room = o.limits._max_columns - run.master.n_columns
        new = new[:max(0, room)]
    run.add_clauses(new)
    run.it += 1
    if o.limits.max_iter is not None and run.it >= o.limits.max_iter:
        run.halt("max_iter", Termination.ITERATION_LIMIT, f"max_iter={o.limits.max_iter} reached")
    elif o.limits._max_columns is not None and run.master.n_columns >= o.limits._max_columns:
        run.halt("max_columns", Termination.ITERATION_LIMIT,
                 f"max_columns={o.limits._max_columns} reached")


# ---- model and certificate ----------------------------------------------------------------
def _finalize(run: Run, ip: RestrictedIP, problem) -> ColGenSolution:
    """The rule set of the selection, its exact objective and the certificate."""
    o, st = run.o, run.st
    term, unproven_msg = _termination(run, ip)
    clauses = [st.clauses[k] for k in np.flatnonzero(ip.selected)]
    clauses.sort(key=lambda c: (len(c), c))
    rs = RuleSet.from_feature_sets(clauses, o.model.form, problem.antecedent_names)
    score = ruleset_objective(rs, problem, fn_weight=o.model.fn_weight, clause_penalty=o.model.clause_penalty,
                              literal_penalty=o.model.literal_penalty)
    objective = float(score.objective)
    if abs(objective - ip.objective) > 1e-6 * max(1.0, abs(objective)):
        raise RuntimeError(f"internal error: master objective {ip.objective} != exact "
                           f"objective {objective}")
    if run.positive_side_deferred is not None:
        run.positive_side_deferred[1]["skipped"] = ("nothing left to prove after the descent, "
                                                    "or no time")
        run.positive_side_deferred = None
    cert = certify(
        objective, run.best_bound, term, solver="colgen(highs+cp-sat)",
        solver_version=f"highs {hx.highs_version()}, ortools {cx.cpsat_version()}",
        abs_tol=1e-6 if st.integral else 1e-9 * max(1.0, abs(objective)),
        nodes=int(ip.result.nodes) if ip.result is not None else 0, iterations=run.it,
        wall_time=time.perf_counter() - run.t0, seed=o.seed,
        warm_start_objective=ip.start_objective, message=run.stop_msg, history=run.history,
        stats=_stats(run, ip, rs, score, clauses))
    if not cert.proven_optimal and unproven_msg is not None:
        cert.message = unproven_msg
    said = bound_message(run.bound_kind, run.bound_detail, _bound_class(run), cert)
    pk, ef = run.packing, run.error_free_lp
    if pk is not None and pk["stopped"]:
        said += " (the packing bound was tried, and the time limit stopped it)"
    elif pk is not None and pk["bound"] <= 0 and pk["clique_size"] and (
            ef is None or ef["bound"] <= 0):
        said += (f" (nor the packing bound: its heaviest clique of positive groups needs "
                 f"complexity {pk['clique_complexity']:g} <= C"
                 + ("" if ef is None else
                    f", nor the error-free cover LP: {ef['stopped']}, its restricted LP "
                    f"{ef['restricted_lp'] or 0:.6g}")
                 + ", so an error-free rule set may fit)")
    said += _lp_ceiling_message(run, cert)
    cert.message = f"{cert.message}; {said}" if cert.message else said
    run.history.append({"time": time.perf_counter() - run.t0, "iteration": run.it,
                        "objective": objective, "lower_bound": cert.lower_bound,
                        "phase": "restricted IP", "event": "end"})
    share, searched = run.searched or (run.share, 0)
    state = None if run.last_priced is None else BoundState(
        o, run.last_priced[0], run.last_priced[1], run.ub_empty, st.fingerprint(),
        run.bound_kind, run.bound_detail, _bound_class(run), share, searched)
    return ColGenSolution(rs, cert, list(st.clauses), [tuple(c) for c in clauses], state)


def _termination(run: Run, ip: RestrictedIP) -> tuple[Termination, str | None]:
    """Why the solve stopped if its bound does not meet its objective, and the message that
    then replaces the loop's stop message (None: keep it)."""
    if run.stop not in ("converged", "lp_bound_attained"):
        return run.stop_term or Termination.ERROR, None
    why = run.monitor.should_stop()
    if why is not None and why[0] is not Termination.TIME_LIMIT:
        return why[0], f"LP optimal; stopped after column generation: {why[1]}"
    if ip.result is not None and ip.result.termination is not Termination.OPTIMAL:
        return ip.result.termination, f"LP optimal; restricted IP stopped: {ip.result.message}"
    if run.end.expired():
        return Termination.TIME_LIMIT, "LP optimal; time limit while closing the gap"
    return Termination.ITERATION_LIMIT, ("LP optimal but fractional: the restricted IP optimum "
                                         "exceeds the LP bound and gap closing was off or hit "
                                         "its column cap")


def _bound_class(run: Run) -> str:
    """The rule sets over which the lower bound holds."""
    st = run.st
    cl = f"clauses of 1..{st.D} literals" + (" and the empty clause" if run.o.model.empty_clause else "")
    cx_ = f"complexity <= {st.C:g}" if st.C is not None else "any complexity (penalized)"
    return f"{run.o.model.form.upper()} rule sets of {cx_} over {cl}"


def _lp_ceiling_message(run: Run, cert: Certificate) -> str:
    """Where the bound did not meet the objective and the relaxation cannot meet it either:
    the least gap any bound from the LP relaxation could certify (so that a user knows the
    rest of the gap needs a better rule set or a bound beyond the relaxation)."""
    top = run.lp_ceiling()
    if cert.proven_optimal or top is None or cert.objective <= 0 or \
            not cert.lower_bound <= top < cert.objective - 1e-9 * max(1.0, cert.objective):
        return ""
    return (f" (the restricted LP is {run.last_rmlp:.6g}, so no bound from the LP relaxation "
            f"exceeds {top:.6g}: gap >= {(cert.objective - top) / cert.objective:.1%}; less "
            f"needs a better rule set or a bound beyond the relaxation, such as branching)")


def bound_message(kind: BoundKind, detail: str, cls: str, cert: Certificate) -> str:
    """The certificate message's account of the bound: which bound, over which rule sets."""
    if cert.lower_bound <= 0.0 and cert.objective > 0.0:
        return (f"the lower bound is trivial (0): nothing proven by pricing gave a positive "
                f"bound over {cls}")
    if kind is BoundKind.CONFLICT_FLOOR and not cert.proven_optimal:
        return (f"the lower bound is only the conflict floor ({detail}; it needs no search, and "
                f"nothing beyond it was proven) over {cls}")
    return f"lower bound ({kind.value}{': ' + detail if detail else ''}) over {cls}"


def _stats(run: Run, ip: RestrictedIP, rs: RuleSet, score, clauses) -> dict:
    """The certificate's ``stats`` (a record for humans and JSON)."""
    st, stop = run.st, run.stop
    top = run.lp_ceiling()
    return {"bound_kind": run.bound_kind.value, "bound_detail": run.bound_detail,
            "bound_class": _bound_class(run), "bound_trivial": run.best_bound <= 0.0,
            "conflict_floor": run.conflict_floor,
            "bound_is_conflict_floor": run.bound_kind is BoundKind.CONFLICT_FLOOR,
            "bound_at_lp_ceiling": top is not None and run.best_bound >= top - 1e-9
            and run.gap_open(ip.objective), "stop_reason": stop, "cg_iterations": run.it,
            "columns": run.master.n_columns, "rmlp_objective": run.last_rmlp,
            "lp_ceiling": run.lp_ceiling(),
            "lp_converged": stop == "converged",
            "lp_bound_attained": stop in ("converged", "lp_bound_attained"),
            "pricing_calls": run.calls, "pricing_log": run.pricing_log,
            "sampled_pricing": run.sampled_any, "max_clause_length": st.D,
            "complexity_bound": st.C, "form": run.o.model.form, "integral_objective": st.integral,
            "restricted_ip_objective": ip.objective, "restricted_ip_start": ip.start,
            "local_search": ip.local_search, "support_ip": ip.support,
            "restricted_ip_bound": ip.bound,
            "restricted_ip_termination": (None if ip.result is None
                                          else ip.result.termination.value),
            "gap_closing": run.gap_info, "packing": run.packing,
            "error_free_lp": run.error_free_lp,
            "bound_time_left": run.time_left_search,
            "positive_side": run.positive_side, "steps": run.steps,
            "polish": run.polish,
            "dive": None if run.dive is None else {k: v for k, v in run.dive.items()
                                                   if k != "selection"},
            "time": {**run.times, "column_generation": run.cg_time},
            "hamming_loss": score.hamming_loss, "complexity": rs.complexity,
            "training_errors": score.errors}

__getattr__ = _compat.renamed(__name__)
