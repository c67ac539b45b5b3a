"""The packing bound: no rule set of complexity ``<= C`` classifies the training data without
error, proven by positive groups that no error-free clause can cover two at a time.

A rule set without error covers every positive group and no negative one, so each of its
clauses is *pure* (covers no negative group).  Two positive groups ``i`` and ``j`` are
*incompatible* when no pure clause covers both.  That is decided exactly by their *meet*, the
clause of every literal true in both: a clause covering both holds only such literals, so it
covers every sample the meet covers, and a pure one exists if and only if the meet covers no
negative group (it does not depend on ``D``; with a length limit, compatible groups may still
have no common pure clause of at most ``D`` literals, which only weakens the bound, never
invalidates it).

In a rule set without error, pairwise incompatible groups ``S`` are covered by ``|S|``
distinct clauses, and the clause covering ``i`` has complexity at least ``1 + l_i``, ``l_i``
the fewest literals of a pure clause covering ``i``.  So if ``sum_{i in S} (1 + l_i) > C``,
every rule set of complexity ``<= C`` misclassifies some sample, and its objective is at least
the least weight of a sample: of a positive group's false negative (``a_g``) or of a
negative group's false positive (``n_g``).  ``l_i`` is bounded below exactly for 1 and 2
(a pure literal true in ``i``; a pure pair of literals true in ``i``, from the table of
literal pairs that share no negative group) and is otherwise taken as 3.

``S`` is a clique of the incompatibility graph, weighted by ``1 + l_i``, found greedily from
many starts (any clique is a valid proof; the heaviest is sought, not proven).  On large
data the positive groups examined are capped (:data:`PACKING_MAX_WORK`): a clique among a
subset of them is still a clique.  Its work is capped, not timed, but under a fit's time
limit it also stops at the deadline (checked between blocks of work) and then proves
nothing.  Groups with both labels need no clique (they are misclassified whatever the rule
set; :func:`.bounds.conflict_bound` already counts them), and a positive group that no pure
clause of at most ``D`` literals covers proves an error alone.

What it can and cannot prove: the clique, each member priced at ``1 + l_i``, is a feasible
dual solution of the LP relaxation of the least-complexity error-free cover (a pure clause
covers at most one member, at complexity at least its price), so it never proves more than
that LP.  Its use is that it needs no pricing proof: it holds when column generation stopped
before its own bound became positive.  Where the master LP itself is 0 (fractions of pure
clauses fit the budget), it proves nothing either; only integer reasoning could
(``cover_lp.py``'s reduced-cost enumeration proves it).  It is tried after gap closing when
the bound is still below one error's weight (``loop._packing``).
"""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from .... import bits

PACKING_MAX_WORK = 2e8
"""Word operations the incompatibility test may spend (positive groups squared times
negative groups times words); past it, the positive groups examined are a sample (the
heaviest, ``1 + l_i``, first, then in the order of the data)."""
CLIQUE_STARTS = 200
"""Vertices the greedy clique search starts from."""
BLOCK_WORDS = 4e6
"""Words of one block of the subset tests (32 MB)."""
PURE_PAIR_MAX_WORK = 2e9
"""Multiply-adds the table of pure pairs of literals may cost (features squared times
negative groups); past it, ``l_i`` is bounded by 1 or 2 only."""


@dataclasses.dataclass
class PackingBound:
    """What the packing bound proved (``bound`` 0: nothing) and how."""

    bound: float = 0.0
    reason: str = ""
    clique: list = dataclasses.field(default_factory=list)
    """The positive groups of the clique (indices into the groups)."""
    complexity: float = 0.0
    """``sum (1 + l_i)`` over the clique: a lower bound on an error-free rule set's
    complexity."""
    examined: int = 0
    """Positive groups examined."""
    wall_time: float = 0.0
    stopped: bool = False
    """The deadline stopped it before it finished (it then proves nothing)."""

    def stats(self) -> dict:
        return {"bound": self.bound, "reason": self.reason, "clique_size": len(self.clique),
                "clique_complexity": self.complexity, "positive_groups_examined": self.examined,
                "wall_time": self.wall_time, "stopped": self.stopped}


class _Expired(Exception):
    """The deadline passed inside the packing bound's work."""


def _never() -> bool:
    return False


def least_error_weight(st) -> float:
    """The least objective of a rule set with an error: the least weight of one sample's
    false negative or false positive (penalties only add)."""
    w = [float(st.a.min())] if len(st.a) else []
    negs = st.neg[st.neg > 0]
    if len(negs):
        w.append(float(negs.min()))
    return min(w) if w else 0.0


def min_pure_lengths(Xp: np.ndarray, Xn: np.ndarray, expired=_never) -> np.ndarray:
    """For each positive row of ``Xp``, a lower bound on the literals of a pure clause (one
    covering no row of ``Xn``) that covers it: 1 when one of its literals is false on every
    negative row, 2 when two of them are never true together on a negative row, else 3.
    ``expired()`` true between blocks of work raises ``_Expired``."""
    d = Xp.shape[1]
    pure = ~Xn.any(axis=0)                                   # literals true on no negative
    out = np.where((Xp & pure).any(axis=1), 1, 2)
    if d * d * len(Xn) > PURE_PAIR_MAX_WORK or not (out == 2).any():
        return out
    _check(expired)
    Xnf = Xn.astype(np.float64)
    pair = (Xnf.T @ Xnf) == 0                                # literal pairs sharing no negative
    for i in np.flatnonzero(out == 2):
        _check(expired)
        lits = np.flatnonzero(Xp[i])
        if not pair[np.ix_(lits, lits)].any():
            out[i] = 3
    return out


def _check(expired) -> None:
    if expired():
        raise _Expired


def within_a_negative(rows: np.ndarray, Nc: np.ndarray) -> np.ndarray:
    """For each packed row of literals, whether some negative row has all of them (``Nc``
    the negative rows' complements, packed), in blocks of a few million words."""
    out = np.zeros(len(rows), dtype=bool)
    step = max(1, int(BLOCK_WORDS // max(1, Nc.size)))
    for s in range(0, len(rows), step):
        out[s:s + step] = ((rows[s:s + step, None, :] & Nc[None, :, :]) == 0
                           ).all(axis=2).any(axis=1)
    return out


def incompatible(Pw: np.ndarray, Nc: np.ndarray, expired=_never) -> np.ndarray:
    """``I[i, j]``: no pure clause covers both positive rows ``i`` and ``j`` (packed
    literals ``Pw``): their meet ``Pw[i] & Pw[j]`` is within some negative row's literals
    (``I[i, i]``: no pure clause covers ``i`` at all).  ``expired()`` is asked per row."""
    m = len(Pw)
    inc = np.zeros((m, m), dtype=bool)
    for i in range(m):
        _check(expired)
        hit = within_a_negative(Pw[i] & Pw[i:], Nc)
        inc[i, i:] = hit
        inc[i:, i] = hit
    return inc


def heaviest_clique(inc: np.ndarray, weight: np.ndarray, expired=_never) -> list[int]:
    """A heavy clique of the graph ``inc`` (``inc[i, i]`` is ignored), greedily from each of
    the :data:`CLIQUE_STARTS` heaviest vertices (ties: most neighbours): add the heaviest
    vertex adjacent to all chosen, ties by most neighbours.  ``expired()`` is asked per
    start."""
    adj = inc.copy()
    np.fill_diagonal(adj, False)
    deg = adj.sum(axis=1)
    rank = np.lexsort((-deg, -weight))                 # heaviest, then most neighbours
    pos = np.empty(len(rank), dtype=np.int64)
    pos[rank] = np.arange(len(rank))
    best, best_w = [], -math.inf
    for s in rank[:CLIQUE_STARTS]:
        _check(expired)
        clique, cand = [int(s)], adj[s].copy()
        while cand.any():
            idx = np.flatnonzero(cand)
            k = int(idx[np.argmin(pos[idx])])
            clique.append(k)
            cand &= adj[k]
        w = float(weight[clique].sum())
        if w > best_w:
            best, best_w = clique, w
    return best


def packing_bound(st, max_work: float = PACKING_MAX_WORK, expired=_never) -> PackingBound:
    """The packing bound of the module doc on the loop's transformed instance ``st`` (its
    groups ``X``, masses ``pos`` / ``neg``, positive groups ``P``, ``a``, ``C``, ``D``).
    ``expired()`` (a fit's deadline) is asked between blocks of work; once it is true the
    search stops and proves nothing (``stopped``)."""
    t0 = time.perf_counter()
    out = PackingBound()
    try:
        _packing(st, max_work, expired, out)
    except _Expired:
        out = PackingBound(examined=out.examined, stopped=True)
    out.wall_time = time.perf_counter() - t0
    return out


def _packing(st, max_work: float, expired, out: PackingBound) -> None:
    """:func:`packing_bound`'s work, filling ``out`` (raises ``_Expired`` at the deadline)."""
    if st.C is None or not len(st.P):
        return
    P = st.P
    negative = np.flatnonzero(st.neg > 0)
    if np.any(st.neg[P] > 0) or not len(negative):
        return              # groups with both labels (conflict bound), or nothing to separate
    lengths = min_pure_lengths(st.X[P], st.X[negative], expired)
    weight = 1.0 + lengths
    Nc = bits.pack(~st.X[negative])      # padding bits zero: a meet never sets them
    cap = int(math.sqrt(max_work / max(1, Nc.size)))
    pick = np.arange(len(P))
    if len(P) > cap:                     # the heaviest first, then in the data's order
        pick = np.sort(np.argsort(-weight, kind="stable")[:max(cap, 1)])
    Pw, weight = bits.pack(st.X[P[pick]]), weight[pick]
    out.examined = len(pick)
    inc = incompatible(Pw, Nc, expired)
    uncoverable = np.diag(inc) | (lengths[pick] > st.D)   # inc[i, i]: i within a negative
    if uncoverable.any():
        i = int(np.flatnonzero(uncoverable)[0])
        out.clique, out.complexity = [int(P[pick[i]])], math.inf
        out.reason = ("every rule set errs: a positive group that no pure clause of at most "
                      "D literals covers")
    else:
        clique = heaviest_clique(inc, weight, expired)
        out.complexity = float(weight[clique].sum())
        out.clique = [int(P[pick[k]]) for k in clique]
        if out.complexity > st.C + 1e-9:
            out.reason = (f"every rule set of complexity <= C errs: {len(clique)} positive "
                          f"groups that no pure clause covers two at a time need complexity "
                          f">= {out.complexity:g}")
    if out.reason:
        out.bound = st.round_bound(least_error_weight(st))
