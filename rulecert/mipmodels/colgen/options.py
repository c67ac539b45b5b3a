"""The options of a column-generation solve (:class:`ColGenOptions`) and their checks.

:func:`validate` refuses bad options before any work, with a one-line message naming the
option; the count limits are normalized in place on the solve's own copy.  The method the
options steer is described in ``loop.py``; :func:`.presets.certification_options` gives the
limits of a certification run.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...limits import (DEFAULT_BOUND_NODE_LIMIT, DEFAULT_CLOSE_GAP_MAX_COLUMNS,
                       DEFAULT_CLOSE_GAP_NODE_LIMIT, DEFAULT_DIVE_NODE_LIMIT,
                       DEFAULT_FINAL_BOUND_NODE_LIMIT, DEFAULT_SEED, check_count_limit,
                       check_positive, check_time_limit, resolve_memory_limit_mb)
from ...models.ruleset import check_complexity_bound
from .. import highs as hx
from .master import IP_SETS
from .pricing import PRICING_MODES


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
    """Wall-clock limit of the whole solve (all phases).  A solve not proven optimal spends
    what its phases leave of it on the bound (``bound_search.raise_bound_with_time_left``)."""
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
    adaptive_chain: bool = False
    """Order the beam search and the short branch-and-bound by the work each has cost per
    improving round so far in this solve (``pricing/chain.py``'s :func:`short_first`), not
    always beam first.  Deterministic: work is counted (beam children, branch-and-bound
    nodes), not timed.  On in :func:`~rulecert.mipmodels.colgen.certification_options`."""
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
    """Climb gap closing's ladder (``gap_closing.gap_ladder``) also when the whole threshold's
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
    polish: bool = True
    """After the restricted IP (and the dive), polish its rule set by local search over
    literals (``polish.py``: drop, add or swap a literal, drop a clause, add a clause of one
    or two literals, with random kicks), reaching clauses no pricing round generated; the
    clauses of a better rule set become master columns before gap closing."""
    polish_iterations: int = 200
    """Kicks of the polishing search (each followed by a descent); 0: the descent alone.
    Under a time limit it also stops at ``polish.POLISH_SHARE`` of the time left."""
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
    positive_side_node_limit: int | None = 0
    """Cover LPs of the positive-side pricing proof at the end of a solve whose gap is open
    (``bound_search.positive_side_search``, ``pricing/positive.py``): at the duals of the
    master LP over every column held, it proves ``rc >= u`` for every clause, ``u`` the
    threshold that makes the Lagrangian bound (``bounds.py``, ``L + N u``) the LP bound
    rounded up, or lower when a clause below it exists or the proof is too costly.  It branches on the groups a clause covers, not on
    literals, and proves such thresholds where the literal branch-and-bound cannot (WDBC at
    C = 10: the bound 3 -> 11 over the objective 12).  0: off (the default: each cover LP
    costs milliseconds); None: no limit; :func:`.presets.certification_options` gives
    500,000 per 2000 rows."""
    error_free_lp_node_limit: int | None = 0
    """Cover LPs of the error-free cover LP bound's proofs, in all (``cover_lp.py``): tried
    after the packing bound at the end of a solve whose bound is below one error's weight,
    it solves the LP of the least-complexity error-free rule set by column generation over
    pure clauses and proves, by Farley's bound, that the LP exceeds ``C`` (then every rule
    set of complexity ``<= C`` errs), where the packing bound's clique is too light.  0: off
    (the default: it can take minutes and prove nothing;
    :func:`.presets.certification_options` gives 500,000 per 2000 rows); None: no limit.
    Its column generation also stops after ``cover_lp.MAX_ITER`` iterations."""
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


def validate(problem, o: ColGenOptions) -> None:
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
    o.positive_side_node_limit = check_count_limit(o.positive_side_node_limit,
                                                   "positive_side_node_limit", minimum=0)
    o.error_free_lp_node_limit = check_count_limit(o.error_free_lp_node_limit,
                                                   "error_free_lp_node_limit", minimum=0)
    for name in ("dive_iterations", "polish_iterations"):   # counts without a "no limit"
        setattr(o, name, check_count_limit(getattr(o, name), name, minimum=0))
        if getattr(o, name) is None:
            raise ValueError(f"{name} must be an integer >= 0, got None")
    for name in ("close_gap_ladder_after_cap", "dive", "polish"):
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
    if not isinstance(o.adaptive_chain, (bool, np.bool_)):
        raise ValueError(f"adaptive_chain must be True or False, got {o.adaptive_chain!r}")
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

