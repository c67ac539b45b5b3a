"""``rulecert frl``: a falling (or, with --soft, softly falling) rule list with its certificate."""
from __future__ import annotations

import json


def add_parser(sub) -> None:
    from ._data import add_data_arguments, reports_limit_stop
    from ._run import add_limit_arguments
    p = sub.add_parser("frl", help="falling / softly falling rule list (Monte-Carlo and exact search)")
    add_data_arguments(p)
    from ._data import add_save_model_argument
    add_save_model_argument(p)
    p.add_argument("--w", type=float, default=7.0, help="positive-class weight (threshold 1/(1+w))")
    p.add_argument("--C", type=float, default=1e-6, help="cost per rule")
    p.add_argument("--soft", action="store_true", help="softly falling rule list (Program 5.1)")
    p.add_argument("--C1", type=float, default=0.5, help="softness penalty (with --soft)")
    p.add_argument("--method", choices=["both", "monte_carlo", "exact"], default="both")
    p.add_argument("--iterations", type=int, default=None,
                   help="Monte-Carlo iterations (default 3000, softFRL 6000; deterministic)")
    p.add_argument("--seed", type=int, default=0, help="Monte-Carlo seed (default 0)")
    p.add_argument("--max-length", type=int, default=None, help="most rules (exact search)")
    add_limit_arguments(p, time_help="seconds for the whole run",
                        node_help="exact-search expansions (deterministic)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=reports_limit_stop(run))


def run(args) -> int:
    from ..search.falling import solve
    from ._data import class_labels, load_problem, save_model_if_asked, time_left
    from ._plot import write_plot
    from ._run import exit_code, progress
    problem, desc = load_problem(args)
    prog = "softfrl" if args.soft else "frl"
    C1 = args.C1 if args.soft else None
    sol = solve(problem, prog, args.w, args.C, C1, method=args.method, iterations=args.iterations,
                seed=args.seed, max_length=args.max_length, time_limit=time_left(args),
                node_limit=args.node_limit, memory_limit_mb=args.memory_limit_mb,
                callback=progress(args))
    model, cert, mc_cert = sol.model, sol.certificate, sol.monte_carlo_certificate
    text = model.to_text(labels=class_labels(args))
    save_model_if_asked(args, model, program=prog, w=args.w, C=args.C, C1=C1,
                        certificate=cert.to_dict())
    if mc_cert is not None and mc_cert is not cert:
        write_plot(args, [mc_cert, cert], ["Monte-Carlo", "branch-and-bound"])
    else:
        write_plot(args, [cert])
    if args.json:
        out = {"program": prog, "w": args.w, "C": args.C, "C1": C1, "model": model.to_dict(),
               "rules_text": text, "certificate": cert.to_dict()}
        if mc_cert is not None and mc_cert is not cert:
            out["monte_carlo"] = {"objective": mc_cert.objective, "wall_time_s": mc_cert.wall_time}
        for d in (out["certificate"],):
            d["stats"] = {k: v for k, v in d["stats"].items() if not isinstance(v, list)}
            d["history"] = d["history"][-20:]
        print(json.dumps(out, default=str))
        return exit_code(cert, mc_cert)
    print(f"data: {desc}")
    print(f"{problem.n_samples} samples, {problem.n_antecedents} antecedents, w = {args.w}, "
          f"C = {args.C}" + (f", C1 = {args.C1}" if args.soft else "") + "\n")
    print(text)
    if mc_cert is not None and mc_cert is not cert:
        print(f"\nMonte-Carlo objective: {mc_cert.objective:.10f} ({mc_cert.wall_time:.2f} s)")
    print(cert.summary())
    return exit_code(cert, mc_cert)
