"""The certificate of a rule-list MIP run: the incumbent (re-derived from the solver's
solution and checked against its objective), the lower bound (the solver's, rounded to the
lattice of achievable objectives, never below the equivalent-points bound), the status, and
whether the restricted problem's optimum is the unrestricted one (prefix-length bound)."""
from __future__ import annotations

import math
import time

from ...certificate import Certificate, SolutionStatus, Termination
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
        return None, Certificate(Termination.ERROR, SolutionStatus.NONE, None, -math.inf, res.solver,
                                 res.solver_version, nodes=res.nodes, iterations=res.iterations,
                                 wall_time=time.perf_counter() - t0, seed=seed,
                                 warm_start_objective=warm_obj,
                                 message="; ".join(msgs) or "solver error", stats=stats)

    rule_list, objective, inconsistent = _incumbent(problem, c, model, res, stats, msgs, N,
                                                    solver_obj, warm_prefix, warm_obj)
    lb, term, status = _bound_and_status(model, res, stats, backend, N, term, inconsistent,
                                         objective, ep_bound, abs_tol, msgs)
    _exactness(problem, c, model, rule_list, objective, inc_obj, L_ref, L_jmlr, K, stats, msgs)
    if objective is not None:
        history.append({"time": time.perf_counter() - t0, "objective": objective, "lower_bound": lb,
                        "event": "end"})
    cert = Certificate(term, status, objective, lb, res.solver, res.solver_version,
                       abs_tol=abs_tol, rel_tol=0.0, nodes=res.nodes, iterations=res.iterations,
                       wall_time=time.perf_counter() - t0, seed=seed,
                       warm_start_objective=warm_obj, message="; ".join(msgs),
                       history=history, stats=stats)
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


def _bound_and_status(model, res, stats, backend, N, term, inconsistent, objective, ep_bound,
                      abs_tol, msgs):
    """(lower bound, termination, status) from the solver's bound, the lattice, the
    equivalent-points bound and the consistency checks."""
    # lower bound: solver bound (rounded up to the lattice of achievable values when the
    # solver finished its search), minus the CP-SAT scaling correction, and at least EP/N
    bound_scaled = res.bound
    if backend != "cpsat" and stats.get("solver_finished") and math.isfinite(bound_scaled):
        bound_scaled = model.round_bound(bound_scaled)
    lb = bound_scaled / N if math.isfinite(bound_scaled) else bound_scaled
    if backend == "cpsat" and math.isfinite(lb):
        lb -= stats.get("bound_correction", 0.0)
    if term is Termination.INFEASIBLE:  # cannot happen: the default-only list is feasible
        inconsistent = True
        msgs.append("INCONSISTENT: the solver declared the model infeasible")
        lb = -math.inf
    if inconsistent:
        lb = ep_bound
        term = Termination.ERROR
    else:
        lb = max(lb, ep_bound) if lb != math.inf else lb
    if objective is not None and lb > objective:
        if lb - objective <= abs_tol + 1e-9:
            lb = objective
        else:
            msgs.append(f"INCONSISTENT: lower bound {lb!r} exceeds the objective {objective!r} of a "
                        "feasible rule list")
            term, lb = Termination.ERROR, ep_bound
    if objective is None:
        status = SolutionStatus.NONE
    elif term is Termination.ERROR:
        status = SolutionStatus.FEASIBLE
    elif stats.get("solver_finished") and objective - lb <= abs_tol:
        term, status = Termination.OPTIMAL, SolutionStatus.OPTIMAL
    else:
        if term is Termination.OPTIMAL:  # solver finished but the bound does not meet it
            term = Termination.ITERATION_LIMIT
            msgs.append("the solver's gap test stopped the search before the bound met the objective")
        status = SolutionStatus.FEASIBLE

    return lb, term, status


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
