"""The Rashomon set of rule lists: every rule list whose objective is at most a threshold.

``rashomon_set(problem, c, epsilon=0.01)`` enumerates every CORELS-labelled rule list over the
problem's antecedents (each rule predicts the majority of what it newly captures, the default
the majority of the rest, ties predict 1) with objective ``mistakes / n + c * K`` at most
``threshold = (1 + epsilon) * optimum`` (or an absolute ``threshold``), by a branch-and-bound
over prefixes in which every bound is applied against the threshold instead of the incumbent.

Which of the JMLR bounds stay valid for enumeration (Angelino et al. 2018; Mata et al. 2022):

* **hierarchical** (Theorem 1): every list that starts with prefix ``p`` has objective at
  least ``b(p) = (prefix mistakes) / n + c * |p|``.  Valid: a subtree is cut when its bound
  exceeds the threshold.
* **equivalent points** (Theorem 20): the samples ``p`` leaves uncaptured are a union of
  groups of identical capture patterns, each misclassified at least ``min(pos, neg)`` times,
  so ``b(p) + minority(uncaptured) / n`` bounds every list in the subtree, ``p`` included.
  Valid, and it is the bound that cuts most.
* **lookahead** (Lemma 2): a child costs at least ``c`` more: the children of ``p`` are not
  generated when ``b(p) + c + minority / n`` exceeds the threshold.  Valid; the gain bound
  below is never weaker.
* **prefix length** (Theorem 6 analogue): a list of ``K`` rules costs at least ``c K`` plus the
  root's equivalent-points bound, so ``K <= (threshold - that) / c``.  Valid (it is implied by
  the hierarchical and equivalent-points bounds; ``max_length`` caps it further on request).
* **support, accurate support** (Theorems 10, 11) hold for *optimal* lists only: a near-optimal
  list may contain a rule that captures or corrects fewer than ``c n`` samples.  Not used as
  such, but their quantitative form is valid and is what makes enumeration fast:
  **every list that starts with prefix p has objective at least
  OPT + sum over p's rules of max(0, c - correct_k / n)**, where OPT is the proven optimum
  (its lower bound) and correct_k the samples rule k newly captures and classifies correctly.
  Proof: remove from the list every rule whose correct_k < c n.  Their newly captured sets
  are disjoint, so the shorter list (same labels) makes at most sum correct_k more mistakes
  and saves c per rule; it is a rule list, so its objective is at least OPT.  The newly
  captured sets of p's rules are the same in every list that starts with p, so the bound
  holds for the whole subtree.  A list in the set has total deficit at most
  ``threshold - OPT``: with epsilon = 1% that is a few dozen samples on COMPAS.
* **gain bound** on the part after a prefix ``p`` (a lookahead that counts what rules can
  fix): let ``U`` be the samples ``p`` leaves uncaptured, and a strict extension append
  ``j >= 1`` rules whose default then predicts ``l``.  Measured against labelling all of ``U``
  with ``l`` (``X`` mistakes: the samples of ``U`` not labelled ``l``), a rule that newly
  captures a union ``S`` of groups and predicts its majority fixes
  ``max(0, sum over S of (not-l minus l))`` samples, at most the sum over its groups of
  ``max(0, not-l - l)`` (``g``, for any part of an antecedent's capture), and exactly the net
  ``max(0, not-l - l)`` over the whole capture (``f``) for the first rule appended, which
  captures all of what its antecedent covers in ``U``.  These per-group gains add up to at
  most ``X - minority(U)``, so the extension's objective is at least
  ``b(p) + min over l, 1 <= j <= L - |p| of j c + max(minority(U), X - f - (j - 1) g)``
  (scaled; ``g``, ``f``: the best over the antecedents not in ``p``).  With ``j = 1`` and
  ``f = g`` it is the lookahead with equivalent points, ``b(p) + c + minority(U)``.  Each
  expansion applies it with its exact counts before looking at the children; a child
  ``p + a`` gets it from the parent's counts: an antecedent ``m`` fixes after ``a`` at most its
  ``g`` before, and its net figure grows by at most what ``a`` takes that ``m`` would get
  wrong (``a``'s group-by-group figure for the other label).  Also, every rule added has
  ``correct - minority <= max g`` over the labels, so the support deficit of a strict
  extension grows by at least ``max(0, c - max g)``.
* **permutation map / symmetry-aware map** (Corollary 16) keeps one ordering of each antecedent
  set and drops the others: distinct lists, so it must not drop anything here.  Not used.
  (Lists that differ only in the order of rules capturing disjoint samples predict alike:
  :class:`~rulecert.models.RashomonSet` counts distinct prediction vectors separately.)
* **memo** (what the permutation map's insight gives here; depth first only): below a prefix
  ``p``, everything but ``b(p)`` and its deficit depends only on the samples ``p`` leaves
  uncaptured and on ``|p|`` -- the antecedents allowed (those of ``p`` capture nothing more),
  their counts, every increment the bounds above add to ``b(p)`` or to the deficit.  Each
  expansion keeps, under (U, ``|p|``), the least increment of the objective bound and of the
  deficit over the strict extensions of ``p`` (the child itself, or the bound on what extends
  it, child by child, after the bound on the whole tail).  A prefix with the same U and
  length -- another ordering of the same rules -- is then cut by its parent, unexpanded, when
  its ``b`` plus the first or ``OPT`` plus its deficit plus the second passes the threshold.
  The table is a fixed-size cache (``MEMO_BYTES``): a row matches only on its depth and every
  word of U, never on the hash alone, and an evicted row costs only the expansion it would
  have saved; so the set does not change, only how many prefixes are expanded.

A rule that newly captures no sample changes no prediction but costs ``c``; such lists are
enumerated only with ``min_capture=0`` (the default 1 requires every rule to capture at least
one sample not captured before it).

The set does not depend on the search order (``policy``): depth first (least memory, and the
memo), breadth first, or smallest bound first.  Limits (``node_limit``, ``time_limit``,
``max_models``) stop the enumeration cleanly: the lists found are then a subset of the set, and
the certificate gives the smallest objective any missing list could have (the least bound over
the unexplored frontier).
Ctrl-C stops it the same way (``termination = "interrupted"``), and so does a default memory
cap (``memory_limit_mb="auto"``, ``"memory_limit"``).
"""
from __future__ import annotations

import collections
import dataclasses
import heapq
import math
import time

import numpy as np

from ...certificate import Termination
from ...limits import AUTO, Deadline, check_count_limit, check_time_limit, resolve_memory_limit_mb
from ...models.rashomon import EnumerationCertificate, RashomonSet
from ...monitor import Monitor, catch_interrupt
from ...problem import RuleProblem
from . import rashomon_kernel as RK
from .kernel import extension_bound
from . import loop

POLICIES = ("dfs", "bfs", "lower_bound")
MEMO_BYTES = 256 * 2**20
"""Bytes of the depth-first search's memo table (a cache of what an expansion found that does
not depend on the order of the prefix's rules, :func:`.rashomon_kernel.dfs`): the pages are
taken as the table fills, and count under the memory cap."""
DEFAULT_MAX_MODELS = 1_000_000
"""Default cap on the lists kept (a prefix tuple and an objective each, about 150 bytes): past
it the enumeration stops with ``termination = "model_limit"``, the count and the bound on the
rest, instead of exhausting the machine's memory."""


@dataclasses.dataclass
class _Batch:
    """The extendable children of one expanded prefix (arrays over the kept antecedents)."""

    prefix: tuple           # the parent prefix
    U: np.ndarray           # groups the parent leaves uncaptured (bool, G)
    counts: np.ndarray      # M x 3: what each antecedent captures within U
    ants: np.ndarray
    b: np.ndarray           # scaled b(child): prefix mistakes + c n |child|
    mistakes: np.ndarray
    deficit: np.ndarray     # sum of max(0, c n - correct_k + minority_k) over the child's rules
    bound: np.ndarray       # scaled lower bound on every strict extension of the child
    next: int = 0

    def __len__(self) -> int:
        return len(self.ants) - self.next


class _Frontier:
    """Open prefixes (grouped in batches) in the order of the policy."""

    def __init__(self, policy: str):
        self.policy = policy
        self.batches = collections.deque() if policy == "bfs" else []
        self.heap: list = []
        self._tick = 0
        self.size = 0

    def push(self, batch: _Batch) -> None:
        if not len(batch):
            return
        self.size += len(batch)
        if self.policy == "lower_bound":
            for i in range(len(batch.ants)):
                self._tick += 1
                heapq.heappush(self.heap, (float(batch.bound[i]), self._tick, batch, i))
        else:
            self.batches.append(batch)

    def pop(self) -> tuple[_Batch, int]:
        self.size -= 1
        if self.policy == "lower_bound":
            _, _, batch, i = heapq.heappop(self.heap)
            return batch, i
        batch = self.batches[0] if self.policy == "bfs" else self.batches[-1]
        i = batch.next
        batch.next += 1
        if not len(batch):
            self.batches.popleft() if self.policy == "bfs" else self.batches.pop()
        return batch, i

    def min_bound(self) -> float:
        if self.policy == "lower_bound":
            return self.heap[0][0] if self.heap else math.inf
        return min((float(b.bound[b.next:].min()) for b in self.batches if len(b)), default=math.inf)

    def __len__(self) -> int:
        return self.size


def _as_arrays(found, out, width):
    """The lists found as (objectives, prefix rows padded with -1, lengths): ``found`` holds
    (objective, prefix) pairs, ``out`` the compiled search's arrays (or None)."""
    obj = [np.array([o for o, _ in found], dtype=float)]
    rows = [np.full((len(found), max(1, width)), -1, dtype=np.int64)]
    lengths = [np.array([len(p) for _, p in found], dtype=np.int64)]
    for i, (_, p) in enumerate(found):
        rows[0][i, :len(p)] = p
    if out is not None:
        o, r, k = out
        r = r[:, :rows[0].shape[1]].copy()
        r[np.arange(r.shape[1])[None, :] >= k[:, None]] = -1
        obj.append(o)
        rows.append(r)
        lengths.append(k)
    return np.concatenate(obj), np.vstack(rows), np.concatenate(lengths)


def _collect_cost(width: int, sample: int = 1 << 13) -> float:
    """Seconds :meth:`_Enumeration.sorted_lists` takes per list, measured on ``sample``
    made-up lists of ``width`` columns (the least of three tries, doubled for a margin)."""
    rng = np.random.default_rng(0)
    out = (rng.random(sample), rng.integers(0, 50, (sample, max(1, width))),
           rng.integers(0, max(1, width) + 1, sample))
    best = math.inf
    for _ in range(3):
        t = time.perf_counter()
        obj, rows, lengths = _as_arrays([], out, width)
        order = np.lexsort([rows[:, j] for j in range(rows.shape[1] - 1, -1, -1)] + [obj])
        _ = [tuple(r[:k]) for r, k in zip(rows[order].tolist(), lengths[order].tolist())]
        best = min(best, time.perf_counter() - t)
    return 2 * best / sample


def _check(problem, c, epsilon, threshold, max_length, min_capture, policy, max_models,
           node_limit, time_limit):
    if not isinstance(problem, RuleProblem):
        raise ValueError(f"problem must be a rulecert.RuleProblem, got {type(problem).__name__}")
    if problem.weighted:
        raise ValueError("rashomon_set does not support sample weights (the equivalent-points "
                         "bound counts samples); pass an unweighted RuleProblem")
    problem.check_two_classes()
    c = problem.check_regularization(c)
    if (epsilon is None) == (threshold is None):
        raise ValueError("give exactly one of epsilon (relative to the optimum) or threshold "
                         "(an absolute objective)")
    if epsilon is not None:
        epsilon = float(epsilon)
        if not math.isfinite(epsilon) or epsilon < 0:
            raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if threshold is not None:
        threshold = float(threshold)
        if not math.isfinite(threshold):
            raise ValueError(f"threshold must be a finite number, got {threshold!r}")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    max_length = check_count_limit(max_length, "max_length", minimum=0)
    min_capture = check_count_limit(min_capture, "min_capture", minimum=0)
    max_models = check_count_limit(max_models, "max_models", minimum=1)
    node_limit = check_count_limit(node_limit, "node_limit", minimum=1)
    time_limit = check_time_limit(time_limit, "time_limit", allow_zero=False)
    return c, epsilon, threshold, max_length, min_capture, max_models, node_limit, time_limit


def rashomon_set(problem: RuleProblem, c: float, *, epsilon: float | None = None,
                 threshold: float | None = None, max_length: int | None = None,
                 min_capture: int = 1, policy: str = "dfs",
                 max_models: int | None = DEFAULT_MAX_MODELS, node_limit: int | None = None,
                 time_limit: float | None = None, memory_limit_mb: float | str | None = AUTO,
                 callback=None, history_every: float = 1.0) -> RashomonSet:
    """Every rule list with objective ``<= threshold`` (see the module doc).

    Parameters
    ----------
    problem : RuleProblem (unweighted, both labels)
    c : float
        Per-rule penalty, as for :func:`~rulecert.search.corels.solve`.
    epsilon : float >= 0, optional
        ``threshold = (1 + epsilon) * optimum``; the optimum is certified first by CORELS.
    threshold : float, optional
        An absolute objective instead.  Below the optimum the set is empty (said so in the
        certificate's message, not an error).
    max_length : int, optional
        Longest list enumerated (the set is then that of lists of at most this many rules).
    min_capture : int, default 1
        Samples each rule must newly capture (0: also lists with rules that capture nothing).
    policy : {"dfs", "bfs", "lower_bound"}
        Search order; the set does not depend on it.
    max_models, node_limit, time_limit, memory_limit_mb
        Limits (lists held, prefixes expanded, seconds, resident megabytes: the breadth-first
        and best-bound frontiers grow with the tree; ``"auto"``, the default, is
        :func:`rulecert.limits.default_memory_limit_mb`, ``None`` no cap); a limit-stopped
        enumeration returns what it found with a bound on the objective of every list it did
        not return.  Ctrl-C stops it the same way (``"interrupted"``).
    callback : callable, optional
        Called with the info dict of :mod:`rulecert.monitor` during the optimum's CORELS
        search and then every ``history_every`` seconds of the enumeration (``nodes``,
        ``solutions``: lists found so far); returning True stops the run (``"interrupted"``).

    Returns
    -------
    RashomonSet
        Lists sorted by objective (ties: by prefix), their objectives, and an
        :class:`~rulecert.models.rashomon.EnumerationCertificate`.
    """
    deadline = Deadline(time_limit)
    (c, epsilon, threshold, max_length, min_capture, max_models, node_limit,
     time_limit) = _check(problem, c, epsilon, threshold, max_length, min_capture, policy,
                          max_models, node_limit, time_limit)
    memory_limit_mb = resolve_memory_limit_mb(memory_limit_mb)
    with catch_interrupt():
        _, opt_cert = loop.solve(problem, c, max_length=max_length, time_limit=deadline.remaining(),
                             memory_limit_mb=memory_limit_mb, callback=callback,
                             history_every=history_every)
        if threshold is None:
            threshold = (1.0 + epsilon) * opt_cert.objective
        monitor = Monitor("rulecert-rashomon", deadline=deadline, memory_limit_mb=memory_limit_mb,
                          callback=callback, history_every=history_every)
        t0 = time.perf_counter()
        cannot = _cannot_start(problem, monitor)
        if cannot is None:
            run = _Enumeration(problem, c, threshold, opt_cert.lower_bound, max_length,
                               min_capture, policy, monitor, opt_cert.objective)
            termination, message = run.search(node_limit, max_models)
            prefixes, objectives, left_out = run.sorted_lists()
            nodes, open_count, tol = run.nodes, run.open_count(), run.include_tol
            open_bound = run.open_bound() / run.N
        else:   # every list is missing: none is below the optimum's bound
            (termination, message), left_out = cannot, None
            prefixes, objectives, nodes, open_count, tol = [], np.zeros(0), 0, 1, 0.0
            open_bound = opt_cert.lower_bound
    if left_out is not None:    # a limit or Ctrl-C cut the sorted lists short: the best ones
        termination, message = left_out[0], (
            f"{left_out[1]} while collecting the lists found: the best {len(prefixes):,} of "
            f"{left_out[2]:,} are returned")
    complete = termination == "complete"
    if threshold < opt_cert.lower_bound - tol:
        message = (f"threshold {threshold:.10g} is below the optimum's proven bound "
                   f"{opt_cert.lower_bound:.10g}: the set is empty")
    elif complete:
        message = f"complete: every rule list with objective <= {threshold:.10g} was enumerated"
    missing = math.inf if complete else open_bound
    if left_out is not None:
        missing = min(missing, left_out[3])
    cert = EnumerationCertificate(
        termination=termination, complete=complete, n_found=len(prefixes), threshold=threshold,
        epsilon=epsilon, optimum=opt_cert.objective, optimum_proven=opt_cert.proven_optimal,
        missing_lower_bound=missing, nodes=nodes, open_prefixes=open_count,
        wall_time=deadline.elapsed(), enumeration_time=time.perf_counter() - t0, policy=policy,
        min_capture=min_capture, max_length=max_length, message=message,
        optimum_certificate=opt_cert)
    return RashomonSet(prefixes=prefixes, objectives=objectives, c=c, threshold=threshold,
                       certificate=cert, antecedent_names=list(problem.antecedent_names))


_TABLE_BYTES = 10
"""Bytes per group and antecedent of the enumeration's tables (float64 counts, two 0/1)."""


def _cannot_start(problem, monitor: Monitor) -> tuple[str, str] | None:
    """(termination, message) when the enumeration cannot start -- a limit or Ctrl-C already
    stopped the run (the optimum's search used the time), or its tables (groups x
    antecedents) would pass the memory cap -- else None."""
    reason = monitor.should_stop()
    if reason is not None:
        return reason[0].value, (f"{reason[1] or 'stopped by ' + reason[0].value} before "
                                 "the enumeration started")
    need = _TABLE_BYTES * problem.group_rows()[0].shape[0] * problem.n_antecedents
    if monitor.would_exceed_memory(need):
        return "memory_limit", (f"the enumeration's tables (groups x antecedents) need "
                                f"{need / 2**20:,.0f} MB more, above memory_limit_mb="
                                f"{monitor.memory_limit_mb:g}: nothing was enumerated")
    return None


class _Enumeration:
    """The search state: groups of identical samples, the frontier, the lists found.

    Counting is over the groups of samples with identical capture patterns (every list
    treats a group alike): a prefix's uncaptured set is a boolean mask over groups, and one
    matrix product counts, for every candidate antecedent at once, the positives, samples
    and equivalent-point minority it newly captures.
    """

    def __init__(self, problem, c, threshold, opt_bound, max_length, min_capture, policy,
                 monitor: Monitor, optimum: float):
        self.monitor, self.optimum, self.opt_bound = monitor, optimum, opt_bound
        patterns, _, pos, neg = problem.groups
        self.N = N = problem.n_samples
        self.c, self.threshold, self.min_capture = c, threshold, min_capture
        self.Cs = c * N
        # prune with a little slack (pruning less is always safe); include exactly
        self.T = threshold * N + 1e-9 * max(1.0, abs(threshold) * N)
        self.include_tol = 1e-12 * max(1.0, abs(threshold))
        self.opt_scaled = opt_bound * N
        # float64 products of 0/1 and counts below 2**53 are exact integers
        self.A = np.ascontiguousarray(patterns.T, dtype=np.float64)        # M x G
        self.capt = patterns.T.astype(bool)
        self.stats = np.stack([pos, pos + neg, np.minimum(pos, neg)]).astype(np.float64)  # 3 x G
        self.M = problem.n_antecedents
        self.L = self.M if max_length is None else min(self.M, max_length)
        if self.Cs > 0:     # a list of K rules costs at least c K plus the root's minority
            root_min = float(self.stats[2].sum())
            self.L = min(self.L, max(0, int(math.floor((self.T - root_min) / self.Cs))))
        self.policy = policy
        self.frontier = _Frontier(policy)
        self._open_bound = math.inf
        self._open_count = 0
        self.found: list[tuple[float, tuple]] = []
        self.out = None         # the compiled search's lists: (objectives, prefix rows, lengths)
        self.nodes = 0
        # seconds to sort and collect one list found, measured now, so that a time-limited
        # search stops early enough to hand back every list it found (``_limit``)
        self.per_list = _collect_cost(self.L + 1) if monitor.deadline.end is not None else 0.0

    def search(self, node_limit, max_models) -> tuple[str, str]:
        if self.policy == "dfs":
            return self._search_compiled(node_limit, max_models)
        U = np.ones(self.A.shape[1], dtype=bool)
        p, t, _ = self.stats @ U
        self._record((), 0, int(p), int(t))
        self._expand((), U, 0.0, 0, 0.0)
        while len(self.frontier):
            stop = self._limit(node_limit, max_models, len(self.found))
            if stop is not None:
                return stop
            batch, i = self.frontier.pop()
            a = int(batch.ants[i])
            taken = batch.U & self.capt[a]
            counts = batch.counts - self.A[:, taken] @ self.stats[:, taken].T
            self._expand(batch.prefix + (a,), batch.U & ~taken, float(batch.b[i]),
                         int(batch.mistakes[i]), float(batch.deficit[i]), counts)
        return "complete", ""

    def _limit(self, node_limit, max_models, n_found):
        """(termination, message) when a limit is reached (nodes, models, then the monitor's:
        Ctrl-C, callback, time, memory), else None; a progress sample when one is due."""
        if node_limit is not None and self.nodes >= node_limit:
            return "node_limit", f"stopped after node_limit={node_limit} prefixes"
        if max_models is not None and n_found >= max_models:
            return "model_limit", (f"stopped at max_models={max_models} lists (raise it, or the "
                                   "threshold is looser than intended)")
        self.monitor.sample(self.optimum, self.opt_bound, nodes=self.nodes, solutions=n_found)
        left = self.monitor.deadline.remaining(0.0)
        if left is not None and 0 < left <= n_found * self.per_list:
            return "time_limit", ("stopped by time_limit (the time left is what sorting and "
                                  "collecting the lists found takes)")
        stop = self.monitor.should_stop()
        if stop is not None:
            termination, message = stop
            if termination is Termination.TIME_LIMIT:
                message = "stopped by time_limit"
            return termination.value, message
        return None

    def open_bound(self) -> float:
        """Scaled least bound over the prefixes left open (``inf`` when none)."""
        return self.frontier.min_bound() if self.policy != "dfs" else self._open_bound

    def open_count(self) -> int:
        return len(self.frontier) if self.policy != "dfs" else self._open_count

    def _search_compiled(self, node_limit, max_models) -> tuple[str, str]:
        """Depth first in :mod:`.rashomon_kernel`, in budgets of expansions between the
        limit checks; the output arrays grow when full."""
        M, G = self.A.shape
        D = self.L + 1
        U = np.zeros((D, G), dtype=bool)
        U[0] = True
        left = np.zeros((D, 3))
        left[0] = self.stats.sum(axis=1)
        grp_ptr = np.concatenate([[0], np.cumsum(self.capt.sum(axis=0))]).astype(np.int64)
        grp_ants = np.nonzero(self.capt.T)[1].astype(np.int64)     # group by group
        counts = np.zeros((D, M, 3))
        counts[0] = self.A @ self.stats.T
        prefix = np.zeros(D, dtype=np.int64)
        b, mk, deficit = np.zeros(D), np.zeros(D, dtype=np.int64), np.zeros(D)
        ch_ants = np.zeros((D, M), dtype=np.int64)
        ch_b, ch_mk = np.zeros((D, M)), np.zeros((D, M), dtype=np.int64)
        ch_def, ch_deep = np.zeros((D, M)), np.zeros((D, M))
        nch, nxt = np.zeros(D, dtype=np.int64), np.zeros(D, dtype=np.int64)
        state = np.zeros(2, dtype=np.int64)
        Uw, captw, mrow, mval = self._memo_tables(G, D)
        cap = 4096 + M
        out_prefix = np.zeros((cap, max(D, 1)), dtype=np.int64)
        out_len, out_obj = np.zeros(cap, dtype=np.int64), np.zeros(cap)
        nout = np.zeros(1, dtype=np.int64)
        p, t, _ = self.stats.sum(axis=1)
        self._record((), 0, int(p), int(t))
        budget = 2000
        result = ("complete", "")
        while True:
            self.nodes = int(state[1])
            stop = self._limit(node_limit, max_models, len(self.found) + int(nout[0]))
            if stop is not None:
                result = stop
                break
            step = budget if node_limit is None else max(1, min(budget, node_limit - int(state[1])))
            t0 = time.perf_counter()
            rc = RK.dfs(self.A, self.capt, grp_ptr, grp_ants, self.stats, U, left, counts,
                        prefix, b, mk, deficit, ch_ants, ch_b, ch_mk, ch_def, ch_deep, nch, nxt, state, self.Cs, self.T,
                        self.opt_scaled, self.L, self.min_capture, self.c, float(self.N),
                        self.threshold + self.include_tol, out_prefix, out_len, out_obj, nout,
                        step, -1 if max_models is None else max(0, max_models - len(self.found)),
                        Uw, captw, mrow, mval)
            if rc == RK.RC_DONE:
                break
            if rc == RK.RC_MODELS:
                continue        # the check at the top of the loop reports it
            if rc == RK.RC_FULL:
                extra = out_prefix.nbytes + out_len.nbytes + out_obj.nbytes
                if self.monitor.would_exceed_memory(extra):
                    result = ("memory_limit", f"growing the lists found by {extra / 2**20:.0f} MB "
                              f"would exceed memory_limit_mb={self.monitor.memory_limit_mb:g}")
                    break
                cap *= 2
                out_prefix = np.concatenate([out_prefix, np.zeros_like(out_prefix)])
                out_len = np.concatenate([out_len, np.zeros_like(out_len)])
                out_obj = np.concatenate([out_obj, np.zeros_like(out_obj)])
            else:               # aim at a limit check every ~0.05-0.2 s
                dt = time.perf_counter() - t0
                if dt < 0.05 and budget < 1 << 22:
                    budget *= 2
                elif dt > 0.2 and budget > 1:
                    budget = max(1, int(budget * 0.1 / dt))
        self.nodes = int(state[1])
        n = int(nout[0])        # sorted and made Python objects by sorted_lists
        self.out = (out_obj[:n], out_prefix[:n], out_len[:n])
        if state[1] == 0 and result[0] != "complete":
            # stopped before the root was expanded: every list but the root is missing, and
            # no list is below the optimum's proven bound
            self._open_bound, self._open_count = self.opt_scaled, 1
        elif state[0] >= 0:
            self._open_bound = RK.open_bound(ch_deep, nch, nxt, int(state[0]))
            self._open_count = RK.open_count(nch, nxt, int(state[0]))
        return result

    def _memo_tables(self, G, D):
        """The depth-first search's memo (:func:`.rashomon_kernel.dfs`): U as bit words per
        depth, each antecedent's capture as bit words, and the table (rows ``[depth, U's
        words]``, two bounds each) -- the most rows that fit :data:`MEMO_BYTES` and the memory
        cap, at most a few per possible key, one (no memo) when none fit."""
        W = (G + 63) // 64
        bits = np.zeros((self.M, W * 64), dtype=bool)
        bits[:, :G] = self.capt
        captw = np.packbits(bits, axis=1, bitorder="little").view("<u8").astype(np.uint64)
        Uw = np.zeros((D, W), dtype=np.uint64)
        Uw[0] = np.packbits(np.arange(W * 64) < G, bitorder="little").view("<u8")
        row = 8 * (W + 1) + 16
        rows = 1 << max(0, min(int(MEMO_BYTES // row).bit_length() - 1,
                               min(G, 40) + int(D).bit_length() + 1))
        while rows > 1 and self.monitor.would_exceed_memory(rows * row):
            rows //= 2
        return Uw, captw, np.zeros((rows, W + 1), dtype=np.uint64), np.zeros((rows, 2))

    def sorted_lists(self, chunk: int = 1 << 16):
        """(prefixes, objectives, left_out): the lists found sorted by objective, ties by
        prefix, made Python tuples a chunk at a time with the monitor asked between chunks.
        ``left_out`` is ``None`` when every list was collected, else ``(termination,
        message, lists found, objective of the first list left out)``: the lists returned
        are then the best ones."""
        obj, rows, lengths = _as_arrays(self.found, self.out, self.L + 1)
        if len(obj) == 0:
            return [], np.zeros(0), None
        order = np.lexsort([rows[:, j] for j in range(rows.shape[1] - 1, -1, -1)] + [obj])
        obj, rows, lengths = obj[order], rows[order], lengths[order]
        prefixes: list[tuple] = []
        for start in range(0, len(obj), chunk):
            stop = self.monitor.should_stop() if start else None
            if stop is not None:
                termination, message = stop
                message = "stopped by time_limit" if termination is Termination.TIME_LIMIT else message
                return (prefixes, obj[:start],
                        (termination.value, message, len(obj), float(obj[start])))
            prefixes.extend(tuple(r[:k]) for r, k in zip(rows[start:start + chunk].tolist(),
                                                         lengths[start:start + chunk].tolist()))
        return prefixes, obj, None

    def _record(self, prefix, mistakes, pos_left, tot_left) -> None:
        mistakes, pos_left, tot_left = int(mistakes), int(pos_left), int(tot_left)
        neg_left = tot_left - pos_left
        default = neg_left if pos_left >= neg_left else pos_left       # ties predict 1
        objective = (mistakes + default) / self.N + self.c * len(prefix)
        if objective <= self.threshold + self.include_tol:
            self.found.append((objective, prefix))

    def _gains(self, prefix, counts):
        """What one antecedent not in ``prefix`` fixes within the uncaptured samples, for a
        default 0 and 1 (M x 2 each, 0 for the antecedents of ``prefix``): group by group
        (``g``, a bound for any part of its capture) and net (``f``, its whole capture)."""
        pos, tot, mn = counts[:, 0], counts[:, 1], counts[:, 2]
        g = np.stack([pos - mn, tot - pos - mn], axis=1)
        f = np.maximum(0.0, np.stack([2 * pos - tot, tot - 2 * pos], axis=1))
        g[list(prefix)] = 0.0
        f[list(prefix)] = 0.0
        return g, f

    def _extension_bound(self, prefix, b, deficit, left, counts) -> float:
        """Scaled lower bound on every list that extends ``prefix`` by at least one rule
        (module doc: hierarchical, equivalent points, support deficit and gain bounds)."""
        g, f = self._gains(prefix, counts)
        g0, g1 = g.max(axis=0)
        f0, f1 = np.minimum(f.max(axis=0), (g0, g1))
        return float(extension_bound(b, deficit, left[0], left[1], left[2], g0, g1, f0, f1,
                                        float(self.L - len(prefix)), self.Cs, self.opt_scaled))

    def _children_bounds(self, prefix, cand, b_child, deficit_child, left_child, counts):
        """Scaled lower bound on every strict extension of each child ``prefix + (a,)``
        (``a`` in ``cand``), from the parent's counts only: an antecedent fixes at most its
        figures within the parent's uncaptured samples, and its net figure grows by at most
        what ``a`` takes that it would get wrong (module doc)."""
        g, f = self._gains(prefix, counts)
        net = np.stack([2 * counts[:, 0] - counts[:, 1], counts[:, 1] - 2 * counts[:, 0]], axis=1)
        others = np.ones((len(cand), self.M), dtype=bool)
        others[:, list(prefix)] = False
        others[np.arange(len(cand)), cand] = False
        gain = np.where(others[:, :, None], g[None, :, :], 0.0).max(axis=1)         # C x 2
        # what a takes that m would get wrong: for a default 0, its negative-majority groups
        wrong = g[cand][:, ::-1]
        first = np.where(others[:, :, None],
                         np.minimum(g[None, :, :], net[None, :, :] + wrong[:, None, :]),
                         0.0).max(axis=1)
        first = np.minimum(np.maximum(first, 0.0), gain)
        return extension_bound(b_child, deficit_child, left_child[0], left_child[1],
                                  left_child[2], gain[:, 0], gain[:, 1], first[:, 0],
                                  first[:, 1], float(self.L - len(prefix) - 1), self.Cs,
                                  self.opt_scaled)

    def _expand(self, prefix, U, b, mistakes, deficit, counts=None) -> None:
        """Record every child within the threshold; push those an extension could keep.

        ``counts`` (M x 3: positives, samples, minority each antecedent captures within U)
        comes from the parent when known: the child's are the parent's minus what the
        appended antecedent took, a much smaller product than recounting U.
        """
        self.nodes += 1
        K = len(prefix)
        if K >= self.L:
            return
        left = self.stats @ U                                    # pos, samples, minority left
        if counts is None:
            counts = self.A @ (self.stats * U).T                 # M x 3, exact small integers
        if self._extension_bound(prefix, b, deficit, left, counts) > self.T:
            return          # no extension of this prefix can be within the threshold
        cand = np.flatnonzero(counts[:, 1] >= max(self.min_capture, 1e-9) if self.min_capture
                              else np.ones(self.M, dtype=bool))
        if K:
            cand = cand[~np.isin(cand, prefix)]
        if cand.size == 0:
            return
        new = counts[cand]
        pos, tot, mn = new[:, 0], new[:, 1], new[:, 2]
        mist = np.minimum(pos, tot - pos)                               # majority label, ties 1
        b_child = b + self.Cs + mist
        pos_left, tot_left, mn_left = left[0] - pos, left[1] - tot, left[2] - mn
        neg_left = tot_left - pos_left
        own = b_child + np.where(pos_left >= neg_left, neg_left, pos_left)
        # every list starting with the child: >= OPT + its rules' deficits (module doc)
        deficit_child = deficit + np.maximum(0.0, self.Cs - (tot - mist) + mn)
        support = self.opt_scaled + deficit_child
        inset = (own <= self.T) & (support <= self.T)
        mk = mistakes + mist
        for j in np.flatnonzero(inset):
            self._record(prefix + (int(cand[j]),), int(mk[j]), int(pos_left[j]), int(tot_left[j]))
        if K + 1 >= self.L:
            return
        deeper = self._children_bounds(prefix, cand, b_child, deficit_child,
                                       (pos_left, tot_left, mn_left), counts)
        keep = deeper <= self.T
        if keep.any():
            self.frontier.push(_Batch(prefix, U, counts, cand[keep], b_child[keep], mk[keep],
                                      deficit_child[keep], deeper[keep]))
