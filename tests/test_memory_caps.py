"""A search whose memory would grow without bound stops cleanly at its memory cap, with its
incumbent, a valid bound and the gap (issue 14); the cap is on by default."""
from __future__ import annotations

import inspect

import pytest

from rulecert.certificate import SolutionStatus, Termination
from rulecert.limits import default_memory_limit_mb, resident_memory_bytes


def _small_cap(headroom_mb=50.0) -> float:
    return resident_memory_bytes() / 2**20 + headroom_mb


@pytest.fixture(scope="module")
def compas(compas_stem):
    from rulecert.mining import read_corels
    return read_corels(str(compas_stem))


def _assert_stopped_by_memory(cert, cap):
    assert cert.termination is Termination.MEMORY_LIMIT, cert.summary()
    assert cert.status is SolutionStatus.FEASIBLE and not cert.proven_optimal
    assert cert.lower_bound <= cert.objective and cert.rel_gap > 0
    assert "memory" in cert.message


def test_corels_stops_at_a_small_cap(compas):
    from rulecert.models.rulelist import rule_list_objective
    from rulecert.search import corels
    cap = _small_cap()
    model, cert = corels.solve(compas, 0.001, memory_limit_mb=cap, time_limit=60)
    _assert_stopped_by_memory(cert, cap)
    assert rule_list_objective(model, compas, 0.001).objective == pytest.approx(cert.objective)
    assert cert.stats["peak_rss_mb"] < cap + 200     # stopped near the cap, not far past it


@pytest.mark.parametrize("program", ["frl", "softfrl"])
def test_frl_branch_and_bound_stops_at_a_small_cap(compas, program):
    from rulecert.search.falling.bnb import branch_and_bound
    cap = _small_cap(30.0)
    C1 = 0.5 if program == "softfrl" else None
    model, cert = branch_and_bound(compas, program, 7.0, 1e-6, C1, memory_limit_mb=cap,
                                   time_limit=60)
    _assert_stopped_by_memory(cert, cap)
    assert model.to_dict()["rules"] is not None


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_rashomon_breadth_first_stops_at_a_small_cap(compas):
    from rulecert.search.corels import rashomon_set
    rs = rashomon_set(compas, 0.01, epsilon=0.2, policy="bfs", max_models=None,
                      memory_limit_mb=_small_cap(), time_limit=60)
    cert = rs.certificate
    assert cert.termination == "memory_limit" and not cert.complete
    assert cert.n_found == len(rs)


def test_column_generation_stops_at_its_cap():
    from rulecert.mipmodels.colgen import solve
    from rulecert.problem import RuleProblem
    import numpy as np
    rng = np.random.default_rng(0)
    X = rng.random((200, 12)) < 0.5
    y = (X[:, 0] & X[:, 1]) | (rng.random(200) < 0.1)
    problem = RuleProblem.from_matrix(X, y.astype(int))
    # a cap below what the process already holds: the first check stops the run
    _, cert = solve(problem, complexity_bound=20, memory_limit_mb=1.0)
    assert cert.termination is Termination.MEMORY_LIMIT
    assert cert.objective is None or cert.lower_bound <= cert.objective


def test_the_default_cap_is_on_everywhere():
    from rulecert.estimators import (BooleanRuleCGClassifier, CorelsClassifier,
                                     FallingRuleListClassifier, RuleListMIPClassifier,
                                     SoftFallingRuleListClassifier)
    from rulecert.search import corels
    from rulecert.search.corels import rashomon_set
    from rulecert.search.falling import solve
    from rulecert.search.falling.bnb import branch_and_bound
    from rulecert.search.falling.mc import monte_carlo
    for f in (corels.solve, rashomon_set, branch_and_bound, monte_carlo, solve):
        assert inspect.signature(f).parameters["memory_limit_mb"].default == "auto"
    for est in (CorelsClassifier, FallingRuleListClassifier, SoftFallingRuleListClassifier,
                RuleListMIPClassifier, BooleanRuleCGClassifier):
        assert est().memory_limit_mb == "auto"
    assert 0 < default_memory_limit_mb()


def test_cli_memory_flag(compas_stem, capsys):
    import json

    from rulecert.cli import main
    rc = main(["corels", "--data", str(compas_stem), "--c", "0.001", "--json", "--quiet",
               "--memory-limit-mb", str(_small_cap())])
    res = json.loads(capsys.readouterr().out)
    assert rc == 0 and res["termination"] == "memory_limit"
    assert res["lower_bound"] <= res["objective"]
    assert main(["corels", "--data", str(compas_stem), "--c", "0.05", "--quiet",
                 "--memory-limit-mb", "none"]) == 0
    for bad in ("-5", "lots"):
        with pytest.raises(SystemExit) as exc:
            main(["corels", "--data", str(compas_stem), "--c", "0.05", "--memory-limit-mb", bad])
        assert exc.value.code == 2
    assert "expected" in capsys.readouterr().err
