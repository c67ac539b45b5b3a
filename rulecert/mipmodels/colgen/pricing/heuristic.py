"""The paper's greedy pricing heuristic (Dash, Gunluk & Wei, Sec. 3), batched.

See :mod:`rulecert.mipmodels.colgen.pricing` (``heuristic_pricing``) for the method and its
valid lower bound.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ....certificate import Termination
from ....monitor import heartbeat, interrupt_requested
from .instance import PricingInstance, PricingResult


def heuristic_pricing(inst: PricingInstance, *, threshold: float = 0.0, max_length: int = 5,
                      max_generated: int = 5000, max_return: int | None = 50,
                      stop_when_found: bool = True, deadline: float | None = None,
                      method: str = "heuristic", max_found: int | None = None) -> PricingResult:
    """Greedy extension of clauses in increasing reduced-cost order (see module doc).

    Returns the clauses with reduced cost ``< threshold`` (best first, at most
    ``max_return``; ``None`` = all) and a valid lower bound on the instance's minimum.
    ``stop_when_found``: stop after the first level that produced improving clauses (the
    paper's "return the best clauses before proceeding to the next value of l").
    ``max_generated`` caps the distinct clauses generated (checked before each clause is
    extended, as ``max_found`` caps those below the threshold); ``deadline`` is a
    ``time.perf_counter()`` value, checked between batches of clauses.

    The clauses of a level are extended in batches, in increasing reduced-cost order: one
    matrix product gives the reduced costs and extension bounds of all the children of a
    batch, and children are deduplicated on integer keys of their sorted literals.
    """
    t0 = time.perf_counter()
    D = inst.max_length
    depth = min(int(max_length), D)
    X, Xf, v = inst.X, inst.Xf, inst.v
    vneg = np.minimum(v, 0.0)
    d = inst.n_features
    if d == 0:
        return PricingResult([], [], math.inf, True, method, Termination.OPTIMAL, 0.0)
    XT = inst.XT
    VX = np.stack((v, vneg))                 # one product gives rc and extension bound sums
    found_cl: list[np.ndarray] = []          # clauses below the threshold, in generation order
    found_rc: list[np.ndarray] = []
    n_found = 0
    rc1 = inst.fixed(1) + v @ Xf
    lb1 = (inst.fixed(2) + vneg @ Xf) if D >= 2 else np.full(d, math.inf)
    bound = float(rc1.min())       # min over generated rc and over non-extended extension bounds
    f1 = np.flatnonzero(rc1 < threshold)
    found_cl.append(f1[:, None])
    found_rc.append(rc1[f1])
    n_found += f1.size
    if (lb1 >= threshold).any():
        bound = min(bound, float(lb1[lb1 >= threshold].min()))
    prom = np.flatnonzero(lb1 < threshold)
    nodes, node_rc, node_lb = prom[:, None], rc1[prom], lb1[prom]
    j0 = int(np.argmin(rc1))
    best = (float(rc1[j0]), (j0,))  # best clause generated (a hint for CP-SAT)
    generated = 0
    level = 1
    complete = timed_out = False
    batch = int(np.clip(min(2 ** 16 // d, 2 ** 21 // max(X.shape[0], 1)), 8, 256))
    while True:
        if not nodes.shape[0]:
            complete = True       # every promising clause was extended: the search is exact
            break
        order = np.argsort(node_rc, kind="stable")
        nodes, node_rc, node_lb = nodes[order], node_rc[order], node_lb[order]
        if level >= depth or (stop_when_found and n_found):
            bound = min(bound, float(node_lb.min()))   # not extended: their extension bounds
            break
        nxt_cl, nxt_rc, nxt_lb = [], [], []
        seen: set = set()
        stop = None               # position in the level where the search was cut
        rc_fixed, lb_fixed = inst.fixed(level + 1), inst.fixed(level + 2)
        deeper = level + 1 < D
        for s in range(0, nodes.shape[0], batch):
            if deadline is not None and time.perf_counter() > deadline or interrupt_requested():
                stop, timed_out = s, generated < max_generated
                break
            heartbeat(phase="heuristic pricing")
            L = nodes[s:s + batch]
            m = L.shape[0]
            cov = XT[L[:, 0]]
            for c in range(1, level):
                cov = cov & XT[L[:, c]]
            S = (VX[:, None, :] * cov).reshape(2 * m, -1) @ Xf      # (2m, d)
            rcs = rc_fixed + S[:m]
            lbs = lb_fixed + S[m:] if deeper else np.full((m, d), math.inf)
            mask = np.ones((m, d), dtype=bool)
            mask[np.arange(m)[:, None], L] = False
            rmask = np.where(mask, rcs, math.inf)
            node_min = rmask.min(axis=1)
            node_pruned = np.where(mask & (lbs >= threshold), lbs, math.inf).min(axis=1)
            pi, ji = np.nonzero(mask & ((rcs < threshold) | (lbs < threshold)))
            children = np.sort(np.concatenate((L[pi], ji[:, None]), axis=1), axis=1)
            keys = _clause_keys(children, d)
            _, first = np.unique(keys, return_index=True)
            first.sort()
            if seen:
                first = first[[k not in seen for k in keys[first].tolist()]]
            crc, clb = rcs[pi[first], ji[first]], lbs[pi[first], ji[first]]
            owner = pi[first]
            # the caps are checked before each clause is extended, as one at a time would
            over = generated + _counts_before(owner, m) >= max_generated
            if max_found is not None:
                over |= n_found + _counts_before(owner[crc < threshold], m) > max_found
            k = int(np.argmax(over)) if over.any() else m
            if k < m:
                stop, timed_out = s + k, False
                acc = owner < k
                first, owner, crc, clb = first[acc], owner[acc], crc[acc], clb[acc]
            if k:
                bound = min(bound, float(node_min[:k].min()), float(node_pruned[:k].min()))
                p = int(np.argmin(node_min[:k]))
                if node_min[p] < best[0]:
                    jm = int(np.argmin(rmask[p]))
                    best = (float(node_min[p]), tuple(sorted(L[p].tolist() + [jm])))
            ch = children[first]
            seen.update(keys[first].tolist())
            generated += first.size
            f = crc < threshold
            found_cl.append(ch[f])
            found_rc.append(crc[f])
            n_found += int(f.sum())
            e = clb < threshold
            nxt_cl.append(ch[e])
            nxt_rc.append(crc[e])
            nxt_lb.append(clb[e])
            if stop is not None:
                break
        if stop is not None:
            bound = min(bound, float(node_lb[stop:].min()))
            if nxt_lb and sum(a.size for a in nxt_lb):   # generated but never extended
                bound = min(bound, float(np.concatenate(nxt_lb).min()))
            break
        nodes = np.concatenate(nxt_cl) if nxt_cl else np.empty((0, level + 1), dtype=np.intp)
        node_rc = np.concatenate(nxt_rc) if nxt_rc else np.empty(0)
        node_lb = np.concatenate(nxt_lb) if nxt_lb else np.empty(0)
        level += 1
    rcs_all = np.concatenate(found_rc)
    order = np.argsort(rcs_all, kind="stable")
    if max_return is not None:
        order = order[:max_return]
    ends = np.cumsum([a.shape[0] for a in found_cl])     # the pools hold different lengths
    clauses = []
    for i in order.tolist():
        b = int(np.searchsorted(ends, i, side="right"))
        clauses.append(tuple(found_cl[b][i - (ends[b - 1] if b else 0)].tolist()))
    if complete:
        term = Termination.OPTIMAL
    elif timed_out:
        term = Termination.TIME_LIMIT
    else:
        term = Termination.ITERATION_LIMIT
    return PricingResult(clauses, rcs_all[order].tolist(), bound, complete, method,
                         term, time.perf_counter() - t0, generated, best_clause=best[1])


def _counts_before(owner: np.ndarray, m: int) -> np.ndarray:
    """For each of ``m`` nodes, how many entries of ``owner`` name an earlier node."""
    return np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=m))[:-1]))


def _clause_keys(C: np.ndarray, d: int) -> np.ndarray:
    """Keys of clauses given as rows of sorted literals (< ``d``), equal iff the clauses are:
    the rows read as numbers in base ``d`` when that fits in 62 bits, else the rows' bytes."""
    k = C.shape[1]
    if k * math.log2(max(d, 2)) < 62:
        return C.astype(np.int64) @ (np.int64(d) ** np.arange(k, dtype=np.int64))
    return np.ascontiguousarray(C, dtype=np.int64).view(np.dtype((np.void, 8 * k))).ravel()
