"""FallingRuleList, the exact FRL / softFRL objectives, the estimators and Table 1 of the paper."""
import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from rulecert.models.falling import FallingRuleList
from rulecert.models.falling import (check_falling_params, frl_objective, soft_frl_objective,
                                         softness_penalty)
from rulecert.problem import RuleProblem
from rulecert.models import Antecedent


def toy():
    # 3 binary features; antecedents = the columns
    X = np.array([[1, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 1, 1], [0, 0, 1], [0, 0, 1], [0, 0, 0]])
    y = np.array([1, 1, 0, 1, 0, 0, 1, 0])
    ants = [Antecedent(f"f{j}", ((j, 1),)) for j in range(3)]
    return X, y, RuleProblem.from_matrix(X, y, ants)


def test_objectives_by_hand():
    X, y, P = toy()
    # list f0, f1, else: counts (2,1), (1,1), (1,2)
    s = frl_objective(P, [0, 1], w=2.0, C=0.1)
    assert s.counts == ((2, 1), (1, 1), (1, 2))
    assert s.loss == pytest.approx((min(4, 1) + min(2, 1) + min(2, 2)) / 8)
    assert s.objective == pytest.approx(s.loss + 0.2)
    assert s.falling  # 2/3 >= 1/2 >= 1/3
    s2 = frl_objective(P, [2, 0], w=2.0, C=0.1)  # f2: (1,2) 1/3 then f0: (2,1) 2/3 -> rises
    assert not s2.falling
    t = soft_frl_objective(P, [2, 0], w=2.0, C=0.1, C1=0.5)
    props = t.proportions
    assert t.penalty == pytest.approx(max(props[1] - props[0], 0) + max(props[2] - min(props[:2]), 0))
    assert t.objective == pytest.approx(t.loss + 0.2 + 0.5 * t.penalty)
    assert softness_penalty([0.2, 0.5, 0.1, 0.3]) == pytest.approx(0.3 + 0.2)


def test_objective_rejects_incompatible_lists_and_bad_params():
    X, y, P = toy()
    with pytest.raises(ValueError, match="captures no sample"):
        frl_objective(P, [0, 0], 1.0, 0.0)  # the second f0 captures nothing
    with pytest.raises(ValueError, match="w must be > 0"):
        check_falling_params(0, 0)
    with pytest.raises(ValueError, match="C must be >= 0"):
        check_falling_params(1, -1e-9)
    with pytest.raises(ValueError, match="C1 must be >= 0"):
        check_falling_params(1, 0, -2)


def test_model_predict_text_json_round_trip():
    X, y, P = toy()
    m = FallingRuleList.from_prefix(P, [0, 1], w=2.0)
    assert m.probabilities == pytest.approx([2 / 3, 1 / 2, 1 / 3])
    assert m.threshold == pytest.approx(1 / 3)
    assert m.predictions == [1, 1, 0]  # 2*2 > 1, 2*1 > 1, 2*1 > 2 is false
    proba = m.predict_proba(X)
    assert proba == pytest.approx([2 / 3, 2 / 3, 2 / 3, 1 / 2, 1 / 2, 1 / 3, 1 / 3, 1 / 3])
    assert (m.predict(X) == (proba > m.threshold)).all()
    assert (m.predict_captures(m.captures_from_problem(P)) == m.predict(X)).all()
    text = m.to_text()
    assert "IF f0 THEN" in text and "ELSE" in text and "n+" in text and "0.67" in text
    m2 = FallingRuleList.from_json(m.to_json())
    assert m2 == m
    rl = m.to_rule_list()
    assert rl.predictions == [1, 1] and rl.default == 0
    assert frl_objective(P, m2, 2.0, 0.0).objective == pytest.approx(frl_objective(P, [0, 1], 2.0, 0.0).objective)


def test_model_refuses_rising_probabilities():
    with pytest.raises(ValueError, match="not a falling rule list"):
        FallingRuleList([Antecedent("a")], [0.2, 0.5], [(1, 4), (1, 1)], w=1.0)
    with pytest.raises(ValueError, match="w must be"):
        FallingRuleList([], [0.5], [(1, 1)], w=0.0)
    X, y, P = toy()
    with pytest.raises(ValueError, match="captures no training sample"):
        FallingRuleList.from_prefix(P, [0, 0], 1.0)


def test_softly_falling_list_uses_the_running_minimum():
    X, y, P = toy()
    m = FallingRuleList.from_prefix(P, [2, 0], w=2.0, kind="softly_falling")
    assert m.proportions[1] > m.proportions[0]
    assert m.probabilities == pytest.approx(list(np.minimum.accumulate(m.proportions)))
    assert FallingRuleList.from_json(m.to_json()).kind == "softly_falling"


# ---- estimators ----------------------------------------------------------------------------
def _frame(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 5)), columns=["smoker", "old", "male", "rich", "tall"])
    risk = 0.05 + 0.6 * ((X.smoker == 1) & (X.old == 1)) + 0.2 * (X.male == 1)
    y = np.where(rng.random(n) < risk, "yes", "no")
    return X, y


@pytest.mark.parametrize("cls", ["FallingRuleListClassifier", "SoftFallingRuleListClassifier"])
def test_estimator_fit_predict_proba_and_certificate(cls):
    import pickle

    from sklearn.base import clone

    from rulecert.estimators import falling as est
    X, y = _frame()
    clf = getattr(est, cls)(w=3.0, C=0.001, min_support=0.1, iterations=300, time_limit=30)
    clf.fit(X, y)
    assert list(clf.classes_) == ["no", "yes"]  # classes_[1] = "yes" is the positive class
    proba = clf.predict_proba(X)
    assert proba.shape == (len(y), 2) and np.allclose(proba.sum(1), 1)
    pred = clf.predict(X)
    assert (pred == np.where(proba[:, 1] > 1 / (1 + 3.0), "yes", "no")).all()
    assert clf.rule_list_.n_rules >= 1
    p = clf.rule_list_.probabilities
    assert all(a >= b for a, b in zip(p, p[1:]))
    assert clf.certificate_.proven_optimal
    assert clf.certificate_.objective <= clf.monte_carlo_certificate_.objective + 1e-12
    assert "smoker" in str(clf) or "old" in str(clf) or "male" in str(clf)
    clf2 = pickle.loads(pickle.dumps(clf))
    assert (clf2.predict(X) == pred).all()
    clone(clf)


def test_estimator_bad_input():
    from rulecert.estimators.falling import FallingRuleListClassifier, SoftFallingRuleListClassifier
    X, y = _frame()
    with pytest.raises(ValueError):
        FallingRuleListClassifier(w=0).fit(X, y)
    with pytest.raises(ValueError):
        FallingRuleListClassifier(C=-1).fit(X, y)
    with pytest.raises(ValueError):
        SoftFallingRuleListClassifier(C1=-0.5).fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        FallingRuleListClassifier().fit(X, np.full(len(y), "yes"))
    with pytest.raises(ValueError, match="binary"):
        FallingRuleListClassifier().fit(X * 3, y)


# ---- the paper's Table 1 -----------------------------------------------------------------------
def _bank(shared_dir):
    path = shared_dir / "bank_marketing" / "bank.zip"
    if not path.exists():
        pytest.skip("bank-full not available")
    with zipfile.ZipFile(path) as z:
        return pd.read_csv(io.BytesIO(z.read("bank-full.csv")), sep=";")


def test_table1_objective_on_bank_full():
    from conftest import data_dir
    df = _bank(data_dir())
    y = (df.y == "yes").to_numpy().astype(int)
    lit = {"poutcome=success": df.poutcome == "success", "default=no": df.default == "no",
           "60<=age<100": (df.age >= 60) & (df.age < 100), "17<=age<30": (df.age >= 17) & (df.age < 30),
           "housing=no": df.housing == "no", "previous>=2": df.previous >= 2,
           "campaign=1": df.campaign == 1, "education=tertiary": df.education == "tertiary"}
    rules = [("poutcome=success", "default=no"), ("60<=age<100", "default=no"),
             ("17<=age<30", "housing=no"), ("previous>=2", "housing=no"),
             ("campaign=1", "housing=no"), ("previous>=2", "education=tertiary")]
    A = np.column_stack([(lit[a] & lit[b]).to_numpy() for a, b in rules])
    P = RuleProblem.from_matrix(A, y, [f"{a} & {b}" for a, b in rules])
    s = frl_objective(P, range(6), 7.0, 1e-6)
    assert s.counts == ((978, 531), (434, 1113), (504, 1539), (242, 794), (658, 4092), (108, 707),
                        (2365, 31146))
    assert s.falling
    assert round(s.objective, 6) == 0.560290 and round(s.loss, 6) == 0.560284
    m = FallingRuleList.from_prefix(P, range(6), 7.0)
    assert [round(p, 2) for p in m.probabilities] == [0.65, 0.28, 0.25, 0.23, 0.14, 0.13, 0.07]
