"""Exhaustive enumeration of every prefix of a tiny problem, for checking the search and bounds.

:func:`exhaustive` visits every ordered prefix of distinct antecedents (depth first, on Python
integer bit sets, independently of the packed-word code it checks) and records the quantities
the bounds talk about, plus the minimum objective over each prefix's subtree ``sigma(d_p)`` and
over its strict extensions; :func:`brute_force_optimum` only keeps the best list.  Both are
exponential: use them for a handful of antecedents (they refuse more than 8).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ... import bits


@dataclasses.dataclass
class PrefixRecord:
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
    as ``mistakes / N + c * K``, exactly as :func:`rulecert.objectives.rule_list_objective`."""
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
