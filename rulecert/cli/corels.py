"""``rulecert corels``: a certifiably optimal rule list, printed with its certificate."""
from __future__ import annotations

import json
import sys
import time


def add_parser(sub) -> None:
    from ._data import add_data_arguments
    p = sub.add_parser("corels", help="certifiably optimal rule list (CORELS branch-and-bound)")
    add_data_arguments(p)
    from ._data import add_save_model_argument
    add_save_model_argument(p)
    p.add_argument("--c", type=float, default=0.01, help="penalty per rule (default 0.01)")
    p.add_argument("--policy", default="lower_bound",
                   choices=["lower_bound", "bfs", "dfs", "objective", "curiosity"])
    p.add_argument("--max-length", type=int, default=None, help="longest prefix searched")
    p.add_argument("--time-limit", type=float, default=None, help="seconds for the whole search")
    p.add_argument("--node-limit", type=int, default=None, help="node expansions")
    p.add_argument("--memory-limit-mb", type=float, default=None, help="stop cleanly above this RSS")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress indicator on stderr")
    p.set_defaults(func=run)


class _Progress:
    """Writes a progress line to stderr every few seconds once a run is long."""

    def __init__(self, enabled: bool, every: float = 5.0):
        self.enabled, self.every = enabled, every
        self.t0 = time.perf_counter()
        self.last = self.t0

    def __call__(self, info) -> bool:
        now = time.perf_counter()
        if self.enabled and now - self.last >= self.every:
            self.last = now
            keys = ("nodes_expanded", "objective", "lower_bound", "queue_size")
            parts = [f"{k}={info[k]:.6g}" if isinstance(info.get(k), float) else f"{k}={info.get(k)}"
                     for k in keys if k in info]
            print(f"[{now - self.t0:7.1f}s] " + " ".join(parts), file=sys.stderr, flush=True)
        return False


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
    from ..search.corels import corels
    from ._data import class_labels, load_problem, save_model_if_asked
    from ._plot import write_plot
    problem, desc = load_problem(args)
    progress = _Progress(enabled=not args.quiet)
    rule_list, cert = corels(problem, args.c, policy=args.policy, max_length=args.max_length,
                             time_limit=args.time_limit, node_limit=args.node_limit,
                             memory_limit_mb=args.memory_limit_mb, callback=progress)
    res = result_dict(rule_list, cert, problem, args.c)
    res["rules_text"] = rule_list.to_text(probabilities=True, labels=class_labels(args))
    write_plot(args, [cert])
    save_model_if_asked(args, rule_list, c=args.c, certificate=cert.to_dict())
    if args.json:
        print(json.dumps(res, default=str))
        return 0
    print(f"data: {desc}")
    print(f"{problem.n_samples} samples, {problem.n_antecedents} antecedents, c = {args.c}\n")
    print(res["rules_text"])
    print(f"\nmistakes: {res['mistakes']} / {problem.n_samples}, rules: {rule_list.n_rules}")
    print(cert.summary())
    return 0
