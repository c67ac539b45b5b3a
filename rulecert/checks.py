"""Input checks shared by every layer: binary matrices and 0/1 labels.

The lowest layer of the package (it imports only numpy), so models, the problem, mining and
the solvers all validate data with the same words.
"""
from __future__ import annotations

import numpy as np


def as_binary_labels(y, n_expected: int | None = None) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {y.shape}")
    if n_expected is not None and y.shape[0] != n_expected:
        raise ValueError(f"labels have {y.shape[0]} entries but the data has {n_expected} samples")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"labels contain NaN (first at index {int(np.flatnonzero(np.isnan(y))[0])})")
    if y.dtype.kind in "biuf":
        bad = ~np.isin(y, (0, 1))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"labels must be 0/1; found {y[i].item()!r} at index {i}")
        return y.astype(np.int8)
    raise ValueError(f"labels must be 0/1 numbers, got dtype {y.dtype}")


def check_binary_matrix(X, what: str = "X") -> np.ndarray:
    """Return ``X`` as a boolean array after checking it holds only 0/1 (no NaN)."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{what} must be two-dimensional, got shape {X.shape}")
    if X.dtype == np.bool_:
        return X
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{what} must hold binary 0/1 values, got dtype {X.dtype}; "
                         "use rulecert.mining.FeatureBinarizer for raw features")
    if X.dtype.kind == "f" and np.isnan(X).any():
        r, c = np.argwhere(np.isnan(X))[0]
        raise ValueError(f"{what} contains NaN (row {r}, column {c}); binarize missing values "
                         "explicitly with rulecert.mining.FeatureBinarizer")
    if X.size and (X.min() < 0 or X.max() > 1 or X.dtype.kind == "f"
                   and not ((X == 0) | (X == 1)).all()):   # no n x d temporaries for integers
        r, c = np.argwhere(~np.isin(X, (0, 1)))[0]
        raise ValueError(f"{what} must hold binary 0/1 values; found {X[r, c].item()!r} at row {r}, "
                         f"column {c}; use rulecert.mining.FeatureBinarizer for raw features")
    return X.astype(bool)
