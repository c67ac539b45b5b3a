"""The ``rulecert`` command: one subcommand per learner (see ``rulecert --help``)."""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

# Each module exposes add_parser(subparsers) and run(args) -> int.
SUBCOMMANDS = ["corels", "crosscheck", "frl", "brcg", "rashomon", "predict", "run", "report"]


def build_parser() -> argparse.ArgumentParser:
    from .._version import __version__
    from ._plot import add_plot_argument
    from ._run import add_run_arguments, shared_defaults
    parser = argparse.ArgumentParser(
        prog="rulecert", description="Interpretable rule models with optimality certificates.")
    parser.add_argument("--version", action="version", version=f"rulecert {__version__}")
    add_run_arguments(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    shared = shared_defaults()
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
        p = sub.choices[name]
        add_plot_argument(p)
        add_run_arguments(p)
        p.set_defaults(**{k: v for k, v in shared.items()
                          if any(a.dest == k for a in p._actions)})
    return parser


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings on the command line: one line, no source line."""
    print(f"rulecert: warning: {message}", file=file or sys.stderr, flush=True)


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail again."""
    import os
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv=None, *, started: float | None = None) -> int:
    """Run the command ``argv`` (default ``sys.argv[1:]``); returns its exit code.
    ``started``: the ``perf_counter`` time the command's ``--time-limit`` counts from (default:
    when the subcommand starts)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.started = started
    if args.verbose:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                            format="%(asctime)s %(name)s %(message)s")
    import warnings
    showwarning = warnings.showwarning
    warnings.showwarning = _one_line_warning
    try:
        from ._plot import check_plot_path
        from ._data import data_path
        from ._run import (EXIT_INTERRUPTED, SOLVING, announce_compile, check_output_paths,
                           os_error_text, start_progress, stop_progress, value_error_text,
                           write_files)
        from ..monitor import catch_interrupt
        check_output_paths(args)
        check_plot_path(args)
        if args.command in SOLVING:
            data_path(args)                     # a missing file or a folder: before any work
        with catch_interrupt(), announce_compile(args):
            start_progress(args)
            try:
                code = int(args.func(args) or 0)    # the result is printed (or its --json) ...
            finally:
                stop_progress(args)
            write_files(args)                       # ... before --plot / --save-model are written
            return code
    except BrokenPipeError:         # the reader of the output went away (| head): no message
        _drop_stdout()
        return 1
    except OSError as exc:          # permissions, a folder for a file, a full disk, ...
        print(f"rulecert {args.command}: error: {os_error_text(exc, args)}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"rulecert {args.command}: error: {value_error_text(exc, args)}", file=sys.stderr)
        return 2
    except MemoryError as exc:
        print(f"rulecert {args.command}: error: out of memory: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:       # a second Ctrl-C: abort without a result
        print(f"rulecert {args.command}: aborted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        warnings.showwarning = showwarning


def run_command() -> None:
    """The ``rulecert`` executable: :func:`main`, then exit with its code.

    A Ctrl-C that arrives after the run's own handling (while the result is written or the
    interpreter exits) still ends the command with exit code 130, never a traceback or a
    death by signal.
    """
    import signal
    import time

    from ._data import process_age
    from ._run import EXIT_INTERRUPTED
    try:
        code = main(started=time.perf_counter() - process_age())   # imports count too
        if code == EXIT_INTERRUPTED:
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # we are leaving with 130 anyway
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    _leave(code)


def _leave(code: int) -> None:
    """Exit with ``code`` as :func:`sys.exit` would -- the output flushed, the other threads
    joined, the :mod:`atexit` handlers run (:func:`rulecert.mipmodels.highs.join_abandoned`)
    -- but without the interpreter's teardown of every imported module, which with
    scikit-learn, SciPy, numba and OR-Tools loaded takes seconds past the command's
    ``--time-limit`` on a busy machine."""
    import atexit
    import threading
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):      # a closed pipe: the usual exit and its messages
        sys.exit(code)
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run_command()
