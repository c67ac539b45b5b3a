"""Effort levels: the budgets a solve uses where its caller set none.

``effort="fast" | "default" | "certify"`` (as python-mip's ``emphasis``) chooses the budgets of
the steps at once instead of one option per budget:

* ``"fast"`` -- the paper's bound only (no per-iteration bound search), a small final bound
  search, gap closing and polishing on small budgets: for fits whose certificate matters less
  than their time, e.g. inside cross-validation;
* ``"default"`` -- the defaults of :class:`~.options.ColGenOptions`;
* ``"certify"`` -- counted work only, sized to the data (:func:`certify_settings`): exact
  pricing by branch-and-bound, no wall-clock limit per pricing call (the same result on every
  machine for a given number of workers), the dive, the positive-side proof and the
  error-free cover LP switched on, and node budgets large enough that pricing can prove the
  LP optimal on the shared datasets.  A node costs time proportional to the rows, so budgets
  are given per :data:`ROWS_PER_BUDGET` rows and scaled down on larger data (still counts,
  never the clock).

Options a caller sets explicitly override the level's.
"""
from __future__ import annotations

from numbers import Integral

from ...limits import EFFORTS

ROWS_PER_BUDGET = 2000
"""Node budgets of ``"certify"`` are per this many rows."""
MIN_NODES = 1000
"""The least node budget, however large the data."""
MIN_KICKS = 50
"""The least number of polishing kicks, however large the data (a kick costs time
proportional to the rows too)."""

FAST = dict(bound_search_steps=0, final_bound_nodes=500_000, close_gap_columns=2_000,
            close_gap_nodes=2_000_000, polish_kicks=20)
"""The budgets of ``effort="fast"``."""


def scaled_nodes(nodes: int, rows: int) -> int:
    """``nodes`` per :data:`ROWS_PER_BUDGET` rows on data of ``rows`` rows (at least
    :data:`MIN_NODES`; never more than ``nodes``, so 0, a part switched off, stays 0)."""
    if isinstance(rows, bool) or not isinstance(rows, Integral) or rows < 1:
        raise ValueError(f"rows must be an integer >= 1, got {rows!r}")
    return min(int(nodes), max(MIN_NODES, int(nodes * min(1.0, ROWS_PER_BUDGET / int(rows)))))


def certify_settings(rows: int, *, max_iter: int = 100, bnb_nodes: int = 30_000_000,
                     ip_nodes: int = 500, gap_columns: int = 100_000,
                     gap_nodes: int = 100_000_000, bound_nodes: int = 1_000_000,
                     final_bound_nodes: int = 100_000_000, dive_nodes: int = 5_000_000,
                     polish_kicks: int = 2000, positive_side_cover_lps: int = 500_000,
                     error_free_cover_lps: int = 500_000) -> dict:
    """The options of ``effort="certify"`` on ``rows`` rows, budgets given per
    :data:`ROWS_PER_BUDGET` rows (``experiments/brcg_bounds.py`` passes its own): ``max_iter``
    iterations, branch-and-bound pricing of ``bnb_nodes`` nodes per call, ``ip_nodes``
    restricted-IP nodes, gap closing up to ``gap_columns`` clauses with ``gap_nodes`` nodes in
    all, the per-iteration bound search at ``bound_nodes`` per call and the final one at
    ``final_bound_nodes`` in all, the dive's pricing at ``dive_nodes`` nodes in all,
    ``polish_kicks`` kicks of polishing (at least :data:`MIN_KICKS`), and the cover LPs of the
    positive-side proof and of the error-free cover LP bound."""
    return dict(max_iter=max_iter, pricers="bnb", pricing_nodes=scaled_nodes(bnb_nodes, rows),
                adaptive_chain=True, pricing_seconds=None, pricing_deterministic_time=5.0,
                ip_nodes=ip_nodes, close_gap=True, close_gap_columns=gap_columns,
                close_gap_nodes=scaled_nodes(gap_nodes, rows),
                bound_nodes=scaled_nodes(bound_nodes, rows),
                final_bound_nodes=scaled_nodes(final_bound_nodes, rows), dive=True,
                dive_nodes=scaled_nodes(dive_nodes, rows),
                positive_side_cover_lps=scaled_nodes(positive_side_cover_lps, rows),
                error_free_cover_lps=scaled_nodes(error_free_cover_lps, rows),
                polish_kicks=max(MIN_KICKS, polish_kicks * ROWS_PER_BUDGET
                                 // max(ROWS_PER_BUDGET, int(rows))))


def effort_settings(effort: str, rows: int | None = None) -> dict:
    """The options of an effort level (``"certify"`` needs the data's ``rows``)."""
    if effort not in EFFORTS:
        raise ValueError(f"effort must be one of {', '.join(map(repr, EFFORTS))}, got {effort!r}")
    if effort == "fast":
        return dict(FAST)
    if effort == "certify":
        if rows is None:
            raise ValueError("effort='certify' sizes its budgets to the data: give rows")
        return certify_settings(rows)
    return {}
