"""BooleanRuleCGCV: the complexity bound chosen by cross-validation, then refitted."""

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from rulecert.estimators.brcg import BooleanRuleCGCV
from rulecert.reference import brute_force_ruleset
from rulecert.models.ruleset import ruleset_objective_xy


def _data(seed=3, n=30, d=7):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) < 0.5
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3])) ^ (rng.random(n) < 0.15)
    return X, y.astype(int)


def _cv(solver_options=None, **kw):
    base = dict(complexity_bounds=(3, 6, 9), cv=3, max_clause_length=3, random_state=0,
                solver_options=dict(pricing_deterministic_time=10.0, **(solver_options or {})))
    base.update(kw)
    return BooleanRuleCGCV(**base)


@pytest.mark.parametrize("seed", [3, 7])
def test_selection_scores_and_final_fit_against_brute_force(seed):
    X, y = _data(seed)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=seed).split(X, y))
    m = _cv(cv=folds).fit(X, y)
    res = m.cv_results_
    grid = res["complexity_bound"]
    assert grid == [3, 6, 9]
    # every fold score is the validation accuracy of that fold's model, and that model is
    # the brute-force optimum of the fold's training part at that C (recomputed objective)
    for k, (tr, va) in enumerate(folds):
        for i, C in enumerate(grid):
            rs = m.cv_rulesets_[i][k]
            _, bf = brute_force_ruleset(X[tr], y[tr], C, 3)
            assert ruleset_objective_xy(rs, X[tr], y[tr]).objective == bf
            assert rs.complexity <= C
            assert res[f"split{k}_test_score"][i] == (rs.predict(X[va]) == y[va]).mean()
    assert np.all(res["proven_optimal"] == 1.0)
    mean = np.mean([res[f"split{k}_test_score"] for k in range(3)], axis=0)
    assert np.allclose(mean, res["mean_test_score"])
    best = int(np.argmax(mean))
    assert m.complexity_bound_ == grid[best]
    assert all(mean[j] < mean[best] for j in range(best))   # ties go to the smaller bound
    # the final fit is the brute-force optimum at the chosen bound, recomputed from the model
    _, bf = brute_force_ruleset(X, y, m.complexity_bound_, 3)
    obj = ruleset_objective_xy(m.ruleset_, X, y).objective
    assert m.certificate_.proven_optimal and obj == m.certificate_.objective == bf
    assert m.complexity_ <= m.complexity_bound_
    assert (m.predict(X) == m.ruleset_.predict(X)).all()


def test_one_standard_error_rule_picks_a_smaller_or_equal_bound():
    X, y = _data(5, n=40)
    folds = list(StratifiedKFold(4, shuffle=True, random_state=0).split(X, y))
    best = _cv(cv=folds).fit(X, y)
    one_se = _cv(cv=folds, selection="1se").fit(X, y)
    res = one_se.cv_results_
    scores = np.array([res[f"split{k}_test_score"] for k in range(4)])
    i_best = int(np.argmax(res["mean_test_score"]))
    se = scores[:, i_best].std(ddof=1) / 2.0
    i_1se = int(np.flatnonzero(res["mean_test_score"] >= res["mean_test_score"][i_best] - se)[0])
    assert one_se.complexity_bound_ == res["complexity_bound"][i_1se] <= best.complexity_bound_


def test_time_limit_bounds_the_whole_fit_and_is_honest():
    rng = np.random.default_rng(0)
    X = rng.random((600, 40)) < 0.5
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3] & X[:, 4]) ^ (rng.random(600) < 0.3)).astype(int)
    m = BooleanRuleCGCV(complexity_bounds=(5, 15, 30), cv=2, time_limit=3.0,
                        random_state=0, solver_options=dict(pricers="exact")).fit(X, y)
    c = m.certificate_
    assert c.lower_bound <= c.objective
    if not c.proven_optimal:
        assert c.termination.value != "optimal"
    assert m.complexity_ <= m.complexity_bound_


@pytest.mark.parametrize("kw, match", [
    (dict(complexity_bounds=()), "empty"),
    (dict(complexity_bounds=(1, 5), solver_options=dict(empty_clause=False)),
     "1 < 2: no clause fits"),
    (dict(complexity_bounds=(0.5, 5), solver_options=dict(empty_clause=True)),
     "0.5 < 1: no clause fits"),
    (dict(complexity_bounds=("a",)), "numbers"),
    (dict(cv=1), "cv"),
    (dict(cv=20), "samples of each class"),
    (dict(selection="median"), "selection"),
])
def test_bad_input(kw, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        _cv(**kw).fit(X, y)


def test_folds_start_cold_and_the_final_fit_starts_from_every_fold(monkeypatch):
    """No fold sees clauses generated with its validation rows; the final fit (on all rows)
    starts from every clause of every fold."""
    calls = []
    orig = BooleanRuleCGCV._colgen

    def spy(self, Xb, y01, sw, names, C, time_limit, seed, initial_clauses=None,
            initial_solution=None):
        out = orig(self, Xb, y01, sw, names, C, time_limit, seed, initial_clauses,
                   initial_solution)
        calls.append((C, None if initial_clauses is None else set(initial_clauses), set(out.column_pool)))
        return out

    monkeypatch.setattr(BooleanRuleCGCV, "_colgen", spy)
    X, y = _data(11, n=36)
    m = _cv(cv=3).fit(X, y)
    assert len(calls) == 3 * 3 + 1
    fold_pools = []
    for k in range(3):
        path = calls[3 * k:3 * k + 3]
        assert path[0][1] is None                      # cold start on every fold
        for prev, cur in zip(path, path[1:]):
            assert cur[1] == prev[2]                   # warm start along the fold's path
        fold_pools.append(path[-1][2])
    final = calls[-1]
    assert final[0] == m.complexity_bound_ and final[1] == set().union(*fold_pools)


def test_the_default_grid_starts_at_the_simplest_models():
    """``complexity_bounds=None`` walks ``DEFAULT_GRID``: from C = 1 (the constant models) with
    the empty clause, from 2 without it; each fold model of C <= 5 is proven optimal (the
    small class is searched whole) and fits its C."""
    from rulecert.estimators.brcg import DEFAULT_GRID
    X, y = _data(5, n=40)
    m = BooleanRuleCGCV(cv=2, max_clause_length=3, random_state=0,
                        solver_options=dict(max_iter=2)).fit(X, y)
    assert m.get_params()["complexity_bounds"] is None
    assert m.cv_results_["complexity_bound"] == list(DEFAULT_GRID) and DEFAULT_GRID[0] == 1
    for i, C in enumerate(DEFAULT_GRID):
        assert all(rs.complexity <= C for rs in m.cv_rulesets_[i])
        if C <= 5:
            assert m.cv_results_["proven_optimal"][i] == 1.0
    no_empty = BooleanRuleCGCV(cv=2, max_clause_length=3, random_state=0,
                               solver_options=dict(max_iter=1, empty_clause=False)).fit(X, y)
    assert no_empty.cv_results_["complexity_bound"] == [c for c in DEFAULT_GRID if c >= 2]
