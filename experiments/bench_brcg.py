"""BooleanRuleCGClassifier against IBM AIX360's BooleanRuleCG, measured in the same run.

For each dataset, 10-fold stratified CV (the folds of brcg_table.py).  AIX360 runs first with
its defaults (lambda0 = lambda1 = 0.001, its FeatureBinarizer with 9 quantile thresholds and
negations), in its own virtualenv through ``aix360_driver.py`` (it pins numpy <= 1.24).  Then
on every fold rulecert fits with the complexity bound C set to the complexity AIX360 reached
on that fold and its time limit set to ``--time-factor`` (default 0.9) times
AIX360's fit time on that fold, a margin for the small overrun of a time-limited fit: equal
complexity, less time ("fixed").  The second variant ("cv") is
BooleanRuleCGCV: C chosen by 3-fold inner cross-validation (the paper's protocol) from the
grid {5, 10, 15, 25, 35} below AIX360's complexity on the fold plus that complexity itself,
then refitted, all inside the same time limit: complexity no higher, no more time.
Printed per dataset and variant: accuracy (s.e.),
complexity and fit seconds per fold of both, the accuracy difference with its paired standard
error over the folds, the time ratio
ours / AIX360 (from the two times measured here), and the share of our folds proven optimal.
Our fit time includes our binarization (inside the estimator); AIX360's excludes its own.
Both learn over the same model class: AIX360 admits the empty clause (always true, complexity
1; it returns it on most ILPD folds), so our fits here use ``empty_clause=True``
(``--no-empty-clause``: clauses of >= 1 literal, C >= 2, the estimator's default).

    python3 -m venv /tmp/aix360-venv && /tmp/aix360-venv/bin/pip install "aix360[rbm]==0.3.0" ecos
    python experiments/bench_brcg.py --aix360-python /tmp/aix360-venv/bin/python --out bench.json
    python experiments/bench_brcg.py --report bench.json     # the table again, no fitting
    python experiments/bench_brcg.py --jobs 2                 # our folds on 2 processes

Our folds run on the experiment runner (rulecert.experiments): one cell per dataset, fold and
variant (learners ``brcg`` and ``brcg_cv``; C and the time limit of each fold are per-cell
overrides), stored in ``--results`` (default ``rulecert-results/bench_brcg``) as they
finish, so a rerun with the same AIX360 figures skips the finished folds.

Without ``--aix360-python`` the AIX360 figures of the issue (measured on another machine) are
used instead and the table says so.  The machine is shared (2 cores): run it alone.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

from _common import AIX360, DATASETS, GRID, load, mean_se

from rulecert.experiments import CV, Study, engines, load_results

HERE = os.path.dirname(os.path.abspath(__file__))


def run_aix360(python, X, y, folds, categorical):
    with tempfile.TemporaryDirectory() as d:
        X.to_csv(f"{d}/X.csv", index=False)
        np.save(f"{d}/y.npy", np.asarray(y, dtype=np.int64))
        with open(f"{d}/job.json", "w") as fh:
            json.dump({"folds": [tr.tolist() for tr, _ in folds],
                       "test": [te.tolist() for _, te in folds],
                       "categorical": categorical or []}, fh)
        out = subprocess.run([python, os.path.join(HERE, "aix360_driver.py"), d],
                             capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"AIX360 driver failed:\n{out.stderr[-3000:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def paired_diff(row):
    """Mean and standard error (over folds) of the per-fold accuracy difference ours - AIX360,
    in points: the folds are the same, so the paired s.e. is the one that says whether the
    difference is more than noise."""
    d = [100 * (f["ours"]["acc"] - f["aix"]["acc"]) for f in row["folds"]]
    return mean_se(d)


def train_loss_ratio(row):
    """The optimizer's target of the issue: training Hamming loss (errors on the fold's
    training set) ours / AIX360 per fold; returns (mean ratio, max ratio, folds with ours <=
    AIX360) or None when AIX360's training accuracy was not measured."""
    ratios, wins = [], 0
    for f in row["folds"]:
        a = f["aix"].get("train_acc")
        if a is None or (isinstance(a, float) and math.isnan(a)):
            return None
        la, lo = 1.0 - a, 1.0 - f["ours"]["train_acc"]
        ratios.append(lo / la if la > 0 else (1.0 if lo == 0 else math.inf))
        wins += lo <= la + 1e-12
    return float(np.mean(ratios)), float(np.max(ratios)), wins


def print_table(rows, time_factor, measured):
    src = "measured in this run" if measured else "figures from the issue (another machine)"
    print(f"\nAIX360 BooleanRuleCG defaults ({src}) vs rulecert, time limit {time_factor:g} x "
          "AIX360's fit time per fold; fixed = C set to AIX360's complexity on the fold, cv = C <= "
          "that chosen by inner CV (BooleanRuleCGCV)")
    print("| dataset | ours | AIX360 acc % (se) / complexity / fit s | ours acc % (se) / complexity / "
          "fit s | acc diff (paired se) | time ratio ours/AIX360 | folds ours >= AIX360 | final fit "
          "proven optimal | train acc % AIX360 / ours | train loss ratio ours/AIX360 mean / max "
          "(folds ours <= AIX360) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        d, d_se = paired_diff(r)
        print(f"| {r['dataset']} | {r['variant']} | {r['aix_acc']:.1f} ({r['aix_se']:.1f}) / {r['aix_cpx']:.1f} / "
              f"{r['aix_time']:.2f} | {r['acc']:.1f} ({r['se']:.1f}) / {r['cpx']:.1f} / "
              f"{r['time']:.2f} | {d:+.1f} ({d_se:.1f}) | {r['time'] / r['aix_time']:.2f} "
              f"| {r['wins']}/{len(r['folds'])} | {r['optimal']:.0%} | {r['aix_train']:.1f} / {r['train']:.1f} "
              f"| {_ratio_text(train_loss_ratio(r), len(r['folds']))} |")


def _ratio_text(lr, n):
    return "-" if lr is None else f"{lr[0]:.2f} / {lr[1]:.2f} ({lr[2]}/{n})"


def study_for(variant, args, aix_by_dataset) -> Study:
    """Our side of the benchmark as a study: one cell per dataset and fold, with the fold's
    complexity bound and time limit (from AIX360's result on it) as overrides."""
    empty = not args.no_empty_clause   # AIX360's model class
    overrides = []
    for name, aix in aix_by_dataset.items():
        for f, a in enumerate(aix):
            C = max(1 if empty else 2, int(a["complexity"]))
            tl = max(0.5, a["time"] * args.time_factor)
            ov = {"dataset": name, "fold": f, "time_limit": tl,
                  "pricing_time_limit": max(0.5, tl / 3)}
            if variant == "fixed":
                ov["complexity_bound"] = C
            else:
                ov["complexity_bounds"] = sorted({c for c in GRID if c < C} | {C})
            overrides.append(ov)
    params = {"empty_clause": empty}
    if variant == "cv":
        params["cv"] = args.inner_folds
    return Study(name="bench_brcg", learner="brcg" if variant == "fixed" else "brcg_cv",
                 datasets=list(aix_by_dataset), params=params,
                 cv=CV(folds=args.folds, seed=args.seed), metrics=["acc", "complexity"],
                 overrides=overrides, results=args.results)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    choices = [d for d in DATASETS if d in AIX360]
    ap.add_argument("--datasets", nargs="+", default=choices, choices=choices)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--aix360-python", default=None,
                    help="python of a virtualenv with aix360[rbm]==0.3.0 (measured in this run)")
    ap.add_argument("--time-factor", type=float, default=0.9,
                    help="our time limit per fit = factor x AIX360's fit time on the fold")
    ap.add_argument("--ours", nargs="+", default=["fixed", "cv"], choices=["fixed", "cv"],
                    help="fixed: C = AIX360's complexity; cv: C <= it chosen by inner CV")
    ap.add_argument("--inner-folds", type=int, default=3)
    ap.add_argument("--no-empty-clause", action="store_true",
                    help="exclude the empty clause (C = max(2, AIX360's complexity))")
    ap.add_argument("--default-time", type=float, default=5.0,
                    help="time limit when AIX360 is not run and the issue gives no time")
    ap.add_argument("--out", "--json", dest="json", default=None,
                    help="write the per-fold results as JSON here")
    ap.add_argument("--report", default=None, metavar="JSON",
                    help="only print the table of a JSON written by --out (no fitting)")
    engines.add_arguments(ap)
    args = ap.parse_args(argv)
    if args.report:
        with open(args.report) as fh:
            print_table(json.load(fh), args.time_factor, measured=True)
        return
    warnings.filterwarnings("ignore", category=UserWarning)
    from sklearn.model_selection import StratifiedKFold

    measured = args.aix360_python is not None
    empty = not args.no_empty_clause   # AIX360's model class
    aix_by = {}
    for name in args.datasets:
        X, y, categorical = load(name)
        folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=args.seed).split(X, y))
        t0 = time.perf_counter()
        if measured:
            aix = run_aix360(args.aix360_python, X, y, folds, categorical)
        else:
            a_acc, a_cpx, a_time = AIX360[name]
            aix = [{"acc": a_acc / 100, "complexity": round(a_cpx),
                    "time": a_time if a_time is not None else args.default_time}] * len(folds)
        aix_by[name] = aix
        print(f"{name}: AIX360 {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
    ours_by = {}
    for variant in args.ours:
        study = study_for(variant, args, aix_by)
        engines.run_from_args(study, args)
        df = load_results(study, args.results)
        for name in args.datasets:
            recs = df[df["dataset"] == name].sort_values("fold")
            for _, r in recs[recs["status"] != "ok"].iterrows():
                print(f"{name} fold {r['fold']} ({variant}): error {r['error']}", file=sys.stderr)
            if len(recs) == args.folds and (recs["status"] == "ok").all():
                ours_by[name, variant] = [
                    {"acc": r["acc"], "train_acc": r["train_acc"], "complexity": int(r["complexity"]),
                     "time": r["fit_time"], "objective": r["objective"], "bound": r["lower_bound"],
                     "rel_gap": r["rel_gap"], "termination": r["termination"]}
                    for _, r in recs.iterrows()]
    rows = []
    for name in args.datasets:
        aix = aix_by[name]
        a_acc, a_se = mean_se([100 * r["acc"] for r in aix])
        for variant in args.ours:
            ours = ours_by.get((name, variant))
            if ours is None:
                continue
            o_acc, o_se = mean_se([100 * r["acc"] for r in ours])
            rows.append({
                "dataset": name, "variant": variant, "empty_clause": empty,
                "aix_acc": a_acc, "aix_se": a_se,
                "aix_cpx": mean_se([r["complexity"] for r in aix])[0],
                "aix_time": mean_se([r["time"] for r in aix])[0],
                "acc": o_acc, "se": o_se, "cpx": mean_se([r["complexity"] for r in ours])[0],
                "time": mean_se([r["time"] for r in ours])[0],
                "train": mean_se([100 * r["train_acc"] for r in ours])[0],
                "aix_train": mean_se([100 * r.get("train_acc", math.nan) for r in aix])[0],
                "optimal": float(np.mean([r["termination"] == "optimal" for r in ours])),
                "wins": sum(o["acc"] >= a["acc"] for o, a in zip(ours, aix)),
                "folds": [{"aix": a, "ours": o} for a, o in zip(aix, ours)]})
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    print_table(rows, args.time_factor, measured)


if __name__ == "__main__":
    main()
