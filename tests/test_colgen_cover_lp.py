"""The error-free cover LP bound (rulecert.mipmodels.colgen.provers.cover_lp): against the exact LP
over every pure clause and the brute-force optimum on tiny instances, monotone in its node
budget, and its place in a solve's certificate."""
import itertools
import math
import time

import numpy as np
import pytest
from scipy.optimize import linprog

from rulecert.mipmodels.colgen import BoundKind, solve
from rulecert.mipmodels.colgen.provers.cover_lp import cover_lp_bound
from rulecert.mipmodels.colgen.options import ColGenOptions
from rulecert.mipmodels.colgen.provers.packing import least_error_weight, packing_bound
from rulecert.mipmodels.colgen.state import State
from rulecert.models.ruleset import ruleset_objective
from rulecert.problem import RuleProblem
from rulecert.reference.ruleset import brute_force_ruleset
from test_colgen_packing import _data as packing_data, noisy_case
from test_colgen_packing import trivial_planted_fit   # planted DNF: error-free at its C


def _data(seed, n=18, d=5):
    """The packing tests' random instances, without the patterns that have both labels."""
    X, y = packing_data(seed, n, d)
    _, inv = np.unique(X, axis=0, return_inverse=True)
    inv = inv.ravel()
    mixed = np.array([len(set(y[inv == g])) > 1 for g in inv])
    X, y = X[~mixed], y[~mixed]                # no pattern with both labels
    if y.sum() in (0, len(y)):
        y[0] = 1 - y[0]
    return X, y


def _exact_lp(st) -> float:
    """Z: the LP of the least-complexity error-free cover over every pure clause of 1..D
    literals (enumerated), solved by scipy; inf when some positive group has no pure
    clause."""
    neg = st.X[st.neg > 0]
    Xp = st.X[st.P]
    cols, costs = [], []
    for r in range(1, st.D + 1):
        for cl in itertools.combinations(range(st.d), r):
            if np.logical_and.reduce(neg[:, list(cl)], axis=1).any():
                continue
            cov = np.logical_and.reduce(Xp[:, list(cl)], axis=1)
            if cov.any():
                cols.append(cov)
                costs.append(1.0 + r)
    A = np.array(cols, dtype=float).T if cols else np.zeros((len(Xp), 0))
    if not cols or (A.sum(axis=1) == 0).any():
        return math.inf
    res = linprog(costs, A_ub=-A, b_ub=-np.ones(len(Xp)), bounds=(0, None), method="highs")
    assert res.status == 0
    return float(res.fun)


def _exact_ip(st) -> float:
    """The least complexity of an error-free cover by pure clauses of 1..D literals
    (enumerated, scipy's MILP); inf when there is none."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    neg, Xp = st.X[st.neg > 0], st.X[st.P]
    cols, costs = [], []
    for r in range(1, st.D + 1):
        for cl in itertools.combinations(range(st.d), r):
            if not np.logical_and.reduce(neg[:, list(cl)], axis=1).any():
                cols.append(np.logical_and.reduce(Xp[:, list(cl)], axis=1))
                costs.append(1.0 + r)
    A = np.array(cols, dtype=float).T if cols else np.zeros((len(Xp), 0))
    if not cols or (A.sum(axis=1) == 0).any():
        return math.inf
    res = milp(costs, constraints=LinearConstraint(A, lb=1), integrality=np.ones(len(costs)),
               bounds=Bounds(0, 1))
    assert res.status == 0
    return float(res.fun)


def _odd_cycles():
    """Odd cycles of positive groups (literal i true on groups i and i + 1 only), a negative
    group false on them, and random extra literals: the cover LP is k (every cycle literal
    at 1/2) and the least error-free cover k + 1, so at C = k no LP bound proves an error;
    the reduced-cost enumeration does."""
    for k in (3, 5, 7):
        for extra, seed in itertools.product((0, 2, 3), (0, 1)):
            rng = np.random.default_rng(100 * k + 10 * extra + seed)
            P = np.zeros((k, k), dtype=bool)
            for i in range(k):
                P[i, i] = P[(i + 1) % k, i] = True
            X = np.c_[np.r_[P, np.zeros((1 + extra, k), dtype=bool)],
                      rng.random((k + 1 + extra, extra)) < 0.5]
            if len(np.unique(X, axis=0)) < len(X):
                continue
            y = np.r_[np.ones(k, dtype=int), np.zeros(1 + extra, dtype=int)]
            p = RuleProblem.from_matrix(X, y)
            yield X, y, State(p, ColGenOptions.of(complexity_bound=k, empty_clause=False))


def test_the_enumeration_proves_beyond_the_lp_and_only_where_no_error_free_cover_fits():
    """Where the cover LP is at most C the reduced-cost enumeration decides: on the odd
    cycles (LP = C < the least error-free cover) it proves, and on the random instances
    whose LP is at most C it proves only where the exact least error-free cover (every pure
    clause enumerated, an exact MILP) exceeds C; the brute-force optimum then errs."""
    cycles = 0
    for X, y, st in _odd_cycles():
        Z, IP = _exact_lp(st), _exact_ip(st)
        assert Z <= st.C + 1e-9 < IP, (Z, IP, st.C)
        cl = cover_lp_bound(st, None)
        assert cl.bound == 1.0 and "enumeration" in cl.reason, (cl.stopped, cl.reason)
        assert cl.enumeration_ip > st.C and cl.enumerated >= 1 and not cl.stopped
        if st.C <= 5:
            _, opt = brute_force_ruleset(X, y, int(st.C), int(st.C) - 1, empty_clause=False)
            assert opt >= 1
        cycles += 1
    assert cycles >= 6, cycles
    checked = 0
    for seed, X, y, sw, C, form, st in _instances():
        Z = _exact_lp(st)
        if not math.isfinite(Z) or Z > C:
            continue
        cl = cover_lp_bound(st, None)
        checked += 1
        assert (cl.bound > 0) == (_exact_ip(st) > C), (seed, cl.stopped, cl.reason)
        if cl.bound == 0:
            assert cl.stopped == "lp_at_most_C" and cl.enumeration_ip <= C + 1e-6
    assert checked >= 10, checked


def test_the_enumeration_needs_its_whole_budget():
    """Its cover LPs are counted with the proofs': a budget that stops it proves nothing,
    and the bound never decreases with the budget."""
    for X, y, st in list(_odd_cycles())[:4]:
        full = cover_lp_bound(st, None)
        assert full.bound == 1.0 and full.proof_lps >= 2
        bounds = [cover_lp_bound(st, b).bound for b in
                  (0, 1, full.proof_lps - 1, full.proof_lps, None)]
        assert bounds == sorted(bounds) and bounds[0] == 0 and bounds[-1] == 1.0, bounds
        assert cover_lp_bound(st, full.proof_lps - 1).bound == 0


def _instances():
    """Noisy tiny instances (DNF and CNF, weights), C from 3 to 8, whose groups have one
    label each and some negative group."""
    for seed in range(60):
        X, y, C, form, sw = noisy_case(seed, _data, c0=3)
        p = RuleProblem.from_matrix(X, y, sample_weight=sw)
        st = State(p, ColGenOptions.of(complexity_bound=C, form=form, empty_clause=False))
        if np.any(st.neg[st.P] > 0):
            continue
        yield seed, X, y, sw, C, form, st


def test_proves_exactly_when_the_exact_lp_exceeds_C_and_never_beyond_the_optimum():
    """Without limits it proves exactly when the exact LP over every pure clause exceeds C
    (ties within 1e-6 skipped); its proven LP bound never exceeds that LP, its last
    restricted LP is never below it, and whenever it proves, the brute-force optimum is at
    least one error's weight.  It must prove on instances the packing bound leaves open."""
    proved = beyond_packing = checked = 0
    for seed, X, y, sw, C, form, st in _instances():
        Z = _exact_lp(st)
        cl = cover_lp_bound(st, None)
        checked += 1
        assert cl.lp_bound <= Z + 1e-6, (seed, cl.lp_bound, Z)
        if math.isfinite(Z) and cl.restricted_lp is not None:
            assert cl.restricted_lp >= Z - 1e-6, (seed, cl.restricted_lp, Z)
        if not math.isfinite(Z) or abs(Z - math.floor(C)) < 1e-6:
            continue
        assert (cl.bound > 0) == (Z > C), (seed, Z, C, cl.stopped, cl.reason)  # (no IP gap)
        if cl.bound > 0:
            proved += 1
            assert cl.bound == st.round_bound(least_error_weight(st))
            assert not cl.stopped and "cover" in cl.reason
            _, opt = brute_force_ruleset(X, y, C, C - 1, sample_weight=sw, form=form)
            assert opt >= cl.bound - 1e-9, (seed, opt, cl.bound)
            beyond_packing += packing_bound(st).bound == 0
        else:
            assert cl.stopped == "lp_at_most_C", (seed, cl.stopped)
    assert checked >= 40 and proved >= 5 and beyond_packing >= 1, (
        checked, proved, beyond_packing)


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_the_bound_never_decreases_with_its_node_budget():
    """Its work is counted: a larger budget of cover LPs repeats the smaller one's steps, so
    it proves whenever a smaller budget did, and the same budget gives the same record."""
    tried = 0
    for seed, X, y, sw, C, form, st in _instances():
        full = cover_lp_bound(st, None)
        if full.bound <= 0 or full.proof_lps < 2:
            continue
        tried += 1
        budgets = [0, 1, full.proof_lps // 2, full.proof_lps, 2 * full.proof_lps, None]
        bounds = [cover_lp_bound(st, b).bound for b in budgets]
        assert bounds == sorted(bounds), (seed, bounds)
        assert bounds[0] == 0 and bounds[-1] == full.bound
        again = cover_lp_bound(st, full.proof_lps // 2)
        first = cover_lp_bound(st, full.proof_lps // 2)
        assert again.stats() | {"wall_time": 0} == first.stats() | {"wall_time": 0}
    assert tried >= 2, tried


def _subsets_first(monkeypatch):
    """The whole LP's Farley proofs get no cover LP: a finite budget goes to the subsets
    stage wherever the restricted LP stays above C'."""
    from rulecert.mipmodels.colgen.provers import cover_lp
    monkeypatch.setattr(cover_lp, "WHOLE_PROOF_LPS", 0)


def test_subsets_of_the_groups_prove_only_where_no_error_free_cover_fits(monkeypatch):
    """The subsets stage (every proof over the whole LP skipped): on the random instances
    whose exact LP exceeds C it proves exactly where the exact least error-free cover (an
    exact MILP over every pure clause) exceeds C, never beyond the brute-force optimum, its
    LP bound never above the exact LP; a proof names its subset, and proper subsets of the
    positive groups prove."""
    _subsets_first(monkeypatch)
    proved = tried = strict = 0
    for seed, X, y, sw, C, form, st in _instances():
        Z = _exact_lp(st)
        if not math.isfinite(Z) or Z <= C + 1e-6:
            continue
        cl = cover_lp_bound(st, 10 ** 9)
        tried += 1
        assert cl.subsets, (seed, cl.stopped)
        assert cl.lp_bound <= Z + 1e-6
        assert (cl.bound > 0) == (_exact_ip(st) > C), (seed, cl.stopped, cl.subsets)
        if cl.bound > 0:
            proved += 1
            assert "of the dual mass of the whole cover LP" in cl.reason and not cl.stopped
            strict += cl.subsets[-1]["groups"] < len(st.P)     # a proper subset proved
            _, opt = brute_force_ruleset(X, y, C, C - 1, sample_weight=sw, form=form)
            assert opt >= cl.bound - 1e-9, (seed, opt, cl.bound)
    assert tried >= 5 and proved >= 5 and strict >= 5, (tried, proved, strict)


def test_a_stop_request_during_the_subsets_ends_them_proving_nothing(monkeypatch):
    """``should_stop`` is asked in the subsets' column generation too: a request after the
    whole LP's stage ends the search there as "interrupted", with no bound."""
    _subsets_first(monkeypatch)
    for seed, X, y, sw, C, form, st in _instances():
        full = cover_lp_bound(st, 10 ** 9)
        if full.bound <= 0 or not full.subsets or full.iterations < 1:
            continue
        calls = []

        def stop_after_the_whole_lp():
            calls.append(1)
            return ("interrupted", "test") if len(calls) > full.iterations else None
        cl = cover_lp_bound(st, 10 ** 9, should_stop=stop_after_the_whole_lp)
        assert cl.bound == 0 and cl.stopped == "interrupted", (seed, cl.stopped)
        assert cl.subsets and cl.subsets[-1]["stopped"] == "interrupted"
        return
    pytest.fail("no instance proven by its subsets")


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_the_subsets_stage_is_counted_and_monotone_in_its_budget(monkeypatch):
    """With subsets, the work is still counted: a larger budget repeats a smaller one's
    steps (the whole LP's proofs are capped by a count, not a share of the budget), so the
    bound never decreases with it, and the same budget gives the same record."""
    _subsets_first(monkeypatch)
    tried = 0
    for seed, X, y, sw, C, form, st in _instances():
        full = cover_lp_bound(st, 10 ** 9)
        if full.bound <= 0 or not full.subsets or full.proof_lps < 2:
            continue
        tried += 1
        budgets = [0, 1, full.proof_lps // 2, full.proof_lps, 2 * full.proof_lps]
        bounds = [cover_lp_bound(st, b).bound for b in budgets]
        assert bounds == sorted(bounds) and bounds[0] == 0 and bounds[-1] == full.bound, (
            seed, bounds)
        assert cover_lp_bound(st, full.proof_lps - 1).bound == 0
        again = cover_lp_bound(st, full.proof_lps // 2)
        first = cover_lp_bound(st, full.proof_lps // 2)
        assert again.stats() | {"wall_time": 0} == first.stats() | {"wall_time": 0}
    assert tried >= 2, tried


def test_not_applicable_without_a_budget_or_with_groups_of_both_labels():
    X, y = _data(3)
    X2, y2 = np.vstack([X, X[:1]]), np.concatenate([y, 1 - y[:1]])   # a conflicting pair
    st = State(RuleProblem.from_matrix(X2, y2), ColGenOptions.of(complexity_bound=4))
    assert cover_lp_bound(st, None).stopped == "not applicable"
    st = State(RuleProblem.from_matrix(X, y), ColGenOptions.of(complexity_bound=None,
                                                                clause_penalty=1.0))
    assert cover_lp_bound(st, None).stopped == "not applicable"


def test_a_deadline_in_the_past_proves_nothing():
    for seed, X, y, sw, C, form, st in _instances():
        if cover_lp_bound(st, None).bound > 0:
            cl = cover_lp_bound(st, None, deadline=0.0)
            assert cl.bound == 0 and cl.stopped == "deadline"
            return
    pytest.fail("no proving instance")


def test_a_stop_request_ends_it_as_interrupted_proving_nothing():
    """``should_stop`` (a solve's monitor: Ctrl-C, the callback, the memory cap) is asked
    every iteration; a request ends the search before its first LP."""
    for seed, X, y, sw, C, form, st in _instances():
        if cover_lp_bound(st, None).bound > 0:
            cl = cover_lp_bound(st, None, should_stop=lambda: ("interrupted", "test"))
            assert cl.bound == 0 and cl.stopped == "interrupted" and cl.restricted_lp is None
            return
    pytest.fail("no proving instance")


def test_a_solve_reports_the_cover_lp_bound_where_the_packing_bound_fails():
    """No column generation, no gap closing: the Lagrangian bound is trivial and the packing
    bound proves nothing; with ``error_free_cover_lps`` the cover LP proves one error, the
    certificate's bound, kind and message say so, and the brute-force optimum is not below
    it.  Off (the default) it is not tried."""
    for seed, X, y, sw, C, form, st in _instances():
        if form != "dnf" or sw is not None or packing_bound(st).bound > 0:
            continue
        if cover_lp_bound(st, None).bound > 0:
            break
    else:
        pytest.fail("no instance for the cover LP bound")
    p = RuleProblem.from_matrix(X, y)
    kw = dict(complexity_bound=C, empty_clause=False, max_iter=0, close_gap=False)
    rs, cert = solve(p, **kw)
    assert cert.stats["error_free_lp"] is None and cert.lower_bound == 0
    rs, cert = solve(p, error_free_cover_lps=None, **kw)
    assert cert.objective == ruleset_objective(rs, p).objective
    assert cert.lower_bound == 1.0
    assert cert.stats["error_free_lp"]["bound"] == 1.0
    assert cert.stats["bound_kind"] == BoundKind.ERROR_FREE_COVER_LP.value
    assert cert.stats["bound_detail"] and (cert.stats["bound_detail"]
                                           == cert.stats["error_free_lp"]["reason"])
    assert "error-free cover" in cert.message and "may fit" not in cert.message
    _, opt = brute_force_ruleset(X, y, C, C - 1)
    assert opt >= cert.lower_bound


def test_under_a_time_limit_it_takes_all_the_time_left_where_the_lp_ceiling_is_reached(
        monkeypatch):
    """An odd cycle of five groups with extra literals at C = 5: the master LP is 0 (half of
    each cycle literal's clause), so no bound of the LP relaxation passes the bound 0, and
    the cover LP gets all the time left instead of half; it proves the one error, so the fit
    is optimal.  Without column generation (the LP ceiling above the bound) it gets its
    share (``plan.SHARES["error-free cover LP"]``)."""
    from rulecert.mipmodels.colgen import plan, steps
    deadlines = []

    def spy(*a, **kw):
        deadlines.append(kw["deadline"])
        return cover_lp_bound(*a, **kw)
    monkeypatch.setattr(steps, "cover_lp_bound", spy)
    X, y, st = list(_odd_cycles())[4]     # (the Lagrangian bound proves the smaller ones)
    p = RuleProblem.from_matrix(X, y)
    t = time.perf_counter()
    rs, cert = solve(p, complexity_bound=5, empty_clause=False, time_limit=30,
                     close_gap=False, error_free_cover_lps=None)
    assert cert.stats["lp_ceiling"] == 0 and deadlines[-1] >= t + 29
    assert cert.stats["bound_kind"] == BoundKind.ERROR_FREE_COVER_LP.value
    assert cert.stats["bound_detail"] == cert.stats["error_free_lp"]["reason"]
    assert cert.proven_optimal and cert.objective == cert.lower_bound == 1.0
    assert ruleset_objective(rs, p).objective == 1.0
    t = time.perf_counter()
    _, cert = solve(p, complexity_bound=5, empty_clause=False, time_limit=30, max_iter=0,
                    close_gap=False, error_free_cover_lps=None)
    assert len(deadlines) == 2 and cert.stats["lp_ceiling"] > 0
    assert deadlines[-1] <= t + 30 * plan.SHARES["error-free cover LP"] + 1


def test_where_an_error_free_rule_set_fits_it_proves_nothing_and_the_message_says_so():
    """A planted DNF fits C: the cover LP's restricted LP falls to C or below (no LP bound
    can prove an error), the bound stays 0 and the message names both attempts."""
    cpx, cert = trivial_planted_fit(error_free_cover_lps=None)
    ef = cert.stats["error_free_lp"]
    assert ef is not None and ef["bound"] == 0
    assert ef["stopped"] == "lp_at_most_C" and ef["restricted_lp"] <= cpx + 1e-6
    assert "nor the error-free cover LP: lp_at_most_C" in cert.message
    assert "may fit" in cert.message


@pytest.mark.parametrize("bad", [-1, 1.5, "many"])
def test_a_bad_budget_is_refused_by_name(bad):
    p = RuleProblem.from_matrix(*_data(0))
    with pytest.raises(ValueError, match="error_free_cover_lps"):
        ColGenOptions.of(complexity_bound=5, error_free_cover_lps=bad)
    with pytest.raises(ValueError, match="error_free_cover_lps"):
        solve(p, complexity_bound=5, error_free_cover_lps=bad)


def test_a_budget_of_0_stays_off_in_certification_runs():
    """``certify_settings`` (``effort="certify"``) scales node budgets to the rows with a
    floor; a part given 0 (off) stays 0 instead of getting the floor, for this bound and the
    positive-side proof; this bound is on in certification runs, 500,000 cover LPs per 2000
    rows."""
    from rulecert.mipmodels.colgen.presets import MIN_NODES, certify_settings, scaled_nodes
    assert scaled_nodes(0, 10**6) == 0 and scaled_nodes(10, 10**6) == 10
    assert scaled_nodes(10**6, 10**7) == MIN_NODES
    o = certify_settings(351, error_free_cover_lps=0, positive_side_cover_lps=0)
    assert o["error_free_cover_lps"] == 0 and o["positive_side_cover_lps"] == 0
    assert certify_settings(4000)["error_free_cover_lps"] == 250_000  # on
    assert certify_settings(4000, error_free_cover_lps=0)["error_free_cover_lps"] == 0


def test_the_estimator_passes_the_budget_on():
    from rulecert.estimators.brcg import BooleanRuleCGClassifier
    for seed, X, y, sw, C, form, st in _instances():
        if form == "dnf" and sw is None and packing_bound(st).bound == 0 \
                and cover_lp_bound(st, None).bound > 0:
            break
    so = dict(empty_clause=False, max_iter=0, close_gap=False, polish=False)
    off = BooleanRuleCGClassifier(complexity_bound=C, solver_options=so).fit(X, y)
    on = BooleanRuleCGClassifier(complexity_bound=C,
                                 solver_options=dict(so, error_free_cover_lps=None)).fit(X, y)
    assert off.certificate_.stats["error_free_lp"] is None
    assert on.certificate_.stats["error_free_lp"]["bound"] == on.certificate_.lower_bound == 1
