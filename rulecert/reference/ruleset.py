"""Brute force for tiny rule-set instances (n <= ~30 samples, <= ~8 binary features).

Enumerates every clause of 1..D literals ("feature == 1", as column generation uses), keeps
for each distinct coverage the shortest clause (a longer clause with the same coverage is
dominated: same loss, more complexity and penalty), with ``empty_clause`` also the empty
clause (always true, complexity 1), and drops clauses covering no sample of
the learned class (they can only add loss), then searches all subsets within the
complexity bound depth-first.  The objective is that of
:func:`rulecert.models.ruleset_objective` (Hamming loss plus optional penalties).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..checks import check_binary_matrix
from ..models.ruleset import RuleSet


def brute_force_ruleset(X, y, complexity_bound: float | None, max_clause_length: int, *,
                        sample_weight=None, form: str = "dnf", fn_weight: float = 1.0,
                        clause_penalty: float = 0.0, literal_penalty: float = 0.0,
                        empty_clause: bool = False, feature_names=None) -> tuple[RuleSet, float]:
    """The optimal rule set and its objective, by enumeration."""
    X = check_binary_matrix(X)
    y = np.asarray(y).astype(int)
    n, d = X.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    if form == "cnf":
        X, y = ~X, 1 - y
    pos = y == 1
    C = math.inf if complexity_bound is None else float(complexity_bound)
    D = min(max_clause_length, d, int(C) - 1 if math.isfinite(C) else d)
    pos_idx = np.flatnonzero(pos)
    best_by_cov: dict[bytes, tuple[int, ...]] = {}
    for length in range(0 if empty_clause else 1, D + 1):
        for cl in itertools.combinations(range(d), length):
            cov = np.logical_and.reduce(X[:, list(cl)], axis=1)
            if not cov[pos].any():
                continue
            key = cov.tobytes()
            if key not in best_by_cov:
                best_by_cov[key] = cl
    clauses = list(best_by_cov.values())
    masks, costs, cpx = [], [], []
    for cl in clauses:
        cov = np.logical_and.reduce(X[:, list(cl)], axis=1)
        masks.append(sum(1 << int(k) for k, i in enumerate(pos_idx) if cov[i]))
        costs.append(float(w[cov & ~pos].sum()) + clause_penalty + literal_penalty * len(cl))
        cpx.append(1 + len(cl))
    pos_w = w[pos_idx] * fn_weight
    full = (1 << len(pos_idx)) - 1

    def fn_cost(mask: int) -> float:
        unc = full & ~mask
        return float(sum(pos_w[k] for k in range(len(pos_idx)) if unc >> k & 1))

    best = [fn_cost(0), ()]
    m = len(clauses)

    def dfs(start: int, mask: int, cost: float, used: float, chosen: tuple):
        val = cost + fn_cost(mask)
        if val < best[0] - 1e-12:
            best[0], best[1] = val, chosen
        for k in range(start, m):
            if used + cpx[k] > C + 1e-9:
                continue
            nc = cost + costs[k]
            if nc >= best[0] - 1e-12:
                continue
            dfs(k + 1, mask | masks[k], nc, used + cpx[k], chosen + (k,))

    dfs(0, 0, 0.0, 0.0, ())
    rs = RuleSet.from_feature_sets([clauses[k] for k in best[1]], form, feature_names)
    return rs, best[0]
