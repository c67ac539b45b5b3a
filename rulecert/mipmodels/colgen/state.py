"""What a column-generation solve works on: the instance (:class:`State`: the samples
grouped by identical binary features, transformed for CNF, with the masses, ``C``, ``D``, the
penalties and the clauses the master holds), the helpers every phase shares (a clause's
coverage, column, reduced cost, irredundant form), and the state of one solve (:class:`Run`:
the master, the clocks, the bound so far, why it stopped), which the loop, the bound searches,
the dive, the restricted IP and gap closing all update.
"""
from __future__ import annotations

import dataclasses
import hashlib
import math

import numpy as np

import enum

from ...certificate import Termination
from ...limits import Deadline
from ...monitor import Monitor
from .bounds import Duals
from .master import RestrictedMaster
from .options import ColGenOptions


CONFLICT_DETAIL = ("identical binarized samples with both labels: each group's lighter side "
                   "errs in every rule set")


class BoundKind(enum.Enum):
    """Which proof gave the certified lower bound (the certificate's ``stats["bound_kind"]``;
    ``stats["bound_detail"]`` says at which duals, thresholds and budgets)."""

    TRIVIAL = "trivial"
    """0: the loss and the penalties are >= 0; nothing was proven."""
    CONFLICT_FLOOR = "conflict floor"
    """Identical binarized samples with both labels: each group's lighter side errs in every
    rule set.  It needs no search."""
    LP_OPTIMAL = "LP optimal"
    """Pricing proved the master LP optimal: the bound is its value, rounded up."""
    LAGRANGIAN = "lagrangian"
    """The Lagrangian bound (``bounds.py``) at some duals, from a pricing proof there."""
    POSITIVE_SIDE = "positive-side proof"
    """The Lagrangian bound at the final duals, pricing proven by the positive-side search."""
    GAP_CLOSING = "gap closing"
    """Every clause that could enter a better rule set was enumerated; the restricted IP's
    bound over them."""
    WHOLE_CLASS = "whole class"
    """A search over the whole class (at most two clauses fit ``C``)."""
    PACKING = "packing"
    """No error-free rule set fits ``C``: the packing bound."""
    ERROR_FREE_COVER_LP = "error-free cover LP"
    """No error-free rule set fits ``C``: the least-complexity error-free cover's LP."""


@dataclasses.dataclass(frozen=True)
class Proof:
    """What a prover returns: a lower bound on every rule set of the class, which proof gave
    it and at which duals, thresholds or budgets (offered to :meth:`Run.offer_bound`)."""

    bound: float
    kind: BoundKind
    detail: str = ""


def irredundant(X: np.ndarray, clause: tuple[int, ...]) -> tuple[int, ...]:
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


class State:
    """Everything the loop knows about the (transformed) instance."""

    def __init__(self, problem, o: ColGenOptions):
        patterns, _, pos, neg = problem.groups
        X = np.asarray(patterns, dtype=bool)
        pos, neg = np.asarray(pos, float), np.asarray(neg, float)
        if o.model.form == "cnf":
            X, pos, neg = ~X, neg, pos
        keep = (pos > 0) | (neg > 0)          # zero-weight samples play no part
        X, pos, neg = X[keep], pos[keep], neg[keep]
        self.X = np.ascontiguousarray(X)
        self.G, self.d = X.shape
        self.pos, self.neg = pos, neg
        self.P = np.flatnonzero(pos > 0)
        self.row_of = np.full(self.G, -1, dtype=np.int64)
        self.row_of[self.P] = np.arange(len(self.P))
        self.a = o.model.fn_weight * pos[self.P]
        self.C = None if o.model.complexity_bound is None else float(o.model.complexity_bound)
        D = o.model.max_clause_length
        if D is None:
            D = int(math.floor(self.C)) - 1 if self.C is not None else 10
        if self.C is not None:
            D = min(D, int(math.floor(self.C)) - 1)
        self.D = max(1, min(int(D), self.d))
        self.lam0, self.lam1 = float(o.model.clause_penalty), float(o.model.literal_penalty)
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


def reduced_cost(st: State, duals: Duals, clause) -> float:
    return duals.const + duals.lit * len(clause) + float(duals.v[st.coverage(clause)].sum())


def improving_clauses(st: State, duals: Duals, inst, r, tol: float) -> list[tuple[int, ...]]:
    """A pricer's clauses in full-data features, irredundant, re-priced exactly on the full
    data, new and improving, best first."""
    cand = []
    for cl in r.clauses:
        g = tuple(sorted(int(inst.features[j]) for j in cl))
        g = irredundant(st.X, g)
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


@dataclasses.dataclass
class Run:
    """The state of one :func:`solve`: the instance, the master and what the loop has learned."""

    o: ColGenOptions
    st: State
    master: RestrictedMaster
    rng: np.random.Generator
    end: Deadline
    """The whole solve's clock."""
    cg_end: Deadline
    """The column-generation phase's clock (``1 - _ip_time_fraction`` of the limit)."""
    ub_empty: float
    ip_gap: float
    times: dict = dataclasses.field(default_factory=lambda: {
        "lp": 0.0, "pricing_heuristic": 0.0, "pricing_beam": 0.0, "pricing_bnb": 0.0,
        "pricing_cpsat": 0.0, "local_search": 0.0, "ip": 0.0, "polish": 0.0,
        "close_gap": 0.0})
    calls: dict = dataclasses.field(default_factory=lambda: {
        "heuristic": 0, "beam": 0, "bnb": 0, "cp-sat": 0})
    monitor: Monitor | None = None
    """Ctrl-C, the user's callback, the memory cap and the history (``monitor.history``)."""
    pricing_log: list = dataclasses.field(default_factory=list)
    best_bound: float = 0.0                  # Hamming loss and penalties are >= 0
    bound_kind: BoundKind = BoundKind.TRIVIAL
    bound_detail: str = ""
    conflict_floor: float = 0.0              # the conflict floor (``bounds.conflict_bound``)
    initial_clauses: list = dataclasses.field(default_factory=list)
    """Clauses to start from (the caller's warm start, ``solve(..., initial_clauses=...)``)."""
    initial_solution: list | None = None
    """A rule set to start the restricted IP from (``solve(..., initial_solution=...)``)."""
    best_duals: tuple | None = None          # (bound, Duals, z_CG) of the best bound
    last_rmlp: float | None = None
    last_priced: tuple | None = None         # (Duals, pricing bound) of the last pricing
    stop: str | None = None
    stop_term: Termination | None = None
    stop_msg: str = ""
    sampled_any: bool = False
    share: float = 0.1                       # complexity-dual search: share to start from
    searched: tuple | None = None            # (share, node budget) of a final search at
                                             # the last duals that ran on counted limits
    descent: tuple | None = None             # (Duals, proofs, clauses found) of the
                                             # last final search (time-left resumes it)
    search_next: int = 0                     # ... the next iteration it may run at
    search_gap: int = 1                      # ... iterations between searches (backoff)
    bound_pace: tuple = (0, 0.0)             # (nodes, seconds) of the largest bound-pricing
                                             # call so far (``bound_search._accounting``)
    it: int = 0
    cg_time: float = 0.0
    gap_info: dict = dataclasses.field(default_factory=dict)
    packing: dict | None = None
    """The packing bound's stats (``provers/packing.py``; None: not tried)."""
    error_free_lp: dict | None = None
    """The error-free cover LP bound's stats (``provers/cover_lp.py``; None: not tried)."""
    dive: dict | None = None                 # the dive's record (``improvers/dive.py``), when it ran
    polish: dict | None = None               # polishing's record (``improvers/polish.py``), when it ran
    time_left_search: dict | None = None     # ``bound_search.raise_bound_with_time_left``'s
    positive_side: dict | None = None        # ``bound_search.positive_side_search``'s record
    steps: dict = dataclasses.field(default_factory=dict)
    """What each step after the restricted IP did (``steps.run_steps``)."""
    positive_side_deferred: tuple | None = None
    """The positive-side proof prepared to run after the descent: ``(duals, record)``."""

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

    def lp_ceiling(self) -> float | None:
        """The most a bound of the master's LP relaxation can certify: the last restricted
        LP, at least the LP optimum (it has fewer clauses), rounded up as bounds are.  Bounds
        that use integrality can exceed it: the Lagrangian bound with its ``floor(C/2)``
        clauses at odd ``C``, the knapsacks, the packing bound, the error-free cover LP and
        its enumeration, gap closing."""
        return None if self.last_rmlp is None else self.st.round_bound(self.last_rmlp)

    def offer_bound(self, bound: float, kind: BoundKind, detail: str = "") -> bool:
        """The one place a proof raises the certified bound: ``bound`` (proven by ``kind``,
        at ``detail``) replaces the bound so far when it is larger; returns whether it did.
        A bound equal to the conflict floor keeps that name: the floor needs no proof."""
        if not bound > self.best_bound:
            return False
        self.best_bound, self.bound_kind, self.bound_detail = float(bound), kind, detail
        if bound <= self.conflict_floor:
            self.bound_kind, self.bound_detail = BoundKind.CONFLICT_FLOOR, CONFLICT_DETAIL
        return True

    def halt(self, stop: str, term: Termination | None, msg: str) -> None:
        self.stop, self.stop_term, self.stop_msg = stop, term, msg

    def gap_open(self, objective: float) -> bool:
        """Whether a rule set of ``objective`` is not yet proven optimal: it exceeds the bound
        by more than the objective's granularity (1 when it is integral) can close."""
        return objective - self.best_bound > max(self.st.gran, 1e-9) - 1e-9

    def selection_of(self, clauses) -> np.ndarray | None:
        """The master's selection of the columns holding ``clauses`` (by coverage: the column
        of a coverage is its shortest clause), or None when one is not a column or the
        selection exceeds ``C``."""
        st, master = self.st, self.master
        sel = np.zeros(master.n_columns, dtype=bool)
        for cl in clauses:
            k = st.index.get(st.coverage(cl).tobytes()) if len(cl) <= st.D else None
            if k is None:
                return None
            sel[k] = True
        cpx = float(np.asarray(master.complexities, dtype=float)[sel].sum())
        return sel if st.C is None or cpx <= st.C + 1e-9 else None

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
