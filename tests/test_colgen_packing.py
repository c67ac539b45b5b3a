"""The packing bound (rulecert.mipmodels.colgen.provers.packing): each piece against enumeration, the
bound against the brute-force optimum, and its place in a solve's certificate."""
import itertools
import math

import numpy as np
import pytest

from rulecert.mipmodels.colgen import BoundKind, solve
from rulecert.mipmodels.colgen.options import ColGenOptions
from rulecert.mipmodels.colgen.provers.packing import (heaviest_clique, incompatible, least_error_weight,
                                               min_pure_lengths, packing_bound)
from rulecert.mipmodels.colgen.state import State
from rulecert.models.ruleset import ruleset_objective
from rulecert.problem import RuleProblem
from rulecert.reference.ruleset import brute_force_ruleset
from rulecert import bits


def _data(seed, n=16, d=5):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) < 0.5
    X = np.hstack([X, ~X])                     # literals and their negations
    y = (rng.random(n) < 0.5).astype(int)
    if y.sum() in (0, n):
        y[0] = 1 - y[0]
    return X, y


def _pure_clauses(Xn):
    """Every clause (set of literals) with its coverage of the positive rows, pure only."""
    d = Xn.shape[1]
    out = []
    for r in range(1, d + 1):
        for cl in itertools.combinations(range(d), r):
            if not np.logical_and.reduce(Xn[:, list(cl)], axis=1).any():
                out.append(cl)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_pure_lengths_and_incompatibility_equal_enumeration(seed):
    rng = np.random.default_rng(seed)
    P, N, d = 7, 6, 7
    Xp = rng.random((P, d)) < 0.6
    Xn = rng.random((N, d)) < 0.45
    pure = _pure_clauses(Xn)
    covers = lambda cl, x: bool(x[list(cl)].all())       # noqa: E731
    lengths = min_pure_lengths(Xp, Xn)
    for i in range(P):
        exact = min((len(cl) for cl in pure if covers(cl, Xp[i])), default=math.inf)
        assert lengths[i] <= exact                            # a lower bound ...
        assert lengths[i] == min(exact, 3)                    # ... exact up to 3
    inc = incompatible(bits.pack(Xp), bits.pack(~Xn))
    for i, j in itertools.product(range(P), repeat=2):
        shared = any(covers(cl, Xp[i]) and covers(cl, Xp[j]) for cl in pure)
        assert inc[i, j] == (not shared), (i, j)


@pytest.mark.parametrize("seed", range(8))
def test_heaviest_clique_is_a_clique_at_least_as_heavy_as_each_vertex_and_edge(seed):
    rng = np.random.default_rng(seed)
    m = 12
    A = rng.random((m, m)) < 0.5
    A = A | A.T
    w = rng.integers(1, 5, size=m).astype(float)
    cl = heaviest_clique(A, w)
    assert len(set(cl)) == len(cl)
    assert all(A[i, j] for i, j in itertools.combinations(cl, 2))
    best_edge = max([w[i] + w[j] for i, j in itertools.combinations(range(m), 2) if A[i, j]]
                    + [w.max()])
    assert w[cl].sum() >= best_edge


def _planted(seed, n=16, d=5):
    """Labels of a planted DNF of two clauses (complexity 2 + |clauses|): error-free at C."""
    rng = np.random.default_rng(seed)
    X, _ = _data(seed, n, d)
    cls = [rng.choice(2 * d, size=rng.integers(1, 3), replace=False) for _ in range(2)]
    y = np.zeros(n, dtype=int)
    for cl in cls:
        y |= X[:, cl].all(axis=1)
    if y.sum() in (0, n):
        return None
    return X, y, 2 + sum(len(c) for c in cls)


def noisy_case(seed, data=_data, c0=2):
    """A noisy tiny instance by seed: its data, C from ``c0`` to ``c0 + 5``, CNF on every
    fifth seed, sample weights on two seeds of three."""
    X, y = data(seed)
    C = c0 + seed % 6
    form = "cnf" if seed % 5 == 4 else "dnf"
    sw = None if seed % 3 else np.random.default_rng(seed).integers(1, 4, size=len(y))
    return X, y, C, form, sw


def test_packing_bound_never_exceeds_the_brute_force_optimum_and_proves_some():
    """On tiny instances (DNF and CNF, weights, C from 2 to 7), noisy ones and ones whose
    labels a planted DNF of complexity <= C gives (error-free rule sets exist): whenever
    the packing bound proves, no rule set of complexity <= C is error-free (the brute-force
    optimum is at least the bound); it must prove on at least 5 noisy instances (9 when
    written) and on none of the planted ones."""
    proved = planted = 0
    for seed in range(120):
        if seed % 2:
            inst = _planted(seed)
            if inst is None:
                continue
            X, y, cpx = inst
            C, form, sw = cpx + seed % 3, "dnf", None
            planted += 1
        else:
            X, y, C, form, sw = noisy_case(seed)
        p = RuleProblem.from_matrix(X, y, sample_weight=sw)
        st = State(p, ColGenOptions.of(complexity_bound=C, form=form, empty_clause=False))
        pk = packing_bound(st)
        if pk.bound <= 0:
            continue
        assert not seed % 2, (seed, pk.reason)      # planted: an error-free rule set fits C
        proved += 1
        assert pk.bound == st.round_bound(least_error_weight(st))
        _, opt = brute_force_ruleset(X, y, C, C - 1, sample_weight=sw, form=form)
        assert opt >= pk.bound - 1e-9, (seed, opt, pk.bound, pk.reason)
        assert pk.reason and (pk.complexity > C)
    assert proved >= 5 and planted >= 40, (proved, planted)


def test_groups_with_both_labels_or_no_budget_are_left_to_other_bounds():
    X, y = _data(3)
    X2, y2 = np.vstack([X, X[:1]]), np.concatenate([y, 1 - y[:1]])   # a conflicting pair
    st = State(RuleProblem.from_matrix(X2, y2), ColGenOptions.of(complexity_bound=4))
    assert packing_bound(st).bound == 0.0
    st = State(RuleProblem.from_matrix(X, y), ColGenOptions.of(complexity_bound=None,
                                                                clause_penalty=1.0))
    assert packing_bound(st).bound == 0.0


def test_a_solve_with_a_trivial_bound_reports_the_packing_bound():
    """No column generation (max_iter 0), no gap closing: the Lagrangian bound is trivial, the
    packing bound proves that no rule set of complexity <= C is error-free; the certificate's
    bound, kind and message say so, and the brute-force optimum is not below it."""
    for seed in range(40):
        X, y = _data(seed)
        p = RuleProblem.from_matrix(X, y)
        st = State(p, ColGenOptions.of(complexity_bound=5, empty_clause=False))
        if packing_bound(st).bound > 0:
            break
    else:
        pytest.fail("no instance for the packing bound")
    rs, cert = solve(p, complexity_bound=5, empty_clause=False, max_iter=0, close_gap=False)
    assert cert.objective == ruleset_objective(rs, p).objective
    assert cert.lower_bound == 1.0
    assert cert.stats["packing"]["bound"] == 1.0
    assert cert.stats["bound_kind"] == BoundKind.PACKING.value
    assert cert.stats["bound_detail"] and (cert.stats["bound_detail"]
                                           == cert.stats["packing"]["reason"])
    assert "packing" in cert.message
    _, opt = brute_force_ruleset(X, y, 5, 4)
    assert opt >= cert.lower_bound
    # once a bound of one error's weight is proven otherwise, the packing bound is not tried
    rs, cert = solve(p, complexity_bound=5, empty_clause=False)
    assert cert.proven_optimal and cert.stats["packing"] is None


def trivial_planted_fit(**kw):
    """The first planted instance (an error-free rule set fits its C) that a solve without
    column generation leaves with an error and the bound 0: its C and certificate."""
    for seed in range(1, 200, 2):
        inst = _planted(seed, n=40, d=6)
        if inst is None:
            continue
        X, y, cpx = inst
        p = RuleProblem.from_matrix(X, y)
        rs, cert = solve(p, complexity_bound=cpx, empty_clause=False, max_iter=0,
                         close_gap=False, polish=False, _local_search=False, **kw)
        if cert.objective > 0 and cert.lower_bound == 0:
            return cpx, cert
    pytest.fail("no instance with a trivial bound")


def test_a_trivial_bound_says_what_the_packing_bound_found():
    """A planted error-free rule set fits C, a short run leaves the bound at 0: the packing
    bound is tried, proves nothing, and the message says how heavy its clique was."""
    cpx, cert = trivial_planted_fit()
    pk = cert.stats["packing"]
    assert pk is not None and pk["bound"] == 0 and pk["clique_complexity"] <= cpx
    assert "trivial" in cert.message
    assert f"needs complexity {pk['clique_complexity']:g} <= C" in cert.message


@pytest.mark.parametrize("fn_weight", [3.0, 0.25])     # the lightest error: a FP, a FN
@pytest.mark.parametrize("form", ["dnf", "cnf"])
def test_least_error_weight_is_the_lightest_single_error(form, fn_weight):
    """One error's least objective: the lightest sample's weight, a positive's times
    fn_weight (in CNF the roles of the labels swap); repeated samples add up in their group."""
    X, y = _data(7)
    sw = np.random.default_rng(7).integers(2, 9, size=len(y)).astype(float)
    p = RuleProblem.from_matrix(X, y, sample_weight=sw)
    st = State(p, ColGenOptions.of(complexity_bound=5, form=form, fn_weight=fn_weight))
    _, inverse = np.unique(X, axis=0, return_inverse=True)
    first = 1 if form == "dnf" else 0              # the class whose misses fn_weight scales
    mass = {}
    for g, label, w in zip(inverse, y, sw):
        mass[(g, label)] = mass.get((g, label), 0.0) + w
    expected = min(w * (fn_weight if label == first else 1.0) for (_, label), w in mass.items())
    assert least_error_weight(st) == expected


def _proving_instance(C=5):
    for seed in range(40):
        X, y = _data(seed)
        p = RuleProblem.from_matrix(X, y)
        st = State(p, ColGenOptions.of(complexity_bound=C, empty_clause=False))
        if packing_bound(st).bound > 0:
            return p, st
    pytest.fail("no instance for the packing bound")


def test_the_packing_bound_stops_at_the_deadline_and_then_proves_nothing():
    """A deadline that passes after k checks: the bound is the full run's once k exceeds the
    checks it makes, else nothing (bound 0, no clique, stopped) -- never a partial clique
    offered as a proof."""
    _, st = _proving_instance()
    full = packing_bound(st)
    assert full.bound > 0 and not full.stopped
    calls = [0]

    def counting():
        calls[0] += 1
        return False

    packing_bound(st, expired=counting)
    n = calls[0]
    assert n >= 3                                  # it is asked in each stage
    for k in range(n + 2):
        left = [k]

        def expired():
            left[0] -= 1
            return left[0] < 0

        pk = packing_bound(st, expired=expired)
        if k >= n:
            assert (pk.bound, pk.clique, pk.stopped) == (full.bound, full.clique, False)
        else:
            assert (pk.bound, pk.clique, pk.reason, pk.stopped) == (0.0, [], "", True)
            assert pk.stats()["stopped"]


def test_a_solve_passes_its_deadline_to_the_packing_bound_and_says_when_it_stopped(monkeypatch):
    """The solve hands the packing bound its own deadline (the packing step's share is all
    the time left: its deadline ends where the fit's does); a packing bound that the deadline
    stopped proves nothing, and the certificate says it was stopped."""
    import rulecert.mipmodels.colgen.loop as loop
    import rulecert.mipmodels.colgen.steps as steps
    p, _ = _proving_instance()
    seen, fit_deadlines = [], []
    real = steps.packing_bound
    real_run_steps = loop.run_steps

    def spy(st, expired):
        seen.append(expired)
        return real(st, expired=lambda: True)

    def spy_run_steps(run, *a, **kw):
        fit_deadlines.append(run.end)
        return real_run_steps(run, *a, **kw)

    monkeypatch.setattr(steps, "packing_bound", spy)
    monkeypatch.setattr(loop, "run_steps", spy_run_steps)
    rs, cert = solve(p, complexity_bound=5, empty_clause=False, max_iter=0, close_gap=False,
                     time_limit=1000.0)
    assert len(fit_deadlines) == 1 and fit_deadlines[0].time_limit == 1000.0   # the fit's
    assert len(seen) == 1 and math.isclose(seen[0].__self__.end, fit_deadlines[0].end,
                                           rel_tol=0.0, abs_tol=1e-6)
    assert cert.stats["packing"]["stopped"] and cert.stats["packing"]["bound"] == 0.0
    assert cert.stats["bound_kind"] != BoundKind.PACKING.value
    assert "the time limit stopped it" in cert.message
    assert cert.objective == ruleset_objective(rs, p).objective
