"""Speed of Algorithm FRL / softFRL and of the exact search on tic-tac-toe.

Reference (issue 4): the authors' Python 2 code took 14 s for 3,000 Algorithm-FRL iterations
on tic-tac-toe with 302 antecedents.  Here the squares are one-hot encoded (27 literals) and
antecedents mined by FP-growth within each class (at most 2 predicates); ``--min-support``
0.078 gives 307 antecedents (10% gives 251; no support gives exactly 302).

Prints: the time of 3,000 FRL iterations (after a numba warm-up, which is reported apart) and
the ratio 14 s / ours; 6,000 softFRL iterations for information; then the exact
branch-and-bound, seeded with the Monte-Carlo list, for several (w, C) under a time limit:
objective, proven bound, gap, nodes, time.  Timings are wall-clock on a 2-core machine
shared with other jobs.

Run:  python experiments/bench_falling.py [--time-limit S] [--min-support F] [--seeds K]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from rulecert.datasets import load_tictactoe
from rulecert.mining.fpgrowth import mine_fpgrowth
from rulecert.search.falling.bnb import branch_and_bound
from rulecert.search.falling.mc import monte_carlo

REFERENCE_SECONDS = 14.0
REFERENCE_ITERATIONS = 3000


def tictactoe_problem(min_support: float):
    X, y = load_tictactoe()
    Xb = pd.get_dummies(X.astype(str), prefix_sep="=").astype(np.uint8)
    aset = mine_fpgrowth(Xb, np.asarray(y), max_predicates=2, min_support=min_support)
    return aset.to_problem(np.asarray(y)), Xb.shape[1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-support", type=float, default=0.078)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--settings", type=str, default="7:1e-6,7:0.01,3:0.01,1:0.01,1:0.03,7:0.05",
                    help="comma-separated w:C pairs for the exact search")
    args = ap.parse_args(argv)
    problem, d = tictactoe_problem(args.min_support)
    print(f"tic-tac-toe: {problem.n_samples} samples, {d} literals, {problem.n_antecedents} "
          f"antecedents (FP-growth, <= 2 predicates, support >= {args.min_support:g} of a class)")
    t = time.perf_counter()
    monte_carlo(problem, "frl", 7.0, 1e-6, iterations=5, seed=0)
    print(f"numba warm-up (compile or load from cache): {time.perf_counter() - t:.2f} s")

    times = []
    best = []
    for seed in range(args.seeds):
        m, c = monte_carlo(problem, "frl", 7.0, 1e-6, iterations=REFERENCE_ITERATIONS, seed=seed)
        times.append(c.wall_time)
        best.append(c.objective)
    tm = float(np.median(times))
    print(f"Algorithm FRL, w=7, C=1e-6, {REFERENCE_ITERATIONS} iterations: median {tm:.3f} s over "
          f"{args.seeds} seeds (best objectives {', '.join(f'{b:.5f}' for b in best)})")
    print(f"  speed-up vs the authors' 14 s: {REFERENCE_SECONDS / tm:.1f}x (target >= 10x)")
    m, c = monte_carlo(problem, "softfrl", 7.0, 1e-6, 0.5, iterations=6000, seed=0)
    print(f"Algorithm softFRL, w=7, C=1e-6, C1=0.5, 6000 iterations: {c.wall_time:.3f} s, "
          f"best {c.objective:.5f}")
    print()
    print("exact branch-and-bound (seeded with 1000 Monte-Carlo iterations), limit "
          f"{args.time_limit:g} s each")
    print("program  w     C        MC obj     objective  lower bound  gap        status       nodes      time s")
    for prog in ("frl", "softfrl"):
        for item in args.settings.split(","):
            w, C = (float(v) for v in item.split(":"))
            mm, mc = monte_carlo(problem, prog, w, C, 0.5, iterations=1000, seed=0)
            bm, bc = branch_and_bound(problem, prog, w, C, 0.5, time_limit=args.time_limit, incumbent=mm)
            print(f"{prog:8s} {w:<5g} {C:<8g} {mc.objective:.6f}   {bc.objective:.6f}   "
                  f"{bc.lower_bound:.6f}     {bc.abs_gap:.6f}   {bc.termination.value:12s} "
                  f"{bc.nodes:<10d} {bc.wall_time:.1f}", flush=True)


if __name__ == "__main__":
    main()
