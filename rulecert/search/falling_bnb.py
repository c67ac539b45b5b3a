"""Exact branch-and-bound for Program 2.9 (FRL) and Program 5.1 (softFRL).

Best-first search over prefixes, ordered by the prefix bound.  Expanding a prefix evaluates
all its children at once on packed bits (:mod:`rulecert.search.falling_core`); then

* every valid child's completion "end here with the else clause" updates the incumbent;
* a child whose bound (Theorem 4.6 / 5.2) is not below the incumbent is pruned;
* a child for which ending now is optimal (inequality (9) / its softFRL analogue) is closed;
* **dominance**: two prefixes that capture the same samples leave the same remaining
  subproblem (an antecedent of either captures nothing new, so it can never be used again).
  Their completions differ only through the objective so far and, for FRL, the last rule's
  proportion (every later rule must not exceed it), for softFRL the running minimum alpha_min
  (every later penalty max(alpha - alpha_min, 0) is smaller when alpha_min is larger).  So a
  prefix is dropped when another one with the same captured set has cost <= and
  alpha >= (alpha_last for FRL, alpha_min for softFRL) -- and for FRL a lower cost with the
  same captured set means fewer rules.  Captured sets are keyed by a 128-bit hash of the
  packed uncaptured vector (:func:`~rulecert.search.falling_core.child_keys`; two different
  sets collide with probability about 2**-128).

The certificate's lower bound is min(incumbent, smallest bound of any pruned or open prefix);
the search is OPTIMAL only when the queue is exhausted.  A time, node or queue limit returns
the incumbent with that proven bound and its gap.
"""
from __future__ import annotations

import heapq
import math
import time

import numpy as np

from ..certificate import Certificate, SolutionStatus, Termination
from ..models.falling import FallingRuleList
from ..models.falling import frl_objective, soft_frl_objective
from .falling_core import FallingData, child_keys, children, make_params, root_tail

PRUNE_TOL = 1e-12
"""A child is pruned when its bound >= incumbent - PRUNE_TOL (float round-off only)."""
ABS_TOL = 1e-9
"""Certificate tolerance: the bound meets the objective within this."""


def _exact_objective(problem, params, prefix) -> float:
    if params.program == "frl":
        return frl_objective(problem, prefix, params.w, params.C).objective
    return soft_frl_objective(problem, prefix, params.w, params.C, params.C1).objective


def _model(problem, params, prefix) -> FallingRuleList:
    kind = "falling" if params.program == "frl" else "softly_falling"
    return FallingRuleList.from_prefix(problem, prefix, params.w, kind)


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


def branch_and_bound(problem, program: str, w, C, C1=None, *, max_length: int | None = None,
                     time_limit: float | None = None, node_limit: int | None = None,
                     queue_limit: int = 5_000_000, incumbent=None, dominance: bool = True,
                     history_every: int = 1000):
    """Certified optimum of Program 2.9 (``program="frl"``) or 5.1 (``"softfrl"``).

    Returns ``(FallingRuleList, Certificate)``.  ``max_length`` limits the number of rules
    (the optimum is then over lists of at most that many rules); ``incumbent`` (a
    FallingRuleList or antecedent-index prefix, e.g. the Monte-Carlo result) seeds the search.
    """
    params = make_params(program, w, C, C1)
    if max_length is not None and (int(max_length) != max_length or max_length < 0):
        raise ValueError(f"max_length must be a non-negative integer, got {max_length!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds, got {time_limit!r}")
    if node_limit is not None and (int(node_limit) != node_limit or node_limit < 1):
        raise ValueError(f"node_limit must be a positive integer, got {node_limit!r}")
    if int(queue_limit) != queue_limit or queue_limit < 1:
        raise ValueError(f"queue_limit must be a positive integer, got {queue_limit!r}")
    data = FallingData(problem)
    t0 = time.perf_counter()
    n = data.n
    solver = "frl-bnb" if program == "frl" else "softfrl-bnb"
    Kmax = data.M if max_length is None else min(int(max_length), data.M)

    # the empty prefix: its else-only list is always compatible and falling
    ext0, stop0 = root_tail(params, n, data.NP, data.NN)
    best_val = stop0
    best_prefix: tuple[int, ...] = ()
    warm_obj = None
    seed = _seed_prefix(problem, params, incumbent)
    if seed is not None:
        warm_obj = seed[1]
        if len(seed[0]) <= Kmax and seed[1] < best_val:
            best_prefix, best_val = seed
    history = [{"time": 0.0, "objective": best_val, "lower_bound": min(stop0, ext0), "nodes": 0}]
    pruned_min = math.inf
    heap: list = []
    dom: dict[tuple[int, int], list] = {}
    counter = 0
    nodes = 0
    termination = Termination.OPTIMAL
    root_state = (1, 0) if program == "frl" else 1.0
    if Kmax > 0 and data.captures_something and not (stop0 <= ext0):
        heap.append((min(ext0, stop0), 0, counter, (), 0.0, root_state, None, counter))

    while heap:
        if node_limit is not None and nodes >= node_limit:
            termination = Termination.NODE_LIMIT
            break
        if time_limit is not None and time.perf_counter() - t0 >= time_limit:
            termination = Termination.TIME_LIMIT
            break
        if len(heap) > queue_limit:
            termination = Termination.MEMORY_LIMIT
            break
        lb, negdepth, _, prefix, cost, state, key, nid = heapq.heappop(heap)
        if lb >= best_val - PRUNE_TOL:
            pruned_min = min(pruned_min, lb)
            continue
        if dominance and key is not None and not any(e[2] == nid for e in dom.get(key, ())):
            continue  # dominated after it was queued
        nodes += 1
        remP, remN = data.remainder(prefix)
        RP = int(np.bitwise_count(remP).sum())
        RN = int(np.bitwise_count(remN).sum())
        cp_all, cn_all = data.counts(remP, remN)
        ch = children(params, n, cp_all, cn_all, RP, RN, cost, state)
        if ch.idx.size == 0:
            continue
        j = int(np.argmin(ch.value))
        if ch.value[j] < best_val - PRUNE_TOL:
            best_val = float(ch.value[j])
            best_prefix = prefix + (int(ch.idx[j]),)
            history.append({"time": time.perf_counter() - t0, "objective": best_val,
                            "lower_bound": math.nan, "nodes": nodes})
        depth = len(prefix) + 1
        if depth >= Kmax:
            continue  # children cannot be extended: their values were counted above
        open_ = ~ch.terminal
        keep = open_ & (ch.bound < best_val - PRUNE_TOL)
        drop = open_ & ~keep
        if drop.any():
            pruned_min = min(pruned_min, float(ch.bound[drop].min()))
        kept = np.flatnonzero(keep)
        if dominance and kept.size:
            k1, k2 = child_keys(data.capP, data.capN, remP, remN, ch.idx[kept])
        for t, i in enumerate(kept):
            a = int(ch.idx[i])
            c_cost = float(ch.cost[i])
            c_alpha = float(ch.alpha[i])
            ckey = None
            counter += 1
            if dominance:
                ckey = (int(k1[t]), int(k2[t]))
                entries = dom.get(ckey)
                if entries is not None:
                    if any(ec <= c_cost + PRUNE_TOL and ea >= c_alpha for ec, ea, _ in entries):
                        continue
                    entries[:] = [e for e in entries if not (c_cost <= e[0] + PRUNE_TOL and c_alpha >= e[1])]
                    entries.append((c_cost, c_alpha, counter))
                else:
                    dom[ckey] = [(c_cost, c_alpha, counter)]
            c_state = (int(ch.cp[i]), int(ch.cn[i])) if program == "frl" else c_alpha
            heapq.heappush(heap, (float(ch.bound[i]), -depth, counter, prefix + (a,), c_cost,
                                  c_state, ckey, counter))
        if history_every and nodes % history_every == 0:
            lbnow = min(best_val, pruned_min, heap[0][0] if heap else math.inf)
            history.append({"time": time.perf_counter() - t0, "objective": best_val,
                            "lower_bound": lbnow, "nodes": nodes})

    open_min = min((h[0] for h in heap), default=math.inf)
    wall = time.perf_counter() - t0
    objective = _exact_objective(problem, params, best_prefix)
    if abs(objective - best_val) > 1e-9:
        raise AssertionError(f"internal error: incumbent value {best_val} != exact objective {objective}")
    if termination is Termination.OPTIMAL:
        lower = min(objective, pruned_min)
        if objective - lower > ABS_TOL:  # cannot happen: pruned bounds are >= incumbent - tol
            raise AssertionError("internal error: pruned bound below the incumbent")
    else:
        lower = min(objective, pruned_min, open_min)
    status = SolutionStatus.OPTIMAL if (termination is Termination.OPTIMAL) else SolutionStatus.FEASIBLE
    history.append({"time": wall, "objective": objective, "lower_bound": lower, "nodes": nodes})
    cert = Certificate(termination, status, objective, lower, solver, "", ABS_TOL, 0.0, nodes, nodes,
                       wall, None, warm_obj, "" if termination is Termination.OPTIMAL else
                       f"stopped by {termination.value}; {len(heap)} prefixes left open",
                       history, {"queue_left": len(heap), "dominance_keys": len(dom),
                                 "max_length": max_length, "program": program})
    return _model(problem, params, best_prefix), cert


def frl_branch_and_bound(problem, w: float = 7.0, C: float = 1e-6, **kwargs):
    """Exact FRL (Program 2.9): ``(FallingRuleList, Certificate)``; see :func:`branch_and_bound`."""
    return branch_and_bound(problem, "frl", w, C, None, **kwargs)


def softfrl_branch_and_bound(problem, w: float = 7.0, C: float = 1e-6, C1: float = 0.5, **kwargs):
    """Exact softFRL (Program 5.1): ``(FallingRuleList, Certificate)``; see :func:`branch_and_bound`."""
    return branch_and_bound(problem, "softfrl", w, C, C1, **kwargs)
