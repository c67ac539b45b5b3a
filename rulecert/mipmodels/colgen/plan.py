"""The planner: every share of a solve's time limit, in one table, and the one deadline type.

A solve has one :class:`~rulecert.limits.Deadline` (``run.end``); each phase and step gets a
``Deadline`` that ends at a share of the time left when it starts (:func:`share_of`), or the
solve's own.  Without a time limit every deadline is open and counted budgets alone stop
the work, so counted runs stay reproducible.  The shares are settings of the method, not of a
user: they keep one step from starving the ones after it.
"""
from __future__ import annotations

import math
import time

from ...limits import Deadline

SHARES = {
    "local search": 0.2,
    "dive": 0.5,
    "polish": 0.5,
    "error-free cover LP": 0.75,
    "positive side": 0.5,
    "bound search": 0.25,
    "time-left call": 0.5,
    "whole cover LP": 0.1,
}
"""Share of the time left when a step starts (``bound search``: of column generation's
limit, for the per-iteration complexity-dual search in all; ``time-left call``: each pricing
call of the descent with the time left; ``whole cover LP``: the error-free cover LP's
whole-set proof before its subsets; ``error-free cover LP``: all of it where the LP ceiling
already is the bound).  Column generation's own share is ``1 - Limits._ip_time_fraction``."""


def share_of(end: Deadline, share: float, now: float | None = None) -> Deadline:
    """A deadline ``share`` of the way from now to ``end`` (open when ``end`` is)."""
    now = time.perf_counter() if now is None else now
    if end.end is None:
        return Deadline(None, start=now)
    return Deadline(share * max(0.0, end.end - now), start=now)


def step_deadline(end: Deadline, step: str, now: float | None = None) -> Deadline:
    """The deadline of ``step`` (a key of :data:`SHARES`) within ``end``."""
    return share_of(end, SHARES[step], now)

def seconds_left(deadline: Deadline) -> float:
    """Seconds to ``deadline`` (``inf`` without a limit; negative once it has passed, which a
    HiGHS solve answers at once with ``TIME_LIMIT``)."""
    return math.inf if deadline.end is None else deadline.remaining(-math.inf)
