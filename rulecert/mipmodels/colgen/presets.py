"""Limits of a certification run: counted work only, sized to the data.

:func:`certification_options` gives the :class:`~.options.ColGenOptions` fields with which
``experiments/brcg_bounds.py`` measures certified gaps and ``rulecert brcg --certify`` fits:
exact pricing by branch-and-bound, no wall-clock limit anywhere (the same result on every
machine for a given number of workers), node budgets large enough that pricing can prove
the LP optimal on the shared datasets, and gap closing with a large cap.  A node costs time
proportional to the rows, so node budgets are given per :data:`ROWS_PER_BUDGET` rows and
scaled down on larger data (still counts, never the clock).  The estimators take them too:
``BooleanRuleCGClassifier(complexity_bound=10, **certification_options(len(X)))``.
"""
from __future__ import annotations

from numbers import Integral

ROWS_PER_BUDGET = 2000
"""Node budgets are per this many rows (``experiments/brcg_bounds.py``'s unit)."""
MIN_NODES = 1000
"""The least node budget, however large the data."""
MIN_KICKS = 50
"""The least number of polishing kicks, however large the data (a kick costs time
proportional to the rows too)."""


def scaled_nodes(nodes: int, rows: int) -> int:
    """``nodes`` per :data:`ROWS_PER_BUDGET` rows on data of ``rows`` rows (at least
    :data:`MIN_NODES`; never more than ``nodes``, so 0, a part switched off, stays 0)."""
    if isinstance(rows, bool) or not isinstance(rows, Integral) or rows < 1:
        raise ValueError(f"rows must be an integer >= 1, got {rows!r}")
    return min(int(nodes), max(MIN_NODES, int(nodes * min(1.0, ROWS_PER_BUDGET / int(rows)))))


def certification_options(rows: int, *, max_iter: int = 100, bnb_nodes: int = 30_000_000,
                          ip_nodes: int = 500, gap_columns: int = 100_000,
                          gap_nodes: int = 100_000_000,
                          bound_nodes: int = 1_000_000,
                          final_bound_nodes: int = 100_000_000,
                          dive_nodes: int = 5_000_000, polish_iterations: int = 2000,
                          positive_side_nodes: int = 500_000,
                          error_free_lp_nodes: int = 500_000) -> dict:
    """The column-generation limits of a certification run on ``rows`` rows (node counts
    per :data:`ROWS_PER_BUDGET` rows): ``max_iter`` iterations, branch-and-bound pricing of
    ``bnb_nodes`` nodes per call, ``ip_nodes`` restricted-IP nodes, gap closing up to
    ``gap_columns`` clauses with ``gap_nodes`` nodes in all, the per-iteration bound search at
    ``bound_nodes`` per call and the last one at ``final_bound_nodes`` in all, and the
    column-generation dive (``ColGenOptions.dive``) before the restricted IP, its pricing
    at ``dive_nodes`` branch-and-bound nodes in all, and ``polish_iterations`` kicks of the
    polishing search (``ColGenOptions.polish``) after it, per :data:`ROWS_PER_BUDGET` rows
    too (at least :data:`MIN_KICKS`), and the positive-side pricing proof at the end of a solve
    whose gap is open (``ColGenOptions.positive_side_node_limit``), ``positive_side_nodes``
    cover LPs per :data:`ROWS_PER_BUDGET` rows, and the error-free cover LP bound
    (``ColGenOptions.error_free_lp_node_limit``), ``error_free_lp_nodes`` cover LPs of its
    proofs per :data:`ROWS_PER_BUDGET` rows (tried only where the bound is below one error's
    weight; in a 300 s fit it proves the error on ionosphere at C = 15 in 17 s, at C = 20 in
    66-70 s by a subset of the positive groups (three runs of three), and on wdbc at C = 20 in
    44 s: see the README).

    Pricing's budget was 10^8 nodes, as gap closing's still is.  Measured on 2 workers
    (``experiments/brcg_bounds.py``, the 9 shared datasets but bank-full at C = 10 and 20):
    with 3 x 10^7 every one of the 18 fits has the same objective and bound, and the fits
    whose last pricing call ran to its node limit (there, finding and proving nothing) are
    faster: wdbc at C = 10 269 s against 343 s, ILPD at C = 20 297 s against 335-412 s, pima
    at C = 10 127 s against 199 s."""
    bnb = scaled_nodes(bnb_nodes, rows)
    return dict(max_iter=max_iter, pricing="bnb", bnb_node_limit=bnb, adaptive_chain=True,
                time_limit=None,
                pricing_time_limit=None, pricing_deterministic_time=5.0,
                ip_node_limit=ip_nodes, close_gap=True, close_gap_max_columns=gap_columns,
                close_gap_node_limit=scaled_nodes(gap_nodes, rows),
                bound_node_limit=scaled_nodes(bound_nodes, rows),
                final_bound_node_limit=scaled_nodes(final_bound_nodes, rows), dive=True,
                dive_node_limit=scaled_nodes(dive_nodes, rows),
                positive_side_node_limit=scaled_nodes(positive_side_nodes, rows),
                error_free_lp_node_limit=scaled_nodes(error_free_lp_nodes, rows),
                polish_iterations=max(MIN_KICKS, polish_iterations * ROWS_PER_BUDGET
                                      // max(ROWS_PER_BUDGET, int(rows))))
