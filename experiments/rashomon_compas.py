"""The Rashomon set of rule lists on COMPAS (CORELS-binarized train set, 155 antecedents).

For c in {0.01, 0.005} and epsilon in {0.5%, 1%, 2%, 5%}: the number of rule lists within
(1 + epsilon) x optimum, distinct prediction vectors, ambiguity, discrepancy, the enumeration's
work (prefixes expanded), CPU and wall time and peak memory.  Every cell runs under the same
deterministic work limit (``--node-limit`` prefixes, ``--max-models`` lists): a cell that hits it
is reported as stopped, with the smallest objective a missing list could have; a rerun of
unchanged code prints the same table apart from the time and memory columns.

The targets, each printed with its ratio (CPU seconds / target seconds) when its cell is run:
issue 17, c = 0.01, epsilon = 1%: the complete set in under 60 s CPU and 2 GB; issue 55,
c = 0.005, epsilon = 1%: the complete set in under 120 s CPU and 2 GB.  ``--cells`` runs a
few cells only (``c:epsilon`` pairs).  ``--policies`` also checks that depth-first,
breadth-first and best-bound enumeration return the same lists (c = 0.01, epsilon = 0.5%; the
two reference policies are slow pure Python).

Run:  python experiments/rashomon_compas.py [--node-limit N] [--max-models N]
          [--cells 0.005:0.01,0.01:0.01] [--policies]
"""
from __future__ import annotations

import argparse
import os
import resource
import time

from rulecert.datasets import load_compas_corels_problem
from rulecert.search.corels import rashomon_set

CS = (0.01, 0.005)
EPSILONS = (0.005, 0.01, 0.02, 0.05)
TARGETS = {(0.01, 0.01): ("issue 17", 60.0), (0.005, 0.01): ("issue 55", 120.0)}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--node-limit", type=int, default=30_000_000,
                    help="prefixes expanded per cell (deterministic work limit)")
    ap.add_argument("--max-models", type=int, default=1_000_000, help="lists kept per cell")
    ap.add_argument("--cells", default=None,
                    help="comma-separated c:epsilon pairs to run (default: all eight)")
    ap.add_argument("--policies", action="store_true", help="also compare the three policies")
    args = ap.parse_args(argv)
    cells = [(c, e) for c in CS for e in EPSILONS]
    if args.cells:
        try:
            cells = [tuple(float(x) for x in cell.split(":")) for cell in args.cells.split(",")]
        except ValueError:
            ap.error(f"--cells must be c:epsilon pairs such as 0.005:0.01, got {args.cells!r}")
        if any(len(cell) != 2 for cell in cells):
            ap.error(f"--cells must be c:epsilon pairs such as 0.005:0.01, got {args.cells!r}")
    problem = load_compas_corels_problem("train")
    print(f"COMPAS train: {problem.n_samples} samples, {problem.n_antecedents} antecedents; "
          f"limits: {args.node_limit:,} prefixes, {args.max_models:,} lists per cell\n")
    rashomon_set(problem, 0.01, epsilon=0.0)            # compile the kernel outside the timings
    head = (f"{'c':>6} {'eps':>5} {'stopped by':>11} {'lists':>9} {'distinct':>8} {'ambig.':>7} "
            f"{'discr.':>7} {'missing >=':>10} {'prefixes':>11} {'CPU s':>7} {'wall s':>7} {'peak MB':>8}")
    print(head)
    reached = {}
    for c, eps in cells:
        cpu0 = time.process_time()
        rs = rashomon_set(problem, c, epsilon=eps, node_limit=args.node_limit,
                          max_models=args.max_models)
        cert = rs.certificate
        m = rs.multiplicity(problem)
        cpu = time.process_time() - cpu0
        miss = "-" if cert.complete else f"{cert.missing_lower_bound:.6f}"
        print(f"{c:>6} {eps:>5.1%} {cert.termination:>11} {len(rs):>9,} "
              f"{m['n_distinct_predictions']:>8,} {m['ambiguity']:>7.4f} {m['discrepancy']:>7.4f} "
              f"{miss:>10} {cert.nodes:>11,} {cpu:>7.1f} {cert.wall_time:>7.1f} {peak_rss_mb():>8.0f}",
              flush=True)
        if (c, eps) in TARGETS:
            reached[c, eps] = (cert.complete, cpu, peak_rss_mb(), cert.nodes)
    print()
    for (c, eps), (issue, seconds) in TARGETS.items():
        if (c, eps) not in reached:
            continue
        complete, cpu, mb, nodes = reached[c, eps]
        ok = complete and cpu < seconds and mb < 2048
        print(f"target ({issue}) c = {c}, epsilon = {eps:.0%}: complete={complete} after "
              f"{nodes:,} prefixes, {cpu:.1f} s CPU = {cpu / seconds:.2f} x the {seconds:.0f} s "
              f"target, peak {mb:.0f} MB (< 2048; the process peak so far) -> "
              f"{'MET' if ok else 'NOT MET'}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.policies:
        sets = {p: rashomon_set(problem, 0.01, epsilon=0.005, policy=p) for p in ("dfs", "bfs", "lower_bound")}
        same = len({tuple(s.prefixes) for s in sets.values()}) == 1
        print("policies dfs / bfs / lower_bound at c = 0.01, epsilon = 0.5%: "
              + ", ".join(f"{p} {len(s)} lists in {s.certificate.wall_time:.1f} s" for p, s in sets.items())
              + f" -> {'the same lists' if same else 'DIFFERENT lists'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
