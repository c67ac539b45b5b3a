"""What every subcommand shares about running: -v/--quiet, the progress callback, exit codes.

``-v`` and ``--quiet`` are accepted before or after the subcommand.  A subcommand that
solves prints a progress line on stderr 2 seconds into the command and then every 5 seconds
(:class:`CommandProgress`, a thread of its own, so reading and long solver calls are
covered too) unless ``--quiet``.  Ctrl-C stops a run cleanly
(``main`` runs every subcommand under :func:`rulecert.monitor.catch_interrupt`): the result
is printed as usual and the command exits with :data:`EXIT_INTERRUPTED` (130, as a shell
reports a SIGINT); a second Ctrl-C aborts at once (exit 130, no result).  A memory cap is
on by default (``--memory-limit-mb``: ``auto``, a number of MB, or ``none``/``0`` for no
cap); a run it stops is a result (termination ``memory_limit``), not an error.  Warnings are
printed as one line (``rulecert: warning: ...``).

Checks ``main`` makes for every subcommand: the output paths of the parsed arguments before
any work (:func:`check_output_paths`); an OS error is one line naming the path
(:func:`os_error_text`), exit 2; the first compile of the numba kernels is announced
(:func:`announce_compile`); the files a subcommand writes beside its result (``--plot``,
``--save-model``) are written after the result is printed (:func:`write_after_result`), so
that a write that fails (a full disk, a folder removed since the check) loses no result.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

EXIT_INTERRUPTED = 130


def add_run_arguments(p, *, top: bool = False) -> None:
    """``-v/--verbose`` and ``--quiet`` (on the top parser and on every subcommand)."""
    default = False if top else argparse.SUPPRESS  # a subcommand's flag must not reset the top's
    p.add_argument("-v", "--verbose", action="store_true", default=default,
                   help="log solver events (to stderr)")
    p.add_argument("--quiet", action="store_true", default=default,
                   help="no progress lines on stderr")


SOLVING = ("corels", "crosscheck", "frl", "brcg", "rashomon")
"""Subcommands that prepare data and run solvers (progress lines from their start)."""


class CommandProgress:
    """The command's progress lines on stderr, from a thread of their own: one ``after``
    seconds into the command, then one every ``every`` seconds, whatever step runs (reading,
    imports, a solver's long call that asks no monitor).  A line shows the last sample a
    solver gave (:func:`rulecert.monitor.format_progress`, its clock moved on to now; a
    sample older than ``every`` seconds is shown as such), or what the command is doing
    before the first sample and after a solver's end.  Called as a solver's callback it
    keeps the sample (and prints a solver's ``end`` at once); it never stops a run."""

    def __init__(self, started: float, *, every: float = 5.0, after: float = 2.0,
                 stream=None):
        import threading
        self.started, self.stream = started, stream
        self.every, self.after = float(every), float(after)
        self._sample: tuple[dict, float] | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._next = started + self.after
        threading.Thread(target=self._run, name="rulecert-progress", daemon=True).start()

    def __call__(self, info: dict) -> bool:
        import time
        now = time.perf_counter()
        with self._lock:
            self._sample = (dict(info), now)
            if info.get("event") == "end" and now - self.started >= self.after \
                    and not self._closed.is_set():
                self._print(now)
        return False

    def close(self) -> None:
        """No line after this (the result is about to be printed)."""
        with self._lock:
            self._closed.set()

    def _run(self) -> None:
        import time
        while not self._closed.wait(max(0.0, self._next - time.perf_counter())):
            with self._lock:
                now = time.perf_counter()
                if now >= self._next and not self._closed.is_set():
                    self._print(now)

    def _print(self, now: float) -> None:
        from ..monitor import format_progress
        if self._sample is None:
            line = f"[rulecert {now - self.started:7.1f}s] preparing the data"
        else:
            info, seen = self._sample
            here = f"[rulecert {now - self.started:7.1f}s]"
            if info.get("event") == "end":
                line = f"{here} {info.get('solver', 'the solver')} finished; summarizing"
            elif now - seen <= self.every:      # a recent sample: its clock moved on to now
                line = format_progress(dict(info, time=float(info.get("time", 0.0)) + now - seen))
            else:                               # a step that samples nothing: say so
                line = f"{here} working; the last sample, {now - seen:.0f} s ago: " \
                    + format_progress(info)
        print(line, file=self.stream or sys.stderr, flush=True)
        self._next = now + self.every


def progress(args):
    """The callback a subcommand passes to its solver(s): the command's
    :class:`CommandProgress` (started by ``main``), ``None`` with --quiet."""
    return getattr(args, "progress", None)


def start_progress(args) -> None:
    """Start the command's progress lines (``args.progress``) unless --quiet or the
    subcommand runs no solver."""
    import time
    if args.command in SOLVING and not getattr(args, "quiet", False):
        started = getattr(args, "started", None)
        args.progress = CommandProgress(time.perf_counter() if started is None else started)


def stop_progress(args) -> None:
    """No progress line after the result (called once the subcommand returns)."""
    if getattr(args, "progress", None) is not None:
        args.progress.close()


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


OUTPUT_FILES = {"plot": "--plot", "save_model": "--save-model", "out": "--out"}
"""Arguments (dest: flag) that name a file a subcommand writes."""
OUTPUT_FOLDERS = {"results": "--results", "plots": "--plots"}
"""Arguments that name a folder a subcommand writes into (made when missing); ``report``
only reads ``--results``."""


def _check_output(flag: str, path: str, folder: bool) -> None:
    from pathlib import Path
    import tempfile
    p = Path(os.path.expanduser(str(path))).absolute()

    def fail(reason):
        raise ValueError(f"{flag} '{path}': {reason}")

    if p.is_dir() and not folder:
        fail("is a folder; give a file name")
    if folder and p.exists() and not p.is_dir():
        fail("is a file, not a folder")
    where = p if folder else p.parent
    while folder and where != where.parent and not where.exists():
        where = where.parent                    # the folder is made: its nearest ancestor
    if not where.exists():
        fail(f"the folder {where} does not exist")
    if not where.is_dir():
        fail(f"{where} is not a folder")
    try:
        tempfile.TemporaryFile(dir=where).close()
    except OSError as exc:
        fail(f"cannot write in the folder {where}: {exc.strerror or exc}")
    if not folder and p.exists() and not os.access(p, os.W_OK):
        fail("the file is read-only")


def check_output_paths(args) -> None:
    """Every output path of the parsed ``args`` (:data:`OUTPUT_FILES`,
    :data:`OUTPUT_FOLDERS`) is writable before any work: its folder exists and takes a file
    (a folder to be made: its nearest existing ancestor), a file is not a folder."""
    for dest, flag in OUTPUT_FILES.items():
        if getattr(args, dest, None):
            _check_output(flag, getattr(args, dest), folder=False)
    for dest, flag in OUTPUT_FOLDERS.items():
        if getattr(args, dest, None) and not (dest == "results" and args.command == "report"):
            _check_output(flag, getattr(args, dest), folder=True)


def write_after_result(args, flag: str, write) -> None:
    """Queue ``write()``, which writes the file of option ``flag`` (``--plot``), for after the
    subcommand has printed its result: ``main`` runs the queue (:func:`write_files`) once the
    subcommand returns."""
    args.pending_writes = [*getattr(args, "pending_writes", []), (flag, write)]


def write_files(args) -> None:
    """Run the writes :func:`write_after_result` queued, in order, stdout flushed first (the
    result is out whatever happens to the files); an OS error names the file's option and
    path (``--plot 'h.png': No space left on device``)."""
    try:
        sys.stdout.flush()
        gone = None
    except BrokenPipeError as exc:     # the reader went away: the files are still written
        gone = exc
    for flag, write in getattr(args, "pending_writes", ()):
        try:
            write()
        except OSError as exc:         # a full disk fails at the write, where no path is named
            path = getattr(args, flag.lstrip("-").replace("-", "_"))
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    args.pending_writes = []
    if gone is not None:
        raise gone


PATH_ARGUMENTS = {"data": "--data", "model": "--model", "study": "STUDY", **OUTPUT_FILES,
                  **OUTPUT_FOLDERS}
"""Arguments that name a file or folder, by which an OS error names its path."""


def os_error_text(exc: OSError, args) -> str:
    """``<what> '<path>': <reason>`` of an OS error: ``<what>`` the option whose value is the
    path (``--data``), else ``file``; the error's own text when it names no path."""
    path = exc.filename
    if path is None:
        return str(exc)
    path = os.fsdecode(path)
    what, full = "file", os.path.abspath(path)
    for dest, flag in PATH_ARGUMENTS.items():
        value = getattr(args, dest, None)
        if isinstance(value, str) and value:
            v = os.path.abspath(os.path.expanduser(value))
            if full == v or full.startswith((v + os.sep, v + ".")):   # a folder's, a stem's
                what = flag
                break
    return f"{what} '{path}': {exc.strerror or exc}"


def value_error_text(exc: ValueError, args) -> str:
    """The text of a ``ValueError``; a file that is not text or not a table (a decoding or
    pandas parsing error, which names no file) is named as ``--data '<path>'``."""
    data = getattr(args, "data", None)
    if data and isinstance(exc, UnicodeDecodeError):
        return f"--data '{data}': not UTF-8 text ({exc.reason} at byte {exc.start})"
    if data and type(exc).__module__.startswith("pandas"):
        return f"--data '{data}': not a CSV table ({str(exc).strip()})"
    return str(exc)


NO_KERNELS = ("predict", "report")
"""Subcommands that run no compiled kernel (nothing to announce, numba not imported)."""


@contextlib.contextmanager
def announce_compile(args):
    """One stderr line when a numba kernel is compiled (its on-disk cache is cold: the first
    run after an install or an upgrade), at the start of the first compile of the command;
    nothing with ``--quiet``."""
    if args.command in NO_KERNELS or getattr(args, "quiet", False):
        yield
        return
    from numba.core import event

    class Announce(event.Listener):
        said = False

        def on_start(self, ev):
            if not self.said:
                self.said = True
                print("rulecert: compiling the search kernels (the first run after an install; "
                      "cached for later runs), this can take a minute", file=sys.stderr,
                      flush=True)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Announce()):
        yield
