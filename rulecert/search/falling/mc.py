"""Algorithm FRL and Algorithm softFRL: the Monte-Carlo searches of Chen & Rudin (2018).

Each iteration builds one list from the empty prefix.  While the prefix is not closed
(FRL: inequality (9) fails; softFRL: L~*(e) < L~(e-bar)), it stops with probability
``prob_terminate``; otherwise it collects the candidate antecedents

* FRL: the new rule captures >= 1 sample and leaves >= 1, alpha <= alpha_last,
  alpha > 1/(1+w) (Corollary 4.5), the new prefix is feasible (Proposition 4.2 as stated:
  the *remaining* proportion must not exceed the *new* rule's proportion), and its bound
  L*(e') (Theorem 4.6) is below the best objective so far;
* softFRL: the new rule captures >= 1 and leaves >= 1 sample, and L~*(e') (Theorem 5.2) is
  below the best objective so far;

and draws one with probability proportional to the curiosity function (eq. 11 for FRL,
eq. 12 for softFRL).  The list is closed with its else clause and scored; the best list is
kept.  Random numbers come from a seeded ``numpy.random.Generator`` (no global state); the
inner loop is compiled with numba (a popcount over the class-split packed captures).
"""
from __future__ import annotations

import dataclasses
import math

import numba
import numpy as np

from ...certificate import Certificate, Termination, certify
from ...limits import (AUTO, DEFAULT_SEED, Deadline, check_count_limit, check_time_limit,
                       resolve_memory_limit_mb)
from ...monitor import Monitor, catch_interrupt, is_abort, stop_check
from ...models.falling import make_params
from .bounds import FallingData, check_incumbent, exact_objective, model_of, root_tail, solver_name
from .bounds import popcount64 as _popcount


@numba.njit(cache=True)
def _count(cap, a, rem):
    s = 0
    for k in range(rem.shape[0]):
        s += _popcount(cap[a, k] & rem[k])
    return s


@numba.njit(cache=True)
def _soft_tail(rp, rn, amin, n, w, C, C1):
    """(ext, stop) of Theorem 5.2 (scalar version of :func:`.bounds.soft_tail`)."""
    rr = rp + rn
    at = rp / rr if rr > 0 else 0.0
    pe = C1 * max(at - amin, 0.0)
    T3 = w * rp / n + pe
    T4 = rn / n + pe
    stop = min(T3, T4)
    if rp > 0:
        lossT1 = (1.0 / amin - 1.0) * rp / n if amin > 0 else np.inf
    else:
        lossT1 = 0.0
    T1 = lossT1 + C + pe + (w * rp / n if at >= amin else 0.0)
    tau = 1.0 / (1.0 + w)
    zeta = max(max(amin, at), tau)
    gz = (1.0 / zeta - 1.0) * rp / n + C + C1 * (zeta - amin)
    g1 = C + C1 * (1.0 - amin)
    infg = min(gz, g1)
    if C1 > 0:
        bstar = math.sqrt(rp / (C1 * n))
        if bstar > zeta and bstar <= 1.0:
            infg = (1.0 / bstar - 1.0) * rp / n + C + C1 * (bstar - amin)
    return min(T1, infg), stop


@numba.njit(cache=True)
def _draw(cand, f, nc, u):
    fsum = 0.0
    for i in range(nc):
        fsum += f[i]
    if not fsum > 0.0:
        j = int(u * nc)
        return cand[min(j, nc - 1)]
    r = u * fsum
    acc = 0.0
    for i in range(nc):
        acc += f[i]
        if r < acc and f[i] > 0.0:
            return cand[i]
    for i in range(nc - 1, -1, -1):  # round-off: the last positive weight
        if f[i] > 0.0:
            return cand[i]
    return cand[nc - 1]


@numba.njit(cache=True)
def _popcount_all(rem):
    s = 0
    for k in range(rem.shape[0]):
        s += _popcount(rem[k])
    return s


@numba.njit(cache=True)
def _closed(soft, RP, RN, pl, ql, amin, n, w, C, C1):
    """Is the prefix closed (ending it now is optimal among its completions)?"""
    if soft:
        ext, stop = _soft_tail(RP, RN, amin, n, w, C, C1)
        return not stop > ext   # L~*(e) == L~(e-bar)
    stop = min(w * RP, RN) / n
    ext = (ql / pl) * RP / n + C
    return ext >= stop          # inequality (9)


@numba.njit(cache=True)
def _candidates(soft, capP, capN, remP, remN, RP, RN, pl, ql, amin, cost, n, w, C, C1, lam,
                L_best, cand, f):
    """Fill ``cand`` / ``f`` with the candidate antecedents and their curiosity; return their number."""
    nc = 0
    for a in range(capP.shape[0]):
        cp = _count(capP, a, remP)
        cn = _count(capN, a, remN)
        if cp + cn == 0:
            continue
        rp = RP - cp
        rn = RN - cn
        if rp + rn == 0:
            continue
        alpha = cp / (cp + cn)
        if soft:
            c_cost = cost + min(w * cp, cn) / n + C + C1 * max(alpha - amin, 0.0)
            m2 = min(amin, alpha)
            ext2, stop2 = _soft_tail(rp, rn, m2, n, w, C, C1)
            bound = c_cost + min(ext2, stop2)
            if bound < L_best:
                cand[nc] = a
                f[nc] = lam * max(0.0, min(alpha, 101.0 * amin - 100.0 * alpha)) \
                    + (1.0 - lam) * (cp / RP if RP > 0 else 0.0)
                nc += 1
        else:
            if not (w * cp > cn):
                continue                      # Corollary 4.5
            if cp * (pl + ql) > pl * (cp + cn):
                continue                      # falling: alpha <= alpha_last
            if rp * (cp + cn) > cp * (rp + rn):
                continue                      # Proposition 4.2
            c_cost = cost + cn / n + C
            stop2 = min(w * rp, rn) / n
            ext2 = (cn / cp) * rp / n + C
            bound = c_cost + min(ext2, stop2)  # Theorem 4.6
            if bound < L_best:
                cand[nc] = a
                f[nc] = lam * alpha + (1.0 - lam) * cp / RP
                nc += 1
    return nc


@numba.njit(cache=True)
def _append(soft, capP, capN, remP, remN, r, cost, amin, pl, ql, n, w, C, C1):
    """Add rule ``r``: update ``remP`` / ``remN`` in place, return (cp, cn, cost, amin, pl, ql)."""
    cp = _count(capP, r, remP)
    cn = _count(capN, r, remN)
    alpha = cp / (cp + cn)
    if soft:
        cost += min(w * cp, cn) / n + C + C1 * max(alpha - amin, 0.0)
        amin = min(amin, alpha)
    else:
        cost += cn / n + C
        pl, ql = cp, cn
    for k in range(remP.shape[0]):
        remP[k] &= ~capP[r, k]
    for k in range(remN.shape[0]):
        remN[k] &= ~capN[r, k]
    return cp, cn, cost, amin, pl, ql


@numba.njit(cache=True)
def _build_list(soft, capP, capN, allP, allN, n, w, C, C1, lam, prob_terminate, L_best, u, out):
    """Build one list; returns (length, objective).  ``u`` holds uniforms in [0, 1)."""
    M = capP.shape[0]
    remP = allP.copy()
    remN = allN.copy()
    RP = _popcount_all(remP)
    RN = _popcount_all(remN)
    pl, ql = 1, 0           # FRL: alpha_{-1} = 1
    amin = 1.0              # softFRL: no penalty on the first rule
    cost = 0.0
    length = 0
    ui = 0
    cand = np.empty(M, np.int64)
    f = np.empty(M, np.float64)
    while True:
        if _closed(soft, RP, RN, pl, ql, amin, n, w, C, C1):
            break
        if u[ui] < prob_terminate:
            break
        ui += 1
        nc = _candidates(soft, capP, capN, remP, remN, RP, RN, pl, ql, amin, cost, n, w, C, C1,
                         lam, L_best, cand, f)
        if nc == 0:
            break
        r = _draw(cand, f, nc, u[ui])
        ui += 1
        cp, cn, cost, amin, pl, ql = _append(soft, capP, capN, remP, remN, r, cost, amin, pl, ql,
                                             n, w, C, C1)
        RP -= cp
        RN -= cn
        out[length] = r
        length += 1
    # close with the else clause
    value = cost + min(w * RP, RN) / n
    if soft:
        at = RP / (RP + RN)
        value += C1 * max(at - amin, 0.0)
    return length, value


@dataclasses.dataclass
class _Trace:
    """What the iterations found: the best list, its value and the trace by iteration."""

    value: float = math.inf
    prefix: tuple[int, ...] = ()
    best_by_iteration: list = dataclasses.field(default_factory=list)
    time_by_iteration: list = dataclasses.field(default_factory=list)
    termination: Termination = Termination.ITERATION_LIMIT
    message: str = ""
    done: int = 0


def _check_options(program, iterations, prob_terminate, lam, time_limit):
    """Validated ``iterations`` (default 3000 FRL, 6000 softFRL) and the other MC options."""
    if iterations is None:
        iterations = 3000 if program == "frl" else 6000
    iterations = check_count_limit(iterations, "iterations", minimum=1)
    if not 0.0 <= float(prob_terminate) < 1.0:
        raise ValueError(f"prob_terminate must be in [0, 1), got {prob_terminate!r}")
    if not 0.0 <= float(lam) <= 1.0:
        raise ValueError(f"lam (curiosity weight) must be in [0, 1], got {lam!r}")
    check_time_limit(time_limit, "time_limit", allow_zero=False)
    return iterations


def _iterate(data, params, iterations, prob_terminate, lam, rng, monitor: Monitor,
             root_bound) -> _Trace:
    """Run the iterations (one list each) until ``iterations`` or the monitor stops them
    (deadline, Ctrl-C, callback, memory); the monitor samples the best value so far."""
    soft = params.program == "softfrl"
    out = np.empty(max(data.M, 1), dtype=np.int64)
    n_draws = 2 * data.M + 4
    tr = _Trace()
    deadline = monitor.deadline

    def sample(event="periodic"):
        if event != "periodic" or monitor.due():
            monitor.record({"time": deadline.elapsed(), "objective": tr.value, "lower_bound":
                            root_bound, "event": event, "iterations": tr.done})

    try:
        for t in range(iterations):
            stop = monitor.should_stop()
            if stop is not None:
                tr.termination, tr.message = stop
                break
            u = rng.random(n_draws)
            length, value = _build_list(soft, data.capP, data.capN, data.allP, data.allN, data.n,
                                        params.w, params.C, params.C1, float(lam),
                                        float(prob_terminate), tr.value, u, out)
            tr.done += 1
            if value < tr.value:
                tr.value = float(value)
                tr.prefix = tuple(int(a) for a in out[:length])
                sample("incumbent")
            else:
                sample()
            tr.best_by_iteration.append(tr.value)
            tr.time_by_iteration.append(deadline.elapsed())
    except KeyboardInterrupt as exc:  # outside catch_interrupt, or from the callback
        if is_abort(exc):
            raise
        tr.termination, tr.message = (Termination.INTERRUPTED,
                                      "interrupted by the user (KeyboardInterrupt)")
    return tr


def _certificate(problem, data, params, tr: _Trace, root_bound, wall, seed, prob_terminate,
                 lam, history) -> Certificate:
    """The empty-prefix bound certifies the list only when it meets its objective (promoted)."""
    objective = exact_objective(problem, params, tr.prefix)
    check_incumbent(tr.value, objective, "Monte-Carlo value")
    lower = min(root_bound, objective)
    if not data.captures_something:
        lower = objective  # the else-only list is the only compatible list
    message = "Monte-Carlo search: no optimality proof beyond the empty-prefix bound"
    if tr.message:
        message = f"{message}; {tr.message}"
    return certify(objective, lower, tr.termination, solver=solver_name(params, "monte-carlo"),
                   abs_tol=1e-9, iterations=tr.done, wall_time=wall,
                   seed=seed, message=message, history=history,
                   stats={"best_by_iteration": tr.best_by_iteration,
                          "time_by_iteration": tr.time_by_iteration, "iterations": tr.done,
                          "program": params.program, "prob_terminate": float(prob_terminate),
                          "lam": float(lam)})


def monte_carlo(problem, program: str, w, C, C1=None, *, iterations: int | None = None,
                prob_terminate: float = 0.01, lam: float = 0.8, seed: int | None = DEFAULT_SEED,
                time_limit: float | None = None, memory_limit_mb: float | str | None = AUTO,
                callback=None, history_every: float = 1.0):
    """Algorithm FRL (``program="frl"``) or softFRL (``"softfrl"``).

    Returns ``(FallingRuleList, Certificate)``.  ``iterations`` defaults to 3000 (FRL) and
    6000 (softFRL) as the authors' experiments.  The certificate holds the trace of the best
    objective by iteration (``stats["best_by_iteration"]``, ``stats["time_by_iteration"]``)
    and a history entry for each improvement and every ``history_every`` seconds (objective
    non-increasing).  Its lower bound is the prefix bound of the
    empty prefix (a valid bound on every list), so a Monte-Carlo run is called optimal only
    when that bound already meets the objective.  ``time_limit`` must be > 0 seconds;
    ``iterations`` is the deterministic limit (the same ``seed`` and ``iterations`` give the
    same list).  Ctrl-C or a ``callback`` returning True stops the iterations (INTERRUPTED)
    with the best list so far; ``memory_limit_mb`` as for the exact search.
    """
    params = make_params(program, w, C, C1)
    iterations = _check_options(program, iterations, prob_terminate, lam, time_limit)
    memory_limit_mb = resolve_memory_limit_mb(memory_limit_mb)
    rng = np.random.default_rng(seed)
    monitor = Monitor(solver_name(params, "monte-carlo"), deadline=Deadline(time_limit),
                      memory_limit_mb=memory_limit_mb, callback=callback,
                      history_every=history_every)
    data = FallingData(problem, stop_check(monitor, "splitting the captures by class"))
    ext0, stop0 = root_tail(params, data.n, data.NP, data.NN)
    root_bound = min(ext0, stop0)
    with catch_interrupt():
        tr = _iterate(data, params, iterations, prob_terminate, lam, rng, monitor, root_bound)
    if not tr.done:     # stopped before the first list: the else clause alone
        tr.value = exact_objective(problem, params, ())
    monitor.record({"time": monitor.deadline.elapsed(), "objective": tr.value,
                    "lower_bound": root_bound, "event": "end", "iterations": tr.done},
                   notify=False)
    cert = _certificate(problem, data, params, tr, root_bound, monitor.deadline.elapsed(), seed,
                        prob_terminate, lam, monitor.history)
    return model_of(problem, params, tr.prefix), cert
