"""Grouping identical rows of a large binary table: the packed sort of
:func:`rulecert.problem.unique_rows` (what ``RuleProblem.groups`` runs) against the
``np.unique(D, axis=0, return_inverse=True)`` it replaced, measured in the same run.

    PYTHONPATH=. python experiments/bench_prep.py [--rows 200000 2000000] [--cols 60 1500]

The table: ``rows`` x ``cols`` random binary features drawn from a pool of ``rows // 20``
distinct rows (many duplicates, as the antecedent captures of a mined table have).  Both
methods must give the same rows, inverse and counts; the script checks it.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from rulecert.problem import RuleProblem, unique_rows


def old_method(D):
    """The reference: what ``RuleProblem.groups`` ran before."""
    rows, inverse, counts = np.unique(D, axis=0, return_inverse=True, return_counts=True)
    return rows, inverse.reshape(-1), counts


def table(rows: int, cols: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pool = rng.random((max(1, rows // 20), cols)) < 0.3
    return pool[rng.integers(0, len(pool), rows)]


def timed(f, *a):
    t = time.perf_counter()
    out = f(*a)
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[200_000, 2_000_000])
    ap.add_argument("--cols", type=int, nargs="+", default=[60, 1500])
    a = ap.parse_args()
    print(f"{'rows':>10} {'cols':>5} {'groups':>8} {'old s':>8} {'packed s':>9} {'ratio':>7}"
          f" {'groups() s':>10}")
    for n, cols in ((n, cols) for cols in a.cols for n in a.rows):
        if n * cols > 4e8:
            continue                    # over 400 MB of booleans: left out
        D = table(n, cols)
        ref, t_old = timed(old_method, D)
        new, t_new = timed(unique_rows, D)
        assert all(np.array_equal(x, y) for x, y in zip(ref, new)), "outputs differ"
        y = (np.arange(n) % 3 == 0).astype(np.int8)
        problem = RuleProblem.from_matrix(D, y)
        _, t_groups = timed(lambda: problem.groups)
        print(f"{n:>10,} {cols:>5} {len(new[0]):>8,} {t_old:>8.2f} {t_new:>9.3f} "
              f"{t_old / t_new:>6.0f}x {t_groups:>10.3f}")


if __name__ == "__main__":
    main()
