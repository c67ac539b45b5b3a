"""The bound arithmetic of column generation: duals, the Lagrangian bound, gap closing.

See :mod:`rulecert.mipmodels.colgen.loop` ("Lower bound", "Gap closing") for the derivation.
The functions take the loop's transformed instance ``st`` (``G``, ``P``, ``neg``, ``a``,
``C``, ``lam0``, ``lam1``, ``n_max``, ``round_bound``, ``gran``).
"""
from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Duals:
    """The restricted master LP's duals, read by name, and what pricing derives from them."""

    rmlp: float
    """``z_RMLP``: the restricted master LP's objective."""
    mu: np.ndarray
    """Duals of the cover rows (one per positive group)."""
    lam: float
    """Dual of the complexity row."""
    v: np.ndarray
    """Pricing coefficient per group: negative mass minus ``mu``."""
    const: float
    """Reduced cost of a clause's existence: ``lambda + clause_penalty``."""
    lit: float
    """Reduced cost per literal: ``lambda + literal_penalty``."""
    lagrangian: float
    """``L(mu, lambda)``, with the empty clause's ``min(0, rc)`` when it is a column."""


def read_duals(st, rmlp: float, mu: np.ndarray, lam: float, empty_clause: bool) -> Duals:
    """:class:`Duals` of an LP solution: the pricing coefficients and ``L(mu, lambda)``."""
    mu_g = np.zeros(st.G)
    mu_g[st.P] = mu
    v = st.neg - mu_g
    const, lit = lam + st.lam0, lam + st.lam1
    L = float(mu.sum() - (lam * st.C if st.C is not None else 0.0)
              + np.minimum(0.0, st.a - mu).sum())
    if empty_clause:
        # the empty clause (a master column, at most once in a solution) enters L with
        # its own reduced cost; z_CG and N below then concern the non-empty clauses only
        L += min(0.0, const + float(v.sum()))
    return Duals(rmlp, mu, lam, v, const, lit, L)


def lagrangian_bound(st, duals: Duals, zlb: float, ub: float) -> float:
    """``L + N min(0, z_CG)`` (``N`` clauses at most in a solution of objective ``<= ub``),
    rounded up when the objective is integral."""
    lb = duals.lagrangian + (st.n_max(ub) * min(0.0, zlb) if zlb < 0 else 0.0)
    return st.round_bound(lb)


def gap_closing_threshold(st, duals: Duals, zlb: float, ip_obj: float) -> float:
    """The reduced cost below which a clause can appear in a solution of objective
    ``<= ip_obj - granularity``."""
    N = st.n_max(ip_obj)
    return ip_obj - st.gran - duals.lagrangian - (N - 1) * min(0.0, zlb)
