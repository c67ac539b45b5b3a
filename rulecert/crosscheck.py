"""Brute force for tiny instances, and solver-vs-solver agreement.

``brute_force_rule_list`` enumerates every prefix (tiny instances only);
``crosscheck_rule_list`` runs CORELS and the rule-list MIP on one problem and reports both
objectives, both bounds and whether they agree.
"""
from __future__ import annotations

import itertools
from typing import Iterator, Sequence

from .objectives import RuleListScore, prefix_objective


def all_prefixes(n_antecedents: int, max_length: int) -> Iterator[tuple[int, ...]]:
    """Every ordered prefix of distinct antecedents of length 0..max_length."""
    for k in range(0, min(max_length, n_antecedents) + 1):
        yield from itertools.permutations(range(n_antecedents), k)


def brute_force_rule_list(problem, c: float, max_length: int | None = None,
                          start: Sequence[int] = ()) -> tuple[tuple[int, ...], RuleListScore]:
    """Best CORELS-labelled rule list by enumeration (optionally below a fixed ``start`` prefix).

    Returns the lexicographically first optimal prefix and its score; ties between
    objectives are compared exactly on (mistakes, n_rules).
    """
    M = problem.n_antecedents
    L = M if max_length is None else max_length
    start = tuple(start)
    rest = [i for i in range(M) if i not in start]
    best = None
    for k in range(0, max(0, min(L - len(start), len(rest))) + 1):
        for tail in itertools.permutations(rest, k):
            p = start + tail
            s = prefix_objective(problem, p, c)
            if best is None or s.objective < best[1].objective - 1e-12:
                best = (p, s)
    return best


def crosscheck_rule_list(*args, **kwargs):
    """CORELS vs the rule-list MIP; see :func:`rulecert.mipmodels.crosscheck.crosscheck_rule_list`."""
    from .mipmodels.crosscheck import crosscheck_rule_list as _cc
    return _cc(*args, **kwargs)
