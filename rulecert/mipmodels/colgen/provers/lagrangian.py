"""The searches for a better Lagrangian bound during and at the end of column generation.

Each iteration where pricing's best clause is mild, :func:`dual_search` searches the
complexity dual ``t`` that maximises the bound at the LP's cover duals
(``bounds.complexity_dual_search``); where pricing found no clause and column generation
stops, the last search (:func:`final_bound_search`, also ``strengthen_bound``'s) descends in
``t`` under ``final_bound_nodes`` nodes in all (``bounds.complexity_dual_descent``).
Under a time limit, :func:`raise_bound_with_time_left` spends the time the phases left on
the same descent at the last duals, stopped by the clock.  All price with
:func:`bound_pricer`: the exact branch-and-bound on the full data, node-limited, whose bound
at its limit is proven.  The mathematics is ``bounds.py``'s.
"""
from __future__ import annotations

import math
import time
from collections.abc import Iterator

from ....limits import Deadline
from ....monitor import interrupt_requested
from ..bounds import (NODES_STOPPED, DualSearch, Duals, complexity_dual_descent,
                     complexity_dual_search)
from ..options import ColGenOptions
from ..pricing import PricingRound, price_by_branch_and_bound
from ..plan import SHARES, seconds_left, step_deadline
from ..restricted_ip import RestrictedIP
from ..state import BoundKind, Proof, Run, State, reduced_cost




FINAL_BOUND_SEARCH_STEPS = 40
"""At most this many pricing calls in the last search, when pricing found no clause (column
generation then stops): a descent in ``t`` under ``final_bound_nodes`` nodes in all
(``bounds.complexity_dual_descent``), each proof about twice the nodes of the one before,
so the node budget, not this count, ends it."""
BOUND_ENUMERATION_CAP = 2000
"""The complexity-dual search enumerates every clause of negative reduced cost at its ``t``
(bounds.knapsack_bound's items); past this many the step counts as unproven."""


def bound_pricer(st: State, o: ColGenOptions, deadline=lambda: None, account=None,
                 hard_end: float | None = None):
    """The pricer of the complexity-dual searches (``bounds.py``): the exact branch-and-bound
    on the full data, node-limited (its bound at the limit is proven).  ``price_at(duals_t,
    share, node_limit) -> (classes, clauses, complete, items, nodes)``; with ``share`` 0 one
    call enumerates every clause below 0 (the last search's), else two calls (short clauses,
    and long ones down to a threshold) each get ``node_limit``; ``deadline()`` gives
    the calls' wall-clock end (None: none), ``account(seconds, nodes)`` is told each call's
    work; a call that the clock or Ctrl-C stopped reports ``NODES_STOPPED`` nodes (with
    ``hard_end``, only a call stopped at that time: one that its own ``deadline()`` stopped
    before it reports its nodes, a failed step of the descent)."""

    def price_at(dt: Duals, share: float, node_limit: int | None = o.certification.bound_nodes):
        if interrupt_requested():       # Ctrl-C between calls: none starts (no bound proven)
            return [(2, -math.inf)], [], False, None, NODES_STOPPED
        tp = time.perf_counter()
        end = deadline()
        bb = dict(K=BOUND_ENUMERATION_CAP, tighten=False, deadline=end, workers=o.workers)
        L = o.certification._bound_short_length
        if st.D <= L or st.C is None or share <= 0:
            parts = [(price_by_branch_and_bound(st.X, dt.v, dt.const, dt.lit, st.D,
                                                node_limit=node_limit, **bb), 2, 0, 0.0)]
        else:
            # short clauses exactly; the few long ones that fit (complexity >= L + 2) only
            # down to u: a proof much cheaper than rc >= 0 (bounds.knapsack_bound); each
            # call has the node limit
            n_long = max(1, math.floor(st.C / (L + 2)))
            u = -share * max(abs(dt.rmlp), 1e-9) / n_long
            parts = [(price_by_branch_and_bound(st.X, dt.v, dt.const, dt.lit, L,
                                                node_limit=node_limit, **bb), 2, 0, 0.0),
                     (price_by_branch_and_bound(st.X, dt.v, dt.const, dt.lit, st.D, upper=u,
                                                node_limit=node_limit, **bb), L + 2, L, u)]
        complete = all(r.complete for r, *_ in parts)
        # the enumerated clauses of each part's own class (the long search's short clauses
        # are the short search's too); complete: every skipped clause of a class is >= its
        # threshold; else each part's proven bound holds for its whole class
        found = {cl: rc for r, _, shorter, _ in parts
                 for cl, rc in zip(r.clauses, r.reduced_costs) if len(cl) > shorter}
        if complete:
            classes = [(c, thr) for _, c, _, thr in parts]
            items = [(rc, 1 + len(cl)) for cl, rc in found.items()]
        else:
            classes, items = [(c, r.bound) for r, c, _, _ in parts], None
        best = sorted(found, key=found.get)[:o.pricing.columns_per_iter]
        now, nodes = time.perf_counter(), sum(r.nodes for r, *_ in parts)
        if account is not None:
            account(now - tp, nodes)
        stopped = (end is not None and now >= end if hard_end is None else now >= hard_end) \
            or interrupt_requested()
        return classes, best, complete, items, NODES_STOPPED if stopped else nodes
    return price_at


def final_search_steps(o: ColGenOptions) -> int:
    """The pricing calls of the last search (the solve's and ``strengthen_bound``'s)."""
    return max(o.certification.bound_search_steps, FINAL_BOUND_SEARCH_STEPS)


def final_bound_search(st: State, o: ColGenOptions, duals: Duals, zlb: float, found: list, ub: float,
                       price_at, budget: int | None, steps: int | None = None,
                       first_limit: int | None | str = "bound_node_limit", **kw):
    """The last bound search, of a solve whose pricing found no clause and of
    ``strengthen_bound``: the descent in the complexity dual (``bounds.py``) under ``budget``
    nodes in all, every clause below 0 enumerated (``price_at`` of :func:`bound_pricer` at
    share 0: the long-clause threshold's proofs can cost as many nodes as lowering t to the
    same bound, or more); ``steps`` None: :func:`final_search_steps`; ``first_limit``: the
    first calls' node limit (the ``bound_nodes`` option by default), the other keywords
    ``complexity_dual_descent``'s."""
    if steps is None:
        steps = final_search_steps(o)
    if first_limit == "bound_node_limit":
        first_limit = o.certification.bound_nodes
    return complexity_dual_descent(st, duals, zlb, found, ub,
                                   lambda dt, f, limit: price_at(dt, 0.0, limit), budget,
                                   first_limit, steps, o.tol, **kw)


def dual_search(run: Run, duals: Duals, rnd: PricingRound) -> tuple[DualSearch, Proof]:
    """The prover of each iteration: the complexity dual search of ``bounds.py``
    (:func:`bound_pricer`) at the iteration's duals, under the planner's ``"bound search"``
    share of a time limit.  Reads the round's pricing bound and clauses and the run's
    search schedule (which it advances); returns the search and its :class:`Proof`, named by
    what proved it (the LP optimal where pricing proved no negative reduced cost, else the
    Lagrangian bound at the complexity dual the search chose); the duals of the best bound so
    far are kept in ``run.best_duals``."""
    o, st = run.o, run.st

    def deadline():
        left = _bound_search_seconds(run)
        return None if left is None else min(run.cg_end.end,
                                             time.perf_counter() + max(0.0, left))

    price_at = bound_pricer(st, o, deadline, _accounting(run))

    # only where pricing's best clause is mild (the paper's bound with it as z_CG would lose
    # under 30% of z_RMLP): far from convergence no t makes these duals a good bound
    rc_best = min((reduced_cost(st, duals, c) for c in rnd.clauses), default=0.0)
    mild = st.C is None or rc_best * st.C / 2 >= -0.3 * abs(duals.rmlp)
    steps = o.certification.bound_search_steps if mild and not run.cg_end.expired() else 0
    last = o.limits.max_iter is not None and run.it + 1 >= o.limits.max_iter
    final = not rnd.clauses and steps > 0
    if final:
        # pricing found nothing: column generation stops here (unless the search finds a
        # clause) in this run and in any longer one, so a longer search keeps the bound
        # non-decreasing in the limits; it is the last chance to raise it
        steps = final_search_steps(o)
    elif run.it < run.search_next and not last:
        steps = 0   # backoff: searches that do not raise the bound come ever more rarely
    left = _bound_search_seconds(run)
    if left is not None and left <= 0.0:
        steps = 0   # under a time limit the search must not starve column generation
    run.searched = None
    if final:
        sr = final_bound_search(st, o, duals, rnd.bound, rnd.clauses, run.ub_empty, price_at,
                                o.certification.final_bound_nodes, steps, best_known=run.best_bound,
                                share=run.share, affordable=_affordable(run, deadline))
        if steps and deadline() is None and not interrupt_requested():
            budget = o.certification.final_bound_nodes
            run.searched = (run.share, math.inf if budget is None else budget)
        run.descent = (duals, sr.proofs, sr.clauses)
    else:
        sr = complexity_dual_search(st, duals, rnd.bound, rnd.clauses, run.ub_empty,
                                    lambda dt, f: price_at(dt, f)[:4], steps, o.tol,
                                    best_known=run.best_bound, share=run.share)
    if steps:   # the next iteration starts from a little below the last proven share
        run.share = 0.1 if sr.share is None and run.share >= 0.9 else (
            min(0.9, 3 * run.share) if sr.share is None else max(0.01, 0.7 * sr.share))
        # deterministic backoff (counted in iterations, not seconds): after a search that
        # did not raise the best bound, wait twice as long before the next one
        run.search_gap = 1 if sr.bound > run.best_bound else 2 * run.search_gap
        run.search_next = run.it + run.search_gap
    if run.best_duals is None or sr.bound >= run.best_duals[0]:
        run.best_duals = (sr.bound, sr.duals, sr.z)
    return sr, _iteration_proof(sr, duals, rnd, o.tol)


def _iteration_proof(sr: DualSearch, duals: Duals, rnd: PricingRound, tol: float) -> Proof:
    """The bound of :func:`dual_search`, named by what proved it."""
    if rnd.bound >= -tol:
        return Proof(sr.bound, BoundKind.LP_OPTIMAL, "pricing proved no negative reduced cost")
    if sr.t != duals.lam and sr.items:
        return Proof(sr.bound, BoundKind.LAGRANGIAN,
                     f"enumerated knapsack (the {sr.items} clauses of negative reduced cost at "
                     f"complexity dual {sr.t:.6g} > LP's {duals.lam:.6g}, each at most once, "
                     "within C)")
    if sr.t != duals.lam:
        return Proof(sr.bound, BoundKind.LAGRANGIAN,
                     f"normalised by complexity (complexity dual {sr.t:.6g} > LP's "
                     f"{duals.lam:.6g}, bnb pricing bound)")
    return Proof(sr.bound, BoundKind.LAGRANGIAN, f"{rnd.bound_kind} pricing bound")


def _accounting(run: Run, used: list | None = None):
    """The ``account`` of :func:`bound_pricer` for a solve's own searches: each call's seconds
    and count go to the solve's ``times`` / ``calls`` under "bound_search" (and its nodes to
    ``used[0]``); the largest call so far is the pace, ``run.bound_pace``."""

    def account(seconds, nodes):
        if used is not None:
            used[0] += nodes
        run.times["bound_search"] = run.times.get("bound_search", 0.0) + seconds
        run.calls["bound_search"] = run.calls.get("bound_search", 0) + 1
        if nodes > run.bound_pace[0] and seconds > 0:
            run.bound_pace = (nodes, seconds)
    return account


def _affordable(run: Run, end):
    """``complexity_dual_descent``'s ``affordable`` for calls that ``end()`` stops: the nodes
    the time until then buys at the pace of the largest bound-pricing call so far (the pace
    of a call grows with its size, its setup aside); infinite while ``end()`` is None (no
    clock: every step stays as planned, so counted runs stay reproducible) and before a
    pace is known."""

    def nodes_left():
        at = end()
        nodes, seconds = run.bound_pace
        if at is None or nodes <= 0:
            return math.inf
        return nodes / seconds * max(0.0, at - time.perf_counter())
    return nodes_left


def _bound_search_seconds(run: Run) -> float | None:
    """Seconds the complexity-dual search may still use under a time limit:
    the planner's ``"bound search"`` share of column generation's time limit minus what it used (its calls
    stop there, still proving their bound); None without a limit."""
    if run.cg_end.end is None:
        return None
    return SHARES["bound search"] * run.cg_end.time_limit - run.times.get("bound_search", 0.0)


TIME_LEFT_MIN_SECONDS = 1.0
""":func:`raise_bound_with_time_left` starts only with at least this many seconds left."""


def time_left_applies(run: Run, ip: RestrictedIP) -> bool:
    """A time limit with time left, duals where pricing proved no bound of 0, and ``C``."""
    return (run.o.limits.time_limit is not None and run.last_priced is not None
            and run.st.C is not None and run.last_priced[1] < -run.o.tol
            and seconds_left(run.end) >= TIME_LEFT_MIN_SECONDS)


def raise_bound_with_time_left(run: Run, ip: RestrictedIP, end: Deadline) -> Iterator[Proof]:
    """Under a time limit, raise the bound with the time the phases left.

    Column generation stops at its share of the limit (``1 - _ip_time_fraction``) and the
    restricted IP, the dive and gap closing often finish early; a solver given a time limit
    is expected to spend it on the gap.  So a solve that is not proven optimal runs the last
    search (:func:`final_bound_search`, the descent in the complexity dual) at the last duals
    priced, with no node budget, every call stopped by the clock at the limit (a call stopped
    so still proves its bound): first as the counted last search (each call capped at a
    multiple of the last proof's nodes); if that ends with time left (its bisection narrowed
    down where proofs grow steep), again from its last proof with each call capped by the
    clock instead, at the planner's ``"time-left call"`` share of the time left.  Where the solve's own
    last search ran at these duals (pricing found no clause), the first descent resumes it
    (``complexity_dual_descent``'s ``proofs``: its proofs and the clauses it found) instead
    of starting over.  Each step after a proof is kept within reach of the time left
    (``complexity_dual_descent``'s ``affordable``, at the pace of the largest bound-pricing
    call so far: :func:`_affordable`); where no smaller ``t`` can be proven in it, the
    search ends instead of making a call that the clock would stop (the solve's own last
    search does the same under its share of the limit).  The bound never falls; the search
    stops at the rule set's objective.  Skipped without a time limit (counted runs stay
    reproducible: ``final_bound_nodes`` and ``strengthen_bound`` are theirs), after Ctrl-C
    or another monitor stop, in the penalized form, at duals where pricing proved no
    negative reduced cost, and with under :data:`TIME_LEFT_MIN_SECONDS` left.  Ctrl-C
    during the search stops the solve as ``interrupted`` with the bound proven so far.  The
    record is ``run.time_left_search`` (the certificate's ``stats["bound_time_left"]``; its
    ``ended`` says why the last descent ended, e.g. that no smaller complexity dual could be
    proven in the time left)."""
    o, st = run.o, run.st
    duals, zlb = run.last_priced
    t0, used = time.perf_counter(), [0]
    account = _accounting(run, used)

    before, end_t = run.best_bound, end.end

    def call_end():
        return step_deadline(end, "time-left call").end
    kw = dict(best_known=before, target=ip.objective)
    # resume the last search's descent at these duals (its proofs and the clauses it found)
    _, proofs, found = run.descent if run.descent is not None and run.descent[0] is duals \
        else (None, None, [])
    sr = final_bound_search(st, o, duals, zlb, found, run.ub_empty,
                            bound_pricer(st, o, lambda: end_t, account, hard_end=end_t), None,
                            share=run.share, proofs=proofs,
                            affordable=_affordable(run, lambda: end_t), **kw)
    if (sr.bound < ip.objective and not interrupt_requested()
            and seconds_left(end) >= TIME_LEFT_MIN_SECONDS):
        kw["best_known"] = max(before, sr.bound)
        sr2 = final_bound_search(st, o, duals, zlb, found + sr.clauses, run.ub_empty,
                                 bound_pricer(st, o, call_end, account, hard_end=end_t), None,
                                 first_limit=None, call_cap=None, share=run.share,
                                 proofs=sr.proofs, affordable=_affordable(run, call_end),
                                 **kw)
        ended = sr2.ended
        sr = sr2 if sr2.bound > sr.bound else sr
    else:
        ended = sr.ended
    yield Proof(sr.bound, BoundKind.LAGRANGIAN, f"at the last duals, raised with the time left "
                f"(complexity dual {sr.t:.6g}, {used[0]} nodes)")
    raised = sr.bound > before
    interrupted = run.check_stop("raising the bound with the time left",
                                 overriding=True) is not None
    run.time_left_search = {"seconds": time.perf_counter() - t0, "nodes": used[0],
                            "bound_before": before, "bound": run.best_bound,
                            "complexity_dual": sr.t if raised else None,
                            "ended": ended, "interrupted": interrupted}
    run.monitor.sample(ip.objective, run.best_bound, event="bound search",
                       phase="bound search with the time left", nodes=used[0])


POSITIVE_SIDE_FIRST_MAX_GROUPS = 100
"""Under a time limit, :func:`positive_side_search` goes before the complexity-dual descent
at duals with at most this many gain groups (negative coefficient), after it at duals
with more: the proof's search grows with them."""
POSITIVE_SIDE_TRIES = 6
""":func:`positive_side_search` makes at most this many proofs."""


def positive_side_applies(run: Run, ip: RestrictedIP) -> bool:
    """Its budget is not 0, the constrained form, and the master holds columns."""
    return (run.o.certification.positive_side_cover_lps != 0 and run.st.C is not None
            and run.master.n_columns > 0)


def positive_side_search(run: Run, ip: RestrictedIP, end: Deadline) -> Iterator[Proof]:
    """The positive-side pricing proof (``provers/positive.py``) at the end of a solve whose
    gap is open, with ``positive_side_cover_lps`` cover LPs in all.

    At the duals of the master LP over every column held (those of pricing, the dive,
    polishing and gap closing: the highest LP value the columns give), bound (1) of
    ``bounds.py`` is ``L + N z`` with ``z`` a proven lower bound on every clause's reduced
    cost.  The search tries to prove a bound ``k``, first the most these duals can give, ``L``
    (rounded up when the objective is integral; at most the objective), by proving ``z >= u
    = (k - 1 - L) / N`` (a little above: then ``L + N z`` rounds up to ``k``; ``(k - L) / N``
    when not integral), each proof with half the node budget left (the last with all of it),
    at most :data:`POSITIVE_SIDE_TRIES`.  A proof that fails shows a clause below ``u`` (the
    cover IP's witness, ``provers/positive.py``): the next ``k`` is then the most that
    clause leaves possible; one that its node limit stopped is followed by ``k`` halfway
    down to the bound so far.  A proof that does not complete still proves its own bound,
    which is kept when it is better.  Skipped in the penalized form, after Ctrl-C, the
    callback, the memory cap or the time limit, and when no threshold can beat the bound so
    far.  Under a time limit it runs on ``workers`` threads (a counted run keeps one: its
    order, and so its counts and a stopped proof's bound, would depend on the threads'
    timing), and it shares the time left with the complexity-dual descent
    (:func:`raise_bound_with_time_left`) by the size of its search: at duals with at most
    :data:`POSITIVE_SIDE_FIRST_MAX_GROUPS` gain groups it goes first and stops at
    the planner's ``"positive side"`` share of the time left; at duals with more, the call before
    the descent only prepares it (``stats["positive_side"]["after_descent"]``) and the call
    with ``after_descent`` runs it with the time the descent leaves.
    The record is ``run.positive_side`` (the certificate's ``stats["positive_side"]``)."""
    from ..bounds import read_duals
    o, st = run.o, run.st
    t0 = time.perf_counter()
    run.master.to_lp()
    res, mu, lam = run.master.solve_lp(seconds_left(run.end))
    rec = {"lp": None, "tries": [], "nodes": 0, "exact": 0, "bound_before": run.best_bound,
           "bound": run.best_bound, "seconds": 0.0}
    run.positive_side = rec
    if mu is None:
        rec["skipped"] = f"the final master LP failed: {res.message}"
        return
    duals = read_duals(st, res.objective, mu, lam, o.model.empty_clause)
    rec["lp"] = res.objective
    rec["gain_groups"] = int((duals.v < 0).sum())
    rec["seconds"] = time.perf_counter() - t0
    if run.end.end is not None and rec["gain_groups"] > POSITIVE_SIDE_FIRST_MAX_GROUPS:
        rec["after_descent"] = True
        run.positive_side_deferred = (duals, rec)
        return
    # under a time limit, its share of the time left (the planner's; the rest raises the
    # bound by the complexity-dual descent, raise_bound_with_time_left)
    yield from _positive_side_proofs(run, ip, duals, rec, end.end)


def deferred_positive_side_applies(run: Run, ip: RestrictedIP) -> bool:
    """The positive-side proof was prepared to run after the descent."""
    return run.positive_side_deferred is not None


def deferred_positive_side(run: Run, ip: RestrictedIP, end: Deadline) -> Iterator[Proof]:
    """The positive-side proof prepared before the descent, with the time it leaves."""
    duals, rec = run.positive_side_deferred
    run.positive_side_deferred = None
    yield from _positive_side_proofs(run, ip, duals, rec, end.end)


def _positive_side_proofs(run: Run, ip: RestrictedIP, duals, rec: dict,
                          end) -> Iterator[Proof]:
    """:func:`positive_side_search`'s proofs at ``duals`` (the final master LP's), stopped at
    ``end`` (a ``perf_counter`` value, or None), recorded in ``rec``."""
    from ..bounds import complexity_bound_at
    from .positive import positive_side_bound
    o, st = run.o, run.st
    budget = o.certification.positive_side_cover_lps
    t0 = time.perf_counter()
    rec["bound_before"] = rec["bound"] = run.best_bound
    L, N = duals.lagrangian, st.n_max(ip.objective)
    hi = min(st.round_bound(L), ip.objective)        # the most these duals can give
    lo = run.best_bound
    if N < 1 or hi <= lo:
        rec["skipped"] = "no threshold can beat the bound so far"
        return
    k = hi                                              # the most first
    for tries_left in range(POSITIVE_SIDE_TRIES, 0, -1):
        if k <= lo or interrupt_requested():
            break
        # the threshold just above what rounds up to k (round_bound's tolerance is 1e-6)
        u = min(0.0, (k - st.gran + (1e-5 if st.integral else 0.0) - L) / N)
        left = None if budget is None else (budget - rec["nodes"]) // (
            1 if tries_left == 1 else 2)
        if left is not None and left <= 0:
            break
        r = positive_side_bound(st.X, duals.v, duals.const, duals.lit, st.D, upper=u,
                                node_limit=left, deadline=end,
                                workers=1 if end is None else o.workers)
        rec["nodes"] += r.nodes
        rec["exact"] += r.exact
        b = complexity_bound_at(st, duals, r.bound, ip.objective)
        rec["tries"].append({"target": float(k), "threshold": u, "proven": r.bound,
                             "complete": r.complete, "stopped": r.stopped, "nodes": r.nodes,
                             "bound": b, "witness_rc": r.witness_rc})
        yield Proof(b, BoundKind.POSITIVE_SIDE,
                    f"lagrangian at the final master LP's duals, every clause's reduced cost "
                    f">= {r.bound:.6g} ({rec['nodes']} cover LPs)")
        if r.complete or r.stopped in ("deadline", "interrupted"):
            break
        hi = k - st.gran if st.integral else k
        if r.witness_rc is not None:
            # a clause of this reduced cost exists: no pricing bound above it, so no bound
            # (1) above B - t C + N rc (the most left to try)
            hi = min(hi, st.round_bound(duals.base - duals.lam * st.C + N * r.witness_rc))
            k = hi
        else:   # the node limit: halfway down
            k = max(lo + 1, math.ceil(0.5 * (lo + hi) - 1e-9)) if st.integral \
                else 0.5 * (lo + hi)
        lo = max(lo, b)
    rec["bound"] = run.best_bound
    rec["seconds"] += time.perf_counter() - t0
    run.check_stop("the positive-side pricing proof", overriding=True)
