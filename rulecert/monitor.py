"""Watching and stopping a run: Ctrl-C, the memory cap, history samples and progress.

"Every run can be stopped and watched" (the conventions of :doc:`/architecture`), in one
place for every learner:

* :func:`catch_interrupt` -- a context manager every fit runs under.  Inside it the first
  Ctrl-C (SIGINT) only *asks* the run to stop: :func:`interrupt_requested` turns true, the
  solver stops at its next check (HiGHS through its interrupt callback, CP-SAT through
  ``stop_search``, the custom searches between chunks) and returns its incumbent with
  termination ``INTERRUPTED``.  A second Ctrl-C raises ``KeyboardInterrupt`` at once (abort).
  Nested uses share one request, so a crosscheck's two halves both stop on one Ctrl-C.
  Outside the main thread no handler can be installed; :func:`request_interrupt` (used by
  tests and by callbacks on other threads) sets the same request.
* :class:`Monitor` -- one per fit: the deadline, the memory cap, the interrupt request and
  the user's callback, asked in one call (:meth:`Monitor.should_stop`), and the certificate's
  ``history`` (periodic samples plus events, thinned to at most ``max_history`` entries).
* :class:`ProgressPrinter` -- the one progress reporter: a callback that writes a line to
  stderr every few seconds once a run is longer than a couple of seconds.  Solvers never
  print ("the library never prints"); the command line and estimators with ``verbose=True``
  pass it as the callback.

Every callback receives the same info dict: ``solver``, ``time``, ``objective``,
``lower_bound``, ``gap`` (relative), ``event`` and the solver's counters (``nodes``,
``iterations``, ...), plus ``memory_mb``.  A callback that returns ``True`` stops the run
(``INTERRUPTED``).

The keyword convention of every solve function (search/ and mipmodels/):

* ``callback=None`` -- the info dict above; returning ``True`` stops the run (INTERRUPTED);
* ``memory_limit_mb="auto"`` -- where the solver grows memory (queues, pools, a model being
  built), resolved by :func:`rulecert.limits.resolve_memory_limit_mb` (``None``: no cap);
  reaching it ends the run with MEMORY_LIMIT, incumbent, bound and gap;
* ``history_every=1.0`` -- seconds between periodic history samples (:class:`Monitor`);
* the solver runs itself under :func:`catch_interrupt` (nesting is free) and asks
  :meth:`Monitor.should_stop` (or :func:`interrupt_requested`) between chunks of work.  It
  still turns a ``KeyboardInterrupt`` into an INTERRUPTED result where one can arrive (a run
  outside ``catch_interrupt``, a callback that raises it), except the second Ctrl-C
  (:func:`is_abort`), which propagates.
"""
from __future__ import annotations

import contextlib
import math
import signal
import sys
import threading
from typing import Any, Callable, Iterator

from .certificate import Termination
from .limits import Deadline, LimitStop, resident_memory_bytes

Callback = Callable[[dict], Any]

# ---------------------------------------------------------------------------------------------
# Ctrl-C
# ---------------------------------------------------------------------------------------------

_request = threading.Event()
_lock = threading.Lock()
_depth = 0
_count = 0


def interrupt_requested() -> bool:
    """True once Ctrl-C (or :func:`request_interrupt`) asked the current run to stop."""
    return _request.is_set()


def is_abort(exc: BaseException) -> bool:
    """True when ``exc`` is the second Ctrl-C of a run (it must propagate: abort), not a
    ``KeyboardInterrupt`` a run outside :func:`catch_interrupt` (or its callback) raised, which
    a solver turns into an ``INTERRUPTED`` result."""
    return isinstance(exc, KeyboardInterrupt) and _request.is_set()


def request_interrupt() -> None:
    """Ask the current run to stop, as the first Ctrl-C does (safe from any thread)."""
    _request.set()


def _handler(signum, frame):  # pragma: no cover - exercised through real signals in tests
    global _count
    _count += 1
    if _count >= 2 or _request.is_set():
        raise KeyboardInterrupt
    _request.set()


@contextlib.contextmanager
def catch_interrupt() -> Iterator[None]:
    """Run a fit so that Ctrl-C stops it cleanly (see the module docstring).

    The outermost use clears any earlier request and installs the handler (main thread only);
    on exit the previous handler comes back.  A request made inside stays visible until the
    outermost use ends, so every phase of a multi-phase run sees it.
    """
    global _depth, _count
    installed, previous = False, None
    with _lock:
        outer = _depth == 0
        _depth += 1
        if outer:
            _request.clear()
            _count = 0
            if threading.current_thread() is threading.main_thread():
                try:
                    previous = signal.signal(signal.SIGINT, _handler)
                    installed = True
                except (ValueError, OSError):  # pragma: no cover - embedded interpreters
                    installed = False
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if installed:
                signal.signal(signal.SIGINT, previous)
            if _depth == 0:
                _request.clear()
                _count = 0


def stop_check(monitor, what: str):
    """A function ``check(detail)`` for a step with no partial result (reading, mining,
    grouping the samples): it raises :class:`~rulecert.limits.LimitStop` (one line:
    the limit, then ``what`` and ``detail``) when ``monitor`` says stop -- Ctrl-C, its deadline
    or its memory cap -- or, without a monitor, once Ctrl-C was pressed."""
    def check(detail: str = "") -> None:
        if monitor is not None:
            reason = monitor.should_stop()
        else:
            reason = (Termination.INTERRUPTED, "") if interrupt_requested() else None
        if reason is None:
            return
        termination, message = reason
        if termination is Termination.TIME_LIMIT:
            message = f"time limit of {monitor.deadline.time_limit:g} s reached"
        elif termination is Termination.INTERRUPTED and not message:
            message = "interrupted by the user (Ctrl-C)"
        raise LimitStop(termination, f"{message} while {what}{detail}")
    return check


# ---------------------------------------------------------------------------------------------
# the monitor of one fit
# ---------------------------------------------------------------------------------------------


class Monitor:
    """Limits, interrupt, callback and history of one fit.

    Parameters
    ----------
    solver : str
        Name put in every callback info dict.
    deadline : Deadline, optional
        The fit's clock (``Deadline(time_limit)``); without one the run has no time limit.
    memory_limit_mb : float, optional
        Resident-memory cap (already resolved, see :func:`rulecert.limits.resolve_memory_limit_mb`).
    callback : callable, optional
        Called with the info dict at every sample; returning ``True`` stops the run.
    history_every : float
        Seconds between periodic samples (events are always kept).
    max_history : int
        The most samples kept: beyond it every other periodic sample is dropped and the
        period doubles, so a long run keeps an even picture in bounded space.
    memory_every : float
        Seconds between two readings of the resident memory in :meth:`should_stop`.
    """

    def __init__(self, solver: str, *, deadline: Deadline | None = None,
                 memory_limit_mb: float | None = None, callback: Callback | None = None,
                 history_every: float = 1.0, max_history: int = 2000,
                 memory_every: float = 0.05):
        if callback is not None and not callable(callback):
            raise ValueError(f"callback must be callable or None, got {callback!r}")
        self.solver = solver
        self.deadline = deadline if deadline is not None else Deadline(None)
        self.memory_limit_mb = memory_limit_mb
        self.callback = callback
        self.history_every = float(history_every)
        self.max_history = max(16, int(max_history))
        self.memory_every = float(memory_every)
        self.history: list[dict[str, Any]] = []
        self.peak_memory_mb = resident_memory_bytes() / 2**20
        self.best_bound: float | None = None
        self._next_sample = -math.inf
        self._next_memory = -math.inf
        self._callback_stop = False

    # -- limits --------------------------------------------------------------------------------
    def memory_mb(self) -> float:
        mb = resident_memory_bytes() / 2**20
        self.peak_memory_mb = max(self.peak_memory_mb, mb)
        return mb

    def should_stop(self) -> tuple[Termination, str] | None:
        """Why the run must stop now (interrupt, callback, time, memory), or ``None``.

        Cheap enough to ask between small chunks of work: the resident memory is read at most
        every ``memory_every`` seconds.
        """
        if interrupt_requested():
            return Termination.INTERRUPTED, "interrupted by the user (Ctrl-C)"
        if self._callback_stop:
            return Termination.INTERRUPTED, "stopped by the callback"
        if self.deadline.expired():
            return Termination.TIME_LIMIT, ""
        now = self.deadline.elapsed()
        if now >= self._next_memory:        # read also without a cap: peak_memory_mb
            self._next_memory = now + self.memory_every
            return self.memory_reason()
        return None

    def memory_reason(self) -> tuple[Termination, str] | None:
        """``(MEMORY_LIMIT, message)`` when the resident memory, read now, reached the cap."""
        mb = self.memory_mb()
        if self.memory_limit_mb is not None and mb >= self.memory_limit_mb:
            return (Termination.MEMORY_LIMIT,
                    f"resident memory {mb:.0f} MB reached memory_limit_mb={self.memory_limit_mb:g}")
        return None

    def would_exceed_memory(self, extra_bytes: float) -> bool:
        """True when growing by ``extra_bytes`` would pass the memory cap."""
        if self.memory_limit_mb is None:
            return False
        return self.memory_mb() + extra_bytes / 2**20 >= self.memory_limit_mb

    # -- history and progress ------------------------------------------------------------------
    def _schedule(self, entry: dict[str, Any]) -> None:
        """A periodic sample taken: the next is due ``history_every`` seconds after it."""
        if entry.get("event", "periodic") == "periodic":
            self._next_sample = float(entry["time"]) + self.history_every

    def due(self) -> bool:
        """True when a periodic sample is due (``history_every`` seconds after the last)."""
        return self.deadline.elapsed() >= self._next_sample

    def sample(self, objective: float | None, lower_bound: float | None, *,
               event: str = "periodic", **counters: Any) -> bool:
        """Record a sample (events always, periodic ones every ``history_every`` seconds).

        Calls the callback with the info dict when a sample is taken; returns ``True`` when
        the callback asked to stop (and :meth:`should_stop` reports it from then on).
        """
        if event == "periodic" and not self.due():
            return False
        entry: dict[str, Any] = {"time": self.deadline.elapsed(), "objective": _num(objective),
                                 "lower_bound": _num(lower_bound), "event": event}
        entry.update(counters)
        return self.record(entry)

    def record(self, entry: dict[str, Any], *, notify: bool = True, **extra: Any) -> bool:
        """Keep ``entry`` (a dict with ``time``, ``objective``, ``lower_bound``, ``event`` and
        counters) in the history and pass it to the callback; for solvers that build their own
        samples.  The bound kept is the best proven so far (a bound, once proven, stays
        proven), so the history's bounds never decrease.  ``extra`` goes to the callback only
        (e.g. the incumbent itself); ``notify=False`` keeps the entry without calling the
        callback (a final record, after which nothing can stop).  Returns ``True`` when the
        callback asked to stop.
        """
        lb = entry.get("lower_bound")
        if lb is not None and not math.isnan(lb):
            if self.best_bound is not None and lb < self.best_bound:
                entry["lower_bound"] = lb = self.best_bound
            self.best_bound = lb
        elif self.best_bound is not None:
            entry["lower_bound"] = self.best_bound
        self.history.append(entry)
        if len(self.history) > self.max_history:
            self._thin()
        if notify:
            return self.notify(entry, **extra)
        self._schedule(entry)
        return self._callback_stop

    def notify(self, entry: dict[str, Any], **extra: Any) -> bool:
        """Pass ``entry`` to the callback without keeping it in the history (a progress
        sample of a run that holds no objective or bound yet); returns ``True`` when the
        callback asked to stop."""
        self._schedule(entry)
        if self.callback is not None:
            info = dict(entry, solver=self.solver,
                        gap=relative_gap(entry.get("objective"), entry.get("lower_bound")),
                        memory_mb=self.memory_mb(), **extra)
            if self.callback(info) is True:
                self._callback_stop = True
        return self._callback_stop

    def _thin(self) -> None:
        """Drop every other periodic sample (events stay) and double the period."""
        kept, periodic = [], 0
        for e in self.history:
            if e.get("event") == "periodic":
                periodic += 1
                if periodic % 2 == 0:
                    continue
            kept.append(e)
        self.history[:] = kept
        self.history_every *= 2.0


def _num(v):
    return None if v is None else float(v)


def relative_gap(objective, lower_bound) -> float | None:
    """``(objective - bound) / |objective|``, 0 when they meet, ``None`` without both."""
    if objective is None or lower_bound is None:
        return None
    g = max(0.0, float(objective) - float(lower_bound))
    if g == 0.0:
        return 0.0
    return math.inf if objective == 0 else g / abs(float(objective))


# ---------------------------------------------------------------------------------------------
# progress from inside long steps
# ---------------------------------------------------------------------------------------------

_reporting: list[tuple[Monitor, threading.Thread]] = []


@contextlib.contextmanager
def reporting(monitor: Monitor) -> Iterator[Monitor]:
    """Make ``monitor`` the one :func:`heartbeat` samples while the block runs, from this
    thread (nested uses: the innermost)."""
    entry = (monitor, threading.current_thread())
    _reporting.append(entry)
    try:
        yield monitor
    finally:
        _reporting.remove(entry)


def heartbeat(**counters: Any) -> None:
    """A periodic sample of the run in progress (:func:`reporting`) when one is due, with the
    last objective and the best bound it recorded, so that progress lines keep coming while a
    long step (a pricing search's rounds, a bound search) runs with no monitor of its own.
    Called between chunks of work; only the run's own thread samples.  A callback's request
    to stop is kept by the monitor (:meth:`Monitor.should_stop`)."""
    if not _reporting:
        return
    monitor, thread = _reporting[-1]
    if thread is threading.current_thread() and monitor.due():
        last = monitor.history[-1] if monitor.history else {}
        entry = {"time": monitor.deadline.elapsed(), "objective": _num(last.get("objective")),
                 "lower_bound": monitor.best_bound, "event": "periodic", **counters}
        if entry["objective"] is None or entry["lower_bound"] is None:
            monitor.notify(entry)      # the history holds numbers only
        else:
            monitor.record(entry)


# ---------------------------------------------------------------------------------------------
# the progress reporter
# ---------------------------------------------------------------------------------------------


class ProgressPrinter:
    """A callback that prints one progress line every ``every`` seconds after ``after`` seconds.

    ``ProgressPrinter(chain=user_callback)`` also forwards every info dict to another callback
    and returns its answer, so progress and a user's stop rule combine.
    """

    def __init__(self, *, every: float = 5.0, after: float = 2.0, stream=None,
                 chain: Callback | None = None):
        self.every, self.after = float(every), float(after)
        self.stream = stream
        self.chain = chain
        self._next = self.after
        self._offset = 0.0      # a run of several phases: each phase's clock starts at 0
        self._last = 0.0

    def __call__(self, info: dict) -> bool:
        t = float(info.get("time", 0.0))
        if t < self._last:      # a new phase (or a new solver) started its own clock
            self._offset += self._last
        self._last = t
        t += self._offset
        if t >= self._next or info.get("event") == "end" and t >= self.after:
            self._next = t + self.every
            print(format_progress(info), file=self.stream or sys.stderr, flush=True)
        return bool(self.chain(info)) if self.chain is not None else False


_COUNTERS = ("nodes", "nodes_expanded", "iterations", "columns", "queue_size", "solutions")


def format_progress(info: dict) -> str:
    """``[solver   12.3s] objective 0.1234 bound 0.1100 gap 10.9% nodes 1,234 mem 210 MB``."""
    parts = [f"[{info.get('solver', 'rulecert')} {float(info.get('time', 0.0)):7.1f}s]"]
    obj, lb, gap = info.get("objective"), info.get("lower_bound"), info.get("gap")
    parts.append("objective " + ("-" if obj is None else f"{obj:.6g}"))
    parts.append("bound " + ("-" if lb is None else f"{lb:.6g}"))
    parts.append("gap " + ("-" if gap is None else "inf" if gap == math.inf else f"{gap:.2%}"))
    for k in _COUNTERS:
        if info.get(k) is not None:
            parts.append(f"{k.replace('_', ' ')} {int(info[k]):,}")
    if info.get("memory_mb") is not None:
        parts.append(f"mem {info['memory_mb']:.0f} MB")
    return " ".join(parts)


def progress_callback(verbose, callback: Callback | None = None) -> Callback | None:
    """The callback an estimator or command passes to a solver: progress lines when
    ``verbose`` is true, chained to the user's ``callback``; ``None`` when neither."""
    if verbose:
        return ProgressPrinter(chain=callback)
    return callback


__all__ = ["catch_interrupt", "interrupt_requested", "is_abort", "stop_check", "heartbeat",
           "reporting", "request_interrupt", "Monitor",
           "ProgressPrinter", "format_progress", "relative_gap"]
