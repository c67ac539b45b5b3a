"""BooleanRuleCGClassifier against IBM AIX360's BooleanRuleCG, measured in the same run.

For each dataset, 10-fold stratified CV (the folds of brcg_table.py).  AIX360 runs first with
its defaults (lambda0 = lambda1 = 0.001, its FeatureBinarizer with 9 quantile thresholds and
negations), in its own virtualenv through ``aix360_driver.py`` (it pins numpy <= 1.24).  Three
variants of our side (``--ours``, all by default):

* "same" (the optimizer's target of issue 16): on every fold, right after AIX360's run on the
  dataset, rulecert's column generation (``rulecert.mipmodels.colgen.solve``, the empty clause
  admitted) on exactly AIX360's binarized training matrix of the fold (the driver dumps it),
  with C = AIX360's complexity on the fold (clauses + literals, at least 1) and a time limit of
  ``--time-factor`` (default 0.9) x AIX360's fit time on it.  Both rule sets (ours, and
  AIX360's selected clauses of its dumped column pool) are evaluated on the same matrices by
  the same code: training errors, the paper's training Hamming loss (the objective both
  minimize), test accuracy.  Printed per dataset: the training-loss ratios ours / AIX360
  (mean, max, folds with ours <= AIX360), the fit-time ratio, test accuracies with the paired
  s.e. of the difference, the share of our fits proven optimal and our certified gap; and
  checks: AIX360's accuracies recomputed from its clauses equal its own predict's, and its
  Hamming loss is >= our certified lower bound.  Fit times exclude the binarization on both
  sides; the solvers' imports and compiled search are loaded once before our first timed fit
  (``warm_up``), as AIX360's imports precede its timed fits.  Needs ``--aix360-python``.
* "fixed": the estimator BooleanRuleCGClassifier with our binarizer, C set to the complexity
  AIX360 reached on the fold, the same time limit: equal complexity, less time.
* "cv": BooleanRuleCGCV, C chosen by 3-fold inner cross-validation (the paper's protocol) from
  the grid {5, 10, 15, 25, 35} below AIX360's complexity on the fold plus that complexity
  itself, then refitted, all inside the same time limit: complexity no higher, no more time.

Printed per dataset for "fixed" and "cv": accuracy (s.e.), complexity and fit seconds per fold
of both, the accuracy difference with its paired standard error over the folds, the time ratio
ours / AIX360 (from the two times measured here), and the share of our folds proven optimal.
Their fit time includes our binarization (inside the estimator); AIX360's excludes its own.
All variants learn over AIX360's model class: it admits the empty clause (always true,
complexity 1; it returns it on most ILPD folds), so our fits use ``empty_clause=True``
(``--no-empty-clause``: clauses of >= 1 literal, C >= 2, the estimator's default).

    python3 -m venv /tmp/aix360-venv && /tmp/aix360-venv/bin/pip install "aix360[rbm]==0.3.0" ecos
    python experiments/bench_brcg.py --aix360-python /tmp/aix360-venv/bin/python --out bench.json
    python experiments/bench_brcg.py --aix360-python /tmp/aix360-venv/bin/python --ours same \
        --datasets pima wdbc --out same.json                  # the same-matrix comparison only
    python experiments/bench_brcg.py --report bench.json     # the tables again, no fitting
    python experiments/bench_brcg.py --jobs 2                 # fixed/cv folds on 2 processes

The "fixed" and "cv" folds run on the experiment runner (rulecert.experiments): one cell per
dataset, fold and variant (learners ``brcg`` and ``brcg_cv``; C and the time limit of each
fold are per-cell overrides), stored in ``--results`` (default ``rulecert-results/bench_brcg``)
as they finish, so a rerun with the same AIX360 figures skips the finished folds.  The "same"
folds run in this process, one after the other; ``--out`` is rewritten after each dataset.

Without ``--aix360-python`` the AIX360 figures of the issue (measured on another machine) are
used instead for "fixed" and "cv" (no "same") and the table says so.  The machine is shared
(2 cores): run it alone.
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
from rulecert.mipmodels import colgen
from rulecert.mipmodels.colgen.pricing import warm_up
from rulecert.models.ruleset import RuleSet, ruleset_objective_xy
from rulecert.problem import RuleProblem

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("same", "fixed", "cv")


def run_aix360(python, X, y, folds, categorical, dump=False):
    """AIX360's record per fold (``aix360_driver.py``).  With ``dump``, also per fold what the
    same-matrix comparison needs: AIX360's binarized training and test matrices (bool), its
    column pool, selected clauses and column names (taken out of the record)."""
    with tempfile.TemporaryDirectory() as d:
        X.to_csv(f"{d}/X.csv", index=False)
        np.save(f"{d}/y.npy", np.asarray(y, dtype=np.int64))
        with open(f"{d}/job.json", "w") as fh:
            json.dump({"folds": [tr.tolist() for tr, _ in folds],
                       "test": [te.tolist() for _, te in folds],
                       "categorical": categorical or [], "dump": dump}, fh)
        out = subprocess.run([python, os.path.join(HERE, "aix360_driver.py"), d],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"AIX360 driver failed:\n{out.stderr[-3000:]}")
        recs = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        dumped = [{"Xtr": np.load(f"{d}/fold{k}_train.npy").astype(bool),
                   "Xte": np.load(f"{d}/fold{k}_test.npy").astype(bool),
                   **{key: r.pop(key) for key in ("pool", "selected", "columns")}}
                  for k, r in enumerate(recs)] if dump else None
    return recs, dumped


def paired_diff(row):
    """Mean and standard error (over folds) of the per-fold accuracy difference ours - AIX360,
    in points: the folds are the same, so the paired s.e. is the one that says whether the
    difference is more than noise."""
    d = [100 * (f["ours"]["acc"] - f["aix"]["acc"]) for f in row["folds"]]
    return mean_se(d)


def train_loss_ratio(row, key=None):
    """The optimizer's target of the issue: training loss ours / AIX360 per fold; returns
    (mean ratio, max ratio, folds with ours <= AIX360) or None when AIX360's training loss was
    not measured.  The loss is the fold record's ``key`` (``train_hamming``: the paper's Hamming
    loss; ``train_errors``: misclassified training samples), or 1 - ``train_acc`` by default
    (the same ratio as the errors: the same training set on both sides)."""
    ratios, wins = [], 0
    for f in row["folds"]:
        la, lo = (_train_loss(f[side], key) for side in ("aix", "ours"))
        if math.isnan(la):
            return None
        ratios.append(lo / la if la > 0 else (1.0 if lo == 0 else math.inf))
        wins += lo <= la + 1e-12
    return float(np.mean(ratios)), float(np.max(ratios)), wins


def _train_loss(rec, key):
    v = rec.get(key or "train_acc")
    if v is None or math.isnan(v):
        return math.nan
    return v if key else 1.0 - v


def print_table(rows, time_factor, measured):
    """The table of the estimator variants (fixed, cv), then the one of the same-matrix
    comparison (same), each when the rows hold it."""
    est = [r for r in rows if r["variant"] != "same"]
    same = [r for r in rows if r["variant"] == "same"]
    if est:
        print_estimator_table(est, time_factor, measured)
    if same:
        print_same_table(same, time_factor)


def print_estimator_table(rows, time_factor, measured):
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


def print_same_table(rows, time_factor):
    print(f"\nSame binary matrices: AIX360 BooleanRuleCG defaults vs rulecert's column generation "
          f"on AIX360's binarized training matrix of each fold, C = AIX360's complexity on the "
          f"fold, time limit {time_factor:g} x AIX360's fit time on it (both measured in this "
          "run; fit times exclude the binarization on both sides).  Training losses of both rule "
          "sets recomputed on the same matrix by the same code: errors (misclassified training "
          "samples) and the paper's Hamming loss (false negatives + clauses covering each "
          "negative), the objective both minimize; loss ratio ours / AIX360 per fold.")
    print("| dataset | C | train errors AIX360 / ours | error ratio mean / max (folds ours <= "
          "AIX360) | Hamming AIX360 / ours / our bound | Hamming ratio mean / max (folds ours <= "
          "AIX360) | fit s AIX360 / ours | time ratio ours/AIX360 (max fold) | test acc % AIX360 "
          "(se) / ours (se) | acc diff (paired se) | proven optimal | our gap % mean / max |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    bad = []
    for r in rows:
        folds, n = r["folds"], len(r["folds"])
        col = lambda side, key: float(np.mean([f[side][key] for f in folds]))  # noqa: E731
        d, d_se = paired_diff(r)
        gaps = [100 * f["ours"]["rel_gap"] for f in folds]
        t_max = max(f["ours"]["time"] / f["aix"]["time"] for f in folds)
        print(f"| {r['dataset']} | {col('aix', 'complexity'):.1f} "
              f"| {col('aix', 'train_errors'):.1f} / {col('ours', 'train_errors'):.1f} "
              f"| {_ratio_text(train_loss_ratio(r, 'train_errors'), n)} "
              f"| {col('aix', 'train_hamming'):.1f} / {col('ours', 'train_hamming'):.1f} / "
              f"{col('ours', 'bound'):.1f} | {_ratio_text(train_loss_ratio(r, 'train_hamming'), n)} "
              f"| {r['aix_time']:.2f} / {r['time']:.2f} | {r['time'] / r['aix_time']:.2f} "
              f"({t_max:.2f}) | {r['aix_acc']:.1f} ({r['aix_se']:.1f}) / {r['acc']:.1f} "
              f"({r['se']:.1f}) | {d:+.1f} ({d_se:.1f}) | {r['optimal']:.0%} "
              f"| {np.mean(gaps):.1f} / {np.max(gaps):.1f} |")
        bad += [f"{r['dataset']} fold {k}: {msg}" for k, f in enumerate(folds)
                for msg in _same_checks(f)]
    print("Checks (AIX360's accuracies recomputed from its selected clauses equal its own "
          "predict's, its complexity the driver's; AIX360's Hamming loss >= our certified lower bound, its rule set being of "
          "complexity C): " + ("all pass" if not bad else "; ".join(bad)))


def _same_checks(fold):
    """What must hold on a same-matrix fold: failed checks as messages."""
    a, o = fold["aix"], fold["ours"]
    out = [f"AIX360 {k} recomputed {a[k]:g} != driver's {a['driver_' + k]:g}"
           for k in ("acc", "train_acc", "complexity") if abs(a[k] - a["driver_" + k]) > 1e-12]
    if fold["aix_in_our_class"] and a["train_hamming"] < o["bound"] - 1e-6:
        out.append(f"AIX360 Hamming loss {a['train_hamming']} < our lower bound {o['bound']}")
    return out


def _ratio_text(lr, n):
    return "-" if lr is None else f"{lr[0]:.2f} / {lr[1]:.2f} ({lr[2]}/{n})"


def fold_limits(a, args):
    """Our complexity bound C, time limit and pricing time limit on a fold, from AIX360's
    result on it: C = its complexity (at least the smallest clause's), time limit
    ``--time-factor`` x its fit time (at least 0.5 s)."""
    empty = not args.no_empty_clause   # AIX360's model class
    tl = max(0.5, a["time"] * args.time_factor)
    return max(1 if empty else 2, int(a["complexity"])), tl, max(0.5, tl / 3)


def study_for(variant, args, aix_by_dataset) -> Study:
    """Our side of the benchmark as a study: one cell per dataset and fold, with the fold's
    complexity bound and time limit (from AIX360's result on it) as overrides."""
    overrides = []
    for name, aix in aix_by_dataset.items():
        for f, a in enumerate(aix):
            C, tl, ptl = fold_limits(a, args)
            ov = {"dataset": name, "fold": f, "time_limit": tl, "pricing_seconds": ptl}
            if variant == "fixed":
                ov["complexity_bound"] = C
            else:
                ov["complexity_bounds"] = sorted({c for c in GRID if c < C} | {C})
            overrides.append(ov)
    params = {"empty_clause": not args.no_empty_clause}
    if variant == "cv":
        params["cv"] = args.inner_folds
    return Study(name="bench_brcg", learner="brcg" if variant == "fixed" else "brcg_cv",
                 datasets=list(aix_by_dataset), params=params,
                 cv=CV(folds=args.folds, seed=args.seed), metrics=["acc", "complexity"],
                 overrides=overrides, results=args.results)


def _evaluate(rs, Xtr, ytr, Xte, yte) -> dict:
    """A rule set's figures on a fold's binary matrices, recomputed (``RuleSet.predict``)."""
    score = ruleset_objective_xy(rs, Xtr, ytr)
    return {"acc": float((rs.predict(Xte) == yte).mean()),
            "train_acc": 1.0 - score.errors / len(ytr),
            "train_errors": int(score.errors), "train_hamming": float(score.hamming_loss),
            "complexity": int(rs.complexity),
            "rules": [[rs.literal_text(lit) for lit in c] for c in rs.clauses]}


def same_fold(a, dumped, ytr, yte, args) -> dict:
    """One fold of the same-matrix comparison: rulecert's column generation on AIX360's
    binarized training matrix of the fold (``dumped``) at AIX360's complexity C and within
    the fold's time limit; both rule sets evaluated on the same matrices by the same code."""
    C, tl, ptl = fold_limits(a, args)
    Xtr, Xte, names = dumped["Xtr"], dumped["Xte"], dumped["columns"]
    warm_up()   # the solvers' imports and compiled search, once, untimed (as AIX360's imports)
    t0 = time.perf_counter()
    problem = RuleProblem.from_matrix(Xtr, ytr, names)
    rs, cert = colgen.solve(problem, complexity_bound=C, empty_clause=not args.no_empty_clause,
                            time_limit=tl, pricing_seconds=ptl, seed=args.seed)
    fit_time = time.perf_counter() - t0
    ours = dict(_evaluate(rs, Xtr, ytr, Xte, yte), time=fit_time, C=C, time_limit=tl,
                objective=cert.objective, bound=cert.lower_bound, rel_gap=cert.rel_gap,
                termination=cert.termination.value, bound_kind=cert.stats.get("bound_kind"))
    aix_clauses = [dumped["pool"][k] for k in dumped["selected"]]
    aix_rs = RuleSet.from_feature_sets(aix_clauses, "dnf", names)
    aix = dict(a, driver_acc=a["acc"], driver_train_acc=a["train_acc"],
               driver_complexity=a["complexity"], pool_size=len(dumped["pool"]),
               **_evaluate(aix_rs, Xtr, ytr, Xte, yte))
    fold = {"aix": aix, "ours": ours,
            "aix_in_our_class": (not args.no_empty_clause or all(aix_clauses))
            and aix_rs.complexity <= C}
    for msg in _same_checks(fold):
        print(f"check failed: {msg}", file=sys.stderr, flush=True)
    return fold


def summary_row(name, variant, empty, folds) -> dict:
    """One table row: a dataset and variant, its per-fold records (``{"aix", "ours"}``) and
    their means."""
    aix, ours = [f["aix"] for f in folds], [f["ours"] for f in folds]
    a_acc, a_se = mean_se([100 * r["acc"] for r in aix])
    o_acc, o_se = mean_se([100 * r["acc"] for r in ours])
    return {"dataset": name, "variant": variant, "empty_clause": empty,
            "aix_acc": a_acc, "aix_se": a_se,
            "aix_cpx": mean_se([r["complexity"] for r in aix])[0],
            "aix_time": mean_se([r["time"] for r in aix])[0],
            "acc": o_acc, "se": o_se, "cpx": mean_se([r["complexity"] for r in ours])[0],
            "time": mean_se([r["time"] for r in ours])[0],
            "train": mean_se([100 * r["train_acc"] for r in ours])[0],
            "aix_train": mean_se([100 * r.get("train_acc", math.nan) for r in aix])[0],
            "optimal": float(np.mean([r["termination"] == "optimal" for r in ours])),
            "wins": sum(o["acc"] >= a["acc"] for o, a in zip(ours, aix)),
            "folds": folds}


def write_json(rows, path):
    if path:
        with open(path, "w") as fh:
            json.dump(rows, fh, indent=1)


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
    ap.add_argument("--ours", nargs="+", default=list(VARIANTS), choices=VARIANTS,
                    help="same: column generation on AIX360's binary matrices, C = its "
                         "complexity (needs --aix360-python); fixed: the estimator, C = AIX360's "
                         "complexity; cv: the estimator, C <= it chosen by inner CV")
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
    variants = list(dict.fromkeys(args.ours))
    if "same" in variants and not measured:
        if args.ours != ap.get_default("ours"):
            ap.error("--ours same needs --aix360-python (AIX360's binary matrices)")
        variants.remove("same")   # the default run without AIX360: the estimator variants
    empty = not args.no_empty_clause   # AIX360's model class
    aix_by, rows = {}, []
    for name in args.datasets:
        X, y, categorical = load(name)
        folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=args.seed).split(X, y))
        t0 = time.perf_counter()
        if measured:
            aix, dumped = run_aix360(args.aix360_python, X, y, folds, categorical,
                                     dump="same" in variants)
        else:
            a_acc, a_cpx, a_time = AIX360[name]
            aix = [{"acc": a_acc / 100, "complexity": round(a_cpx),
                    "time": a_time if a_time is not None else args.default_time}] * len(folds)
        aix_by[name] = aix
        print(f"{name}: AIX360 {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
        if "same" in variants:   # right after AIX360's run: both sides under the same load
            t0 = time.perf_counter()
            same = [same_fold(a, d, y[tr], y[te], args)
                    for a, d, (tr, te) in zip(aix, dumped, folds)]
            rows.append(summary_row(name, "same", empty, same))
            write_json(rows, args.json)   # a long run keeps what it has measured
            print(f"{name}: same {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
    ours_by = {}
    for variant in (v for v in variants if v != "same"):
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
    for name in args.datasets:
        for variant in variants:
            if (name, variant) in ours_by:
                rows.append(summary_row(name, variant, empty, [
                    {"aix": a, "ours": o} for a, o in zip(aix_by[name], ours_by[name, variant])]))
    write_json(rows, args.json)
    print_table(rows, args.time_factor, measured)


if __name__ == "__main__":
    main()
