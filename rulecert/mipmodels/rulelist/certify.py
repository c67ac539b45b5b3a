"""The certificate of a rule-list MIP run: the incumbent (re-derived from the solver's
solution and checked against its objective), the lower bound (the solver's, never below the
equivalent-points bound, rounded by :func:`rulecert.certify` to the lattice of
achievable objectives), and whether the restricted problem's optimum is the unrestricted one
(prefix-length bound).  The status is certify's."""
from __future__ import annotations

import math
import time

from ...certificate import Termination, certify
from ...models.rulelist import RuleList, rule_list_from_prefix, rule_list_objective
from .formulation import RuleListMIP, prefix_length_bound


def certify_run(problem, c, model: RuleListMIP, res, stats, history, t0, seed, warm_obj,
             warm_prefix, inc_obj, L_ref, L_jmlr, K, backend):
    """``(rule_list, Certificate)`` of a solver run ``res`` of ``model`` (module doc)."""
    N = stats["objective_scale"]
    solver_obj = None if res.objective is None else res.objective / N
    raw_bound = res.bound / N if math.isfinite(res.bound) else res.bound
    stats["solver_objective"] = solver_obj
    stats["solver_bound"] = raw_bound
    stats["solver_message"] = res.message
    ep_bound = float(model.G.ep) / N
    term = res.termination
    msgs = [f"{res.solver}: {res.message}"] if res.message else []
    # the bound meets the objective within abs_tol: exact lattice / integer arithmetic makes
    # 1e-9 enough; without a lattice HiGHS stops at an absolute gap of 1e-6 mistakes
    abs_tol = 1e-9
    if backend != "cpsat" and stats.get("lattice_step") is None:
        abs_tol = max(abs_tol, 1.01 * stats["mip_abs_gap_mistakes"] / N)
    if res.termination is Termination.ERROR:  # a failing solver: report, never fall back
        stats.update(prefix_length_bound=L_ref, prefix_length_bound_jmlr=L_jmlr,
                     exact_for_unrestricted=K >= L_ref)
        return None, certify(None, -math.inf, Termination.ERROR, solver=res.solver,
                             solver_version=res.solver_version, nodes=res.nodes,
                             iterations=res.iterations, wall_time=time.perf_counter() - t0,
                             seed=seed, warm_start_objective=warm_obj,
                             message="; ".join(msgs) or "solver error", stats=stats)

    rule_list, objective, inconsistent = _incumbent(problem, c, model, res, stats, msgs, N,
                                                    solver_obj, warm_prefix, warm_obj)
    lb, term = _bound(res, stats, backend, N, term, inconsistent, objective, ep_bound, abs_tol,
                      msgs)
    _exactness(problem, c, model, rule_list, objective, inc_obj, L_ref, L_jmlr, K, stats, msgs)
    # the lattice of achievable objectives (mistakes / N + c * rules) rounds HiGHS's bound up;
    # CP-SAT's integer-scaled bound carries its own correction instead
    lattice = None
    if backend != "cpsat" and term is not Termination.ERROR:
        lattice = lambda b: max(model.round_bound(b * N) / N, ep_bound)  # noqa: E731
    cert = certify(objective, lb, term, solver=res.solver, lattice=lattice, abs_tol=abs_tol,
                   solver_version=res.solver_version, nodes=res.nodes,
                   iterations=res.iterations, wall_time=time.perf_counter() - t0, seed=seed,
                   warm_start_objective=warm_obj, message="; ".join(msgs), history=history,
                   stats=stats)
    if objective is not None:
        history.append({"time": cert.wall_time, "objective": objective,
                        "lower_bound": cert.lower_bound, "event": "end"})
    return rule_list, cert


def _incumbent(problem, c, model, res, stats, msgs, N, solver_obj, warm_prefix, warm_obj):
    """(rule list, objective, inconsistent): the solver's solution decoded, relabelled the
    CORELS way and checked against the solver's objective; the warm start if it is better."""
    rule_list = None
    objective = None
    inconsistent = False
    if res.x is not None:
        try:
            prefix, labels, default = model.decode(res.x)
        except ValueError as exc:
            inconsistent = True
            msgs.append(f"INCONSISTENT: cannot decode the solver's solution: {exc}")
            prefix = None
        if prefix is not None:
            counts = [cnt for _, cnt in problem.capture_counts(prefix)]
            raw = RuleList([problem.antecedents[i] for i in prefix], labels, default, prefix, counts)
            raw_obj = rule_list_objective(raw, problem, c).objective
            stats["raw_objective"] = raw_obj
            tol = (model.bound_slack() + 1e-6 * abs(res.objective)) / N + 1e-9
            if abs(raw_obj - solver_obj) > tol:
                inconsistent = True
                msgs.append(f"INCONSISTENT: the solver's objective {solver_obj!r} differs from the "
                            f"recomputed objective {raw_obj!r} of the rule list it returned")
            rule_list = rule_list_from_prefix(problem, prefix)
            objective = rule_list_objective(rule_list, problem, c).objective
            stats["relabelled"] = rule_list.predictions != raw.predictions or rule_list.default != raw.default
            stats["incumbent_source"] = "solver"
    if warm_prefix is not None and (objective is None or warm_obj < objective - 1e-12) and not inconsistent:
        rule_list = rule_list_from_prefix(problem, warm_prefix)
        objective = rule_list_objective(rule_list, problem, c).objective
        stats["incumbent_source"] = "warm_start"
        if res.x is not None:
            msgs.append("the warm start is better than the solver's incumbent")

    return rule_list, objective, inconsistent


def _bound(res, stats, backend, N, term, inconsistent, objective, ep_bound, abs_tol, msgs):
    """(lower bound, termination) from the solver's bound, the equivalent-points bound and the
    consistency checks; :func:`rulecert.certify` decides the status."""
    lb = res.bound / N if math.isfinite(res.bound) else res.bound
    if backend == "cpsat" and math.isfinite(lb):
        lb -= stats.get("bound_correction", 0.0)
    if term is Termination.INFEASIBLE:  # cannot happen: the default-only list is feasible
        inconsistent = True
        msgs.append("INCONSISTENT: the solver declared the model infeasible")
    if inconsistent:
        return ep_bound, Termination.ERROR
    lb = max(lb, ep_bound) if lb != math.inf else lb
    if objective is not None and lb > objective + abs_tol + 1e-9:
        msgs.append(f"INCONSISTENT: lower bound {lb!r} exceeds the objective {objective!r} of a "
                    "feasible rule list")
        return ep_bound, Termination.ERROR
    if objective is None:
        return lb, term
    if backend == "cpsat" and term is Termination.OPTIMAL and objective - lb > abs_tol:
        msgs.append("CP-SAT proved the optimum of its integer-scaled objective; corrected for "
                    "the scaling, its bound does not meet the objective")
        term = Termination.ITERATION_LIMIT
    return min(lb, objective), term


def _exactness(problem, c, model, rule_list, objective, inc_obj, L_ref, L_jmlr, K, stats, msgs):
    """Is the restricted optimum the unrestricted one?  The prefix-length bound from the best
    objective now known decides (stats and message)."""
    # exactness for the unrestricted problem, from the best objective now known
    M = problem.n_antecedents
    best_m, best_k = inc_obj.mistakes, inc_obj.n_rules
    best_val = inc_obj.objective
    if objective is not None and objective < best_val:
        best_m, best_k, best_val = rule_list_objective(rule_list, problem, c).mistakes, rule_list.n_rules, objective
    L2, J2 = prefix_length_bound(model.G, c, best_m, best_k, M)
    L_fin, J_fin = min(L_ref, L2), min(L_jmlr, J2)
    exact = K >= L_fin
    stats.update({"prefix_length_bound": L_fin, "prefix_length_bound_jmlr": J_fin,
                  "prefix_length_bound_objective": best_val, "exact_for_unrestricted": exact})
    if exact:
        msgs.append(f"exact for the unrestricted problem: max_rules={K} >= prefix-length bound "
                    f"{L_fin} (JMLR Thm 6 / Cor 5 with equivalent points, from objective "
                    f"{best_val:.6f}; plain JMLR bound {J_fin})")
    else:
        msgs.append(f"restricted to at most {K} rules: the prefix-length bound {L_fin} (JMLR "
                    f"Thm 6 / Cor 5, from objective {best_val:.6f}) exceeds max_rules, so the "
                    "lower bound holds for the restricted problem only")
