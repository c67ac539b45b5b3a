"""Scores of every classifier: predict_proba and decision_function from training frequencies,
consistent with predict, so that roc_auc scoring (GridSearchCV) works on every estimator."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV

from rulecert import datasets
from rulecert.estimators import (BooleanRuleCGClassifier, BooleanRuleCGCV, CorelsClassifier,
                                 FallingRuleListClassifier, RuleListMIPClassifier)
from rulecert.mining import FeatureBinarizer
from rulecert.models import RuleList, RuleSet
from rulecert.models.antecedent import Antecedent

pytestmark = pytest.mark.filterwarnings("ignore:c=.* is below 1/n:UserWarning")


@pytest.fixture(scope="module")
def heart(shared_data):
    X, y = datasets.load_heart()
    keep = ~X.isna().any(axis=1).to_numpy()
    X, y = X[keep].reset_index(drop=True), y[keep]
    return X[["age", "sex", "cp", "thalach", "exang", "oldpeak", "ca", "thal"]], np.where(y == 1, "disease", "healthy")


def _fast(name):
    fb = FeatureBinarizer(n_thresholds=3, negations=True)
    return {
        "corels": (CorelsClassifier(c=0.02, max_card=1, node_limit=3000, binarizer=fb), {"c": [0.01, 0.03]}),
        "mip": (RuleListMIPClassifier(c=0.02, max_rules=2, backend="cpsat", workers=1, time_limit=2,
                                      binarizer=fb), {"c": [0.01, 0.03]}),
        "frl": (FallingRuleListClassifier(w=2.0, C=0.01, iterations=50, time_limit=2, node_limit=300,
                                          binarizer=fb), {"w": [1.0, 2.0]}),
        "brcg": (BooleanRuleCGClassifier(complexity_bound=6, 
                                         
                                         random_state=0, binarizer=fb, solver_options={'max_iter': 3, 'close_gap': False, 'pricing_nodes': 5000, 'pricing_deterministic_time': 0.5}), {"complexity_bound": [4, 8]}),
        "brcg_cnf": (BooleanRuleCGClassifier(complexity_bound=6, form="cnf", 
                                             
                                             random_state=0, binarizer=fb, solver_options={'max_iter': 3, 'close_gap': False, 'pricing_nodes': 5000, 'pricing_deterministic_time': 0.5}), {"complexity_bound": [4, 8]}),
        "brcg_cv": (BooleanRuleCGCV(complexity_bounds=(4, 6), cv=2, 
                                    
                                    random_state=0, binarizer=fb, solver_options={'max_iter': 2, 'close_gap': False, 'pricing_nodes': 3000, 'pricing_deterministic_time': 0.5}), {"selection": ["best"]}),
    }[name]


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
@pytest.mark.parametrize("name", ["corels", "mip", "frl", "brcg", "brcg_cnf", "brcg_cv"])
def test_grid_search_roc_auc_runs_and_scores_agree_with_predict(heart, name):
    X, y = heart
    est, grid = _fast(name)
    gs = GridSearchCV(est, grid, scoring="roc_auc", cv=2).fit(X, y)
    scores = gs.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and np.all((scores >= 0) & (scores <= 1))
    best = gs.best_estimator_
    proba = best.predict_proba(X)
    dec = best.decision_function(X)
    pred = best.predict(X)
    assert proba.shape == (len(y), 2) and np.allclose(proba.sum(axis=1), 1.0)
    assert ((proba >= 0) & (proba <= 1)).all()
    np.testing.assert_array_equal(best.classes_[np.argmax(proba, axis=1)], pred)
    np.testing.assert_array_equal(best.classes_[(dec > 0).astype(int)], pred)
    # same ranking: decision_function is increasing in P(classes_[1])
    order = np.argsort(proba[:, 1], kind="stable")
    assert np.all(np.diff(dec[order]) >= -1e-12)
    # the scorer's value is the AUC of the scores
    auc = roc_auc_score(y == best.classes_[1], dec)
    assert auc == pytest.approx(roc_auc_score(y == best.classes_[1], proba[:, 1]))


def test_rule_list_mip_proba_is_the_training_rate_of_each_rule(heart):
    X, y = heart
    est = RuleListMIPClassifier(c=0.01, max_rules=2, backend="cpsat", workers=1, time_limit=4,
                                binarizer=FeatureBinarizer(n_thresholds=3)).fit(X, y)
    Xb = est.binarizer_.transform(X).to_numpy().astype(bool)
    rl = est.rule_list_
    y1 = y == est.classes_[1]
    # first rule that holds, computed here from the literal definitions
    rule = np.full(len(y), rl.n_rules)
    for k in range(rl.n_rules - 1, -1, -1):
        hold = np.ones(len(y), dtype=bool)
        for j, v in rl.antecedents[k].literals:
            hold &= Xb[:, j] == v
        rule[hold] = k
    labels = [*rl.predictions, rl.default]
    p1 = est.predict_proba(X)[:, 1]
    for k in range(rl.n_rules + 1):
        m = rule == k
        if not m.any():
            continue
        rate = y1[m].mean()
        if (rate > 0.5) == (labels[k] == 1) and rate != 0.5:
            np.testing.assert_allclose(p1[m], rate)
        else:   # the training rate disagrees with the rule's label: moved to its side
            assert ((p1[m] > 0.5) == (labels[k] == 1)).all()


def test_dnf_and_cnf_scores_by_hand():
    # 8 samples, 2 binary features
    X = np.array([[1, 0], [1, 0], [1, 1], [0, 1], [0, 1], [0, 1], [0, 0], [0, 0]])
    y = np.array([1, 1, 0, 1, 1, 0, 0, 1])
    dnf = RuleSet([((0, 1),), ((1, 1),)], "dnf").with_counts(X, y)
    # clause 0 (x0): rows 0,1,2 -> 2 pos 1 neg; clause 1 (x1): rows 2..5 -> 2 pos 2 neg;
    # no clause: rows 6, 7 -> 1 pos 1 neg
    assert dnf.counts == [(2, 1), (2, 2), (1, 1)]
    p = dnf.predict_proba(X)
    np.testing.assert_allclose(p[[0, 1, 2]], 2 / 3)           # most precise covering clause
    assert (p[[3, 4, 5]] > 0.5).all() and (p[[3, 4, 5]] < 0.5 + 1e-12).all()  # 2/4 -> above 1/2
    np.testing.assert_allclose(p[[6, 7]], 0.5)
    np.testing.assert_array_equal(p > 0.5, dnf.predict(X) == 1)
    cnf = RuleSet([((0, 1), (1, 1))], "cnf").with_counts(X, y)
    # the clause (x0 or x1) fails on rows 6, 7 (1 pos, 1 neg) -> predict 0; holds on 0..5
    assert cnf.counts == [(1, 1), (4, 2)]
    p = cnf.predict_proba(X)
    np.testing.assert_allclose(p[:6], 4 / 6)
    np.testing.assert_allclose(p[6:], 0.5)


def test_weighted_counts_and_json_keep_the_scores():
    X = np.array([[1], [1], [0], [0]])
    y = np.array([1, 0, 1, 0])
    rs = RuleSet([((0, 1),)]).with_counts(X, y, sample_weight=[3.0, 1.0, 0.5, 1.5])
    assert rs.counts == [(3, 1), (0.5, 1.5)]
    np.testing.assert_allclose(rs.predict_proba(X), [0.75, 0.75, 0.25, 0.25])
    back = RuleSet.from_json(rs.to_json())
    np.testing.assert_allclose(back.predict_proba(X), rs.predict_proba(X))
    with pytest.raises(ValueError, match="no training counts"):
        RuleSet([((0, 1),)]).predict_proba(X)


def test_rule_list_tie_predicts_one_and_scores_above_half():
    rl = RuleList([Antecedent("a", ((0, 1),))], [1], 0, counts=[(2, 2), (1, 3)])
    p = rl.predict_proba(np.array([[1], [0]]))
    assert p[0] > 0.5 and p[1] == 0.25
