"""Pricing for Boolean rule-set column generation: find clauses of negative reduced cost.

Reduced cost of a clause ``k`` (a conjunction of ``|k|`` binary features, 1 <= |k| <= D)
given the master duals (``mu_g`` for the cover rows, ``lambda`` for the complexity row),
aggregated over groups ``g`` of identical samples:

    rc(k) = const + lit * |k| + sum_{g covered by k} v_g,
    const = lambda + clause_penalty,  lit = lambda + literal_penalty,
    v_g   = (negative mass of g) - mu_g.

The pricers, all on a :class:`PricingInstance`:

* :func:`single_literal_bound` -- a cheap valid lower bound on ``min_k rc(k)``: every clause
  covers a subset of what any one of its literals covers, so
  ``rc(k) >= const + lit + min_j sum_{g covered by j} min(v_g, 0)``.
* :func:`heuristic_pricing` -- the paper's greedy extension (Sec. 3): all one-literal
  clauses are scored by their reduced cost; level by level (up to ``max_length`` literals)
  the clauses are extended in increasing score order by one more literal, until a cap on
  the generated clauses.  A clause is only extended when the best reduced cost any of its
  extensions could reach, ``const + lit * (|k|+1) + sum_{g in k} min(v_g, 0)``, is below the
  threshold.  Because every clause is either generated or a superset of a generated clause
  that was not extended, ``min(rc of generated clauses, extension bound of clauses not
  extended)`` is a *valid* lower bound on the whole pricing problem; when nothing was cut
  by the cap or the time limit and ``max_length >= D`` the search is exact.
* :func:`.beam.beam_pricing` (in :mod:`.beam`) -- the beam search of IBM AIX360's
  ``BooleanRuleCG`` (width ``B``, depth up to ``max_length``): at each level only the ``B``
  best clauses by ``0.5 * rc + 0.5 * (extension bound)`` (among those whose extension bound
  is below the threshold) are extended by every other literal; optionally re-run with the
  width doubled while it finds nothing.  Cheap and good at long clauses over many features,
  but a heuristic: its bound is ``-inf`` (it proves nothing).
* :func:`bnb_pricing` -- an exact depth-first branch-and-bound over clauses on packed bits
  (:mod:`.bnb`, compiled with numba); also used to enumerate clauses for gap closing.
* :func:`cpsat_pricing` -- the paper's pricing IP (6)-(10) in CP-SAT, aggregated over
  groups, collecting every improving solution through a solution callback.

Integer scaling in CP-SAT.  CP-SAT needs integer objective coefficients.  Each coefficient
``c`` is multiplied by ``s`` (so the largest is about 1e6) and rounded *down*: for binary
variables ``floor(s c) x <= s c x``, so the integer objective never exceeds ``s`` times the
true one at any point, and CP-SAT's proven bound divided by ``s`` is a valid lower bound of
the true minimum (it may be lower by at most (number of terms)/s).  Clauses returned by
CP-SAT are re-evaluated exactly in floating point and kept only when their exact reduced
cost is negative.
"""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from .. import cpsat as cx
from ...certificate import Termination

try:
    from ortools.sat.python import cp_model
except Exception:  # pragma: no cover
    cp_model = None


@dataclasses.dataclass
class PricingInstance:
    """One pricing problem.

    ``X`` (G x d, bool) are the binary features of the groups, ``v`` their coefficients
    (already multiplied by ``data_scale`` for sampled instances); ``features[j]`` is the
    original column of local column ``j``.  ``exact`` says whether the instance is the
    full problem (only then are its lower bounds valid for the master).
    """

    X: np.ndarray
    v: np.ndarray
    const: float
    lit: float
    max_length: int
    features: np.ndarray
    exact: bool = True

    def __post_init__(self):
        self.X = np.ascontiguousarray(self.X, dtype=bool)
        self.v = np.asarray(self.v, dtype=float)
        self._Xf = self._XT = None

    @property
    def Xf(self) -> np.ndarray:
        if self._Xf is None:
            self._Xf = self.X.astype(np.float64)
        return self._Xf

    @property
    def XT(self) -> np.ndarray:
        """``X.T`` contiguous (literal ``j``'s coverage is row ``j``), shared by the pricers
        that run on this instance."""
        if self._XT is None:
            self._XT = np.ascontiguousarray(self.X.T)
        return self._XT

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def fixed(self, length) -> float:
        return self.const + self.lit * length

    def coverage(self, clause) -> np.ndarray:
        cov = np.ones(self.X.shape[0], dtype=bool)
        for j in clause:
            cov &= self.X[:, j]
        return cov

    def reduced_cost(self, clause) -> float:
        return self.fixed(len(clause)) + float(self.v[self.coverage(clause)].sum())


@dataclasses.dataclass
class PricingResult:
    clauses: list[tuple[int, ...]]
    """Clauses (local column indices) with reduced cost below the threshold, best first."""
    reduced_costs: list[float]
    bound: float
    """A lower bound on the minimum reduced cost over all clauses of length 1..D of this
    instance (valid for the master only if the instance is exact); -inf if none."""
    complete: bool = False
    """The search was exhaustive (the bound is the exact minimum, up to the threshold)."""
    method: str = ""
    termination: Termination | None = None
    wall_time: float = 0.0
    generated: int = 0
    message: str = ""
    best_clause: tuple[int, ...] | None = None
    """The best clause seen, negative or not (used as a CP-SAT hint)."""


# ---- instance construction ----------------------------------------------------------------
def make_instance(X: np.ndarray, v: np.ndarray, const: float, lit: float, max_length: int, *,
                  rng: np.random.Generator | None = None, sample_rows: int | None = None,
                  max_nonzeros: int | None = None) -> PricingInstance:
    """The full pricing instance, or the paper's randomized approximation (Sec. 3): groups
    are sampled uniformly to about ``sample_rows`` (their coefficients divided by the
    sampling probability, so the data term stays unbiased) and, if the formulation still has
    more than ``max_nonzeros`` non-zeros (zero entries of the sampled feature matrix), the
    candidate features are sampled too."""
    G, d = X.shape
    rows = np.arange(G)
    feats = np.arange(d)
    exact = True
    vv = v
    if rng is not None and sample_rows is not None and G > sample_rows:
        p = sample_rows / G
        keep = rng.random(G) < p
        if not keep.any():
            keep[rng.integers(G)] = True
        rows = np.flatnonzero(keep)
        vv = v[rows] / p
        exact = False
    Xs = X[rows]
    if rng is not None and max_nonzeros is not None:
        nnz = int((~Xs).sum())
        if nnz > max_nonzeros and d > max_length:
            q = max_nonzeros / nnz
            keepf = rng.random(d) < q
            if keepf.sum() < max_length:
                keepf[rng.choice(d, size=max_length, replace=False)] = True
            feats = np.flatnonzero(keepf)
            Xs = Xs[:, feats]
            exact = False
    return PricingInstance(Xs, vv, const, lit, int(max_length), feats, exact)


# ---- cheap bound ------------------------------------------------------------------------
def single_literal_bound(inst: PricingInstance) -> float:
    """``const + lit + min_j sum_{g covered by j} min(v_g, 0)``: a valid lower bound on the
    reduced cost of every clause (each covers a subset of any one literal's coverage and
    has at least one literal)."""
    if inst.n_features == 0:
        return math.inf
    vneg = np.minimum(inst.v, 0.0)
    return inst.fixed(1) + float((vneg @ inst.Xf).min())


# ---- heuristic / enumeration ---------------------------------------------------------------
def heuristic_pricing(inst: PricingInstance, *, threshold: float = 0.0, max_length: int = 5,
                      max_generated: int = 5000, max_return: int | None = 50,
                      stop_when_found: bool = True, deadline: float | None = None,
                      method: str = "heuristic", max_found: int | None = None) -> PricingResult:
    """Greedy extension of clauses in increasing reduced-cost order (see module doc).

    Returns the clauses with reduced cost ``< threshold`` (best first, at most
    ``max_return``; ``None`` = all) and a valid lower bound on the instance's minimum.
    ``stop_when_found``: stop after the first level that produced improving clauses (the
    paper's "return the best clauses before proceeding to the next value of l").
    ``max_generated`` caps the distinct clauses generated (checked before each clause is
    extended, as ``max_found`` caps those below the threshold); ``deadline`` is a
    ``time.perf_counter()`` value, checked between batches of clauses.

    The clauses of a level are extended in batches, in increasing reduced-cost order: one
    matrix product gives the reduced costs and extension bounds of all the children of a
    batch, and children are deduplicated on integer keys of their sorted literals.
    """
    t0 = time.perf_counter()
    D = inst.max_length
    depth = min(int(max_length), D)
    X, Xf, v = inst.X, inst.Xf, inst.v
    vneg = np.minimum(v, 0.0)
    d = inst.n_features
    if d == 0:
        return PricingResult([], [], math.inf, True, method, Termination.OPTIMAL, 0.0)
    XT = inst.XT
    VX = np.stack((v, vneg))                 # one product gives rc and extension bound sums
    found_cl: list[np.ndarray] = []          # clauses below the threshold, in generation order
    found_rc: list[np.ndarray] = []
    n_found = 0
    rc1 = inst.fixed(1) + v @ Xf
    lb1 = (inst.fixed(2) + vneg @ Xf) if D >= 2 else np.full(d, math.inf)
    bound = float(rc1.min())       # min over generated rc and over non-extended extension bounds
    f1 = np.flatnonzero(rc1 < threshold)
    found_cl.append(f1[:, None])
    found_rc.append(rc1[f1])
    n_found += f1.size
    if (lb1 >= threshold).any():
        bound = min(bound, float(lb1[lb1 >= threshold].min()))
    prom = np.flatnonzero(lb1 < threshold)
    nodes, node_rc, node_lb = prom[:, None], rc1[prom], lb1[prom]
    j0 = int(np.argmin(rc1))
    best = (float(rc1[j0]), (j0,))  # best clause generated (a hint for CP-SAT)
    generated = 0
    level = 1
    complete = timed_out = False
    batch = int(np.clip(min(2 ** 16 // d, 2 ** 21 // max(X.shape[0], 1)), 8, 256))
    while True:
        if not nodes.shape[0]:
            complete = True       # every promising clause was extended: the search is exact
            break
        order = np.argsort(node_rc, kind="stable")
        nodes, node_rc, node_lb = nodes[order], node_rc[order], node_lb[order]
        if level >= depth or (stop_when_found and n_found):
            bound = min(bound, float(node_lb.min()))   # not extended: their extension bounds
            break
        nxt_cl, nxt_rc, nxt_lb = [], [], []
        seen: set = set()
        stop = None               # position in the level where the search was cut
        rc_fixed, lb_fixed = inst.fixed(level + 1), inst.fixed(level + 2)
        deeper = level + 1 < D
        for s in range(0, nodes.shape[0], batch):
            if deadline is not None and time.perf_counter() > deadline:
                stop, timed_out = s, generated < max_generated
                break
            L = nodes[s:s + batch]
            m = L.shape[0]
            cov = XT[L[:, 0]]
            for c in range(1, level):
                cov = cov & XT[L[:, c]]
            S = (VX[:, None, :] * cov).reshape(2 * m, -1) @ Xf      # (2m, d)
            rcs = rc_fixed + S[:m]
            lbs = lb_fixed + S[m:] if deeper else np.full((m, d), math.inf)
            mask = np.ones((m, d), dtype=bool)
            mask[np.arange(m)[:, None], L] = False
            rmask = np.where(mask, rcs, math.inf)
            node_min = rmask.min(axis=1)
            node_pruned = np.where(mask & (lbs >= threshold), lbs, math.inf).min(axis=1)
            pi, ji = np.nonzero(mask & ((rcs < threshold) | (lbs < threshold)))
            children = np.sort(np.concatenate((L[pi], ji[:, None]), axis=1), axis=1)
            keys = _clause_keys(children, d)
            _, first = np.unique(keys, return_index=True)
            first.sort()
            if seen:
                first = first[[k not in seen for k in keys[first].tolist()]]
            crc, clb = rcs[pi[first], ji[first]], lbs[pi[first], ji[first]]
            owner = pi[first]
            # the caps are checked before each clause is extended, as one at a time would
            over = generated + _counts_before(owner, m) >= max_generated
            if max_found is not None:
                over |= n_found + _counts_before(owner[crc < threshold], m) > max_found
            k = int(np.argmax(over)) if over.any() else m
            if k < m:
                stop, timed_out = s + k, False
                acc = owner < k
                first, owner, crc, clb = first[acc], owner[acc], crc[acc], clb[acc]
            if k:
                bound = min(bound, float(node_min[:k].min()), float(node_pruned[:k].min()))
                p = int(np.argmin(node_min[:k]))
                if node_min[p] < best[0]:
                    jm = int(np.argmin(rmask[p]))
                    best = (float(node_min[p]), tuple(sorted(L[p].tolist() + [jm])))
            ch = children[first]
            seen.update(keys[first].tolist())
            generated += first.size
            f = crc < threshold
            found_cl.append(ch[f])
            found_rc.append(crc[f])
            n_found += int(f.sum())
            e = clb < threshold
            nxt_cl.append(ch[e])
            nxt_rc.append(crc[e])
            nxt_lb.append(clb[e])
            if stop is not None:
                break
        if stop is not None:
            bound = min(bound, float(node_lb[stop:].min()))
            if nxt_lb and sum(a.size for a in nxt_lb):   # generated but never extended
                bound = min(bound, float(np.concatenate(nxt_lb).min()))
            break
        nodes = np.concatenate(nxt_cl) if nxt_cl else np.empty((0, level + 1), dtype=np.intp)
        node_rc = np.concatenate(nxt_rc) if nxt_rc else np.empty(0)
        node_lb = np.concatenate(nxt_lb) if nxt_lb else np.empty(0)
        level += 1
    rcs_all = np.concatenate(found_rc)
    order = np.argsort(rcs_all, kind="stable")
    if max_return is not None:
        order = order[:max_return]
    ends = np.cumsum([a.shape[0] for a in found_cl])     # the pools hold different lengths
    clauses = []
    for i in order.tolist():
        b = int(np.searchsorted(ends, i, side="right"))
        clauses.append(tuple(found_cl[b][i - (ends[b - 1] if b else 0)].tolist()))
    if complete:
        term = Termination.OPTIMAL
    elif timed_out:
        term = Termination.TIME_LIMIT
    else:
        term = Termination.ITERATION_LIMIT
    return PricingResult(clauses, rcs_all[order].tolist(), bound, complete, method,
                         term, time.perf_counter() - t0, generated, best_clause=best[1])


def _counts_before(owner: np.ndarray, m: int) -> np.ndarray:
    """For each of ``m`` nodes, how many entries of ``owner`` name an earlier node."""
    return np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=m))[:-1]))


def _clause_keys(C: np.ndarray, d: int) -> np.ndarray:
    """Keys of clauses given as rows of sorted literals (< ``d``), equal iff the clauses are:
    the rows read as numbers in base ``d`` when that fits in 62 bits, else the rows' bytes."""
    k = C.shape[1]
    if k * math.log2(max(d, 2)) < 62:
        return C.astype(np.int64) @ (np.int64(d) ** np.arange(k, dtype=np.int64))
    return np.ascontiguousarray(C, dtype=np.int64).view(np.dtype((np.void, 8 * k))).ravel()


# ---- CP-SAT pricing IP ------------------------------------------------------------------
class _Collector(cp_model.CpSolverSolutionCallback if cp_model is not None else object):
    def __init__(self, z):
        super().__init__()
        self._z = z
        self.solutions: list[tuple[int, ...]] = []

    def on_solution_callback(self):
        self.solutions.append(tuple(j for j, var in enumerate(self._z) if self.Value(var)))


def cpsat_pricing(inst: PricingInstance, *, time_limit: float | None = None,
                  deterministic_time: float | None = None, workers: int = 1, seed: int = 0,
                  hint: tuple[int, ...] | None = None, threshold: float = 0.0,
                  max_return: int | None = 50, scale_target: float = 1e6) -> PricingResult:
    """The pricing IP (6)-(10), aggregated over groups, in CP-SAT.

    ``z_j`` selects feature ``j``; ``delta_g`` says the clause covers group ``g`` (only
    groups with ``v_g != 0``).  For ``v_g < 0``: ``delta_g -> not z_j`` for every zero
    feature ``j`` of ``g`` (7); for ``v_g > 0``: ``delta_g or z_j (j zero in g)`` (8);
    ``1 <= sum z <= D`` (9).  Every improving solution is collected by a callback and
    re-evaluated exactly; the bound uses conservative integer rounding (module doc).
    """
    t0 = time.perf_counter()
    X, v = inst.X, inst.v
    G, d = X.shape
    if d == 0:
        return PricingResult([], [], math.inf, True, "cp-sat", Termination.OPTIMAL, 0.0)
    D = min(inst.max_length, d)
    active = np.flatnonzero(v != 0.0)
    mx = max(float(np.abs(v).max(initial=0.0)), abs(inst.lit), abs(inst.const), 1e-12)
    s = scale_target / mx
    model = cx.new_model()
    z = [model.NewBoolVar(f"z{j}") for j in range(d)]
    model.Add(sum(z) <= D)
    model.AddBoolOr(z)
    deltas = []
    coefs = []
    for g in active:
        dg = model.NewBoolVar(f"d{g}")
        zeros = np.flatnonzero(~X[g])
        if v[g] < 0:
            if zeros.size:
                model.AddBoolAnd([z[j].Not() for j in zeros]).OnlyEnforceIf(dg)
        else:
            model.AddBoolOr([dg] + [z[j] for j in zeros])
        deltas.append(dg)
        coefs.append(math.floor(s * v[g]))
    lit_c = math.floor(s * inst.lit)
    const_c = math.floor(s * inst.const)
    model.Minimize(sum(lit_c * zj for zj in z) + sum(c * dg for c, dg in zip(coefs, deltas))
                   + const_c)
    variables = z + deltas
    hint_vec = None
    if hint is not None and len(hint):
        zh = np.zeros(d, dtype=int)
        zh[list(hint)] = 1
        cov = inst.coverage(hint)
        hint_vec = np.concatenate([zh, cov[active].astype(int)])
    cb = _Collector(z)
    res = cx.solve(model, variables, time_limit=time_limit, workers=workers, seed=seed,
                   deterministic_time=deterministic_time, hint=hint_vec, callback=cb,
                   objective_scale=s)
    sols = set(cb.solutions)
    if res.x is not None:
        sols.add(tuple(j for j in range(d) if res.x[j]))
    scored = []
    for cl in sols:
        if not cl:
            continue
        rc = inst.reduced_cost(cl)
        if rc < threshold:
            scored.append((rc, cl))
    scored.sort()
    if max_return is not None:
        scored = scored[:max_return]
    bound = res.bound
    if scored:
        bound = min(bound, scored[0][0])
    complete = res.termination is Termination.OPTIMAL
    return PricingResult([c for _, c in scored], [r for r, _ in scored], float(bound), complete,
                         "cp-sat", res.termination, time.perf_counter() - t0, len(sols),
                         res.message)


# ---- exact combinatorial search --------------------------------------------------------------
def bnb_pricing(inst: PricingInstance, *, threshold: float = 0.0, max_return: int = 50,
                node_limit: int | None = None, deadline: float | None = None,
                found_node_limit: int | None = None) -> PricingResult:
    """Top-``max_return`` clauses below ``threshold`` by the depth-first branch-and-bound of
    :mod:`.bnb`; exact (``complete``) unless the node limit or the deadline stops it."""
    from .bnb import branch_and_bound
    r = branch_and_bound(inst.X, inst.v, inst.const, inst.lit, inst.max_length, K=max_return,
                         upper=threshold, tighten=True, node_limit=node_limit, deadline=deadline,
                         found_node_limit=found_node_limit)
    if r.complete:
        term = Termination.OPTIMAL
    elif deadline is not None and time.perf_counter() >= deadline:
        term = Termination.TIME_LIMIT
    else:
        term = Termination.NODE_LIMIT
    # the search bounds min(threshold, min rc); with threshold <= 0 that is all we need
    return PricingResult(list(r.clauses), list(r.reduced_costs), r.bound, r.complete, "bnb", term,
                         r.wall_time, r.nodes, best_clause=r.clauses[0] if r.clauses else None)
