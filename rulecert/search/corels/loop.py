"""The CORELS driver: validation, state, limits, progress, certificate.

The branch-and-bound itself runs in :func:`.kernel.search_chunk` (numba) in chunks of node
expansions; between chunks this module checks the wall-clock and node limits, the memory
cap, the callback, records progress, grows the arrays and garbage-collects the queue when
the incumbent improves.
"""
from __future__ import annotations

import logging
import math
import time
from numbers import Integral, Real
from typing import Callable, Sequence

import numpy as np

from ... import _compat
from ...certificate import Solution, Termination, certify
from ...limits import AUTO, Deadline, LimitStop, resolve_memory_limit_mb
from ...monitor import Monitor, catch_interrupt, is_abort, stop_check
from ...problem import RuleProblem
from ...models.rulelist import rule_list_from_prefix
from . import kernel as K
from .bounds import (TOL, CorelsBounds, default_mistakes, lookahead_prunes, max_prefix_length,
                     prefix_length_prunes_children, prefix_stats_reference, subtree_prunes)
from .data import build_kernel_data, ungrouped_kernel_data

logger = logging.getLogger("rulecert.corels")

SOLVER = "rulecert-corels"
POLICIES = tuple(K.POLICY_CODES)
ABS_TOL = 1e-9
_MAX_IDS = 2**31 - 1


def _version() -> str:
    try:
        from ..._version import __version__
        return __version__
    except ImportError:  # pragma: no cover
        return ""


# ---- validation -------------------------------------------------------------------------------
def _check_nonneg_int(name, v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, Integral):
        raise ValueError(f"{name} must be a non-negative integer or None, got {v!r}")
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {v!r}")
    return int(v)


def _check_nonneg_real(name, v, strictly_positive=False):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, Real) or math.isnan(float(v)):
        raise ValueError(f"{name} must be a number or None, got {v!r}")
    v = float(v)
    if v < 0 or (strictly_positive and v == 0):
        raise ValueError(f"{name} must be {'>' if strictly_positive else '>='} 0, got {v!r}")
    return v


def _check_prefix(prefix, M, max_length):
    if prefix is None:
        return None
    try:
        p = [int(i) for i in prefix]
    except (TypeError, ValueError):
        raise ValueError(f"initial_prefix must be a sequence of antecedent indices, got {prefix!r}") from None
    for i in p:
        if not 0 <= i < M:
            raise ValueError(f"initial_prefix index {i} is out of range for {M} antecedents")
    if len(set(p)) != len(p):
        raise ValueError(f"initial_prefix repeats an antecedent: {p}")
    if max_length is not None and len(p) > max_length:
        raise ValueError(f"initial_prefix has {len(p)} rules, more than max_length={max_length}")
    return p


# ---- state --------------------------------------------------------------------------------------
class _State:
    """Arrays shared with the kernel (grown between chunks)."""

    def __init__(self, M: int, W: int, perm: bool):
        cap = 1024
        self.n_parent = np.empty(cap, np.int32)
        self.n_ant = np.empty(cap, np.int32)
        self.n_depth = np.empty(cap, np.int16)
        self.n_flags = np.empty(cap, np.uint8)
        self.n_m = np.empty(cap, np.int32)
        self.n_eq = np.empty(cap, np.int32)
        self.heap = np.empty(cap, np.uint64)
        mcap = 1024 if perm else 1
        self.mslot = np.zeros(mcap, np.uint64)
        self.ist = np.zeros(K.N_STATE, np.int64)
        self.fst = np.zeros(1, np.float64)
        self.inc_prefix = np.zeros(M + 1, np.int32)
        self.path = np.zeros(M + 1, np.int32)
        self.inmask = np.zeros(M, np.bool_)
        self.u = np.zeros(W, np.uint64)
        self.v = np.zeros(W, np.uint64)
        self.perm = perm

    _NODE_FIELDS = ("n_parent", "n_ant", "n_depth", "n_flags", "n_m", "n_eq")

    def node_bytes(self) -> int:
        return sum(getattr(self, f).itemsize for f in self._NODE_FIELDS)

    def growth_plan(self, M: int) -> tuple[int, int, int, int]:
        """(new node cap, new heap cap, new map cap, bytes the growth adds at its peak).

        :meth:`grow` replaces one array at a time and frees the old one: a node or heap array
        adds its copied part while it is copied (its slack is touched only as the search fills
        it, and the memory checks between chunks see that); the map adds its whole new table,
        which the rehash touches.  The peak is the largest of these."""
        nn, hs, mc = self.ist[K.S_NODES], self.ist[K.S_HEAP], self.ist[K.S_MAP]
        ncap, hcap, mcap = self.n_parent.shape[0], self.heap.shape[0], self.mslot.shape[0]
        extra = 0
        new_n = ncap
        if nn + M > ncap:
            new_n = max(min(int(ncap * 1.6), _MAX_IDS), nn + M + 1)
            extra = max(extra, nn * max(getattr(self, f).itemsize for f in self._NODE_FIELDS))
        new_h = hcap
        if hs + M > hcap:
            new_h = max(min(int(hcap * 1.6), _MAX_IDS), hs + M + 1)
            extra = max(extra, hs * 8)
        new_m = mcap
        if self.perm:
            while 4 * (mc + M) > 3 * new_m:    # load at most 3/4
                new_m *= 2
            if new_m != mcap:
                extra = max(extra, new_m * 8)
        return new_n, new_h, new_m, extra

    def grow(self, new_n: int, new_h: int, new_m: int) -> None:
        nn, hs = self.ist[K.S_NODES], self.ist[K.S_HEAP]
        if new_n != self.n_parent.shape[0]:
            for f in self._NODE_FIELDS:
                old = getattr(self, f)
                new = np.empty(new_n, old.dtype)
                new[:nn] = old[:nn]
                setattr(self, f, new)
        if new_h != self.heap.shape[0]:
            heap = np.empty(new_h, np.uint64)
            heap[:hs] = self.heap[:hs]
            self.heap = heap
        if new_m != self.mslot.shape[0]:
            mslot = np.zeros(new_m, np.uint64)
            K.map_rehash(self.mslot, mslot)
            self.mslot = mslot

    def allocated_bytes(self) -> int:
        arrs = [getattr(self, f) for f in self._NODE_FIELDS] + [self.heap, self.mslot]
        return int(sum(a.nbytes for a in arrs))


# ---- the solver ---------------------------------------------------------------------------------
def solve(problem: RuleProblem, c: float, *, policy: str = "lower_bound",
          max_length: int | None = None, time_limit: float | None = None,
          node_limit: int | None = None, memory_limit_mb: float | str | None = AUTO,
          bounds: CorelsBounds = CorelsBounds(), callback: Callable[[dict], bool] | None = None,
          initial_prefix: Sequence[int] | None = None,
          history_every: float = 1.0) -> Solution:
    """Certifiably optimal rule list by the CORELS branch-and-bound (Angelino et al., JMLR 2018).

    Minimizes ``mistakes / n + c * K`` over rule lists built from the problem's antecedents,
    each rule predicting the majority of the samples it newly captures and the default rule the
    majority of the rest (ties predict 1).

    Parameters
    ----------
    problem : RuleProblem
        Unweighted problem with both labels present.
    c : float
        Per-rule penalty in [0, 1) (a warning below 1/n).
    policy : {"lower_bound", "bfs", "dfs", "objective", "curiosity"}
        Queue order: breadth first, depth first, smallest lower bound ``b(d_p) + b_0(d_p)``,
        smallest objective, or smallest curiosity ``b(d_p) / supp(d_p)`` (JMLR section 5.6).
    max_length : int, optional
        Longest prefix considered.  The certificate then holds for lists of at most this many
        rules; ``cert.stats["max_length_binding"]`` is False (and the message says so) only when
        Theorem 4 shows that no better longer list exists.
    time_limit : float, optional
        Wall-clock seconds for the whole call.
    node_limit : int, optional
        Maximum number of node expansions (deterministic).
    memory_limit_mb : float, "auto" or None
        Stop cleanly (MEMORY_LIMIT) before the process's resident memory would exceed this
        many MB; ``"auto"`` (default) is :func:`rulecert.limits.default_memory_limit_mb`
        (half of the machine's memory), ``None`` no cap.
    bounds : CorelsBounds
        Which bounds to use (all on by default); the optimum never depends on it.
    callback : callable, optional
        Called with an info dict (the keys of :mod:`rulecert.monitor`: ``solver``, ``time``,
        ``objective``, ``lower_bound``, ``gap``, ``nodes_expanded``, ``queue_size``,
        ``memory_mb``, and the incumbent ``prefix``) at the start, on every incumbent
        improvement, every ``history_every`` seconds and at the end; returning True stops the
        search (INTERRUPTED).  :class:`rulecert.monitor.ProgressPrinter` prints it.
    initial_prefix : sequence of int, optional
        Warm start: an antecedent prefix whose (CORELS-labelled) rule list is the first
        incumbent; its objective is recorded in ``cert.warm_start_objective``.
    history_every : float
        Seconds between periodic progress records (and callback calls); a record scans the
        trie and queue, so on very large searches the interval stretches to keep that cost
        under about 5% of the run.  The history is thinned as :class:`rulecert.monitor.Monitor`
        thins it (at most about 2000 records; events are kept).

    Ctrl-C (under :func:`rulecert.monitor.catch_interrupt`, which this function enters itself)
    stops the search within a chunk of expansions (a fraction of a second) with termination
    INTERRUPTED, the incumbent, the bound over the open queue and the gap; a second Ctrl-C
    aborts.  A limit reached while the samples are grouped (the equivalent points) stops the
    search at its start, with the empty list and a bound without equivalent points.

    Returns
    -------
    Solution
        Unpacks as ``(rule_list, certificate)``: the incumbent :class:`~rulecert.models.RuleList`
        and its :class:`~rulecert.certificate.Certificate`.
    """
    with catch_interrupt():
        run = _Run(*_validate(problem, c, policy, max_length, time_limit, node_limit,
                              memory_limit_mb, bounds, callback, initial_prefix, history_every))
        run.search()
        return run.finish()


def _validate(problem, c, policy, max_length, time_limit, node_limit, memory_limit_mb, bounds,
              callback, initial_prefix, history_every):
    """Every argument checked before any work (the clock starts here)."""
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    if not isinstance(problem, RuleProblem):
        raise ValueError(f"problem must be a rulecert.RuleProblem, got {type(problem).__name__}")
    if problem.weighted:
        raise ValueError("corels does not support sample weights: the bounds (support, equivalent "
                         "points, integer permutation comparison) are for counts; pass an "
                         "unweighted RuleProblem")
    problem.check_two_classes()
    c = problem.check_regularization(c)
    if not isinstance(policy, str) or policy not in K.POLICY_CODES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    max_length = _check_nonneg_int("max_length", max_length)
    node_limit = _check_nonneg_int("node_limit", node_limit)
    time_limit = _check_nonneg_real("time_limit", time_limit)
    memory_limit_mb = resolve_memory_limit_mb(memory_limit_mb)
    history_every = _check_nonneg_real("history_every", history_every, strictly_positive=True)
    if not isinstance(bounds, CorelsBounds):
        raise ValueError(f"bounds must be a CorelsBounds, got {type(bounds).__name__}")
    if callback is not None and not callable(callback):
        raise ValueError(f"callback must be callable or None, got {callback!r}")
    init = _check_prefix(initial_prefix, problem.n_antecedents, max_length)
    return (problem, c, policy, max_length, time_limit, node_limit, memory_limit_mb, bounds,
            callback, init, history_every, t0, cpu0)


_CHUNK_WORDS = 50_000_000
"""Words of antecedent columns read by the first chunk of expansions, at most (about 0.05 s)."""


class _Run:
    """One CORELS search: setup, chunked search between limit checks, certificate."""

    def __init__(self, problem, c, policy, max_length, time_limit, node_limit, memory_limit_mb,
                 bounds, callback, init, history_every, t0, cpu0):
        self.problem, self.c, self.policy, self.max_length = problem, c, policy, max_length
        self.time_limit, self.node_limit, self.history_every = time_limit, node_limit, history_every
        self.bounds, self.callback, self.t0, self.cpu0 = bounds, callback, t0, cpu0
        self.M = M = problem.n_antecedents
        self.N = N = problem.n_samples
        self.mon = Monitor(SOLVER, deadline=Deadline(time_limit, start=t0),
                           memory_limit_mb=memory_limit_mb, callback=callback,
                           history_every=history_every)
        self.message_extra, self.grouping_stop = "", None
        try:
            self.kd = build_kernel_data(problem, check=stop_check(
                self.mon, "grouping the samples"))
        except LimitStop as stop:   # the search starts and stops at once, holding the empty list
            self.kd, self.grouping_stop = ungrouped_kernel_data(problem), stop
        self.C = c * N
        self.max_len_eff = M if max_length is None else min(max_length, M)
        self.use_lb = bounds.hierarchical or bounds.equivalent_points or bounds.lookahead
        self.lifo = policy == "dfs"
        self.st = _State(M, self.kd.n_words, bounds.permutation)
        self.warm_obj = None
        self._incumbent(init)
        self.root_open = self._root()
        self.params = self._params()
        self.history = self.mon.history
        self.gc_runs = self.gc_marked = self.chunks = 0
        self.termination = None
        # the first chunk: 64 expansions, fewer where one expansion reads many words (an
        # expansion scans every antecedent's columns), so a limit is seen within ~0.05 s
        self.chunk = int(max(1, min(64, _CHUNK_WORDS // max(1, self.M * self.kd.n_words))))

    # ---- setup ------------------------------------------------------------------------------
    def _incumbent(self, init) -> None:
        """The first incumbent: the empty rule list, or the warm start when better."""
        kd, st, N, c, C = self.kd, self.st, self.N, self.c, self.C
        R = float(default_mistakes(kd.n_pos, kd.n_neg))
        inc_prefix: list[int] = []
        inc_m, inc_K = int(R), 0
        if init is not None:
            pm, dm, _ = prefix_stats_reference(self.problem, init)
            self.warm_obj = (pm + dm) / N + c * len(init)
            Rw = (pm + dm) + C * len(init)
            if Rw < R - TOL:
                R, inc_prefix, inc_m, inc_K = Rw, list(init), pm + dm, len(init)
        st.fst[0] = R
        st.ist[K.S_INC_M], st.ist[K.S_INC_K], st.ist[K.S_INC_LEN] = inc_m, inc_K, inc_K
        st.inc_prefix[:inc_K] = inc_prefix
        st.ist[K.S_KMAX] = max_prefix_length(R, C, self.M)

    def _root(self) -> bool:
        """The empty prefix in the trie, and on the queue unless a bound already closes it."""
        st, bounds, C = self.st, self.bounds, self.C
        R = float(st.fst[0])
        lb_root = float(self.kd.n_minority) if bounds.equivalent_points else 0.0
        st.n_parent[0], st.n_ant[0], st.n_depth[0], st.n_flags[0], st.n_m[0], st.n_eq[0] = -1, -1, 0, 0, 0, lb_root
        st.ist[K.S_NODES] = 1
        st.ist[K.S_TRIE_INS] = 1
        root_open = self.M > 0 and self.max_len_eff >= 1
        if root_open and self.use_lb and (lookahead_prunes(lb_root, C, R) if bounds.lookahead
                                          else subtree_prunes(lb_root, R)):
            root_open = False
        if root_open and bounds.prefix_length and prefix_length_prunes_children(0, 0.0, R, C, st.ist[K.S_KMAX]):
            root_open = False
        if root_open:
            key = {"bfs": 0.0, "dfs": 0.0, "lower_bound": lb_root, "objective": R,
                   "curiosity": 0.0}[self.policy]
            st.ist[K.S_HEAP] = K.root_push(st.heap, key, self.lifo)
            st.ist[K.S_MAX_HEAP] = 1
        return root_open

    def _params(self) -> np.ndarray:
        """The kernel's integer parameters: which bounds, the queue policy, the sizes."""
        bounds = self.bounds
        params = np.zeros(K.N_PARAMS, np.int64)
        params[K.P_HIER] = bounds.hierarchical
        params[K.P_LOOK] = bounds.lookahead
        params[K.P_SUPP] = bounds.support
        params[K.P_ACC] = bounds.accurate_support
        params[K.P_EQ] = bounds.equivalent_points
        params[K.P_PERM] = bounds.permutation
        params[K.P_PLEN] = bounds.prefix_length
        params[K.P_POLICY] = K.POLICY_CODES[self.policy]
        params[K.P_MAXLEN] = self.max_len_eff
        params[K.P_N] = self.N
        return params

    # ---- progress -----------------------------------------------------------------------------
    def scan(self):
        """(lower bound on the scaled objective over the open queue, live size, by length)."""
        st = self.st
        nn = int(st.ist[K.S_NODES])
        dead = np.zeros(nn, np.bool_)
        by_depth = np.zeros(self.max_len_eff + 1, np.int64)
        best, live = K.queue_scan(st.n_parent, st.n_flags, st.n_m, st.n_depth, st.n_eq, nn, st.heap,
                                  int(st.ist[K.S_HEAP]), self.lifo, self.C, int(st.ist[K.S_KMAX]),
                                  dead, by_depth)
        return min(float(best), float(st.fst[0])), int(live), by_depth

    def incumbent_objective(self) -> float:
        return int(self.st.ist[K.S_INC_M]) / self.N + self.c * int(self.st.ist[K.S_INC_K])

    def record(self, event: str) -> dict:
        """A history record (the queue scanned for the bound); the callback sees it too."""
        st = self.st
        lb_s, live, by_depth = self.scan()
        obj = self.incumbent_objective()
        entry = {"time": time.perf_counter() - self.t0, "objective": obj,
                 "lower_bound": min(lb_s / self.N, obj), "nodes_expanded": int(st.ist[K.S_EXPANDED]),
                 "queue_size": live, "queue_physical": int(st.ist[K.S_HEAP]),
                 "queue_by_length": [int(v) for v in np.trim_zeros(by_depth, "b")], "event": event}
        self.stop_requested = self._keep(entry)
        return entry

    def _keep(self, entry: dict, notify: bool = True) -> bool:
        """Into the monitor's history and to the callback; True when the callback asks to stop."""
        prefix = [int(v) for v in self.st.inc_prefix[:self.st.ist[K.S_INC_LEN]]]
        return self.mon.record(entry, notify=notify, prefix=prefix)

    def _stop(self, termination, message: str = "") -> None:
        self.termination = termination
        self.message_extra = "; ".join(m for m in (self.message_extra, message) if m)

    # ---- the search ---------------------------------------------------------------------------
    def search(self) -> None:
        """Chunks of node expansions in the kernel, the limits and progress checked between."""
        self.stop_requested = False
        self.next_periodic = time.perf_counter() + self.history_every
        try:
            self.record("start")
            if not self.root_open:
                self.termination = Termination.OPTIMAL
            elif self.grouping_stop is not None:
                self._stop(self.grouping_stop.termination, f"{self.grouping_stop} (the "
                           "equivalent-points bound was not used)")
            elif self.stop_requested:
                self._stop(Termination.INTERRUPTED, "stopped by the callback")
            while self.termination is None:
                now = time.perf_counter()
                if self._limit_reached(now) or self._periodic(now):
                    break
                self._search_chunk()
        except KeyboardInterrupt as exc:   # outside catch_interrupt, or raised by the callback
            if is_abort(exc):
                raise
            self._stop(Termination.INTERRUPTED, "interrupted by the user (KeyboardInterrupt)")

    def _limit_reached(self, now: float) -> bool:
        """Node limit, then the monitor's (Ctrl-C, callback, time, memory)."""
        if self.node_limit is not None and self.st.ist[K.S_EXPANDED] >= self.node_limit:
            self._stop(Termination.NODE_LIMIT)
            return True
        stop = self.mon.should_stop()
        if stop is not None:
            self._stop(*stop)
            return True
        return False

    def _periodic(self, now: float) -> bool:
        """A progress record (and callback) every ``history_every`` seconds; True to stop."""
        if now < self.next_periodic:
            return False
        entry = self.record("periodic")
        # a record scans the trie and the queue: keep that under ~5% of the run (the period
        # doubles when the monitor thins the history)
        after = time.perf_counter()
        self.next_periodic = after + max(self.mon.history_every, 20.0 * (after - now))
        logger.debug("t=%.1fs objective=%.10f bound=%.10f expanded=%d queue=%d",
                     entry["time"], entry["objective"], entry["lower_bound"],
                     entry["nodes_expanded"], entry["queue_size"])
        if self.stop_requested:
            self._stop(Termination.INTERRUPTED, "stopped by the callback")
            return True
        return False

    def _search_chunk(self) -> None:
        """One kernel call, then what its return code asks for (grow, collect, finish)."""
        st, kd = self.st, self.kd
        budget = self.chunk
        if self.node_limit is not None:
            budget = min(budget, self.node_limit - int(st.ist[K.S_EXPANDED]))
        tc = time.perf_counter()
        rc = K.search_chunk(kd.capg, kd.tables, kd.upos, kd.umin, kd.allcols, kd.n_heavy_words,
                            kd.has_umin, self.C, self.params, st.n_parent, st.n_ant,
                            st.n_depth, st.n_flags, st.n_m, st.n_eq, st.heap, st.mslot,
                            st.ist, st.fst, st.inc_prefix, budget, 16 * budget + 4096,
                            st.path, st.inmask, st.u, st.v)
        self.chunks += 1
        dt = time.perf_counter() - tc
        if rc == K.RC_BUDGET:
            if dt < 0.01 and self.chunk < (1 << 22):
                self.chunk *= 2
            elif dt > 0.08 and self.chunk > 1:
                self.chunk //= 2
        if rc == K.RC_EMPTY:
            self.termination = Termination.OPTIMAL
        elif rc == K.RC_GROW:
            self._grow()
        elif rc == K.RC_IMPROVED:
            self._collect_garbage()

    def _grow(self) -> None:
        """Grow the search arrays, unless the ids or the memory cap forbid it."""
        st = self.st
        new_n, new_h, new_m, extra = st.growth_plan(self.M)
        if max(new_n, new_h) > _MAX_IDS or new_m > 2**32:
            self._stop(Termination.MEMORY_LIMIT,
                       f"the search reached {_MAX_IDS:,} trie nodes (int32 node ids)")
            return
        if self.mon.would_exceed_memory(extra):
            self._stop(Termination.MEMORY_LIMIT, f"growing the search arrays by {extra / 2**20:.0f} "
                       "MB would exceed memory_limit_mb")
            return
        st.grow(new_n, new_h, new_m)

    def _collect_garbage(self) -> None:
        """A better incumbent: drop the queue entries it dominates, record, tell the callback."""
        st, bounds = self.st, self.bounds
        hs, marked = K.gc_pass(st.n_parent, st.n_flags, st.n_m, st.n_depth, st.n_eq,
                               int(st.ist[K.S_NODES]), st.heap, int(st.ist[K.S_HEAP]),
                               float(st.fst[0]), self.C, bounds.lookahead, self.use_lb,
                               bounds.prefix_length, int(st.ist[K.S_KMAX]), self.lifo,
                               np.zeros(int(st.ist[K.S_NODES]), np.bool_))
        st.ist[K.S_HEAP] = hs
        self.gc_runs += 1
        self.gc_marked += int(marked)
        entry = self.record("incumbent")
        logger.info("new incumbent objective=%.10f (%d mistakes, %d rules) bound=%.10f "
                    "t=%.2fs expanded=%d", entry["objective"], int(st.ist[K.S_INC_M]),
                    int(st.ist[K.S_INC_K]), entry["lower_bound"], entry["time"],
                    entry["nodes_expanded"])
        if self.stop_requested:
            self._stop(Termination.INTERRUPTED, "stopped by the callback")

    # ---- the certificate ----------------------------------------------------------------------
    def finish(self) -> Solution:
        """The incumbent as a RuleList (checked against the search's counts) and its certificate."""
        st, N, c = self.st, self.N, self.c
        self.mon.memory_mb()
        R = float(st.fst[0])
        inc_m, inc_K = int(st.ist[K.S_INC_M]), int(st.ist[K.S_INC_K])
        prefix = [int(v) for v in st.inc_prefix[:st.ist[K.S_INC_LEN]]]
        objective = inc_m / N + c * inc_K
        # the closing rule: a stopped search whose open prefixes are all dominated by the
        # incumbent has completed its proof (certify then calls it optimal)
        lb_s, live = (R, 0) if self.termination is Termination.OPTIMAL else self.scan()[:2]
        closed = live == 0 or lb_s >= R - TOL
        model = rule_list_from_prefix(self.problem, prefix)
        pm, dm, _ = prefix_stats_reference(self.problem, prefix)
        if pm + dm != inc_m or len(prefix) != inc_K:  # pragma: no cover - internal consistency
            raise RuntimeError(f"internal error: search reports {inc_m} mistakes with {inc_K} rules, "
                               f"the returned list has {pm + dm} with {len(prefix)}")
        k_bound = max_prefix_length(R, self.C, self.M)
        binding = self.max_length is not None and self.max_length < self.M and k_bound > self.max_length
        wall = time.perf_counter() - self.t0
        cert = certify(objective, lb_s / N, self.termination, solver=SOLVER, closed=closed,
                       solver_version=_version(), abs_tol=ABS_TOL, nodes=int(st.ist[K.S_EXPANDED]),
                       wall_time=wall, warm_start_objective=self.warm_obj,
                       message="; ".join(self._messages(closed, k_bound, binding)),
                       history=self.history)
        cert.stats = self._stats(cert.termination, live, inc_m, inc_K, k_bound, binding, prefix)
        self._keep({"time": wall, "objective": objective, "lower_bound": cert.lower_bound,
                    "nodes_expanded": int(st.ist[K.S_EXPANDED]), "queue_size": int(live),
                    "queue_physical": int(st.ist[K.S_HEAP]), "queue_by_length": [],
                    "event": "end"}, notify=False)
        logger.info("corels c=%g: %s objective=%.10f bound=%.10f expanded=%d in %.2fs",
                    c, cert.termination.value, objective, cert.lower_bound, cert.nodes, wall)
        return Solution(model, cert)

    def _messages(self, closed: bool, k_bound: int, binding: bool) -> list[str]:
        max_length = self.max_length
        msgs = []
        if closed:
            msgs.append("queue exhausted: the rule list is optimal")
        else:
            msgs.append(f"stopped by {self.termination.value}: the incumbent is feasible, the "
                        "bound is the minimum over the open queue")
        if max_length is not None and max_length < self.M:
            if binding:
                msgs.append(f"within max_length={max_length} rules only (the restriction may bind: "
                            f"Theorem 4 allows up to {k_bound} rules)")
            else:
                msgs.append(f"max_length={max_length} is not binding (Theorem 4: any list as good "
                            f"has at most floor(R/c)={k_bound} rules)")
        if self.message_extra:
            msgs.append(self.message_extra)
        return msgs

    def _stats(self, termination, live, inc_m, inc_K, k_bound, binding, prefix) -> dict:
        st, kd = self.st, self.kd
        stats = {name: int(st.ist[i]) for i, name in enumerate(K.STATE_NAMES)}
        for k in ("nodes", "heap", "map_entries", "inc_len", "inc_mistakes", "inc_rules", "k_max"):
            stats.pop(k)
        stats.update({
            "map_insertions": stats["map_insertions_new"] + stats["map_replacements"],
            "trie_nodes": int(st.ist[K.S_NODES]), "map_entries": int(st.ist[K.S_MAP]),
            "queue_size_at_end": int(live), "gc_runs": self.gc_runs,
            "gc_nodes_deleted": self.gc_marked, "chunks": self.chunks, "mistakes": inc_m,
            "n_rules": inc_K, "n_samples": self.N, "n_antecedents": self.M, "c": self.c,
            "policy": self.policy, "bounds": self.bounds.as_dict(), "max_length": self.max_length,
            "max_length_binding": bool(binding),
            "optimal_unrestricted": termination is Termination.OPTIMAL and not binding,
            "prefix_length_bound": int(k_bound), "kernel_mode": kd.mode,
            "kernel_columns": kd.n_columns, "kernel_words": kd.n_words,
            "cpu_time": time.process_time() - self.cpu0,
            "peak_rss_mb": self.mon.peak_memory_mb, "search_arrays_mb": st.allocated_bytes() / 2**20,
            "prefix": prefix,
        })
        return stats

__getattr__ = _compat.renamed(__name__)
