"""The pricing problem of column generation: one instance, one result, and the cheap bound.

See :mod:`rulecert.mipmodels.colgen.pricing` for the reduced cost these instances hold.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ....certificate import Termination


@dataclasses.dataclass
class PricingInstance:
    """One pricing problem.

    ``X`` (G x d, bool) are the binary features of the groups, ``v`` their coefficients
    (already multiplied by ``data_scale`` for sampled instances); ``features[j]`` is the
    original column of local column ``j``.  ``exact`` says whether the instance is the
    full problem (only then are its lower bounds valid for the master).
    """

    X: np.ndarray
    v: np.ndarray
    const: float
    lit: float
    max_length: int
    features: np.ndarray
    exact: bool = True

    def __post_init__(self):
        self.X = np.ascontiguousarray(self.X, dtype=bool)
        self.v = np.asarray(self.v, dtype=float)
        self._Xf = self._XT = None

    @property
    def Xf(self) -> np.ndarray:
        if self._Xf is None:
            self._Xf = self.X.astype(np.float64)
        return self._Xf

    @property
    def XT(self) -> np.ndarray:
        """``X.T`` contiguous (literal ``j``'s coverage is row ``j``), shared by the pricers
        that run on this instance."""
        if self._XT is None:
            self._XT = np.ascontiguousarray(self.X.T)
        return self._XT

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def fixed(self, length) -> float:
        return self.const + self.lit * length

    def coverage(self, clause) -> np.ndarray:
        cov = np.ones(self.X.shape[0], dtype=bool)
        for j in clause:
            cov &= self.X[:, j]
        return cov

    def reduced_cost(self, clause) -> float:
        return self.fixed(len(clause)) + float(self.v[self.coverage(clause)].sum())


@dataclasses.dataclass
class PricingResult:
    """What a pricer returns: the improving clauses found, their reduced costs and a bound."""

    clauses: list[tuple[int, ...]]
    """Clauses (local column indices) with reduced cost below the threshold, best first."""
    reduced_costs: list[float]
    bound: float
    """A lower bound on the minimum reduced cost over all clauses of length 1..D of this
    instance (valid for the master only if the instance is exact); -inf if none."""
    complete: bool = False
    """The search was exhaustive (the bound is the exact minimum, up to the threshold)."""
    method: str = ""
    termination: Termination | None = None
    wall_time: float = 0.0
    generated: int = 0
    message: str = ""
    best_clause: tuple[int, ...] | None = None
    """The best clause seen, negative or not (used as a CP-SAT hint)."""


# ---- instance construction ----------------------------------------------------------------
def make_instance(X: np.ndarray, v: np.ndarray, const: float, lit: float, max_length: int, *,
                  rng: np.random.Generator | None = None, sample_rows: int | None = None,
                  max_nonzeros: int | None = None) -> PricingInstance:
    """The full pricing instance, or the paper's randomized approximation (Sec. 3): groups
    are sampled uniformly to about ``sample_rows`` (their coefficients divided by the
    sampling probability, so the data term stays unbiased) and, if the formulation still has
    more than ``max_nonzeros`` non-zeros (zero entries of the sampled feature matrix), the
    candidate features are sampled too."""
    G, d = X.shape
    rows = np.arange(G)
    feats = np.arange(d)
    exact = True
    vv = v
    if rng is not None and sample_rows is not None and G > sample_rows:
        p = sample_rows / G
        keep = rng.random(G) < p
        if not keep.any():
            keep[rng.integers(G)] = True
        rows = np.flatnonzero(keep)
        vv = v[rows] / p
        exact = False
    Xs = X[rows]
    if rng is not None and max_nonzeros is not None:
        nnz = int((~Xs).sum())
        if nnz > max_nonzeros and d > max_length:
            q = max_nonzeros / nnz
            keepf = rng.random(d) < q
            if keepf.sum() < max_length:
                keepf[rng.choice(d, size=max_length, replace=False)] = True
            feats = np.flatnonzero(keepf)
            Xs = Xs[:, feats]
            exact = False
    return PricingInstance(Xs, vv, const, lit, int(max_length), feats, exact)


# ---- cheap bound ------------------------------------------------------------------------
def single_literal_bound(inst: PricingInstance) -> float:
    """``const + lit + min_j sum_{g covered by j} min(v_g, 0)``: a valid lower bound on the
    reduced cost of every clause (each covers a subset of any one literal's coverage and
    has at least one literal)."""
    if inst.n_features == 0:
        return math.inf
    vneg = np.minimum(inst.v, 0.0)
    return inst.fixed(1) + float((vneg @ inst.Xf).min())
