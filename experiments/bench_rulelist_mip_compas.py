"""The rule-list MIP on full COMPAS (issue 55): does CP-SAT prove CORELS' optimum?

The instance is ``compas_train`` of the CORELS distribution (6,489 rows, 155 antecedents, the
package's CORELS binarization).  For each c the script runs what ``rulecert crosscheck
--backend cpsat --time-limit T`` runs (:func:`rulecert.crosscheck.crosscheck_rule_list`):
CORELS, then the MIP with CORELS' list as warm start and as many positions as the
prefix-length bound allows, 2 CP-SAT workers.  It prints per c the MIP's termination, its
wall seconds, the CPU seconds of the whole crosscheck (CORELS and the MIP), the gap left, the verdict of the comparison and the ratio of the MIP's
wall time to CORELS' (the reference, measured in the same run), with the load average before
and after.

    python experiments/bench_rulelist_mip_compas.py                  # c = 0.01 and 0.005, 600 s
    python experiments/bench_rulelist_mip_compas.py --c 0.01 --time-limit 60

Pass/fail is the certificate (proved or not within the limit); the times are measured only.
The machine is shared: the load average is printed, timings under load are pessimistic.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import warnings

from rulecert.crosscheck import crosscheck_rule_list
from rulecert.datasets import load_compas_corels_problem


def cpu_seconds() -> float:
    """User + system CPU of this process and its threads (CP-SAT's workers included)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:  # pragma: no cover - outside a git checkout
        return "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--c", type=float, nargs="+", default=[0.01, 0.005])
    ap.add_argument("--time-limit", type=float, default=600.0)
    args = ap.parse_args(argv)
    problem = load_compas_corels_problem("train")
    print(f"full COMPAS: {problem.n_samples} rows, {problem.n_antecedents} antecedents; CP-SAT, "
          f"time limit {args.time_limit:g} s per solver; commit {commit()}; {os.cpu_count()} cores; "
          f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    hdr = (f"{'c':>6s} {'K':>2s} {'CORELS':>16s} {'MIP':>12s} {'wall s':>7s} {'CPU s':>7s} "
           f"{'gap':>6s} {'objective':>10s} {'bound':>10s}  {'verdict':11s} {'MIP/CORELS wall':>15s} load")
    print(hdr)
    print("-" * len(hdr))
    for c in args.c:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            cpu0 = cpu_seconds()
            res = crosscheck_rule_list(problem, c, backend="cpsat", time_limit=args.time_limit)
            cpu = cpu_seconds() - cpu0
        rc, mc = res.reference_certificate, res.mip_certificate
        gap = f"{100 * mc.rel_gap:5.2f}%" if mc.objective is not None else "   -  "
        ratio = mc.wall_time / rc.wall_time if rc.wall_time else float("nan")
        print(f"{c:6g} {res.max_rules:2d} {rc.termination.value + f' {rc.wall_time:.1f}s':>16s} "
              f"{mc.termination.value:>12s} {mc.wall_time:7.1f} {cpu:7.1f} {gap:>6s} "
              f"{mc.objective:10.6f} {mc.lower_bound:10.6f}  {res.verdict:11s} {ratio:15.2f} "
              f"{os.getloadavg()[0]:.2f}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
