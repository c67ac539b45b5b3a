"""BooleanRuleCGClassifier against AIX360's BooleanRuleCG figures (from the issue).

For each dataset, 10-fold stratified CV (same seeds as brcg_table.py) with the complexity
bound C set to AIX360's mean complexity (rounded) and the fit time limited to AIX360's time
per fold (``--time-factor`` scales it; liver has no AIX360 time, ``--default-time`` is used).
Prints the comparison table: accuracy, complexity and fit time per fold, with the accuracy
difference and the time ratio (ours / AIX360).  AIX360 itself is not run here (it pins
numpy <= 1.24); its figures were measured on another machine, so the time ratio is only
indicative, and this machine is shared (2 cores), so our timings may be disturbed by load.

    python experiments/bench_brcg.py --datasets transfusion liver
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

from brcg_table import AIX360, DATASETS, fit_eval, load, make_binarizer, mean_se


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=[d for d in DATASETS if d in AIX360],
                    choices=[d for d in DATASETS if d in AIX360])
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-factor", type=float, default=1.0,
                    help="our time limit per fit = factor x AIX360's time per fold")
    ap.add_argument("--default-time", type=float, default=5.0)
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=UserWarning)
    from sklearn.model_selection import StratifiedKFold

    from rulecert.estimators.brcg import BooleanRuleCGClassifier

    rows = []
    for name in args.datasets:
        a_acc, a_cpx, a_time = AIX360[name]
        C = max(2, int(round(a_cpx)))
        tl = (a_time if a_time is not None else args.default_time) * args.time_factor
        X, y, categorical = load(name)
        res = []
        t0 = time.perf_counter()
        for f, (tr, te) in enumerate(StratifiedKFold(args.folds, shuffle=True,
                                                      random_state=args.seed).split(X, y)):
            clf = BooleanRuleCGClassifier(complexity_bound=C, time_limit=tl,
                                          pricing_time_limit=max(1.0, tl / 3),
                                          random_state=args.seed + f,
                                          binarizer=make_binarizer(categorical))
            res.append(fit_eval(clf, X, y, tr, te))
        acc, se = mean_se([100 * r["acc"] for r in res])
        cpx, _ = mean_se([r["complexity"] for r in res])
        t, _ = mean_se([r["time"] for r in res])
        rows.append((name, a_acc, a_cpx, a_time, acc, se, cpx, t, C, tl,
                     np.mean([r["termination"] == "optimal" for r in res])))
        print(f"{name}: {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
    print("\n| dataset | AIX360 acc / complexity / s per fold | ours acc (se) / complexity / s per "
          "fold | acc diff | time ratio | C, our limit s | proven optimal |")
    print("|---|---|---|---|---|---|---|")
    for name, a_acc, a_cpx, a_time, acc, se, cpx, t, C, tl, opt in rows:
        at = f"{a_time:.1f}" if a_time is not None else "-"
        ratio = f"{t / a_time:.2f}" if a_time else "-"
        print(f"| {name} | {a_acc:.1f} / {a_cpx:.1f} / {at} | {acc:.1f} ({se:.1f}) / {cpx:.1f} / "
              f"{t:.1f} | {acc - a_acc:+.1f} | {ratio} | {C}, {tl:.1f} | {opt:.0%} |")


if __name__ == "__main__":
    main()
