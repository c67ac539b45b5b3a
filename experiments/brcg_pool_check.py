"""Where does the accuracy gap to AIX360 come from: the column pool or the final selection?

For each fold (the folds of ``bench_brcg.py``), AIX360's BooleanRuleCG runs in its own
virtualenv (``aix360_driver.py`` with ``dump``), which saves its binarized matrices, its whole
column pool and its selected clauses.  Then, on exactly those binary matrices and at
C = AIX360's complexity on the fold (the empty clause admitted, as in AIX360), rulecert solves:

* ``aix360 pool``: the restricted master IP over AIX360's column pool only (no pricing);
* ``heuristic pricing``: column generation with the paper's greedy pricing only;
* ``default``: column generation as the estimator does it (greedy, beam, exact pricing).

Each row: mean test accuracy (s.e.), mean training Hamming loss (the objective every mode
minimizes; AIX360's selection evaluated with the same formula), mean complexity, and the paired
accuracy difference to AIX360 with its standard error.

    python experiments/brcg_pool_check.py --aix360-python /tmp/aix360-venv/bin/python --datasets pima
"""
from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from _common import load, mean_se
from bench_brcg import run_aix360

MODES = ("aix360 pool", "heuristic pricing", "default")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--aix360-python", required=True)
    ap.add_argument("--datasets", nargs="+", default=["pima"])
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per rulecert fit")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=UserWarning)
    from sklearn.model_selection import StratifiedKFold

    from rulecert.mipmodels.colgen import solve
    from rulecert.models.ruleset import ruleset_objective
    from rulecert.problem import RuleProblem
    from rulecert.models.ruleset import RuleSet

    for name in args.datasets:
        X, y, categorical = load(name)
        folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=args.seed).split(X, y))
        res = {m: [] for m in ("aix360",) + MODES}
        aix, dumped = run_aix360(args.aix360_python, X, y, folds, categorical, dump=True)
        for f, (tr, te) in enumerate(folds):
            Xtr, Xte = dumped[f]["Xtr"], dumped[f]["Xte"]
            a = dict(aix[f], pool=dumped[f]["pool"], selected=dumped[f]["selected"])
            p = RuleProblem.from_matrix(Xtr, y[tr])
            C = max(1, a["complexity"])
            rs = RuleSet.from_feature_sets([a["pool"][k] for k in a["selected"]])
            res["aix360"].append((float((rs.predict(Xte) == y[te]).mean()),
                                  ruleset_objective(rs, p).hamming_loss, rs.complexity))
            pool = [c for c in a["pool"] if c]
            for mode in MODES:
                kw = {"aix360 pool": dict(initial_clauses=pool, max_iter=0),
                      "heuristic pricing": dict(pricing="heuristic"), "default": {}}[mode]
                rs, cert = solve(p, complexity_bound=C, empty_clause=True,
                                 time_limit=args.time_limit,
                                 pricing_seconds=args.time_limit / 3, seed=args.seed + f, **kw)
                res[mode].append((float((rs.predict(Xte) == y[te]).mean()),
                                  cert.stats["hamming_loss"], rs.complexity))
            print(f"{name} fold {f} C={C}: " + ", ".join(
                f"{m} {100 * r[-1][0]:.1f}% / loss {r[-1][1]:g}" for m, r in res.items()),
                file=sys.stderr, flush=True)
        print(f"\n{name}: {args.folds} folds, AIX360's binarization, C = AIX360's complexity per "
              f"fold, {args.time_limit:g} s per rulecert fit")
        print("| model | test acc % (se) | training Hamming loss | complexity | acc diff to AIX360 "
              "(paired se) |")
        print("|---|---|---|---|---|")
        base = [r[0] for r in res["aix360"]]
        for m, rows in res.items():
            acc, se = mean_se([100 * r[0] for r in rows])
            dd, dse = mean_se([100 * (r[0] - b) for r, b in zip(rows, base)])
            print(f"| {m} | {acc:.1f} ({se:.1f}) | {np.mean([r[1] for r in rows]):.1f} | "
                  f"{np.mean([r[2] for r in rows]):.1f} | {dd:+.1f} ({dse:.1f}) |")


if __name__ == "__main__":
    main()
