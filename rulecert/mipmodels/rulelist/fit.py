"""Solve the rule-list MIP on HiGHS, PuLP (statuses read from HiGHS) or CP-SAT and certify it."""
from __future__ import annotations

import dataclasses
import logging
import math
import time

import numpy as np

from ... import _compat
from ...certificate import Certificate, Solution, Termination, certify
from ...limits import DEFAULT_SEED, Deadline, resolve_memory_limit_mb
from ...monitor import Monitor, catch_interrupt
from ...models.rulelist import RuleList, rule_list_from_prefix, rule_list_objective
from .. import cpsat as _cpsat
from .. import highs as _highs
from .certify import certify_run
from .formulation import (BACKENDS, GroupData, RuleListMIP, _parse_cuts, c_fraction,
                          check_size, greedy_prefix, group_data, prefix_length_bound,
                          repair_prefix, support_threshold)

log = logging.getLogger("rulecert.mipmodels.rulelist")


def _resolve_warm_start(problem, G: GroupData, c: float, warm_start, max_rules: int):
    """(prefix, RuleList as given or None, source) for a warm start specification."""
    M = problem.n_antecedents
    if warm_start is None:
        return None, None, "none"
    if isinstance(warm_start, str):
        if warm_start != "greedy":
            raise ValueError(f"warm_start must be None, 'greedy', a prefix or a RuleList, got {warm_start!r}")
        return greedy_prefix(G, c, max_rules), None, "greedy"
    if isinstance(warm_start, RuleList):
        rl = warm_start
        if rl.indices and all(0 <= i < M and problem.antecedents[i].name == a.name
                              for i, a in zip(rl.indices, rl.antecedents)):
            prefix = list(rl.indices)
        else:
            pos = {nm: i for i, nm in enumerate(problem.antecedent_names)}
            missing = [a.name for a in rl.antecedents if a.name not in pos]
            if missing:
                raise ValueError(f"warm-start rule list uses antecedents not in the problem: {missing}")
            prefix = [pos[a.name] for a in rl.antecedents]
        return prefix, rl, "rule_list"
    try:
        prefix = [int(i) for i in warm_start]
    except (TypeError, ValueError):
        raise ValueError(f"warm_start must be None, 'greedy', a prefix or a RuleList, got {warm_start!r}") from None
    bad = [i for i in prefix if not 0 <= i < M]
    if bad:
        raise ValueError(f"warm-start prefix index {bad[0]} out of range for {M} antecedents")
    return prefix, None, "prefix"


def _check_inputs(problem, c, max_rules, backend, time_limit, node_limit, deterministic_time):
    c = problem.check_regularization(c)
    problem.check_two_classes()
    if isinstance(max_rules, bool) or not isinstance(max_rules, (int, np.integer)):
        raise ValueError(f"max_rules must be an integer >= 1, got {max_rules!r}")
    if max_rules < 1:
        raise ValueError(f"max_rules must be >= 1, got {max_rules}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if time_limit is not None:
        try:
            tl = float(time_limit)
        except (TypeError, ValueError):
            raise ValueError(f"time_limit must be a number of seconds or None, got {time_limit!r}") from None
        if not math.isfinite(tl) or tl < 0:
            raise ValueError(f"time_limit must be >= 0 seconds, got {time_limit!r}")
    if node_limit is not None:
        if isinstance(node_limit, bool) or not isinstance(node_limit, (int, np.integer)) or node_limit < 1:
            raise ValueError(f"node_limit must be a positive integer or None, got {node_limit!r}")
        if backend == "cpsat":
            raise ValueError("the cpsat backend has no node limit; use deterministic_time")
    if deterministic_time is not None:
        if backend != "cpsat":
            raise ValueError("deterministic_time applies to the cpsat backend only; use node_limit")
        if not (isinstance(deterministic_time, (int, float)) and deterministic_time > 0):
            raise ValueError(f"deterministic_time must be > 0, got {deterministic_time!r}")
    return c


def solve(problem, c: float, *, max_rules: int, backend: str = "highs",
          time_limit: float | None = None, node_limit: int | None = None,
          warm_start=None, cuts=True, seed: int = DEFAULT_SEED,
          workers: int | None = None, deterministic_time: float | None = None,
          length_bound: bool = True, callback=None, memory_limit_mb="auto",
          history_every: float = 1.0) -> "RuleListMIPSolution":
    """Solve the rule-list MIP and certify the result.

    Parameters
    ----------
    problem : RuleProblem
    c : float in [0, 1)
        Penalty per rule.
    max_rules : int >= 1
        Largest number of rules (positions) in the list.
    backend : "highs" (highspy), "pulp" (PuLP model solved by HiGHS, statuses read from
        HiGHS itself) or "cpsat" (OR-Tools CP-SAT, integer-scaled objective).
    time_limit : seconds for the whole fit (model building included), or None.
    node_limit : HiGHS branch-and-bound node limit (deterministic; highs/pulp only).
    deterministic_time : CP-SAT's deterministic time limit (cpsat only).
    warm_start : None, "greedy", a prefix (antecedent indices) or a RuleList.
    cuts : True (the backend's ``DEFAULT_CUTS``), False, or a subset of ``CUT_FAMILIES``.
    seed : solver random seed (default ``rulecert.limits.DEFAULT_SEED``).
    workers : HiGHS threads / CP-SAT workers (default: HiGHS's own choice, 2 CP-SAT workers).
    length_bound : build only ``min(max_rules, L)`` positions, ``L`` the prefix-length bound
        from the best incumbent known before solving (exact; False keeps ``max_rules``
        positions, for measuring the formulation itself).
    callback : called with the progress info dict of :mod:`rulecert.monitor` at every
        history sample; returning True stops the run (``INTERRUPTED``).
    memory_limit_mb : "auto" (the default cap, ``rulecert.limits.resolve_memory_limit_mb``),
        a number of MB, or None.  A model whose estimated size would pass the cap is not built
        (``MEMORY_LIMIT`` with the incumbent known before solving); a solve that reaches it
        is stopped (``MEMORY_LIMIT`` with the solver's incumbent and bound).
    history_every : seconds between the history's periodic samples.

    Ctrl-C stops the solve cleanly (``INTERRUPTED``, incumbent and bound kept; the fit runs
    under :func:`rulecert.monitor.catch_interrupt`).

    Returns a :class:`RuleListMIPSolution` (unpacks as ``(rule_list, certificate)``);
    ``rule_list`` is None only when no solution is held (solver error, or a limit hit before
    any solution without a warm start).
    """
    t0 = time.perf_counter()
    c = _check_inputs(problem, c, max_rules, backend, time_limit, node_limit, deterministic_time)
    mem = resolve_memory_limit_mb(memory_limit_mb)
    monitor = Monitor(f"rule-list MIP ({backend})", deadline=Deadline(None, start=t0),
                      memory_limit_mb=mem, callback=callback, history_every=history_every)
    with catch_interrupt():
        plan = _plan(problem, c, max_rules, backend, warm_start, cuts, length_bound, t0, monitor)
        if isinstance(plan, RuleListMIPSolution):
            return plan
        remaining = None if time_limit is None else float(time_limit) - (time.perf_counter() - t0)
        stats = _stats(problem, backend, plan)
        history = monitor.history
        try:
            res, scale_info = _SOLVERS[backend](plan, backend, remaining, node_limit, seed,
                                                workers, deterministic_time, monitor, t0, stats)
        except Exception as exc:  # a missing or failing solver: report, never fall back
            log.warning("rule-list MIP backend %s failed: %s", backend, exc)
            cert = certify(None, -math.inf, Termination.ERROR, solver=backend,
                           message=f"{backend} failed: {type(exc).__name__}: {exc}",
                           wall_time=time.perf_counter() - t0, seed=seed,
                           warm_start_objective=plan.warm_obj, stats=stats)
            return RuleListMIPSolution(None, cert, False, plan.L_ref)
        stats.update(scale_info)
        rule_list, cert = certify_run(problem, plan.c, plan.model, res, stats, history, t0, seed,
                                      plan.warm_obj, plan.warm_prefix, plan.inc_obj, plan.L_ref,
                                      plan.L_jmlr, plan.K, backend)
        return RuleListMIPSolution(rule_list, cert, bool(stats["exact_for_unrestricted"]),
                                   int(stats["prefix_length_bound"]))


@dataclasses.dataclass(frozen=True)
class RuleListMIPSolution(Solution):
    """What :func:`solve` returns; unpacks as ``rule_list, certificate = ...``.

    ``exact_for_unrestricted``: ``max_rules`` reaches the prefix-length bound
    ``prefix_length_bound`` (from the best objective known at the end), so the certificate
    holds for rule lists of any length, not only for at most ``max_rules`` rules.
    """

    model: RuleList | None
    certificate: Certificate
    exact_for_unrestricted: bool
    prefix_length_bound: int


def _stats(problem, backend, plan) -> dict:
    """The run's record (Certificate.stats), the solver phases add to it."""
    G, model = plan.G, plan.model
    return {
        "backend": backend, "n_samples": problem.n_samples, "n_antecedents": plan.M,
        "n_groups": G.n_groups, "n_variables": model.n_variables,
        "n_constraints": model.n_constraints, "n_nonzeros": model.n_nonzeros,
        "max_rules": plan.K, "effective_max_rules": plan.K_eff, "cuts": list(plan.cut_set),
        "support_threshold": plan.t, "c_rational": str(c_fraction(plan.c)),
        "equivalent_points_mistakes": float(G.ep), "build_time": plan.build_time,
        "warm_start_source": plan.ws_source, "warm_start_given_objective": plan.ws_original_obj,
        "warm_start_prefix": plan.warm_prefix,
    }


def _run_highs_like(plan, backend, remaining, node_limit, seed, workers, deterministic_time,
                    monitor, t0, stats):
    return _solve_highs_like(plan.model, backend, remaining, node_limit, seed, workers,
                             plan.warm_vec, plan.warm_obj, stats, monitor,
                             _sample_map(plan, float(plan.G.N), 0.0))


def _run_cpsat(plan, backend, remaining, node_limit, seed, workers, deterministic_time,
               monitor, t0, stats):
    return _solve_cpsat(plan, remaining, seed, workers, deterministic_time, monitor)


def _sample_map(plan, scale: float, correction: float):
    """Raw solver objective / bound -> the history's (objective, lower bound): the solver's
    incumbent or the one known before solving, whichever is better; the solver's bound less
    the scaling correction, or the equivalent-points bound, whichever is larger."""
    inc = plan.inc_obj.objective
    ep = float(plan.G.ep) / float(plan.G.N)

    def sample(obj, bound):
        o = inc if obj is None or not math.isfinite(obj) else min(inc, obj / scale)
        b = ep if bound is None or not math.isfinite(bound) else max(ep, bound / scale - correction)
        return o, min(b, o)
    return sample

BYTES_PER_NONZERO = {"highs": 400, "pulp": 4000, "cpsat": 1500}
"""Memory a model takes per non-zero while it is built and solved (the Python arrays, the
solver's copies of the matrix, presolve and the LP relaxation; PuLP's objects are far larger),
a generous estimate for the memory-cap check before building."""


def _memory_limited(problem, c, G, inc_list, inc_obj, need, monitor, t0, M, K, K_eff, ws_obj):
    """The certificate of a fit whose model would not fit under the memory cap: the best
    list known before solving (the default-only list or the warm start) and the
    equivalent-points bound."""
    rule_list = inc_list
    objective = inc_obj.objective
    lb = min(float(G.ep) / float(G.N), objective)
    mb = need / 2**20
    msg = (f"memory limit: the model (about {mb:,.0f} MB for {M} antecedents and {K_eff} "
           f"positions) would pass memory_limit_mb={monitor.memory_limit_mb:g}; not built")
    cert = certify(objective, lb, Termination.MEMORY_LIMIT, solver="rule-list MIP",
                   wall_time=time.perf_counter() - t0,
                   warm_start_objective=ws_obj, message=msg, history=monitor.history,
                   stats={"max_rules": K, "effective_max_rules": K_eff,
                          "estimated_model_mb": round(mb, 1)})
    return RuleListMIPSolution(rule_list, cert, False, K_eff)


@dataclasses.dataclass
class _Plan:
    """What is decided before the solve: the model, the incumbents and the warm start."""

    c: float
    cut_set: tuple
    G: GroupData
    M: int
    K: int
    K_eff: int
    t: float
    model: RuleListMIP
    build_time: float
    ws_source: str
    ws_original_obj: float | None
    warm_vec: np.ndarray | None
    warm_obj: float | None
    warm_prefix: list | None
    inc_obj: object
    L_ref: int
    L_jmlr: int


def _plan(problem, c, max_rules, backend, warm_start, cuts, length_bound, t0, monitor):
    """Cuts, groups, the incumbents known before solving (the default-only list, the warm
    start), the prefix-length bound on the positions built, the size check, the model and the
    warm start encoded in it.  A model that would pass the memory cap is not built: the
    result is then the ``MEMORY_LIMIT`` solution of :func:`_memory_limited`."""
    cut_set = _parse_cuts(cuts, backend)
    G = group_data(problem)
    if backend == "cpsat" and not G.integral:
        raise ValueError("the cpsat backend needs integer-valued sample weights; use backend='highs'")
    M = problem.n_antecedents
    K = int(max_rules)
    t = support_threshold(G, c)
    use_t = t > 0 and ("support" in cut_set or "accuracy" in cut_set or "fixing" in cut_set)
    ws_prefix, ws_list, ws_source = _resolve_warm_start(problem, G, c, warm_start, K)

    # incumbents known before solving: the default-only list (Corollary 5) and the warm start
    default_only = rule_list_from_prefix(problem, [])
    inc_obj = rule_list_objective(default_only, problem, c)
    inc_list = default_only
    ws_original_obj = None
    if ws_prefix is not None:
        given = ws_list if ws_list is not None else rule_list_from_prefix(problem, ws_prefix)
        s = rule_list_objective(given, problem, c)
        ws_original_obj = s.objective
        if s.objective < inc_obj.objective:
            inc_obj, inc_list = s, given
    L_ref, L_jmlr = prefix_length_bound(G, c, inc_obj.mistakes, inc_obj.n_rules, M)
    K_eff = min(K, L_ref, M) if length_bound else min(K, M)

    nnz = check_size(problem, backend, K_eff, G)
    need = nnz * BYTES_PER_NONZERO[backend]
    if monitor.would_exceed_memory(need):
        return _memory_limited(problem, c, G, inc_list, inc_obj, need, monitor, t0, M, K, K_eff,
                               ws_original_obj)

    model = RuleListMIP(problem, c, K_eff, cuts=cut_set, groups=G)
    build_time = time.perf_counter() - t0

    warm_vec = None
    warm_obj = None
    warm_prefix = None
    if ws_prefix is not None:
        warm_prefix = repair_prefix(G, ws_prefix, K_eff, t, use_t, cut_set, c)
        wl = rule_list_from_prefix(problem, warm_prefix)
        warm_vec = model.encode(warm_prefix, wl.predictions, wl.default)
        warm_obj = rule_list_objective(wl, problem, c).objective

    return _Plan(c, cut_set, G, M, K, K_eff, t, model, build_time, ws_source, ws_original_obj,
                 warm_vec, warm_obj, warm_prefix, inc_obj, L_ref, L_jmlr)


def _solve_highs_like(model: RuleListMIP, backend, remaining, node_limit, seed, workers,
                      warm_vec, warm_obj, stats, monitor=None, sample_map=None):
    step = model.lattice_step()
    abs_gap = (step - 2 * model.bound_slack()) if step is not None else None
    if abs_gap is not None and abs_gap <= 1e-6:
        abs_gap = None
    if abs_gap is None:
        abs_gap = 1e-6
        stats["lattice_step"] = None
    else:
        stats["lattice_step"] = step
    stats["mip_abs_gap_mistakes"] = abs_gap
    if backend == "highs":
        h = _highs.new_highs(workers=workers, seed=seed)
        model.to_highs(h)
        res = _highs.solve(h, is_mip=True, time_limit=remaining, node_limit=node_limit,
                           mip_rel_gap=0.0, mip_abs_gap=abs_gap, warm_start=warm_vec,
                           warm_start_objective=warm_obj, monitor=monitor, sample_map=sample_map)
        x = res.x
    else:
        import pulp
        solver = pulp.HiGHS(msg=False, gapRel=0.0, gapAbs=abs_gap, random_seed=int(seed),
                            threads=workers)
        if not solver.available():
            raise RuntimeError("PuLP's HiGHS interface is not available (highspy missing?)")
        prob, vs = model.to_pulp()
        solver.createAndConfigureSolver(prob)
        solver.buildSolverModel(prob)
        h = prob.solverModel
        in_model = {v.name for v in prob.variables()}
        col = np.array([v.index if v.name in in_model else -1 for v in vs])
        ws = None
        if warm_vec is not None:
            ws = np.zeros(h.getNumCol())
            ws[col[col >= 0]] = warm_vec[col >= 0]
        res = _highs.solve(h, is_mip=True, time_limit=remaining, node_limit=node_limit,
                           mip_rel_gap=0.0, mip_abs_gap=abs_gap, warm_start=ws,
                           warm_start_objective=warm_obj, monitor=monitor, sample_map=sample_map)
        # PuLP's own reading, recorded only (it calls a time-limit stop "Optimal"); none of a
        # run stopped before it started (``h`` holds no result)
        if not res.finished:
            stats["pulp_status"] = "not read (the solver did not run)"
        else:
            try:
                st, _ = solver.findSolutionValues(prob)
                stats["pulp_status"] = pulp.LpStatus[st]
            except Exception as exc:  # PuLP has no mapping for some HiGHS statuses
                stats["pulp_status"] = f"unmapped ({type(exc).__name__}: {exc})"
        x = None
        if res.x is not None:
            x = np.zeros(model.n_variables)
            x[col >= 0] = res.x[col[col >= 0]]
        res = dataclasses.replace(res, x=x, solver="pulp+highs")
    import highspy
    finished = res.finished and h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    scale = float(model.G.N)
    return res, {"objective_scale": scale, "solver_finished": bool(finished), "bound_correction": 0.0}


CPSAT_PARAMETERS = {"num_full_subsolvers": 2, "max_sat_stratification": "STRATIFICATION_NONE"}
"""CP-SAT's search with two or more workers: two full-problem searches (its core-based
lower-bounding search and its LP-guided search) instead of one full search beside
neighbourhood searches.  The warm start is often already optimal, so the bound is what is
left to prove, and the core search raises it fastest; it finds its cores over all the
objective's terms at once rather than the heaviest first (experiments/results/rulelist_mip)."""


def _solve_cpsat(plan, remaining, seed, workers, deterministic_time, monitor):
    model, warm_vec, warm_obj = plan.model, plan.warm_vec, plan.warm_obj
    m, vs, scale = model.to_cpsat()
    ca, corr = model.cpsat_scaling()
    workers = workers if workers else 2
    res = _cpsat.solve(m, vs, time_limit=remaining, workers=workers, seed=seed,
                       parameters=CPSAT_PARAMETERS if workers >= 2 else None,
                       deterministic_time=deterministic_time, hint=warm_vec,
                       warm_start_objective=warm_obj, objective_scale=1.0, monitor=monitor,
                       sample_map=_sample_map(plan, float(scale), float(corr) * model.K))
    # rescale to mistakes (x N) so that all backends report on the same scale
    q = ca.denominator
    N = float(model.G.N)
    obj = None if res.objective is None else res.objective / q
    bound = res.bound / q if math.isfinite(res.bound) else res.bound
    res = dataclasses.replace(res, objective=obj, bound=bound)
    return res, {"objective_scale": N, "solver_finished": res.termination is Termination.OPTIMAL,
                 "bound_correction": float(corr) * model.K, "cpsat_c": str(ca),
                 "cpsat_integer_scale": int(scale)}


_SOLVERS = {"highs": _run_highs_like, "pulp": _run_highs_like, "cpsat": _run_cpsat}
"""Each backend's solve, chosen by name (PuLP builds its model and runs HiGHS through it)."""


def rule_list_mip_model(problem, c: float, max_rules: int, *, cuts=True) -> RuleListMIP:
    """The model object alone (for ``write`` / teaching), after the usual input checks."""
    _check_inputs(problem, c, max_rules, "highs", None, None, None)
    return RuleListMIP(problem, float(c), int(max_rules), cuts=cuts)

__getattr__ = _compat.renamed(__name__)
