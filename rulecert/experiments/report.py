"""Read a study's records back: the summary table, the runs (with their time ratios), the
deterministic view used to compare engines, and the plots (trade-off curves, time per cell
and of each run, certified gaps)."""
from __future__ import annotations

import json
import math
import os
import sys

import numpy as np
import pandas as pd

from .store import Store
from .study import Study, expand

# columns that depend on when, where or by which engine a cell ran, not on its specification
VOLATILE = ("fit_time", "cell_time", "cpu_time", "solver_time", "started", "finished", "host", "machine",
            "pid", "engine", "run_id", "traceback", "versions", "study")


def _strip_times(obj):
    if isinstance(obj, dict):
        return {k: _strip_times(v) for k, v in obj.items()
                if not (k == "time" or k.endswith("_time") or k.startswith("time_")
                        or k == "phase_time" or k == "history" or k.endswith("_mb"))}
    if isinstance(obj, list):
        return [_strip_times(v) for v in obj]
    return obj


def comparable(df: pd.DataFrame) -> pd.DataFrame:
    """The records without anything that depends on time or engine (also inside the
    certificate and detail JSON: times, memory readings, and the history, whose periodic
    samples fall where the clock says), rows ordered by cell key: equal for equal results."""
    out = df.drop(columns=[c for c in VOLATILE if c in df.columns])
    for col in ("certificate", "detail"):
        if col in out.columns:
            out[col] = [None if v is None or (isinstance(v, float) and math.isnan(v)) else
                        json.dumps(_strip_times(json.loads(v)), sort_keys=True) for v in out[col]]
    out = out.sort_values("key").reset_index(drop=True)
    return out[sorted(out.columns)]


def load(study: Study, results=None, skipped: list | None = None) -> pd.DataFrame:
    """The records of the study's current cells, in the order of :func:`expand`.  A cell
    whose file is no record (damaged, or another cell's record) is left out with one line
    saying so: appended to ``skipped`` when given, else printed to stderr."""
    cells = expand(study)
    order = {c.key: i for i, c in enumerate(cells)}
    bad: dict = {}
    df = Store(results or study.results_dir()).read(keys=order, bad=bad)
    by_key = {c.key: c for c in cells}
    for fname, why in sorted(bad.items(), key=lambda kv: order[kv[0].removesuffix(".parquet")]):
        c = by_key[fname.removesuffix(".parquet")]
        line = (f"skipped: {c.dataset} r{c.repeat} f{c.fold} {c.key[:10]}: cells/{fname} {why} "
                f"(`rulecert run` computes it again)")
        if skipped is None:
            print(f"{study.name}: {line}", file=sys.stderr)
        else:
            skipped.append(line)
    if len(df):
        df = df.iloc[np.argsort([order[k] for k in df["key"]], kind="stable")].reset_index(drop=True)
    return df


def _mean_se(v):
    v = np.asarray([x for x in v if x is not None and not (isinstance(x, float) and math.isnan(x))],
                   dtype=float)
    if len(v) == 0:
        return math.nan, math.nan
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else 0.0)


def summary(df: pd.DataFrame, study: Study) -> pd.DataFrame:
    """One row per dataset and grid point: cells, errors, mean (s.e.) of each metric, mean fit
    seconds, share proven optimal and mean relative gap of the certificates."""
    keys = ["dataset"] + [f"p_{k}" for k in study.grid if f"p_{k}" in df.columns]
    rows = []
    if not len(df):
        return pd.DataFrame(columns=keys)
    for gkey, g in df.groupby(keys, sort=False, dropna=False):
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        ok = g[g["status"] == "ok"]
        row = dict(zip(keys, gkey))
        row["cells"], row["errors"] = len(g), int((g["status"] != "ok").sum())
        for m in study.metrics:
            row[m], row[f"{m}_se"] = _mean_se(ok[m]) if m in ok.columns else (math.nan, math.nan)
        row["fit_s"] = _mean_se(ok["fit_time"])[0] if "fit_time" in ok.columns else math.nan
        if "proven_optimal" in ok.columns and len(ok):
            row["proven_optimal"] = float(np.mean([bool(x) for x in ok["proven_optimal"]]))
            row["rel_gap"] = _mean_se(ok["rel_gap"])[0]
        rows.append(row)
    return pd.DataFrame(rows)


def _fmt(v):
    if isinstance(v, float):
        return "-" if math.isnan(v) else f"{v:.4g}"
    return str(v)


def markdown(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(c.removeprefix("p_") for c in cols) + " |",
             "|" + "---|" * len(cols)]
    for _, r in df.iterrows():
        lines.append("| " + " | ".join(_fmt(r[c]) for c in cols) + " |")
    return "\n".join(lines)


def runs(store: Store) -> pd.DataFrame:
    """The runs of the results folder with, for each run that ran every cell, its wall time
    over the last such serial run's (the speed-up benchmark)."""
    df = pd.DataFrame(store.runs())
    if not len(df):
        return df
    df["time_ratio_vs_serial"] = math.nan
    full = df[(df["skipped"] == 0) & (df["ran"] == df["cells"]) & ~df["interrupted"].astype(bool)]
    serial = full[full["engine"] == "serial"]
    if len(serial):
        base = float(serial["wall_time"].iloc[-1])
        df.loc[full.index, "time_ratio_vs_serial"] = full["wall_time"] / base
    return df[["run_id", "engine", "workers", "cells", "skipped", "ran", "errors", "interrupted",
               "wall_time", "time_ratio_vs_serial"]]


def plots(df: pd.DataFrame, study: Study, folder, run_table: pd.DataFrame | None = None) -> list[str]:
    """Trade-off curves (acc against complexity over the grid, per dataset), seconds per cell by
    dataset, certified relative gaps by dataset and, when the results folder holds full runs on
    several engines, their wall times with the ratio to the serial run; returns the files."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(folder, exist_ok=True)
    ok = df[df["status"] == "ok"]
    out = []
    if not len(ok):
        return out
    if study.learner == "brcg_protocol":   # the path over the grid is in each cell's detail
        pts = [dict(dataset=r["dataset"], C=float(C), acc=v["acc"], complexity=v["complexity"])
               for _, r in ok.iterrows() for C, v in json.loads(r["detail"])["per_C"].items()]
        s = pd.DataFrame(pts).groupby(["dataset", "C"], sort=False).agg(
            acc=("acc", "mean"), acc_se=("acc", lambda v: _mean_se(v)[1]),
            complexity=("complexity", "mean")).reset_index()
        grid_name = "C (every outer fold's path)"
    elif {"acc", "complexity"} <= set(ok.columns) and study.grid:
        s, grid_name = summary(ok, study), ", ".join(study.grid)
    else:
        s = None
    if s is not None and len(s):
        fig, ax = plt.subplots(figsize=(6, 4.5))
        for i, (name, g) in enumerate(s.groupby("dataset", sort=False)):
            g = g.sort_values("complexity")
            ax.errorbar(g["complexity"], g["acc"], yerr=g["acc_se"], marker="o", capsize=3,
                        color=f"C{i % 10}", label=name)
        ax.set_xlabel("complexity (mean over folds)")
        ax.set_ylabel("test accuracy (mean ± s.e.)")
        ax.set_title(f"{study.name}: trade-off over {grid_name}", fontsize=9)
        ax.legend(fontsize=7)
        out.append(os.path.join(folder, "tradeoff.png"))
        fig.savefig(out[-1], dpi=100, bbox_inches="tight")
        plt.close(fig)
    names = list(dict.fromkeys(ok["dataset"]))
    for col, fname, label in (("cell_time", "times.png", "seconds per cell"),
                              ("rel_gap", "gaps.png", "certified relative gap")):
        if col not in ok.columns:
            continue
        vals = [pd.to_numeric(ok.loc[ok["dataset"] == n, col], errors="coerce").dropna().to_numpy()
                for n in names]
        if not any(len(v) for v in vals):
            continue
        fig, ax = plt.subplots(figsize=(max(4, 0.8 * len(names) + 2), 4))
        ax.boxplot([v if len(v) else [np.nan] for v in vals])
        ax.set_xticks(range(1, len(names) + 1), names, rotation=30, fontsize=8)
        ax.set_ylabel(label)
        ax.set_title(f"{study.name}: {label} by dataset", fontsize=9)
        out.append(os.path.join(folder, fname))
        fig.savefig(out[-1], dpi=100, bbox_inches="tight")
        plt.close(fig)
    full = None if run_table is None else run_table.dropna(subset=["time_ratio_vs_serial"])
    if full is not None and len(full) > 1:
        fig, ax = plt.subplots(figsize=(max(4, 0.9 * len(full) + 2), 4))
        labels = [f"{e} x{w}" for e, w in zip(full["engine"], full["workers"])]
        bars = ax.bar(range(len(full)), full["wall_time"], color="C0")
        for b, r in zip(bars, full["time_ratio_vs_serial"]):
            ax.annotate(f"{r:.2f}", (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(full)), labels, fontsize=8)
        ax.set_ylabel("wall seconds of the run (label: ratio to serial)")
        ax.set_title(f"{study.name}: runs of every cell", fontsize=9)
        out.append(os.path.join(folder, "time_ratios.png"))
        fig.savefig(out[-1], dpi=100, bbox_inches="tight")
        plt.close(fig)
    return out


def report(study: Study, results=None, *, file=None, plot_dir=None) -> pd.DataFrame:
    """Print the summary table and the runs of ``study``; write the plots to ``plot_dir``
    (default ``<results>/plots``; ``False``: none).  Returns the records."""
    file = file or sys.stdout
    store = Store(results or study.results_dir())
    skipped: list = []
    df = load(study, store.folder, skipped)
    n = len(expand(study))
    print(f"# {study.name}: learner {study.learner}, {len(df)} of {n} cells finished"
          f"{'' if len(df) == n else ' (rerun `rulecert run` to finish)'}", file=file)
    for line in skipped:
        print(line, file=file)
    if len(df):
        print(markdown(summary(df, study)), file=file)
        err = df[df["status"] != "ok"]
        for _, r in err.iterrows():
            print(f"error: {r['dataset']} r{r['repeat']} f{r['fold']} {r['key'][:10]}: {r['error']}",
                  file=file)
    r = runs(store)
    if len(r):
        print("\nruns (time ratio: wall time over the last serial run of every cell):", file=file)
        print(markdown(r), file=file)
    if plot_dir is not False and len(df):
        try:
            files = plots(df, study, plot_dir or store.folder / "plots", r)
        except ImportError:
            files = []
            print("matplotlib is not installed: no plots (pip install 'rulecert[plot]')", file=file)
        for f in files:
            print(f"plot written to {f}", file=file)
    return df
