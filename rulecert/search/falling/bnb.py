"""Exact branch-and-bound for Program 2.9 (FRL) and Program 5.1 (softFRL).

Best-first search over prefixes, ordered by the prefix bound.  Expanding a prefix evaluates
all its children at once on packed bits (:mod:`rulecert.search.falling.bounds`); the open
children wait as one family sorted by bound, of which only the next is in the queue (a child is
checked for dominance and expanded when its turn comes); then

* every valid child's completion "end here with the else clause" updates the incumbent;
* a child whose bound (Theorem 4.6 / 5.2, raised to its parent's: its completions are among
  the parent's) is not below the incumbent is pruned;
* a child for which ending now is optimal (inequality (9) / its softFRL analogue) is closed;
* **dominance**: two prefixes that capture the same samples leave the same remaining
  subproblem (an antecedent of either captures nothing new, so it can never be used again).
  Their completions differ only through the objective so far and, for FRL, the last rule's
  proportion (every later rule must not exceed it), for softFRL the running minimum alpha_min
  (every later penalty max(alpha - alpha_min, 0) is smaller when alpha_min is larger).  So a
  prefix is dropped when another one with the same captured set has cost <= and
  alpha >= (alpha_last for FRL, alpha_min for softFRL) -- and for FRL a lower cost with the
  same captured set means fewer rules.  Captured sets are keyed by a 128-bit hash of the
  packed uncaptured vector (:func:`~rulecert.search.falling.bounds.child_keys`; two different
  sets collide with probability about 2**-128).

The certificate's lower bound is min(incumbent, smallest bound of any pruned or open prefix);
the search is OPTIMAL only when the queue is exhausted.  A time, node or queue limit returns
the incumbent with that proven bound and its gap; so do Ctrl-C (``INTERRUPTED``), a callback
returning True, and the memory cap (``MEMORY_LIMIT``: the queue is what grows).  The history
holds periodic samples (``history_every`` seconds) and every incumbent, with the bound proven
so far (never decreasing).
"""
from __future__ import annotations

import heapq
import math

import numpy as np

from ...certificate import Certificate, Termination, certify
from ...limits import AUTO, Deadline, check_count_limit, check_time_limit, resolve_memory_limit_mb
from ...monitor import Monitor, catch_interrupt, is_abort, stop_check
from ...models.falling import FallingRuleList, frl_objective, make_params, soft_frl_objective
from .bounds import (FallingData, check_incumbent, child_keys, children, exact_objective, model_of,
                     root_tail, solver_name)

PRUNE_TOL = 1e-12
"""A child is pruned when its bound >= incumbent - PRUNE_TOL (float round-off only)."""
ABS_TOL = 1e-9
"""Certificate tolerance: the bound meets the objective within this."""


def _seed_prefix(problem, params, incumbent):
    """Validated prefix of a warm start (a FallingRuleList or index sequence), or None."""
    if incumbent is None:
        return None
    if isinstance(incumbent, FallingRuleList):
        prefix = incumbent.rows_in(problem)
    else:
        prefix = [int(i) for i in incumbent]
    if params.program == "frl":
        s = frl_objective(problem, prefix, params.w, params.C)
        if not s.falling:
            raise ValueError("the warm-start list does not fall on this problem")
    else:
        s = soft_frl_objective(problem, prefix, params.w, params.C, params.C1)
    return tuple(prefix), s.objective


def _check_limits(max_length, time_limit, node_limit, queue_limit):
    check_count_limit(max_length, "max_length", minimum=0)
    check_time_limit(time_limit, "time_limit", allow_zero=False)
    check_count_limit(node_limit, "node_limit", minimum=1)
    if queue_limit is None:
        raise ValueError("queue_limit must be an integer >= 1, got None")
    check_count_limit(queue_limit, "queue_limit", minimum=1)


class _Family:
    """The open children of one expanded prefix, sorted by bound; ``pos`` is the next one.

    Only the next child is in the queue (under its bound, the least of the rest): a child is
    taken out, checked for dominance and expanded when its turn comes, and the family goes
    back under its next child's bound.  Children never reached cost no queue entry.
    """

    __slots__ = ("prefix", "idx", "bound", "cost", "alpha", "state", "k1", "k2", "pos")

    def __init__(self, prefix, idx, bound, cost, alpha, state, k1, k2):
        self.prefix, self.idx, self.bound = prefix, idx, bound
        self.cost, self.alpha, self.state, self.k1, self.k2 = cost, alpha, state, k1, k2
        self.pos = 0

    def left(self) -> int:
        return len(self.idx) - self.pos


class _Search:
    """State of one best-first search: the queue, the incumbent, the pruned bound, dominance.

    Queue entries are (bound, -depth, counter, family): ``family`` is a :class:`_Family` (its
    next child's bound is the entry's) or ``None`` for the empty prefix.  ``open`` counts the
    prefixes waiting in the families of the queue.
    """

    def __init__(self, problem, params, data, Kmax, incumbent, dominance, monitor: Monitor):
        self.params, self.data, self.Kmax = params, data, Kmax
        self.monitor, self.deadline = monitor, monitor.deadline
        self.dominance = dominance
        self.n = data.n
        ext0, stop0 = root_tail(params, self.n, data.NP, data.NN)
        # the empty prefix: its else-only list is always compatible and falling
        self.best_val = stop0
        self.best_prefix: tuple[int, ...] = ()
        self.warm_obj = None
        seed = _seed_prefix(problem, params, incumbent)
        if seed is not None:
            self.warm_obj = seed[1]
            if len(seed[0]) <= Kmax and seed[1] < self.best_val:
                self.best_prefix, self.best_val = seed
        self.pruned_min = math.inf
        self.heap: list = []
        self.dom: dict[tuple[int, int], list] = {}
        self.counter = 0
        self.nodes = 0
        self.open = 0
        self.root_state = (1, 0) if params.program == "frl" else 1.0
        if Kmax > 0 and data.captures_something and not (stop0 <= ext0):
            self.heap.append((min(ext0, stop0), 0, self.counter, None))
            self.open = 1
        self.message = ""
        self.expanding = math.inf   # the bound of the prefix being expanded (popped, children not queued)
        self._sample("start")

    def bound(self) -> float:
        """The bound proven now: min(incumbent, pruned bounds, the open queue's least)."""
        return min(self.best_val, self.pruned_min, self.heap[0][0] if self.heap else math.inf,
                   self.expanding)

    def _sample(self, event="periodic", notify=True) -> bool:
        if event == "periodic" and not self.monitor.due():
            return False
        return self.monitor.record({"time": self.deadline.elapsed(), "objective": self.best_val,
                                    "lower_bound": self.bound(), "event": event,
                                    "nodes": self.nodes, "queue_size": self.open},
                                   notify=notify)

    def run(self, node_limit, queue_limit) -> Termination:
        """Expand prefixes until the queue is empty (OPTIMAL) or a limit stops the search."""
        try:
            while self.heap:
                if node_limit is not None and self.nodes >= node_limit:
                    return Termination.NODE_LIMIT
                if self.open > queue_limit:
                    self.message = f"the queue passed queue_limit={queue_limit:,} prefixes"
                    return Termination.MEMORY_LIMIT
                self._sample()
                stop = self.monitor.should_stop()
                if stop is not None:
                    self.message = stop[1]
                    return stop[0]
                entry = heapq.heappop(self.heap)
                self.expanding = entry[0]
                self._step(entry)
                self.expanding = math.inf
        except KeyboardInterrupt as exc:  # outside catch_interrupt, or from the callback
            if is_abort(exc):
                raise
            self.message = "interrupted by the user (KeyboardInterrupt)"
            return Termination.INTERRUPTED
        return Termination.OPTIMAL

    def _step(self, entry) -> None:
        """Take the next child of a popped family (the root alone) and expand it."""
        lb, negd, _, fam = entry
        if lb >= self.best_val - PRUNE_TOL:   # the family is sorted: the rest are no better
            self.pruned_min = min(self.pruned_min, lb)
            self.open -= 1 if fam is None else fam.left()
            return
        self.open -= 1
        if fam is None:
            self._expand((), 0.0, self.root_state, lb)
            return
        i = fam.pos
        fam.pos += 1
        if fam.pos < len(fam.idx):
            self.counter += 1
            heapq.heappush(self.heap, (float(fam.bound[fam.pos]), negd, self.counter, fam))
        cost, alpha = float(fam.cost[i]), float(fam.alpha[i])
        if self.dominance and self._dominated((int(fam.k1[i]), int(fam.k2[i])), cost, alpha):
            return
        state = (int(fam.state[0][i]), int(fam.state[1][i])) if fam.state is not None else alpha
        self._expand(fam.prefix + (int(fam.idx[i]),), cost, state, lb)

    def _expand(self, prefix, cost, state, lb) -> None:
        """Evaluate the children of ``prefix`` (bound ``lb``), update the incumbent, queue them."""
        self.nodes += 1
        remP, remN = self.data.remainder(prefix)
        RP = int(np.bitwise_count(remP).sum())
        RN = int(np.bitwise_count(remN).sum())
        cp_all, cn_all = self.data.counts(remP, remN)
        ch = children(self.params, self.n, cp_all, cn_all, RP, RN, cost, state)
        if ch.idx.size == 0:
            return
        self._update_incumbent(prefix, ch)
        depth = len(prefix) + 1
        if depth >= self.Kmax:
            return  # children cannot be extended: their values were counted above
        self._push_children(prefix, depth, ch, remP, remN, lb)

    def _update_incumbent(self, prefix, ch) -> None:
        """Every child's completion "end here with the else clause" is a candidate list."""
        j = int(np.argmin(ch.value))
        if ch.value[j] < self.best_val - PRUNE_TOL:
            self.best_val = float(ch.value[j])
            self.best_prefix = prefix + (int(ch.idx[j]),)
            self._sample("incumbent")

    def _dominated(self, ckey, c_cost, c_alpha) -> bool:
        """Record the child under its captured set unless another prefix there dominates it."""
        entries = self.dom.get(ckey)
        if entries is None:
            self.dom[ckey] = [(c_cost, c_alpha)]
            return False
        if any(ec <= c_cost + PRUNE_TOL and ea >= c_alpha for ec, ea in entries):
            return True
        entries[:] = [e for e in entries if not (c_cost <= e[0] + PRUNE_TOL and c_alpha >= e[1])]
        entries.append((c_cost, c_alpha))
        return False

    def _push_children(self, prefix, depth, ch, remP, remN, lb) -> None:
        """Queue the open children whose bound is below the incumbent as one sorted family
        (the rest are pruned).  A child's completions are its parent's, so its bound is at
        least the parent's ``lb`` (the softFRL bound of a child can be lower on its own)."""
        ch.bound = np.maximum(ch.bound, lb)
        open_ = ~ch.terminal
        keep = open_ & (ch.bound < self.best_val - PRUNE_TOL)
        drop = open_ & ~keep
        if drop.any():
            self.pruned_min = min(self.pruned_min, float(ch.bound[drop].min()))
        kept = np.flatnonzero(keep)
        if kept.size == 0:
            return
        kept = kept[np.argsort(ch.bound[kept], kind="stable")]
        idx = ch.idx[kept]
        k1 = k2 = None
        if self.dominance:
            k1, k2 = child_keys(self.data.capP, self.data.capN, remP, remN, idx)
        # FRL: the last rule's counts; softFRL: alpha_min, which is ``alpha``
        state = (ch.cp[kept], ch.cn[kept]) if self.params.program == "frl" else None
        fam = _Family(prefix, idx, ch.bound[kept], ch.cost[kept], ch.alpha[kept], state, k1, k2)
        self.counter += 1
        heapq.heappush(self.heap, (float(fam.bound[0]), -depth, self.counter, fam))
        self.open += kept.size

    def certificate(self, problem, termination, max_length) -> Certificate:
        """Objective recomputed exactly; bound = min(incumbent, pruned and open bounds).

        :func:`rulecert.certify` decides the status (a limit-stopped run is OPTIMAL only when
        its bound meets the objective).  The bound is the best proven during the run (the
        queue's least bound can dip when a child's bound is below its parent's; a bound once
        proven stays proven).
        """
        open_min = min(self.heap[0][0] if self.heap else math.inf, self.expanding)
        wall = self.deadline.elapsed()
        objective = exact_objective(problem, self.params, self.best_prefix)
        check_incumbent(self.best_val, objective, "incumbent value")
        if termination is Termination.OPTIMAL:
            lower = min(objective, self.pruned_min)
            if objective - lower > ABS_TOL:  # cannot happen: pruned bounds are >= incumbent - tol
                raise AssertionError("internal error: pruned bound below the incumbent")
        else:
            lower = min(objective, self.pruned_min, open_min)
            if self.monitor.best_bound is not None:
                lower = min(objective, max(lower, self.monitor.best_bound))
        self.monitor.record({"time": wall, "objective": objective, "lower_bound": lower,
                             "event": "end", "nodes": self.nodes, "queue_size": self.open},
                            notify=False)
        message = "" if termination is Termination.OPTIMAL else \
            f"stopped: {termination.value}; {self.open} prefixes left open"
        if self.message and termination is not Termination.OPTIMAL:
            message = f"{message}; {self.message}"
        return certify(objective, lower, termination, solver=solver_name(self.params, "bnb"),
                       abs_tol=ABS_TOL, nodes=self.nodes,
                       iterations=self.nodes, wall_time=wall, seed=None,
                       warm_start_objective=self.warm_obj, message=message,
                       history=self.monitor.history,
                       stats={"queue_left": self.open, "dominance_keys": len(self.dom),
                              "max_length": max_length, "program": self.params.program})


def branch_and_bound(problem, program: str, w, C, C1=None, *, max_length: int | None = None,
                     time_limit: float | None = None, node_limit: int | None = None,
                     queue_limit: int = 20_000_000, incumbent=None, dominance: bool = True,
                     memory_limit_mb: float | str | None = AUTO, callback=None,
                     history_every: float = 1.0):
    """Certified optimum of Program 2.9 (``program="frl"``) or 5.1 (``"softfrl"``).

    Returns ``(FallingRuleList, Certificate)``.  ``max_length`` limits the number of rules
    (the optimum is then over lists of at most that many rules); ``incumbent`` (a
    FallingRuleList or antecedent-index prefix, e.g. the Monte-Carlo result) seeds the search.
    ``time_limit`` must be > 0 seconds; ``node_limit`` counts expansions (deterministic);
    ``memory_limit_mb`` caps the resident memory (``"auto"``: the default cap of
    ``rulecert.limits.resolve_memory_limit_mb``; ``None``: none) and ``queue_limit`` the
    open prefixes, both ending the search with ``MEMORY_LIMIT``.  ``callback`` receives the
    info dict of :mod:`rulecert.monitor` every ``history_every`` seconds and on every new
    incumbent (returning True stops: ``INTERRUPTED``); Ctrl-C stops the search the same way.
    """
    params = make_params(program, w, C, C1)
    _check_limits(max_length, time_limit, node_limit, queue_limit)
    memory_limit_mb = resolve_memory_limit_mb(memory_limit_mb)
    monitor = Monitor(solver_name(params, "bnb"), deadline=Deadline(time_limit),
                      memory_limit_mb=memory_limit_mb, callback=callback,
                      history_every=history_every)
    data = FallingData(problem, stop_check(monitor, "splitting the captures by class"))
    Kmax = data.M if max_length is None else min(int(max_length), data.M)
    with catch_interrupt():
        search = _Search(problem, params, data, Kmax, incumbent, dominance, monitor)
        termination = search.run(node_limit, queue_limit)
    cert = search.certificate(problem, termination, max_length)
    return model_of(problem, params, search.best_prefix), cert
