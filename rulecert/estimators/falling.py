"""Falling and softly falling rule list classifiers (Chen & Rudin, AISTATS 2018).

Antecedents are mined by FP-growth separately within the positives and within the negatives
(:func:`rulecert.mining.fpgrowth.mine_fpgrowth`: at most ``max_predicates`` literals, support
at least ``min_support`` of one class).  The list is then learned by

* ``method="monte_carlo"``: Algorithm FRL / softFRL (seeded by ``random_state``);
* ``method="exact"``: the certified branch-and-bound;
* ``method="both"`` (default): Monte-Carlo first, its list seeding the branch-and-bound

(all three through :func:`rulecert.search.falling.solve`).

``time_limit`` bounds the whole fit; a limit-stopped exact search keeps its incumbent and
reports the proven bound and gap in ``certificate_``.  ``predict_proba`` gives each sample
the probability of the rule that captures it; ``predict`` is 1 when that probability exceeds
1/(1+w).  An antecedent set that captures nothing gives the valid trivial list (else clause
only).
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ..limits import DEFAULT_MEMORY_LIMIT_MB, DEFAULT_SEED, DEFAULT_TIME_LIMIT
from ._base import WATCH_CONSTRAINTS, BinaryRuleClassifier, interruptible

METHODS = ("monte_carlo", "exact", "both")


class _FallingBase(BinaryRuleClassifier):
    _program = "frl"

    _parameter_constraints = {
        "w": [Interval(Real, 0, None, closed="neither")],
        "C": [Interval(Real, 0, None, closed="left")],
        "max_predicates": [Interval(Integral, 1, None, closed="left")],
        "min_support": [Interval(Real, 0, 1, closed="both")],
        "method": [StrOptions(set(METHODS))],
        "iterations": [None, Interval(Integral, 1, None, closed="left")],
        "prob_terminate": [Interval(Real, 0, 1, closed="left")],
        "lam": [Interval(Real, 0, 1, closed="both")],
        "max_length": [None, Interval(Integral, 0, None, closed="left")],
        "time_limit": [None, Interval(Real, 0, None, closed="neither")],
        "node_limit": [None, Interval(Integral, 1, None, closed="left")],
        "random_state": [None, Interval(Integral, 0, None, closed="left")],
        "binarizer": "no_validation",
        **WATCH_CONSTRAINTS,
    }

    def _C1(self):
        return None

    @interruptible
    def fit(self, X, y):
        from ..limits import Deadline
        from ..mining.fpgrowth import mine_fpgrowth
        from ..search.falling import solve

        self._validate_params()
        deadline = Deadline(self.time_limit)  # bounds the whole fit, mining included
        Xb, y01, _, names = self._prepare_fit(X, y)
        aset = mine_fpgrowth(Xb, y01, names, max_predicates=self.max_predicates,
                             min_support=self.min_support)
        problem = aset.to_problem(y01)
        sol = solve(problem, self._program, self.w, self.C, self._C1(), method=self.method,
                    iterations=self.iterations, prob_terminate=self.prob_terminate, lam=self.lam,
                    seed=self.random_state, max_length=self.max_length,
                    node_limit=self.node_limit, deadline=deadline,
                    memory_limit_mb=self.memory_limit_mb, callback=self._callback())
        self.rule_list_ = sol.model
        self.certificate_ = sol.certificate
        self.monte_carlo_certificate_ = sol.monte_carlo_certificate
        self.n_antecedents_ = problem.n_antecedents
        return self

    def _predict01(self, Xb):
        return self.rule_list_.predict(Xb).astype(np.int64)

    def predict_proba(self, X):
        """[P(classes_[0]), P(classes_[1])] from the probability of each sample's rule."""
        Xb = self._prepare_predict(X)
        p1 = self.rule_list_.predict_proba(Xb)
        return np.column_stack([1.0 - p1, p1])


class FallingRuleListClassifier(_FallingBase):
    """Falling rule list (Program 2.9): probabilities never increase down the list.

    Parameters
    ----------
    w : float > 0
        Positive-class weight (a missed positive costs w, a false positive 1); the decision
        threshold is 1/(1+w).
    C : float >= 0
        Cost per rule.
    max_predicates, min_support : FP-growth settings (class-wise support).
    method : {"both", "monte_carlo", "exact"}
    iterations, prob_terminate, lam, random_state : Monte-Carlo settings (iterations default
        3000).
    max_length : int or None
        Most rules searched by the exact search.
    time_limit, node_limit, memory_limit_mb : limits (whole fit / exact-search expansions,
        deterministic / resident memory, ``"auto"`` the default cap, ``None`` none).
    binarizer : transformer or None
        Fitted (cloned) inside ``fit`` to turn raw features into binary literals.
    verbose, callback : progress lines on stderr / the searches' info dicts (returning True
        stops); Ctrl-C ends the fit with the best list found and a
        :class:`~rulecert.estimators.FitInterruptedWarning`.

    Attributes
    ----------
    rule_list_ : rulecert.models.FallingRuleList
    certificate_ : rulecert.Certificate (of the final search)
    monte_carlo_certificate_ : Certificate or None
    classes_ : the two classes (``classes_[1]`` is the positive class)
    """

    _program = "frl"

    def __init__(self, w=7.0, C=1e-6, *, max_predicates=2, min_support=0.1, method="both",
                 iterations=None, prob_terminate=0.01, lam=0.8, max_length=None,
                 time_limit=DEFAULT_TIME_LIMIT, node_limit=None,
                 memory_limit_mb=DEFAULT_MEMORY_LIMIT_MB, random_state=DEFAULT_SEED,
                 binarizer=None, verbose=False, callback=None):
        self._store_params(locals())


class SoftFallingRuleListClassifier(_FallingBase):
    """Softly falling rule list (Program 5.1): rising probabilities are penalised by C1.

    The learned proportions are turned into a falling list by the running minimum (the
    paper's conversion); ``predict_proba`` uses those probabilities.  Parameters as
    :class:`FallingRuleListClassifier`, plus ``C1 >= 0`` (softness penalty); ``iterations``
    defaults to 6000.
    """

    _program = "softfrl"
    _parameter_constraints = {**_FallingBase._parameter_constraints,
                              "C1": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, w=7.0, C=1e-6, C1=0.5, *, max_predicates=2, min_support=0.1, method="both",
                 iterations=None, prob_terminate=0.01, lam=0.8, max_length=None,
                 time_limit=DEFAULT_TIME_LIMIT, node_limit=None,
                 memory_limit_mb=DEFAULT_MEMORY_LIMIT_MB, random_state=DEFAULT_SEED,
                 binarizer=None, verbose=False, callback=None):
        self._store_params(locals())

    def _C1(self):
        return self.C1
