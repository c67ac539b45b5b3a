"""``rulecert run STUDY``: run a study's unfinished cells (serial, local processes or Dask)."""
from __future__ import annotations

import sys


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run a study (grid of fits) and store one record per cell",
                       description="Run the unfinished cells of STUDY (a .toml file, or a .py "
                                   "file defining build_study()); finished cells are skipped.")
    p.add_argument("study", metavar="STUDY", help="study file (.toml or .py)")
    p.add_argument("--jobs", "-j", type=int, default=None,
                   help="local worker processes (joblib/loky; with --dask a Dask LocalCluster)")
    p.add_argument("--dask", action="store_true", help="run --jobs workers on a Dask LocalCluster")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="address of a Dask scheduler (tcp://host:8786) to run the cells on")
    p.add_argument("--results", metavar="DIR", default=None,
                   help="results folder (default: the study's, rulecert-results/NAME)")
    p.add_argument("--retry-errors", action="store_true", help="rerun cells recorded as errors")
    p.add_argument("--report", action="store_true", help="print the report after the run")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..experiments import engines
    from ..experiments.study import load_study
    study, module = load_study(args.study)
    try:
        summary = engines.run(study, jobs=args.jobs, dask=args.dask, scheduler=args.scheduler,
                              results=args.results, retry_errors=args.retry_errors)
    except KeyboardInterrupt:
        print("rulecert run: interrupted; finished cells are stored, rerun to resume",
              file=sys.stderr)
        return 130
    if args.report:
        from .report import report_study
        report_study(study, module, args.results, None)
    return 1 if summary["errors"] else 0
