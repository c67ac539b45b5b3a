"""Frontier of the rule-list MIP (issue 3): time to proof, or the gap left at the time limit.

Instances are COMPAS subsamples (``compas_train`` of the CORELS distribution: n samples drawn
without replacement with a fixed seed) at c = 0.01, with M antecedents chosen two ways:

* ``top``: the M antecedents of highest support in the subsample (the issue's family);
* ``random``: M antecedents drawn at random (seed 0) among those with support in
  [5%, 95%] -- many more distinct capture patterns, hence a harder MIP.

Every run warm-starts from the greedy list.  The table prints, per (family, n, M, K,
backend): groups, positions actually built (K_eff, from the prefix-length bound), whether the
result is exact for the unrestricted problem, the termination, the time to proof or the
relative gap at the limit, and the ratio to the reference figures of the issue.  An ablation
on one instance measures the cuts, the length bound and the warm start.

    python experiments/bench_rulelist_mip.py            # full table + ablation (~20 min)
    python experiments/bench_rulelist_mip.py --quick    # the two target instances only

The machine is shared: the load average is printed before and after; timings under load
are pessimistic.
"""
from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from rulecert.mipmodels.rulelist import CUT_FAMILIES, solve
from rulecert.problem import RuleProblem

C = 0.01
REFERENCE = {  # (n, M, K, backend) -> (prototype result, seconds or None)
    (100, 20, 3, "highs"): ("proved in 18 s", 18.0),
    (300, 20, 3, "highs"): ("39% gap at 60 s", None),
    (300, 20, 5, "cpsat"): ("proved in 37 s", 37.0),
}
TARGETS = {(300, 20, 5, "highs"): "prove within 60 s", (1000, 20, 5, "cpsat"): "prove within 60 s"}


def compas_subsample(n: int, M: int, family: str, seed: int = 0) -> RuleProblem:
    from rulecert.datasets import load_compas_corels_problem
    full = load_compas_corels_problem("train")
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(full.n_samples, n, replace=False))
    D = full.dense()[idx]
    if family == "top":
        cols = np.argsort(-D.sum(axis=0), kind="stable")[:M]
    else:
        s = D.mean(axis=0)
        ok = np.flatnonzero((s >= 0.05) & (s <= 0.95))
        cols = np.sort(np.random.default_rng(0).choice(ok, M, replace=False))
    return RuleProblem.from_matrix(D[:, cols], full.y[idx], [full.antecedents[j] for j in cols])


def run(problem, K, backend, time_limit, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        t0 = time.perf_counter()
        rl, cert = solve(problem, C, max_rules=K, backend=backend,
                                     time_limit=time_limit, warm_start=kw.pop("warm_start", "greedy"),
                                     **kw)
        wall = time.perf_counter() - t0
    return rl, cert, wall


def fmt_result(cert, wall):
    if cert.proven_optimal:
        return f"proved {wall:6.1f} s"
    return f"gap {100 * cert.rel_gap:5.1f}% ({cert.termination.value})"


def frontier(rows, time_limit):
    hdr = (f"{'family':7s} {'n':>5s} {'M':>3s} {'K':>2s} {'backend':7s} {'G':>4s} {'Keff':>4s} "
           f"{'exact':>5s} {'result':28s} {'objective':>9s} {'bound':>9s} {'warm':>9s}  reference")
    print(hdr)
    print("-" * len(hdr))
    for family, n, M, K, backend in rows:
        p = compas_subsample(n, M, family)
        rl, cert, wall = run(p, K, backend, time_limit)
        s = cert.stats
        ref = ""
        key = (n, M, K, backend)
        if family == "top" or family == "random":
            if key in REFERENCE:
                txt, secs = REFERENCE[key]
                ref = f"prototype: {txt}"
                if secs and cert.proven_optimal:
                    ref += f"; ratio {wall / secs:.3f}"
            if key in TARGETS:
                ref += ("; " if ref else "") + f"target {TARGETS[key]}: " + (
                    "MET" if cert.proven_optimal and wall <= 60 else "NOT MET")
        print(f"{family:7s} {n:5d} {M:3d} {K:2d} {backend:7s} {s['n_groups']:4d} "
              f"{s['effective_max_rules']:4d} {str(s['exact_for_unrestricted']):>5s} "
              f"{fmt_result(cert, wall):28s} {cert.objective:9.5f} {cert.lower_bound:9.5f} "
              f"{cert.warm_start_objective:9.5f}  {ref}", flush=True)


def ablation(time_limit):
    jmlr = ["support", "accuracy", "fixing", "majority"]
    variants = [
        ("default cuts (cuts=True: DEFAULT_CUTS of the backend)", dict(cuts=True)),
        ("no cuts", dict(cuts=False)),
        ("JMLR families (support, accuracy, fixing, majority)", dict(cuts=jmlr)),
        ("all families (+ last, order, disjoint)", dict(cuts=list(CUT_FAMILIES))),
        ("default cuts, no length bound", dict(cuts=True, length_bound=False)),
        ("default cuts, no warm start", dict(cuts=True, warm_start=None)),
    ]
    for family, n, M, K in (("random", 300, 20, 5), ("top", 1000, 20, 5)):
        p = compas_subsample(n, M, family)
        print(f"\nablation on {family} n={n} M={M} K={K} c={C}:")
        for backend in ("highs", "cpsat"):
            for name, kw in variants:
                rl, cert, wall = run(p, K, backend, time_limit, **dict(kw))
                print(f"  {backend:6s} {name:55s} {fmt_result(cert, wall):28s} "
                      f"bound {cert.lower_bound:.5f} obj {cert.objective:.5f} nodes {cert.nodes}",
                      flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--quick", action="store_true", help="only the two target instances")
    ap.add_argument("--no-ablation", action="store_true")
    args = ap.parse_args(argv)
    print(f"rule-list MIP frontier, c={C}, time limit {args.time_limit:.0f} s; "
          f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    if args.quick:
        rows = [("top", 300, 20, 5, "highs"), ("top", 1000, 20, 5, "cpsat")]
    else:
        rows = []
        for family in ("top", "random"):
            for n, K in ((100, 3), (300, 3), (300, 5), (1000, 5)):
                for backend in ("highs", "cpsat"):
                    rows.append((family, n, 20, K, backend))
        rows.insert(2, ("top", 100, 20, 3, "pulp"))
    frontier(rows, args.time_limit)
    if not (args.quick or args.no_ablation):
        ablation(args.time_limit)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
