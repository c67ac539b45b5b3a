"""Brute force for tiny FRL / softFRL instances (the reference every exact solver is checked on).

Enumerates every compatible rule list (each rule captures at least one new sample and the
else clause at least one sample) of at most ``max_length`` rules, with no bound and no
dominance.  For FRL only lists that fall (else clause included) are scored; the enumeration
skips a prefix whose proportions already rise, which loses nothing because every prefix of a
falling list falls.  Objectives are summed from the counts as in
:mod:`rulecert.models.falling`.
"""
from __future__ import annotations

import numpy as np

from .. import bits
from ..models.falling import check_falling_problem, make_params


class _ClassSplit:
    """Packed captures split into positives and negatives (numpy only, independent of the
    searches' data structures)."""

    def __init__(self, problem):
        check_falling_problem(problem)
        y = problem.y.astype(bool)
        self.n, self.M = int(problem.n_samples), int(problem.n_antecedents)
        D = bits.unpack(problem.captures, self.n).reshape(self.M, self.n)
        pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
        self.NP, self.NN = int(pos.size), int(neg.size)
        self.capP = bits.pack(D[:, pos]).reshape(self.M, -1)
        self.capN = bits.pack(D[:, neg]).reshape(self.M, -1)
        self.allP, self.allN = bits.ones(self.NP), bits.ones(self.NN)

    def counts(self, remP, remN):
        cp = np.bitwise_count(self.capP & remP).sum(axis=1, dtype=np.int64)
        cn = np.bitwise_count(self.capN & remN).sum(axis=1, dtype=np.int64)
        return cp, cn


def brute_force_falling(problem, program: str, w, C, C1=None, max_length: int | None = None,
                        start=()) -> tuple[tuple[int, ...], float]:
    """(optimal prefix, optimal objective) by enumeration; lists must begin with ``start``.

    With ``start`` the result is the best completion of that prefix (for FRL the prefix must
    itself be compatible and falling, else ``(None, inf)``).
    """
    params = make_params(program, w, C, C1)
    data = _ClassSplit(problem)
    n, wt, Cc, C1v = data.n, params.w, params.C, params.C1
    L = data.M if max_length is None else int(max_length)
    frl = params.program == "frl"

    def stop_value(cost, amin, rp, rn):
        v = cost + min(wt * rp, rn) / n
        if not frl:
            a = rp / (rp + rn)
            v += C1v * max(a - amin, 0.0)
        return v

    # walk the fixed start
    remP, remN = data.allP.copy(), data.allN.copy()
    RP, RN = data.NP, data.NN
    cost, last, amin = 0.0, (1, 0), 1.0
    for a in start:
        cp = int(np.bitwise_count(data.capP[a] & remP).sum())
        cn = int(np.bitwise_count(data.capN[a] & remN).sum())
        if cp + cn == 0 or RP + RN - cp - cn == 0:
            return None, float("inf")
        alpha = cp / (cp + cn)
        if frl:
            if cp * (last[0] + last[1]) > last[0] * (cp + cn):
                return None, float("inf")
            last = (cp, cn)
        else:
            cost += C1v * max(alpha - amin, 0.0)
            amin = min(amin, alpha)
        cost += min(wt * cp, cn) / n + Cc
        remP &= ~data.capP[a]
        remN &= ~data.capN[a]
        RP -= cp
        RN -= cn
    best = [None, float("inf")]

    def visit(prefix, remP, remN, RP, RN, cost, last, amin):
        # the list (prefix, else)
        if not frl or RP * (last[0] + last[1]) <= last[0] * (RP + RN):
            v = stop_value(cost, amin, RP, RN)
            if v < best[1] - 1e-12:
                best[0], best[1] = tuple(prefix), v
        if len(prefix) >= L:
            return
        cp_all, cn_all = data.counts(remP, remN)
        for a in range(data.M):
            cp, cn = int(cp_all[a]), int(cn_all[a])
            if cp + cn == 0 or RP + RN - cp - cn == 0:
                continue
            alpha = cp / (cp + cn)
            if frl:
                if cp * (last[0] + last[1]) > last[0] * (cp + cn):
                    continue
                c2 = cost + min(wt * cp, cn) / n + Cc
                visit(prefix + [a], remP & ~data.capP[a], remN & ~data.capN[a],
                      RP - cp, RN - cn, c2, (cp, cn), amin)
            else:
                c2 = cost + min(wt * cp, cn) / n + Cc + C1v * max(alpha - amin, 0.0)
                visit(prefix + [a], remP & ~data.capP[a], remN & ~data.capN[a],
                      RP - cp, RN - cn, c2, last, min(amin, alpha))

    visit(list(start), remP, remN, RP, RN, cost, last, amin)
    return best[0], best[1]
