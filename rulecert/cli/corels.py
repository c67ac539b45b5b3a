"""``rulecert corels``: a certifiably optimal rule list, printed with its certificate."""
from __future__ import annotations

import json


def add_parser(sub) -> None:
    from ._data import add_data_arguments, reports_limit_stop
    from ._run import add_limit_arguments
    p = sub.add_parser("corels", help="certifiably optimal rule list (CORELS branch-and-bound)")
    add_data_arguments(p)
    from ._data import add_save_model_argument
    add_save_model_argument(p)
    p.add_argument("--c", type=float, default=0.01, help="penalty per rule (default 0.01)")
    p.add_argument("--policy", default="lower_bound",
                   choices=["lower_bound", "bfs", "dfs", "objective", "curiosity"])
    p.add_argument("--max-length", type=int, default=None, help="longest prefix searched")
    add_limit_arguments(p, time_help="seconds for the whole command (reading and mining "
                                     "the data count)",
                        node_help="node expansions (deterministic: the same run every time)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=reports_limit_stop(run))


def result_dict(rule_list, cert, problem, c) -> dict:
    from ..models.rulelist import rule_list_objective
    score = rule_list_objective(rule_list, problem, c)
    return {
        "objective": cert.objective, "lower_bound": cert.lower_bound, "gap": cert.abs_gap,
        "rel_gap": cert.rel_gap, "proven_optimal": cert.proven_optimal,
        "termination": cert.termination.value, "status": cert.status.value,
        "mistakes": score.mistakes, "n_samples": problem.n_samples, "n_rules": rule_list.n_rules,
        "c": c, "rules": [{"antecedent": a.name, "prediction": p}
                          for a, p in zip(rule_list.antecedents, rule_list.predictions)],
        "default": rule_list.default, "nodes_expanded": cert.nodes, "wall_time_s": cert.wall_time,
        "solver": cert.solver, "message": cert.message, "stats": cert.stats,
    }


def run(args) -> int:
    from ..search import corels
    from ._data import class_labels, load_problem, save_model_if_asked, time_left
    from ._plot import write_plot
    from ._run import exit_code, progress
    problem, desc = load_problem(args)
    rule_list, cert = corels.solve(problem, args.c, policy=args.policy, max_length=args.max_length,
                             time_limit=time_left(args), node_limit=args.node_limit,
                             memory_limit_mb=args.memory_limit_mb, callback=progress(args))
    res = result_dict(rule_list, cert, problem, args.c)
    res["rules_text"] = rule_list.to_text(probabilities=True, labels=class_labels(args))
    write_plot(args, [cert])
    save_model_if_asked(args, rule_list, c=args.c, certificate=cert.to_dict())
    if args.json:
        print(json.dumps(res, default=str))
        return exit_code(cert)
    print(f"data: {desc}")
    print(f"{problem.n_samples} samples, {problem.n_antecedents} antecedents, c = {args.c}\n")
    print(res["rules_text"])
    print(f"\nmistakes: {res['mistakes']} / {problem.n_samples}, rules: {rule_list.n_rules}")
    print(cert.summary())
    return exit_code(cert)
