"""Run limits: one validation of every limit and one clock per fit.

Every solver and estimator checks its limits here, so the same value gets the same verdict and
the same words everywhere:

* :func:`check_time_limit` -- seconds, ``None`` for none.  ``allow_zero`` says whether 0 means
  "return what is held at once" (the CORELS search and the rule-list MIP take it; the falling
  searches and column generation, which need at least one step to hold a model, refuse it);
* :func:`check_count_limit` -- deterministic work limits (nodes, iterations, lengths):
  integers, ``minimum`` 0 or 1 as the solver states;
* :func:`check_positive` -- other strictly positive real limits (memory, deterministic time);
* :func:`resident_memory_bytes` -- what memory caps are compared with;
* :func:`resolve_memory_limit_mb` -- the default memory cap (``"auto"``: a fraction of the
  memory this machine or container has), a number of MB, or ``None`` for no cap;
* :data:`DEFAULT_SEED` -- the seed every randomized learner uses unless told otherwise, so the
  same command on the same data gives the same model;
* ``DEFAULT_*`` -- the other defaults the command line and the estimators share (time and
  memory limits, antecedent mining, the MIP backend), stated once in the README.

:class:`Deadline` is the clock of one fit ("one deadline per fit", :doc:`/architecture`):
``time_limit`` bounds the whole fit and each phase asks it for what remains
(:meth:`Deadline.remaining`), instead of re-doing ``max(1e-3, limit - elapsed)`` by hand.
A step that cannot return a partial result raises :class:`LimitStop` when a limit stops it.
"""
from __future__ import annotations

import math
import os
import time
from numbers import Integral, Real

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

DEFAULT_SEED = 0
"""The seed of every randomized step when the user gives none (reproducible by default)."""

DEFAULT_MEMORY_FRACTION = 0.5
"""The default memory cap (``memory_limit_mb="auto"``), as a fraction of the machine's memory."""

AUTO = "auto"
"""The value of ``memory_limit_mb`` (and ``--memory-limit-mb``) that asks for the default cap."""

# ---- the defaults the command line and the estimators share (README: "Limits and defaults") --
DEFAULT_TIME_LIMIT = None
"""No wall-clock limit: runs end by optimality, a deterministic limit, Ctrl-C or the memory cap."""
DEFAULT_MEMORY_LIMIT_MB = AUTO
"""Every search that grows a queue or a model in memory stops cleanly at the default cap."""
DEFAULT_MAX_CARD = 2
"""Longest conjunction mined for the rule-list learners (CORELS, the command line)."""
DEFAULT_MIP_MAX_CARD = 1
"""Longest conjunction mined by ``RuleListMIPClassifier`` (the MIP grows with the antecedents)."""
DEFAULT_MIN_SUPPORT = 0.01
"""Antecedent support must lie in [s, 1 - s]."""
DEFAULT_MIP_BACKEND = "highs"
"""The rule-list MIP's solver: HiGHS is deterministic (same model on every run) and takes any
sample weights; ``"cpsat"`` is often faster (one worker for reproducible runs)."""
EFFORTS = ("fast", "default", "certify")
"""The effort levels of column generation (:mod:`rulecert.mipmodels.colgen.presets`), here so
that the command line lists them without importing the solver."""
DEFAULT_HISTORY_EVERY = 1.0
"""Seconds between two periodic samples of a certificate's history."""
DEFAULT_BOUND_NODE_LIMIT = 200_000
"""Branch-and-bound nodes of each pricing call of column generation's per-iteration bound
search (``ColGenOptions.certification.bound_nodes``)."""
DEFAULT_DIVE_NODE_LIMIT = 5_000_000
"""Branch-and-bound pricing nodes of a column-generation dive in all
(``ColGenOptions.primal.dive_nodes``)."""
DEFAULT_FINAL_BOUND_NODE_LIMIT = 5_000_000
"""Branch-and-bound nodes in all of column generation's last bound search
(``ColGenOptions.certification.final_bound_nodes``; the figures behind the choice are in
``experiments/results/brcg_certification/``)."""
DEFAULT_CLOSE_GAP_MAX_COLUMNS = 10_000
"""Most clauses column generation's gap closing enumerates
(``ColGenOptions.certification.close_gap_columns``; the figures behind the choice are in
``experiments/results/brcg_certification/``)."""
DEFAULT_CLOSE_GAP_NODE_LIMIT = 100_000_000
"""Branch-and-bound nodes of gap closing's enumerations in all
(``ColGenOptions.certification.close_gap_nodes``)."""

MIN_PHASE_SECONDS = 1e-3
"""The least time a phase is given when a deadline is close: solvers treat a limit of 0 as
"no limit" or refuse it, so a phase that starts always gets a positive limit."""


def resident_memory_bytes() -> int:
    """Resident set size of this process (Linux /proc; elsewhere the peak, ru_maxrss)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):  # pragma: no cover - non-Linux
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def machine_memory_bytes() -> int:
    """Physical memory of this machine, or the container's cgroup limit when that is lower."""
    total = 0
    try:
        total = os.sysconf("SC_PHYS_PAGES") * _PAGE
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        total = 0
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as fh:
                raw = fh.read().strip()
        except OSError:
            continue
        if raw.isdigit() and 0 < int(raw) < (total or 1 << 62):
            total = int(raw)
    return int(total) if total > 0 else 8 * 2**30


def default_memory_limit_mb() -> float:
    """:data:`DEFAULT_MEMORY_FRACTION` of :func:`machine_memory_bytes`, in MB."""
    return round(DEFAULT_MEMORY_FRACTION * machine_memory_bytes() / 2**20)


def resolve_memory_limit_mb(value, name: str = "memory_limit_mb") -> float | None:
    """``"auto"`` -> the default cap; ``None`` -> no cap; a number -> checked (> 0)."""
    if isinstance(value, str) and value == AUTO:
        return float(default_memory_limit_mb())
    return check_positive(value, name)


def _is_number(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, Real) and not math.isnan(float(v))


def check_time_limit(value, name: str = "time_limit", *, allow_zero: bool = True) -> float | None:
    """``None`` or a finite number of seconds, ``>= 0`` (``> 0`` unless ``allow_zero``)."""
    if value is None:
        return None
    if not _is_number(value) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number of seconds or None, got {value!r}")
    v = float(value)
    if v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>=' if allow_zero else '>'} 0 seconds, got {value!r}")
    return v


def check_count_limit(value, name: str, *, minimum: int = 1,
                      allow_none: bool = True) -> int | None:
    """``None`` (if ``allow_none``) or an integer ``>= minimum`` (a node, iteration or length
    limit, a count of workers)."""
    if value is None and allow_none:
        return None
    whole = (isinstance(value, Integral) and not isinstance(value, bool)
             or _is_number(value) and float(value).is_integer())
    if not whole or int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}"
                         + (" or None" if allow_none else "") + f", got {value!r}")
    return int(value)


def check_positive(value, name: str) -> float | None:
    """``None`` or a finite number ``> 0`` (a memory cap, a deterministic-time budget)."""
    if value is None:
        return None
    if not _is_number(value) or not math.isfinite(float(value)) or float(value) <= 0:
        raise ValueError(f"{name} must be a finite number > 0 or None, got {value!r}")
    return float(value)


class LimitStop(Exception):
    """A step with no partial result to return (reading or mining the data, say) was stopped
    by a limit or Ctrl-C.  ``termination`` is the :class:`~rulecert.certificate.Termination`
    of the stop (``TIME_LIMIT``, ``MEMORY_LIMIT``, ``INTERRUPTED``); ``str(exc)`` is one line
    saying what stopped where.  The step raises it when its
    :meth:`rulecert.monitor.Monitor.should_stop` answers; a command reports it as a limit
    stop, not as an error."""

    def __init__(self, termination, message: str):
        super().__init__(message)
        self.termination = termination


class Deadline:
    """The wall clock of one fit: started once, asked by every phase for the time left.

    ``Deadline(None)`` never expires and :meth:`remaining` returns ``None`` (no limit), so
    phases pass ``deadline.remaining()`` straight to a solver's ``time_limit``.
    """

    __slots__ = ("time_limit", "start", "end")

    def __init__(self, time_limit: float | None, start: float | None = None):
        self.time_limit = None if time_limit is None else float(time_limit)
        self.start = time.perf_counter() if start is None else float(start)
        self.end = None if self.time_limit is None else self.start + self.time_limit

    def elapsed(self) -> float:
        """Seconds since the fit started."""
        return time.perf_counter() - self.start

    def remaining(self, floor: float = MIN_PHASE_SECONDS) -> float | None:
        """Seconds left (at least ``floor``), or ``None`` without a limit."""
        if self.end is None:
            return None
        return max(floor, self.end - time.perf_counter())

    def expired(self) -> bool:
        """True once the limit has passed (never without a limit)."""
        return self.end is not None and time.perf_counter() >= self.end

    def share(self, fraction: float) -> float | None:
        """``fraction`` of the time left (at least the phase floor), or ``None`` without a limit."""
        left = self.remaining(0.0)
        return None if left is None else max(MIN_PHASE_SECONDS, fraction * left)

    def __repr__(self) -> str:
        return f"Deadline(time_limit={self.time_limit!r}, elapsed={self.elapsed():.3f})"


__all__ = ["Deadline", "LimitStop", "check_time_limit", "check_count_limit", "check_positive",
           "AUTO", "DEFAULT_SEED", "DEFAULT_TIME_LIMIT",
           "DEFAULT_MEMORY_LIMIT_MB", "DEFAULT_MEMORY_FRACTION", "DEFAULT_MAX_CARD",
           "DEFAULT_MIP_MAX_CARD", "DEFAULT_MIN_SUPPORT", "DEFAULT_MIP_BACKEND",
           "DEFAULT_HISTORY_EVERY", "default_memory_limit_mb",
           "resolve_memory_limit_mb", "resident_memory_bytes", "machine_memory_bytes"]
