"""``rulecert report STUDY``: the tables and plots of a study's stored results."""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="print a study's tables and write its plots",
                       description="Read the records of STUDY's cells (a .toml file, or a .py "
                                   "file defining build_study() and optionally report(df, "
                                   "study)); a damaged record is named and skipped. A .py "
                                   "study is Python code: it is executed, so report only study "
                                   "files you trust.")
    p.add_argument("study", metavar="STUDY",
                   help="study file (.toml: data; .py: code, executed when loaded)")
    p.add_argument("--results", metavar="DIR", default=None, help="results folder")
    p.add_argument("--plots", metavar="DIR", default=None,
                   help="folder for the plots (default RESULTS/plots)")
    p.add_argument("--no-plots", action="store_true")
    p.set_defaults(func=run)


def report_study(study, module, results, plot_dir) -> None:
    from ..experiments.report import load, report
    if module is not None and hasattr(module, "report"):
        module.report(load(study, results), study)
    else:
        report(study, results, plot_dir=plot_dir)


def run(args) -> int:
    from ..experiments.study import load_study
    study, module = load_study(args.study)
    report_study(study, module, args.results, False if args.no_plots else args.plots)
    return 0
