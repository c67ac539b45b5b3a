"""CorelsClassifier: certifiably optimal rule lists as a scikit-learn classifier."""
from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from ..limits import (DEFAULT_MAX_CARD, DEFAULT_MEMORY_LIMIT_MB, DEFAULT_MIN_SUPPORT,
                      DEFAULT_TIME_LIMIT)
from ._base import WATCH_CONSTRAINTS, BinaryRuleClassifier, interruptible

POLICIES = ("bfs", "dfs", "lower_bound", "objective", "curiosity")


class CorelsClassifier(BinaryRuleClassifier):
    """Certifiably optimal rule list (Angelino et al., JMLR 2018).

    X must be binary (a 0/1 DataFrame, e.g. after :class:`rulecert.mining.FeatureBinarizer` in a
    Pipeline) unless ``binarizer`` is given.  Antecedents are mined from the binary columns:
    all conjunctions of up to ``max_card`` literals (with their negations if ``negations``)
    whose support lies in [min_support, 1 - min_support]; identical capture vectors are merged.

    Parameters
    ----------
    c : float in [0, 1)
        Penalty per rule (objective = mistakes / n + c * rules).
    max_card, min_support, negations : antecedent mining settings.
    policy : {"lower_bound", "bfs", "dfs", "objective", "curiosity"}
    max_length : int or None
        Longest prefix searched (None: unrestricted; the certificate says which case holds).
    time_limit, node_limit, memory_limit_mb : limits (``memory_limit_mb="auto"``: the default
        cap, ``None``: none); a limit-stopped fit keeps the incumbent and reports its proven
        bound and gap in ``certificate_``.  Ctrl-C does the same (with a
        :class:`~rulecert.estimators.FitInterruptedWarning`).
    verbose : bool
        Progress lines on stderr during long fits.
    callback : callable or None
        Receives the search's info dict (:mod:`rulecert.monitor`); returning True stops it.
    binarizer : transformer or None
        Fitted (cloned) inside ``fit`` to turn raw features into binary literals.

    Attributes
    ----------
    rule_list_ : rulecert.RuleList
    certificate_ : rulecert.Certificate
    problem_ : rulecert.RuleProblem, the mined antecedents on the training data (for
        :meth:`rashomon_set`)
    classes_ : array of the two classes (``classes_[1]`` is label 1 of the rule list)
    """

    _parameter_constraints = {
        "c": [Interval(Real, 0, 1, closed="left")],
        "max_card": [Interval(Integral, 1, None, closed="left")],
        "min_support": [Interval(Real, 0, 0.5, closed="left")],
        "negations": ["boolean"],
        "policy": [StrOptions(set(POLICIES))],
        "max_length": [None, Interval(Integral, 0, None, closed="left")],
        "time_limit": [None, Interval(Real, 0, None, closed="neither")],
        "node_limit": [None, Interval(Integral, 1, None, closed="left")],
        "binarizer": [None, HasMethods(["fit", "transform"])],
        **WATCH_CONSTRAINTS,
    }

    _text_options = {"probabilities": True}   # each rule's training probability

    def __init__(self, c=0.01, *, max_card=DEFAULT_MAX_CARD, min_support=DEFAULT_MIN_SUPPORT,
                 negations=True, policy="lower_bound", max_length=None,
                 time_limit=DEFAULT_TIME_LIMIT, node_limit=None,
                 memory_limit_mb=DEFAULT_MEMORY_LIMIT_MB, binarizer=None, verbose=False,
                 callback=None):
        self._store_params(locals())

    @interruptible
    def fit(self, X, y):
        from ..mining.antecedents import mine_antecedents
        from ..models.rulelist import rule_list_from_prefix
        from ..search import corels

        self._validate_params()
        Xb, y01, _, names = self._prepare_fit(X, y)
        aset = mine_antecedents(Xb, names, max_card=self.max_card, min_support=self.min_support,
                                negations=self.negations)
        problem = aset.to_problem(y01)
        rule_list, cert = corels.solve(problem, self.c, policy=self.policy,
                                       max_length=self.max_length, time_limit=self.time_limit,
                                       node_limit=self.node_limit,
                                       memory_limit_mb=self.memory_limit_mb,
                                       callback=self._callback())
        if not rule_list.counts:
            rule_list = rule_list_from_prefix(problem, rule_list.indices)
        self.rule_list_ = rule_list
        self.certificate_ = cert
        self.n_antecedents_ = problem.n_antecedents
        self.problem_ = problem
        return self

    def rashomon_set(self, epsilon: float | None = 0.01, *, threshold: float | None = None,
                     **options):
        """Every rule list over this fit's antecedents within ``epsilon`` of the optimum (or
        with objective ``<= threshold``), on the training data, with the real feature names.

        Returns a :class:`rulecert.models.RashomonSet`; its ``multiplicity(est.problem_)``,
        ``feature_usage()`` and ``model_reliance(est.problem_)`` describe the set.  ``options``
        go to :func:`rulecert.search.corels.rashomon_set` (``max_models``, ``node_limit``,
        ``time_limit``, ``policy``, ``min_capture``); ``c`` and ``max_length`` are the fit's.
        """
        from sklearn.utils.validation import check_is_fitted
        from ..search.corels import rashomon_set
        check_is_fitted(self)
        if threshold is not None:
            epsilon = None
        return rashomon_set(self.problem_, self.c, epsilon=epsilon, threshold=threshold,
                            max_length=self.max_length, **options)

