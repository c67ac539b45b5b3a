"""FeatureBinarizer: raw tables -> binary literals with readable names.

The binarizer turns every input column into a handful of 0/1 *literals* that the rule
learners use as building blocks:

* **binary columns** (exactly two distinct observed values ``lo < hi``, any dtype):
  ``col==hi`` and, with ``negations=True``, ``col==lo``.  For 0/1 and boolean columns this is
  ``col==1`` / ``col==0`` (``col==True`` / ``col==False``).
* **categorical columns** (object, string, category or bool dtype, or listed in
  ``categorical``) with three or more values: one-hot ``col==v`` for each observed value ``v``
  and, with ``negations=True``, ``col!=v``.  A constant column of any dtype gives ``col==v``
  (and ``col!=v``).
* **numeric columns**: thresholds ``t`` and literals ``col<=t`` and, with ``negations=True``,
  ``col>t``.  If the column has at most ``n_thresholds + 1`` distinct values the thresholds
  are its sorted distinct values without the largest; otherwise they are the distinct sample
  quantiles at ``1/(k+1), ..., k/(k+1)`` (``k = n_thresholds``; pandas' linear interpolation),
  i.e. deciles for the default ``k = 9``.

This reproduces AIX360's ``FeatureBinarizer(numThresh=9, negations=True)`` -- the protocol
of Dash, Günlük & Wei (NeurIPS 2018, "decile thresholds and negations") -- except that a
constant column yields an always-true ``col==v`` (AIX360 emits an always-false unnamed one).
Unlike AIX360 the negations are on by default, since the paper's protocol uses them.

Missing values are handled explicitly (``missing=``):

* ``"error"`` (default): ``fit`` and ``transform`` raise ``ValueError`` naming the column and
  the number of missing cells.
* ``"indicator"``: a column with missing values at fit time gets a literal ``col is missing``
  (and ``col is not missing`` with negations); on a missing row *every other literal of that
  column is 0* (including ``col>t`` and ``col!=v``).  At transform time a missing value in a
  column that had none at fit time also sets all that column's literals to 0 (there is no
  indicator literal to carry it).
* ``"category"``: as ``"indicator"`` for numeric columns; for categorical and binary columns a
  missing value is one more category, so ``col!=v`` literals are 1 on missing rows.

Values not seen at fit time (``handle_unknown="ignore"``, the default) make all ``col==v``
literals of that column 0 and all ``col!=v`` literals 1 (the value is indeed different from
every ``v``); ``handle_unknown="error"`` raises ``ValueError`` naming the column and values.
Numeric columns compare any number with their thresholds, so "unknown" concerns only
categorical and binary columns.

The output of ``transform`` is a pandas DataFrame of ``uint8`` 0/1 with one column per literal;
``literals_`` (and ``FeatureBinarizer.literal_info``) records for each output column its
source column, operator and value, so a rule over literals can be printed with real names.
"""
from __future__ import annotations

import json
from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_array, check_is_fitted, validate_data

from ..models.antecedent import literal_text

__all__ = ["FeatureBinarizer"]

_MISSING_OP = "is missing"
_NOT_MISSING_OP = "is not missing"


def _decimals(v: float) -> int:
    """Decimal places of ``v`` as written (``np.format_float_positional``), at most 12."""
    txt = np.format_float_positional(float(v), trim="-")
    return min(len(txt.partition(".")[2]), 12)


def _round_thresholds(th: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Thresholds at the data's precision: each rounded to one decimal more than the data
    has (25.5 for integer ages, not 25.500000001), more only where rounding would move a
    training value across it, so the binarized training data are unchanged."""
    uniq = np.unique(values)
    d0 = max((_decimals(v) for v in uniq[:1000]), default=0) + 1
    out = []
    for t in th:
        below = int(np.searchsorted(uniq, t, side="right"))     # values <= t
        r = t
        for d in range(d0, 13):
            r = round(float(t), d)
            if int(np.searchsorted(uniq, r, side="right")) == below:
                break
        else:
            r = float(f"{t:.12g}")
        out.append(r)
    return np.unique(np.asarray(out, dtype=float))


def _plain(v):
    """JSON-ready Python values: numpy scalars and arrays, tuples and dicts inside; NaN as
    None, infinities as "inf"; other objects as their ``value`` (enums) or text."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_plain(x) for x in v]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return None if np.isnan(v) else ("inf" if v > 0 else "-inf")
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return getattr(v, "value", str(v))


def _sorted_values(values) -> list:
    vals = list(values)
    try:
        return sorted(vals)
    except TypeError:  # mixed types in an object column
        return sorted(vals, key=lambda v: (type(v).__name__, str(v)))


def _is_categorical_dtype(s: pd.Series) -> bool:
    dt = s.dtype
    return (isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dt)
            or pd.api.types.is_object_dtype(dt) or pd.api.types.is_string_dtype(dt))


def _as_frame(X) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        if X.ndim != 2:
            raise ValueError(f"Expected 2D data, got shape {X.shape}")
        return X
    X = check_array(X, dtype=None, ensure_all_finite=False, ensure_2d=True,
                    ensure_min_samples=1, ensure_min_features=1)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])


def _weighted_linear_quantile(values: np.ndarray, weights: np.ndarray, q: np.ndarray) -> np.ndarray:
    """pandas' linear-interpolation quantiles of the data in which each value is repeated
    ``weight`` times (exact for integer weights): position ``h = (N - 1) q`` with
    ``N = sum(weights)``, the element at a position read off the cumulative weights."""
    order = np.argsort(values, kind="stable")
    v, w = values[order], weights[order]
    cw = np.cumsum(w)
    h = (cw[-1] - 1.0) * np.asarray(q, dtype=float)
    lo = np.floor(h)

    def at(pos):
        return v[np.minimum(np.searchsorted(cw, pos, side="right"), len(v) - 1)]

    return at(lo) + (h - lo) * (at(lo + 1) - at(lo))


class FeatureBinarizer(TransformerMixin, BaseEstimator):
    """Binarize categorical and numeric columns into named 0/1 literals.

    Parameters
    ----------
    n_thresholds : int, default=9
        Number of quantile thresholds for numeric columns (9 = deciles).
    negations : bool, default=True
        Also emit the negated literals: ``col>t`` for numeric, ``col!=v`` for categorical,
        ``col==lo`` for binary columns and ``col is not missing`` for indicators.
    categorical : list of column names, default=None
        Columns to one-hot encode even though they are numeric.
    missing : {"error", "indicator", "category"}, default="error"
        How missing values (NaN/None/pd.NA) are handled; see the module docstring.
    handle_unknown : {"ignore", "error"}, default="ignore"
        What to do with categorical/binary values not seen during ``fit``.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.
    columns_ : list of str
        Input column names (``x0, x1, ...`` for arrays without names).
    kinds_ : dict
        Column -> ``"binary"``, ``"categorical"`` or ``"numeric"``.
    thresholds_ : dict
        Numeric column -> sorted array of thresholds.
    categories_ : dict
        Binary/categorical column -> list of observed values (sorted).
    missing_columns_ : list of str
        Columns with an ``is missing`` literal.
    literals_ : list of (column, operator, value)
        Definition of each output column; operator is one of ``==, !=, <=, >, is missing,
        is not missing`` (value ``None`` for the last two).
    feature_names_out_ : ndarray of str
        Output column names such as ``age<=25.5``, ``sex==Female``, ``sex!=Female``.
    """

    _parameter_constraints: dict = {
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "negations": ["boolean"],
        "categorical": [list, tuple, None],
        "missing": [StrOptions({"error", "indicator", "category"})],
        "handle_unknown": [StrOptions({"ignore", "error"})],
    }

    def __init__(self, n_thresholds=9, negations=True, categorical=None, missing="error",
                 handle_unknown="ignore"):
        self.n_thresholds = n_thresholds
        self.negations = negations
        self.categorical = categorical
        self.missing = missing
        self.handle_unknown = handle_unknown

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = self.missing != "error"
        tags.transformer_tags.preserves_dtype = []
        return tags

    # ------------------------------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None, *, check=None):
        """Learn the literals (thresholds, categories, missing indicators) from ``X``.

        With ``sample_weight``, rows of weight 0 are ignored and a row of integer weight k
        counts as k repeated rows (the quantiles are those of the repeated data; real weights
        extend this through the cumulative weights).  ``check(detail)``
        (:func:`rulecert.monitor.stop_check`), if given, is asked before each column and
        raises to stop."""
        df = _as_frame(X)
        validate_data(self, X, reset=True, skip_check_array=True)
        if df.shape[0] < 1:
            raise ValueError(f"Found array with 0 sample(s) (shape={df.shape}) while a "
                             "minimum of 1 is required by FeatureBinarizer.")
        if sample_weight is not None:
            sw = _check_sample_weight(sample_weight, np.empty((df.shape[0], 0)))
            if not (sw > 0).any():
                raise ValueError("sample_weight is zero everywhere: nothing to binarize")
            if not (sw > 0).all():
                df = df[sw > 0]
                sw = sw[sw > 0]
        else:
            sw = None
        columns = [str(c) for c in df.columns]
        if len(set(columns)) != len(columns):
            dup = sorted({c for c in columns if columns.count(c) > 1})
            raise ValueError(f"duplicate column names: {dup}")
        cat_cols = set() if self.categorical is None else {str(c) for c in self.categorical}
        unknown = cat_cols - set(columns)
        if unknown:
            raise ValueError(f"categorical columns not in X: {sorted(unknown)}")

        if self.missing == "error":
            counts = {c: int(df[col].isna().sum()) for c, col in zip(columns, df.columns)}
            bad = {c: k for c, k in counts.items() if k}
            if bad:
                c, k = next(iter(bad.items()))
                raise ValueError(
                    f"column {c!r} has {k} missing (NaN) value(s)"
                    + (f" (columns with missing values: {bad})" if len(bad) > 1 else "")
                    + "; choose FeatureBinarizer(missing='indicator') or missing='category', "
                    "or impute them first")

        kinds, thresholds, categories, missing_cols = {}, {}, {}, []
        literals: list[tuple[str, str, object]] = []
        q = np.linspace(1.0 / (self.n_thresholds + 1), self.n_thresholds / (self.n_thresholds + 1),
                        self.n_thresholds)
        for c, col in zip(columns, df.columns):
            if check is not None:
                check(f" (column {c!r})")
            s = df[col]
            miss = s.isna()
            observed = s[~miss]
            w_obs = None if sw is None else sw[~miss.to_numpy()]
            values = _sorted_values(pd.unique(observed))
            if len(values) == 0:
                raise ValueError(f"column {c!r} has no observed (non-missing) values")
            numeric = pd.api.types.is_numeric_dtype(s.dtype) and not _is_categorical_dtype(s)
            if numeric:
                vals = observed.to_numpy(dtype=float)
                if not np.isfinite(vals).all():
                    raise ValueError(f"column {c!r} contains infinite values")
            if len(values) == 2:
                kind = "binary"
                categories[c] = values
                lo, hi = values
                literals.append((c, "==", hi))
                if self.negations:
                    literals.append((c, "==", lo))
            elif len(values) == 1 or c in cat_cols or not numeric:
                kind = "categorical"
                categories[c] = values
                literals.extend((c, "==", v) for v in values)
                if self.negations:
                    literals.extend((c, "!=", v) for v in values)
            else:
                kind = "numeric"
                if len(values) <= self.n_thresholds + 1:
                    th = np.asarray(values, dtype=float)[:-1]
                else:
                    th = (pd.Series(vals).quantile(q).to_numpy(dtype=float) if w_obs is None
                          else _weighted_linear_quantile(vals, w_obs, q))
                    # at the data's precision (58.50000000000001 -> 58.5), distinct ones
                    th = _round_thresholds(th, vals)
                thresholds[c] = th
                literals.extend((c, "<=", float(t)) for t in th)
                if self.negations:
                    literals.extend((c, ">", float(t)) for t in th)
            kinds[c] = kind
            if miss.any():  # only reachable when missing != "error"
                missing_cols.append(c)
                literals.append((c, _MISSING_OP, None))
                if self.negations:
                    literals.append((c, _NOT_MISSING_OP, None))

        names = [self._literal_name(*lit) for lit in literals]
        if len(set(names)) != len(names):
            dup = sorted({nm for nm in names if names.count(nm) > 1})
            raise ValueError(f"binarized feature names are not unique: {dup[:5]}; rename the "
                             "input columns or values")
        self.columns_ = columns
        self.kinds_ = kinds
        self.thresholds_ = thresholds
        self.categories_ = categories
        self.missing_columns_ = missing_cols
        self.literals_ = literals
        self.feature_names_out_ = np.asarray(names, dtype=object)
        return self

    @staticmethod
    def _literal_name(col: str, op: str, value) -> str:
        return literal_text(col, op, value)

    # ------------------------------------------------------------------------------------
    def transform(self, X, *, check=None):
        """Binary DataFrame (uint8) with one column per literal, same index as ``X``;
        ``check(detail)`` as in :meth:`fit`, asked before each literal."""
        check_is_fitted(self, "literals_")
        df = _as_frame(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        index = df.index
        df = df.set_axis([str(c) for c in df.columns], axis=1)
        missing_in = [c for c in self.columns_ if c not in df.columns]
        if missing_in:
            raise ValueError(f"X lacks the fitted columns {missing_in}")
        if self.missing == "error":
            for c in self.columns_:
                k = int(df[c].isna().sum())
                if k:
                    raise ValueError(f"column {c!r} has {k} missing (NaN) value(s); the binarizer "
                                     "was fitted with missing='error'")

        n = df.shape[0]
        out = np.zeros((n, len(self.literals_)), dtype=np.uint8)
        col_of = {}
        for j, (c, _, _) in enumerate(self.literals_):
            col_of.setdefault(c, []).append(j)
        for c in self.columns_:
            s = df[c]
            miss = s.isna().to_numpy()
            kind = self.kinds_[c]
            if pd.api.types.is_numeric_dtype(s.dtype) and not _is_categorical_dtype(s):
                if np.isinf(s.to_numpy(dtype=float, na_value=np.nan)).any():
                    raise ValueError(f"column {c!r} contains infinite values")
            if kind == "numeric":
                if not (pd.api.types.is_numeric_dtype(s.dtype) and not _is_categorical_dtype(s)):
                    try:
                        s = pd.to_numeric(s)
                    except (ValueError, TypeError):
                        raise ValueError(f"column {c!r} was numeric at fit time but holds "
                                         f"non-numeric values now (dtype {s.dtype})") from None
                v = s.to_numpy(dtype=float, na_value=np.nan)
                if not np.isfinite(v[~miss]).all():
                    raise ValueError(f"column {c!r} contains infinite values")
            else:
                known = s.isin(self.categories_[c]).to_numpy() | miss
                if not known.all():
                    if self.handle_unknown == "error":
                        bad = _sorted_values(pd.unique(s[~known]))
                        raise ValueError(f"column {c!r} has values not seen during fit: "
                                         f"{_plain(bad[:10])}")
            for j in col_of[c]:
                _, op, val = self.literals_[j]
                if check is not None:
                    check(f" (column {c!r})")
                if op == _MISSING_OP:
                    lit = miss
                elif op == _NOT_MISSING_OP:
                    lit = ~miss
                elif op == "<=":
                    with np.errstate(invalid="ignore"):
                        lit = (v <= val) & ~miss
                elif op == ">":
                    with np.errstate(invalid="ignore"):
                        lit = (v > val) & ~miss
                elif op == "==":
                    lit = (s == val).fillna(False).to_numpy(dtype=bool) & ~miss
                else:  # "!="
                    lit = ~(s == val).fillna(False).to_numpy(dtype=bool)
                    if not (self.missing == "category" and c in self.missing_columns_):
                        lit &= ~miss
                out[:, j] = lit
        return pd.DataFrame(out, index=index, columns=list(self.feature_names_out_))

    def get_feature_names_out(self, input_features=None):
        """Names of the output literals (``input_features`` is checked, then ignored)."""
        check_is_fitted(self, "literals_")
        if input_features is not None:
            input_features = [str(c) for c in input_features]
            if list(input_features) != list(self.columns_):
                raise ValueError("input_features is not equal to the fitted column names")
        return self.feature_names_out_.copy()

    # ---- JSON ---------------------------------------------------------------------------
    def literal_dicts(self) -> list[dict]:
        """Each output column as ``{"feature", "op", "value", "text"}`` (``value`` None for
        the missing indicators)."""
        check_is_fitted(self, "literals_")
        return [{"feature": c, "op": op, "value": _plain(v), "text": str(nm)}
                for (c, op, v), nm in zip(self.literals_, self.feature_names_out_)]

    def to_dict(self) -> dict:
        """The fitted binarizer as plain JSON data (``from_dict`` restores it)."""
        check_is_fitted(self, "literals_")
        d = {"type": "FeatureBinarizer", "params": _plain(self.get_params()),
             "n_features_in": int(self.n_features_in_), "columns": list(self.columns_),
             "kinds": dict(self.kinds_),
             "thresholds": {c: [float(t) for t in th] for c, th in self.thresholds_.items()},
             "categories": {c: _plain(list(v)) for c, v in self.categories_.items()},
             "missing_columns": list(self.missing_columns_),
             "literals": self.literal_dicts()}
        if hasattr(self, "feature_names_in_"):
            d["feature_names_in"] = [str(c) for c in self.feature_names_in_]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "FeatureBinarizer":
        if not isinstance(d, dict) or d.get("type") != "FeatureBinarizer":
            got = d.get("type") if isinstance(d, dict) else type(d).__name__
            raise ValueError(f"not a FeatureBinarizer document (type={got!r})")
        try:
            fb = cls(**d["params"])
            fb.n_features_in_ = int(d["n_features_in"])
            if d.get("feature_names_in") is not None:
                fb.feature_names_in_ = np.asarray(d["feature_names_in"], dtype=object)
            fb.columns_ = [str(c) for c in d["columns"]]
            fb.kinds_ = dict(d["kinds"])
            fb.thresholds_ = {c: np.asarray(v, dtype=float) for c, v in d["thresholds"].items()}
            fb.categories_ = {c: list(v) for c, v in d["categories"].items()}
            fb.missing_columns_ = list(d["missing_columns"])
            fb.literals_ = [(lit["feature"], lit["op"], lit["value"]) for lit in d["literals"]]
            fb.feature_names_out_ = np.asarray([lit["text"] for lit in d["literals"]], dtype=object)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed FeatureBinarizer document: missing or bad {exc}") from None
        return fb

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, s: str) -> "FeatureBinarizer":
        return cls.from_dict(json.loads(s))

    def literal_info(self) -> pd.DataFrame:
        """One row per output literal: ``feature``, ``operator``, ``value`` (index = name)."""
        check_is_fitted(self, "literals_")
        return pd.DataFrame(self.literals_, columns=["feature", "operator", "value"],
                            index=pd.Index(self.feature_names_out_, name="literal"))
