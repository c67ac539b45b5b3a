"""Brute force for tiny rule-list instances: the references the CORELS search and the MIP are
checked against.

* :func:`brute_force_rule_list` -- the best CORELS-labelled list by enumerating every prefix,
  scored by the model's own objective (:func:`rulecert.models.prefix_objective`);
* :func:`brute_force_reference` -- the same in a solver's call shape, ``(RuleList, Certificate)``;
* :func:`exhaustive` -- every prefix with the quantities the JMLR bounds talk about and the
  minimum objective over each prefix's subtree (to check each bound), and
  :func:`brute_force_optimum`, its best list only.  Both run on Python integer bit sets,
  independently of the packed-word code they check, and refuse more than 8 antecedents.

All are exponential: use them for a handful of antecedents.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import time
from typing import Iterator, Sequence

import numpy as np

from .. import bits
from ..certificate import Solution, Termination, certify
from ..models.rulelist import RuleListScore, prefix_objective, rule_list_from_prefix


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


def brute_force_reference(problem, c, *, max_length=None, time_limit=None):
    """Brute force in CORELS's call shape, for tiny problems and tests."""
    t0 = time.perf_counter()
    prefix, score = brute_force_rule_list(problem, c, max_length)
    rl = rule_list_from_prefix(problem, prefix)
    cert = certify(score.objective, score.objective, Termination.OPTIMAL, solver="brute_force",
                   wall_time=time.perf_counter() - t0,
                   message="exhaustive enumeration" + ("" if max_length is None else
                                                       f" up to length {max_length}"))
    return Solution(rl, cert)


@dataclasses.dataclass
class PrefixRecord:
    """What :func:`exhaustive` records of one prefix: its mistakes, the equivalent-points
    minority left uncaptured, and what its last antecedent captures."""

    prefix: tuple[int, ...]
    prefix_mistakes: int        # mistakes of the prefix rules (b(d_p) without the penalty)
    default_mistakes: int
    minority_left: int          # equivalent-points minority among uncaptured samples (b_0 * N)
    last_captured: int          # samples newly captured by the last antecedent
    last_correct: int           # ... and correctly classified by its majority label
    scaled_objective: float     # mistakes + C * K
    subtree_min: float = math.inf     # min scaled objective over sigma(d_p) (incl. d_p)
    extension_min: float = math.inf   # min over strict extensions

    @property
    def depth(self) -> int:
        return len(self.prefix)

    @property
    def mistakes(self) -> int:
        return self.prefix_mistakes + self.default_mistakes


def exhaustive(problem, c: float, max_length: int | None = None,
               max_antecedents: int = 8) -> dict[tuple[int, ...], PrefixRecord]:
    """Every prefix (up to ``max_length``) with its statistics and subtree minima."""
    M, N = problem.n_antecedents, problem.n_samples
    if M > max_antecedents:
        raise ValueError(f"exhaustive enumeration of {M} antecedents is too large (max {max_antecedents})")
    L = M if max_length is None else min(M, max_length)
    cols, ymask = _int_columns(problem)
    zmask = _as_int(bits.unpack(problem.minority, N))
    C = c * N
    recs: dict[tuple[int, ...], PrefixRecord] = {}

    def visit(prefix, unc, pm, last_cap, last_cor):
        pos = (unc & ymask).bit_count()
        neg = unc.bit_count() - pos
        dm = neg if pos >= neg else pos  # ties predict 1
        rec = PrefixRecord(prefix, pm, dm, (unc & zmask).bit_count(), last_cap, last_cor,
                           pm + dm + C * len(prefix))
        recs[prefix] = rec
        best_ext = math.inf
        if len(prefix) < L:
            for j in range(M):
                if j in prefix:
                    continue
                v = unc & cols[j]
                p = (v & ymask).bit_count()
                n = v.bit_count() - p
                cor = p if p >= n else n
                child = visit(prefix + (j,), unc & ~cols[j], pm + p + n - cor, p + n, cor)
                if child.subtree_min < best_ext:
                    best_ext = child.subtree_min
        rec.extension_min = best_ext
        rec.subtree_min = min(rec.scaled_objective, best_ext)
        return rec

    visit((), (1 << N) - 1, 0, -1, -1)
    return recs


def _as_int(col) -> int:
    """A boolean vector as a Python int bit set (bit i = sample i)."""
    return int.from_bytes(np.packbits(np.asarray(col, dtype=bool), bitorder="little").tobytes(), "little")


def _int_columns(problem):
    D = problem.dense()
    return [_as_int(D[:, j]) for j in range(problem.n_antecedents)], _as_int(problem.y.astype(bool))


def brute_force_optimum(problem, c: float, max_length: int | None = None, max_antecedents: int = 8):
    """(prefix, mistakes, n_rules, objective) of a best list (objective = mistakes/N + c*K).

    Ties are broken towards the first list met in depth-first order; objectives are compared
    as ``mistakes / N + c * K``, exactly as :func:`rulecert.models.rule_list_objective`."""
    M, N = problem.n_antecedents, problem.n_samples
    if M > max_antecedents:
        raise ValueError(f"exhaustive enumeration of {M} antecedents is too large (max {max_antecedents})")
    L = M if max_length is None else min(M, max_length)
    cols, ymask = _int_columns(problem)
    best = [None]
    used = [False] * M

    def visit(prefix, unc, pm):
        pos = (unc & ymask).bit_count()
        neg = unc.bit_count() - pos
        m = pm + (neg if pos >= neg else pos)
        obj = m / N + c * len(prefix)
        if best[0] is None or obj < best[0][3] - 1e-12:
            best[0] = (tuple(prefix), m, len(prefix), obj)
        if len(prefix) < L:
            for j in range(M):
                if used[j]:
                    continue
                v = unc & cols[j]
                p = (v & ymask).bit_count()
                n = v.bit_count() - p
                used[j] = True
                prefix.append(j)
                visit(prefix, unc & ~cols[j], pm + (n if p >= n else p))
                prefix.pop()
                used[j] = False

    visit([], (1 << N) - 1, 0)
    return best[0]
