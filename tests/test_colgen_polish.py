"""Polishing (``colgen/polish.py``): local search over literals from the restricted IP's rule
set.  Its move scores are checked against every move evaluated one by one, and its fits
against brute force on tiny instances, on every form, weighting and penalty."""
import math

import numpy as np
import pytest

from rulecert.mipmodels.colgen import ColGenOptions, solve
from rulecert.mipmodels.colgen.presets import certify_settings
from rulecert.mipmodels.colgen.improvers.polish import LiteralSearch
from rulecert.mipmodels.colgen.state import State
from rulecert.models.ruleset import RuleSet, ruleset_objective
from rulecert.problem import RuleProblem
from rulecert.reference import brute_force_ruleset

from test_colgen import (CASES, _case_problem, _check_certificate, _instance,
                         _with_and_without)

C, D = 9, 3
# max_iter=1: column generation stops early with poor columns; no gap closing, so the
# restricted IP's rule set is what polishing starts from and the bound is column generation's
LIMITED = dict(complexity_bound=C, max_clause_length=D, max_iter=1, close_gap=False,
               pricers="bnb")


def _tiny(seed):
    X, y = _instance(seed, n=40, d=8, noise=0.25)
    return X, y, RuleProblem.from_matrix(X, y)


def _all_moves(ls: LiteralSearch, clauses):
    """Every rule set one move away (the moves of ``best_move``), within C and D."""
    d, out = ls.st.d, []
    for k, c in enumerate(clauses):
        out.append(clauses[:k] + clauses[k + 1:])
        for j in range(d):
            if j not in c and len(c) < ls.D:
                out.append(clauses[:k] + [tuple(sorted(c + (j,)))] + clauses[k + 1:])
        for i in range(len(c)):
            rest = c[:i] + c[i + 1:]
            if rest or ls.empty:
                out.append(clauses[:k] + [rest] + clauses[k + 1:])
            for j in range(d):
                if j not in c:
                    out.append(clauses[:k] + [tuple(sorted(rest + (j,)))] + clauses[k + 1:])
    for j in range(d):
        out.append(clauses + [(j,)])
        if ls.D >= 2:
            out.extend(clauses + [(i, j)] for i in range(j))
    if ls.empty and () not in clauses:
        out.append(clauses + [()])
    return [r for r in out if ls.complexity(r) <= ls.C]


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c[0]}-{c[1]}" for c in CASES])
def test_the_best_move_is_the_best_of_every_move_evaluated_one_by_one(case):
    """``best_move``'s one-product scores against the exact objective of every neighbour, from
    random rule sets, on every form, weighting and penalty; ``objective`` against
    ``ruleset_objective`` on the original data."""
    seed, form, C_, D_, weighted, fnw, lam0, lam1, _ = case
    X, y = _instance(seed)
    sw = np.random.default_rng(seed + 100).integers(1, 4, len(y)).astype(float) if weighted else None
    problem = RuleProblem.from_matrix(X, y, sample_weight=sw)
    o = ColGenOptions.of(complexity_bound=C_, max_clause_length=D_, form=form, fn_weight=fnw,
                         clause_penalty=lam0, literal_penalty=lam1)
    st = State(problem, o)
    rng = np.random.default_rng(seed)
    checked = 0
    for empty in (True, False):
        ls = LiteralSearch(st, empty)
        for _ in range(4):
            clauses = []
            while True:   # a random rule set within C and D
                c = tuple(sorted(set(rng.integers(st.d, size=int(rng.integers(1, st.D + 1))))))
                if ls.complexity(clauses + [c]) > ls.C or len(clauses) >= 3:
                    break
                clauses.append(c)
            obj = ls.objective(clauses)
            rs = RuleSet.from_feature_sets(clauses, form)
            assert math.isclose(obj, ruleset_objective(
                rs, problem, fn_weight=fnw, clause_penalty=lam0,
                literal_penalty=lam1).objective, abs_tol=1e-9)
            best = min((ls.objective(r) for r in _all_moves(ls, clauses)), default=math.inf)
            pred, mv = ls.best_move(clauses, obj)
            if best < obj - 1e-6:
                assert mv is not None
                assert math.isclose(pred, best, abs_tol=1e-4)
                assert math.isclose(ls.objective(ls.apply(clauses, mv)), best, abs_tol=1e-9)
                checked += 1
            else:
                assert mv is None
    assert checked >= 2, checked


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_polishing_only_improves_the_restricted_ip_and_leaves_the_bound():
    """Column generation and the restricted IP run the same path with and without polishing,
    which then only adds columns and a better incumbent: on tiny instances the objective is
    never worse, the bound is the same, everything is valid against brute force, and the
    improved rule sets are the exact objective of their clauses.  ``max_iter=1`` leaves the
    restricted IP poor on purpose."""
    better = 0
    for seed in range(12):
        X, y, p = _tiny(seed)
        bf, c0, c1 = _with_and_without(X, y, p, "polish", C, D, {"polish": False}, {}, **LIMITED)
        pl = c1.stats["polish"]
        if c0.lower_bound >= c0.objective:
            continue                          # proven optimal: nothing to polish
        assert pl["objective_before"] == c0.objective and pl["objective"] == c1.objective
        assert pl["kicks"] == ColGenOptions().primal.polish_kicks
        if c1.objective < c0.objective:
            assert pl["new_columns"] >= 1
            assert c1.stats["columns"] == c0.stats["columns"] + pl["new_columns"]
            better += 1
        # measured: polishing reaches the brute-force optimum on all twelve (a heuristic: a
        # change that loses one of them should say why)
        assert c1.objective == bf, (seed, c1.objective, bf)
    assert better >= 9, better   # all but seeds 6, 7 and 9, whose restricted IP is optimal


def test_polishing_is_reproducible_and_its_kicks_are_counted():
    X, y, p = _tiny(3)
    runs = [solve(p, polish_kicks=k, **LIMITED) for k in (0, 50, 50)]
    assert runs[0].certificate.stats["polish"]["kicks"] == 0
    assert runs[1].certificate.stats["polish"]["kicks"] == 50
    assert runs[1].model.clauses == runs[2].model.clauses
    assert runs[1].certificate.objective == runs[2].certificate.objective


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c[0]}-{c[1]}-{c[8]}" for c in CASES])
def test_polishing_on_every_form_weighting_and_penalty_keeps_the_fit_exact(case):
    """The exactness cases of ``test_colgen.py`` with one iteration of column generation, then
    polishing and gap closing: valid against brute force (gap closing's restricted IP is
    solved again over the columns polishing added), and once proven, the optimum."""
    seed, form, C_, D_, weighted, fnw, lam0, lam1, pricing = case
    problem, kw, bf_obj = _case_problem(case)
    for close_gap in (False, True):
        rs, cert = solve(problem, complexity_bound=C_, max_clause_length=D_, form=form,
                         pricers=pricing, pricing_deterministic_time=20.0, max_iter=1,
                         close_gap=close_gap, **kw)
        _check_certificate(cert, rs, problem, bf_obj, C_, **kw)
        assert max((len(c) for c in rs.clauses), default=0) <= D_
        pl = cert.stats["polish"]
        if pl is not None:
            assert pl["objective"] <= pl["objective_before"]


def test_a_stale_restricted_ip_bound_is_not_used_after_polishing(monkeypatch):
    """Gap closing may bound by the restricted IP's own bound only over the columns that IP
    was solved with: when polishing added columns and the enumeration adds none, gap closing
    solves the IP again over all of them (before polishing existed, it took the IP's bound
    as it was, which need not hold over the polished columns).  The enumeration is faked to
    return nothing and to prove nothing about the clauses it leaves out (their bound -inf: a
    fake claiming them all >= its threshold would be a false pricing proof, which gap
    closing's Lagrangian bound would trust), so only the mechanism is checked, not the
    bound."""
    from rulecert.mipmodels.colgen.provers import gap_closing
    from rulecert.mipmodels.colgen.pricing.bnb import BnBResult
    solved = []
    real = gap_closing.resolve

    def counting(run, ip, obj):
        solved.append(run.master.n_columns)
        return real(run, ip, obj)

    def nothing_below(X, v, const, lit, D, upper, **kw):
        return BnBResult([], [], -math.inf, True, 1, 0.0, unheld_bound=-math.inf)
    monkeypatch.setattr(gap_closing, "resolve", counting)
    monkeypatch.setattr(gap_closing, "price_by_branch_and_bound", nothing_below)
    X, y, p = _tiny(2)            # polishing improves 14 -> 10 with a new column
    rs, cert = solve(p, complexity_bound=C, max_clause_length=D, max_iter=1, pricers="bnb")
    pl, gc = cert.stats["polish"], cert.stats["gap_closing"]
    assert pl["new_columns"] >= 1 and pl["objective"] < pl["objective_before"]
    assert gc["added"] == 0
    assert solved == [cert.stats["columns"]]


def test_ctrl_c_during_polishing_keeps_its_best_and_stops_the_solve(monkeypatch):
    """A stop asked between kicks (here Ctrl-C after the tenth) ends polishing with the best
    rule set so far and halts the solve as interrupted, with a certificate valid against brute
    force; gap closing is skipped."""
    from rulecert.certificate import Termination
    from rulecert.mipmodels.colgen.improvers import polish
    from rulecert.monitor import request_interrupt
    real, kicks = polish.LiteralSearch.kick, []

    def kick(self, clauses, rng):
        kicks.append(1)
        if len(kicks) == 10:
            request_interrupt()
        return real(self, clauses, rng)
    monkeypatch.setattr(polish.LiteralSearch, "kick", kick)
    X, y, p = _tiny(2)
    _, bf = brute_force_ruleset(X, y, C, D)
    rs, cert = solve(p, complexity_bound=C, max_clause_length=D, max_iter=1, pricers="bnb")
    _check_certificate(cert, rs, p, bf, C)
    assert cert.termination is Termination.INTERRUPTED
    assert "(polishing)" in cert.message
    assert cert.stats["polish"]["kicks"] == 10 and cert.stats["gap_closing"] == {}
    assert cert.stats["polish"]["objective"] <= cert.stats["polish"]["objective_before"]


def test_bad_polish_options_fail_before_any_work():
    X, y, p = _tiny(0)
    for bad in (-1, 1.5, None, "3"):
        with pytest.raises((ValueError, TypeError), match="polish_kicks"):
            solve(p, polish_kicks=bad, **LIMITED)
    for bad in ("no", 0, None):
        with pytest.raises(ValueError, match="polish must be True or False"):
            solve(p, polish=bad, **LIMITED)


def test_certification_runs_polish_longer_on_counted_kicks_scaled_to_the_rows():
    assert ColGenOptions().primal.polish is True
    assert certify_settings(500)["polish_kicks"] == 2000
    assert certify_settings(4000)["polish_kicks"] == 1000
    assert certify_settings(10**7)["polish_kicks"] == 50


def test_the_estimators_pass_polishing_on():
    """``polish`` / ``polish_kicks`` (``solver_options``) of both estimators reach the solve
    (its record)."""
    from rulecert.estimators.brcg import BooleanRuleCGClassifier, BooleanRuleCGCV
    X, y, _ = _tiny(2)
    so = dict(max_iter=1, close_gap=False, pricers="bnb")
    off = BooleanRuleCGClassifier(complexity_bound=C, max_clause_length=D,
                                  solver_options=dict(so, polish=False)).fit(X, y)
    on = BooleanRuleCGClassifier(complexity_bound=C, max_clause_length=D,
                                 solver_options=dict(so, polish_kicks=7)).fit(X, y)
    assert off.certificate_.stats["polish"] is None
    assert on.certificate_.stats["polish"]["kicks"] == 7
    assert on.certificate_.objective <= off.certificate_.objective
    cv = BooleanRuleCGCV(complexity_bounds=[C], cv=2, max_clause_length=D,
                         solver_options=dict(so, polish_kicks=3)).fit(X, y)
    assert cv.certificate_.stats["polish"]["kicks"] == 3
