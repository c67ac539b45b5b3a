"""What every subcommand shares about running: -v/--quiet, the progress callback, exit codes.

``-v`` and ``--quiet`` are accepted before or after the subcommand.  A run prints one
progress line on stderr every few seconds once it is longer than a couple of seconds
(:class:`rulecert.monitor.ProgressPrinter`) unless ``--quiet``.  Ctrl-C stops a run cleanly
(``main`` runs every subcommand under :func:`rulecert.monitor.catch_interrupt`): the result
is printed as usual and the command exits with :data:`EXIT_INTERRUPTED` (130, as a shell
reports a SIGINT).
"""
from __future__ import annotations

import argparse

EXIT_INTERRUPTED = 130


def add_run_arguments(p, *, top: bool = False) -> None:
    """``-v/--verbose`` and ``--quiet`` (on the top parser and on every subcommand)."""
    default = False if top else argparse.SUPPRESS  # a subcommand's flag must not reset the top's
    p.add_argument("-v", "--verbose", action="store_true", default=default,
                   help="log solver events (to stderr)")
    p.add_argument("--quiet", action="store_true", default=default,
                   help="no progress lines on stderr")


def progress(args):
    """The callback a subcommand passes to its solver(s): progress lines unless --quiet."""
    from ..monitor import ProgressPrinter
    return None if getattr(args, "quiet", False) else ProgressPrinter()


def exit_code(*certificates) -> int:
    """130 when any of the run's certificates says it was interrupted, else 0."""
    from ..certificate import Termination
    return EXIT_INTERRUPTED if any(
        c is not None and c.termination is Termination.INTERRUPTED for c in certificates) else 0
