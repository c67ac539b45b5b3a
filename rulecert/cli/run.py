"""``rulecert run STUDY``: run a study's unfinished cells (serial, local processes or Dask)."""
from __future__ import annotations

import sys


def add_parser(sub) -> None:
    from ..experiments.options import add_arguments
    p = sub.add_parser("run", help="run a study (grid of fits) and store one record per cell",
                       description="Run the unfinished cells of STUDY (a .toml file, or a .py "
                                   "file defining build_study()); finished cells are skipped, "
                                   "and so are cells another run of the study is computing "
                                   "(waited for at the end). A .py study is Python code: it is "
                                   "executed, so run only study files you trust.")
    p.add_argument("study", metavar="STUDY",
                   help="study file (.toml: data; .py: code, executed when loaded)")
    add_arguments(p)
    p.add_argument("--report", action="store_true", help="print the report after the run")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..experiments import engines
    from ..experiments.study import load_study
    study, module = load_study(args.study)
    try:
        summary = engines.run_from_args(study, args)
    except KeyboardInterrupt:
        print("rulecert run: interrupted; finished cells are stored, rerun to resume",
              file=sys.stderr)
        return 130
    if args.report:
        from .report import report_study
        report_study(study, module, args.results, None)
    return 1 if summary["errors"] else 0
