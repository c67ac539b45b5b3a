"""strengthen_bound: the certified bound of a stopped column-generation solve, raised later by
counted work at its last duals; checked against brute force on tiny instances."""
import math

import pytest

from rulecert.mipmodels.colgen import solve, strengthen_bound
from rulecert.models.ruleset import ruleset_objective
from rulecert.problem import RuleProblem
from rulecert.reference import brute_force_ruleset
from test_colgen import _instance


def _problem(X, y):
    return RuleProblem.from_matrix(X, y, [f"f{j}" for j in range(X.shape[1])])


def _stopped(seed):
    """A solve stopped after one or two iterations, with a weak bound (no bound search)."""
    X, y = _instance(seed + 400, n=40, d=9, noise=0.25)
    C, D = [(6, 3), (9, 4), (12, 5), (8, 7)][seed % 4]
    p = _problem(X, y)
    sol = solve(p, complexity_bound=C, max_clause_length=D, max_iter=1 + seed % 2,
                pricers="heuristic", bound_search_steps=0, close_gap=False, seed=seed)
    _, opt = brute_force_ruleset(X, y, C, D)
    return p, sol, opt


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_the_bound_rises_never_falls_and_stays_below_brute_force():
    raised = 0
    for seed in range(8):
        p, sol, opt = _stopped(seed)
        before = sol.certificate
        assert sol.bound_state is not None and not before.proven_optimal
        assert sol.bound_state.searched_nodes == 0   # max_iter came before any last search
        bounds = []
        for budget in (1, 30, 300, 3000, 30_000, 300_000):
            out = strengthen_bound(p, sol, budget)
            cert = out.certificate
            assert out.model is sol.model and cert.objective == before.objective
            assert math.isclose(ruleset_objective(out.model, p).objective, cert.objective)
            assert before.lower_bound <= cert.lower_bound <= opt + 1e-9
            assert cert.stats["bound_strengthening"]["nodes"] <= budget
            assert cert.history[-1]["lower_bound"] == cert.lower_bound
            bounds.append(cert.lower_bound)
        assert all(a <= b for a, b in zip(bounds, bounds[1:])), (seed, bounds)
        if bounds[-1] > before.lower_bound:
            raised += 1
            assert "raised after the solve" in cert.message
            assert "rule sets of complexity <=" in cert.message
        if cert.lower_bound >= cert.objective - 1e-9:
            assert cert.proven_optimal
        else:
            assert not cert.proven_optimal and cert.termination == before.termination
    assert raised >= 4


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_a_budget_within_the_solves_own_last_search_is_skipped_and_could_not_raise_it():
    """A solve whose pricing came up empty ran the descent at its last duals with
    ``final_bound_node_limit`` nodes.  The same descent (from the recorded share) with any
    budget up to that proves no more than the solve's bound, so ``strengthen_bound`` skips
    it and says why; a larger budget continues, never past brute force."""
    from rulecert.mipmodels.colgen.provers.lagrangian import bound_pricer, final_bound_search
    from rulecert.mipmodels.colgen.state import State
    raised = repeated = 0
    for seed in (0, 2, 3):
        X, y = _instance(seed + 700, n=60, d=12, noise=0.3)
        C, D = [(9, 4), (12, 5), (8, 7)][seed % 3]
        p = _problem(X, y)
        sol = solve(p, complexity_bound=C, max_clause_length=D, pricers="bnb",
                    pricing_nodes=30, _found_nodes=None, _heuristic_max_generated=5,
                    beam_width=1, bound_nodes=20, final_bound_nodes=300,
                    close_gap=False, seed=seed)
        state, before = sol.bound_state, sol.certificate
        assert before.stats["stop_reason"] == "pricing_exhausted"
        assert state.searched_nodes == 300 and not before.proven_optimal
        st = State(p, state.options)
        last = [h for h in before.history if "iteration_bound" in h][-1]["iteration_bound"]
        for budget in (1, 50, 150, 300):
            again = final_bound_search(st, state.options, state.duals, state.pricing_bound, [],
                                       state.ub, bound_pricer(st, state.options), budget,
                                       share=state.share)
            assert again.bound <= before.lower_bound, (seed, budget)
        assert again.bound == last   # the solve's own last search, step for step
        skipped = strengthen_bound(p, sol, 300)
        b = skipped.certificate.stats["bound_strengthening"]
        assert "already spent up to 300 nodes" in b["skipped"] and b["nodes"] == 0
        assert skipped.certificate.lower_bound == before.lower_bound
        assert skipped.model is sol.model and skipped.certificate.message == before.message
        _, opt = brute_force_ruleset(X, y, C, D)
        mid = strengthen_bound(p, sol, 600)
        if not mid.certificate.proven_optimal:            # nor is its own search repeated
            repeated += 1
            again = strengthen_bound(p, mid, 600).certificate
            assert "already spent up to 600 nodes" in again.stats["bound_strengthening"][
                "skipped"] and again.lower_bound == mid.certificate.lower_bound
        more = strengthen_bound(p, sol, 3000).certificate
        assert more.stats["bound_strengthening"]["skipped"] is None
        assert before.lower_bound <= more.lower_bound <= opt + 1e-9
        raised += more.lower_bound > before.lower_bound
    assert raised >= 2 and repeated >= 1


def test_bad_calls_are_refused_before_any_work():
    p, sol, _ = _stopped(1)
    X, y = _instance(999, n=40, d=9)
    with pytest.raises(ValueError, match="not the one this solution was solved on"):
        strengthen_bound(_problem(X, y), sol, 1000)
    with pytest.raises(ValueError, match="node_budget"):
        strengthen_bound(p, sol, 0)
    with pytest.raises(ValueError, match="node_budget"):
        strengthen_bound(p, sol, None)
    with pytest.raises(ValueError, match="no bound state"):
        strengthen_bound(p, sol.__class__(sol.model, sol.certificate, [], []), 1000)


def test_a_proven_solution_is_returned_as_it_is():
    X, y = _instance(5, n=30, d=6)
    p = _problem(X, y)
    sol = solve(p, complexity_bound=6, max_clause_length=3, pricers="bnb")
    assert sol.certificate.proven_optimal
    assert strengthen_bound(p, sol, 10_000) is sol


def test_ctrl_c_stops_the_search_with_the_bound_proven_so_far(monkeypatch):
    """Ctrl-C (the request it sets) during the first pricing call ends the descent: no call
    does work after it, the bound is what was proven until then, still valid, and the stats
    say it was stopped.  Uninterrupted, the same search makes more calls."""
    from rulecert.mipmodels.colgen import strengthen as S
    from rulecert.monitor import request_interrupt
    X, y = _instance(401, n=40, d=9, noise=0.25)
    p = _problem(X, y)
    sol = solve(p, complexity_bound=9, max_clause_length=4, max_iter=4, pricers="heuristic",
                bound_search_steps=0, close_gap=False, seed=1)
    _, opt = brute_force_ruleset(X, y, 9, 4)
    orig = S.bound_pricer

    def run(interrupt):
        nodes = []

        def pricer(st, o, *a, **k):
            inner = orig(st, o, *a, **k)

            def price_at(*args):
                out = inner(*args)
                nodes.append(out[4])
                if interrupt:
                    request_interrupt()
                return out
            return price_at
        monkeypatch.setattr(S, "bound_pricer", pricer)
        return strengthen_bound(p, sol, 10**6).certificate, nodes

    full, calls = run(False)
    assert len(calls) > 1 and full.stats["bound_strengthening"]["interrupted"] is False
    cert, calls = run(True)
    assert cert.stats["bound_strengthening"]["interrupted"] is True
    assert len(calls) <= 2 and cert.stats["bound_strengthening"]["nodes"] == calls[0]
    assert sol.certificate.lower_bound <= cert.lower_bound <= opt + 1e-9


def test_the_estimators_strengthen_their_fit():
    """BooleanRuleCGClassifier.strengthen_bound on the training data raises the certificate's
    bound (never above brute force, the rule set unchanged); other data is refused."""
    import numpy as np
    from sklearn.exceptions import NotFittedError

    from rulecert.estimators import BooleanRuleCGClassifier
    X, y01 = _instance(400, n=40, d=9, noise=0.25)
    y = np.where(y01 == 1, "yes", "no")
    clf = BooleanRuleCGClassifier(complexity_bound=9, max_clause_length=4, solver_options={'max_iter': 2, 'pricers': "heuristic", 'bound_search_steps': 0, 'close_gap': False})
    with pytest.raises(NotFittedError):
        clf.strengthen_bound(X, y, 1000)
    clf.fit(X, y)
    before, rules = clf.certificate_, clf.ruleset_
    _, opt = brute_force_ruleset(X, y01, 9, 4)
    assert not before.proven_optimal
    with pytest.raises(ValueError, match="not the one this solution was solved on"):
        clf.strengthen_bound(X[::-1], y, 1000)
    with pytest.raises(ValueError, match="not among the fitted classes"):
        clf.strengthen_bound(X, np.where(y01 == 1, "yes", "maybe"), 1000)
    with pytest.raises(ValueError, match="node_budget"):
        clf.strengthen_bound(X, y, 0)
    assert clf.strengthen_bound(X, y, 300_000) is clf
    cert = clf.certificate_
    assert clf.ruleset_ is rules and cert.objective == before.objective
    assert math.isclose(ruleset_objective(rules, _problem(X, y01)).objective, cert.objective)
    assert before.lower_bound < cert.lower_bound <= opt + 1e-9
    assert cert.stats["bound_strengthening"]["bound_before"] == before.lower_bound
