"""Certificates of the exact FRL / softFRL searches on bank-full (Chen & Rudin's study, issue 55).

The problem is built as in ``experiments/frl_bank.py`` (63 literals, FP-growth antecedents with
at most 2 predicates and support >= 10% of one class), at w = 7, C = 1e-6, C1 = 0.5.  For each
program: the Monte-Carlo search (Algorithm FRL / softFRL, seed 0, the paper's 3000 / 6000
iterations) seeds the exact branch-and-bound, which runs under a deterministic node limit
(``--nodes``, decides what is compared) and a time cap (``--time-limit``, a guard).

Prints, per program: the Monte-Carlo objective, the exact search's objective, proven lower
bound, relative gap, termination, nodes, CPU and wall seconds, and the bound's trajectory over
the nodes.  References measured in the same run: the objective of the paper's Table 1 list on
these antecedents (the ratio objective / Table 1 is printed) and the Monte-Carlo search's
objective.  Pass: the exact search's gap is below ``--target-gap`` (default 2%) or the
certificate is OPTIMAL.  The load average is printed first (the machine is shared).

Run:  python experiments/bench_frl_bank.py [--nodes N] [--time-limit S] [--programs frl,softfrl]
"""
from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from frl_bank import table1_prefix
from rulecert.datasets import bank_full_literals, load_bank_full
from rulecert.mining.fpgrowth import mine_fpgrowth
from rulecert.models.falling import frl_objective
from rulecert.search.falling.bnb import branch_and_bound
from rulecert.search.falling.mc import monte_carlo

W, C, C1 = 7.0, 1e-6, 0.5


def bank_problem():
    """The bank-full RuleProblem of frl_bank.py's whole-data study."""
    X, y = load_bank_full()
    y = np.asarray(y, dtype=np.int64)
    return mine_fpgrowth(bank_full_literals(X), y, max_predicates=2, min_support=0.1).to_problem(y)


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def trajectory(cert, points: int = 6) -> str:
    """(nodes, lower bound) at about ``points`` evenly spaced samples of the history."""
    h = [s for s in cert.history if s.get("nodes") is not None and s["lower_bound"] == s["lower_bound"]]
    if not h:
        return "-"
    pick = sorted({round(k * (len(h) - 1) / (points - 1)) for k in range(points)})
    return ", ".join(f"{h[k]['nodes']}:{h[k]['lower_bound']:.4f}" for k in pick)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=20000, help="node limit of each exact search")
    ap.add_argument("--time-limit", type=float, default=600.0, help="time cap of each exact search (s)")
    ap.add_argument("--programs", type=str, default="frl,softfrl")
    ap.add_argument("--target-gap", type=float, default=0.02)
    args = ap.parse_args(argv)
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    problem = bank_problem()
    pre = table1_prefix(problem)
    ref = frl_objective(problem, pre, W, C).objective if pre is not None else float("nan")
    print(f"bank-full: {problem.n_samples} samples, {problem.n_antecedents} antecedents; "
          f"w={W:g}, C={C:g}, C1={C1:g}; Table 1 list here: {ref:.6f}")
    print("program  MC obj     objective  bound      gap      status       nodes    CPU s   wall s  obj/Table1")
    rows = []
    for prog in args.programs.split(","):
        mm, mc = monte_carlo(problem, prog, W, C, C1, seed=0)
        t0, c0 = time.perf_counter(), cpu()
        _, bc = branch_and_bound(problem, prog, W, C, C1, node_limit=args.nodes,
                                 time_limit=args.time_limit, incumbent=mm)
        wall, cpus = time.perf_counter() - t0, cpu() - c0
        ok = bc.proven_optimal or bc.rel_gap < args.target_gap
        rows.append(ok)
        print(f"{prog:8s} {mc.objective:.6f}   {bc.objective:.6f}   {bc.lower_bound:.6f}   "
              f"{bc.rel_gap:6.2%}   {bc.termination.value:12s} {bc.nodes:<8d} {cpus:7.1f} "
              f"{wall:8.1f}  {bc.objective / ref:.4f}  {'PASS' if ok else 'FAIL'}", flush=True)
        print(f"         bound by nodes: {trajectory(bc)}", flush=True)
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0 if all(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
