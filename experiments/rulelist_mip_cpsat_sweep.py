"""CP-SAT configurations for the rule-list MIP on full COMPAS, compared by deterministic work.

The instance is what ``bench_rulelist_mip_compas.py`` runs (issue 55): ``compas_train`` of the
CORELS distribution, the MIP with as many positions as the prefix-length bound allows
(K = 5 at c = 0.01), warm-started from CORELS' optimal list.  Each configuration (CP-SAT
parameters and cut families) runs with 2 workers, a fixed seed and the same CP-SAT
deterministic-time limit; the script prints the lower bound and the gap reached, the
deterministic time CP-SAT reports, wall and CPU seconds and the load average, and the ratio
of each configuration's remaining gap to the reference's (``default``: today's
``CPSAT_PARAMETERS`` and default cuts, measured in the same run).  A smaller gap after the
same deterministic time is better; wall seconds are measured only (the machine is shared).

    python experiments/rulelist_mip_cpsat_sweep.py --dtime 30
    python experiments/rulelist_mip_cpsat_sweep.py --dtime 60 --configs default with_disjoint

Two CP-SAT workers run in parallel threads, so a run is not bit-for-bit repeatable (the
threads exchange bounds and clauses at load-dependent moments); the deterministic limit
makes the work per run comparable, not identical.
"""
from __future__ import annotations

import argparse
import os
import time
import warnings

from bench_rulelist_mip_compas import commit, cpu_seconds   # experiments/ is on the path
from rulecert.datasets import load_compas_corels_problem
from rulecert.mipmodels.cpsat import set_parameters
from rulecert.mipmodels.rulelist import CUT_FAMILIES, DEFAULT_CUTS
from rulecert.mipmodels.rulelist.fit import CPSAT_PARAMETERS
from rulecert.mipmodels.rulelist.formulation import (RuleListMIP, group_data,
                                                     prefix_length_bound, repair_prefix,
                                                     support_threshold)
from rulecert.models.rulelist import rule_list_from_prefix, rule_list_objective
from rulecert.search import corels

DEFAULT = DEFAULT_CUTS["cpsat"]
CONFIGS = {  # name -> (CP-SAT parameters, cut families); subsolver names: ortools' GetNamedParameters
    "default": (dict(CPSAT_PARAMETERS), DEFAULT),
    "with_disjoint": (dict(CPSAT_PARAMETERS), CUT_FAMILIES),
    "descent": ({**CPSAT_PARAMETERS, "max_sat_stratification": "STRATIFICATION_DESCENT"}, DEFAULT),
    "core+core_max_lp": ({"subsolvers": ["core", "core_max_lp"]}, DEFAULT),
    "core+core_default_lp": ({"subsolvers": ["core", "core_default_lp"]}, DEFAULT),
    "core+obj_shaving": ({"subsolvers": ["core", "objective_shaving_max_lp"]}, DEFAULT),
    "core+lb_tree": ({"subsolvers": ["core", "lb_tree_search"]}, DEFAULT),
    "core+obj_lb": ({"subsolvers": ["core", "objective_lb_search_max_lp"]}, DEFAULT),
    "core+max_lp": ({"subsolvers": ["core", "max_lp"]}, DEFAULT),
    "probing1": ({**CPSAT_PARAMETERS, "cp_model_probing_level": 1}, DEFAULT),
    "symmetry0": ({**CPSAT_PARAMETERS, "symmetry_level": 0}, DEFAULT),
    "portfolio": ({}, DEFAULT),
    "default_again": (dict(CPSAT_PARAMETERS), DEFAULT),
}


def run_config(problem, G, c, K, prefix, params, cuts, dtime, seed, log):
    from ortools.sat.python import cp_model
    model = RuleListMIP(problem, c, K, cuts=cuts, groups=G)
    t = support_threshold(G, c)
    use_t = t > 0 and bool({"support", "accuracy", "fixing"} & set(cuts))
    wp = repair_prefix(G, prefix, K, t, use_t, cuts, c)
    wl = rule_list_from_prefix(problem, wp)
    warm = model.encode(wp, wl.predictions, wl.default)
    m, vs, scale = model.to_cpsat()
    for v, val in zip(vs, warm):
        m.add_hint(v, int(round(float(val))))
    solver = cp_model.CpSolver()
    p = solver.parameters
    p.num_workers = 2
    p.random_seed = seed
    p.max_deterministic_time = float(dtime)
    p.log_search_progress = log
    set_parameters(p, params)
    cpu0, t0 = cpu_seconds(), time.perf_counter()
    st = solver.solve(m)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    found = st in (cp_model.OPTIMAL, cp_model.FEASIBLE)  # else stopped in presolve: no figures
    obj = solver.objective_value / scale if found else float("nan")
    bound = solver.best_objective_bound / scale if found else float("nan")
    return {"status": solver.status_name(st), "obj": obj, "bound": bound,
            "gap": (obj - bound) / obj if found else float("nan"), "dtime": solver.response_proto.deterministic_time,
            "wall": wall, "cpu": cpu, "rows": model.n_constraints,
            "load": os.getloadavg()[0]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--c", type=float, default=0.01)
    ap.add_argument("--dtime", type=float, default=30.0, help="CP-SAT deterministic time per run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    ap.add_argument("--log", action="store_true", help="CP-SAT's search log")
    args = ap.parse_args(argv)
    names = ["default"] + [n for n in args.configs if n != "default"]
    problem = load_compas_corels_problem("train")
    G = group_data(problem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ref_list, ref_cert = corels.solve(problem, args.c)
    s = rule_list_objective(ref_list, problem, args.c)
    K, _ = prefix_length_bound(G, args.c, s.mistakes, s.n_rules, problem.n_antecedents)
    prefix = [problem.antecedent_names.index(a.name) for a in ref_list.antecedents]
    print(f"full COMPAS: {problem.n_samples} rows, {problem.n_antecedents} antecedents, "
          f"{G.n_groups} groups; c = {args.c:g}, K = {K}; CORELS {ref_cert.termination.value} "
          f"{s.objective:.6f} (warm start {prefix}); deterministic time {args.dtime:g} per run, "
          f"2 workers, seed {args.seed}; commit {commit()}; {os.cpu_count()} cores; load "
          f"average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    hdr = (f"{'configuration':18s} {'rows':>6s} {'status':>8s} {'dtime':>7s} {'bound':>9s} "
           f"{'gap':>6s} {'gap/ref':>7s} {'wall s':>7s} {'CPU s':>7s} load")
    print(hdr)
    print("-" * len(hdr))
    ref_gap = None
    for name in names:
        params, cuts = CONFIGS[name]
        r = run_config(problem, G, args.c, K, prefix, params, cuts, args.dtime, args.seed, args.log)
        if ref_gap is None:
            ref_gap = r["gap"]
        ratio = r["gap"] / ref_gap if ref_gap > 0 else float("nan")
        print(f"{name:18s} {r['rows']:6d} {r['status']:>8s} {r['dtime']:7.1f} {r['bound']:9.6f} "
              f"{100 * r['gap']:5.2f}% {ratio:7.2f} {r['wall']:7.1f} {r['cpu']:7.1f} "
              f"{r['load']:.2f}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
