"""``rulecert crosscheck``: CORELS and the rule-list MIP on the same data, compared.

Exit status: 0 when the two agree (same proven optimum, or consistent bounds when a limit
stopped one of them), 1 on a disagreement, 3 when a solver reported an error (bad input
exits with 2, as every subcommand), 130 when Ctrl-C stopped the run (one Ctrl-C stops both
solvers; the result is printed as usual).
"""
from __future__ import annotations

import json


def add_parser(sub) -> None:
    from ._data import add_data_arguments, reports_limit_stop
    from ._run import add_limit_arguments
    p = sub.add_parser("crosscheck",
                       help="cross-check CORELS against the rule-list MIP (same optimum?)")
    add_data_arguments(p)
    p.add_argument("--c", type=float, required=True, help="penalty per rule")
    p.add_argument("--max-rules", type=int, default=None,
                   help="restrict both solvers to lists of at most K rules (default: the MIP gets "
                        "the prefix-length bound from the CORELS incumbent, exact for the "
                        "unrestricted problem)")
    p.add_argument("--backend", default="highs", choices=["highs", "pulp", "cpsat"],
                   help="MIP solver (default highs)")
    add_limit_arguments(p, time_help="seconds for each solver, less what reading and mining "
                                     "the data took",
                        node_help="CORELS node expansions (deterministic)")
    p.add_argument("--mip-node-limit", type=int, default=None,
                   help="HiGHS branch-and-bound nodes of the MIP (deterministic; highs/pulp)")
    p.add_argument("--deterministic-time", type=float, default=None,
                   help="CP-SAT's deterministic time limit of the MIP (cpsat)")
    p.add_argument("--seed", type=int, default=0, help="MIP solver seed (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=reports_limit_stop(run))


def run(args) -> int:
    from ..crosscheck import crosscheck_rule_list
    from ..monitor import stop_check
    from ._data import class_labels, load_problem, preparation_monitor, time_left
    from ._plot import write_plot
    from ._run import exit_code, progress
    problem, desc = load_problem(args)
    # the groups (cached) on the command's clock: the MIP's size check before either solver
    # counts on them
    problem.group_rows(stop_check(preparation_monitor(args), "grouping the samples"))
    res = crosscheck_rule_list(problem, args.c, max_rules=args.max_rules, backend=args.backend,
                               time_limit=time_left(args), seed=args.seed,
                               node_limit=args.node_limit, mip_node_limit=args.mip_node_limit,
                               deterministic_time=args.deterministic_time,
                               memory_limit_mb=args.memory_limit_mb, callback=progress(args))
    write_plot(args, [res.reference_certificate, res.mip_certificate], ["CORELS", "MIP"])
    if args.json:
        d = res.to_dict()
        d["data"] = desc
        for key, rl in (("reference", res.reference_rule_list), ("mip", res.mip_rule_list)):
            d[key]["rules_text"] = None if rl is None else rl.to_text(labels=class_labels(args))
        print(json.dumps(d, default=str))
    else:
        print(f"data: {desc}")
        print(f"{problem.n_samples} samples, {problem.n_antecedents} antecedents\n")
        print(res.summary())
    interrupted = exit_code(res.reference_certificate, res.mip_certificate)
    return interrupted or {"agree": 0, "consistent": 0, "disagree": 1}.get(res.verdict, 3)
