"""Column generation for Boolean rule sets with a certified gap (Dash, Gunluk & Wei 2018).

``solve(problem, options) -> ColgenSolution`` (unpacks as ``(RuleSet, Certificate)``; it also
carries the column pool).  The capture rows of ``problem`` are
the binary features (row ``j`` = column ``j``), for example
``RuleProblem.from_matrix(X_binary, y, feature_names)``.

Algorithm
---------
1. Restricted master LP (``master.py``) over the clauses generated so far, in one Highs
   object, re-solved warm after each batch of new columns; its duals give ``mu`` (cover
   rows) and ``lambda`` (complexity row).
2. Pricing (``pricing/``, the chain in ``pricing/chain.py``), each pricer tried only when the previous one found nothing
   (``pricing="auto"``): the paper's greedy heuristic; the beam search of AIX360's
   ``BooleanRuleCG`` (width ``beam_width``, clauses of up to D literals, re-run with the
   width doubled up to ``BEAM_WIDENING`` times when it finds nothing; cheap, finds columns
   when the greedy heuristic's capped breadth-first search over many features does not; it
   proves no bound); the exact branch-and-bound
   (``pricing/bnb.py``) restricted to ``heuristic_max_length`` literals (fast, finds good columns
   when D is large; its bound is not used); the exact branch-and-bound over all clauses of
   up to D literals (returns early once it holds improving columns, see
   ``bnb_found_node_limit``); the pricing IP (6)-(10) in CP-SAT.  ``pricing="exact"`` is the
   paper's order (CP-SAT, then the heuristic); ``pricing="heuristic"`` is the paper's greedy
   heuristic only.  Past ``sample_rows`` distinct samples the
   pricers first run on the paper's random sample (rows, and features past
   ``max_nonzeros``), then on the full data.  Returned clauses are made irredundant on the
   training data (a literal that does not change the coverage is dropped, which never
   increases the reduced cost), re-priced exactly on the full data and added when negative.
   Only pricers run on the full data contribute pricing bounds.
3. Stop when pricing proves that no clause has a negative reduced cost (the LP is optimal),
   when the proven bound already equals ``ceil(z_RMLP)`` (no column can raise it), when
   pricing finds nothing within its limits, or at ``max_iter`` / ``max_columns`` / the
   time limit.
4. Restricted master IP in HiGHS (``restricted_ip.py``) (the same object, clause columns switched to binary),
   warm-started from the best of (a) a greedy rounding of the LP or a greedy cover, improved
   by local search (``localsearch.py``: add / drop / swap descent and iterated kicks, at most
   ``LOCAL_SEARCH_SHARE`` of the time left) and (b) the IP over the LP solution's support
   alone (a small IP given at most half the time left).  When the full restricted IP stalls
   under a time limit, its start is what is returned.
5. Optional gap closing (``close_gap``): every clause whose reduced cost is small enough to
   appear in a better solution is enumerated and added, then the IP is re-solved (below).

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
``0``.  ``smoothing`` (Wentges) prices at a convex combination of the LP's duals and those of
the best bound so far.  The certificate's message and ``stats["bound_class"]`` name the class
the bound holds over (clauses of 1..D literals, the empty clause) and say when it is trivial.  Bounds are kept over the iterations (the best
one is reported); ``history`` has one entry per iteration (``rmlp``, ``pricing_bound``,
``lower_bound``; ``objective`` is the best rule set known: the empty one until the restricted
IP), periodic samples of the restricted IP's incumbent (``history_every``) and a final entry.

Stopping (DESIGN rule 8).  Ctrl-C, the ``callback`` returning True and the memory cap
(``memory_limit_mb``) are checked before each iteration and after pricing; the master LP, the
CP-SAT pricer and the restricted IP are stopped inside their solver (``highs.run_watched``),
the combinatorial pricers between chunks.  The loop then ends with ``INTERRUPTED`` /
``MEMORY_LIMIT``: the restricted IP is only warm-started (greedy rounding and a short local
search, no HiGHS solve), gap closing is skipped, and the bound is the best proven so far.

Gap closing.  The same inequality shows that a clause ``k`` can appear in a solution of
objective ``<= UB - granularity`` only if ``rc_k <= UB - granularity - L -
(N - 1) min(0, z_CG)``.  Enumerating all such clauses (a complete search, capped by
``close_gap_max_columns``) and re-solving the restricted IP therefore solves the master IP
exactly: the certificate's bound becomes the restricted IP's own proven bound.  An
enumeration that its node limit or its cap cuts short has still returned every clause of
reduced cost below its proven bound ``u`` on the rest (``u < T``, ``T`` the threshold above);
a solution holding a clause of reduced cost ``>= u`` costs at least ``UB - granularity -
(T - u)``, so with the clauses below ``u`` added, the least of that and the restricted IP's
bound is a bound of the master IP (tried when it beats the bound so far).  With an integral
objective the whole threshold gets half of ``close_gap_node_limit``; when that does not
finish (its node limit, not the cap, stopped it), the rest climbs a ladder of lower
thresholds, each the one that proves the next integer (:func:`_gap_ladder`;
``stats["gap_closing"]["ladder"]`` lists the rungs).  Past the cap the ladder is climbed only
with ``close_gap_ladder_after_cap``: measured on the experiment runner's small protocol fits
(``tests/test_runner.py``), whose enumerations reach the default cap of 10,000 clauses within
10,000-60,000 nodes, the ladder then spent up to the rest of the 10^8 nodes on every fit (the
tests 50 s slower in all).

CNF (De Morgan).  A CNF over the features is the negation of a DNF over the negated
features for the negated labels; we learn that DNF (labels and features complemented,
``fn_weight`` applying to the original negatives) and report its clauses as CNF clauses.
"""
from __future__ import annotations

import dataclasses
import hashlib
import logging
import math
import time

import numpy as np

from ...certificate import Certificate, Solution, Termination, certify
from ...limits import (DEFAULT_BOUND_NODE_LIMIT, DEFAULT_CLOSE_GAP_MAX_COLUMNS,
                       DEFAULT_CLOSE_GAP_NODE_LIMIT, DEFAULT_DIVE_NODE_LIMIT,
                       DEFAULT_FINAL_BOUND_NODE_LIMIT, DEFAULT_SEED,
                       Deadline, check_count_limit, check_positive,
                       check_time_limit, resolve_memory_limit_mb)
from ...monitor import Monitor, catch_interrupt, interrupt_requested
from ...models.ruleset import RuleSet, check_complexity_bound, ruleset_objective
from .. import cpsat as cx
from .. import highs as hx
from .bounds import (DualSearch, Duals, complexity_dual_descent, complexity_dual_search,
                     conflict_bound, gap_closing_threshold, read_duals)
from .dive import dive
from .master import IP_SETS, RestrictedMaster
from .pricing import PRICING_MODES, PricingRound, price, price_by_branch_and_bound
from .restricted_ip import (STOPPED, RestrictedIP, resolve, resolve_after_dive, seconds_left,
                            solve_restricted_ip)

log = logging.getLogger(__name__)

@dataclasses.dataclass
class ColGenOptions:
    """Options of :func:`solve` (see the module doc for the method)."""

    complexity_bound: float | None = 30.0
    """``C``: sum over clauses of (1 + literals) <= C.  ``None``: penalized form only."""
    max_clause_length: int | None = None
    """``D``: literals per clause; default ``C - 1`` (no restriction), or 10 without ``C``."""
    empty_clause: bool = True
    """Admit the empty conjunction (no literal: always true, complexity 1) as a clause.  The
    paper's pricing problem (6)-(10) admits it and AIX360's BooleanRuleCG returns it, and
    "predict 1 everywhere" is a model users expect; on by default (then ``C >= 1``; off: a
    clause has >= 1 literal and ``C >= 2``).  It is a column of the master from the start,
    so pricing searches the non-empty clauses only."""
    form: str = "dnf"
    fn_weight: float = 1.0
    """Weight of a false negative (of the learned class) relative to one false-positive hit."""
    clause_penalty: float = 0.0
    """Objective cost per clause (penalized form, not scaled by n)."""
    literal_penalty: float = 0.0
    """Objective cost per literal (penalized form, not scaled by n)."""
    pricing: str = "auto"
    """"auto": the greedy heuristic, the beam search, the exact branch-and-bound (first over
    ``heuristic_max_length`` literals, then over D), then CP-SAT, each only when the
    previous ones found no improving clause; "exact": CP-SAT first (the paper), the
    heuristic when CP-SAT finds nothing; "bnb": as "auto" without CP-SAT;
    "heuristic": the paper's greedy heuristic only."""
    time_limit: float | None = None
    """Wall-clock limit of the whole solve (all phases)."""
    pricing_time_limit: float | None = 30.0
    """Wall-clock limit of one CP-SAT pricing call."""
    pricing_deterministic_time: float | None = None
    """CP-SAT deterministic limit per pricing call (reproducible; use in tests)."""
    bnb_found_node_limit: int | None = 200_000
    """Return from a branch-and-bound pricing call once it holds an improving clause and has
    expanded this many nodes, and a tenth as many since its first clause
    (``pricing/bnb.py``'s ``FOUND_GRACE_DIVISOR``; None: search for the K best to the end)."""
    bnb_node_limit: int | None = None
    """Node limit of one branch-and-bound pricing call (deterministic; it is also stopped by
    ``pricing_time_limit``); CP-SAT takes over when it neither finds nor proves."""
    max_iter: int | None = None
    """Column-generation iterations (deterministic limit)."""
    max_columns: int | None = None
    columns_per_iter: int = 50
    heuristic_max_length: int = 5
    heuristic_max_generated: int = 20000
    beam_width: int = 5
    """Width of the beam-search pricer (clauses kept per level; AIX360 uses 5); a search
    that finds nothing is repeated with the width doubled, up to ``BEAM_WIDENING`` times
    this width."""
    sample_rows: int | None = 2000
    """Randomized pricing past this many distinct samples (None: never)."""
    max_nonzeros: int | None = 100_000
    """Sample the candidate features too past this many non-zeros in the sampled pricing."""
    close_gap: bool = True
    close_gap_max_columns: int = DEFAULT_CLOSE_GAP_MAX_COLUMNS
    """Most clauses gap closing enumerates; an enumeration that reaches it does not close the
    gap (what it still proves: the module doc's gap closing).  Enumerating and adding cost
    about 75 us per clause (measured: 67,000 clauses took 5 s), time that a wall-clock limit
    does not interrupt, so the default is small; certification runs raise it
    (:func:`.presets.certification_options`: 100,000)."""
    close_gap_node_limit: int | None = DEFAULT_CLOSE_GAP_NODE_LIMIT
    """Branch-and-bound nodes of gap closing's enumerations in all (the whole threshold, then
    the ladder); None: no limit."""
    close_gap_ladder_after_cap: bool = False
    """Climb gap closing's ladder (:func:`_gap_ladder`) also when the whole threshold's
    enumeration reached ``close_gap_max_columns``, not only when its node limit stopped it.
    Off by default: small fits reach the cap within tens of thousands of nodes and the ladder
    would then spend up to the rest of ``close_gap_node_limit`` on each (the runner tests'
    small protocol fits 50 s slower in all).  A certification run that can spend the time
    turns it on (``brcg_bounds.py --ladder-after-cap``, ``rulecert brcg
    --gap-ladder-after-cap``; measured there: ILPD at C = 10 124 -> 126 in 242 s, pima at
    C = 20 114 -> 115 in 212 s); :func:`.presets.certification_options` leaves it off."""
    local_search: bool = True
    """Improve the restricted IP's greedy start by local search (``localsearch.py``)."""
    dive: bool = False
    """After the restricted IP, dive (``dive.py``): fix the largest fractional column to 1,
    re-run column generation under the fixings, until the LP solution is integral; the
    restricted IP is solved again over the dive's columns too, from the better of its own
    selection and the dive's rule set (never worse than without the dive).  A primal
    heuristic for when the restricted IP's columns combine badly (measured: wdbc at C = 20 2
    -> 1 error, ionosphere at C = 20 6 -> 4); the bound is unchanged.  Off by default (it
    can double a fit's pricing); :func:`.presets.certification_options` turns it on."""
    dive_iterations: int = 20
    """Pricing rounds of the dive after each fixing (and before the first when column
    generation stopped with pricing still finding clauses), at most; a round that adds no
    column ends them early."""
    dive_node_limit: int | None = DEFAULT_DIVE_NODE_LIMIT
    """Branch-and-bound pricing nodes of the dive: it prices while some are left, each
    branch-and-bound call getting at most what was left when its round began (and
    ``bnb_node_limit``; a round makes up to two such calls, four on sampled data), then goes
    on fixing without pricing.  None: no limit but the calls' own."""
    ip_time_fraction: float = 0.25
    """Share of ``time_limit`` kept for the restricted IP and gap closing."""
    ip_node_limit: int | None = None
    ip_options: dict | None = None
    """HiGHS options of the restricted IP's solves (names to values, checked against HiGHS
    before any work), e.g. :data:`.restricted_ip.LIGHT_IP_OPTIONS` for a cheaper IP without
    strong branching or root heuristics (``brcg_table.py --light-ip``).  Deterministic like
    the defaults; they change which rule set a node limit stops at, never the validity of the
    certificate.  The options rulecert sets itself (limits, gaps, seed, threads, presolve)
    are refused: use ``time_limit``, ``ip_node_limit``, ``seed`` and ``workers``."""
    initial_solution: list | None = None
    """A rule set (clauses as sets of feature indices) to start the restricted IP from when
    it fits the complexity bound and beats the greedy start, e.g. the solution for a smaller
    C; its clauses are added to the columns."""
    initial_clauses: list | None = None
    """Clauses (sets of feature indices, in the learned DNF's features) to start from, e.g.
    the ``column_pool`` of an earlier :class:`ColgenSolution` on the same data (any complexity bound:
    a clause is a valid column whatever C is).  Clauses longer than D are skipped."""
    smoothing: float = 0.0
    """Wentges dual smoothing ``alpha`` in [0, 1) (0: price at the LP's duals)."""
    bound_search_steps: int = 3
    """Pricing calls per iteration that search the complexity dual maximising the Lagrangian
    bound (``bounds.py``: the bound normalised by clause complexity); 0: the paper's bound at
    the LP's dual only.  A search that does not raise the best bound sends the next one 2, 4,
    8, ... iterations later (and one runs at the last of ``max_iter``); under a time limit
    the searches share ``BOUND_SEARCH_SHARE`` of column generation's time."""
    bound_short_length: int = 3
    """In that search, clauses of at most this many literals are priced exactly and longer
    ones (at most ``floor(C / (length + 2))`` fit) only down to a small negative threshold."""
    bound_node_limit: int | None = DEFAULT_BOUND_NODE_LIMIT
    """Node limit of each of those branch-and-bound calls (deterministic; a call stopped by
    it still proves a bound)."""
    final_bound_node_limit: int | None = DEFAULT_FINAL_BOUND_NODE_LIMIT
    """Branch-and-bound nodes of the last search *in all*, when pricing found no clause and
    column generation stops: a descent in the complexity dual ``t``
    (``bounds.complexity_dual_descent``), each proof at a smaller ``t`` worth more nodes
    (measured on pima's final duals at C = 10, bound / nodes of the proof: 103 / 0.64 million
    at t = 8.5, 123 / 2.8 million at t = 6.5, 143 / 16 million at t = 4.5, 153 / 46 million
    at t = 3.5; about 0.7 million nodes a second).  On those duals the descent certifies 113
    with 5 million nodes and 132 with 20 million (the former bisection, 10 calls of 2 million
    nodes each: 108 with 16.9 million); pima's at C = 20: 71 with 20 million (48).  The
    default, 5 million, keeps small cross-validated fits as fast as before (20 million made
    the runner tests' 27-cell study 30% slower); certification runs raise it
    (``brcg_bounds.py``: 10^8 per 2000 rows) or call ``strengthen_bound``.  None: no budget
    (each call still stops at 8 times the nodes of the last proof)."""
    workers: int = 1
    """Threads of the branch-and-bound searches (pricing, the bound's searches, gap
    closing: ``pricing/bnb.py`` deals the tree to them, deterministically for a given
    number) and of CP-SAT; the HiGHS master and restricted IP run on one."""
    seed: int = DEFAULT_SEED
    tol: float = 1e-7
    memory_limit_mb: float | str | None = "auto"
    """Resident-memory cap of the solve (:func:`rulecert.limits.resolve_memory_limit_mb`:
    "auto" is the default cap, None none).  Column generation stops at it with
    ``MEMORY_LIMIT`` (the rule set of the columns held, the bound proven so far)."""
    history_every: float = 1.0
    """Seconds between the history's periodic samples during the restricted IP (column
    generation samples every iteration)."""


IP_OPTIONS_INSTEAD = {"time_limit": "time_limit", "mip_max_nodes": "ip_node_limit",
                      "random_seed": "seed", "threads": "workers", "output_flag": "verbose"}
"""The options to use instead of the HiGHS options the restricted IP sets itself
(``master.IP_SETS``; the others, e.g. the gaps that make "optimal" mean proven, rulecert
decides)."""


def _validate(problem, o: ColGenOptions) -> None:
    """Refuse bad options before any work (limits by :mod:`rulecert.limits`); ``o`` is the
    solve's own copy, its count limits are normalized in place."""
    if o.form not in ("dnf", "cnf"):
        raise ValueError(f"form must be 'dnf' or 'cnf', got {o.form!r}")
    if o.pricing not in PRICING_MODES:
        raise ValueError(f"pricing must be one of {PRICING_MODES}, got {o.pricing!r}")
    C = o.complexity_bound
    if C is not None:
        if not isinstance(C, (int, float, np.integer, np.floating)) or not math.isfinite(float(C)):
            raise ValueError(f"complexity_bound C must be a finite number or None, got {C!r}")
        check_complexity_bound(C, o.empty_clause)
    D = o.max_clause_length
    if D is not None and (not isinstance(D, (int, np.integer)) or D < 1):
        raise ValueError(f"max_clause_length D must be an integer >= 1, got {D!r}")
    for name in ("clause_penalty", "literal_penalty"):
        val = getattr(o, name)
        if not math.isfinite(val) or val < 0:
            raise ValueError(f"{name} must be finite and >= 0, got {val!r}")
    if not math.isfinite(o.fn_weight) or o.fn_weight <= 0:
        raise ValueError(f"fn_weight must be finite and > 0, got {o.fn_weight!r}")
    if C is None and o.clause_penalty + o.literal_penalty <= 0:
        raise ValueError("without a complexity bound C the penalized form needs clause_penalty "
                         "or literal_penalty > 0")
    for name in ("time_limit", "pricing_time_limit"):
        check_time_limit(getattr(o, name), name, allow_zero=False)  # a phase needs time
    check_positive(o.pricing_deterministic_time, "pricing_deterministic_time")
    resolve_memory_limit_mb(o.memory_limit_mb)
    if (isinstance(o.history_every, bool) or not isinstance(o.history_every, (int, float))
            or not o.history_every >= 0):
        raise ValueError(f"history_every must be a number of seconds >= 0, got {o.history_every!r}")
    o.ip_options = hx.check_options(o.ip_options, "ip_options", reserved=IP_SETS,
                                    instead=IP_OPTIONS_INSTEAD)
    for name in ("max_iter", "max_columns", "ip_node_limit", "bound_node_limit",
                 "final_bound_node_limit"):
        setattr(o, name, check_count_limit(getattr(o, name), name, minimum=0))
    o.close_gap_node_limit = check_count_limit(o.close_gap_node_limit, "close_gap_node_limit")
    o.workers = check_count_limit(o.workers, "workers")
    if o.workers is None:
        raise ValueError("workers must be an integer >= 1, got None")
    o.dive_node_limit = check_count_limit(o.dive_node_limit, "dive_node_limit", minimum=0)
    o.dive_iterations = check_count_limit(o.dive_iterations, "dive_iterations", minimum=0)
    if o.dive_iterations is None:
        raise ValueError("dive_iterations must be an integer >= 0, got None")
    for name in ("close_gap_ladder_after_cap", "dive"):
        if not isinstance(getattr(o, name), (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False, got {getattr(o, name)!r}")
    K = o.close_gap_max_columns
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"close_gap_max_columns must be a positive integer, got {K!r}")
    if isinstance(o.bound_search_steps, bool) or not isinstance(o.bound_search_steps, (int, np.integer)) \
            or o.bound_search_steps < 0:
        raise ValueError(f"bound_search_steps must be an integer >= 0, got {o.bound_search_steps!r}")
    if o.bound_short_length < 1:
        raise ValueError(f"bound_short_length must be >= 1, got {o.bound_short_length!r}")
    if o.columns_per_iter < 1 or o.heuristic_max_length < 1 or o.heuristic_max_generated < 0:
        raise ValueError("columns_per_iter and heuristic_max_length must be >= 1")
    if (isinstance(o.beam_width, bool) or not isinstance(o.beam_width, (int, np.integer))
            or o.beam_width < 1):
        raise ValueError(f"beam_width must be an integer >= 1, got {o.beam_width!r}")
    if not 0 <= o.smoothing < 1:
        raise ValueError(f"smoothing must be in [0, 1), got {o.smoothing!r}")
    if not 0 <= o.ip_time_fraction < 1:
        raise ValueError(f"ip_time_fraction must be in [0, 1), got {o.ip_time_fraction!r}")
    if problem.n_antecedents == 0:
        raise ValueError("the problem has no binary features")
    problem.check_two_classes()


def _irredundant(X: np.ndarray, clause: tuple[int, ...]) -> tuple[int, ...]:
    """Drop literals that do not change the clause's coverage on the training groups."""
    cl = list(clause)
    cov = np.logical_and.reduce(X[:, cl], axis=1)
    i = 0
    while i < len(cl) and len(cl) > 1:
        rest = cl[:i] + cl[i + 1:]
        if np.array_equal(np.logical_and.reduce(X[:, rest], axis=1), cov):
            cl = rest
        else:
            i += 1
    return tuple(sorted(cl))


class _State:
    """Everything the loop knows about the (transformed) instance."""

    def __init__(self, problem, o: ColGenOptions):
        patterns, _, pos, neg = problem.groups
        X = np.asarray(patterns, dtype=bool)
        pos, neg = np.asarray(pos, float), np.asarray(neg, float)
        if o.form == "cnf":
            X, pos, neg = ~X, neg, pos
        keep = (pos > 0) | (neg > 0)          # zero-weight samples play no part
        X, pos, neg = X[keep], pos[keep], neg[keep]
        self.X = np.ascontiguousarray(X)
        self.G, self.d = X.shape
        self.pos, self.neg = pos, neg
        self.P = np.flatnonzero(pos > 0)
        self.row_of = np.full(self.G, -1, dtype=np.int64)
        self.row_of[self.P] = np.arange(len(self.P))
        self.a = o.fn_weight * pos[self.P]
        self.C = None if o.complexity_bound is None else float(o.complexity_bound)
        D = o.max_clause_length
        if D is None:
            D = int(math.floor(self.C)) - 1 if self.C is not None else 10
        if self.C is not None:
            D = min(D, int(math.floor(self.C)) - 1)
        self.D = max(1, min(int(D), self.d))
        self.lam0, self.lam1 = float(o.clause_penalty), float(o.literal_penalty)
        coeffs = np.concatenate([self.a, neg, [self.lam0, self.lam1]])
        self.integral = bool(np.all(coeffs == np.round(coeffs)))
        self.gran = 1.0 if self.integral else 0.0
        self.keys: dict[bytes, int] = {}   # coverage pattern -> length of the column holding it
        self.index: dict[bytes, int] = {}  # coverage pattern -> its shortest column
        self.clauses: list[tuple[int, ...]] = []

    def fingerprint(self) -> str:
        """The transformed instance (groups, masses, C, D, penalties), to recognise it."""
        h = hashlib.sha256()
        for arr in (self.X, self.pos, self.neg, self.a):
            h.update(np.ascontiguousarray(arr).tobytes())
        h.update(repr((self.X.shape, self.C, self.D, self.lam0, self.lam1)).encode())
        return h.hexdigest()

    def n_max(self, ub: float) -> float:
        """Most clauses a solution of objective <= ub can hold."""
        n = math.inf
        if self.C is not None:
            n = math.floor(self.C / 2.0 + 1e-9)
        pmin = self.lam0 + self.lam1
        if pmin > 0:
            n = min(n, math.floor(ub / pmin + 1e-9))
        return n

    def coverage(self, clause) -> np.ndarray:
        return np.logical_and.reduce(self.X[:, list(clause)], axis=1)

    def column(self, clause):
        cov = self.coverage(clause)
        cost = float(self.neg[cov].sum()) + self.lam0 + self.lam1 * len(clause)
        rows = self.row_of[cov]
        return cov, cost, rows[rows >= 0], 1 + len(clause)

    def round_bound(self, lb: float) -> float:
        if self.integral and math.isfinite(lb):
            return float(math.ceil(lb - 1e-6))
        return lb


@dataclasses.dataclass(frozen=True)
class ColgenSolution(Solution):
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
    """:meth:`_State.fingerprint` of the instance solved."""
    bound_kind: str
    bound_class: str
    share: float = 0.1
    """The share of ``z_RMLP`` the complexity-dual descent starts from (``bounds.py``): where
    the solve's last search at ``duals`` started, else where its next one would have."""
    searched_nodes: float = 0
    """The node budget of the last search the solve itself ran at ``duals`` on counted
    limits alone (``final_bound_node_limit``, ``inf`` for none; 0: no such search).  The
    descent from ``share`` is the same for every budget but in its last call's limit, so a
    budget no larger than this cannot raise the bound past the solve's."""


@dataclasses.dataclass
class _Run:
    """The state of one :func:`solve`: the instance, the master and what the loop has learned."""

    o: ColGenOptions
    st: _State
    master: RestrictedMaster
    rng: np.random.Generator
    end: Deadline
    """The whole solve's clock."""
    cg_end: Deadline
    """The column-generation phase's clock (``1 - ip_time_fraction`` of the limit)."""
    ub_empty: float
    ip_gap: float
    times: dict = dataclasses.field(default_factory=lambda: {
        "lp": 0.0, "pricing_heuristic": 0.0, "pricing_beam": 0.0, "pricing_bnb": 0.0,
        "pricing_cpsat": 0.0, "local_search": 0.0, "ip": 0.0, "close_gap": 0.0})
    calls: dict = dataclasses.field(default_factory=lambda: {
        "heuristic": 0, "beam": 0, "bnb": 0, "cp-sat": 0})
    monitor: Monitor | None = None
    """Ctrl-C, the user's callback, the memory cap and the history (``monitor.history``)."""
    pricing_log: list = dataclasses.field(default_factory=list)
    best_bound: float = 0.0                  # Hamming loss and penalties are >= 0
    bound_kind: str = "trivial"
    best_duals: tuple | None = None          # (bound, Duals, z_CG) of the best bound
    last_rmlp: float | None = None
    last_priced: tuple | None = None         # (Duals, pricing bound) of the last pricing
    stop: str | None = None
    stop_term: Termination | None = None
    stop_msg: str = ""
    sampled_any: bool = False
    mispricings: int = 0
    share: float = 0.1                       # complexity-dual search: share to start from
    searched: tuple | None = None            # (share, node budget) of a final search at
                                             # the last duals that ran on counted limits
    search_next: int = 0                     # ... the next iteration it may run at
    search_gap: int = 1                      # ... iterations between searches (backoff)
    it: int = 0
    cg_time: float = 0.0
    gap_info: dict = dataclasses.field(default_factory=dict)
    dive: dict | None = None                 # the dive's record (``dive.py``), when it ran

    @property
    def t0(self) -> float:
        return self.end.start

    @property
    def history(self) -> list:
        return self.monitor.history

    def check_stop(self, where: str = "column generation",
                   overriding: bool = False) -> Termination | None:
        """The monitor's termination on Ctrl-C, the user's callback or the memory cap (the
        solve is then halted, said to be ``where``, unless it had already stopped and not
        ``overriding``: the dive overrides a ``max_iter`` stop); None: go on."""
        why = self.monitor.should_stop()
        if why is None or why[0] is Termination.TIME_LIMIT:
            return None
        term, msg = why
        if self.stop is None or overriding:
            self.halt("memory_limit" if term is Termination.MEMORY_LIMIT else "interrupted",
                      term, f"{msg} ({where})")
        return term

    def halt(self, stop: str, term: Termination | None, msg: str) -> None:
        self.stop, self.stop_term, self.stop_msg = stop, term, msg

    def add_clauses(self, clauses) -> int:
        """Add the clauses whose coverage no column of at most their length holds yet;
        returns how many were added."""
        st = self.st
        covers, costs, cpx = [], [], []
        for cl in clauses:
            cov, cost, rows, c = st.column(cl)
            key = cov.tobytes()
            if key in st.keys and st.keys[key] <= len(cl):
                continue
            st.keys[key] = len(cl)
            st.index[key] = len(st.clauses)
            st.clauses.append(tuple(cl))
            covers.append(rows)
            costs.append(cost)
            cpx.append(c)
        self.master.add_columns(covers, costs, cpx)
        return len(covers)


def _clean(cl) -> tuple[int, ...]:
    return tuple(sorted({int(j) for j in cl}))


def solve(problem, options: ColGenOptions | None = None, *, callback=None,
          **kwargs) -> ColgenSolution:
    """Learn a DNF (or CNF) rule set by column generation; returns a :class:`ColgenSolution`
    (unpacks as ``(RuleSet, Certificate)``).

    Keyword arguments override fields of ``options`` (``memory_limit_mb``, ``history_every``
    among them).  ``callback`` is called with the progress info dict of
    :mod:`rulecert.monitor` at every iteration and history sample; returning True stops the
    solve (``INTERRUPTED``).  Ctrl-C stops it cleanly too (the solve runs under
    :func:`rulecert.monitor.catch_interrupt`): the LP, pricing and the restricted IP are
    interrupted, and the rule set of the columns held is returned with the bound proven so
    far (the restricted IP is then only warm-started: greedy rounding and local search).
    """
    o = dataclasses.replace(options or ColGenOptions(), **kwargs)
    _validate(problem, o)
    with catch_interrupt():
        run = _setup(problem, o, callback)
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
        if o.dive and run.stop not in STOPPED + ("lp_failed",) and run.master.n_columns:
            run.master.to_lp()
            run.dive = dive(run, lambda duals: lambda inst, r: _improving(run.st, duals, inst, r,
                                                                          o.tol))
            resolve_after_dive(run, ip)
        _close_gap(run, ip)
        return _finalize(run, ip, problem)


# ---- setup --------------------------------------------------------------------------------
def _setup(problem, o: ColGenOptions, callback=None) -> _Run:
    """The transformed instance, the master and its first columns (the empty clause,
    ``initial_clauses`` and ``initial_solution``)."""
    t0 = time.perf_counter()
    end = Deadline(o.time_limit, start=t0)
    cg_end = Deadline(None if o.time_limit is None
                      else (1.0 - o.ip_time_fraction) * float(o.time_limit), start=t0)
    st = _State(problem, o)
    run = _Run(o, st, RestrictedMaster(st.a, st.C, threads=1, seed=o.seed),
               np.random.default_rng(o.seed), end, cg_end, float(st.a.sum()),
               (1.0 - 1e-6) if st.integral else 1e-9,   # an integral objective moves by >= 1
               monitor=Monitor("colgen", deadline=Deadline(None, start=t0),
                               memory_limit_mb=resolve_memory_limit_mb(o.memory_limit_mb),
                               callback=callback, history_every=o.history_every))
    run.master.monitor = run.monitor
    b = conflict_bound(st)
    if b > run.best_bound:
        run.best_bound, run.bound_kind = b, ("lagrangian at the conflict duals (identical "
                                             "samples with both labels)")
    if o.empty_clause:
        run.add_clauses([()])
    if o.initial_clauses or o.initial_solution:
        init = []
        for cl in map(_clean, list(o.initial_clauses or []) + list(o.initial_solution or [])):
            if not cl and o.empty_clause:
                continue   # already a column
            if not cl or max(cl) >= st.d or min(cl) < 0:
                raise ValueError(f"initial clause {cl!r} is not a non-empty set of feature "
                                 f"indices in [0, {st.d})")
            if len(cl) <= st.D:
                init.append(cl)
        run.add_clauses(init)
    return run


# ---- one column-generation iteration ------------------------------------------------------
def _iterate(run: _Run) -> None:
    """LP solve, pricing chain, bound update, stop test, new columns."""
    if run.cg_end.expired():
        run.halt("time_limit", Termination.TIME_LIMIT, "time limit in column generation")
        return
    lp = _solve_lp(run)
    if lp is None:
        return
    duals = _separation_point(run, lp)   # the LP's duals, or smoothed toward the best bound's
    rnd = price(run.st.X, duals.v, duals.const, duals.lit, run.st.D, run.o, rng=run.rng,
                iteration=run.it, cg_deadline=run.cg_end,
                improving=lambda inst, r: _improving(run.st, duals, inst, r, run.o.tol),
                times=run.times, calls=run.calls, log=run.pricing_log, monitor=run.monitor)
    run.sampled_any |= rnd.sampled
    _update_bound(run, duals, rnd, smoothed=duals is not lp)
    if run.check_stop():
        return
    if duals is not lp:
        # smoothed pricing: the master needs the clauses that improve at the LP's duals;
        # none (a mis-pricing) moves the next separation point closer to the LP's duals
        rnd.clauses = [c for c in rnd.clauses if _reduced_cost(run.st, lp, c) < -run.o.tol]
        if not rnd.clauses:
            run.mispricings += 1
            _add_round(run, [])
            return
    run.mispricings = 0
    if _converged(run, rnd):
        return
    _add_round(run, rnd.clauses)


def _reduced_cost(st: _State, duals: Duals, clause) -> float:
    return duals.const + duals.lit * len(clause) + float(duals.v[st.coverage(clause)].sum())


def _separation_point(run: _Run, lp: Duals) -> Duals:
    """Wentges smoothing: ``alpha mu_center + (1 - alpha) mu_LP`` with the LP's complexity
    dual, the center being the duals of the best Lagrangian bound so far;
    ``alpha`` is ``smoothing`` to the power 1 + consecutive mis-pricings (the LP's duals
    once below 1%)."""
    alpha = run.o.smoothing ** (1 + run.mispricings) if run.o.smoothing else 0.0
    if alpha < 0.01 or run.best_duals is None:
        return lp
    c = run.best_duals[1]
    # mu only: the complexity dual of the center was chosen by the bound's own search
    return read_duals(run.st, lp.rmlp, alpha * c.mu + (1 - alpha) * lp.mu, lp.lam,
                      run.o.empty_clause)


def _solve_lp(run: _Run) -> Duals | None:
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
    return read_duals(run.st, lp_res.objective, mu, lam, run.o.empty_clause)


def _improving(st: _State, duals: Duals, inst, r, tol: float) -> list[tuple[int, ...]]:
    """A pricer's clauses in full-data features, irredundant, re-priced exactly on the full
    data, new and improving, best first."""
    cand = []
    for cl in r.clauses:
        g = tuple(sorted(int(inst.features[j]) for j in cl))
        g = _irredundant(st.X, g)
        cov = st.coverage(g)
        rc = duals.const + duals.lit * len(g) + float(duals.v[cov].sum())
        if rc < -tol and cov.tobytes() not in st.keys:
            cand.append((rc, g))
    cand.sort()
    new, seen = [], set()
    for rc, g in cand:
        if g not in seen:
            seen.add(g)
            new.append(g)
    return new


def _update_bound(run: _Run, duals: Duals, rnd: PricingRound, smoothed: bool = False) -> None:
    """This iteration's Lagrangian bound (at the best complexity dual found, see
    ``bounds.py``), the best bound so far and the history entry; the improving clauses the
    dual search found join the round's."""
    st, zlb = run.st, rnd.bound
    run.last_priced = (duals, zlb)
    sr = _dual_search(run, duals, rnd)
    lb_it = sr.bound
    if lb_it > run.best_bound:
        run.best_bound = lb_it
        if zlb >= -run.o.tol:
            run.bound_kind = ("lagrangian at smoothed duals (pricing proved no negative "
                              "reduced cost there)" if smoothed else "lp_optimal")
        elif sr.t != duals.lam and sr.items:
            run.bound_kind = (f"lagrangian, enumerated knapsack (the {sr.items} clauses of "
                              f"negative reduced cost at complexity dual {sr.t:.6g} > LP's "
                              f"{duals.lam:.6g}, each at most once, within C)")
        elif sr.t != duals.lam:
            run.bound_kind = (f"lagrangian normalised by complexity (complexity dual "
                              f"{sr.t:.6g} > LP's {duals.lam:.6g}, bnb pricing bound)")
        else:
            run.bound_kind = f"lagrangian ({rnd.bound_kind} pricing bound)"
    if run.best_duals is None or lb_it >= run.best_duals[0]:
        run.best_duals = (lb_it, sr.duals, sr.z)
    if sr.clauses:
        have = set(rnd.clauses)
        for cl in sr.clauses:
            g = _irredundant(st.X, tuple(sorted(cl)))
            if g not in have and st.coverage(g).tobytes() not in st.keys:
                have.add(g)
                rnd.clauses.append(g)
    _record(run, {"time": time.perf_counter() - run.t0, "iteration": run.it,
                        "objective": None, "lower_bound": run.best_bound,
                        "rmlp": run.last_rmlp, "pricing_bound": zlb,
                        "pricing_bound_kind": rnd.bound_kind, "complexity_dual": sr.t,
                        "iteration_bound": lb_it, "complexity_dual_steps": sr.steps,
                        "columns": run.master.n_columns, "new_columns": len(rnd.clauses)})
    log.debug("cg iter %d: rmlp=%.6g zlb=%.6g bound=%.6g new=%d", run.it, run.last_rmlp, zlb,
              run.best_bound, len(rnd.clauses))


def _record(run: _Run, entry: dict) -> None:
    """One iteration's history sample (and the progress callback): the objective is the best
    rule set known (the empty one, ``ub_empty``, until the restricted IP), never None."""
    entry = dict(entry)
    entry.pop("time", None)
    obj, lb = entry.pop("objective"), entry.pop("lower_bound")
    entry["iterations"] = entry.pop("iteration", run.it)
    run.monitor.sample(run.ub_empty if obj is None else obj, lb, event="iteration", **entry)


BOUND_SEARCH_SHARE = 0.25
"""Under a wall-clock limit, the complexity-dual search may use at most this share of
column generation's time limit (measured by bench_brcg.py's same-matrix run: unbudgeted,
it took 80-90% of short fits on ionosphere and wdbc, proved nothing there, and left column
generation too few iterations to match AIX360's loss).  Without a time limit nothing is
skipped, so counted-limit runs stay reproducible."""


FINAL_BOUND_SEARCH_STEPS = 40
"""At most this many pricing calls in the last search, when pricing found no clause (column
generation then stops): a descent in ``t`` under ``final_bound_node_limit`` nodes in all
(``bounds.complexity_dual_descent``), each proof about twice the nodes of the one before,
so the node budget, not this count, ends it."""
BOUND_ENUMERATION_CAP = 2000
"""The complexity-dual search enumerates every clause of negative reduced cost at its ``t``
(bounds.knapsack_bound's items); past this many the step counts as unproven."""


def bound_pricer(st: _State, o: ColGenOptions, deadline=lambda: None, account=None):
    """The pricer of the complexity-dual searches (``bounds.py``): the exact branch-and-bound
    on the full data, node-limited (its bound at the limit is proven).  ``price_at(duals_t,
    share, node_limit) -> (classes, clauses, complete, items, nodes)``; with ``share`` 0 one
    call enumerates every clause below 0 (the last search's), else two calls (short clauses,
    and long ones down to a threshold) each get ``node_limit``; ``deadline()`` gives
    the calls' wall-clock end (None: none), ``account(seconds, nodes)`` is told each call's
    work; a call that the clock or Ctrl-C stopped reports ``NODES_STOPPED`` nodes."""

    def price_at(dt: Duals, share: float, node_limit: int | None = o.bound_node_limit):
        if interrupt_requested():       # Ctrl-C between calls: none starts (no bound proven)
            return [(2, -math.inf)], [], False, None, NODES_STOPPED
        tp = time.perf_counter()
        end = deadline()
        bb = dict(K=BOUND_ENUMERATION_CAP, tighten=False, deadline=end, workers=o.workers)
        L = o.bound_short_length
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
        best = sorted(found, key=found.get)[:o.columns_per_iter]
        now, nodes = time.perf_counter(), sum(r.nodes for r, *_ in parts)
        if account is not None:
            account(now - tp, nodes)
        stopped = end is not None and now >= end or interrupt_requested()
        return classes, best, complete, items, NODES_STOPPED if stopped else nodes
    return price_at


def final_search_steps(o: ColGenOptions) -> int:
    """The pricing calls of the last search (the solve's and ``strengthen_bound``'s)."""
    return max(o.bound_search_steps, FINAL_BOUND_SEARCH_STEPS)


def final_bound_search(st: _State, o: ColGenOptions, duals: Duals, zlb: float, found: list, ub: float,
                       price_at, budget: int | None, steps: int | None = None, **kw):
    """The last bound search, of a solve whose pricing found no clause and of
    ``strengthen_bound``: the descent in the complexity dual (``bounds.py``) under ``budget``
    nodes in all, every clause below 0 enumerated (``price_at`` of :func:`bound_pricer` at
    share 0: measured on pima's final duals at C = 10, the long-clause threshold's proofs cost
    as many nodes as lowering t to the same bound, or more); ``steps`` None:
    :func:`final_search_steps`."""
    if steps is None:
        steps = final_search_steps(o)
    return complexity_dual_descent(st, duals, zlb, found, ub,
                                   lambda dt, f, limit: price_at(dt, 0.0, limit), budget,
                                   o.bound_node_limit, steps, o.tol, **kw)


NODES_STOPPED = 10 ** 18
"""The nodes :func:`bound_pricer` reports for a call that the clock or Ctrl-C stopped: a
descent (``bounds.complexity_dual_descent``) then has no budget left."""


def _dual_search(run: _Run, duals: Duals, rnd: PricingRound) -> DualSearch:
    """The complexity dual search of ``bounds.py`` (:func:`bound_pricer`), under
    ``BOUND_SEARCH_SHARE`` of a time limit."""
    o, st = run.o, run.st

    def deadline():
        left = _bound_search_seconds(run)
        return None if left is None else min(run.cg_end.end,
                                             time.perf_counter() + max(0.0, left))

    def account(seconds, nodes):
        run.times["bound_search"] = run.times.get("bound_search", 0.0) + seconds
        run.calls["bound_search"] = run.calls.get("bound_search", 0) + 1

    price_at = bound_pricer(st, o, deadline, account)

    # only where pricing's best clause is mild (the paper's bound with it as z_CG would lose
    # under 30% of z_RMLP): far from convergence no t makes these duals a good bound
    rc_best = min((_reduced_cost(st, duals, c) for c in rnd.clauses), default=0.0)
    mild = st.C is None or rc_best * st.C / 2 >= -0.3 * abs(duals.rmlp)
    steps = o.bound_search_steps if mild and not run.cg_end.expired() else 0
    last = o.max_iter is not None and run.it + 1 >= o.max_iter
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
                                o.final_bound_node_limit, steps, best_known=run.best_bound,
                                share=run.share)
        if steps and deadline() is None and not interrupt_requested():
            budget = o.final_bound_node_limit
            run.searched = (run.share, math.inf if budget is None else budget)
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
    return sr


def _bound_search_seconds(run: _Run) -> float | None:
    """Seconds the complexity-dual search may still use under a time limit:
    ``BOUND_SEARCH_SHARE`` of column generation's time limit minus what it used (its calls
    stop there, still proving their bound); None without a limit."""
    if run.cg_end.end is None:
        return None
    return BOUND_SEARCH_SHARE * run.cg_end.time_limit - run.times.get("bound_search", 0.0)


def _converged(run: _Run, rnd: PricingRound) -> bool:
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


def _add_round(run: _Run, new: list) -> None:
    """Add the round's columns (up to ``max_columns``) and apply the iteration limits."""
    o = run.o
    if o.max_columns is not None:
        room = o.max_columns - run.master.n_columns
        new = new[:max(0, room)]
    run.add_clauses(new)
    run.it += 1
    if o.max_iter is not None and run.it >= o.max_iter:
        run.halt("max_iter", Termination.ITERATION_LIMIT, f"max_iter={o.max_iter} reached")
    elif o.max_columns is not None and run.master.n_columns >= o.max_columns:
        run.halt("max_columns", Termination.ITERATION_LIMIT,
                 f"max_columns={o.max_columns} reached")


# ---- gap closing by reduced-cost enumeration ----------------------------------------------
def _close_gap(run: _Run, ip: RestrictedIP) -> None:
    """Enumerate every clause that can appear in a better solution, add them and re-solve the
    restricted IP; a complete enumeration makes its bound a bound of the master IP."""
    o, st, master = run.o, run.st, run.master
    if run.stop in STOPPED or run.check_stop():
        return
    if not (o.close_gap and run.best_duals is not None
            and ip.objective - run.best_bound > max(st.gran, 1e-9) - 1e-9
            and not run.end.expired()):
        return
    tg = time.perf_counter()
    _, duals, zlb = run.best_duals
    T = gap_closing_threshold(st, duals, zlb, ip.objective)
    K = o.close_gap_max_columns

    def enumerate_below(upper, limit):
        return price_by_branch_and_bound(st.X, duals.v, duals.const, duals.lit, st.D, K=K,
                                         upper=upper, tighten=False, node_limit=limit,
                                         deadline=run.end.end, workers=o.workers)
    budget = o.close_gap_node_limit
    first = budget if budget is None or not st.integral else max(1, budget // GAP_FIRST_SHARE)
    er = enumerate_below(T + 1e-7, first)
    run.gap_info = {"ladder": [(None, T, er.nodes, er.complete)]}
    if not er.complete and st.integral and (not er.overflow or o.close_gap_ladder_after_cap):
        er = _gap_ladder(run, enumerate_below, ip.objective, T,
                         None if budget is None else budget - er.nodes) or er
    # every clause below ``cut`` was returned (an enumeration the node limit or the cap cut
    # short too: its bound on the rest); a better solution holding a clause of reduced cost
    # >= cut costs at least ``beyond`` (module doc), so the restricted IP with every clause
    # below cut bounds the rest: the complete enumeration (cut > T) solves the master IP
    ub, cut = ip.objective, er.unheld_bound
    beyond = math.inf if cut > T else ub - st.gran - (T - cut)
    useful = st.round_bound(beyond) > run.best_bound
    below = [c for c, rc in zip(er.clauses, er.reduced_costs) if rc < cut] if useful else []
    added = run.add_clauses([_irredundant(st.X, c) for c in below])
    run.gap_info.update(threshold=T, cap=K, enumerated=len(er.clauses), added=added,
                        complete=er.complete and cut > T, cut=cut, beyond=beyond)
    enum_bound = -math.inf   # a lower bound on the restricted IP that now holds them all
    if not added:
        enum_bound = ip.objective if ip.result is None else ip.result.bound
    else:
        ip.selected = np.concatenate([ip.selected,
                                      np.zeros(master.n_columns - len(ip.selected), bool)])
        if not run.end.expired():
            resolve(run, ip, ip.objective)
            ip.bound = enum_bound = ip.result.bound
            ip.objective = master.selection_objective(ip.selected)
    run.gap_info["restricted_ip_bound"] = enum_bound
    if useful:
        b = st.round_bound(min(enum_bound, ip.objective, beyond))
        if b > run.best_bound:
            run.best_bound = b
            run.bound_kind = ("reduced-cost enumeration + restricted IP" if cut > T else
                              f"partial reduced-cost enumeration (every clause of reduced cost "
                              f"< {cut:.6g} of the {T:.6g} needed) + restricted IP")
    run.times["close_gap"] += time.perf_counter() - tg


GAP_FIRST_SHARE = 2
"""Gap closing first tries the whole threshold with ``close_gap_node_limit / GAP_FIRST_SHARE``
nodes (integral objectives), then, if those nodes ran out, spends the rest on the ladder of
:func:`_gap_ladder`.
Measured with 16: heart at C = 20, whose whole enumeration takes 34 million nodes, climbed
the ladder (12 + 20 + 34 million) where a half of the 10^8 nodes finishes it at once."""
GAP_LADDER_RATIO = 2.0
"""Each rung of the ladder aims at about this many times the nodes of the last one."""


def _gap_ladder(run: _Run, enumerate_below, ub: float, T: float, budget: int | None):
    """The enumeration that the whole threshold ``T`` could not finish, made at lower ones
    (integral objectives): enumerating every clause below ``u`` bounds any solution that
    holds another by ``ub - 1 - (T - u)`` (module doc), so the threshold ``u_b`` where that
    rounds up to ``b`` proves ``b`` with the restricted IP (``b = ub``: ``T`` itself, the
    exact closing).  The rungs ``b`` rise from the bound so far + 1 while the enumerations
    finish; each costs more (measured on wdbc at C = 10: below 0.99 44 million nodes, below
    1.99 95 million), so the step is chosen from the growth between the last two rungs,
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


# ---- model and certificate ----------------------------------------------------------------
def _finalize(run: _Run, ip: RestrictedIP, problem) -> ColgenSolution:
    """The rule set of the selection, its exact objective and the certificate."""
    o, st = run.o, run.st
    clauses = [st.clauses[k] for k in np.flatnonzero(ip.selected)]
    clauses.sort(key=lambda c: (len(c), c))
    rs = RuleSet.from_feature_sets(clauses, o.form, problem.antecedent_names)
    score = ruleset_objective(rs, problem, fn_weight=o.fn_weight, clause_penalty=o.clause_penalty,
                              literal_penalty=o.literal_penalty)
    objective = float(score.objective)
    if abs(objective - ip.objective) > 1e-6 * max(1.0, abs(objective)):
        raise RuntimeError(f"internal error: master objective {ip.objective} != exact "
                           f"objective {objective}")
    term, unproven_msg = _termination(run, ip)
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
    said = bound_message(run.bound_kind, _bound_class(run), cert)
    cert.message = f"{cert.message}; {said}" if cert.message else said
    run.history.append({"time": time.perf_counter() - run.t0, "iteration": run.it,
                        "objective": objective, "lower_bound": cert.lower_bound,
                        "phase": "restricted IP", "event": "end"})
    share, searched = run.searched or (run.share, 0)
    state = None if run.last_priced is None else BoundState(
        o, run.last_priced[0], run.last_priced[1], run.ub_empty, st.fingerprint(),
        run.bound_kind, _bound_class(run), share, searched)
    return ColgenSolution(rs, cert, list(st.clauses), [tuple(c) for c in clauses], state)


def _termination(run: _Run, ip: RestrictedIP) -> tuple[Termination, str | None]:
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


def _bound_class(run: _Run) -> str:
    """The rule sets over which the lower bound holds."""
    st = run.st
    cl = f"clauses of 1..{st.D} literals" + (" and the empty clause" if run.o.empty_clause else "")
    cx_ = f"complexity <= {st.C:g}" if st.C is not None else "any complexity (penalized)"
    return f"{run.o.form.upper()} rule sets of {cx_} over {cl}"


def bound_message(kind: str, cls: str, cert: Certificate) -> str:
    """The certificate message's account of the bound: which bound, over which rule sets."""
    if cert.lower_bound <= 0.0 and cert.objective > 0.0:
        return (f"the lower bound is trivial (0): nothing proven by pricing gave a positive "
                f"bound over {cls}")
    return f"lower bound ({kind}) over {cls}"


def _stats(run: _Run, ip: RestrictedIP, rs: RuleSet, score, clauses) -> dict:
    """The certificate's ``stats`` (a record for humans and JSON)."""
    st, stop = run.st, run.stop
    return {"bound_kind": run.bound_kind, "bound_class": _bound_class(run),
            "bound_trivial": run.best_bound <= 0.0, "stop_reason": stop, "cg_iterations": run.it,
            "columns": run.master.n_columns, "rmlp_objective": run.last_rmlp,
            "lp_converged": stop == "converged",
            "lp_bound_attained": stop in ("converged", "lp_bound_attained"),
            "pricing_calls": run.calls, "pricing_log": run.pricing_log,
            "sampled_pricing": run.sampled_any, "max_clause_length": st.D,
            "complexity_bound": st.C, "form": run.o.form, "integral_objective": st.integral,
            "restricted_ip_objective": ip.objective, "restricted_ip_start": ip.start,
            "local_search": ip.local_search, "support_ip": ip.support,
            "restricted_ip_bound": ip.bound,
            "restricted_ip_termination": (None if ip.result is None
                                          else ip.result.termination.value),
            "gap_closing": run.gap_info,
            "dive": None if run.dive is None else {k: v for k, v in run.dive.items()
                                                   if k != "selection"},
            "time": {**run.times, "column_generation": run.cg_time},
            "hamming_loss": score.hamming_loss, "complexity": rs.complexity,
            "training_errors": score.errors}
