"""Column generation for Boolean rule sets with a certified gap (Dash, Gunluk & Wei 2018).

``solve(problem, options) -> (RuleSet, Certificate)``.  The capture rows of ``problem`` are
the binary features (row ``j`` = column ``j``), for example
``RuleProblem.from_matrix(X_binary, y, feature_names)``.

Algorithm
---------
1. Restricted master LP (``master.py``) over the clauses generated so far, in one Highs
   object, re-solved warm after each batch of new columns; its duals give ``mu`` (cover
   rows) and ``lambda`` (complexity row).
2. Pricing (``pricing.py``), each pricer tried only when the previous one found nothing
   (``pricing="auto"``): the paper's greedy heuristic; the beam search of AIX360's
   ``BooleanRuleCG`` (width ``beam_width``, clauses of up to D literals, re-run with the
   width doubled up to ``BEAM_WIDENING`` times when it finds nothing; cheap, finds columns
   when the greedy heuristic's capped breadth-first search over many features does not; it
   proves no bound); the exact branch-and-bound
   (``bnb.py``) restricted to ``heuristic_max_length`` literals (fast, finds good columns
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
4. Restricted master IP in HiGHS (the same object, clause columns switched to binary),
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
``pricing.py``, all on the full data; the largest is used; the beam search gives none) and a
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
inequality is applied to integer solutions.  Bounds are kept over the iterations (the best
one is reported); ``history`` has one entry per iteration (``rmlp``, ``pricing_bound``,
``lower_bound``; ``objective`` is None until the restricted IP gives a rule set) and a final
entry for the restricted IP.

Gap closing.  The same inequality shows that a clause ``k`` can appear in a solution of
objective ``<= UB - granularity`` only if ``rc_k <= UB - granularity - L -
(N - 1) min(0, z_CG)``.  Enumerating all such clauses (a complete search, capped by
``close_gap_max_columns``) and re-solving the restricted IP therefore solves the master IP
exactly: the certificate's bound becomes the restricted IP's own proven bound.

CNF (De Morgan).  A CNF over the features is the negation of a DNF over the negated
features for the negated labels; we learn that DNF (labels and features complemented,
``fn_weight`` applying to the original negatives) and report its clauses as CNF clauses.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import time

import numpy as np

from ...certificate import Certificate, SolutionStatus, Termination
from ...models.ruleset import RuleSet, check_complexity_bound, ruleset_objective
from .. import cpsat as cx
from .. import highs as hx
from .localsearch import SelectionSearch, local_search
from .master import RestrictedMaster
from .bnb import branch_and_bound
from .beam import beam_pricing
from .pricing import (PricingInstance, bnb_pricing, cpsat_pricing, heuristic_pricing,
                      make_instance, single_literal_bound)

log = logging.getLogger(__name__)

PRICING_MODES = ("auto", "exact", "bnb", "heuristic")
BEAM_WIDENING = 32
"""A beam search that finds nothing is retried with its width doubled up to this factor."""
LOCAL_SEARCH_SHARE = 0.2
"""Share of the time left that the local search for the restricted IP's start may use."""


@dataclasses.dataclass
class ColGenOptions:
    """Options of :func:`solve` (see the module doc for the method)."""

    complexity_bound: float | None = 30.0
    """``C``: sum over clauses of (1 + literals) <= C.  ``None``: penalized form only."""
    max_clause_length: int | None = None
    """``D``: literals per clause; default ``C - 1`` (no restriction), or 10 without ``C``."""
    empty_clause: bool = False
    """Admit the empty conjunction (no literal: always true, complexity 1) as a clause.  The
    paper's pricing problem (6)-(10) admits it and AIX360's BooleanRuleCG returns it; off by
    default (then a clause has >= 1 literal and ``C >= 2``).  It is a column of the master
    from the start, so pricing searches the non-empty clauses only; with it ``C >= 1``."""
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
    expanded this many nodes (None: search for the K best to the end)."""
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
    close_gap_max_columns: int = 10_000
    """Most clauses gap closing enumerates; an enumeration that reaches it adds nothing and
    proves nothing.  Enumerating and adding cost about 75 us per clause (measured: 67,000
    clauses took 5 s), time that a wall-clock limit does not interrupt, so the default is
    small; raise it for certification runs (``brcg_table.py --certify`` uses 100,000)."""
    close_gap_node_limit: int | None = 100_000_000
    local_search: bool = True
    """Improve the restricted IP's greedy start by local search (``localsearch.py``)."""
    ip_time_fraction: float = 0.25
    """Share of ``time_limit`` kept for the restricted IP and gap closing."""
    ip_node_limit: int | None = None
    initial_solution: list | None = None
    """A rule set (clauses as sets of feature indices) to start the restricted IP from when
    it fits the complexity bound and beats the greedy start, e.g. the solution for a smaller
    C; its clauses are added to the columns."""
    initial_clauses: list | None = None
    """Clauses (sets of feature indices, in the learned DNF's features) to start from, e.g.
    the ``stats["column_pool"]`` of an earlier solve on the same data (any complexity bound:
    a clause is a valid column whatever C is).  Clauses longer than D are skipped."""
    workers: int = 1
    seed: int = 0
    tol: float = 1e-7


def _validate(problem, o: ColGenOptions) -> None:
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
    for name in ("time_limit", "pricing_time_limit", "pricing_deterministic_time"):
        val = getattr(o, name)
        if val is not None and not (val > 0):
            raise ValueError(f"{name} must be > 0 or None, got {val!r}")
    for name in ("max_iter", "max_columns", "ip_node_limit"):
        val = getattr(o, name)
        if val is not None and (not isinstance(val, (int, np.integer)) or val < 0):
            raise ValueError(f"{name} must be a non-negative integer or None, got {val!r}")
    K = o.close_gap_max_columns
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"close_gap_max_columns must be a positive integer, got {K!r}")
    if o.columns_per_iter < 1 or o.heuristic_max_length < 1 or o.heuristic_max_generated < 0:
        raise ValueError("columns_per_iter and heuristic_max_length must be >= 1")
    if (isinstance(o.beam_width, bool) or not isinstance(o.beam_width, (int, np.integer))
            or o.beam_width < 1):
        raise ValueError(f"beam_width must be an integer >= 1, got {o.beam_width!r}")
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


def solve(problem, options: ColGenOptions | None = None, **kwargs):
    """Learn a DNF (or CNF) rule set by column generation; returns ``(RuleSet, Certificate)``.

    Keyword arguments override fields of ``options``.
    """
    o = dataclasses.replace(options or ColGenOptions(), **kwargs)
    _validate(problem, o)
    t0 = time.perf_counter()
    end = None if o.time_limit is None else t0 + float(o.time_limit)
    cg_end = None if end is None else t0 + (1.0 - o.ip_time_fraction) * float(o.time_limit)

    def left(deadline):
        return None if deadline is None else deadline - time.perf_counter()

    st = _State(problem, o)
    rng = np.random.default_rng(o.seed)
    master = RestrictedMaster(st.a, st.C, threads=1, seed=o.seed)
    ub_empty = float(st.a.sum())
    times = {"lp": 0.0, "pricing_heuristic": 0.0, "pricing_beam": 0.0, "pricing_bnb": 0.0,
             "pricing_cpsat": 0.0, "local_search": 0.0, "ip": 0.0, "close_gap": 0.0}
    calls = {"heuristic": 0, "beam": 0, "bnb": 0, "cp-sat": 0}
    history: list[dict] = []
    pricing_log: list[dict] = []
    best_bound, bound_kind = 0.0, "trivial"    # Hamming loss and penalties are >= 0
    best_duals = None                          # (L, zlb, v, const, lit) of the best bound
    last_rmlp = None
    stop, stop_term, stop_msg = None, None, ""
    sampled_any = False

    def add_clauses(clauses) -> int:
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
        master.add_columns(covers, costs, cpx)
        return len(covers)

    def clean(cl):
        return tuple(sorted({int(j) for j in cl}))

    if o.empty_clause:
        add_clauses([()])
    if o.initial_clauses or o.initial_solution:
        init = []
        for cl in map(clean, list(o.initial_clauses or []) + list(o.initial_solution or [])):
            if not cl and o.empty_clause:
                continue   # already a column
            if not cl or max(cl) >= st.d or min(cl) < 0:
                raise ValueError(f"initial clause {cl!r} is not a non-empty set of feature "
                                 f"indices in [0, {st.d})")
            if len(cl) <= st.D:
                init.append(cl)
        add_clauses(init)

    it = 0
    while True:
        if cg_end is not None and time.perf_counter() >= cg_end:
            stop, stop_term, stop_msg = "time_limit", Termination.TIME_LIMIT, "time limit in column generation"
            break
        ta = time.perf_counter()
        lp_res, mu, lam = master.solve_lp(left(cg_end) if cg_end is not None else math.inf)
        times["lp"] += time.perf_counter() - ta
        if mu is None:
            stop = "time_limit" if lp_res.termination is Termination.TIME_LIMIT else "lp_failed"
            stop_term = (lp_res.termination if lp_res.termination is not Termination.OPTIMAL
                         else Termination.ERROR)
            stop_msg = f"restricted master LP: {lp_res.message}"
            break
        last_rmlp = lp_res.objective
        mu_g = np.zeros(st.G)
        mu_g[st.P] = mu
        v = st.neg - mu_g
        const, lit = lam + st.lam0, lam + st.lam1
        L = float(mu.sum() - (lam * st.C if st.C is not None else 0.0)
                  + np.minimum(0.0, st.a - mu).sum())
        if o.empty_clause:
            # the empty clause (a master column, at most once in a solution) enters L with
            # its own reduced cost; z_CG and N below then concern the non-empty clauses only
            L += min(0.0, const + float(v.sum()))
        full = PricingInstance(st.X, v, const, lit, st.D, np.arange(st.d), exact=True)
        zlb, zkind = single_literal_bound(full), "single-literal"
        big = o.sample_rows is not None and st.G > o.sample_rows   # the paper's medium/large data
        insts = [make_instance(st.X, v, const, lit, st.D, rng=rng, sample_rows=o.sample_rows,
                               max_nonzeros=o.max_nonzeros)] if big else []
        insts.append(full)
        sampled_any |= big
        methods = {"auto": ("heuristic", "beam", "bnb-short", "bnb", "cp-sat"),
                   "exact": ("cp-sat", "heuristic"),
                   "bnb": ("heuristic", "beam", "bnb-short", "bnb"),
                   "heuristic": ("heuristic",)}[o.pricing]
        plan = [(i, m) for i in insts for m in methods
                if m != "bnb-short" or st.D > o.heuristic_max_length]
        new: list[tuple[int, ...]] = []
        hint = None
        last_pricing = None
        for inst, method in plan:
            if cg_end is not None and time.perf_counter() >= cg_end:
                break
            tp = time.perf_counter()
            ptl = o.pricing_time_limit
            rem = left(cg_end)
            if rem is not None:
                ptl = rem if ptl is None else min(ptl, rem)
            if method == "heuristic":
                r = heuristic_pricing(inst, threshold=-o.tol, max_length=o.heuristic_max_length,
                                      max_generated=o.heuristic_max_generated,
                                      max_return=o.columns_per_iter, deadline=cg_end)
                times["pricing_heuristic"] += time.perf_counter() - tp
                hint = r.best_clause
            elif method == "beam":
                # a heuristic: its bound is -inf, so it never raises zlb nor ends the loop
                r = beam_pricing(inst, threshold=-o.tol, beam_width=o.beam_width,
                                 max_return=o.columns_per_iter,
                                 deadline=None if ptl is None else tp + ptl,
                                 max_width=BEAM_WIDENING * o.beam_width)
                times["pricing_beam"] += time.perf_counter() - tp
                if r.best_clause is not None and (
                        hint is None or inst.reduced_cost(r.best_clause) < inst.reduced_cost(hint)):
                    hint = r.best_clause
            elif method == "bnb-short":
                # exact over clauses of at most heuristic_max_length literals: finds good
                # columns fast when D is large; its bound says nothing about longer clauses
                short = PricingInstance(inst.X, inst.v, inst.const, inst.lit,
                                        o.heuristic_max_length, inst.features, exact=False)
                r = bnb_pricing(short, threshold=-o.tol, max_return=o.columns_per_iter,
                                node_limit=o.bnb_node_limit,
                                deadline=None if ptl is None else tp + ptl,
                                found_node_limit=o.bnb_found_node_limit)
                r.method = "bnb-short"
                times["pricing_bnb"] += time.perf_counter() - tp
                if r.best_clause is not None:
                    hint = r.best_clause
                inst = short
            elif method == "bnb":
                r = bnb_pricing(inst, threshold=-o.tol, max_return=o.columns_per_iter,
                                node_limit=o.bnb_node_limit,
                                deadline=None if ptl is None else tp + ptl,
                                found_node_limit=o.bnb_found_node_limit)
                times["pricing_bnb"] += time.perf_counter() - tp
                if r.best_clause is not None:
                    hint = r.best_clause
            else:
                if hint is None and o.pricing == "exact":
                    hint = heuristic_pricing(inst, threshold=-o.tol, max_length=2,
                                             max_generated=200, max_return=1).best_clause
                r = cpsat_pricing(inst, time_limit=ptl, deterministic_time=o.pricing_deterministic_time,
                                  workers=o.workers, seed=o.seed + it, hint=hint,
                                  threshold=-o.tol, max_return=o.columns_per_iter)
                times["pricing_cpsat"] += time.perf_counter() - tp
            calls[r.method] = calls.get(r.method, 0) + 1
            last_pricing = r
            pricing_log.append({"iteration": it, "method": r.method, "exact_instance": inst.exact,
                                "found": len(r.clauses), "best": r.reduced_costs[0] if r.reduced_costs else None,
                                "bound": r.bound, "complete": r.complete, "work": r.generated,
                                "time": r.wall_time, "termination": r.termination.value if r.termination else None})
            if inst.exact and r.bound > zlb:
                zlb, zkind = r.bound, r.method
            cand = []
            for cl in r.clauses:
                g = tuple(sorted(int(inst.features[j]) for j in cl))
                g = _irredundant(st.X, g)
                cov = st.coverage(g)
                rc = const + lit * len(g) + float(v[cov].sum())
                if rc < -o.tol and cov.tobytes() not in st.keys:
                    cand.append((rc, g))
            cand.sort()
            seen = set()
            for rc, g in cand:
                if g not in seen:
                    seen.add(g)
                    new.append(g)
            if new:
                break
            if inst.exact and zlb >= -o.tol:
                break
        lb_it = L + (st.n_max(ub_empty) * min(0.0, zlb) if zlb < 0 else 0.0)
        lb_it = st.round_bound(lb_it)
        if lb_it > best_bound:
            best_bound = lb_it
            bound_kind = "lp_optimal" if zlb >= -o.tol else f"lagrangian ({zkind} pricing bound)"
        if best_duals is None or lb_it >= best_duals[0]:
            best_duals = (lb_it, L, zlb, v, const, lit)
        history.append({"time": time.perf_counter() - t0, "iteration": it,
                        "objective": None, "lower_bound": best_bound,
                        "rmlp": last_rmlp, "pricing_bound": zlb, "pricing_bound_kind": zkind,
                        "columns": master.n_columns, "new_columns": len(new)})
        log.debug("cg iter %d: rmlp=%.6g zlb=%.6g bound=%.6g new=%d", it, last_rmlp, zlb,
                  best_bound, len(new))
        if zlb >= -o.tol:
            stop, stop_term, stop_msg = "converged", Termination.OPTIMAL, "pricing proved the LP optimal"
            break
        if best_bound >= st.round_bound(last_rmlp) - 1e-9:
            # no column can raise the bound any more (it is ceil(z_RMLP) >= ceil(z_MLP))
            stop, stop_term = "lp_bound_attained", Termination.OPTIMAL
            stop_msg = "the lower bound equals the restricted LP bound"
            break
        if not new:
            stop = "pricing_exhausted"
            if cg_end is not None and time.perf_counter() >= cg_end:
                stop, stop_term = "time_limit", Termination.TIME_LIMIT
            elif last_pricing is not None and last_pricing.termination is Termination.TIME_LIMIT:
                stop_term = Termination.TIME_LIMIT
            else:
                stop_term = Termination.ITERATION_LIMIT
            stop_msg = ("pricing found no improving clause within its limits and did not prove "
                        f"that none exists (best pricing bound {zlb:.6g})")
            break
        if o.max_columns is not None:
            room = o.max_columns - master.n_columns
            new = new[:max(0, room)]
        add_clauses(new)
        it += 1
        if o.max_iter is not None and it >= o.max_iter:
            stop, stop_term, stop_msg = "max_iter", Termination.ITERATION_LIMIT, f"max_iter={o.max_iter} reached"
            break
        if o.max_columns is not None and master.n_columns >= o.max_columns:
            stop, stop_term, stop_msg = "max_columns", Termination.ITERATION_LIMIT, f"max_columns={o.max_columns} reached"
            break
    cg_time = time.perf_counter() - t0

    # ---- restricted master IP -----------------------------------------------------------
    w_lp = None
    support_info: dict = {}
    ip_gap = (1.0 - 1e-6) if st.integral else 1e-9   # an integral objective moves by >= 1
    if not master.is_mip and master.n_columns and stop != "lp_failed":
        # the last batch of columns may not be in the LP solution yet: re-solve once (cheap)
        ta = time.perf_counter()
        res_lp, mu2, _ = master.solve_lp(left(end) if end is not None else math.inf)
        times["lp"] += time.perf_counter() - ta
        if res_lp.x is not None:
            w_lp = master.clause_values(res_lp.x)
    ta = time.perf_counter()
    selected, ws_obj, ls_info = _greedy_selection(
        master, st, w_lp, seed=o.seed, improve=o.local_search,
        deadline=None if end is None else ta + LOCAL_SEARCH_SHARE * left(end))
    times["local_search"] += time.perf_counter() - ta
    ip_start = "greedy + local search" if o.local_search else "greedy"
    if w_lp is not None:
        # the IP over the LP solution's support: small, usually solved at once, and a far
        # better start than the greedy one when the full restricted IP stalls
        ta = time.perf_counter()
        sel_s, support_info = _support_ip(master, w_lp, selected, ws_obj, o.seed, ip_gap,
                                          None if end is None else 0.5 * left(end),
                                          o.ip_node_limit)
        times["ip"] += time.perf_counter() - ta
        obj_s = math.inf if sel_s is None else master.selection_objective(sel_s)
        if obj_s < ws_obj - 1e-9:
            selected, ws_obj, ip_start = sel_s, obj_s, "LP support IP"
    if o.initial_solution:
        sel0 = np.zeros(master.n_columns, dtype=bool)
        for cl in map(clean, o.initial_solution):
            k = st.index.get(st.coverage(cl).tobytes()) if len(cl) <= st.D else None
            if k is None:
                break
            sel0[k] = True
        else:
            cpx0 = float(np.asarray(master.complexities, dtype=float)[sel0].sum())
            obj0 = master.selection_objective(sel0)
            if (st.C is None or cpx0 <= st.C + 1e-9) and obj0 < ws_obj:
                selected, ws_obj, ip_start = sel0, obj0, "initial_solution"
    ip_res = None
    ip_bound = -math.inf
    def solve_restricted_ip(selected, incumbent_obj):
        """Restricted IP warm-started from ``selected``; returns the better selection."""
        ta = time.perf_counter()
        res = master.solve_ip(left(end) if end is not None else math.inf, selected,
                              mip_abs_gap=ip_gap,
                              warm_start_objective=incumbent_obj, node_limit=o.ip_node_limit)
        times["ip"] += time.perf_counter() - ta
        if res.x is not None:
            cand = master.clause_values(res.x) > 0.5
            if master.selection_objective(cand) <= incumbent_obj + 1e-9:
                selected = cand
        return selected, res

    if master.n_columns:
        selected, ip_res = solve_restricted_ip(selected, ws_obj)
        ip_bound = ip_res.bound
    ip_obj = master.selection_objective(selected)

    # ---- gap closing by reduced-cost enumeration -----------------------------------------
    gap_info = {}
    if (o.close_gap and best_duals is not None and ip_obj - best_bound > max(st.gran, 1e-9) - 1e-9
            and (end is None or time.perf_counter() < end)):
        tg = time.perf_counter()
        _, L, zlb, v, const, lit = best_duals
        N = st.n_max(ip_obj)
        T = ip_obj - st.gran - L - (N - 1) * min(0.0, zlb)
        K = o.close_gap_max_columns
        er = branch_and_bound(st.X, v, const, lit, st.D, K=K,
                              upper=T + 1e-7, tighten=False, node_limit=o.close_gap_node_limit,
                              deadline=end)
        # an incomplete enumeration proves nothing: its clauses are not added
        added = add_clauses([_irredundant(st.X, c) for c in er.clauses]) if er.complete else 0
        gap_info = {"threshold": T, "cap": K, "enumerated": len(er.clauses), "added": added,
                    "complete": er.complete}
        enum_bound = -math.inf   # a lower bound on the restricted IP that now holds them all
        if not added:
            enum_bound = ip_obj if ip_res is None else ip_res.bound
        elif end is None or time.perf_counter() < end:
            selected = np.concatenate([selected, np.zeros(master.n_columns - len(selected), bool)])
            selected, ip_res = solve_restricted_ip(selected, ip_obj)
            ip_bound = enum_bound = ip_res.bound
            ip_obj = master.selection_objective(selected)
        else:
            selected = np.concatenate([selected, np.zeros(master.n_columns - len(selected), bool)])
        gap_info["restricted_ip_bound"] = enum_bound
        if er.complete:
            # every better solution uses only enumerated clauses, all now in the restricted
            # IP, so its proven bound bounds the master IP
            b = st.round_bound(min(enum_bound, ip_obj))
            if b > best_bound:
                best_bound, bound_kind = b, "reduced-cost enumeration + restricted IP"
        times["close_gap"] += time.perf_counter() - tg

    # ---- model and certificate ------------------------------------------------------------
    clauses = [st.clauses[k] for k in np.flatnonzero(selected)]
    clauses.sort(key=lambda c: (len(c), c))
    rs = RuleSet.from_feature_sets(clauses, o.form, problem.antecedent_names)
    score = ruleset_objective(rs, problem, fn_weight=o.fn_weight, clause_penalty=o.clause_penalty,
                              literal_penalty=o.literal_penalty)
    objective = float(score.objective)
    if abs(objective - ip_obj) > 1e-6 * max(1.0, abs(objective)):
        raise RuntimeError(f"internal error: master objective {ip_obj} != exact objective {objective}")
    abs_tol = 1e-6 if st.integral else 1e-9 * max(1.0, abs(objective))
    lower = min(best_bound, objective) if best_bound <= objective + abs_tol else best_bound
    proven = objective - lower <= abs_tol
    msg = stop_msg
    if proven:
        term, status = Termination.OPTIMAL, SolutionStatus.OPTIMAL
    else:
        status = SolutionStatus.FEASIBLE
        if stop in ("converged", "lp_bound_attained"):
            if ip_res is not None and ip_res.termination is not Termination.OPTIMAL:
                term = ip_res.termination
                msg = f"LP optimal; restricted IP stopped: {ip_res.message}"
            elif end is not None and time.perf_counter() >= end:
                term = Termination.TIME_LIMIT
                msg = "LP optimal; time limit while closing the gap"
            else:
                term = Termination.ITERATION_LIMIT
                msg = ("LP optimal but fractional: the restricted IP optimum exceeds the LP bound "
                       "and gap closing was off or hit its column cap")
        else:
            term = stop_term or Termination.ERROR
    history.append({"time": time.perf_counter() - t0, "iteration": it, "objective": objective,
                    "lower_bound": lower, "phase": "restricted IP"})
    cert = Certificate(
        termination=term, status=status, objective=objective, lower_bound=lower,
        solver="colgen(highs+cp-sat)",
        solver_version=f"highs {hx.highs_version()}, ortools {cx.cpsat_version()}",
        abs_tol=abs_tol, nodes=int(ip_res.nodes) if ip_res is not None else 0, iterations=it,
        wall_time=time.perf_counter() - t0, seed=o.seed, warm_start_objective=ws_obj,
        message=msg, history=history,
        stats={"bound_kind": bound_kind, "stop_reason": stop, "cg_iterations": it,
               "columns": master.n_columns, "rmlp_objective": last_rmlp,
               "lp_converged": stop == "converged", "lp_bound_attained": stop in ("converged", "lp_bound_attained"), "pricing_calls": calls, "pricing_log": pricing_log,
               "sampled_pricing": sampled_any, "max_clause_length": st.D,
               "complexity_bound": st.C, "form": o.form, "integral_objective": st.integral,
               "restricted_ip_objective": ip_obj, "restricted_ip_start": ip_start, "local_search": ls_info, "support_ip": support_info, "restricted_ip_bound": ip_bound,
               "restricted_ip_termination": None if ip_res is None else ip_res.termination.value,
               "gap_closing": gap_info, "time": {**times, "column_generation": cg_time},
               "hamming_loss": score.hamming_loss, "complexity": rs.complexity,
               "training_errors": score.errors,
               "column_pool": [list(c) for c in st.clauses],
               "solution_clauses": [list(c) for c in clauses]})
    return rs, cert


def _support_ip(master: RestrictedMaster, w_lp, selected, objective, seed, mip_abs_gap,
                time_limit, node_limit=None):
    """The restricted IP over only the columns in the support of the LP solution ``w_lp``
    and in ``selected`` (a feasible selection of objective ``objective``, its warm start);
    returns its best selection (over all columns), or None if it found none or would not be
    smaller than the full restricted IP, and a summary for the certificate's stats."""
    cols = np.flatnonzero((w_lp > 1e-6) | selected)
    if cols.size == 0 or cols.size == master.n_columns:
        return None, {}
    sub = RestrictedMaster(master.fn_cost, master.C, seed=seed)
    sub.add_columns([master.covers[k] for k in cols], np.asarray(master.costs)[cols],
                    np.asarray(master.complexities)[cols])
    res = sub.solve_ip(math.inf if time_limit is None else time_limit, selected[cols],
                       mip_abs_gap=mip_abs_gap, warm_start_objective=objective,
                       node_limit=node_limit)
    info = {"columns": int(cols.size), "termination": res.termination.value,
            "objective": res.objective, "wall_time": res.wall_time}
    if res.x is None:
        return None, info
    sel = np.zeros(master.n_columns, dtype=bool)
    sel[cols[sub.clause_values(res.x) > 0.5]] = True
    return sel, info


def _greedy_selection(master: RestrictedMaster, st: _State, w_lp, *, seed: int = 0,
                      deadline: float | None = None, improve: bool = True):
    """A feasible 0/1 selection to warm-start the restricted IP: the better of (a) columns in
    decreasing LP value added while the complexity fits and the objective decreases and (b)
    the greedy covering rule (repeatedly add the column with the largest objective decrease
    per unit of complexity), then (``improve``) improved by local search (``localsearch``:
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
