"""The JMLR paper's ablation (Tables 4-5): CORELS on COMPAS with one bound switched off at a time.

    python experiments/corels_ablation.py                  # c = 0.01, limits below
    python experiments/corels_ablation.py --c 0.005 --time-limit 300 --memory-limit-mb 4000
    python experiments/corels_ablation.py --jobs 2         # two rows at a time (timings then
                                                           # share the machine)
    rulecert run experiments/corels_ablation.py && rulecert report experiments/corels_ablation.py

Each row is one run on ``compas_train`` (155 antecedents x 6,489 samples) with all bounds on
except the one named; it prints wall time, node expansions, trie and map insertions, peak
queue size, and the certificate (termination, objective, lower bound, gap).  Rows stopped by a
limit report their proven bound and gap, not an optimum: in the paper, too, switching off the
equivalent points bound makes COMPAS intractable within the machine's memory.
The ratio column is each row's time over the full-CORELS row measured in the same run.
Each row is a cell of the experiment runner (learner ``corels``, grid over ``bounds_off``),
stored in ``--results`` (default ``rulecert-results/corels_ablation``) as it finishes; a rerun
prints the stored rows without searching again.  ``--node-limit`` is a deterministic limit.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from rulecert.experiments import CV, Study, engines, load_results
from rulecert.search.corels import CorelsBounds

OFF = [""] + [f.name for f in dataclasses.fields(CorelsBounds)]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--c", type=float, default=0.01)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--node-limit", type=int, default=None, help="node expansions per row")
    ap.add_argument("--memory-limit-mb", type=float, default=3000.0)
    ap.add_argument("--policy", default="lower_bound")
    ap.add_argument("--name", default="corels_ablation", help="study name (default results folder)")
    engines.add_arguments(ap)
    return ap.parse_args(argv)


def study_from_args(args) -> Study:
    return Study(name=args.name, learner="corels", datasets=["compas_corels_train"],
                 params={"c": args.c, "policy": args.policy},
                 limits={"time_limit": args.time_limit, "node_limit": args.node_limit,
                         "memory_limit_mb": args.memory_limit_mb},
                 grid={"bounds_off": OFF}, cv=CV(kind="none"), metrics=["train_acc", "complexity"],
                 results=args.results)


def build_study(argv=None) -> Study:
    return study_from_args(parse_args(argv if argv is not None else []))


def report(df, study, file=sys.stdout):
    p = {**study.params, **study.limits}
    print(f"# COMPAS compas_train, c={p['c']}, policy={p['policy']}, time limit {p['time_limit']} s, "
          f"memory cap {p['memory_limit_mb']} MB", file=file)
    print(f"{'variant':<24} {'time s':>8} {'ratio':>6} {'expanded':>11} {'trie ins':>11} {'map ins':>11} "
          f"{'max queue':>10} {'termination':>12} {'objective':>11} {'bound':>11} {'gap':>9}", file=file)
    base = None
    for _, r in df.iterrows():
        name = "CORELS (all bounds)" if not r["p_bounds_off"] else f"no {r['p_bounds_off']}"
        if r["status"] != "ok":
            print(f"{name:<24} error: {r['error']}", file=file)
            continue
        cert = json.loads(r["certificate"])
        s = cert["stats"]
        base = base or cert["wall_time"]
        print(f"{name:<24} {cert['wall_time']:>8.2f} {cert['wall_time'] / base:>6.1f} "
              f"{s['nodes_expanded']:>11,} {s['trie_insertions']:>11,} {s['map_insertions']:>11,} "
              f"{s['max_queue_size']:>10,} {cert['termination']:>12} {cert['objective']:>11.7f} "
              f"{cert['lower_bound']:>11.7f} {cert['abs_gap']:>9.2e}", file=file, flush=True)


def main(argv=None) -> int:
    args = parse_args(argv)
    study = study_from_args(args)
    engines.run_from_args(study, args)
    report(load_results(study, args.results), study)
    return 0


if __name__ == "__main__":
    sys.exit(main())
