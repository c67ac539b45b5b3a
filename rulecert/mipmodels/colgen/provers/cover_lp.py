"""The error-free cover LP bound: every rule set of complexity ``<= C`` errs when the LP
relaxation of the least-complexity error-free cover exceeds ``C``.

An error-free rule set covers every positive group with *pure* clauses (covering no negative
group; ``packing.py``).  Its complexity is at least

    Z = min sum_k c_k w_k   s.t.   sum_{k covers g} w_k >= 1 (every positive group g),  w >= 0,

over the pure clauses ``k`` of 1..D literals, ``c_k = 1 + |k|`` (the empty clause covers the
negative groups).  The packing bound's clique is a dual solution of this LP found without
pricing, and proves nothing where the clique is light.  Here the LP is solved by column
generation: a HiGHS master over the pure clauses found (the solve's pure columns first, and
an artificial column of cost ``C + 1`` per group, so that it is always feasible), priced by a
greedy over pure clauses from the positive side (``provers/meet.py``), where it finds nothing
by the beam search over clauses of 1..D literals and then the literal branch-and-bound at 2
and 3 literals (negative groups at a cost above any gain, so only pure clauses improve).

*Farley's bound.*  For duals ``y >= 0`` of the cover rows, if ``y(k) <= rho c_k`` for every
pure clause (``y(k)`` the duals of the groups it covers), then ``y / rho`` is dual feasible
and ``Z >= sum(y) / rho``.  So when the short pricing finds nothing, the positive-side search
(``provers/positive.py``, the literal cost and the constant both ``rho``) tries to prove
``rho (1 + |k|) - y(k) >= 0`` for every clause at ``rho`` just below ``sum(y) / C'``
(``C'`` = floor(C), complexities being integers).  A completed proof shows ``Z > C'``: no
error-free rule set of complexity ``<= C`` exists, and the objective is at least one error's
least weight.  A failed proof holds a clause above the ratio (its witness), which becomes a
column.  The proof needs ``sum(y) > C'``, not an optimal LP: the closer ``sum(y) / C'`` is to
1, the harder it is.  A proof that does not complete still bounds ``Z`` (its bound ``b``
gives ``y(k) <= (rho - b / 2) c_k``, every ``c_k >= 2``); the best such bound is reported.

*Beyond the LP: reduced-cost enumeration.*  Where the restricted LP falls to ``C'`` or
below, no LP bound can prove an error, but the integer cover may still need more than
``C'``.  The LP is solved on (:data:`OPTIMALITY_GAP`), and at its duals ``y`` every error-free
rule set ``S`` of complexity ``<= C'`` has ``sum_{k in S} (c_k - y(k)) <= C' - sum(y)`` (each
positive group covered once at least), so each of its at most ``C' / 2`` clauses has a
reduced cost ``<= tau = C' - sum(y) + (C' / 2 - 1) delta``, ``delta`` the proven bound on
the reduced costs' negative part.  The positive-side search enumerates every set ``T`` of
positive groups of nonzero dual such a clause can cover exactly, with a proven lower bound
on the literals of a pure clause within ``meet(T)`` (its cover LP's; an integer, so rounded
up).  Each set becomes a column covering ``T`` at that least complexity; replacing each
clause of ``S`` by the column of the groups it covers keeps the cover at no more
complexity.  So when the cover IP of those groups over these columns needs more than
``C'``, every rule set of complexity ``<= C`` errs.

*Subsets of the positive groups.*  An error-free rule set covers every positive group, so
the least error-free cover of any subset ``S`` of them bounds it below: a proof that no
cover of ``S`` fits ``C'`` proves the error.  Where the LP of every group stays above
``C'`` but its Farley proofs do not complete, the whole LP's proofs are capped
(:data:`WHOLE_PROOF_LPS`, the planner's ``"whole cover LP"`` share) and the rest of the budget goes to
subsets: the groups of the largest duals of the whole LP holding a share of its dual mass
(:data:`SUBSET_MASSES`), grown until the subset's restricted LP, priced by the heuristics,
reaches ``C' -`` :data:`SUBSET_LP_MARGIN`; then the subset's LP is solved and proven (its LP
is at most ``C'``, so by the enumeration above, over a few dozen gain groups instead of
hundreds).  Where the enumeration's cover IP still fits ``C'``, its cover shows which groups
to add (row generation): a pure clause is taken within each of its sets' meets, and the
groups of largest dual that none of them covers join the subset (:data:`SUBSET_GROW`), since
a cover of the larger subset must differ there.  Every clause found seeds the next subset.
A failed proof goes on until it holds :data:`WITNESSES` clauses below its threshold, all
added as columns, so that the LP converges in a few proofs instead of dozens.

Its work is counted (iterations, branch-and-bound nodes per pricing call, cover LPs of the
proofs and of the enumeration in all), so a run without a deadline is reproducible; under a
fit's time limit it also stops at the deadline and then proves nothing unless a proof had
completed.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import time

import numpy as np

from ....monitor import heartbeat, interrupt_requested
from ...highs import lp_row_duals, new_highs
from ..plan import SHARES
from .meet import PureClauseGreedy
from .packing import least_error_weight

MAX_ITER = 1000
"""Column-generation iterations of the cover LP at most.
With :data:`PRICING_NODE_LIMIT` it bounds the work between proofs, which the node limit
(the proofs' cover LPs) does not count."""
BEAM_WIDTH, BEAM_MAX_WIDTH = 5, 1280
"""The beam search's width, doubled up to the most when it finds nothing (``beam.py``): it
finds long improving clauses cheaply where the branch-and-bound over fewer literals can
spend its nodes for none."""
SHORT_LENGTHS = (2, 3)
"""Clause lengths of the short pricing searches (capped at ``D``), tried in turn where the
beam finds nothing (longer searches need not complete within their node limit; the
positive-side proof prices clauses of every length exactly)."""
PRICING_NODE_LIMIT = 500_000
"""Branch-and-bound nodes of one short pricing call."""
FOUND_NODE_LIMIT = 20_000
"""A short pricing call returns once it holds an improving clause and spent this many nodes
(``price_by_branch_and_bound``'s ``found_node_limit``)."""
RATIO_SLACK = 1e-7
"""``rho = sum(y) / (C' (1 + RATIO_SLACK))``: just below the ratio that proves ``Z > C'``."""
PROOF_TOL = 1e-7
"""The proof's threshold is ``-PROOF_TOL`` (``rho c_k - y(k) >= -PROOF_TOL``)."""
OPTIMALITY_GAP = 0.02
"""Where the LP is at most ``C'``, it is solved until the positive-side search proves every
pure clause's reduced cost ``c_k - y(k) >= -OPTIMALITY_GAP``, the ``delta`` of the
enumeration (module doc)."""
WITNESSES = 20
"""A failed proof goes on until it holds this many clauses below its threshold, all added
as columns (``positive_side_bound``'s ``witnesses``): the later proofs of an LP near its
optimum search many sets for one clause."""
ENUMERATION_IP_NODES = 100_000
"""HiGHS nodes of the enumeration's last cover IP."""
ENTRY_IP_NODES = 0
"""HiGHS nodes of the IP of the least pure clause within each enumerated set's meet (0: its
LP bound, from the search, is the set's complexity)."""
WHOLE_PROOF_LPS = 20_000
SUBSET_MASSES = (0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
"""The first subset: the fewest positive groups of the largest duals of the whole cover LP
that hold one of these shares of its dual mass, in turn, until :data:`SUBSET_LP_MARGIN`."""
SUBSET_LP_MARGIN = 0.5
"""A subset is proven (and enumerated) once its restricted LP, priced by the heuristics
alone, is at least ``C' - SUBSET_LP_MARGIN``; below, more groups are taken first."""
SUBSET_GROW = 0.15
"""Where a subset's enumeration finds a cover within ``C'``, this share of its size is
added: the groups of largest dual that the cover's clauses (a pure clause within each
set's meet, by the greedy of ``provers/meet.py``) miss."""


@dataclasses.dataclass
class CoverLPBound:
    """What the error-free cover LP proved (``bound`` 0: nothing) and how."""

    bound: float = 0.0
    reason: str = ""
    lp_bound: float = 0.0
    """The best proven lower bound on ``Z`` (on every error-free rule set's complexity)."""
    restricted_lp: float | None = None
    """The last restricted master LP's value (an upper bound on ``Z``)."""
    iterations: int = 0
    columns: int = 0
    pricing_nodes: int = 0
    greedy_rounds: int = 0
    """Pricing rounds whose columns the greedy over pure clauses found (``provers/meet.py``)."""
    proofs: int = 0
    proof_lps: int = 0
    """Cover LPs of the positive-side proofs and of the enumeration."""
    enumerated: int = 0
    """Sets of positive groups the reduced-cost enumeration met below its threshold."""
    enumeration_ip: float | None = None
    """The proven bound of the enumeration's cover IP (``inf``: no cover; None: not run)."""
    stopped: str = ""
    """Why it ended without a proof: "lp_at_most_C" (the restricted LP, an upper bound on
    ``Z``, fell to ``C'`` or below, and the enumeration's cover IP needs ``C'`` at most),
    "iterations", "node_limit", "deadline", "interrupted" (Ctrl-C), "no_witness" (a proof
    failed without a clause to add), "lp_failed", "not applicable"; empty when proven.
    With subsets tried, the last subset's."""
    subsets: list = dataclasses.field(default_factory=list)
    """Per subset of positive groups tried (module doc): its size and, for those only
    priced, the heuristics' restricted LP; for those proven, the restricted LP, iterations,
    proofs, cover LPs, enumerated sets, enumeration IP; and why it ended."""
    wall_time: float = 0.0

    def stats(self) -> dict:
        return dataclasses.asdict(self)


class _CoverMaster:
    """The restricted master LP of the error-free cover (rows: positive groups)."""

    def __init__(self, Xp: np.ndarray, cost_artificial: float | None):
        """Rows ``Xp``; an artificial column of ``cost_artificial`` per row (None: none, so
        the model may be infeasible)."""
        import highspy
        self.Xp, self.n = Xp, len(Xp)
        self.h = new_highs(workers=1)
        inf = highspy.kHighsInf
        self.inf = inf
        for _ in range(self.n):
            self.h.addRow(1.0, inf, 0, np.zeros(0, np.int32), np.zeros(0))
        for g in range(self.n if cost_artificial is not None else 0):
            self.h.addCol(cost_artificial, 0.0, inf, 1, np.array([g], np.int32), np.ones(1))
        self.clauses: dict[tuple[int, ...], int] = {}
        """The clauses added, each with the index of its column."""

    def add(self, clause) -> bool:
        cl = tuple(sorted(int(j) for j in clause))
        if not cl or cl in self.clauses:
            return False
        self.clauses[cl] = self.h.getNumCol()
        self.add_column(np.flatnonzero(np.logical_and.reduce(self.Xp[:, list(cl)], axis=1)),
                        1.0 + len(cl))
        return True

    def add_column(self, rows: np.ndarray, cost: float) -> None:
        """A column of ``cost`` covering ``rows``."""
        self.h.addCol(cost, 0.0, self.inf, len(rows), np.asarray(rows, np.int32),
                      np.ones(len(rows)))

    def support(self) -> list[tuple[int, ...]]:
        """The clauses of positive value in the last LP solution."""
        x = self.h.getSolution().col_value
        return [cl for cl, j in self.clauses.items() if x[j] > 1e-9]

    def integer_bound(self, node_limit: int) -> float:
        """A proven lower bound on the least complexity of a cover of every row by the
        clauses added, every column integer (HiGHS, ``node_limit`` nodes; ``inf``: none
        covers)."""
        import highspy
        n = self.h.getNumCol()
        if n:
            self.h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                                         np.full(n, highspy.HighsVarType.kInteger))
        self.h.setOptionValue("mip_max_nodes", int(node_limit))
        self.h.setOptionValue("mip_rel_gap", 0.0)
        self.h.run()
        if self.h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
            return math.inf
        bound = float(self.h.getInfo().mip_dual_bound)
        return bound if math.isfinite(bound) else -math.inf

    def integer_solution(self) -> np.ndarray | None:
        """The columns' values in the best integer solution :meth:`integer_bound` found."""
        sol = self.h.getSolution()
        return np.asarray(sol.col_value) if sol.value_valid else None

    def solve(self) -> tuple[float, np.ndarray] | None:
        self.h.run()
        y = lp_row_duals(self.h)
        if y is None:
            return None
        return float(self.h.getInfo().objective_function_value), np.maximum(y, 0.0)


def _price(master: _CoverMaster, greedy, X, v, D: int, lengths, deadline, workers: int,
           out: CoverLPBound) -> bool:
    """One pricing round: the greedy over pure clauses from the positive side (``greedy``,
    ``provers/meet.py``), then the beam search over clauses of 1..D literals, then the
    branch-and-bound at each of ``lengths`` until one finds an improving clause; whether a
    new column was added."""
    from ..pricing.beam import beam_pricing
    from ..pricing.bnb import price_by_branch_and_bound
    from ..pricing.instance import PricingInstance
    if sum(master.add(c) for c in greedy.price(-v[:master.n], K=50, starts=master.support())):
        out.greedy_rounds += 1
        return True
    inst = PricingInstance(X, v, 1.0, 1.0, D, np.arange(X.shape[1]))
    r = beam_pricing(inst, threshold=-1e-6, beam_width=BEAM_WIDTH, max_width=BEAM_MAX_WIDTH,
                     deadline=deadline)
    if sum(master.add(c) for c in r.clauses):
        return True
    for length in lengths:
        r = price_by_branch_and_bound(X, v, 1.0, 1.0, length, K=50, upper=-1e-6,
                                      node_limit=PRICING_NODE_LIMIT, deadline=deadline,
                                      found_node_limit=FOUND_NODE_LIMIT, workers=workers)
        out.pricing_nodes += r.nodes
        if r.clauses:
            return sum(master.add(c) for c in r.clauses) > 0
    return False


def _count(left: float) -> int | None:
    """A node budget left, as the searches take it (None: no limit)."""
    return None if math.isinf(left) else int(left)


def _enumerate(X, y, v, delta: float, Cf: float, D: int, budget: _Budget,
               proof_workers: int, out: CoverLPBound, cover_sets: list | None = None
               ) -> str | None:
    """The reduced-cost enumeration of the module doc at the LP duals ``y`` (``v`` the
    pricing's coefficients, ``delta`` the proven bound on the reduced costs' negative part),
    its cover LPs taken from ``budget``: the reason when it proves that no error-free cover
    of complexity ``<= Cf`` exists, else None with ``out.stopped`` set."""
    from .positive import positive_side_bound
    tau = Cf - float(y.sum()) + max(0.0, Cf // 2 - 1) * delta
    entries: list = []
    ps = positive_side_bound(X, v, 1.0, 1.0, D, upper=tau + 1e-6,
                             node_limit=_count(budget.left), deadline=budget.deadline,
                             exact_node_limit=ENTRY_IP_NODES, workers=proof_workers,
                             collect=entries)
    out.proof_lps += ps.nodes
    budget.left -= ps.nodes
    out.enumerated = len(entries)
    if not ps.complete:
        out.stopped = ps.stopped
        return None
    gain = np.flatnonzero(y > 0)
    row = np.full(len(X), -1)
    row[gain] = np.arange(len(gain))
    cover = _CoverMaster(X[gain], None)
    for _, F, groups in entries:
        # a pure clause within meet(T) has at least F literals, an integer number
        cover.add_column(row[groups], 1.0 + math.ceil(F - 1e-6))
    out.enumeration_ip = cover.integer_bound(ENUMERATION_IP_NODES)
    if out.enumeration_ip <= Cf + 1e-6:
        out.stopped = "lp_at_most_C"
        x = cover.integer_solution()
        if cover_sets is not None and x is not None:
            cover_sets.extend(np.asarray(entries[j][2]) for j in np.flatnonzero(x > 0.5))
        return None
    return (f"every rule set of complexity <= C errs: no error-free cover of complexity <= "
            f"{Cf:g} exists (reduced-cost enumeration at the duals of the error-free cover "
            f"LP, {float(y.sum()):.6g}: the {len(entries)} sets of positive groups a pure "
            f"clause of reduced cost <= {tau:.4g} may cover, each at the least complexity "
            f"such a clause may have, need complexity >= {out.enumeration_ip:.6g} to cover "
            f"the {len(gain)} groups of nonzero dual)")


def cover_lp_bound(st, node_limit: int | None, *, seeds=(), deadline: float | None = None,
                   workers: int = 1, should_stop=None) -> CoverLPBound:
    """The bound of the module doc on the loop's transformed instance ``st`` (groups ``X``,
    masses ``pos`` / ``neg``, positive groups ``P``, ``C``, ``D``), its master seeded with
    the pure clauses among ``seeds``; ``node_limit`` counts the proofs' cover LPs in all
    (None: no limit); ``deadline`` a ``time.perf_counter()`` value.  The positive-side
    proofs run on one thread without a deadline (reproducible) and on ``workers`` with one,
    as the branch-and-bound pricing always does (its rounds are counted).  ``should_stop()``
    (a solve's monitor: Ctrl-C, the callback, the memory cap; by default Ctrl-C alone), asked
    every iteration, ends it as "interrupted" when not None (Ctrl-C also stops the searches
    inside).  Where the LP of every positive group stays above ``C'`` past
    :data:`WHOLE_PROOF_LPS` (or the planner's ``"whole cover LP"`` share of the time), the rest goes to
    subsets of the groups (:data:`SUBSET_MASSES`, module doc)."""
    t0 = time.perf_counter()
    out = CoverLPBound()
    if should_stop is None:                   # a direct call: Ctrl-C alone
        def should_stop():
            return "interrupted" if interrupt_requested() else None
    negative = np.flatnonzero(st.neg > 0)
    if st.C is None or not len(st.P) or not len(negative) or np.any(st.neg[st.P] > 0):
        out.stopped = "not applicable"
        return out
    budget = _Budget(node_limit, deadline, t0)
    run = functools.partial(_solve, st, negative, budget=budget, workers=workers,
                            should_stop=should_stop)
    master, y = run(np.arange(len(st.P)), seeds, out, farley_cap=True)
    out.columns = len(master.clauses)
    if out.stopped == "whole_share" and y is not None:
        _subsets(st, negative, run, y, list(master.clauses), out)
    out.wall_time = time.perf_counter() - t0
    return out


def _subsets(st, negative, run, y: np.ndarray, clauses: list, out: CoverLPBound) -> None:
    """The subsets stage (module doc) after the whole LP's share, at its last duals ``y``:
    the groups of the largest duals holding :data:`SUBSET_MASSES` of the dual mass, more
    while the subset's restricted LP where pricing first finds nothing is below ``C' -
    SUBSET_LP_MARGIN``; then, in the same run, its proof and enumeration, and while the
    enumeration's cover IP fits ``C'``, the groups that the clauses of its cover miss are
    added (:data:`SUBSET_GROW`).  ``run(rows, seeds, out, farley_cap, min_lp, cover_sets)``
    is :func:`_solve` on the instance (``negative``: its negative groups); every clause any
    stage found seeds the next."""
    Cf = math.floor(st.C + 1e-9)

    def attempt(rows, min_lp=None):
        """One subset's run, its work counted in ``out``; its record and cover's sets."""
        nonlocal clauses
        sub, chosen = CoverLPBound(), []
        master, _ = run(rows, clauses, sub, cover_sets=chosen, min_lp=min_lp)
        clauses = list(master.clauses)
        _absorb(out, sub)
        return sub, chosen

    order = np.argsort(-y, kind="stable")
    mass = np.cumsum(y[order]) / max(float(y.sum()), 1e-12)
    rows = order[:0]
    for share in SUBSET_MASSES:            # the first subset, by the dual mass it holds
        n = int(np.searchsorted(mass, share - 1e-12)) + 1
        if n <= len(rows):
            continue
        rows = np.sort(order[:n])
        sub, chosen = attempt(rows, None if n == len(order) else Cf - SUBSET_LP_MARGIN)
        if sub.stopped != "lp_below_margin":
            break
        out.subsets.append(dict(groups=len(rows), heuristic_lp=sub.restricted_lp,
                                stopped=sub.stopped))
    else:
        return
    Xp = st.X[st.P]
    greedy = PureClauseGreedy(Xp, st.X[negative], st.D, np.random.default_rng(0))
    lit_gain = y @ Xp
    while True:                            # proven, enumerated, grown by what its cover misses
        out.subsets.append(dict(
            groups=len(rows), restricted_lp=sub.restricted_lp, iterations=sub.iterations,
            proofs=sub.proofs, proof_lps=sub.proof_lps, enumerated=sub.enumerated,
            enumeration_ip=sub.enumeration_ip, stopped=sub.stopped))
        out.stopped = sub.stopped
        if sub.bound > 0:
            share = float(y[rows].sum()) / max(float(y.sum()), 1e-12)
            out.bound = sub.bound
            out.reason = (f"{sub.reason}, over {len(rows)} of the {len(st.P)} positive groups "
                          f"({share:.0%} of the dual mass of the whole cover LP, restricted LP "
                          f"{out.restricted_lp:.6g}): an error-free rule set covers them all")
            return
        if sub.stopped != "lp_at_most_C":
            return
        covered = np.zeros(len(st.P), dtype=bool)
        covered[rows] = True
        for T in chosen:                   # a pure clause within each set's meet
            cl = greedy.clause_within(np.bitwise_and.reduce(greedy.P[rows[T]], axis=0),
                                      lit_gain)
            if cl is not None:
                covered |= Xp[:, list(cl)].all(axis=1)
        missing = np.flatnonzero(~covered)
        if not len(missing):               # its cover reaches every group: the rest by dual
            missing = np.setdiff1d(order, rows, assume_unique=True)
        if not len(missing):
            return
        missing = missing[np.argsort(-y[missing], kind="stable")]
        grow = max(1, math.ceil(SUBSET_GROW * len(rows)))
        rows = np.sort(np.r_[rows, missing[:grow]])
        sub, chosen = attempt(rows)


def _absorb(out: CoverLPBound, sub: CoverLPBound) -> None:
    """Count a subset's work in the whole record; a subset's LP bound bounds the whole
    ``Z`` too (a cover of every group covers the subset)."""
    out.proof_lps += sub.proof_lps
    out.pricing_nodes += sub.pricing_nodes
    out.greedy_rounds += sub.greedy_rounds
    out.lp_bound = max(out.lp_bound, sub.lp_bound)


class _Budget:
    """The cover LPs left to the proofs and enumerations of every stage, and the deadline."""

    def __init__(self, node_limit: int | None, deadline: float | None, t0: float):
        self.left = math.inf if node_limit is None else float(node_limit)
        self.deadline, self.t0 = deadline, t0


def _solve(st, negative, rows, seeds, out: CoverLPBound, *, budget: _Budget, workers: int,
           should_stop, farley_cap: bool = False, min_lp: float | None = None,
           cover_sets: list | None = None):
    """Column generation of the error-free cover LP of the positive groups ``st.P[rows]``,
    then its proof (Farley's bound, or the enumeration where the LP is at most ``C'``), into
    ``out``; with ``farley_cap``, while the restricted LP stays above ``C'`` the proofs
    stop once :data:`WHOLE_PROOF_LPS` of a finite budget or the planner's ``"whole cover LP"`` share of the
    time to the deadline is spent (``out.stopped`` "whole_share"); with ``min_lp``, a
    restricted LP below it where pricing first finds nothing ends it ("lp_below_margin"),
    before any proof; ``cover_sets`` receives the sets
    (indices into ``rows``) of the cover the enumeration's IP found within ``C'``.  Returns
    the master and its last duals (None: no LP)."""
    from .positive import positive_side_bound
    Cf = math.floor(st.C + 1e-9)
    X = np.ascontiguousarray(np.r_[st.X[st.P[rows]], st.X[negative]])
    nP = len(rows)
    master = _CoverMaster(X[:nP], Cf + 1.0)
    greedy = PureClauseGreedy(X[:nP], X[nP:], st.D, np.random.default_rng(0))
    for cl in seeds:
        if cl and len(cl) <= st.D and not st.coverage(cl)[negative].any():
            master.add(cl)
    lengths = sorted({min(k, st.D) for k in SHORT_LENGTHS})
    deadline = budget.deadline
    proof_workers = 1 if deadline is None else workers     # counted runs: one thread
    farley_left, farley_end = math.inf, None
    if farley_cap:
        farley_left = WHOLE_PROOF_LPS if math.isfinite(budget.left) else math.inf
        if deadline is not None:
            farley_end = budget.t0 + SHARES["whole cover LP"] * (deadline - budget.t0)
    y = None
    for out.iterations in range(1, MAX_ITER + 1):
        if deadline is not None and time.perf_counter() >= deadline:
            out.stopped = "deadline"
            break
        if should_stop() is not None:
            out.stopped = "interrupted"
            break
        heartbeat(phase="cover LP", iterations=out.iterations)
        lp = master.solve()
        if lp is None:
            out.stopped = "lp_failed"
            break
        out.restricted_lp, y = lp
        sy = float(y.sum())
        v = np.r_[-y, np.full(len(negative), sy + 2.0 * (1 + st.D) * max(1.0, sy / Cf))]
        found = _price(master, greedy, X, v, st.D, lengths, deadline, workers, out)
        if found:
            continue
        if min_lp is not None and not out.proofs and out.restricted_lp < min_lp:
            out.stopped = "lp_below_margin"
            break
        if budget.left <= 0:
            out.stopped = "node_limit"
            break
        at_most_C = out.restricted_lp <= Cf * (1.0 + 2 * RATIO_SLACK)
        if not at_most_C and (farley_left <= 0 or (farley_end is not None
                                                   and time.perf_counter() >= farley_end)):
            out.stopped = "whole_share"
            break
        # Z <= the restricted LP <= C': no LP bound proves, so the LP is solved on for the
        # enumeration; above C', Farley's bound at rho just below sum(y) / C'
        rho = 1.0 if at_most_C else sy / (Cf * (1.0 + RATIO_SLACK))
        cap = budget.left if at_most_C else min(budget.left, farley_left)
        end = deadline if at_most_C or farley_end is None else min(deadline, farley_end)
        ps = positive_side_bound(X, v, rho, rho, st.D,
                                 upper=-OPTIMALITY_GAP if at_most_C else -PROOF_TOL,
                                 node_limit=_count(cap), deadline=end, workers=proof_workers,
                                 witnesses=WITNESSES)
        out.proofs += 1
        out.proof_lps += ps.nodes
        budget.left -= ps.nodes
        farley_left -= 0 if at_most_C else ps.nodes
        if at_most_C and ps.complete:
            reason = _enumerate(X, y, v, max(0.0, -ps.bound), Cf, st.D, budget,
                                proof_workers, out, cover_sets)
            if reason:
                out.reason = reason
                out.bound = st.round_bound(least_error_weight(st))
            break
        ratio = rho + max(0.0, -ps.bound) / 2.0      # y(k) <= ratio c_k, every c_k >= 2
        out.lp_bound = max(out.lp_bound, sy / ratio)
        if ps.complete and sy / ratio > Cf:
            out.reason = (f"every rule set of complexity <= C errs: the LP of the least-"
                          f"complexity error-free cover is >= {sy / ratio:.8g} > {Cf:g} "
                          f"(Farley's bound, proven over every pure clause of 1..{st.D} "
                          f"literals at the duals of a master of {len(master.clauses)} "
                          f"pure clauses)")
            out.bound = st.round_bound(least_error_weight(st))
            break
        if sum(master.add(w) for w in ps.witnesses):
            continue
        if not at_most_C and ps.stopped in ("node_limit", "deadline") and budget.left > 0 and (
                deadline is None or time.perf_counter() < deadline):
            out.stopped = "whole_share"           # the share, not the budget, stopped it
        else:
            out.stopped = ps.stopped if ps.stopped in ("deadline", "interrupted",
                                                       "node_limit") else "no_witness"
        break
    else:
        out.stopped = "iterations"
    return master, y
