"""RuleListMIPClassifier: the CORELS objective solved exactly by a MIP (HiGHS, PuLP or CP-SAT)."""
from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from ..limits import (DEFAULT_MEMORY_LIMIT_MB, DEFAULT_MIN_SUPPORT, DEFAULT_MIP_BACKEND,
                      DEFAULT_MIP_MAX_CARD, DEFAULT_SEED, DEFAULT_TIME_LIMIT)
from ._base import WATCH_CONSTRAINTS, BinaryRuleClassifier, interruptible


class RuleListMIPClassifier(BinaryRuleClassifier):
    """Rule list of at most ``max_rules`` rules minimizing ``mistakes / n + c * rules``.

    The optimization is the rule-list MIP of :mod:`rulecert.mipmodels.rulelist`; its
    certificate says whether the optimum is proven and whether ``max_rules`` is large enough
    for the result to be optimal among *all* rule lists (``certificate_.stats
    ["exact_for_unrestricted"]``).  X must be binary unless ``binarizer`` is given.
    Antecedents are mined from the binary columns as in :class:`~rulecert.estimators.CorelsClassifier`: all
    conjunctions of up to ``max_card`` literals (with negations if ``negations``) whose
    support lies in [min_support, 1 - min_support]; identical capture vectors are merged.
    ``predict_proba`` gives each sample the training positive rate of the rule that classifies
    it (as :class:`~rulecert.estimators.CorelsClassifier`, :meth:`rulecert.models.RuleList.predict_proba`);
    ``decision_function`` is that minus 1/2.

    Parameters
    ----------
    c : float in [0, 1)
        Penalty per rule.
    max_rules : int >= 1
        Largest number of rules before the default rule.
    backend : {"highs", "cpsat", "pulp"}
        HiGHS (the default, as ``rulecert crosscheck``) is deterministic and takes any sample
        weights; CP-SAT was several times faster on these models in our measurements
        (``experiments/bench_rulelist_mip.py``) but needs integer-valued sample weights and
        one worker (``workers=1``) for reproducible fits.
    time_limit : float or None
        Seconds for the whole solve; a limit-stopped fit keeps the incumbent (certificate
        FEASIBLE with its gap).
    node_limit : int or None
        HiGHS node limit (highs / pulp backends): a deterministic limit.
    deterministic_time : float or None
        CP-SAT's deterministic time limit (cpsat backend): the deterministic limit there.
    greedy_start : bool
        Start the solver from a greedy rule list (the certificate records its objective).
    cuts : bool
        Add the valid inequalities of the JMLR bounds.
    max_card, min_support, negations : antecedent mining settings (default: single literals).
    seed : int
        Solver seed.
    workers : int or None
        HiGHS threads / CP-SAT workers (None: HiGHS default, 2 CP-SAT workers); one CP-SAT
        worker makes fits reproducible.
    binarizer : transformer or None
        Fitted (cloned) inside ``fit`` to turn raw features into binary literals.
    memory_limit_mb : float, "auto" or None
        Cap on the resident memory while the MIP is built and solved (``"auto"``: the default).
    verbose, callback : progress lines on stderr / the solver's info dicts (returning True
        stops); Ctrl-C ends the fit with the incumbent and a
        :class:`~rulecert.estimators.FitInterruptedWarning`.

    Attributes
    ----------
    rule_list_ : rulecert.RuleList
    certificate_ : rulecert.Certificate
    n_antecedents_ : int
    classes_ : array of the two classes
    """

    _parameter_constraints = {
        "c": [Interval(Real, 0, 1, closed="left")],
        "max_rules": [Interval(Integral, 1, None, closed="left")],
        "backend": [StrOptions({"highs", "pulp", "cpsat"})],
        "time_limit": [None, Interval(Real, 0, None, closed="neither")],
        "node_limit": [None, Interval(Integral, 1, None, closed="left")],
        "deterministic_time": [None, Interval(Real, 0, None, closed="neither")],
        "greedy_start": ["boolean"],
        "cuts": ["boolean"],
        "max_card": [Interval(Integral, 1, None, closed="left")],
        "min_support": [Interval(Real, 0, 0.5, closed="left")],
        "negations": ["boolean"],
        "seed": [Interval(Integral, 0, None, closed="left")],
        "workers": [None, Interval(Integral, 1, None, closed="left")],
        "binarizer": [None, HasMethods(["fit", "transform"])],
        **WATCH_CONSTRAINTS,
    }

    _text_options = {"probabilities": True}   # each rule's training probability

    def __init__(self, c=0.01, *, max_rules=5, backend=DEFAULT_MIP_BACKEND,
                 time_limit=DEFAULT_TIME_LIMIT, node_limit=None, deterministic_time=None,
                 greedy_start=True, cuts=True,
                 max_card=DEFAULT_MIP_MAX_CARD, min_support=DEFAULT_MIN_SUPPORT, negations=True,
                 seed=DEFAULT_SEED, workers=None, binarizer=None,
                 memory_limit_mb=DEFAULT_MEMORY_LIMIT_MB, verbose=False, callback=None):
        self._store_params(locals())

    @interruptible
    def fit(self, X, y, sample_weight=None):
        from ..certificate import Termination
        from ..mining.antecedents import mine_antecedents
        from ..mipmodels import rulelist

        self._validate_params()
        if self.node_limit is not None and self.backend == "cpsat":
            raise ValueError("node_limit applies to the highs and pulp backends; "
                             "use deterministic_time (or time_limit) with backend='cpsat'")
        if self.deterministic_time is not None and self.backend != "cpsat":
            raise ValueError("deterministic_time applies to the cpsat backend; use node_limit "
                             f"with backend={self.backend!r}")
        Xb, y01, sw, names = self._prepare_fit(X, y, sample_weight)
        aset = mine_antecedents(Xb, names, max_card=self.max_card, min_support=self.min_support,
                                negations=self.negations)
        problem = aset.to_problem(y01, sample_weight=sw)
        rule_list, cert = rulelist.solve(
            problem, self.c, max_rules=self.max_rules, backend=self.backend,
            time_limit=self.time_limit, node_limit=self.node_limit,
            warm_start="greedy" if self.greedy_start else None, cuts=self.cuts,
            seed=self.seed, workers=self.workers, deterministic_time=self.deterministic_time,
            memory_limit_mb=self.memory_limit_mb, callback=self._callback())
        if cert.termination is Termination.ERROR and rule_list is None:
            raise RuntimeError(f"the {self.backend} MIP solver failed: {cert.message}")
        if rule_list is None:
            raise RuntimeError("no rule list was found within the limits "
                               f"({cert.termination.value}); use greedy_start=True or a "
                               "larger time_limit")
        self.rule_list_ = rule_list
        self.certificate_ = cert
        self.n_antecedents_ = problem.n_antecedents
        return self


__all__ = ["RuleListMIPClassifier"]
