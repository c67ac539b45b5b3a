"""Gap closing by reduced-cost enumeration, after the restricted IP (``loop.py``'s module
doc derives it): every clause that can appear in a better solution is enumerated and added,
and the restricted IP is solved again; an enumeration its limits cut short still proves a
bound, raised rung by rung by :func:`gap_ladder`.
"""
from __future__ import annotations

import math
import time
from collections.abc import Iterator

import numpy as np

from ....limits import Deadline
from ....monitor import interrupt_requested
from ..bounds import gap_closing_threshold, knapsack_bound, read_duals
from ..master import best_pair
from ..pricing import price_by_branch_and_bound
from ..restricted_ip import RestrictedIP, resolve
from ..state import BoundKind, Proof, Run, irredundant


# ---- gap closing by reduced-cost enumeration ----------------------------------------------
def close_gap_applies(run: Run, ip: RestrictedIP) -> bool:
    """Gap closing is on and some iteration priced (its best duals are the enumeration's)."""
    return run.o.certification.close_gap and run.best_duals is not None


def close_gap(run: Run, ip: RestrictedIP, end: Deadline) -> Iterator[Proof]:
    """Enumerate every clause that can appear in a better solution, add them and re-solve the
    restricted IP (a prover: reads the best duals, ``ip`` and the gap-closing budgets; adds
    columns, updates ``ip`` and ``run.gap_info``; yields the enumeration's bound and the
    Lagrangian bound at its duals); a complete enumeration makes its bound a bound of the
    master IP."""
    o, st, master = run.o, run.st, run.master
    tg = time.perf_counter()
    _, duals, zlb = run.best_duals
    T = gap_closing_threshold(st, duals, zlb, ip.objective)
    K = o.certification.close_gap_columns

    def enumerate_below(upper, limit):
        return price_by_branch_and_bound(st.X, duals.v, duals.const, duals.lit, st.D, K=K,
                                         upper=upper, tighten=False, node_limit=limit,
                                         deadline=end.end, workers=o.workers)
    budget = o.certification.close_gap_nodes
    first = budget if budget is None or not st.integral else max(1, budget // GAP_FIRST_SHARE)
    er = enumerate_below(T + 1e-7, first)
    run.gap_info = {"ladder": [(None, T, er.nodes, er.complete)]}
    if not er.complete and st.integral and (not er.overflow or o.certification.ladder_after_cap):
        er = gap_ladder(run, enumerate_below, ip.objective, T,
                         None if budget is None else budget - er.nodes) or er
    # every clause below ``cut`` was returned (an enumeration the node limit or the cap cut
    # short too: its bound on the rest); a better solution holding a clause of reduced cost
    # >= cut costs at least ``beyond`` (module doc), so the restricted IP with every clause
    # below cut bounds the rest: the complete enumeration (cut > T) solves the master IP
    ub, cut = ip.objective, er.unheld_bound
    beyond = math.inf if cut > T else ub - st.gran - (T - cut)
    useful = st.round_bound(beyond) > run.best_bound
    held = [(c, rc) for c, rc in zip(er.clauses, er.reduced_costs) if rc < cut]
    added = run.add_clauses([irredundant(st.X, c) for c, _ in held] if useful else [])
    run.gap_info.update(threshold=T, cap=K, enumerated=len(er.clauses), added=added,
                        complete=er.complete and cut > T, cut=cut, beyond=beyond)
    enum_bound = -math.inf   # a lower bound on the restricted IP that now holds them all
    # the IP's own bound holds over the columns it was solved with: none added since, by
    # this enumeration or by polishing
    if ip.columns == master.n_columns:
        enum_bound = ip.objective if ip.result is None else ip.result.bound
    else:
        ip.selected = master.padded(ip.selected)
        if not run.end.expired():
            resolve(run, ip, ip.objective)
            ip.bound = enum_bound = ip.result.bound
            ip.objective = master.selection_objective(ip.selected)
    run.gap_info["restricted_ip_bound"] = enum_bound
    run.times["close_gap"] += time.perf_counter() - tg
    if useful:
        yield Proof(st.round_bound(min(enum_bound, ip.objective, beyond)), BoundKind.GAP_CLOSING,
                    "reduced-cost enumeration + restricted IP" if cut > T else
                    f"partial reduced-cost enumeration (every clause of reduced cost "
                    f"< {cut:.6g} of the {T:.6g} needed) + restricted IP")
    yield _enumerated_lagrangian(run, duals, held, cut, ub)


def _enumerated_lagrangian(run: Run, duals, held: list, cut: float, ub: float) -> Proof:
    """The enumeration is a pricing proof at its duals as well: it returned every clause of
    reduced cost below ``cut`` (``held``, as ``(clause, reduced cost)``) and every other
    clause costs ``>= cut``, so the Lagrangian bound there holds with the held clauses as
    the knapsack's items (each at most once) and ``min(0, cut)`` for every other
    (``bounds.knapsack_bound``).  It beats the enumeration's own bound (``beyond``,
    which prices the other clauses at column generation's pricing bound there) when that
    pricing bound was weak and the enumeration returned few clauses of negative reduced
    cost, as on small data under node limits (``tests/test_colgen.py``); where the
    enumeration stops at its cap with a cut below the pricing bound it proves nothing new
    (``stats["gap_closing"]["lagrangian"]`` records it either way)."""
    st = run.st
    items = [(rc, 1 + len(c)) for c, rc in held]
    b = knapsack_bound(st, duals, [(2, cut)], ub, items)
    run.gap_info["lagrangian"] = {"bound": b, "cut": cut, "items": len(items),
                                  "complexity_dual": duals.lam}
    return Proof(b, BoundKind.LAGRANGIAN,
                 f"at gap closing's duals (complexity dual {duals.lam:.6g}): its enumeration "
                 f"returned every clause of reduced cost < {cut:.6g} ({len(items)}), each at "
                 "most once")


SMALL_CLASS_C = 6
"""Below this ``C`` at most two non-empty clauses fit (each costs 2 or more), and two only as a
one-literal clause and a clause of at most ``C - 3`` literals: :func:`solve_small_class`
then searches the whole class."""


def small_class_applies(run: Run, ip: RestrictedIP) -> bool:
    """``C < SMALL_CLASS_C`` with gap closing on."""
    return (run.st.C is not None and run.st.C < SMALL_CLASS_C
            and run.o.certification.close_gap)


def solve_small_class(run: Run, ip: RestrictedIP, end: Deadline) -> Iterator[Proof]:
    """The master IP over the whole class when ``C < SMALL_CLASS_C``, by search instead of by
    its LP, whose gap such tiny budgets leave wide.

    A selection holding the empty clause costs at least the empty clause alone (it already
    covers every positive; the other clauses only add cost), so the optimum is the least of
    the empty rule set (``sum a``), the empty clause alone (when admitted), one clause of at
    most ``D`` literals and, at ``C >= 4``, a one-literal clause ``j`` with another of at most
    ``C - 3`` literals.  One clause ``k`` costs ``sum a + rc(k)`` with the pricing
    coefficients at ``mu = a``, ``t = 0``, found by the branch-and-bound below the incumbent;
    the best partner of ``j`` likewise at ``mu = a`` on the positives ``j`` leaves uncovered
    (one literal: every pair is scanned).  The searches share ``close_gap_nodes`` nodes;
    one stopped early still bounds its part (its bound; a ``j`` left unsearched, by
    ``cost(j)`` plus the least cost of a clause).  Better clauses become columns and the
    restricted IP is solved again; the least of the parts is a lower bound over the class.
    Part of gap closing: it runs before the enumeration, and not with ``close_gap=False``.
    A prover: reads ``ip`` and the gap-closing node budget; adds columns, updates ``ip``;
    yields the bound over the class."""
    o, st, master = run.o, run.st, run.master
    tg = time.perf_counter()
    ub, total = ip.objective, float(st.a.sum())
    parts = {"empty rule set": total}                 # a lower bound on each part of the class
    if o.model.empty_clause:
        parts["empty clause"] = float(st.neg.sum()) + st.lam0
    better: list[tuple[int, ...]] = []
    at_a = read_duals(st, 0.0, st.a, 0.0, o.model.empty_clause)   # rc(k) = cost(k) - a(k)
    info = {}
    if st.C >= 2:
        r = price_by_branch_and_bound(st.X, at_a.v, at_a.const, at_a.lit, st.D, K=1,
                                      upper=ub - total,
                                      node_limit=o.certification.close_gap_nodes,
                                      deadline=end.end, workers=o.workers)
        parts["one clause"] = total + r.bound
        better += [irredundant(st.X, c) for c in r.clauses]
        info.update(single_nodes=r.nodes, single_complete=r.complete)
    partner = min(st.D, int(math.floor(st.C + 1e-9)) - 3)    # literals of j's partner
    if partner >= 1 and st.d >= 2:
        Xf = st.X.astype(float)
        cost = st.neg @ Xf + st.lam0 + st.lam1               # one-literal clause j
        if partner == 1:
            two, j, l = best_pair(Xf[st.P].T, st.a, cost, np.ones((st.d, st.d), dtype=bool))
            parts["two clauses"] = two
            if two < ub - 1e-9:
                better += [(j,), (l,)]
        else:
            left = None if o.certification.close_gap_nodes is None else \
                o.certification.close_gap_nodes - info.get("single_nodes", 0)
            searched, two = 0, math.inf
            gain = st.a @ Xf[st.P]
            for j in np.argsort(cost - gain, kind="stable"):
                base = total - gain[j] + cost[j]               # j alone
                least = cost[j] + st.lam0 + st.lam1              # j and any clause
                if (least >= ub - 1e-9 or (left is not None and left <= 0) or end.expired()
                        or interrupt_requested()):         # bounded without a search
                    two = min(two, float(least))
                    continue
                dj = read_duals(st, 0.0, np.where(st.X[st.P, j], 0.0, st.a), 0.0, False)
                r = price_by_branch_and_bound(st.X, dj.v, dj.const, dj.lit, partner, K=1,
                                              upper=ub - base, node_limit=left,
                                              deadline=end.end, workers=o.workers)
                searched += 1
                left = None if left is None else left - r.nodes
                two = min(two, float(max(least, base + r.bound)))
                if r.clauses and base + r.reduced_costs[0] < ub - 1e-9:
                    ub = base + r.reduced_costs[0]
                    better += [(int(j),), irredundant(st.X, r.clauses[0])]
            parts["two clauses"] = two
            info.update(partner_searches=searched)
    if better and run.add_clauses(better) and not end.expired():
        ip.selected = master.padded(ip.selected)
        resolve(run, ip, ip.objective)
        ip.objective = master.selection_objective(ip.selected)
        ip.bound = ip.result.bound
    b = st.round_bound(min(min(parts.values()), ip.objective))
    run.gap_info = {"small_class": {**info, "parts": parts, "bound": b}}
    run.times["close_gap"] += time.perf_counter() - tg
    yield Proof(b, BoundKind.WHOLE_CLASS, "at most two clauses fit C")


GAP_FIRST_SHARE = 2
"""Gap closing first tries the whole threshold with ``close_gap_nodes / GAP_FIRST_SHARE``
nodes (integral objectives), then, if those nodes ran out, spends the rest on the ladder of
:func:`gap_ladder` (a small first share makes an enumeration that a large one finishes at
once climb the ladder instead)."""
GAP_LADDER_RATIO = 2.0
"""Each rung of the ladder aims at about this many times the nodes of the last one."""


def gap_ladder(run: Run, enumerate_below, ub: float, T: float, budget: int | None):
    """The enumeration that the whole threshold ``T`` could not finish, made at lower ones
    (integral objectives): enumerating every clause below ``u`` bounds any solution that
    holds another by ``ub - 1 - (T - u)`` (module doc), so the threshold ``u_b`` where that
    rounds up to ``b`` proves ``b`` with the restricted IP (``b = ub``: ``T`` itself, the
    exact closing).  The rungs ``b`` rise from the bound so far + 1 while the enumerations
    finish; each costs more, so the step is chosen from the growth between the last two rungs,
    aiming at ``GAP_LADDER_RATIO`` times the last one's nodes, and a rung predicted to cost
    more than the nodes left is not started.  Returns the highest finished rung's
    enumeration (None: none); each rung is in ``run.gap_info["ladder"]``."""
    b, last, growth, done = run.best_bound + 1, None, None, None
    while b <= ub and not run.end.expired() and not interrupt_requested():
        if budget is not None and (budget <= 0 or last is not None and last[1] * (
                growth or GAP_LADDER_RATIO) ** (b - last[0]) > budget):
            break                        # predicted past the nodes left: not started
        # ub - 1 - T + u rounds up to b (round_bound's slack is 1e-6)
        u = T + 1e-7 if b >= ub else T - ub + b + 1e-5
        r = enumerate_below(u, budget)
        run.gap_info["ladder"].append((b, u, r.nodes, r.complete))
        if budget is not None:
            budget -= r.nodes
        if not r.complete:
            break
        if last is not None:             # per unit of b; none: the rest costs the same
            growth = max(1.0, (max(1, r.nodes) / last[1]) ** (1.0 / (b - last[0])))
        last, done = (b, max(1, r.nodes)), r
        if b >= ub:
            break
        b = min(ub, b + (1 if growth is None else ub if growth < 1.0 + 1e-9 else
                         max(1, int(math.log(GAP_LADDER_RATIO) / math.log(growth)))))
    return done


