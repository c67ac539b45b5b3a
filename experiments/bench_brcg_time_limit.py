"""Boolean rule sets under a wall-clock limit on the larger shared tables: does a fit return
within its limit, and is a fit at a larger C at least as good as the same fit at a smaller C?

For each table and each C, one ``BooleanRuleCGClassifier`` fit on all rows (binarized with
deciles and negations) with ``time_limit`` seconds; printed per fit: the wall time of
``fit``, its ratio to the limit (the target: at most ``1 + max(1 s, 2%) / limit``), the
objective (errors), the bound and what gave it.  Then, per table, whether the larger C's
objective is at most the smaller C's (every rule set of complexity ``C1`` is allowed at
``C2 > C1``).  Wall-clock figures depend on the machine and its load; the command and the
machine's load go with every table in ``experiments/results/brcg_certification/``.

    python experiments/bench_brcg_time_limit.py --datasets bank_full compas --C 10 30 --time-limit 60
"""
from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from rulecert import datasets
from rulecert.estimators import BooleanRuleCGClassifier
from rulecert.mining import FeatureBinarizer

TABLES = {"bank_full": lambda: datasets.load_bank_full(),
          "compas": lambda: datasets.load_compas(),
          "tictactoe": lambda: datasets.load_tictactoe(),
          "pima": lambda: datasets.load_pima()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["bank_full", "compas"], choices=TABLES)
    ap.add_argument("--C", type=float, nargs="+", default=[10, 30])
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--effort", default="default")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print(f"{'table':10s} {'rows':>6s} {'C':>4s} {'wall s':>7s} {'/ limit':>7s} {'objective':>9s} "
          f"{'bound':>8s}  bound kind")
    worst = 0.0
    for name in args.datasets:
        X, y = TABLES[name]()
        objectives = {}
        for C in sorted(args.C):
            est = BooleanRuleCGClassifier(complexity_bound=C, effort=args.effort,
                                          time_limit=args.time_limit, random_state=args.seed,
                                          binarizer=FeatureBinarizer(n_thresholds=9,
                                                                     negations=True))
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(X, y)
            wall = time.perf_counter() - t0
            cert = est.certificate_
            objectives[C] = cert.objective
            worst = max(worst, wall / args.time_limit)
            print(f"{name:10s} {len(y):6d} {C:4g} {wall:7.1f} {wall / args.time_limit:7.3f} "
                  f"{cert.objective:9.0f} {cert.lower_bound:8.0f}  {cert.stats['bound_kind']}")
        Cs = sorted(objectives)
        monotone = all(objectives[b] <= objectives[a] for a, b in zip(Cs, Cs[1:]))
        print(f"{name:10s} objective never rises with C: {monotone} "
              f"({', '.join(f'C={c:g}: {objectives[c]:g}' for c in Cs)})")
    allowed = 1 + max(1.0, 0.02 * args.time_limit) / args.time_limit
    print(f"worst wall / limit {worst:.3f} (allowed {allowed:.3f}); load average at end: "
          f"{os.getloadavg()[0]:.1f}")
    return 0 if worst <= allowed else 1


if __name__ == "__main__":
    raise SystemExit(main())
