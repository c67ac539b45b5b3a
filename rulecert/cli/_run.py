"""What every subcommand shares about running: -v/--quiet, the progress callback, exit codes.

``-v`` and ``--quiet`` are accepted before or after the subcommand.  A run prints one
progress line on stderr every few seconds once it is longer than a couple of seconds
(:class:`rulecert.monitor.ProgressPrinter`) unless ``--quiet``.  Ctrl-C stops a run cleanly
(``main`` runs every subcommand under :func:`rulecert.monitor.catch_interrupt`): the result
is printed as usual and the command exits with :data:`EXIT_INTERRUPTED` (130, as a shell
reports a SIGINT); a second Ctrl-C aborts at once (exit 130, no result).  A memory cap is
on by default (``--memory-limit-mb``: ``auto``, a number of MB, or ``none``/``0`` for no
cap); a run it stops is a result (termination ``memory_limit``), not an error.  Warnings are
printed as one line (``rulecert: warning: ...``).
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


def memory_limit(text: str):
    """``--memory-limit-mb``: ``auto`` (the default cap), ``none`` or ``0`` (no cap), or MB > 0."""
    from ..limits import AUTO
    t = str(text).strip().lower()
    if t == AUTO:
        return AUTO
    if t in ("none", "off", "0", "0.0"):
        return None
    try:
        v = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 'auto', 'none' or a number of MB, got {text!r}") from None
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of MB > 0 (or 'none'), got {text!r}")
    return v


def add_memory_argument(p) -> None:
    """``--memory-limit-mb`` with the shared default (``auto``: a fraction of the machine)."""
    from ..limits import DEFAULT_MEMORY_FRACTION, DEFAULT_MEMORY_LIMIT_MB
    p.add_argument("--memory-limit-mb", type=memory_limit, default=DEFAULT_MEMORY_LIMIT_MB,
                   metavar="MB|auto|none",
                   help=f"stop cleanly (memory_limit) above this resident memory; default auto = "
                        f"{round(100 * DEFAULT_MEMORY_FRACTION)}%% of the machine's memory, none or 0: no cap")


def add_limit_arguments(p, *, time_help: str, node_help: str | None = None) -> None:
    """The limits every search subcommand takes: ``--time-limit`` (seconds), ``--node-limit``
    (a deterministic count, when ``node_help`` names what it counts) and ``--memory-limit-mb``."""
    p.add_argument("--time-limit", type=float, default=None, help=time_help)
    if node_help is not None:
        p.add_argument("--node-limit", type=int, default=None, help=node_help)
    add_memory_argument(p)


def shared_defaults() -> dict:
    """Defaults every subcommand that has the option shares with the estimators."""
    from ..limits import DEFAULT_MAX_CARD, DEFAULT_MIN_SUPPORT, DEFAULT_SEED, DEFAULT_TIME_LIMIT
    return {"max_card": DEFAULT_MAX_CARD, "min_support": DEFAULT_MIN_SUPPORT,
            "seed": DEFAULT_SEED, "time_limit": DEFAULT_TIME_LIMIT}


def interrupted(*certificates) -> bool:
    """True when Ctrl-C was pressed during the command or a certificate says interrupted (a
    certificate's termination may be a :class:`~rulecert.certificate.Termination` or its
    string value)."""
    from ..certificate import Termination
    from ..monitor import interrupt_requested
    return interrupt_requested() or any(
        c is not None and getattr(c.termination, "value", c.termination)
        == Termination.INTERRUPTED.value for c in certificates)


def exit_code(*certificates) -> int:
    """130 when the run was interrupted (see :func:`interrupted`), else 0."""
    return EXIT_INTERRUPTED if interrupted(*certificates) else 0
