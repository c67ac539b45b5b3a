"""An exact mixed-integer program of CORELS rule lists over pre-mined antecedents.

Problem: minimize ``mistakes / N + c * (number of rules)`` over rule lists of at most ``K``
rules drawn from the antecedents of a :class:`~rulecert.problem.RuleProblem`, default rule
last (CORELS, JMLR 2018, eq. (2); ``N`` is the number of samples or the total weight).

Formulation (one neutral model, three backends)
------------------------------------------------
Samples with identical capture patterns over all antecedents form *groups* ``g`` with
positive and negative mass ``pos_g``, ``neg_g`` (exact: every rule list classifies a group as
one).  Groups of zero mass are dropped.  Variables:

* ``x[k, r, l]`` binary: rule ``r`` with label ``l`` sits at position ``k`` (``k < K``).
* ``u[k]`` binary: position ``k`` is used; ``u[k] = sum_{r,l} x[k,r,l]``, ``u[k+1] <= u[k]``.
* ``d`` binary: the default rule predicts 1.
* ``w[g, k, l]`` in [0, 1] (binary in CP-SAT): group ``g`` is first captured at position
  ``k`` by a rule with label ``l``; slot ``k = K`` is the default rule.

Constraints (per group ``g`` with antecedents ``R(g)`` that capture it):

* capture-with-label: ``w[g,k,l] <= sum_{r in R(g)} x[k,r,l]``;
* forcing: ``sum_{j <= k, l} w[g,j,l] >= sum_{r in R(g), l} x[k,r,l]`` (a group captured at
  ``k`` is first captured at or before ``k``; with the assignment equation below this also
  forbids any later "first" capture);
* assignment: ``sum_{k, l} w[g,k,l] = 1``; default label: ``w[g,K,1] <= d``,
  ``w[g,K,0] <= 1 - d``;
* each antecedent at most once: ``sum_{k,l} x[k,r,l] <= 1``.

Given integral ``x`` and ``d`` the ``w`` are forced to the 0/1 first-capture indicators, so
they may stay continuous in the LP-based backends.  The loss is linear with no error
variables: ``mistakes = sum_{g,k} neg_g * w[g,k,1] + pos_g * w[g,k,0]``.  HiGHS and PuLP
minimize ``mistakes + c * N * rules`` (the objective times ``N``, so the LP file reads in
mistakes); CP-SAT minimizes the same times the denominator of ``c`` (integers).

Valid inequalities (``cuts``), all satisfied by every optimal rule list of the ``K``-restricted
problem, so none removes an optimum:

* ``"support"`` (JMLR Theorem 10): a used rule newly captures at least ``t = ceil(c N)``
  samples: ``sum_g mass_g sum_l w[g,k,l] >= t u[k]``;
* ``"accuracy"`` (JMLR Theorem 11, per label): a used rule classifies at least ``t`` of them
  correctly: ``sum_g pos_g w[g,k,1] >= t sum_r x[k,r,1]`` and likewise for label 0;
* ``"fixing"``: ``x[k,r,1] = 0`` when antecedent ``r`` captures fewer than ``t`` positives
  at all (and likewise for label 0) -- Theorem 11 applied before the solve;
* ``"majority"``: a rule's label is a (weak) majority of what it newly captures (else
  flipping it is strictly better): ``sum_g (pos_g - neg_g) w[g,k,1] >= 0`` etc.;
* ``"last"`` (c > 0): the last rule does not predict the default label (else dropping it
  saves c): ``sum_r x[k,r,1] + d - u[k+1] <= 1`` and ``sum_r x[k,r,0] - d - u[k+1] <= 0``;
* ``"order"`` (symmetry): adjacent rules with the same label commute (the list predicts
  the same), so their antecedent indices increase:
  ``sum_{r'' >= r} x[k,r'',l] + sum_{r' < r} x[k+1,r',l] <= 1``.  This keeps one
  representative of every class of equivalent lists; the other families hold for every
  optimal list, hence for that representative.
* ``"disjoint"`` (symmetry): adjacent rules whose antecedents capture no sample in common
  commute whatever their labels (each sample meets at most one of them, and each newly
  captures the same samples in either order), so their indices increase too:
  ``x[k,r,l] + sum_{r' < r, r' disjoint from r} x[k+1,r',1-l] <= 1`` (pairs with the same
  label are ``"order"``'s).  Sorting every adjacent pair that is same-label or disjoint
  removes an inversion per swap, so a representative satisfies both families at once.

None of the families tightens the LP relaxation much (it stays near the equivalent-points
bound plus c: fractional labels let every group be classified correctly); they prune the
branch-and-bound.  ``experiments/bench_rulelist_mip.py`` measures them: on a COMPAS
subsample with 58 groups (n=300, M=20, K=5) CP-SAT proved optimality in 23 s without cuts,
7.5 s with the four JMLR families and 3.5 s with all six; HiGHS took 24-34 s whatever the
cuts (fewest nodes with the JMLR families, which are its default).

The proofs of Theorems 10 and 11 delete a rule, which keeps a list inside the restricted
space, so they hold for the restricted problem too; they do not use the label rule.  Warm
starts are repaired (:func:`repair_prefix`) to satisfy every family before they are passed
to a solver.

Labels and ties
---------------
The MIP picks labels freely; for a fixed prefix the majority labels minimize mistakes, so the
optimum is the CORELS optimum.  The returned :class:`~rulecert.models.RuleList` is relabelled
with the shared rule (:func:`rulecert.models.rule_list_from_prefix`: majority, ties predict 1),
which never increases the objective; the objective is recomputed exactly with
:func:`rulecert.models.rule_list_objective`, and the solver's own objective must equal
the recomputed objective of the list it returned (with its labels), else the certificate
says ERROR.

Exactness for the unrestricted problem
--------------------------------------
For any rule list ``d`` with ``R(d) <= R_inc`` (an incumbent's objective),
``c L(d) <= R(d) - mistakes(d)/N <= R_inc - EP/N``, where ``EP`` is the equivalent-points
lower bound on mistakes (JMLR Theorem 20).  So every optimal list has at most
``L = floor((R_inc - EP/N) / c)`` rules (JMLR Theorem 6 for the empty prefix / Corollary 5,
with the equivalent-points refinement; the plain JMLR figure ``floor(R_inc / c)`` is recorded
too).  When ``max_rules >= min(L, M)`` the restricted optimum is the unrestricted optimum;
``stats["exact_for_unrestricted"]`` and the message say which case holds.  Positions beyond
``L`` are never used by a list at least as good as the incumbent, so the model is built with
``min(K, L)`` positions.

The rational value of ``c``
---------------------------
``c`` is read as the decimal it prints as (``repr``: ``0.01`` is 1/100); counting thresholds
use the smaller of that rational and the binary float, so they are valid under both.  CP-SAT
scales the objective by ``N * q`` for ``c = p / q``; if that would exceed 2**50 the scaled
model uses the nearest fraction with a smaller denominator and the reported bound subtracts
``|c - p'/q'| * K`` (a rigorous correction, recorded in ``stats``).
"""
from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Iterable, Sequence

import numpy as np

from .. import cpsat as _cpsat

BACKENDS = ("highs", "pulp", "cpsat")
CUT_FAMILIES = ("support", "accuracy", "fixing", "majority", "last", "order", "disjoint")
DEFAULT_CUTS = {"highs": ("support", "accuracy", "fixing", "majority"),
                "pulp": ("support", "accuracy", "fixing", "majority"),
                "cpsat": ("support", "accuracy", "fixing", "majority", "last", "order")}
"""What ``cuts=True`` means per backend (measured in experiments/bench_rulelist_mip.py: the
symmetry families "last"/"order" halved CP-SAT's time but slowed HiGHS; the symmetry family
"disjoint" is valid but left out: on full COMPAS CP-SAT's bound rose more slowly with it,
experiments/results/rulelist_mip)."""
MAX_NONZEROS = {"highs": 20_000_000, "pulp": 1_000_000, "cpsat": 5_000_000}
"""Backend size limits (estimated constraint-matrix nonzeros) checked before any work."""
_CPSAT_MAX_SCALE = 2 ** 50
_LATTICE_MIN_STEP = 1e-4   # in mistakes: below this the bound is not rounded to the lattice
_BOUND_TOL = 1e-6          # relative slack granted to a solver's floating-point dual bound


# ----------------------------------------------------------------------------------------
# groups, incumbents and bounds
# ----------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class GroupData:
    """Samples aggregated by capture pattern (zero-mass groups dropped).

    ``P`` is G x M boolean, ``pos``/``neg`` the masses (int64 when integral, else float),
    ``N`` the total mass and ``integral`` whether all masses are integers.
    """

    P: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    N: float
    integral: bool

    @property
    def n_groups(self) -> int:
        return self.P.shape[0]

    @property
    def mass(self) -> np.ndarray:
        return self.pos + self.neg

    @property
    def ep(self):
        """Equivalent-points lower bound on the mistakes of any rule list (mass)."""
        return np.minimum(self.pos, self.neg).sum()

    def prefix_counts(self, prefix: Sequence[int]) -> list[tuple]:
        """(pos, neg) newly captured by each rule of ``prefix``, then by the default."""
        rem = np.ones(self.n_groups, dtype=bool)
        out = []
        for r in prefix:
            cap = self.P[:, r] & rem
            out.append((self.pos[cap].sum(), self.neg[cap].sum()))
            rem &= ~self.P[:, r]
        out.append((self.pos[rem].sum(), self.neg[rem].sum()))
        return out


def group_data(problem) -> GroupData:
    """Aggregate ``problem`` by identical capture patterns (:attr:`rulecert.RuleProblem.groups`)."""
    patterns, _, pos, neg = problem.groups
    pos = np.asarray(pos)
    neg = np.asarray(neg)
    keep = (pos + neg) > 0
    P = np.ascontiguousarray(patterns[keep], dtype=bool)
    pos, neg = pos[keep], neg[keep]
    integral = True
    if pos.dtype.kind == "f":
        integral = bool(np.all(pos == np.round(pos)) and np.all(neg == np.round(neg))
                        and (pos + neg).sum() < 2 ** 40)
        if integral:
            pos, neg = np.round(pos).astype(np.int64), np.round(neg).astype(np.int64)
    N = int((pos + neg).sum()) if integral else float((pos + neg).sum())
    return GroupData(P, pos, neg, N, integral)


def c_fraction(c: float) -> Fraction:
    """The rational the solvers read for ``c``: the decimal it prints as (0.01 -> 1/100)."""
    return Fraction(repr(float(c)))


def _c_low(c: float) -> Fraction:
    """The smaller of the decimal reading and the exact binary float (conservative)."""
    return min(c_fraction(c), Fraction(float(c)))


def support_threshold(G: GroupData, c: float):
    """Minimum newly captured (and correctly classified) mass of a rule in an optimal list."""
    if c <= 0:
        return 0
    if G.integral:
        return int(math.ceil(_c_low(c) * G.N))
    return float(c) * G.N * (1 - 1e-12)


def prefix_length_bound(G: GroupData, c: float, mistakes, n_rules: int,
                        n_antecedents: int) -> tuple[int, int]:
    """Upper bounds on the length of every rule list at least as good as an incumbent.

    The incumbent has ``mistakes`` (mass) and ``n_rules`` rules.  Returns
    ``(refined, jmlr)``: ``jmlr = min(M, floor(R_inc / c))`` (JMLR Theorem 6 for the empty
    prefix, Corollary 5 when the incumbent is the default-only list) and
    ``refined = min(M, n_rules + floor((mistakes - EP) / (c N)))`` using the
    equivalent-points bound on mistakes.  With ``c = 0`` both are ``M`` (Proposition 3).
    """
    M = int(n_antecedents)
    if c <= 0:
        return M, M
    cl = _c_low(c)
    if G.integral:
        m = Fraction(int(round(mistakes)))
        ep = Fraction(int(G.ep))
        N = Fraction(int(G.N))
        refined = n_rules + math.floor((m - ep) / (cl * N))
        jmlr = n_rules + math.floor(m / (cl * N))
    else:  # float masses: a little slack against rounding in the sums
        cN = float(cl) * G.N
        refined = n_rules + math.floor((float(mistakes) - float(G.ep)) / cN * (1 + 1e-12) + 1e-9)
        jmlr = n_rules + math.floor(float(mistakes) / cN * (1 + 1e-12) + 1e-9)
    return max(0, min(M, refined)), max(0, min(M, jmlr))


def greedy_prefix(G: GroupData, c: float, max_rules: int) -> list[int]:
    """A greedy rule list: repeatedly append the rule giving the best objective.

    Extends up to ``max_rules`` rules (never with a rule that captures nothing new) and
    returns the best prefix seen along the way (possibly empty).
    """
    M = G.P.shape[1]
    rem = np.ones(G.n_groups, dtype=bool)
    prefix: list[int] = []
    used = np.zeros(M, dtype=bool)
    pre_mistakes = 0.0
    best_obj = min(G.pos.sum(), G.neg.sum()) / G.N
    best: list[int] = []
    Pf = G.P.astype(np.float64)
    for _ in range(min(max_rules, M)):
        posr = (G.pos * rem) @ Pf
        negr = (G.neg * rem) @ Pf
        tp, tn = float((G.pos * rem).sum()), float((G.neg * rem).sum())
        m = pre_mistakes + np.minimum(posr, negr) + np.minimum(tp - posr, tn - negr)
        obj = m / G.N + c * (len(prefix) + 1)
        obj[used | (posr + negr <= 0)] = np.inf
        r = int(np.argmin(obj))
        if not np.isfinite(obj[r]):
            break
        prefix.append(r)
        used[r] = True
        pre_mistakes += min(posr[r], negr[r])
        rem &= ~G.P[:, r]
        if obj[r] < best_obj - 1e-12:
            best_obj, best = float(obj[r]), list(prefix)
    return best


def _majority(p, q) -> int:
    return 1 if p >= q else 0


def repair_prefix(G: GroupData, prefix: Sequence[int], max_rules: int, threshold,
                  use_threshold: bool, cuts: Iterable[str] = (), c: float = 0.0) -> list[int]:
    """Make a prefix feasible for the model built with ``cuts`` (majority labels assumed).

    Duplicates are dropped and the list truncated to ``max_rules``; then, until nothing
    changes: a rule newly classifying fewer than ``threshold`` correctly is removed (with the
    support/accuracy cuts; removal never worsens the objective, JMLR Thm 11), a last rule
    predicting the default label is removed (``"last"``, c > 0: saves c), and adjacent rules
    with the same label (``"order"``) or capturing no sample in common (``"disjoint"``) are
    sorted by index (predictions unchanged).
    """
    cuts = set(cuts)
    seen, out = set(), []
    for r in prefix:
        if int(r) not in seen:
            seen.add(int(r))
            out.append(int(r))
    out = out[:max_rules]
    for _ in range(10 * (len(out) + 1) ** 3):
        counts = G.prefix_counts(out)
        labels = [_majority(p, q) for p, q in counts[:-1]]
        default = _majority(*counts[-1])
        if use_threshold:
            bad = [k for k, (p, q) in enumerate(counts[:-1]) if max(p, q) < threshold]
            if bad:
                del out[bad[0]]
                continue
        if "last" in cuts and c > 0 and out and labels[-1] == default:
            del out[-1]
            continue
        if "order" in cuts or "disjoint" in cuts:
            swap = [k for k in range(len(out) - 1) if out[k] > out[k + 1] and (
                    ("order" in cuts and labels[k] == labels[k + 1])
                    or ("disjoint" in cuts and not (G.P[:, out[k]] & G.P[:, out[k + 1]]).any()))]
            if swap:
                k = swap[0]
                out[k], out[k + 1] = out[k + 1], out[k]
                continue
        return out
    raise RuntimeError("repair_prefix did not settle")  # pragma: no cover - see docstring


# ----------------------------------------------------------------------------------------
# the neutral model
# ----------------------------------------------------------------------------------------
def _parse_cuts(cuts, backend: str = "cpsat") -> tuple[str, ...]:
    if cuts is True:
        return DEFAULT_CUTS.get(backend, CUT_FAMILIES)
    if cuts is False or cuts is None:
        return ()
    if isinstance(cuts, str):
        cuts = [cuts]
    try:
        out = tuple(dict.fromkeys(str(x) for x in cuts))
    except TypeError:
        raise ValueError(f"cuts must be True, False or a list of {CUT_FAMILIES}, got {cuts!r}") from None
    bad = [x for x in out if x not in CUT_FAMILIES]
    if bad:
        raise ValueError(f"unknown cut families {bad}; choose from {CUT_FAMILIES}")
    return out


def _nonzeros(deg: np.ndarray, n_antecedents: int, max_rules: int) -> int:
    """Rough count of constraint-matrix nonzeros of the model (for the size check), from
    each group's number of capturing antecedents."""
    K = int(max_rules)
    deg = np.asarray(deg, dtype=np.int64)
    per_group = np.where(deg > 0, 2 * K * (deg + 1) + K * (K + 1) + 2 * K * deg, 0) + 2 * K + 4
    return int(per_group.sum() + 4 * K * n_antecedents + 8 * K * len(deg) + 2 * K)


def check_size(problem, backend: str, max_rules: int, G: GroupData | None = None) -> int:
    """The model's estimated nonzeros with ``max_rules`` positions; ``ValueError`` above the
    backend's limit (:data:`MAX_NONZEROS`).  Without ``G`` it is counted on the problem's
    packed groups (:meth:`rulecert.RuleProblem.group_rows`), never the dense patterns: a
    problem too large for the model is refused before any work."""
    if backend not in MAX_NONZEROS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    M = problem.n_antecedents
    if G is not None:
        deg, n_groups = G.P.sum(axis=1), G.n_groups
    else:
        rows, _, pos, neg = problem.group_rows()
        deg = np.bitwise_count(rows).sum(axis=1)[(pos + neg) > 0]
        n_groups = len(deg)
    nnz = _nonzeros(deg, M, max_rules)
    if nnz > MAX_NONZEROS[backend]:
        raise ValueError(
            f"the rule-list MIP would have about {nnz:,} nonzeros ({n_groups} groups, {M} "
            f"antecedents, {max_rules} position{'s' * (max_rules != 1)}), above the {backend} "
            f"backend's limit of "
            f"{MAX_NONZEROS[backend]:,}; use fewer antecedents, a smaller max_rules"
            + (" or backend='highs'" if backend != "highs" else ""))
    return nnz


class RuleListMIP:
    """The rule-list MIP for one problem, ``c`` and number of positions (see module doc).

    Build it, then export it (``write("model.lp")`` / ``"model.mps"``, via PuLP), or hand
    it to a backend (``to_highs``, ``to_pulp``, ``to_cpsat``).  Columns are kept in one
    neutral order; ``encode`` / ``decode`` translate between column vectors and rule lists.
    """

    def __init__(self, problem, c: float, max_rules: int, *, cuts=True,
                 groups: GroupData | None = None):
        if isinstance(max_rules, bool) or not isinstance(max_rules, (int, np.integer)):
            raise ValueError(f"max_rules must be an integer >= 0, got {max_rules!r}")
        if max_rules < 0:
            raise ValueError(f"max_rules must be >= 0, got {max_rules}")
        self.problem = problem
        self.c = float(c)
        self.K = int(max_rules)
        self.cuts = _parse_cuts(cuts)
        self.G = groups if groups is not None else group_data(problem)
        self.M = problem.n_antecedents
        self.threshold = support_threshold(self.G, self.c)
        self._build()

    # ---- construction ---------------------------------------------------------------
    def _build(self):
        """Columns, then the model's rows, then the valid inequalities in ``self.cuts``."""
        self._add_columns()
        self._rows_idx: list[np.ndarray] = []
        self._rows_val: list[np.ndarray] = []
        self.row_lower: list[float] = []
        self.row_upper: list[float] = []
        self.row_names: list[str] = []
        self._add_model_rows()
        self._add_cut_rows()

    def _row(self, name, idx, val, lo, hi) -> None:
        self._rows_idx.append(np.asarray(idx, dtype=np.int64))
        self._rows_val.append(np.asarray(val, dtype=np.float64))
        self.row_lower.append(lo)
        self.row_upper.append(hi)
        self.row_names.append(name)

    def _add_columns(self):
        """x (rule at a position with a label), u (position used), d (default label), w
        (group first captured at a position with a label), with their objective costs."""
        G, K, M = self.G, self.K, self.M
        P, pos, neg = G.P, G.pos, G.neg
        t = self.threshold
        use_t = t > 0
        # which (rule, label) pairs may ever be used
        free = np.ones((M, 2), dtype=bool)
        if "fixing" in self.cuts and use_t and M:
            free[:, 1] = (pos @ P) >= t
            free[:, 0] = (neg @ P) >= t
        self.free = free
        names: list[str] = []
        lb: list[float] = []
        ub: list[float] = []
        is_int: list[bool] = []
        cost: list[float] = []

        def add(name, hi, integer, obj=0.0):
            names.append(name)
            lb.append(0.0)
            ub.append(float(hi))
            is_int.append(integer)
            cost.append(obj)
            return len(names) - 1

        lab = ("neg", "pos")
        self.x_idx = np.full((K, M, 2), -1, dtype=np.int64)
        for k in range(K):
            for r in range(M):
                for l in (0, 1):
                    self.x_idx[k, r, l] = add(f"x_k{k + 1}_r{r}_{lab[l]}", 1 if free[r, l] else 0, True)
        cN = self.c * G.N
        self.u_idx = np.array([add(f"use_k{k + 1}", 1, True, cN) for k in range(K)], dtype=np.int64)
        self.d_idx = add("default_pos", 1, True)
        # w: present only where some free rule could capture the group with that label
        present = np.zeros((G.n_groups, 2), dtype=bool)
        if M:
            for l in (0, 1):
                present[:, l] = (P & free[None, :, l]).any(axis=1)
        self.w_idx = np.full((G.n_groups, K + 1, 2), -1, dtype=np.int64)
        for g in range(G.n_groups):
            for k in range(K):
                for l in (0, 1):
                    if present[g, l]:
                        self.w_idx[g, k, l] = add(f"w_g{g}_k{k + 1}_{lab[l]}", 1, False,
                                                  float(neg[g] if l == 1 else pos[g]))
            for l in (0, 1):
                self.w_idx[g, K, l] = add(f"w_g{g}_def_{lab[l]}", 1, False,
                                          float(neg[g] if l == 1 else pos[g]))
        self.col_names = names
        self.col_lower = np.array(lb)
        self.col_upper = np.array(ub)
        self.col_integer = np.array(is_int, dtype=bool)
        self.col_cost = np.array(cost)

    def _add_model_rows(self):
        """Capture-with-label, first capture, assignment, default label, used positions,
        contiguity and each antecedent at most once."""
        G, K, M = self.G, self.K, self.M
        P, free, lab, inf = G.P, self.free, ("neg", "pos"), math.inf
        xi, wi = self.x_idx, self.w_idx
        rules_of = [np.flatnonzero(P[g]) for g in range(G.n_groups)]
        for g in range(G.n_groups):
            R = rules_of[g]
            for k in range(K):
                for l in (0, 1):
                    if wi[g, k, l] < 0:
                        continue
                    xs = xi[k, R[free[R, l]], l]
                    self._row(f"cap_g{g}_k{k + 1}_{lab[l]}", np.r_[wi[g, k, l], xs],
                        np.r_[1.0, -np.ones(len(xs))], -inf, 0.0)
                xs = np.r_[xi[k, R[free[R, 0]], 0], xi[k, R[free[R, 1]], 1]]
                if len(xs):
                    ws = wi[g, :k + 1, :].ravel()
                    ws = ws[ws >= 0]
                    self._row(f"first_g{g}_k{k + 1}", np.r_[ws, xs],
                        np.r_[np.ones(len(ws)), -np.ones(len(xs))], 0.0, inf)
            ws = wi[g].ravel()
            ws = ws[ws >= 0]
            self._row(f"assign_g{g}", ws, np.ones(len(ws)), 1.0, 1.0)
            self._row(f"defpos_g{g}", [wi[g, K, 1], self.d_idx], [1.0, -1.0], -inf, 0.0)
            self._row(f"defneg_g{g}", [wi[g, K, 0], self.d_idx], [1.0, 1.0], -inf, 1.0)
        for k in range(K):
            xs = xi[k][free]
            self._row(f"use_k{k + 1}", np.r_[self.u_idx[k], xs], np.r_[1.0, -np.ones(len(xs))], 0.0, 0.0)
            if k + 1 < K:
                self._row(f"contig_k{k + 1}", [self.u_idx[k + 1], self.u_idx[k]], [1.0, -1.0], -inf, 0.0)
        if K > 1:
            for r in range(M):
                xs = xi[:, r, :][:, free[r]].ravel()
                if len(xs):
                    self._row(f"once_r{r}", xs, np.ones(len(xs)), -inf, 1.0)

    def _add_cut_rows(self):
        """The valid inequalities of ``self.cuts`` (module doc)."""
        G, K = self.G, self.K
        pos, neg, free, lab, inf = G.pos, G.neg, self.free, ("neg", "pos"), math.inf
        xi, wi = self.x_idx, self.w_idx
        t = self.threshold
        use_t = t > 0
        mass = (pos + neg).astype(np.float64)
        posf, negf = pos.astype(np.float64), neg.astype(np.float64)
        for k in range(K):
            if "support" in self.cuts and use_t:
                ws = wi[:, k, :]
                m = ws >= 0
                self._row(f"support_k{k + 1}", np.r_[ws[m], self.u_idx[k]],
                    np.r_[np.broadcast_to(mass[:, None], ws.shape)[m], -float(t)], 0.0, inf)
            for l in (0, 1):
                ws = wi[:, k, l]
                m = ws >= 0
                if "accuracy" in self.cuts and use_t:
                    right = posf if l == 1 else negf
                    xs = xi[k, free[:, l], l]
                    self._row(f"accuracy_k{k + 1}_{lab[l]}", np.r_[ws[m], xs],
                        np.r_[right[m], -float(t) * np.ones(len(xs))], 0.0, inf)
        if "majority" in self.cuts:
            for k in range(K + 1):
                kname = f"k{k + 1}" if k < K else "def"
                for l in (0, 1):
                    ws = wi[:, k, l]
                    m = ws >= 0
                    coef = (posf - negf) if l == 1 else (negf - posf)
                    if m.any():
                        self._row(f"majority_{kname}_{lab[l]}", ws[m], coef[m], 0.0, inf)
        if "last" in self.cuts and self.c > 0:
            # the last rule never predicts the default label (else dropping it saves c)
            for k in range(K):
                nxt = [self.u_idx[k + 1]] if k + 1 < K else []
                for l in (0, 1):
                    xs = xi[k, free[:, l], l]
                    if not len(xs):
                        continue
                    if l == 1:   # sum x[k,.,1] + d - u[k+1] <= 1
                        self._row(f"last_k{k + 1}_pos", np.r_[xs, self.d_idx, nxt],
                            np.r_[np.ones(len(xs)), 1.0, -np.ones(len(nxt))], -inf, 1.0)
                    else:        # sum x[k,.,0] - d - u[k+1] <= 0
                        self._row(f"last_k{k + 1}_neg", np.r_[xs, self.d_idx, nxt],
                            np.r_[np.ones(len(xs)), -1.0, -np.ones(len(nxt))], -inf, 0.0)
        if "order" in self.cuts:
            # adjacent rules with the same label commute: keep their antecedent indices
            # increasing (sum_{r'' >= r} x[k,r'',l] + sum_{r' < r} x[k+1,r',l] <= 1)
            for k in range(K - 1):
                for l in (0, 1):
                    fr = np.flatnonzero(free[:, l])
                    for i in range(1, len(fr)):
                        self._row(f"order_k{k + 1}_{lab[l]}_r{fr[i]}",
                            np.r_[xi[k, fr[i:], l], xi[k + 1, fr[:i], l]],
                            np.ones(len(fr)), -inf, 1.0)
        if "disjoint" in self.cuts and K > 1:
            # adjacent rules capturing no sample in common commute whatever their labels:
            # x[k,r,l] + sum_{r' < r disjoint from r} x[k+1,r',1-l] <= 1
            Pf = self.G.P.astype(np.int64)
            apart = (Pf.T @ Pf) == 0
            for k in range(K - 1):
                for l in (0, 1):
                    for r in np.flatnonzero(free[:, l]):
                        rs = np.flatnonzero(apart[r, :r] & free[:r, 1 - l])
                        if len(rs):
                            self._row(f"disjoint_k{k + 1}_{lab[l]}_r{r}",
                                np.r_[xi[k, r, l], xi[k + 1, rs, 1 - l]],
                                np.ones(len(rs) + 1), -inf, 1.0)

    # ---- facts ------------------------------------------------------------------------
    @property
    def n_variables(self) -> int:
        return len(self.col_names)

    @property
    def n_constraints(self) -> int:
        return len(self.row_names)

    @property
    def n_nonzeros(self) -> int:
        return int(sum(len(i) for i in self._rows_idx))

    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Row-wise (start, index, value) arrays of the constraint matrix."""
        lens = np.array([len(i) for i in self._rows_idx], dtype=np.int64)
        start = np.r_[0, np.cumsum(lens)].astype(np.int64)
        idx = np.concatenate(self._rows_idx) if self._rows_idx else np.zeros(0, np.int64)
        val = np.concatenate(self._rows_val) if self._rows_val else np.zeros(0)
        return start, idx, val

    # ---- solutions ----------------------------------------------------------------------
    def encode(self, prefix: Sequence[int], labels: Sequence[int], default: int) -> np.ndarray:
        """Column vector of the rule list (``prefix``, ``labels``, ``default``)."""
        if len(prefix) > self.K:
            raise ValueError(f"a prefix of length {len(prefix)} does not fit {self.K} positions")
        v = np.zeros(self.n_variables)
        for k, (r, l) in enumerate(zip(prefix, labels)):
            if not self.free[r, l]:
                raise ValueError(f"rule {r} with label {l} is fixed to zero by the accuracy bound")
            v[self.x_idx[k, r, l]] = 1
            v[self.u_idx[k]] = 1
        v[self.d_idx] = int(default)
        rem = np.ones(self.G.n_groups, dtype=bool)
        for k, (r, l) in enumerate(zip(prefix, labels)):
            cap = self.G.P[:, r] & rem
            idx = self.w_idx[cap, k, l]
            if (idx < 0).any():  # pragma: no cover - guarded by `free`
                raise ValueError("the rule list is not representable in this model")
            v[idx] = 1
            rem &= ~self.G.P[:, r]
        v[self.w_idx[rem, self.K, int(default)]] = 1
        return v

    def decode(self, x: np.ndarray) -> tuple[list[int], list[int], int]:
        """(prefix, labels, default) read from a column vector; ValueError if inconsistent."""
        x = np.asarray(x, dtype=float)
        prefix, labels = [], []
        for k in range(self.K):
            if x[self.u_idx[k]] < 0.5:
                break
            xv = x[self.x_idx[k]]
            r, l = np.unravel_index(int(np.argmax(xv)), xv.shape)
            if xv[r, l] < 0.5:
                raise ValueError(f"position {k + 1} is used but holds no rule (max x = {xv[r, l]})")
            prefix.append(int(r))
            labels.append(int(l))
        return prefix, labels, int(x[self.d_idx] > 0.5)

    # ---- backends -----------------------------------------------------------------------
    def to_highs(self, h) -> None:
        """Load the model into a ``highspy.Highs`` object (objective in mistakes)."""
        import highspy
        lp = highspy.HighsLp()
        nc, nr = self.n_variables, self.n_constraints
        lp.num_col_ = nc
        lp.num_row_ = nr
        lp.col_cost_ = self.col_cost
        lp.col_lower_ = self.col_lower
        lp.col_upper_ = self.col_upper
        lp.row_lower_ = np.array([-highspy.kHighsInf if v == -math.inf else v for v in self.row_lower])
        lp.row_upper_ = np.array([highspy.kHighsInf if v == math.inf else v for v in self.row_upper])
        start, idx, val = self.csr()
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.num_col_ = nc
        lp.a_matrix_.num_row_ = nr
        lp.a_matrix_.start_ = start.astype(np.int32)
        lp.a_matrix_.index_ = idx.astype(np.int32)
        lp.a_matrix_.value_ = val
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in self.col_integer]
        lp.col_names_ = list(self.col_names)
        lp.row_names_ = list(self.row_names)
        st = h.passModel(lp)
        if st == highspy.HighsStatus.kError:
            raise RuntimeError("HiGHS rejected the model (passModel returned kError)")

    def to_pulp(self):
        """A ``pulp.LpProblem`` of the model and its variables in column order.

        Columns fixed to zero by the accuracy bound appear in no row and are left out of the
        PuLP problem (their list entry is still a variable, valued 0).
        """
        import pulp
        prob = pulp.LpProblem("rule_list", pulp.LpMinimize)
        # PuLP >= 3.3 attaches variables to the problem; older versions construct them alone
        make = prob.add_variable if hasattr(prob, "add_variable") else pulp.LpVariable
        vs = [make(nm, lowBound=float(lo), upBound=float(hi),
                   cat=pulp.LpInteger if it else pulp.LpContinuous)
              for nm, lo, hi, it in zip(self.col_names, self.col_lower, self.col_upper, self.col_integer)]
        nz = np.flatnonzero(self.col_cost)
        prob += pulp.LpAffineExpression([(vs[j], float(self.col_cost[j])) for j in nz]), "mistakes_plus_penalty"
        for name, idx, val, lo, hi in zip(self.row_names, self._rows_idx, self._rows_val,
                                          self.row_lower, self.row_upper):
            e = pulp.LpAffineExpression([(vs[j], float(a)) for j, a in zip(idx, val)])
            if lo == hi:
                prob += pulp.LpConstraint(e, pulp.LpConstraintEQ, rhs=lo, name=name)
            elif hi < math.inf:
                prob += pulp.LpConstraint(e, pulp.LpConstraintLE, rhs=hi, name=name)
            else:
                prob += pulp.LpConstraint(e, pulp.LpConstraintGE, rhs=lo, name=name)
        return prob, vs

    def write(self, path) -> None:
        """Write the model as an LP (``.lp``) or MPS (``.mps``) file through PuLP."""
        p = str(path)
        if p.lower().endswith(".lp"):
            mark = "\\"
        elif p.lower().endswith(".mps"):
            mark = "*"
        else:
            raise ValueError(f"write() needs a path ending in .lp or .mps, got {p!r}")
        prob, _ = self.to_pulp()
        prob.writeLP(p) if mark == "\\" else prob.writeMPS(p)
        # a legend for readers: what the indices in the variable names stand for
        names = self.problem.antecedent_names
        legend = [f"rule-list MIP: minimize mistakes + {self.c} * {self.G.N} * rules "
                  f"({self.K} positions, {self.G.n_groups} groups, cuts: {', '.join(self.cuts) or 'none'})",
                  "x_k<k>_r<r>_<pos|neg>: antecedent r at position k predicting 1|0; use_k<k>: "
                  "position k used; default_pos: default rule predicts 1",
                  "w_g<g>_k<k>_<pos|neg> (w_g<g>_def_*): group g first captured at k (by the default)"]
        legend += [f"r{r} = {nm}" for r, nm in enumerate(names)]
        legend += [f"g{g}: +{self.G.pos[g]} / -{self.G.neg[g]}, captured by "
                   f"{', '.join(f'r{r}' for r in np.flatnonzero(self.G.P[g])) or 'no antecedent'}"
                   for g in range(self.G.n_groups)]
        with open(p, "r", encoding="utf-8") as fh:
            body = fh.read()
        with open(p, "w", encoding="utf-8") as fh:
            fh.write("".join(f"{mark} {line}\n" for line in legend) + body)

    def cpsat_scaling(self) -> tuple[Fraction, Fraction]:
        """``(c as used by CP-SAT, |c - that|)``: exact unless the scale would exceed 2**50."""
        cf = c_fraction(self.c)
        N = int(self.G.N)
        if cf.denominator * N * (self.K + 1) <= _CPSAT_MAX_SCALE:
            return cf, Fraction(0)
        qmax = max(1, _CPSAT_MAX_SCALE // (N * (self.K + 1)))
        ca = cf.limit_denominator(qmax)
        return ca, abs(cf - ca)

    def to_cpsat(self):
        """(CpModel, variables in column order, scale): integer objective = scale * R."""
        if not self.G.integral:
            raise ValueError("the cpsat backend needs integer sample weights (or none)")
        from ortools.sat.python import cp_model
        ca, _ = self.cpsat_scaling()
        p, q = ca.numerator, ca.denominator
        N = int(self.G.N)
        m = _cpsat.new_model()
        vs = []
        for nm, hi, it in zip(self.col_names, self.col_upper, self.col_integer):
            vs.append(m.new_bool_var(nm) if hi >= 1 else m.new_int_var(0, 0, nm))
        icost = np.zeros(self.n_variables, dtype=np.int64)
        w_all = self.w_idx[self.w_idx >= 0]
        icost[w_all] = np.rint(self.col_cost[w_all]).astype(np.int64) * q
        icost[self.u_idx] = p * N
        nz = np.flatnonzero(icost)
        m.minimize(cp_model.LinearExpr.weighted_sum([vs[j] for j in nz], [int(a) for a in icost[nz]]))
        for idx, val, lo, hi in zip(self._rows_idx, self._rows_val, self.row_lower, self.row_upper):
            coefs = np.rint(val).astype(np.int64)
            if not np.array_equal(coefs, val):  # pragma: no cover - integral masses only
                raise ValueError("non-integer coefficient in a CP-SAT row")
            e = cp_model.LinearExpr.weighted_sum([vs[j] for j in idx], [int(a) for a in coefs])
            if lo == hi:
                m.add(e == int(lo))
            elif hi < math.inf:
                m.add(e <= int(math.floor(hi)))
            else:
                m.add(e >= int(math.ceil(lo)))
        return m, vs, N * q

    # ---- the lattice of objective values -------------------------------------------------
    def lattice_step(self) -> float | None:
        """Smallest positive difference between two objective values, in mistakes (x N).

        ``None`` when the masses are not integral or the step is below 1e-4 mistakes; then
        a solver bound is not rounded up to the next achievable value.
        """
        if not self.G.integral:
            return None
        cf = c_fraction(self.c)
        N = int(self.G.N)
        step = Fraction(1)
        for dk in range(1, self.K + 1):
            v = cf * N * dk
            frac = v - math.floor(v)
            dist = min(frac, 1 - frac)
            if 0 < dist < step:
                step = dist
        return float(step) if step >= _LATTICE_MIN_STEP else None

    def bound_slack(self) -> float:
        """Slack (in mistakes) granted to a floating-point solver bound before rounding."""
        return _BOUND_TOL * max(1.0, float(self.G.N))

    def round_bound(self, bound_scaled: float) -> float:
        """Smallest achievable objective (times N) that is >= ``bound_scaled`` minus slack."""
        if not math.isfinite(bound_scaled) or self.lattice_step() is None:
            return bound_scaled
        cf = c_fraction(self.c)
        N = int(self.G.N)
        b = Fraction(bound_scaled) - Fraction(self.bound_slack())
        best = None
        for k in range(self.K + 1):
            pen = cf * N * k
            m = max(0, math.ceil(b - pen))
            val = m + pen
            if m <= N and (best is None or val < best):
                best = val
        return float(best) if best is not None else bound_scaled
