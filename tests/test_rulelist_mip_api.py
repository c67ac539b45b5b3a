"""RuleListMIPClassifier, the cross-check function and ``rulecert crosscheck`` (issue 3)."""
from __future__ import annotations

import argparse
import json
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from rulecert.certificate import Certificate, SolutionStatus, Termination
from rulecert.estimators.rulelist_mip import RuleListMIPClassifier
from rulecert.crosscheck import crosscheck_rule_list
from rulecert.reference import brute_force_reference
from rulecert.models.rulelist import rule_list_objective
from rulecert.problem import RuleProblem
from rulecert.models.rulelist import rule_list_from_prefix

pytestmark = pytest.mark.filterwarnings("ignore:c=.* is below 1/n:UserWarning")


def _binary_frame(seed=0, n=160):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 4)), columns=["smoker", "old", "male", "rich"])
    y = np.where((X["smoker"] == 1) & (X["old"] == 0), "sick", "well")
    flip = rng.random(n) < 0.05
    y[flip] = np.where(y[flip] == "sick", "well", "sick")
    return X, y


@pytest.mark.parametrize("backend", ["highs", "pulp", "cpsat"])
def test_classifier_on_binary_frame(backend):
    X, y = _binary_frame()
    clf = RuleListMIPClassifier(c=0.01, max_rules=3, backend=backend).fit(X, y)
    assert set(clf.classes_) == {"sick", "well"}
    pred = clf.predict(X)
    assert (pred == y).mean() >= 0.9
    cert = clf.certificate_
    assert cert.proven_optimal and cert.termination is Termination.OPTIMAL
    assert "smoker" in str(clf) and "old" in str(clf)
    clf2 = pickle.loads(pickle.dumps(clf))
    assert (clf2.predict(X) == pred).all()
    clone(clf)


def test_classifier_matches_function_and_weights():
    X, y = _binary_frame(seed=1)
    w = np.random.default_rng(0).integers(1, 3, len(y))
    rep = np.repeat(np.arange(len(y)), w)
    for backend in ("cpsat", "highs"):
        clf = RuleListMIPClassifier(c=0.01, max_rules=2, min_support=0.0, backend=backend,
                                    workers=1).fit(X, y, sample_weight=w)
        clf2 = RuleListMIPClassifier(c=0.01, max_rules=2, min_support=0.0, backend=backend,
                                     workers=1).fit(X.iloc[rep], y[rep])
        assert math.isclose(clf.certificate_.objective, clf2.certificate_.objective, abs_tol=1e-12)
        assert (clf.predict(X) == clf2.predict(X)).all()


def test_classifier_bad_input():
    X, y = _binary_frame()
    with pytest.raises(ValueError):
        RuleListMIPClassifier(max_rules=0).fit(X, y)
    with pytest.raises(ValueError):
        RuleListMIPClassifier(backend="glpk").fit(X, y)
    with pytest.raises(ValueError, match="node_limit"):
        RuleListMIPClassifier(backend="cpsat", node_limit=10).fit(X, y)
    with pytest.raises(ValueError, match="binary"):
        RuleListMIPClassifier().fit(X * 2.5, y)
    with pytest.raises(ValueError, match="one class"):
        RuleListMIPClassifier().fit(X, np.array(["a"] * len(y)))


def test_classifier_solver_failure_raises(monkeypatch):
    from rulecert.mipmodels import highs as H
    monkeypatch.setattr(H, "highspy", None)
    X, y = _binary_frame()
    with pytest.raises(RuntimeError, match="highspy is not available"):
        RuleListMIPClassifier(backend="highs").fit(X, y)


# ---- the cross-check function -----------------------------------------------------------------
def _planted(seed, n=150, M=6):
    rng = np.random.default_rng(seed)
    A = rng.random((n, M)) < rng.uniform(0.1, 0.5, M)
    y = np.where(A[:, 0], 1, np.where(A[:, 1], 0, 1))
    y = np.where(rng.random(n) < 0.15, 1 - y, y)
    return RuleProblem.from_matrix(A, y)


@pytest.mark.parametrize("backend", ["highs", "pulp", "cpsat"])
def test_crosscheck_with_brute_force_reference(backend):
    for seed in range(3):
        p = _planted(seed, M=5)
        for c, K in ((0.02, None), (0.01, 2)):
            r = crosscheck_rule_list(p, c, max_rules=K, backend=backend,
                                     reference=brute_force_reference, reference_name="brute")
            assert r.agree and r.verdict == "agree", r.summary()
            assert r.mip_certificate.stats["exact_for_unrestricted"] or K is not None
            assert r.same_mistakes_and_rules is not None
            d = r.to_dict()
            json.dumps(d, default=str)
            assert d["verdict"] == "agree"


def test_crosscheck_detects_a_wrong_reference():
    p = _planted(1, M=5)

    def liar(problem, c, *, max_length=None, time_limit=None):
        rl, cert = brute_force_reference(problem, c, max_length=max_length)
        worse = rule_list_from_prefix(problem, [])             # a worse list claimed optimal
        obj = rule_list_objective(worse, problem, c).objective
        assert obj > cert.objective
        return worse, Certificate(Termination.OPTIMAL, SolutionStatus.OPTIMAL, obj, obj, "liar")

    r = crosscheck_rule_list(p, 0.01, reference=liar, reference_name="liar")
    assert not r.agree and r.verdict == "disagree", r.summary()


def test_crosscheck_limit_stopped_is_consistent_not_agree():
    p = _planted(2, n=200, M=8)

    def stopped(problem, c, *, max_length=None, time_limit=None):
        rl = rule_list_from_prefix(problem, [])
        obj = rule_list_objective(rl, problem, c).objective
        return rl, Certificate(Termination.NODE_LIMIT, SolutionStatus.FEASIBLE, obj, 0.0, "stopped")

    r = crosscheck_rule_list(p, 0.01, max_rules=3, reference=stopped, reference_name="stopped")
    assert r.agree and r.verdict == "consistent", r.summary()


def test_crosscheck_reports_errors():
    p = _planted(3, M=4)

    def broken(problem, c, *, max_length=None, time_limit=None):
        return None, Certificate(Termination.ERROR, SolutionStatus.NONE, None, -math.inf, "x",
                                 message="boom")

    r = crosscheck_rule_list(p, 0.02, reference=broken, reference_name="broken")
    assert not r.agree and r.verdict == "error" and "boom" in r.reason


def test_crosscheck_bad_input():
    p = _planted(3, M=4)
    with pytest.raises(ValueError, match="max_rules"):
        crosscheck_rule_list(p, 0.01, max_rules=0, reference=brute_force_reference)
    with pytest.raises(ValueError, match="c must be"):
        crosscheck_rule_list(p, 1.5, reference=brute_force_reference)


@pytest.mark.parametrize("backend", ["highs", "cpsat"])
def test_crosscheck_corels(backend):
    for seed in range(2):
        p = _planted(seed, n=200, M=6)
        for c, K in ((0.01, None), (0.005, 3)):
            r = crosscheck_rule_list(p, c, max_rules=K, backend=backend)
            assert r.verdict == "agree", r.summary()


# ---- the command line ----------------------------------------------------------------------
def _run_cli(argv):
    from rulecert.cli import crosscheck as cc
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    cc.add_parser(sub)
    args = parser.parse_args(["crosscheck", *argv])
    return args.func(args)


def test_cli_on_corels_files_and_csv(tmp_path, capsys):
    from rulecert.mining import write_corels
    p = _planted(4, n=120, M=5)
    write_corels(p, tmp_path / "toy")
    assert _run_cli(["--data", str(tmp_path / "toy"), "--c", "0.02", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "agree" and out["mip"]["certificate"]["proven_optimal"]
    df = pd.DataFrame(p.dense().astype(int), columns=[f"f{j}" for j in range(5)])
    df["label"] = p.y
    df.to_csv(tmp_path / "toy.csv", index=False)
    code = _run_cli(["--data", str(tmp_path / "toy.csv"), "--c", "0.02", "--max-rules", "2",
                     "--backend", "cpsat", "--max-card", "1"])
    text = capsys.readouterr().out
    assert code == 0 and "AGREE" in text and "MIP rule list" in text


def test_cli_bad_data(tmp_path):
    with pytest.raises(FileNotFoundError):
        _run_cli(["--data", str(tmp_path / "nothing"), "--c", "0.01"])
