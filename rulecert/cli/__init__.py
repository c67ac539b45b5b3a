"""The ``rulecert`` command: one subcommand per learner (see ``rulecert --help``)."""
from __future__ import annotations

import argparse
import importlib
import logging
import sys

# Each module exposes add_parser(subparsers) and run(args) -> int.
SUBCOMMANDS = ["corels", "crosscheck", "frl", "brcg"]


def build_parser() -> argparse.ArgumentParser:
    from .._version import __version__
    parser = argparse.ArgumentParser(
        prog="rulecert", description="Interpretable rule models with optimality certificates.")
    parser.add_argument("--version", action="version", version=f"rulecert {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress (to stderr)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verbose:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                            format="%(asctime)s %(name)s %(message)s")
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as exc:
        print(f"rulecert {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
