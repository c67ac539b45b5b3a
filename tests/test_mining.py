"""Tests for rulecert.mining: FeatureBinarizer, mine_antecedents, mine_fpgrowth."""
from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from rulecert import bits
from rulecert.mining import (AntecedentSet, FeatureBinarizer, fpgrowth_itemsets,
                             mine_antecedents, mine_fpgrowth)


def _shared_data() -> Path | None:
    env = os.environ.get("RULECERT_DATA")
    p = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "data"
    return p if p.is_dir() else None


DATA = _shared_data()
needs_data = pytest.mark.skipif(DATA is None, reason="shared data folder not found "
                                "(set RULECERT_DATA to the rulecert datasets folder)")


# =========================================================================================
# FeatureBinarizer
# =========================================================================================
def _frame():
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame({
        "age": rng.integers(18, 80, n).astype(float),
        "sex": rng.choice(["Female", "Male"], n),
        "flag": rng.integers(0, 2, n),
        "color": rng.choice(["red", "green", "blue"], n),
        "few": rng.choice([1, 2, 3], n),
        "const": np.full(n, 7),
    })


def _eval_literal(s: pd.Series, op: str, value, missing_mode: str, is_missing_col: bool):
    miss = s.isna().to_numpy()
    if op == "is missing":
        return miss
    if op == "is not missing":
        return ~miss
    if op == "<=":
        return (s.to_numpy(dtype=float) <= value) & ~miss
    if op == ">":
        return (s.to_numpy(dtype=float) > value) & ~miss
    eq = np.array([(not m) and x == value for x, m in zip(s, miss)])
    if op == "==":
        return eq
    ne = ~eq
    if not (missing_mode == "category" and is_missing_col):
        ne &= ~miss
    return ne


def test_binarizer_literals_and_names():
    df = _frame()
    fb = FeatureBinarizer().fit(df)
    A = fb.transform(df)
    assert isinstance(A, pd.DataFrame)
    assert (A.dtypes == np.uint8).all()
    assert list(A.columns) == list(fb.get_feature_names_out())
    assert A.index.equals(df.index)
    names = list(A.columns)
    # binary columns: one literal per value (hi first); 0/1 columns read col==1 / col==0
    assert names.count("sex == Male") == 1 and "sex == Female" in names
    assert "flag == 1" in names and "flag == 0" in names
    assert "color == red" in names and "color != red" in names
    assert "const == 7" in names and "const != 7" in names
    assert fb.kinds_ == {"age": "numeric", "sex": "binary", "flag": "binary",
                         "color": "categorical", "few": "numeric", "const": "categorical"}
    # few distinct values: thresholds are the sorted values without the largest
    np.testing.assert_array_equal(fb.thresholds_["few"], [1.0, 2.0])
    # many distinct values: decile thresholds as pandas computes them, written at the data's
    # precision (one decimal more than the data) where that splits the training data alike
    expected = np.unique(df["age"].quantile(np.arange(1, 10) / 10).to_numpy())
    assert len(fb.thresholds_["age"]) == len(expected)
    ages = df["age"].to_numpy(dtype=float)
    for t, e in zip(fb.thresholds_["age"], expected):
        assert abs(t - e) <= 0.05 + 1e-12 and t == round(t, 1)
        np.testing.assert_array_equal(ages <= t, ages <= e)
    # every output column is exactly its recorded (column, operator, value)
    info = fb.literal_info()
    assert list(info.index) == names
    for name, (col, op, val) in zip(names, fb.literals_):
        np.testing.assert_array_equal(A[name].to_numpy().astype(bool),
                                      _eval_literal(df[col], op, val, "error", False), err_msg=name)
    # '>' literals are the complements of '<=' ones
    for t in fb.thresholds_["age"]:
        nm = FeatureBinarizer._literal_name("age", "<=", t)
        ng = FeatureBinarizer._literal_name("age", ">", t)
        assert ((A[nm] + A[ng]) == 1).all()


def test_binarizer_without_negations_and_options():
    df = _frame()
    fb = FeatureBinarizer(negations=False, n_thresholds=3).fit(df)
    ops = {op for _, op, _ in fb.literals_}
    assert ops == {"<=", "=="}
    assert len(fb.thresholds_["age"]) <= 3
    assert [nm for nm in fb.get_feature_names_out() if nm.startswith("sex")] == ["sex == Male"]
    # 'few' listed as categorical -> one-hot
    fb2 = FeatureBinarizer(categorical=["few"]).fit(df)
    assert fb2.kinds_["few"] == "categorical"
    assert {"few == 1", "few == 2", "few == 3", "few != 1"} <= set(fb2.get_feature_names_out())
    with pytest.raises(ValueError, match="not in X"):
        FeatureBinarizer(categorical=["nope"]).fit(df)
    with pytest.raises(ValueError):
        FeatureBinarizer(n_thresholds=0).fit(df)
    with pytest.raises(ValueError):
        FeatureBinarizer(missing="drop").fit(df)


def test_binarizer_numpy_input_and_pipeline():
    X = np.array([[1.0, 0], [2.0, 1], [3.0, 0], [4.0, 1]])
    A = FeatureBinarizer().fit_transform(X)
    assert list(A.columns) == ["x0 <= 1", "x0 <= 2", "x0 <= 3", "x0 > 1", "x0 > 2", "x0 > 3",
                               "x1 == 1", "x1 == 0"]
    np.testing.assert_array_equal(A["x0 <= 2"], [1, 1, 0, 0])
    df = _frame()
    pipe = make_pipeline(FeatureBinarizer(n_thresholds=4)).set_output(transform="pandas")
    out = pipe.fit_transform(df)
    assert isinstance(out, pd.DataFrame) and out.shape[0] == len(df)
    fb = clone(FeatureBinarizer(n_thresholds=5, negations=False))
    assert fb.get_params()["n_thresholds"] == 5 and not hasattr(fb, "literals_")
    with pytest.raises(ValueError, match="age"):
        FeatureBinarizer().fit(df).transform(df.drop(columns=["age"]))


def test_binarizer_missing_values():
    df = pd.DataFrame({"num": [1.0, 2.0, np.nan, 4.0, 5.0, 6.0],
                       "cat": ["a", "b", None, "c", "a", "b"]})
    with pytest.raises(ValueError, match=r"column 'num' has 1 missing \(NaN\) value"):
        FeatureBinarizer().fit(df)
    fb = FeatureBinarizer(missing="indicator").fit(df)
    A = fb.transform(df)
    assert fb.missing_columns_ == ["num", "cat"]
    row = A.iloc[2]
    assert row["num is missing"] == 1 and row["cat is missing"] == 1
    assert row["num is not missing"] == 0
    others = [c for c in A.columns if "missing" not in c]
    assert (row[others] == 0).all()          # every other literal of a missing cell is 0
    for name, (col, op, val) in zip(A.columns, fb.literals_):
        np.testing.assert_array_equal(A[name].to_numpy().astype(bool),
                                      _eval_literal(df[col], op, val, "indicator",
                                                    col in fb.missing_columns_))
    fc = FeatureBinarizer(missing="category").fit(df)
    B = fc.transform(df)
    assert B.iloc[2]["cat != a"] == 1 and B.iloc[2]["cat == a"] == 0   # missing is a category
    assert B.iloc[2]["num > 2"] == 0
    # fitted with missing='error' -> transform refuses NaN
    clean = df.dropna()
    with pytest.raises(ValueError, match="missing"):
        FeatureBinarizer().fit(clean).transform(df)
    # indicator mode, column without missing at fit: all its literals 0 on the missing row
    fi = FeatureBinarizer(missing="indicator").fit(clean)
    assert (fi.transform(df).iloc[2] == 0).all()
    with pytest.raises(ValueError, match="infinite"):
        FeatureBinarizer().fit(pd.DataFrame({"x": [1.0, np.inf, 2.0]}))


def test_binarizer_unknown_categories():
    train = pd.DataFrame({"c": ["a", "b", "c", "a"], "s": ["F", "M", "F", "M"]})
    test = pd.DataFrame({"c": ["d", "a"], "s": ["X", "F"]})
    A = FeatureBinarizer().fit(train).transform(test)
    assert (A.iloc[0][["c == a", "c == b", "c == c"]] == 0).all()
    assert (A.iloc[0][["c != a", "c != b", "c != c"]] == 1).all()
    assert A.iloc[0]["s == M"] == 0 and A.iloc[0]["s == F"] == 0
    assert A.iloc[1]["c == a"] == 1 and A.iloc[1]["s == F"] == 1
    with pytest.raises(ValueError, match=r"column 'c' has values not seen during fit: \['d'\]"):
        FeatureBinarizer(handle_unknown="error").fit(train).transform(test)


@parametrize_with_checks([FeatureBinarizer(), FeatureBinarizer(negations=False, n_thresholds=3)])
def test_binarizer_sklearn_compatible(estimator, check):
    check(estimator)


# =========================================================================================
# mine_antecedents
# =========================================================================================
def _brute_antecedents(A, max_card, min_support, max_support, negations):
    n, d = A.shape
    L = np.hstack([A, ~A]) if negations else A
    feat = list(range(d)) * (2 if negations else 1)
    out = []
    for k in range(1, max_card + 1):
        for s in itertools.combinations(range(L.shape[1]), k):
            if len({feat[i] for i in s}) < k:
                continue
            sup = L[:, list(s)].all(axis=1).sum() / n
            if min_support <= sup <= max_support:
                out.append(s)
    return out


def _lit_index(lit, d):
    j, v = lit
    return j if v == 1 else j + d


@pytest.mark.parametrize("seed", range(6))
def test_mine_antecedents_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(5, 90)), int(rng.integers(1, 6))
    A = rng.random((n, d)) < rng.uniform(0.05, 0.95, d)
    negations = bool(seed % 2)
    max_card = 1 + seed % 3
    ms = [0.0, 0.05, 0.2][seed % 3]
    mx = None if seed < 3 else 0.7
    aset = mine_antecedents(A, max_card=max_card, min_support=ms, max_support=mx,
                            negations=negations, merge_identical=False)
    expected = _brute_antecedents(A, max_card, ms, 1 - ms if mx is None else mx, negations)
    got = [tuple(_lit_index(l, d) for l in a.literals) for a in aset.antecedents]
    assert got == expected                      # same antecedents, same (binding) order
    assert aset.merged == {}
    for a, row in zip(aset.antecedents, aset.captures):
        np.testing.assert_array_equal(bits.unpack(row, n), a.evaluate(A))
    # merging keeps the first antecedent of each capture vector and records the others
    merged = mine_antecedents(A, max_card=max_card, min_support=ms, max_support=mx,
                              negations=negations)
    keys = [r.tobytes() for r in aset.captures]
    first = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    assert [a.name for a in merged.antecedents] == [aset.antecedents[i].name
                                                     for i in sorted(first.values())]
    assert len({r.tobytes() for r in merged.captures}) == len(merged)
    assert sum(len(v) for v in merged.merged.values()) == len(aset) - len(merged)


def test_mine_antecedents_names_and_problem():
    X = pd.DataFrame({"a": [1, 0, 1, 1], "b": [0, 0, 1, 1]})
    aset = mine_antecedents(X, max_card=2, negations=True, merge_identical=False)
    assert aset.feature_names == ["a", "b"]
    assert aset.names[:4] == ["a", "b", "not a", "not b"]
    assert "a and b" in aset.names and "a and not b" in aset.names
    assert "a and not a" not in aset.names            # contradictions are skipped
    y = np.array([1, 0, 1, 0])
    prob = aset.to_problem(y)
    assert prob.n_antecedents == len(aset) and prob.n_samples == 4
    np.testing.assert_array_equal(prob.captures, aset.captures)
    assert isinstance(aset, AntecedentSet)
    np.testing.assert_array_equal(aset.supports, aset.dense().sum(axis=0))
    with pytest.raises(ValueError, match="samples"):
        aset.to_problem([1, 0])


def test_mine_antecedents_bad_input():
    with pytest.raises(ValueError, match="binary"):
        mine_antecedents(np.array([[0, 2], [1, 0]]))
    with pytest.raises(ValueError, match="NaN"):
        mine_antecedents(np.array([[0.0, np.nan], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="max_card"):
        mine_antecedents(np.eye(3), max_card=0)
    with pytest.raises(ValueError, match="min_support"):
        mine_antecedents(np.eye(3), min_support=1.5)
    with pytest.raises(ValueError, match="feature names"):
        mine_antecedents(np.eye(3), feature_names=["a"])
    with pytest.raises(ValueError, match="support_rounding"):
        mine_antecedents(np.eye(3), support_rounding="floor")


@needs_data
def test_pycorels_antecedent_count_on_compas():
    """pycorels' mine_rules (max_card=2, min_support=0.005, with negations) gives 362."""
    df = pd.read_csv(DATA / "compas" / "corels_binarized" / "compas_train-binary.csv")
    assert df.shape == (6489, 15)
    X, y = df.iloc[:, :-1], df.iloc[:, -1].to_numpy()
    aset = mine_antecedents(X, max_card=2, min_support=0.005, negations=True,
                            merge_identical=False)
    assert len(aset) == 362
    assert sum(1 for a in aset.antecedents if len(a.literals) == 1) == 28
    assert aset.names[0] == "sex:Male" and aset.names[14] == "not sex:Male"
    # distinct capture vectors among them; older pycorels rounded the count threshold
    assert len(mine_antecedents(X, max_card=2, min_support=0.005, negations=True)) == 324
    assert len(mine_antecedents(X, max_card=2, min_support=0.005, negations=True,
                                merge_identical=False, support_rounding="round")) == 363
    assert aset.to_problem(y).n_positive == 2906


@needs_data
def test_binarize_and_mine_reproduce_corels_out_file():
    """One-hot literals of compas_train.csv mined at 0.005 give CORELS' compas_train.out."""
    from rulecert.mining import read_corels
    base = DATA / "compas" / "corels_binarized"
    df = pd.read_csv(base / "compas_train.csv", dtype=str)
    X = df.iloc[:, :-1]
    fb = FeatureBinarizer(negations=True).fit(X)
    A = fb.transform(X)
    onehot = [nm for nm, (_, op, _) in zip(A.columns, fb.literals_) if op == "=="]
    assert len(onehot) == 19
    aset = mine_antecedents(A[onehot], max_card=2, min_support=0.005, merge_identical=False)
    ref = read_corels(base / "compas_train")
    assert len(aset) == ref.n_antecedents == 155
    got = sorted(r.tobytes() for r in aset.captures)
    assert got == sorted(r.tobytes() for r in ref.captures)


# =========================================================================================
# FP-growth
# =========================================================================================
def _brute_fp(A, y, max_pred, ms, negations):
    n, d = A.shape
    L = np.hstack([A, ~A]) if negations else A
    feat = list(range(d)) * (2 if negations else 1)
    npos, nneg = int(y.sum()), int((1 - y).sum())
    out = []
    for k in range(1, max_pred + 1):
        for s in itertools.combinations(range(L.shape[1]), k):
            if len({feat[i] for i in s}) < k:
                continue
            c = L[:, list(s)].all(axis=1)
            cp, cn = int((c & (y == 1)).sum()), int((c & (y == 0)).sum())
            if (cp >= 1 and cp / npos >= ms) or (cn >= 1 and cn / nneg >= ms):
                out.append(s)
    return out


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("method", ["bitset", "fptree"])
def test_fpgrowth_matches_brute_force(seed, method):
    rng = np.random.default_rng(100 + seed)
    n, d = int(rng.integers(8, 120)), int(rng.integers(1, 7))
    A = rng.random((n, d)) < rng.uniform(0.1, 0.9, d)
    y = (rng.random(n) < 0.35).astype(int)
    y[0], y[1] = 0, 1
    negations = bool(seed % 2)
    max_pred = 1 + seed % 3
    ms = [0.0, 0.1, 0.25, 0.5][seed % 4]
    aset = mine_fpgrowth(A, y, max_predicates=max_pred, min_support=ms, negations=negations,
                         merge_identical=False, method=method)
    got = [tuple(_lit_index(l, d) for l in a.literals) for a in aset.antecedents]
    assert got == _brute_fp(A, y, max_pred, ms, negations)
    for a, row in zip(aset.antecedents, aset.captures):
        np.testing.assert_array_equal(bits.unpack(row, n), a.evaluate(A))


def test_fpgrowth_itemset_counts():
    rng = np.random.default_rng(7)
    T = rng.random((200, 6)) < 0.4
    found = fpgrowth_itemsets(T, min_count=10, max_len=3)
    expected = {}
    for k in (1, 2, 3):
        for s in itertools.combinations(range(6), k):
            c = int(T[:, list(s)].all(axis=1).sum())
            if c >= 10:
                expected[s] = c
    assert found == expected


def test_fpgrowth_bad_input():
    X = np.eye(4, dtype=int)
    with pytest.raises(ValueError, match="one class"):
        mine_fpgrowth(X, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="method"):
        mine_fpgrowth(X, [0, 1, 0, 1], method="apriori")
    with pytest.raises(ValueError, match="labels"):
        mine_fpgrowth(X, [0, 1, 0])
    with pytest.raises(ValueError, match="max_predicates"):
        mine_fpgrowth(X, [0, 1, 0, 1], max_predicates=0)


@needs_data
def test_fpgrowth_methods_agree_on_bank_sample():
    from rulecert.datasets import load_bank_full
    X, y = load_bank_full()
    X, y = X.iloc[:4000], y[:4000]
    A = FeatureBinarizer(negations=False, n_thresholds=4).fit_transform(X)
    a = mine_fpgrowth(A, y, max_predicates=2, min_support=0.1, method="bitset")
    b = mine_fpgrowth(A, y, max_predicates=2, min_support=0.1, method="fptree")
    assert a.names == b.names and len(a) > 50
    np.testing.assert_array_equal(a.captures, b.captures)


def test_binarizer_sample_weight_equals_repeated_rows():
    """Weighted fit = fit on the data with each row repeated weight times (zero-weight rows
    ignored), including pandas' linear-interpolation quantiles."""
    import pandas as pd
    from rulecert.mining import FeatureBinarizer
    from rulecert.mining.binarize import _weighted_linear_quantile
    rng = np.random.default_rng(0)
    q = np.linspace(0.1, 0.9, 9)
    for _ in range(100):
        n = int(rng.integers(2, 40))
        v = rng.integers(0, 15, n).astype(float)
        w = rng.integers(1, 4, n).astype(float)
        np.testing.assert_allclose(_weighted_linear_quantile(v, w, q),
                                   pd.Series(np.repeat(v, w.astype(int))).quantile(q).to_numpy())
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.integers(0, 30, 60),
                      "c": rng.choice(list("xyz"), 60)})
    w = rng.integers(0, 3, 60)
    X.loc[w == 0, "c"] = "only-in-zero-weight-rows"
    f1 = FeatureBinarizer().fit(X, sample_weight=w)
    f2 = FeatureBinarizer().fit(X.loc[X.index.repeat(w)])
    assert list(f1.get_feature_names_out()) == list(f2.get_feature_names_out())
    assert not any("only-in-zero" in nm for nm in f1.get_feature_names_out())
    with pytest.raises(ValueError, match="non-zero|zero everywhere"):
        FeatureBinarizer().fit(X, sample_weight=np.zeros(60))
