"""The engine options of ``rulecert run`` (``--jobs``, ``--dask``, ``--results``, ...), in a
module that imports nothing heavy: every ``rulecert`` subcommand's parser is built with them."""
from __future__ import annotations


def add_arguments(parser) -> None:
    """The engine options of ``rulecert run``, for scripts that declare and run a study."""
    parser.add_argument("--jobs", "-j", type=int, default=None,
                        help="local worker processes (joblib/loky; with --dask a Dask LocalCluster)")
    parser.add_argument("--dask", action="store_true",
                        help="run --jobs workers on a Dask LocalCluster")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="address of a Dask scheduler (tcp://host:8786) to run the cells on")
    parser.add_argument("--results", metavar="DIR", default=None,
                        help="results folder (default: rulecert-results/NAME)")
    parser.add_argument("--retry-errors", action="store_true", help="rerun cells recorded as errors")
    parser.add_argument("--only", nargs="+", metavar="KEY=VALUE", default=None,
                        help="run only these cells: dataset=NAME, repeat=R, fold=F")
    parser.add_argument("--report-only", action="store_true",
                        help="run no cell: print the tables of the cells already stored")
