"""Shared input handling for rulecert's scikit-learn classifiers.

Every rule classifier takes a *binary* feature matrix (a 0/1 DataFrame or array, for
example the output of :class:`rulecert.mining.FeatureBinarizer` in a Pipeline), or raw
features when its ``binarizer`` parameter holds a transformer (cloned and fitted inside
``fit``).  Labels may be any two classes; ``classes_[1]`` is the positive class (label 1
of the underlying solvers).  Non-binary X without a binarizer, NaN, one class only and
more than two classes raise ``ValueError`` before any solver runs.

Every ``fit`` runs under :func:`rulecert.monitor.catch_interrupt`: Ctrl-C stops the solver
cleanly and the estimator ends fitted with the best model found, its certificate saying
``interrupted``, and a :class:`FitInterruptedWarning`.  ``verbose=True`` prints progress
lines on stderr and ``callback`` receives the solver's info dict
(:func:`rulecert.monitor.progress_callback`); ``memory_limit_mb="auto"`` is the default cap.
"""
from __future__ import annotations

import functools
import warnings
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import (_check_sample_weight, check_is_fitted, column_or_1d,
                                      has_fit_parameter, validate_data)

from ..checks import check_binary_matrix
from ..limits import AUTO

WATCH_CONSTRAINTS = {
    "memory_limit_mb": [None, Interval(Real, 0, None, closed="neither"), StrOptions({AUTO})],
    "verbose": ["verbose"],
    "callback": [None, callable],
}
"""Parameter constraints of ``memory_limit_mb``, ``verbose`` and ``callback`` (every estimator)."""


def interruptible(fit):
    """Decorator of every estimator's ``fit``: the whole fit (binarizing, mining, solving) runs
    under :func:`rulecert.monitor.catch_interrupt`, so Ctrl-C stops the solver cleanly; when
    the resulting ``certificate_`` says interrupted, a :class:`FitInterruptedWarning` is issued
    (the estimator is fitted with the best model found)."""
    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        from ..monitor import catch_interrupt
        with catch_interrupt():
            out = fit(self, *args, **kwargs)
        self._warn_if_interrupted(getattr(self, "certificate_", None))
        return out
    return wrapper


class FitInterruptedWarning(UserWarning):
    """A fit was stopped by Ctrl-C or by its callback: the estimator holds the best model found
    (its ``certificate_`` says ``interrupted``, with the proven bound and the gap)."""


class BinaryRuleClassifier(ClassifierMixin, BaseEstimator):
    """Base class: binary-feature input, two-class labels, plain fitted data."""

    def _store_params(self, params: dict) -> None:
        """Every estimator's ``__init__`` is ``self._store_params(locals())``: it stores each
        parameter as given, under its own name, and does nothing else (scikit-learn's
        contract: validation happens in ``fit``, ``get_params`` / ``clone`` read the
        signature)."""
        for name, value in params.items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = self._binarizer_allows_nan()
        return tags

    def _binarizer_allows_nan(self) -> bool:
        b = getattr(self, "binarizer", None)
        return b is not None and getattr(b, "missing", "error") != "error"

    # ---- X ------------------------------------------------------------------------------
    def _binary_features(self, X, reset: bool, sample_weight=None):
        """Validate X and return (bool matrix n x d, names of its binary columns).  On fit,
        ``sample_weight`` reaches the binarizer when its ``fit`` accepts it."""
        binarizer = getattr(self, "binarizer", None)
        if binarizer is None:
            Xv = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=True)
            Xb = check_binary_matrix(Xv, "X")
            if reset:
                names = (list(map(str, self.feature_names_in_)) if hasattr(self, "feature_names_in_")
                         else [f"x{j}" for j in range(Xb.shape[1])])
                self.binary_feature_names_ = names
            return Xb, self.binary_feature_names_
        is_frame = hasattr(X, "columns")
        if is_frame:
            validate_data(self, X, reset=reset, skip_check_array=True)
            if X.ndim != 2:
                raise ValueError("X must be two-dimensional")
            Xv = X
        else:
            try:
                Xv = validate_data(self, X, reset=reset, dtype="numeric", ensure_all_finite="allow-nan")
            except ValueError:
                if np.asarray(X).dtype.kind not in "OUS":
                    raise
                # string categories in an array: the binarizer one-hot encodes them
                Xv = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan")
        if reset:
            self.binarizer_ = clone(binarizer)
            if sample_weight is not None and has_fit_parameter(self.binarizer_, "sample_weight"):
                sw = _check_sample_weight(sample_weight, Xv)
                Xt = self.binarizer_.fit(Xv, sample_weight=sw).transform(Xv)
            else:
                Xt = self.binarizer_.fit_transform(Xv)
            self.binary_feature_names_ = list(map(str, self.binarizer_.get_feature_names_out()))
        else:
            Xt = self.binarizer_.transform(Xv)
        return check_binary_matrix(np.asarray(Xt), "binarized X"), self.binary_feature_names_

    # ---- y ------------------------------------------------------------------------------
    def _encode_labels(self, y, reset: bool = True) -> np.ndarray:
        """0/1 labels (1: ``classes_[1]``); on fit (``reset``) ``classes_`` is set, else y
        must hold the fitted classes only."""
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        if not reset:
            unknown = np.setdiff1d(np.unique(y), self.classes_)
            if unknown.size:
                raise ValueError(f"y has labels {unknown.tolist()} that are not among the fitted "
                                 f"classes {self.classes_.tolist()}")
            return (y == self.classes_[1]).astype(np.int8)
        classes = np.unique(y)
        if classes.shape[0] == 1:
            from ..mining.binarize import _plain
            raise ValueError(f"y contains one class only ({_plain(classes[0])!r}); "
                             f"{type(self).__name__} needs two classes")
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type != "binary":
            raise ValueError("Only binary classification is supported. The type of the target "
                             f"is {y_type} ({classes.shape[0]} classes).")
        self.classes_ = classes
        return (y == classes[1]).astype(np.int8)

    def _prepare_fit(self, X, y, sample_weight=None, reset: bool = True):
        """Validated (binary X, 0/1 y, sample_weight or None, binary feature names); with
        ``reset=False`` X and y are checked against the fitted features and classes."""
        Xb, names = self._binary_features(X, reset=reset, sample_weight=sample_weight)
        y01 = self._encode_labels(y, reset=reset)
        if y01.shape[0] != Xb.shape[0]:
            raise ValueError(f"X has {Xb.shape[0]} samples but y has {y01.shape[0]}")
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, Xb)
        return Xb, y01, sample_weight, names

    def _prepare_predict(self, X) -> np.ndarray:
        check_is_fitted(self)
        Xb, _ = self._binary_features(X, reset=False)
        return Xb

    # ---- watching the fit ------------------------------------------------------------------
    def _callback(self):
        """The solver's callback: progress lines when ``verbose``, chained to ``callback``."""
        from ..monitor import progress_callback
        return progress_callback(getattr(self, "verbose", False), getattr(self, "callback", None))

    def _warn_if_interrupted(self, *certificates) -> None:
        """A :class:`FitInterruptedWarning` when a certificate of this fit says interrupted."""
        from ..certificate import Termination
        for cert in certificates:
            if cert is not None and cert.termination is Termination.INTERRUPTED:
                warnings.warn(f"{type(self).__name__}.fit was interrupted ({cert.message or 'Ctrl-C'}):"
                              f" the estimator holds the best model found, objective "
                              f"{cert.objective}, proven bound {cert.lower_bound}",
                              FitInterruptedWarning, stacklevel=3)
                return

    # ---- prediction from a 0/1 model --------------------------------------------------------
    def _predict01(self, Xb) -> np.ndarray:
        return self._model_().predict(Xb)

    def predict(self, X):
        Xb = self._prepare_predict(X)
        return self.classes_[self._predict01(Xb)]

    # ---- scores from the fitted model's training frequencies ------------------------------
    def _model_(self):
        """The fitted model that predicts and scores samples (``rule_list_`` or ``ruleset_``)."""
        return self.rule_list_

    _text_options: dict = {}
    """Keyword arguments of the model's ``to_text`` in ``str(estimator)``."""

    def __str__(self) -> str:
        """The fitted model's text and its certificate's summary (``repr`` before ``fit``)."""
        if not hasattr(self, "certificate_"):
            return repr(self)
        return (f"{self._model_().to_text(labels=self.classes_, **self._text_options)}\n\n"
                f"{self.certificate_.summary()}")

    def predict_proba(self, X):
        """``[P(classes_[0]), P(classes_[1])]`` of each sample from the model's training
        frequencies (see the model's ``predict_proba``); ``argmax`` gives ``predict``."""
        Xb = self._prepare_predict(X)
        p1 = self._model_().predict_proba(Xb)
        return np.column_stack([1.0 - p1, p1])

    def decision_function(self, X):
        """``P(classes_[1])`` minus the model's decision threshold (1/2, or 1/(1+w) for a
        falling rule list): ranks samples as ``predict_proba`` does and is positive exactly
        where ``predict`` gives ``classes_[1]`` (so ``roc_auc`` scoring works)."""
        return self.predict_proba(X)[:, 1] - getattr(self._model_(), "threshold", 0.5)
