"""``rulecert rashomon``: every rule list within epsilon of the optimum, counted and described."""
from __future__ import annotations

import json


def add_parser(sub) -> None:
    from ._data import add_data_arguments, reports_limit_stop
    from ._run import add_limit_arguments
    p = sub.add_parser("rashomon", help="the Rashomon set: every rule list within epsilon of the "
                                        "optimum, with ambiguity, discrepancy and feature usage")
    add_data_arguments(p)
    p.add_argument("--c", type=float, default=0.01, help="penalty per rule (default 0.01)")
    p.add_argument("--epsilon", type=float, default=None,
                   help="relative slack: threshold = (1 + epsilon) x optimum (default 0.01)")
    p.add_argument("--threshold", type=float, default=None, help="an absolute objective instead")
    p.add_argument("--max-length", type=int, default=None, help="longest list enumerated")
    p.add_argument("--policy", default="dfs", choices=["dfs", "bfs", "lower_bound"])
    p.add_argument("--max-models", type=int, default=1_000_000, help="stop past this many lists")
    add_limit_arguments(p, time_help="seconds for the whole run",
                        node_help="prefixes expanded (deterministic)")
    p.add_argument("--top", type=int, default=5, help="lists printed")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=reports_limit_stop(run))


def run(args) -> int:
    from ..search.corels import rashomon_set
    from ._data import load_problem, preparation_monitor, time_left
    from ._plot import write_figure
    from ._run import exit_code, progress
    if args.epsilon is None and args.threshold is None:
        args.epsilon = 0.01
    problem, desc = load_problem(args)
    rs = rashomon_set(problem, args.c, epsilon=args.epsilon if args.threshold is None else None,
                      threshold=args.threshold, max_length=args.max_length, policy=args.policy,
                      max_models=args.max_models, time_limit=time_left(args),
                      node_limit=args.node_limit, memory_limit_mb=args.memory_limit_mb,
                      callback=progress(args))
    # the measures over the set (a pass over every list found) run on the command's clock:
    # a limit or Ctrl-C stops them with the measures of the lists covered so far
    mult = rs.multiplicity(problem, preparation_monitor(args))
    usage = mult.pop("feature_usage")
    stopped = mult.get("stopped")
    write_figure(args, lambda: _draw(rs))       # written once the result is printed
    if args.json:
        out = {"data": desc, "c": args.c, "certificate": rs.certificate.to_dict(),
               "multiplicity": mult, "feature_usage": usage,
               "lists": [{"objective": float(o), "antecedents": [rs.antecedent_names[a] for a in p]}
                         for p, o in zip(rs.prefixes[:args.top], rs.objectives[:args.top])]}
        print(json.dumps(out, default=str))
        return exit_code(rs.certificate, rs.certificate.optimum_certificate)
    print(f"data: {desc}")
    print(f"{problem.n_samples} samples, {problem.n_antecedents} antecedents, c = {args.c}\n")
    print(rs.summary(None, top=args.top))
    if mult["n_lists"]:
        print(f"distinct prediction vectors: {mult['n_distinct_predictions']}; ambiguity "
              f"{mult['ambiguity']:.4f}; discrepancy {mult['discrepancy']:.4f}")
    if usage:
        print("feature usage (share of the lists): "
              + ", ".join(f"{f} {v:.0%}" for f, v in list(usage.items())[:10]))
    if stopped:
        print(f"(incomplete, {stopped}: the measures above cover the best "
              f"{mult['n_lists']:,} of the {len(rs):,} lists found)")
    return exit_code(rs.certificate, rs.certificate.optimum_certificate)


def _draw(rs):
    """The set's objectives and its feature usage, side by side (the axes of the first)."""
    import matplotlib.pyplot as plt

    from .. import plotting
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    plotting.plot_rashomon(rs, ax=axes[0])
    plotting.plot_feature_usage(rs, ax=axes[1])
    return axes[0]
