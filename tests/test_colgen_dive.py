"""The column-generation dive (``colgen/dive.py``): a primal heuristic that only adds columns
and a start to the restricted IP, never touches the bound, and is checked against brute
force on tiny instances."""
import math

import pytest

from rulecert.certificate import Termination
from rulecert.mipmodels.colgen import ColGenOptions, solve
from rulecert.mipmodels.colgen.presets import certify_settings
from rulecert.models.ruleset import ruleset_objective
from rulecert.problem import RuleProblem
from rulecert.reference import brute_force_ruleset

from test_colgen import (CASES, _case_problem, _check_certificate, _instance,
                         _with_and_without)

C, D = 9, 3
# max_iter=1: column generation stops early, so the restricted IP's columns are poor; no gap
# closing, so the bound is column generation's alone; no polishing, whose columns would
# blur the dive's account
LIMITED = dict(complexity_bound=C, max_clause_length=D, max_iter=1, close_gap=False,
               pricers="bnb", polish=False)


def _tiny(seed):
    X, y = _instance(seed, n=40, d=8, noise=0.25)
    return X, y, RuleProblem.from_matrix(X, y)


def test_the_dive_only_adds_to_the_restricted_ip_and_leaves_the_bound():
    """Column generation runs the same path with and without the dive, which then only adds
    columns and a start: on tiny instances (the restricted IP solved exactly) the objective is
    never worse, the bound is the same, and everything is valid against brute force."""
    better = 0
    for seed in range(8):
        X, y, p = _tiny(seed)
        _, c0, c1 = _with_and_without(X, y, p, "dive", C, D, {}, {"dive": True}, **LIMITED)
        dv = c1.stats["dive"]
        assert dv["stop"] in ("integral LP solution", "no fractional column fits")
        # the dive's rule set is a start of the restricted IP, which can only improve on it
        assert dv["objective"] is not None and c1.objective <= dv["objective"]
        assert dv["iterations"] <= ColGenOptions().primal.dive_rounds * (dv["fixed"] + 1)
        assert c1.stats["columns"] == c0.stats["columns"] + dv["columns"]
        better += c1.objective < c0.objective
    assert better >= 4, better


def test_a_dive_without_pricing_adds_no_column():
    X, y, p = _tiny(0)
    _, bf = brute_force_ruleset(X, y, C, D)
    rs, cert = solve(p, dive=True, dive_rounds=0, **LIMITED)
    _check_certificate(cert, rs, p, bf, C)
    dv = cert.stats["dive"]
    assert dv["iterations"] == 0 and dv["columns"] == 0 and dv["objective"] is not None


def test_the_dive_is_off_by_default_and_on_in_certification_runs():
    assert ColGenOptions().primal.dive is False
    assert certify_settings(100)["dive"] is True
    from rulecert.estimators import BooleanRuleCGClassifier
    X, y, _ = _tiny(1)
    est = BooleanRuleCGClassifier(complexity_bound=C, max_clause_length=D,
                                  solver_options=dict(max_iter=1, close_gap=False,
                                                      pricers="bnb", dive=True,
                                                      dive_rounds=3)).fit(X, y)
    dv = est.certificate_.stats["dive"]
    assert dv is not None and dv["iterations"] <= 3 * (dv["fixed"] + 1)
    score = ruleset_objective(est.ruleset_, RuleProblem.from_matrix(X, y))
    assert math.isclose(score.objective, est.certificate_.objective)


def test_bad_dive_options_fail_before_any_work():
    _, _, p = _tiny(0)
    with pytest.raises(ValueError, match="dive_rounds"):
        solve(p, dive=True, dive_rounds=-1)
    with pytest.raises(ValueError, match="dive must be True or False"):
        solve(p, dive="yes")
    from rulecert.estimators import BooleanRuleCGClassifier
    X, y, _ = _tiny(0)
    with pytest.raises(ValueError, match="dive_rounds"):
        BooleanRuleCGClassifier(solver_options={'dive_rounds': -2}).fit(X, y)


def test_a_stop_requested_during_the_dive_ends_it_and_the_fit_says_so(monkeypatch):
    """The user's callback stopping the solve while the dive prices: the dive ends after that
    pricing round and says why, and the fit is reported as interrupted (as in column
    generation) with a valid certificate."""
    import rulecert.mipmodels.colgen.improvers.dive as dive_module
    state = {"dive_priced": False}
    real = dive_module.price

    def pricing(*a, **kw):
        state["dive_priced"] = True
        return real(*a, **kw)
    monkeypatch.setattr(dive_module, "price", pricing)
    X, y, p = _tiny(0)
    _, bf = brute_force_ruleset(X, y, C, D)
    rs, cert = solve(p, dive=True, callback=lambda info: state["dive_priced"], **LIMITED)
    assert state["dive_priced"]
    assert cert.termination is Termination.INTERRUPTED
    assert cert.stats["stop_reason"] == "interrupted" and "in the dive" in cert.message
    assert cert.stats["dive"]["stop"] == "interrupted"
    assert cert.stats["dive"]["iterations"] == 1
    _check_certificate(cert, rs, p, bf, C)


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c[0]}-{c[1]}-{c[8]}" for c in CASES])
def test_the_dive_on_every_form_weighting_and_penalty_keeps_the_fit_exact(case):
    """The exactness cases of ``test_colgen.py`` (DNF / CNF, sample weights, false-negative
    weights, the penalized form without C) with the dive and one iteration of column
    generation: valid against brute force, and once gap closing ran the brute-force optimum."""
    seed, form, C_, D_, weighted, fnw, lam0, lam1, pricing = case
    problem, kw, bf_obj = _case_problem(case)
    rs, cert = solve(problem, complexity_bound=C_, max_clause_length=D_, form=form,
                     pricers=pricing, pricing_deterministic_time=20.0, max_iter=1, dive=True,
                     **kw)
    _check_certificate(cert, rs, problem, bf_obj, C_, **kw)
    dv = cert.stats["dive"]
    assert dv is not None and dv["stop"] in ("integral LP solution", "no fractional column fits")
    assert dv["objective"] >= cert.objective - 1e-9
    if cert.proven_optimal:
        assert math.isclose(cert.objective, bf_obj, abs_tol=1e-9)


def test_the_dive_prices_only_while_its_nodes_last():
    """``dive_nodes``: 0 prices nothing (the dive only fixes); a budget prices while
    nodes are left, each round's branch-and-bound calls getting what was left when it began;
    either way the fit stays valid against brute force."""
    X, y, p = _tiny(0)
    _, bf = brute_force_ruleset(X, y, C, D)
    seen = {}
    for limit in (0, 50, None):
        # no greedy generation, so that the branch-and-bound pricer runs in the dive
        rs, cert = solve(p, dive=True, dive_nodes=limit, _heuristic_max_generated=0,
                         **LIMITED)
        _check_certificate(cert, rs, p, bf, C)
        seen[limit] = cert.stats["dive"]
    assert seen[0]["iterations"] == seen[0]["nodes"] == seen[0]["columns"] == 0
    # the last round began with nodes left; its (at most two) calls had at most those
    assert 0 < seen[50]["nodes"] <= 3 * 50
    assert seen[None]["nodes"] > seen[50]["nodes"]         # the budget cut the dive short


def test_after_converged_column_generation_the_dive_prices_only_after_a_fixing():
    """Column generation that stopped because pricing found no clause leaves nothing to price
    at its last LP: the dive's pricing rounds all come after fixings."""
    ran = 0
    for seed in range(6):
        X, y, p = _tiny(seed)
        _, bf = brute_force_ruleset(X, y, C, D)
        rs, cert = solve(p, complexity_bound=C, max_clause_length=D, close_gap=False,
                         pricers="bnb", dive=True)
        _check_certificate(cert, rs, p, bf, C)
        assert cert.stats["stop_reason"] in ("converged", "pricing_exhausted")
        dv = cert.stats["dive"]
        assert dv["iterations"] <= ColGenOptions().primal.dive_rounds * dv["fixed"]
        ran += dv["fixed"] > 0
    assert ran >= 2, ran


def test_under_an_ip_node_limit_the_dive_never_makes_the_fit_worse():
    """The restricted IP runs first over column generation's columns, as without the dive,
    and again over the dive's from the better start: a node-limited IP over more columns
    alone could end worse (ILPD at C = 20: 128 against 124)."""
    for seed in range(8):
        X, y, p = _tiny(seed)
        _, bf = brute_force_ruleset(X, y, C, D)
        _, c0 = solve(p, ip_nodes=1, **LIMITED)
        rs, c1 = solve(p, ip_nodes=1, dive=True, **LIMITED)
        _check_certificate(c1, rs, p, bf, C)
        assert c1.objective <= c0.objective and c1.lower_bound == c0.lower_bound
