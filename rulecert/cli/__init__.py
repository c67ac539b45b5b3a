"""The ``rulecert`` command: one subcommand per learner (see ``rulecert --help``)."""
from __future__ import annotations

import argparse
import importlib
import logging
import sys

# Each module exposes add_parser(subparsers) and run(args) -> int.
SUBCOMMANDS = ["corels", "crosscheck", "frl", "brcg", "rashomon", "run", "report"]


def build_parser() -> argparse.ArgumentParser:
    from .._version import __version__
    from ._plot import add_plot_argument
    parser = argparse.ArgumentParser(
        prog="rulecert", description="Interpretable rule models with optimality certificates.")
    parser.add_argument("--version", action="version", version=f"rulecert {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress (to stderr)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
        add_plot_argument(sub.choices[name])
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verbose:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                            format="%(asctime)s %(name)s %(message)s")
    try:
        from ._plot import check_plot_path
        check_plot_path(args)
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as exc:
        print(f"rulecert {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
