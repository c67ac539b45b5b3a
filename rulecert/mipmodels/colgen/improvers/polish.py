"""Polishing the incumbent rule set by local search over literals, outside the column pool.

The restricted IP (``restricted_ip.py``) and its local search (``improvers/selection_search.py``) choose
among the clauses column generation has generated; a better rule set may need a clause that
pricing never produced, because no dual point made it improving.  This search moves in the
space of rule sets itself, from the incumbent:

* drop a clause; drop, add or swap one literal of a clause (within ``C`` and ``D``);
* add a new clause of one or two literals (or the empty clause, when it is admitted).

With ``others`` the samples covered by the other clauses, a clause's candidate coverages
``v = base & x_l`` over every literal ``l`` are scored at once by one product over the
samples ``base`` covers: the objective ``sum_g a_g [g uncovered] + sum_k neg(cov_k)
(+ penalties)`` changes by ``sum_{g in v} (neg_g - a_g [g not in others])`` against
``base``'s baseline; the new clauses of two literals, all pairs at once, by one product
``X^T diag(w) X``.  Best-improvement descent, then iterated local search: a kick (drop a
clause or replace a literal at random, once or twice), descent, the result kept when it is
no worse.  Deterministic for a seed and ``polish_kicks`` kicks unless a time limit cuts
it short.  Clauses it finds become master columns, so gap closing and the certificate see
them.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ....limits import Deadline
from ....monitor import heartbeat
from ..restricted_ip import RestrictedIP
from ..state import Run, irredundant

_EPS = 1e-9


class LiteralSearch:
    """Moves on DNF rule sets over the (transformed) groups of a :class:`~.state.State`."""

    def __init__(self, st, empty_clause: bool):
        self.st = st
        self.Xf = st.X.astype(np.float32)
        self.apos = np.zeros(st.G)
        self.apos[st.P] = st.a                 # false-negative mass of each group
        self.neg = np.asarray(st.neg, dtype=float)
        self.C = math.inf if st.C is None else st.C
        self.D, self.empty = st.D, empty_clause
        self.lam0, self.lam1 = st.lam0, st.lam1

    # ---- objective (``State.coverage`` of the empty clause: every group) -------------
    def objective(self, clauses) -> float:
        U = np.zeros(self.st.G, dtype=bool)
        total = 0.0
        for c in clauses:
            v = self.st.coverage(c)
            U |= v
            total += float(self.neg[v].sum()) + self.lam0 + self.lam1 * len(c)
        return total + float(self.apos[~U].sum())

    @staticmethod
    def complexity(clauses) -> int:
        return sum(1 + len(c) for c in clauses)

    # ---- one best-improvement step --------------------------------------------------------
    def _weights(self, others: np.ndarray) -> np.ndarray:
        """What covering each group adds to the objective when ``others`` are covered by the
        other clauses: its negatives, less its false-negative mass if no other clause
        covers it (float32, for the products)."""
        return (self.neg - self.apos * ~others).astype(np.float32)

    def _scores(self, base: np.ndarray, w: np.ndarray, const: float) -> np.ndarray:
        """Objective of the rule set whose clause has coverage ``base & x_l``, for every
        literal ``l`` (``w``: :meth:`_weights`); ``const`` is its objective with that clause
        covering nothing (and without the clause's own penalties)."""
        if base.all():
            return const + (w @ self.Xf).astype(float)
        idx = np.flatnonzero(base)
        if 4 * len(idx) > len(base):   # most rows: one product, no copy of the rows
            return const + (np.where(base, w, np.float32(0)) @ self.Xf).astype(float)
        return const + (w[idx] @ self.Xf[idx]).astype(float)

    def best_move(self, clauses: list, obj: float):
        """``(new objective, move)`` of the best move, or ``(obj, None)``."""
        best_obj, best = obj - _EPS, None
        budget = self.C - self.complexity(clauses)
        covs = [self.st.coverage(c) for c in clauses]
        cnt = np.sum(covs, axis=0) if covs else np.zeros(self.st.G, dtype=np.int64)
        for k, c in enumerate(clauses):
            others = (cnt - covs[k]) > 0
            w = self._weights(others)
            own = float(self.neg[covs[k]].sum()) + self.lam0 + self.lam1 * len(c)
            # the objective without clause k's negatives and penalties, positives it alone
            # covers counted as uncovered
            const = obj - own + float(self.apos[covs[k] & ~others].sum())
            if const < best_obj:
                best_obj, best = const, ("drop", k)
            pen = self.lam0 + self.lam1 * len(c)
            if budget >= 1 and len(c) < self.D:
                s = self._scores(covs[k], w, const + pen + self.lam1)
                s[list(c)] = np.inf
                j = int(np.argmin(s))
                if s[j] < best_obj:
                    best_obj, best = float(s[j]), ("add", k, j)
            for i in range(len(c)):
                rest = c[:i] + c[i + 1:]
                v = self.st.coverage(rest)
                if rest or self.empty:
                    o = (const + pen - self.lam1 + float(self.neg[v].sum())
                         - float(self.apos[v & ~others].sum()))
                    if o < best_obj:
                        best_obj, best = o, ("drop literal", k, i)
                s = self._scores(v, w, const + pen)
                s[list(c)] = np.inf
                j = int(np.argmin(s))
                if s[j] < best_obj:
                    best_obj, best = float(s[j]), ("swap", k, i, j)
        covered = cnt > 0
        w = self._weights(covered)
        if budget >= 2 and self.D >= 1:
            s = self._scores(np.ones(self.st.G, dtype=bool), w, obj + self.lam0 + self.lam1)
            j = int(np.argmin(s))
            if s[j] < best_obj:
                best_obj, best = float(s[j]), ("new", j)
        if budget >= 3 and self.D >= 2:
            # a new clause of two literals, every pair at once: sum_g w_g x_gi x_gj
            s = (self.Xf.T @ (self.Xf * w[:, None])).astype(float)
            s[np.tril_indices(self.st.d)] = np.inf
            i, j = np.unravel_index(int(np.argmin(s)), s.shape)
            o = obj + self.lam0 + 2 * self.lam1 + s[i, j]
            if o < best_obj:
                best_obj, best = o, ("new pair", int(i), int(j))
        if budget >= 1 and self.empty and () not in clauses:
            o = obj + self.lam0 + float(self.neg.sum()) - float(self.apos[~covered].sum())
            if o < best_obj:
                best_obj, best = o, ("new empty",)
        return (best_obj + _EPS, best) if best is not None else (obj, None)

    @staticmethod
    def apply(clauses: list, move) -> list:
        cl = [list(c) for c in clauses]
        kind = move[0]
        if kind == "drop":
            del cl[move[1]]
        elif kind == "add":
            cl[move[1]].append(move[2])
        elif kind == "drop literal":
            del cl[move[1]][move[2]]
        elif kind == "swap":
            cl[move[1]][move[2]] = move[3]
        elif kind == "new":
            cl.append([move[1]])
        elif kind == "new pair":
            cl.append([move[1], move[2]])
        else:
            cl.append([])
        return [tuple(sorted(c)) for c in cl]

    def descend(self, clauses: list, deadline=None) -> tuple[list, float, int]:
        """Best-improvement descent; returns the rule set, its objective and the moves."""
        obj, moves = self.objective(clauses), 0
        while deadline is None or time.perf_counter() < deadline:
            heartbeat(phase="polish", moves=moves)
            _, mv = self.best_move(clauses, obj)
            if mv is None:
                break
            new = self.apply(clauses, mv)
            new_obj = self.objective(new)   # exact (the scores are float32 products)
            if new_obj >= obj - _EPS:
                break
            clauses, obj, moves = new, new_obj, moves + 1
        return clauses, obj, moves

    def kick(self, clauses: list, rng: np.random.Generator) -> list:
        """Drop a clause or replace a literal at random, once or twice (within ``C``)."""
        cl = [list(c) for c in clauses]
        for _ in range(int(rng.integers(1, 3))):
            if not cl:
                break
            k = int(rng.integers(len(cl)))
            if rng.random() < 0.5 or not cl[k]:
                del cl[k]
            else:
                cl[k][int(rng.integers(len(cl[k])))] = int(rng.integers(self.st.d))
        out = []
        for c in cl:
            c = tuple(sorted(set(c)))
            if (c or self.empty) and c not in out:
                out.append(c)
        return out

    def search(self, clauses: list, iterations: int, seed: int, deadline=None,
               stop=lambda: False) -> dict:
        """Descent from ``clauses``, then ``iterations`` kicks (or until ``deadline``, or
        until ``stop()`` says so between kicks)."""
        rng = np.random.default_rng(seed)
        cur, cur_obj, moves = self.descend(list(clauses), deadline)
        best, best_obj, done = cur, cur_obj, 0
        for _ in range(iterations):
            if deadline is not None and time.perf_counter() >= deadline or stop():
                break
            cl, o, m = self.descend(self.kick(cur, rng), deadline)
            moves += m
            done += 1
            if o <= cur_obj + _EPS:
                cur, cur_obj = cl, o
                if o < best_obj - _EPS:
                    best, best_obj = cl, o
        return {"clauses": best, "objective": best_obj, "kicks": done, "moves": moves}


def polish_applies(run: Run, ip: RestrictedIP) -> bool:
    """Polishing is on and the rule set is not proven optimal."""
    return run.o.primal.polish and run.gap_open(ip.objective)


def polish(run: Run, ip: RestrictedIP, end: Deadline) -> None:
    """Polish ``ip``'s rule set by :class:`LiteralSearch` (``polish_kicks`` kicks, until
    ``end``); an improver: a better rule set's clauses become master columns and its
    selection the incumbent (``ip`` updated, ``run.polish`` its record).  Ctrl-C, the
    callback or the memory cap stops it between kicks, with the best rule set so far, and
    halts the solve."""
    o, st, master = run.o, run.st, run.master
    t0, deadline = time.perf_counter(), end.end
    start = [st.clauses[k] for k in np.flatnonzero(ip.selected)]
    ls = LiteralSearch(st, o.model.empty_clause)
    r = ls.search(start, o.primal.polish_kicks, o.seed, deadline,
                  stop=lambda: run.check_stop("polishing", overriding=True) is not None)
    info = {"objective_before": ip.objective, "objective": ip.objective, "kicks": r["kicks"],
            "moves": r["moves"], "new_columns": 0}
    if r["objective"] < ip.objective - _EPS:
        clauses = [irredundant(st.X, c) for c in r["clauses"]]
        info["new_columns"] = run.add_clauses(clauses)
        sel = run.selection_of(clauses)
        obj = math.inf if sel is None else master.selection_objective(sel)
        if obj < ip.objective - _EPS:
            ip.selected, ip.objective = sel, obj
            info["objective"] = obj
    ip.selected = master.padded(ip.selected)
    info["wall_time"] = time.perf_counter() - t0
    run.times["polish"] += info["wall_time"]
    run.polish = info


