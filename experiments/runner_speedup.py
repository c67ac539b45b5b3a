"""The runner's speed-up benchmark: Dash et al.'s BRCG protocol (learner ``brcg_protocol``:
inner CV over the C grid, then the path over the grid, per outer fold) on the 9 shared
datasets with 10 folds, run serially and then with ``--jobs`` local worker processes into the
same results folder; prints whether every record is identical (the limits are deterministic:
column-generation iterations, pricing nodes, no time limit) and the report's runs table,
whose last column is the wall time over the serial run's.

    nice python experiments/runner_speedup.py                       # serial, then 2 processes
    nice python experiments/runner_speedup.py --engine dask         # 2 Dask workers instead
    rulecert report experiments/runner_speedup.py --results DIR     # the tables again

The deterministic limits are smaller than the paper protocol's 5 s per fit (a reduced scale
that finishes in minutes; the grid is {5, 10, 15}: on tictactoe the restricted IP at C >= 25
takes seconds, which no deterministic limit of the estimator bounds).  The machine is shared:
wall times include whatever else runs on it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

import pandas as pd

from rulecert.experiments import CV, Study, comparable, engines, load_results
from rulecert.experiments.report import report as print_report

DATASETS = ["banknote", "heart", "ilpd", "ionosphere", "liver", "pima", "tictactoe",
            "transfusion", "wdbc"]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--grid", type=int, nargs="+", default=[5, 10, 15])
    ap.add_argument("--inner-folds", type=int, default=3)
    ap.add_argument("--max-iter", type=int, default=2)
    ap.add_argument("--columns-per-iter", type=int, default=10)
    ap.add_argument("--bnb-node-limit", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--engine", default="loky", choices=["loky", "dask"])
    ap.add_argument("--results", default=os.path.join(tempfile.gettempdir(), "rulecert_speedup"))
    return ap.parse_args(argv)


def study_from_args(args) -> Study:
    return Study(name="runner_speedup", learner="brcg_protocol", datasets=list(args.datasets),
                 params={"grid": list(args.grid), "inner_folds": args.inner_folds,
                         "pricing": "bnb", "columns_per_iter": args.columns_per_iter},
                 limits={"time_limit": None, "max_iter": args.max_iter,
                         "bnb_node_limit": args.bnb_node_limit},
                 cv=CV(folds=args.folds, seed=0), metrics=["acc", "complexity"],
                 results=args.results)


def build_study(argv=None) -> Study:
    return study_from_args(parse_args(argv if argv is not None else []))


def main(argv=None) -> int:
    args = parse_args(argv)
    study = study_from_args(args)
    folder = study.results_dir()
    shutil.rmtree(folder / "cells", ignore_errors=True)       # a benchmark starts empty
    serial = engines.run(study)
    ref = load_results(study)
    shutil.rmtree(folder / "cells.serial", ignore_errors=True)
    os.replace(folder / "cells", folder / "cells.serial")
    par = engines.run(study, jobs=args.jobs, dask=args.engine == "dask")
    df = load_results(study)
    try:
        pd.testing.assert_frame_equal(comparable(df), comparable(ref))
        same = "identical"
    except AssertionError as exc:
        same = "DIFFERENT: " + str(exc).splitlines()[0]
    print(f"\nserial {serial['wall_time']:.1f} s, {par['engine']} x{par['workers']} "
          f"{par['wall_time']:.1f} s: ratio {par['wall_time'] / serial['wall_time']:.2f} "
          f"(goal <= 0.6); records of the two runs {same}")
    per = ref.groupby("dataset", sort=False)["cell_time"].mean()
    print("serial seconds per cell (one outer fold of the protocol): " +
          ", ".join(f"{k} {v:.1f}" for k, v in per.items()))
    busy = df["cell_time"].sum() / (par["workers"] * par["wall_time"])
    print(f"cell seconds, serial run: {ref['cell_time'].sum():.0f} wall / "
          f"{ref['cpu_time'].sum():.0f} CPU; parallel run: {df['cell_time'].sum():.0f} wall / "
          f"{df['cpu_time'].sum():.0f} CPU; workers busy {busy:.0%} of the parallel run "
          "(cells slower in parallel than serially, at equal CPU, is other load on the machine)")
    print()
    print_report(study)
    return 0 if same == "identical" else 1


if __name__ == "__main__":
    sys.exit(main())
