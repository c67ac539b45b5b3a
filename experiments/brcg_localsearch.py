"""Ablation of the restricted IP's local search (``ColGenOptions.local_search``).

For each (dataset, C) and the first ``--folds`` outer folds of ``brcg_table.py``, the same
fit is run twice back to back, with and without the local search, under the table's wall-clock
limit (``--time-limit``, default 5 s): training objective (Hamming loss) of both, the greedy
start's objective, the local search's time and both test accuracies; then how many pairs
the local search made better, equal or worse.  Wall-clock limits make single pairs depend
on the machine's load; run it alone.

    python experiments/brcg_localsearch.py
    python experiments/brcg_localsearch.py --cases ilpd:10 pima:25 --folds 5
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np

from _common import load, make_binarizer

CASES = ["ilpd:10", "ilpd:25", "pima:15", "pima:25", "heart:15", "liver:15", "banknote:25",
         "wdbc:15", "ionosphere:15"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=CASES, help="dataset:C pairs")
    ap.add_argument("--folds", type=int, default=3, help="the first folds of the 10-fold split")
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--pricing-time-limit", type=float, default=2.0)
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=UserWarning)
    from sklearn.model_selection import StratifiedKFold

    from rulecert.mipmodels.colgen import solve
    from rulecert.problem import RuleProblem
    print("| dataset | C | fold | objective without / with | greedy start | search s | "
          "test acc without / with |")
    print("|---|---|---|---|---|---|---|")
    tally = {"better": 0, "equal": 0, "worse": 0}
    for case in args.cases:
        name, C = case.split(":")
        X, y, categorical = load(name)
        folds = StratifiedKFold(10, shuffle=True, random_state=0).split(X, y)
        for f, (tr, te) in zip(range(args.folds), folds):
            fb = make_binarizer(categorical).fit(X.iloc[tr])
            Xb, Xt = np.asarray(fb.transform(X.iloc[tr])), np.asarray(fb.transform(X.iloc[te]))
            problem = RuleProblem.from_matrix(Xb, y[tr])
            out = {}
            for ls in (False, True):
                rs, cert = solve(problem, complexity_bound=int(C), time_limit=args.time_limit,
                                 pricing_seconds=args.pricing_time_limit, seed=f,
                                 _local_search=ls)
                out[ls] = (cert.objective, float((rs.predict(Xt) == y[te]).mean()),
                           cert.stats["local_search"], cert.stats["time"]["local_search"])
            (o0, a0, _, _), (o1, a1, info, t1) = out[False], out[True]
            tally["better" if o1 < o0 else "equal" if o1 == o0 else "worse"] += 1
            print(f"| {name} | {C} | {f} | {o0:g} / {o1:g} | {info['greedy_objective']:g} | "
                  f"{t1:.2f} | {100 * a0:.1f} / {100 * a1:.1f} |", flush=True)
    print(f"\nwith the local search: {tally['better']} better, {tally['equal']} equal, "
          f"{tally['worse']} worse (training objective)")


if __name__ == "__main__":
    main()
