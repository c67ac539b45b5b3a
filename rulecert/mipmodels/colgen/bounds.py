"""The bound arithmetic of column generation: duals, Lagrangian bounds, gap closing.

The master (aggregated over groups ``g`` of identical samples, ``P`` the groups holding
positive mass, clause ``k`` with coverage ``K_k``, complexity ``c_k = 1 + |k|`` and cost
``cost_k = (negative mass covered) + clause_penalty + literal_penalty |k|``):

    z_MIP = min  sum_{g in P} a_g xi_g + sum_k cost_k w_k
            s.t. xi_g + sum_{k: g in K_k} w_k >= 1      g in P     (dual mu_g >= 0)
                 sum_k c_k w_k <= C                               (dual t >= 0)
                 xi_g in [0, 1],  w_k in {0, 1}.

Lagrangian bound.  For any ``mu >= 0`` and any ``t >= 0`` (not only the LP's ``lambda``),
relaxing both rows gives, for every feasible ``(xi, w)``,

    obj >= L(mu, t) + sum_k rc_k(t) w_k,
    L(mu, t) = B(mu) - t C,   B(mu) = sum_g mu_g + sum_g min(0, a_g - mu_g),
    rc_k(t)  = cost_k - mu(K_k) + t c_k        (the pricing problem at complexity dual t).

The relaxed row still holds for ``w`` (it was feasible), so ``sum_k c_k w_k <= C`` and, with
every non-empty clause of complexity >= 2, at most ``N = floor(C/2)`` of them are selected.
If ``z(t)`` is a *proven* lower bound on ``rc_k(t)`` over every non-empty clause of at most
``D`` literals (exact pricing, the branch-and-bound's bound at its node limit, CP-SAT's best
objective bound, the single-literal bound), then

    z_MIP >= L(mu, t) + N min(0, z(t))                                           (1)

and with the empty clause (complexity 1, at most one copy, ``rc_e(t) = rc_e(0) + t``) the
selected clauses satisfy ``w_e + 2 (#non-empty) <= C``, so the clause term is at least
``min(N min(0, z), rc_e(t) + floor((C-1)/2) min(0, z))``.  At ``t = lambda`` (the restricted
LP's dual) this is the paper's ``z_RMLP + (C/2) z_CG``; the LP dual is optimal for the
restricted master, not for (1).

Normalised by complexity.  (1) holds for every ``t``, so the best bound is ``max_t``.  Let
``r = min_k (cost_k - mu(K_k)) / c_k`` (the most negative reduced cost *per unit of
complexity* at ``t = 0``).  At ``t* = -r`` every ``rc_k(t*) = c_k (rc_k(0)/c_k - r) >= 0``,
so ``z(t*) = 0`` and (1) gives ``B(mu) + r C``: the bound of the Lagrangian subproblem that
keeps the complexity row, ``min {sum rc_k(0) w_k : sum c_k w_k <= C}  >= r C``.  It is never
below (1) at ``t = lambda`` with ``N = C/2`` (the floor of ``N`` can make (1) better for odd
``C``; the search keeps the best of every ``t`` it tries) and far above it when the most negative reduced costs belong to
long clauses (``(C/2) rc`` counts a clause of complexity ``c`` as if ``C/2`` of them fit;
``r C`` charges it ``c``).  A larger ``t`` also makes pricing's proof cheaper (every literal
costs ``t``): when pricing at ``lambda`` stops at its node limit with a weak bound, proving
``z(lambda + delta) >= 0`` costs ``delta C`` of the bound and often succeeds.
:func:`complexity_dual_search` tries a few ``t``: Dinkelbach's step ``t = -rc_k(0)/c_k``
from a known clause, or ``lambda + delta`` for a few ``delta``; every ``(t, z(t))`` gives a
valid bound (1) whether or not pricing finished (its proven bound is used), and the best is
kept.  Clauses with ``rc_k(t) < 0`` at ``t >= lambda`` also have ``rc_k(lambda) < 0``: they
are improving columns of the master as well.

Enumerated knapsack.  (1) charges every selected clause the class minimum ``z(t)``.  When
pricing at ``t`` *enumerates* every clause with ``rc_k(t) < 0`` (the branch-and-bound's
enumeration mode, complete), the Lagrangian subproblem that keeps the complexity row,
``min {sum_k rc_k(t) w_k : sum_k c_k w_k <= C, w binary}``, is a 0/1 knapsack over those
clauses alone, solved exactly by :func:`knapsack_bound` (each clause at most once; the
other clauses cost ``>= 0``).  The enumeration holds only the clauses the search does not
skip (irredundant, no literal implying another), which is enough: every clause has such a
clause with the same coverage, a subset of its literals, so no higher cost nor complexity,
and an optimal rule set never needs two clauses of one coverage (the cost is ``>= 0``).
With classes the same holds per class: below a threshold ``u < 0`` for the long clauses,
the rest of the class then costs ``>= u`` each.  By the envelope theorem this bound falls
(weakly) as ``t`` grows (its slope is the complexity used minus ``C``), and at ``t = 0``
it can exceed the LP bound (the LP lets clauses be chosen fractionally); larger ``t`` only
makes the enumeration affordable.  Measured on tiny instances at the master LP's optimal
duals, it reaches the IP optimum where the LP does not (``tests/test_colgen_bounds.py``).

The bound is valid for the master IP over clauses of at most ``D`` literals (and the empty
clause when admitted); it is rounded up when every objective coefficient is an integer.  In
the penalized form without ``C`` there is no complexity row (``t = 0``) and ``N = floor(UB /
(clause_penalty + literal_penalty))`` for any known objective ``UB``.

The functions take the loop's transformed instance ``st`` (``G``, ``P``, ``neg``, ``a``,
``C``, ``lam0``, ``lam1``, ``n_max``, ``round_bound``, ``gran``).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np


@dataclasses.dataclass(frozen=True)
class Duals:
    """The restricted master LP's duals, read by name, and what pricing derives from them."""

    rmlp: float
    """``z_RMLP``: the restricted master LP's objective."""
    mu: np.ndarray
    """Duals of the cover rows (one per positive group)."""
    lam: float
    """Dual of the complexity row (``t`` of the module doc; the LP's own or a chosen one)."""
    v: np.ndarray
    """Pricing coefficient per group: negative mass minus ``mu``."""
    const: float
    """Reduced cost of a clause's existence: ``lambda + clause_penalty``."""
    lit: float
    """Reduced cost per literal: ``lambda + literal_penalty``."""
    lagrangian: float
    """``L(mu, lambda)``, with the empty clause's ``min(0, rc)`` when it is a column."""
    base: float = 0.0
    """``B(mu) = sum mu + sum min(0, a - mu)`` (``L`` without the complexity terms)."""
    empty_rc0: float | None = None
    """The empty clause's reduced cost at ``t = 0`` (None: not admitted)."""


def read_duals(st, rmlp: float, mu: np.ndarray, lam: float, empty_clause: bool) -> Duals:
    """:class:`Duals` of an LP solution: the pricing coefficients and ``L(mu, lambda)``."""
    mu_g = np.zeros(st.G)
    mu_g[st.P] = mu
    v = st.neg - mu_g
    base = float(mu.sum() + np.minimum(0.0, st.a - mu).sum())
    empty_rc0 = st.lam0 + float(v.sum()) if empty_clause else None
    return at_complexity_dual(st, Duals(rmlp, mu, lam, v, 0.0, 0.0, 0.0, base, empty_rc0), lam)


def at_complexity_dual(st, duals: Duals, t: float) -> Duals:
    """The same cover duals ``mu`` with the complexity dual set to ``t >= 0``."""
    t = float(t) if st.C is not None else 0.0
    L = duals.base - (t * st.C if st.C is not None else 0.0)
    if duals.empty_rc0 is not None:
        # the empty clause (a master column, at most once in a solution) enters L with
        # its own reduced cost; z_CG and N then concern the non-empty clauses only
        L += min(0.0, duals.empty_rc0 + t)
    return dataclasses.replace(duals, lam=t, const=t + st.lam0, lit=t + st.lam1, lagrangian=L)


def conflict_bound(st) -> float:
    """The Lagrangian bound at the *conflict duals* ``mu_g = min(a_g, n_g)`` (``n_g`` the
    negative mass of group ``g``), ``t = 0``: every ``v_g = n_g - mu_g >= 0``, so every
    reduced cost is ``>= 0`` without pricing and the bound is ``B(mu) = sum_g min(a_g, n_g)``:
    samples with identical features and both labels cost at least their minority whatever
    the rule set.  Always valid, never needs a proof; weak unless such conflicts abound."""
    return st.round_bound(float(np.minimum(st.a, st.neg[st.P]).sum()))


def lagrangian_bound(st, duals: Duals, zlb: float, ub: float) -> float:
    """``L + N min(0, z_CG)`` (``N`` clauses at most in a solution of objective ``<= ub``),
    rounded up when the objective is integral (the paper's bound at ``duals.lam``)."""
    lb = duals.lagrangian + (st.n_max(ub) * min(0.0, zlb) if zlb < 0 else 0.0)
    return st.round_bound(lb)


def _n_clauses(st, budget: float | None, ub: float) -> float:
    n = math.inf if budget is None else math.floor(budget / 2.0 + 1e-9)
    pmin = st.lam0 + st.lam1
    if pmin > 0:
        n = min(n, math.floor(ub / pmin + 1e-9))
    return n


KNAPSACK_CELLS = 1 << 22
"""Largest table :func:`knapsack_bound` fills (32 MB of float64); above it, bound (1)."""


def knapsack_bound(st, duals: Duals, classes: list, ub: float, items=()) -> float:
    """Bound (1) of the module doc at ``duals.lam`` by clause class: ``classes`` holds
    ``(c_min, z)`` for disjoint classes of non-empty clauses (by length), ``z`` a proven lower
    bound on ``rc(t)`` over the class and ``c_min`` the least complexity in it.  A solution
    holds ``n_i`` clauses of class ``i`` and perhaps the empty clause with ``sum c_min n_i
    (+ 1) <= floor(C)``, so the clause term is at least the minimum of ``sum n_i min(0, z_i)
    (+ rc_e(t))`` over those counts (a small knapsack, solved exactly).

    ``items``: ``(rc(t), c)`` of clauses enumerated one by one -- the *enumerated knapsack*
    of the module doc.  Then ``z`` of a class need only bound the clauses of the class that
    are *not* among the items, and each item is used at most once: the enumeration must hold
    every clause the pricing search does not skip (irredundant, no literal implied by
    another) with ``rc(t) < z`` in its class, since an optimal rule set uses only such
    clauses, each once."""
    cap = _n_clauses(st, None, ub)             # clause count allowed by the penalties
    if st.C is None:
        zs = [z for _, z in classes] + [rc for rc, _ in items]
        return lagrangian_bound(st, duals, min(zs), ub)
    # A rule set of least objective needs no clause that is not the only cover of some
    # positive group (dropping it costs nothing), so it holds at most |P| clauses, each of
    # complexity <= D + 1: the table is sized by what the data can use, not by C alone.
    ncap = int(min(math.floor(st.C + 1e-9), cap, len(st.P)))
    room = int(min(math.floor(st.C + 1e-9), ncap * (st.D + 1)))
    if (room + 1) * (ncap + 1) > KNAPSACK_CELLS:     # too large a table: bound (1) instead
        zs = [z for _, z in classes] + [rc for rc, _ in items]
        return st.round_bound(duals.lagrangian + ncap * min([0.0, *zs]))
    # V[r, n]: the least clause term over at most n clauses of total complexity <= r
    V = np.zeros((room + 1, ncap + 1))
    for c, z in classes:                       # a class: as many clauses as fit, each >= z
        c, z = int(c), min(0.0, float(z))
        if z >= 0.0 or c > room:
            continue
        for r in range(c, room + 1):
            V[r, 1:] = np.minimum(V[r, 1:], V[r - c, :-1] + z)
    pool = sorted((float(rc), int(c)) for rc, c in items if rc < 0)
    if duals.empty_rc0 is not None and duals.empty_rc0 + duals.lam < 0:
        pool.append((duals.empty_rc0 + duals.lam, 1))
    used: dict = {}
    for rc, c in pool:                         # an item: at most once; of the items of one
        if c > room or used.get(c, 0) >= room // c:   # complexity only room // c can fit
            continue
        used[c] = used.get(c, 0) + 1
        W = V.copy()
        W[c:, 1:] = np.minimum(V[c:, 1:], V[:room + 1 - c, :-1] + rc)
        V = W
    term = float(V[room, ncap])
    return st.round_bound(duals.base - duals.lam * st.C + term)


def complexity_bound_at(st, duals: Duals, zlb: float, ub: float) -> float:
    """Bound (1) of the module doc at ``duals.lam`` with one pricing bound for every
    non-empty clause, the empty clause sharing the budget."""
    return knapsack_bound(st, duals, [(2, zlb)], ub)


@dataclasses.dataclass
class DualSearch:
    """What :func:`complexity_dual_search` proved."""

    bound: float
    """The best bound (1) over the complexity duals tried (rounded when integral)."""
    t: float
    """The complexity dual that gave it."""
    z: float
    """The proven pricing bound at ``t``."""
    duals: Duals
    """The duals at ``t`` (for gap closing)."""
    steps: list = dataclasses.field(default_factory=list)
    """``(t, z(t), bound, pricing complete[, classes, enumerated items])`` per complexity dual
    tried."""
    clauses: list = dataclasses.field(default_factory=list)
    """Clauses of negative reduced cost found at ``t >= lambda`` (improving at ``lambda``)."""
    share: float | None = None
    """The smallest share of the LP value given up in a proven step (None: none proven)."""
    items: int | None = None
    """How many enumerated clauses the best bound's knapsack held (None: not enumerated)."""
    proofs: list = dataclasses.field(default_factory=list)
    """``(share, nodes)`` of every proven step of :func:`complexity_dual_descent`, in order
    (where a later descent at the same duals resumes)."""
    ended: str = ""
    """Why :func:`complexity_dual_descent` ended, in words (the certificate's record of the
    time-left search shows it)."""


class _DualSteps:
    """What both complexity-dual searches share: the bound at the LP's dual, the pool of
    known clauses (with their reduced costs at ``t = 0``), and one step at a share ``f``
    (priced, its bound kept when it is the best)."""

    def __init__(self, st, duals: Duals, zlb: float, found: list, ub: float):
        self.st, self.duals, self.ub = st, duals, ub
        b0 = complexity_bound_at(st, duals, zlb, ub)
        self.best = DualSearch(b0, duals.lam, zlb, duals, [(duals.lam, zlb, b0, None)])
        self.scale = max(abs(duals.rmlp), 1e-9) / st.C if st.C else 0.0
        self.pool = {tuple(c) for c in found if len(c)}
        self.d0 = at_complexity_dual(st, duals, 0.0) if st.C else None
        self._rc0: dict = {}

    def rc0(self, cl) -> float:
        if cl not in self._rc0:
            st = self.st
            cov = np.logical_and.reduce(st.X[:, list(cl)], axis=1)
            self._rc0[cl] = st.lam0 + st.lam1 * len(cl) + float(self.duals.v[cov].sum())
        return self._rc0[cl]

    def hopeless(self, best_known: float) -> bool:
        """No ``t`` can beat the best bound: ``B`` plus the known clauses' knapsack at
        ``t = 0`` (the module doc) is no better."""
        return bool(self.pool) and knapsack_bound(
            self.st, self.d0, [], self.ub, [(self.rc0(c), 1 + len(c)) for c in self.pool]) \
            <= max(self.best.bound, best_known)

    def at_cap(self, best_known: float, target: float = math.inf) -> bool:
        """No ``t >= lambda`` can beat the best bound: it is at least ``B - lambda C``
        (rounded up when integral), the bound with every clause term at its most, 0; or it
        reached ``target`` (a known objective: nothing to prove past it)."""
        d = self.duals
        cap = self.st.round_bound(d.base - d.lam * self.st.C)
        return max(self.best.bound, best_known) >= min(cap, target) - 1e-9

    def step(self, f: float, price) -> tuple[bool, object]:
        """Price at ``t = lambda + f z_RMLP / C`` by ``price(duals_t) -> (classes, clauses,
        complete, items, ...)``; True when the step is proven (the pricer's enumeration
        completed, or without items it found no clause), and what else the pricer returned."""
        best, st = self.best, self.st
        t = self.duals.lam + f * self.scale
        dt = at_complexity_dual(st, self.duals, t)
        classes, clauses, complete, items, *extra = price(dt)
        z = min([zc for _, zc in classes] + [rc for rc, _ in items or ()])
        b = knapsack_bound(st, dt, classes, self.ub, items or ())
        best.steps.append((t, z, b, complete, classes, None if items is None else len(items)))
        if b > best.bound:
            best.bound, best.t, best.z, best.duals = b, t, z, dt
            best.items = None if items is None else len(items)
        new = [tuple(c) for c in clauses if len(c)]
        best.clauses.extend(new)
        self.pool.update(new)
        proven = complete and (items is not None or not new)
        if proven:
            best.share = f if best.share is None else min(best.share, f)
        return proven, extra[0] if extra else None


def complexity_dual_search(st, duals: Duals, zlb: float, found: list, ub: float,
                           price_at: Callable[[Duals], tuple], steps: int,
                           tol: float = 1e-7, best_known: float = -math.inf,
                           share: float = 0.1) -> DualSearch:
    """Search the complexity dual ``t`` that maximises bound (1) (module doc) at fixed ``mu``.

    ``zlb`` is the proven pricing bound at ``duals.lam`` and ``found`` the clauses pricing
    found there; ``price_at(duals_t, share) -> (classes, clauses, complete, items)`` prices
    at another ``t`` (``classes`` and ``items`` as in :func:`knapsack_bound`, ``items`` None
    when the pricer did not enumerate; ``clauses`` some with ``rc(t) < 0``; ``share`` is the
    share ``f`` below, which the pricer may also give up, e.g. proving only ``rc >= -f z_RMLP
    / n`` for the ``n`` long clauses that fit).  At most ``steps`` pricing calls:

    * no ``t`` gives more than ``B`` plus the knapsack of the known clauses at ``t = 0``
      (from pricing at ``lambda`` or a previous step; with enumerated items the bound falls
      as ``t`` grows, see the module doc); if that cannot beat ``best_known`` the search
      stops;
    * otherwise it prices at ``t = lambda + f z_RMLP / C``, giving up the share ``f`` of the
      LP value for a cheaper proof (every literal then costs ``t``); ``f`` starts at
      ``share`` and is bisected between the largest share that failed and the smallest that
      was proven (tripled while none was).  A step is proven when the pricer's enumeration
      completed (its items then enter the knapsack) or, without items, when it found no
      clause; it fails at the node limit (or, without items, when it found a clause).

    (Dinkelbach's step ``t = -r_k`` reaches ``t*`` with exact pricing, but its proofs at
    ``t`` just above ``lambda`` can fail at any affordable node limit.)
    """
    ds = _DualSteps(st, duals, zlb, found, ub)
    if st.C is None or zlb >= -tol or steps <= 0:
        return ds.best
    lo, hi, f = 0.0, None, float(share)
    for _ in range(steps):
        if ds.hopeless(best_known):
            break                                  # these mu cannot give a better bound
        proven, _ = ds.step(f, lambda dt: price_at(dt, f))
        if proven:                                 # try giving up less
            hi = f
        else:
            lo = f
        if hi is None:
            if f >= 0.9:
                break
            f = min(0.9, 3 * f)
        else:
            f = (lo + hi) / 2 if lo > 0 else hi / 3
    return ds.best


NODES_STOPPED = 10 ** 18
"""The nodes a pricer of the descent reports for a call that the clock or Ctrl-C stopped
(``bound_search.bound_pricer``): :func:`complexity_dual_descent` then ends, with or without
a node budget."""
DESCENT_COST_RATIO = 2.0
"""The last search's descent aims each proof at about this many times the nodes of the
previous one (from the growth of the nodes between its last two proofs)."""
DESCENT_MIN_SHARE = 1e-3
"""The descent stops before a share below this (proofs as cheap as the last, e.g. on tiny
instances, would otherwise step on toward ``t = lambda`` until its call count runs out)."""
DESCENT_CALL_CAP = 8.0
"""A descent call may use at most this many times the nodes of the last proof (or the
remaining budget); past it the call fails and the search bisects back toward the proof."""
DESCENT_REACH_SHARE = 0.8
"""A descent on the clock (``affordable``) plans each step after a proof to need at most this
share of the nodes the time left can buy (the growth of the nodes is a prediction)."""


def complexity_dual_descent(st, duals: Duals, zlb: float, found: list, ub: float,
                            price_at: Callable, budget: int | None, first_limit: int | None,
                            steps: int,
                            tol: float = 1e-7, best_known: float = -math.inf,
                            share: float = 0.1, target: float = math.inf,
                            call_cap: float | None = DESCENT_CALL_CAP,
                            proofs: list | None = None,
                            affordable: Callable[[], float] | None = None) -> DualSearch:
    """The last search, when pricing found no clause and column generation stops: the
    complexity dual ``t = lambda + f z_RMLP / C`` descends from a proven share ``f`` under
    a *total* budget of ``budget`` branch-and-bound nodes (every call's nodes count).

    Each proof at a smaller ``t`` costs more nodes and raises the bound by about ``C`` per
    unit, so the budget is best spent on proofs of growing cost, the last one the largest:

    * start at ``share`` with at most ``first_limit`` nodes (``bound_nodes``); while
      that fails, triple ``f`` (as :func:`complexity_dual_search`) up to 0.9, then retry
      there with 4 times the nodes;
    * after a proof, step down to where the nodes are predicted ``DESCENT_COST_RATIO`` times
      the last proof's (the growth rate between the last two proofs; ``0.3 f`` after the
      first), at most ``DESCENT_CALL_CAP`` times the last proof's nodes or the budget left;
    * after a failure, bisect between it and the last proof.

    ``price_at(duals_t, share, node_limit) -> (classes, clauses, complete, items, nodes)``.
    Every choice but the last call's limit is the same for any budget (node counts are
    deterministic), so the bound never decreases when the budget grows.  The bound of every
    step is valid; the best is kept (:class:`DualSearch`).  None: no budget (the calls keep
    their caps; ``first_limit`` None: the first calls run to the end; ``call_cap`` None: no
    cap after a proof either, for a pricer that limits its calls otherwise, e.g. by the clock).
    A call reporting :data:`NODES_STOPPED` nodes ends the search.  The search stops once
    the bound reaches ``target`` (a known rule set's objective: nothing to prove past it).
    ``proofs``: the ``(share, nodes)`` proofs of an earlier descent at the same duals
    (:attr:`DualSearch.proofs`), to resume from: the first call is the step after the last
    of them, capped as after a proof (``share`` and ``first_limit`` are then unused).
    ``affordable()``: the nodes the time left can still buy, for a descent stopped by a
    clock (None: none); every step after a proof is kept within reach
    (:func:`_within_reach`): shortened where the planned one is predicted to need more than
    :data:`DESCENT_REACH_SHARE` of them, and the descent ends where even the shortest step
    cannot be afforded (any smaller ``t`` costs more nodes than the last proof), instead of
    a call that the clock would stop unproven."""
    ds = _DualSteps(st, duals, zlb, found, ub)
    proofs = list(proofs or ())          # (f, nodes) of each proven step, in order
    best = ds.best
    best.proofs = proofs                 # (a descent that makes no call keeps its resume point)
    if st.C is None or zlb >= -tol or steps <= 0 or (budget is not None and budget <= 0):
        best.ended = "nothing to search (no complexity row, no negative reduced cost, " \
            "no calls or no nodes)"
        return best
    left = math.inf if budget is None else int(budget)
    failed = None                        # the largest failed f below the last proof
    f = _after_proof(proofs, failed) if proofs else min(0.9, float(share))
    if proofs and f < DESCENT_MIN_SHARE:
        best.ended = "the descent it resumes had ended at the LP's complexity dual"
        return best
    for _ in range(steps):
        if left <= 0:
            best.ended = "its node budget ran out"
            break
        if ds.at_cap(best_known, target):
            best.ended = "the bound reached the rule set's objective or its most at these duals"
            break
        if ds.hopeless(best_known):
            best.ended = "no complexity dual can beat the bound (the known clauses' knapsack)"
            break
        if proofs and affordable is not None:
            f = _within_reach(proofs, failed, f, affordable())
            if f is None:
                best.ended = "no smaller complexity dual can be proven in the time left"
                break
        cap = (math.inf if first_limit is None else first_limit) if not proofs \
            else math.inf if call_cap is None else call_cap * proofs[-1][1]
        limit = None if math.isinf(min(left, cap)) else int(max(1, min(left, cap)))
        proven, nodes = ds.step(f, lambda dt: price_at(dt, f, limit))
        left -= max(int(nodes), 1)
        if nodes >= NODES_STOPPED:
            best.ended = "the clock or Ctrl-C stopped a call"
            break
        if proven:                                 # give up less
            proofs.append((f, max(int(nodes), 1)))
            nxt = _after_proof(proofs, failed)
        elif not proofs:
            if f >= 0.9:                 # no share proven yet: retry with 4 times the nodes
                if first_limit is None:
                    best.ended = "no share proven"
                    break
                first_limit *= 4
            nxt = min(0.9, 3 * f)
        else:
            failed = f
            nxt = (f + proofs[-1][0]) / 2
        if proofs and abs(nxt - proofs[-1][0]) <= 0.01 * proofs[-1][0]:
            best.ended = "bisected down to 1% of its last proven share"
            break
        if nxt < DESCENT_MIN_SHARE:     # t is at lambda, but for 0.1% of z_RMLP
            best.ended = "it reached the LP's complexity dual"
            break
        f = nxt
    else:
        best.ended = "its call count ran out"
    return best


def _growth(proofs: list) -> float | None:
    """The log-nodes per unit of share between the last two proofs (None: fewer than two, or
    the last no costlier)."""
    if len(proofs) < 2 or not proofs[-1][1] > proofs[-2][1]:
        return None
    (f1, n1), (f2, n2) = proofs[-2], proofs[-1]
    return math.log(n2 / n1) / (f1 - f2)


def _after_proof(proofs: list, failed: float | None) -> float:
    """The descent's next share after its last proof: bisected toward the largest failed
    share below it, else where the nodes are predicted ``DESCENT_COST_RATIO`` times the last
    proof's (by :func:`_growth`), else ``0.7`` times the share."""
    f = proofs[-1][0]
    if failed is not None:
        return (f + failed) / 2
    g = _growth(proofs)
    if g is not None:
        return f - min(0.5 * f, max(0.05 * f, math.log(DESCENT_COST_RATIO) / g))
    return 0.7 * f


def _within_reach(proofs: list, failed: float | None, f: float,
                  nodes_left: float) -> float | None:
    """The descent's next share ``f`` (after its proofs) kept within what ``nodes_left`` can
    buy: None when :data:`DESCENT_REACH_SHARE` of them is no more than the last proof's
    nodes (the search tree only grows as ``t`` falls, so no step below it can be proven);
    else, with no failure and a :func:`_growth`, the share where the nodes are predicted to
    be that many, when ``f`` is predicted to need more; None too when that share is within
    1% of the last proof's."""
    can = DESCENT_REACH_SHARE * nodes_left
    f2, n2 = proofs[-1]
    if can <= n2:
        return None
    g = None if failed is not None else _growth(proofs)
    if g is None or n2 * math.exp(g * (f2 - f)) <= can:
        return f
    f = f2 - math.log(can / n2) / g
    return None if f2 - f <= 0.01 * f2 else f


def gap_closing_threshold(st, duals: Duals, zlb: float, ip_obj: float) -> float:
    """The reduced cost below which a clause can appear in a solution of objective
    ``<= ip_obj - granularity``."""
    N = st.n_max(ip_obj)
    return ip_obj - st.gran - duals.lagrangian - (N - 1) * min(0.0, zlb)
