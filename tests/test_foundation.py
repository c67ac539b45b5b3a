"""Packed bits, RuleProblem validation, RuleList, objectives, Certificate, CORELS format."""
import json
import math

import numpy as np
import pytest

from rulecert import Antecedent, Certificate, RuleList, RuleProblem, SolutionStatus, Termination, bits
from rulecert.reference import brute_force_rule_list
from rulecert.mining import read_corels, read_minor, write_corels
from rulecert.models.rulelist import prefix_objective
from rulecert.models.rulelist import rule_list_from_prefix


@pytest.mark.parametrize("n", [1, 5, 63, 64, 65, 130])
def test_pack_roundtrip_and_count(n):
    rng = np.random.default_rng(n)
    A = rng.random((4, n)) < 0.4
    W = bits.pack(A)
    assert W.dtype == np.uint64 and W.shape == (4, bits.n_words(n))
    assert (bits.unpack(W, n) == A).all()
    assert list(bits.count(W)) == list(A.sum(axis=1))
    assert bits.count(bits.complement(W[0], n)) == n - A[0].sum()
    assert bits.count(bits.ones(n)) == n


def test_pack_rejects_non_binary():
    with pytest.raises(ValueError, match="binary"):
        bits.pack(np.array([0, 2, 1]))


def _direct_mistakes(A, y, prefix):
    """Independent, loop-based evaluation of a CORELS-labelled rule list."""
    n = len(y)
    assigned = np.full(n, -1)
    for k, j in enumerate(prefix):
        assigned[(assigned == -1) & A[:, j]] = k
    mistakes = 0
    for k in list(range(len(prefix))) + [-1]:
        members = y[assigned == k]
        pos, neg = int(members.sum()), int(len(members) - members.sum())
        label = 1 if pos >= neg else 0
        mistakes += neg if label == 1 else pos
    return mistakes


def test_objective_matches_direct_evaluation():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n, M = rng.integers(3, 40), rng.integers(1, 6)
        A = rng.random((n, M)) < 0.4
        y = rng.integers(0, 2, n)
        P = RuleProblem.from_matrix(A, y)
        prefix = list(rng.permutation(M)[: rng.integers(0, M + 1)])
        s = prefix_objective(P, prefix, 0.03)
        assert s.mistakes == _direct_mistakes(A, y, prefix)
        assert math.isclose(s.objective, s.mistakes / n + 0.03 * len(prefix))


def test_rule_list_predict_json_roundtrip():
    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    rl = RuleList([Antecedent("x0", ((0, 1),)), Antecedent("x1 && not x0", ((1, 1), (0, 0)))],
                  [1, 0], 1, [0, 1], [(2, 0), (0, 1), (1, 0)])
    assert list(rl.predict(X)) == [1, 1, 0, 1]
    back = RuleList.from_json(rl.to_json())
    assert back == rl and list(back.predict(X)) == [1, 1, 0, 1]
    assert "if (x0) then predict 1" in rl.to_text()
    assert np.allclose(rl.rule_probabilities(), [1.0, 0.0, 1.0])
    json.loads(rl.to_json())


def test_ties_predict_one():
    A = np.array([[1], [1], [0], [0]], dtype=bool)
    P = RuleProblem.from_matrix(A, [1, 0, 0, 1])
    rl = rule_list_from_prefix(P, [0])
    assert rl.predictions == [1] and rl.default == 1


def test_problem_validation_errors():
    A = np.zeros((3, 2), dtype=bool)
    with pytest.raises(ValueError, match="0/1"):
        RuleProblem.from_matrix(A, [0, 1, 2])
    with pytest.raises(ValueError, match="3 samples"):
        RuleProblem.from_matrix(A, [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        RuleProblem.from_matrix(np.array([[0.0, np.nan], [1, 0], [0, 1]]), [0, 1, 1])
    with pytest.raises(ValueError, match="binary"):
        RuleProblem.from_matrix(np.array([[0, 3], [1, 0], [0, 1]]), [0, 1, 1])
    P = RuleProblem.from_matrix(A, [1, 1, 1])
    with pytest.raises(ValueError, match="one class"):
        P.check_two_classes()
    for bad in (-0.1, 1.0, float("nan"), "x"):
        with pytest.raises(ValueError, match=r"c must be (a number )?in"):
            P.check_regularization(bad)
    with pytest.warns(UserWarning, match="below 1/n"):
        P.check_regularization(0.1)


def test_certificate_is_honest():
    with pytest.raises(ValueError, match="exceeds objective"):
        Certificate(Termination.NODE_LIMIT, SolutionStatus.FEASIBLE, 0.3, 0.4, "x")
    with pytest.raises(ValueError, match="OPTIMAL"):
        Certificate(Termination.OPTIMAL, SolutionStatus.OPTIMAL, 0.3, 0.2, "x")
    c = Certificate(Termination.TIME_LIMIT, SolutionStatus.FEASIBLE, 0.3, 0.3, "x")
    assert c.proven_optimal and c.termination is Termination.TIME_LIMIT  # bound met, but stopped by a limit
    c2 = Certificate(Termination.NODE_LIMIT, SolutionStatus.FEASIBLE, 0.4, 0.3, "x")
    assert not c2.proven_optimal and math.isclose(c2.abs_gap, 0.1) and math.isclose(c2.rel_gap, 0.25)
    assert c2.to_dict()["proven_optimal"] is False
    c3 = Certificate(Termination.ERROR, SolutionStatus.NONE, None, -math.inf, "x", message="boom")
    assert c3.abs_gap == math.inf and not c3.proven_optimal


def test_brute_force_small():
    A = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0]], dtype=bool)
    y = np.array([1, 1, 0, 0, 1])
    P = RuleProblem.from_matrix(A, y)
    prefix, score = brute_force_rule_list(P, 0.01)
    assert score.mistakes == 0 and prefix == (0,)


def test_corels_format_roundtrip_and_errors(tmp_path):
    rng = np.random.default_rng(1)
    A = rng.random((20, 3)) < 0.5
    y = rng.integers(0, 2, 20)
    P = RuleProblem.from_matrix(A, y, ["a", "b", "c"])
    write_corels(P, tmp_path / "t")
    Q = read_corels(tmp_path / "t")
    assert (Q.captures == P.captures).all() and (Q.y == P.y).all() and Q.antecedent_names == ["a", "b", "c"]
    assert (bits.pack(read_minor(tmp_path / "t.minor")) == P.minority).all()
    bad = tmp_path / "bad"
    (tmp_path / "bad.out").write_text("{a} 0 1 1\n{b} 0 1\n")
    (tmp_path / "bad.label").write_text("{y:0} 1 0 0\n{y:1} 0 1 1\n")
    with pytest.raises(ValueError, match=r"bad.out:2: .*2 bits, expected 3"):
        read_corels(bad)
    (tmp_path / "bad.out").write_text("{a} 0 1 1\n{b} 0 2 1\n")
    with pytest.raises(ValueError, match=r"bad.out:2: non-binary value '2'"):
        read_corels(bad)
    (tmp_path / "bad.out").write_text("a 0 1 1\n")
    with pytest.raises(ValueError, match=r"bad.out:1: expected a line starting"):
        read_corels(bad)
    with pytest.raises(FileNotFoundError):
        read_corels(tmp_path / "missing")


def test_compas_minority_matches_reference_file(compas_stem):
    P = read_corels(compas_stem)
    assert (P.n_samples, P.n_antecedents) == (6489, 155)
    ref = read_minor(str(compas_stem) + ".minor", P.n_samples)
    # the reference marks one minority sample set; the count (the bound) must agree
    assert bits.count(P.minority) == int(ref.sum()) == 2063


def test_certify_closing_rule_and_lattice_are_inputs():
    """CORELS' closing rule proves a limit-stopped run optimal; the MIP's lattice rounds a bound
    up to the next achievable objective; neither promotes an error, and without them a
    limit-stopped run whose bound misses its objective stays feasible under its limit."""
    from rulecert import certify
    closed = certify(0.30, 0.25, Termination.NODE_LIMIT, solver="s", closed=True)
    assert closed.termination is Termination.OPTIMAL and closed.lower_bound == 0.30
    open_ = certify(0.30, 0.25, Termination.NODE_LIMIT, solver="s")
    assert open_.termination is Termination.NODE_LIMIT and open_.status is SolutionStatus.FEASIBLE
    # achievable objectives k / 10: a bound of 0.27 proves 0.3
    lattice = lambda b: math.ceil(b * 10 - 1e-9) / 10  # noqa: E731
    up = certify(0.30, 0.27, Termination.OPTIMAL, solver="s", lattice=lattice)
    assert up.proven_optimal and up.lower_bound == 0.30
    limit = certify(0.30, 0.27, Termination.TIME_LIMIT, solver="s", lattice=lattice)
    assert limit.termination is Termination.OPTIMAL and limit.lower_bound == 0.30
    below = certify(0.30, 0.17, Termination.TIME_LIMIT, solver="s", lattice=lattice)
    assert below.termination is Termination.TIME_LIMIT and below.lower_bound == 0.20
    assert below.status is SolutionStatus.FEASIBLE
    wrong = certify(0.30, 0.27, Termination.OPTIMAL, solver="s")
    assert wrong.termination is Termination.ERROR and "claimed optimal" in wrong.message
    err = certify(0.30, 0.30, Termination.ERROR, solver="s")
    assert err.termination is Termination.ERROR and err.status is SolutionStatus.FEASIBLE
