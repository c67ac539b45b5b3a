"""Exact MIPs for falling (Program 2.9) and softly falling (Program 5.1) rule lists.

At most ``K`` rules.  Samples with identical capture patterns are aggregated into groups g
(p_g positives, q_g negatives, t_g = p_g + q_g).  Positions k = 0..K-1 hold rules, position K
is the else clause.

Variables of the HiGHS model::

        s[k,a] in {0,1}   antecedent a at position k (sum_a s[k,a] = u[k] <= 1, u[k] >= u[k+1],
                          sum_k s[k,a] <= 1)
        c[k,g] in [0,1]   group g is captured by position k: c[k,g] <= cov[k,g] := sum_{a covers g}
                          s[k,a]; sum_{j<=k} c[j,g] >= cov[k,g]; sum_{k<=K} c[k,g] = 1.  These force
                          c to the first covering position, so c is 0/1 whenever s is.
        alpha[k] in [0,1] proportion of position k:  sum_g t_g z[k,g] = sum_g p_g c[k,g] with
                          z[k,g] = alpha[k] * c[k,g] linearised exactly (c is 0/1):
                          z <= c, z <= alpha, z >= alpha - (1 - c), z >= 0.
        y[k] in {0,1}, l[k] >= 0: loss of position k, l >= sum q_g c - Q (1 - y),
                          l >= w sum p_g c - w P y  (min(w n+, n-) at the optimum).
        compatibility: sum_g c[k,g] >= u[k] (a used rule captures a group), sum_g c[K,g] >= 1.
    FRL  (falling): alpha[k] >= alpha[k+1] - (1 - u[k+1]); alpha[k] >= alpha[K] - (1 - u[k]).
    softFRL: running minimum m[k] <= alpha[k], m[k] <= m[k-1] and penalty pi[k] >= alpha[k] -
        m[k-1], pi >= 0 (no binaries: the objective pushes m up to min(alpha[k], m[k-1]); an unused
        position takes alpha[k] = m[k-1] at no cost).
    Objective: sum_k l[k] / n + C sum_k u[k] (+ C1 sum_k pi[k]).

CP-SAT model (integers): the same assignment structure with integer counts
P_k = sum_g p_g c[k,g], T_k = sum_g t_g c[k,g]; FRL's falling constraint is the exact product
form P_k T_{k+1} >= P_{k+1} T_k (AddMultiplicationEquality) and the objective is scaled to
integers exactly (w and C are read as exact decimals).  For softFRL the penalty pi[k] >= alpha_k
- alpha_j (j < k, both used) is a ratio of variable counts; CP-SAT holds pi'[k] = pi[k] * Q
(Q = ``penalty_scale``) as an integer with pi'[k] T_k T_j >= Q (P_k T_j - P_j T_k), i.e.
pi' = ceil(Q * difference).  Its objective therefore over-estimates the penalty by less than
C1 / Q per rule; the certificate states that: its lower bound is CP-SAT's bound minus
K * C1 / Q, and its objective is the exact objective of the returned list.

Every certificate's objective is recomputed exactly from the returned list with
:mod:`rulecert.models.falling`; statuses come from :mod:`rulecert.mipmodels.highs` /
:mod:`rulecert.mipmodels.cpsat`, and :func:`rulecert.certify` decides the
certificate.  The entry point is :func:`solve` (``backend="highs"`` or ``"cpsat"``).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .. import _compat
from ..certificate import Solution, Termination, certify
from ..limits import DEFAULT_SEED, Deadline, resolve_memory_limit_mb
from ..monitor import Monitor, catch_interrupt
from ..models.falling import (FallingRuleList, check_falling_problem, frl_objective, make_params,
                              soft_frl_objective)
from . import cpsat as _cpsat
from . import highs as _highs

ABS_TOL = 1e-7
"""Certificate tolerance of the HiGHS models (HiGHS works with 1e-9 feasibility tolerances)."""


def _setup(problem, program, w, C, C1, K):
    check_falling_problem(problem)
    params = make_params(program, w, C, C1)
    if K is None or int(K) != K or K < 0:
        raise ValueError(f"max_rules must be a non-negative integer, got {K!r}")
    K = min(int(K), problem.n_antecedents)
    patterns, _, pos, neg = problem.groups
    return (params.w, params.C, params.C1, K, patterns.astype(bool), np.asarray(pos, np.int64),
            np.asarray(neg, np.int64))


class _Builder:
    """Columns and rows, then a HiGHS model."""

    def __init__(self):
        self.lo, self.hi, self.cost, self.integer = [], [], [], []
        self.rows = []  # (lo, hi, idx list, val list)

    def var(self, lo, hi, cost=0.0, integer=False) -> int:
        self.lo.append(float(lo))
        self.hi.append(float(hi))
        self.cost.append(float(cost))
        self.integer.append(bool(integer))
        return len(self.lo) - 1

    def row(self, lo, hi, terms):
        idx = [int(i) for i, _ in terms]
        val = [float(v) for _, v in terms]
        self.rows.append((lo, hi, idx, val))

    def to_highs(self, h):
        import highspy
        inf = highspy.kHighsInf
        nc = len(self.lo)
        h.addVars(nc, np.array(self.lo), np.array(self.hi))
        h.changeColsCost(nc, np.arange(nc, dtype=np.int32), np.array(self.cost))
        ints = np.flatnonzero(self.integer).astype(np.int32)
        if ints.size:
            h.changeColsIntegrality(ints.size, ints,
                                    np.array([highspy.HighsVarType.kInteger] * ints.size))
        for lo, hi, idx, val in self.rows:
            h.addRow(-inf if lo == -math.inf else lo, inf if hi == math.inf else hi,
                     len(idx), np.array(idx, dtype=np.int32), np.array(val))


def _decode_prefix(x, s_idx, K, M):
    prefix = []
    for k in range(K):
        v = np.array([x[s_idx[k][a]] for a in range(M)])
        if v.size == 0 or v.max() < 0.5:
            break
        prefix.append(int(np.argmax(v)))
    return prefix


def _certificate(problem, program, w, C, C1, prefix, res, solver, lower_shift=0.0, abs_tol=ABS_TOL,
                 history=None):
    """Exact objective of the decoded list + the solver's mapped termination and bound.

    :func:`rulecert.certify` decides the status: a limit-stopped run whose bound meets the
    objective is OPTIMAL, a solver's OPTIMAL whose bound misses the exact objective ERROR.
    """
    if prefix is None:
        cert = certify(None, res.bound, res.termination, solver=solver,
                       solver_version=res.solver_version, abs_tol=abs_tol, nodes=res.nodes,
                       iterations=res.iterations, wall_time=res.wall_time,
                       warm_start_objective=res.warm_start_objective, message=res.message,
                       history=history)
        return None, cert
    if program == "frl":
        s = frl_objective(problem, prefix, w, C)
        if not s.falling:
            raise RuntimeError(f"{solver} returned a list that does not fall (tolerance issue)")
    else:
        s = soft_frl_objective(problem, prefix, w, C, C1)
    obj = s.objective
    bound = res.bound - lower_shift if math.isfinite(res.bound) else res.bound
    cert = certify(obj, min(bound, obj), res.termination, solver=solver, abs_tol=abs_tol,
                   solver_version=res.solver_version, nodes=res.nodes,
                   iterations=res.iterations, wall_time=res.wall_time,
                   warm_start_objective=res.warm_start_objective, message=res.message,
                   stats={"program": program, "solver_objective": res.objective},
                   history=history)
    kind = "falling" if program == "frl" else "softly_falling"
    return FallingRuleList.from_prefix(problem, prefix, w, kind), cert


# ---- HiGHS ---------------------------------------------------------------------------------
def _highs_assignment_rows(B, s_idx, c_idx, Pat, K, C):
    """Rule cost, at most one antecedent per position and position per antecedent, contiguity,
    and c[k,g] = "position k is the first to cover group g"."""
    G, M = Pat.shape
    # u[k] = sum_a s[k,a]: rule cost C on each s
    for k in range(K):
        for a in range(M):
            B.cost[s_idx[k][a]] = C
        B.row(-math.inf, 1, [(s_idx[k][a], 1) for a in range(M)])
        if k + 1 < K:  # contiguity u[k] >= u[k+1]
            B.row(0, math.inf, [(s_idx[k][a], 1) for a in range(M)] + [(s_idx[k + 1][a], -1) for a in range(M)])
    for a in range(M):
        if K:
            B.row(-math.inf, 1, [(s_idx[k][a], 1) for k in range(K)])
    for g in range(G):
        cov_a = np.flatnonzero(Pat[g])
        B.row(1, 1, [(c_idx[k][g], 1) for k in range(K + 1)])
        for k in range(K):
            # c[k,g] <= cov[k,g]
            B.row(-math.inf, 0, [(c_idx[k][g], 1)] + [(s_idx[k][a], -1) for a in cov_a])
            # sum_{j<=k} c[j,g] >= cov[k,g]
            B.row(0, math.inf, [(c_idx[j][g], 1) for j in range(k + 1)] + [(s_idx[k][a], -1) for a in cov_a])


def _highs_position_rows(B, s_idx, c_idx, al, z_idx, yv, lv, pos, neg, K, M, w):
    """Per position: z = alpha * c, the proportion, the loss and compatibility."""
    G = len(pos)
    NP, NN = int(pos.sum()), int(neg.sum())
    tot = pos + neg
    for k in range(K + 1):
        for g in range(G):
            B.row(-math.inf, 0, [(z_idx[k][g], 1), (c_idx[k][g], -1)])
            B.row(-math.inf, 0, [(z_idx[k][g], 1), (al[k], -1)])
            B.row(-1, math.inf, [(z_idx[k][g], 1), (al[k], -1), (c_idx[k][g], -1)])
        B.row(0, 0, [(z_idx[k][g], tot[g]) for g in range(G)] + [(c_idx[k][g], -pos[g]) for g in range(G)])
        # loss
        B.row(-NN, math.inf, [(lv[k], 1)] + [(c_idx[k][g], -neg[g]) for g in range(G)] + [(yv[k], -NN)])
        B.row(0, math.inf, [(lv[k], 1)] + [(c_idx[k][g], -w * pos[g]) for g in range(G)] + [(yv[k], w * NP)])
        # compatibility
        if k < K:
            B.row(0, math.inf, [(c_idx[k][g], 1) for g in range(G)] + [(s_idx[k][a], -1) for a in range(M)])
        else:
            B.row(1, math.inf, [(c_idx[K][g], 1) for g in range(G)])


def _highs_order_rows(B, program, s_idx, al, K, M, C1):
    """FRL: the proportions fall; softFRL: running minimum and penalty variables."""
    if program == "frl":
        for k in range(K):
            if k + 1 < K:  # alpha[k] - alpha[k+1] - u[k+1] >= -1
                B.row(-1, math.inf, [(al[k], 1), (al[k + 1], -1)] + [(s_idx[k + 1][a], -1) for a in range(M)])
            B.row(-1, math.inf, [(al[k], 1), (al[K], -1)] + [(s_idx[k][a], -1) for a in range(M)])
    else:
        mv = [B.var(0, 1) for k in range(K)]
        pv = [B.var(0, math.inf, C1) for k in range(K + 1)]
        for k in range(K):
            B.row(-math.inf, 0, [(mv[k], 1), (al[k], -1)])
            if k >= 1:
                B.row(-math.inf, 0, [(mv[k], 1), (mv[k - 1], -1)])
        for k in range(1, K + 1):
            B.row(0, math.inf, [(pv[k], 1), (al[k], -1), (mv[k - 1], 1)])


def _solve_highs(problem, program: str, w, C, C1=None, *, max_rules: int, time_limit=None,
                 node_limit=None, workers: int | None = 1, seed: int = DEFAULT_SEED,
                 monitor=None):
    """Exact MIP of Program 2.9 / 5.1 with at most ``max_rules`` rules on HiGHS."""
    w, C, C1, K, Pat, pos, neg = _setup(problem, program, w, C, C1, max_rules)
    G, M = Pat.shape
    if _too_big(monitor, G, M, K):
        return _memory_limited(monitor, G, M, K, f"{program}-mip-highs")
    n = problem.n_samples
    B = _Builder()
    s_idx = [[B.var(0, 1, 0.0, True) for a in range(M)] for k in range(K)]
    c_idx = [[B.var(0, 1) for g in range(G)] for k in range(K + 1)]
    al = [B.var(0, 1) for k in range(K + 1)]
    z_idx = [[B.var(0, 1) for g in range(G)] for k in range(K + 1)]
    yv = [B.var(0, 1, 0.0, True) for k in range(K + 1)]
    lv = [B.var(0, math.inf, 1.0 / n) for k in range(K + 1)]
    _highs_assignment_rows(B, s_idx, c_idx, Pat, K, C)
    _highs_position_rows(B, s_idx, c_idx, al, z_idx, yv, lv, pos, neg, K, M, w)
    _highs_order_rows(B, program, s_idx, al, K, M, C1)
    h = _highs.new_highs(workers=workers, seed=seed)
    h.setOptionValue("primal_feasibility_tolerance", 1e-9)
    h.setOptionValue("mip_feasibility_tolerance", 1e-9)
    B.to_highs(h)
    res = _highs.solve(h, is_mip=True, time_limit=time_limit, node_limit=node_limit,
                       mip_rel_gap=0.0, mip_abs_gap=1e-9, monitor=monitor,
                       sample_map=_sample_map(1.0, 0.0))
    prefix = None if res.x is None else _decode_prefix(res.x, s_idx, K, M)
    return _certificate(problem, program, w, C, C1, prefix, res, f"{program}-mip-highs",
                        history=_history(monitor))


# ---- CP-SAT --------------------------------------------------------------------------------
def _exact_fraction(v: float) -> Fraction:
    return Fraction(repr(float(v)))


def _cpsat_scale(program, w, C, C1, n, NP, NN, K, penalty_scale):
    """(w, C, C1 as exact fractions, Q, den, S): objective * S is an integer."""
    wf, Cf, C1f = _exact_fraction(w), _exact_fraction(C), _exact_fraction(C1)
    Q = int(penalty_scale) if program == "softfrl" else 1
    # objective * S is an integer: S = n * lcm(den(w), den(C), den(C1)) * Q
    den = math.lcm(wf.denominator, Cf.denominator, C1f.denominator)
    S = n * den * Q
    if S * max(1, NP + NN) * (1 + int(wf)) > 2**62 // max(1, K + 1):
        raise ValueError("the exact integer scaling of the objective overflows CP-SAT's 64-bit "
                         "integers; use the HiGHS model")
    return wf, Cf, C1f, Q, den, S


def _cpsat_assignment(m, Pat, K):
    """s[k][a], u[k] and c[k][g] with the assignment constraints of the HiGHS model."""
    G, M = Pat.shape
    s = [[m.NewBoolVar(f"s{k}_{a}") for a in range(M)] for k in range(K)]
    u = [sum(s[k]) for k in range(K)]
    c = [[m.NewBoolVar(f"c{k}_{g}") for g in range(G)] for k in range(K + 1)]
    for k in range(K):
        m.Add(sum(s[k]) <= 1)
        if k + 1 < K:
            m.Add(sum(s[k]) >= sum(s[k + 1]))
    for a in range(M):
        if K:
            m.Add(sum(s[k][a] for k in range(K)) <= 1)
    for g in range(G):
        cov_a = np.flatnonzero(Pat[g])
        m.Add(sum(c[k][g] for k in range(K + 1)) == 1)
        for k in range(K):
            cov = sum(s[k][a] for a in cov_a)
            m.Add(c[k][g] <= cov)
            m.Add(sum(c[j][g] for j in range(k + 1)) >= cov)
    return s, u, c


def _cpsat_counts_and_loss(m, c, u, pos, neg, K, wd, den):
    """Integer counts P_k, T_k, compatibility, and the loss l[k] = min(w P, N) * den."""
    G = len(pos)
    NP, NN = int(pos.sum()), int(neg.sum())
    tot = pos + neg
    P = [m.NewIntVar(0, NP, f"P{k}") for k in range(K + 1)]
    T = [m.NewIntVar(0, NP + NN, f"T{k}") for k in range(K + 1)]
    for k in range(K + 1):
        m.Add(P[k] == sum(int(pos[g]) * c[k][g] for g in range(G)))
        m.Add(T[k] == sum(int(tot[g]) * c[k][g] for g in range(G)))
        if k < K:
            m.Add(sum(c[k]) >= u[k])
        else:
            m.Add(sum(c[K]) >= 1)
    lv = []
    for k in range(K + 1):
        y = m.NewBoolVar(f"y{k}")
        Nk = T[k] - P[k]
        l = m.NewIntVar(0, max(NN * den, wd * NP), f"l{k}")
        m.Add(l >= Nk * den - NN * den * (1 - y))
        m.Add(l >= wd * P[k] - wd * NP * y)
        lv.append(l)
    return P, T, lv


def _cpsat_order(m, program, s, P, T, K, big, Q, c1q):
    """FRL: P_k T_j >= P_j T_k; softFRL: the scaled penalties (returned as objective terms)."""
    def prod(x, yv, name):
        v = m.NewIntVar(0, big, name)
        m.AddMultiplicationEquality(v, [x, yv])
        return v

    used = [None] * (K + 1)
    for k in range(K):
        used[k] = m.NewBoolVar(f"used{k}")
        m.Add(sum(s[k]) == 1).OnlyEnforceIf(used[k])
        m.Add(sum(s[k]) == 0).OnlyEnforceIf(used[k].Not())
    terms = []
    if program == "frl":
        for k in range(K):
            nxt = [k + 1] if k + 1 < K else []
            for j in nxt + [K]:
                # alpha_k >= alpha_j  <=>  P_k T_j >= P_j T_k   (when j is used; else always)
                a1 = prod(P[k], T[j], f"pt{k}_{j}")
                a2 = prod(P[j], T[k], f"tp{k}_{j}")
                cond = used[j] if j < K else used[k]
                m.Add(a1 >= a2).OnlyEnforceIf(cond)
    else:
        # pi'[k] T_k T_j >= Q (P_k T_j - P_j T_k) for used j < k (k = K: the else clause)
        for k in range(1, K + 1):
            pik = m.NewIntVar(0, Q, f"pi{k}")
            terms.append(c1q * pik)
            for j in range(k):
                a1 = prod(P[k], T[j], f"pt{k}_{j}")
                a2 = prod(P[j], T[k], f"tp{k}_{j}")
                tt = prod(T[k], T[j], f"tt{k}_{j}")
                lhs = m.NewIntVar(0, Q * big, f"lhs{k}_{j}")
                m.AddMultiplicationEquality(lhs, [pik, tt])
                conds = [used[j]] + ([used[k]] if k < K else [])
                m.Add(lhs >= Q * (a1 - a2)).OnlyEnforceIf(conds)
    return terms


def _solve_cpsat(problem, program: str, w, C, C1=None, *, max_rules: int, time_limit=None,
                 workers: int = 1, seed: int = DEFAULT_SEED, deterministic_time=None,
                 penalty_scale: int = 10**6, monitor=None):
    """Exact (FRL) / scaled (softFRL, see module doc) CP-SAT model with at most ``max_rules`` rules."""
    w, C, C1, K, Pat, pos, neg = _setup(problem, program, w, C, C1, max_rules)
    G, M = Pat.shape
    if _too_big(monitor, G, M, K):
        return _memory_limited(monitor, G, M, K, f"{program}-cpsat")
    n = problem.n_samples
    NP, NN = int(pos.sum()), int(neg.sum())
    wf, Cf, C1f, Q, den, S = _cpsat_scale(program, w, C, C1, n, NP, NN, K, penalty_scale)
    m = _cpsat.new_model()
    s, u, c = _cpsat_assignment(m, Pat, K)
    # loss l[k] = min(w P, N) scaled by den (w*den integer)
    P, T, lv = _cpsat_counts_and_loss(m, c, u, pos, neg, K, int(wf * den), den)
    obj_terms = [Q * l for l in lv] + [int(Cf * n * den * Q) * u[k] for k in range(K)]
    # c1q: objective units per pi' unit, C1 * n * den * Q / Q
    obj_terms += _cpsat_order(m, program, s, P, T, K, (NP + NN) ** 2, Q, int(C1f * n * den))
    m.Minimize(sum(obj_terms))
    flat = [v for row in s for v in row]
    shift = 0.0 if program == "frl" else K * float(C1f) / Q
    res = _cpsat.solve(m, flat, time_limit=time_limit, workers=workers, seed=seed,
                       deterministic_time=deterministic_time, objective_scale=float(S),
                       monitor=monitor, sample_map=_sample_map(float(S), shift))
    prefix = None
    if res.x is not None:
        xs = np.asarray(res.x).reshape(K, M) if K else np.zeros((0, M))
        prefix = []
        for k in range(K):
            if xs[k].max() < 0.5:
                break
            prefix.append(int(np.argmax(xs[k])))
    tol = 1e-9 if program == "frl" else max(1e-9, 2 * shift)
    return _certificate(problem, program, w, C, C1, prefix, res, f"{program}-cpsat",
                        lower_shift=shift, abs_tol=tol, history=_history(monitor))


def solve(problem, program: str, w, C, C1=None, *, max_rules: int, backend: str = "highs",
          callback=None, memory_limit_mb="auto", history_every: float = 1.0, **kwargs) -> Solution:
    """Exact FRL / softFRL MIP with at most ``max_rules`` rules.

    Returns a :class:`~rulecert.certificate.Solution` (unpacks as ``(FallingRuleList,
    Certificate)``; the list is None when no solution is held).
    ``backend="highs"`` (options ``time_limit``, ``node_limit``, ``workers``, ``seed``) or
    ``"cpsat"`` (options ``time_limit``, ``workers``, ``seed``, ``deterministic_time``,
    ``penalty_scale``).  ``callback`` receives the progress info dict of
    :mod:`rulecert.monitor` at every history sample (returning True stops: ``INTERRUPTED``);
    ``memory_limit_mb`` ("auto": the default cap, None: none) is checked against the model's
    estimated size before it is built and while it is solved (``MEMORY_LIMIT``);
    ``history_every`` is the seconds between history samples.  Ctrl-C stops the solve
    cleanly (``INTERRUPTED`` with the solver's incumbent and bound).
    """
    if backend not in ("highs", "cpsat"):
        raise ValueError(f"backend must be 'highs' or 'cpsat', got {backend!r}")
    monitor = Monitor(f"{program}-mip ({backend})", deadline=Deadline(None),
                      memory_limit_mb=resolve_memory_limit_mb(memory_limit_mb),
                      callback=callback, history_every=history_every)
    run = _solve_highs if backend == "highs" else _solve_cpsat
    with catch_interrupt():
        return Solution(*run(problem, program, w, C, C1, max_rules=max_rules, monitor=monitor,
                             **kwargs))


BYTES_PER_ENTRY = 400
"""Memory per (position, group, antecedent) entry of the model while it is built and solved
(a generous estimate for the memory-cap check before building)."""


def _too_big(monitor, G, M, K) -> bool:
    return monitor is not None and monitor.would_exceed_memory(
        BYTES_PER_ENTRY * (K + 1) * (G * (M + 6) + M))


def _memory_limited(monitor, G, M, K, solver):
    mb = BYTES_PER_ENTRY * (K + 1) * (G * (M + 6) + M) / 2**20
    cert = certify(None, -math.inf, Termination.MEMORY_LIMIT, solver=solver,
                   message=f"memory limit: the model (about {mb:,.0f} MB for {G} groups, {M} "
                           f"antecedents, {K} rules) would pass memory_limit_mb="
                           f"{monitor.memory_limit_mb:g}; not built", history=monitor.history)
    return None, cert


def _sample_map(scale: float, shift: float):
    """Raw solver objective / bound -> the history's scale (``shift``: softFRL's CP-SAT bound
    correction)."""
    def sample(obj, bound):
        o = None if obj is None or not math.isfinite(obj) else obj / scale
        b = None if bound is None or not math.isfinite(bound) else bound / scale - shift
        return o, b if o is None or b is None else min(b, o)
    return sample


def _history(monitor):
    return [] if monitor is None else monitor.history

__all__ = ["solve", "ABS_TOL"]

__getattr__ = _compat.renamed(__name__)
