"""Greedy pricing of pure clauses from the positive side: the error-free cover LP's first
pricer (``cover_lp.py``).

A *pure* clause covers no negative group.  One covering the positive groups ``T`` holds only
literals of ``meet(T)`` (true in every group of ``T``), and one exists exactly when the
conjunction of all of ``meet(T)`` covers no negative group (``packing.py``).  From a seed
group, positive groups are added one at a time: among those that keep the meet pure, the
one of largest dual, times a random factor in ``[1, 1 + NOISE]``; a group that would make
it impure stays so (the meet only shrinks), and groups that hold the whole meet come in
for free.  At each step the fewest literals of the meet that exclude every negative group
are sought greedily (the literal excluding the most negatives left, ties to the one true
on the most positive dual; redundant literals then dropped), and the clause is priced
exactly: ``1 + |k| - y(k)``, ``y(k)`` the duals of the positive groups it covers.

Why: the beam search (``beam.py``) builds clauses literal by literal and scores one that
still covers negative groups by their cost, far above any gain, so it rarely reaches the
long pure clauses that a cover can need, which this greedy builds directly.  The search
proves nothing.  Its seeds are the groups of largest dual, random ones (``rng``, so
a run is reproducible) and the meets of given clauses (the cover LP's support).
"""
from __future__ import annotations

import numpy as np

from .... import bits
from .packing import within_a_negative

TOP_SEEDS, RANDOM_SEEDS = 30, 30
"""Seed groups of one call: the largest duals, and random groups of positive dual."""
NOISE = 0.5
"""The next group is the compatible one of largest ``y * (1 + NOISE * U[0, 1))``."""


class PureClauseGreedy:
    """The greedy of the module doc over positive groups ``Xp`` and negative groups ``Xn``
    (bool, groups x literals), clauses of 1..``D`` literals."""

    def __init__(self, Xp: np.ndarray, Xn: np.ndarray, D: int, rng: np.random.Generator):
        self.Xp = np.asarray(Xp, dtype=bool)
        self.notXn = ~np.asarray(Xn, dtype=bool)
        self.d, self.D, self.rng = self.Xp.shape[1], int(D), rng
        self.P = bits.pack(self.Xp)          # a positive group's literals, packed
        self.notN = bits.pack(self.notXn)    # a negative group's false literals, packed

    def clause_within(self, M: np.ndarray, lit_gain: np.ndarray) -> tuple[int, ...] | None:
        """Few literals of the pure meet ``M`` that exclude every negative group (greedy set
        cover), None past ``D`` literals."""
        lits = np.flatnonzero(bits.unpack(M, self.d))
        A = self.notXn[:, lits]
        tie = lit_gain[lits] / (1.0 + float(lit_gain.max(initial=0.0)))     # in [0, 1)
        left = np.ones(len(A), dtype=bool)
        chosen: list[int] = []
        while left.any():
            score = A[left].sum(axis=0) + tie
            j = int(np.argmax(score))
            if score[j] < 1 or len(chosen) == self.D:
                return None
            chosen.append(j)
            left &= ~A[:, j]
        for j in list(chosen):
            rest = [k for k in chosen if k != j]
            if rest and A[:, rest].any(axis=1).all():
                chosen = rest
        return tuple(sorted(int(lits[j]) for j in chosen))

    def price(self, y: np.ndarray, K: int, tol: float = 1e-6, starts=()) -> list[tuple[int, ...]]:
        """Up to ``K`` pure clauses of reduced cost ``1 + |k| - y(k) < -tol`` at the duals
        ``y >= 0`` of the positive groups, most negative first; ``starts``: clauses whose
        meets are seeds too."""
        gain = np.flatnonzero(y > 0)
        if not len(gain):
            return []
        lit_gain = y @ self.Xp
        order = gain[np.argsort(-y[gain], kind="stable")]
        seeds = [self.P[s] for s in order[:TOP_SEEDS]] + [self.P[s] for s in self.rng.choice(
            gain, min(RANDOM_SEEDS, len(gain)), replace=False)]
        for cl in starts:
            cov = self.Xp[:, list(cl)].all(axis=1)
            if cov.any():
                seeds.append(np.bitwise_and.reduce(self.P[cov], axis=0))
        found: dict[tuple[int, ...], float] = {}
        for M in seeds:
            cand = gain
            while True:
                Ms = M & self.P[cand]
                keep = ~within_a_negative(Ms, self.notN)     # the meets still pure
                cand, Ms = cand[keep], Ms[keep]
                free = (Ms == M).all(axis=1)          # groups that hold the whole meet
                cand, Ms = cand[~free], Ms[~free]
                cl = self.clause_within(M, lit_gain)
                if cl is not None and cl not in found:
                    found[cl] = 1.0 + len(cl) - float(y[self.Xp[:, list(cl)].all(axis=1)].sum())
                if not len(cand):
                    break
                i = int(np.argmax(y[cand] * (1.0 + NOISE * self.rng.random(len(cand)))))
                M = Ms[i]
                cand = np.delete(cand, i)
        best = sorted((rc, cl) for cl, rc in found.items() if rc < -tol)
        return [cl for _, cl in best[:K]]
