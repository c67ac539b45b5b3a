"""The pricing IP (6)-(10) of Dash, Gunluk & Wei in CP-SAT (the pricing chain's last, exact resort).

Integer scaling in CP-SAT.  CP-SAT needs integer objective coefficients.  Each coefficient
``c`` is multiplied by ``s`` (so the largest is about 1e6) and rounded *down*: for binary
variables ``floor(s c) x <= s c x``, so the integer objective never exceeds ``s`` times the
true one at any point, and CP-SAT's proven bound divided by ``s`` is a valid lower bound of
the true minimum (it may be lower by at most (number of terms)/s).  Clauses returned by
CP-SAT are re-evaluated exactly in floating point and kept only when their exact reduced
cost is negative.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ... import cpsat as cx
from ....certificate import Termination
from .instance import PricingInstance, PricingResult

def cpsat_pricing(inst: PricingInstance, *, time_limit: float | None = None,
                  deterministic_time: float | None = None, workers: int = 1, seed: int = 0,
                  hint: tuple[int, ...] | None = None, threshold: float = 0.0,
                  max_return: int | None = 50, scale_target: float = 1e6,
                  monitor=None) -> PricingResult:
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
    found: list[tuple[int, ...]] = []
    res = cx.solve(model, variables, time_limit=time_limit, workers=workers, seed=seed,
                   deterministic_time=deterministic_time, hint=hint_vec,
                   on_solution=lambda cb: found.append(
                       tuple(j for j, var in enumerate(z) if cb.Value(var))),
                   objective_scale=s, monitor=monitor)
    sols = set(found)
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
