"""Column generation for Boolean rule sets: exactness against brute force, valid bounds,
pricing, CNF, weights, penalties, bad input, honest limits, tic-tac-toe."""
import itertools
import math

import numpy as np
import pytest

from rulecert.certificate import SolutionStatus, Termination
from rulecert.mipmodels.colgen import price_by_branch_and_bound as branch_and_bound
from rulecert.mipmodels.colgen import (ColGenOptions, PricingInstance, RestrictedMaster,
                                       cpsat_pricing,
                                       heuristic_pricing, single_literal_bound, solve)
from rulecert.models.ruleset import RuleSet, ruleset_objective, ruleset_objective_xy
from rulecert.problem import RuleProblem
from rulecert.reference import brute_force_ruleset


def _instance(seed, n=30, d=8, noise=0.2):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) < rng.uniform(0.35, 0.65)
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3] & X[:, 4])
    y = (y ^ (rng.random(n) < noise)).astype(int)
    if y.sum() in (0, n):
        y[0] = 1 - y[0]
    return X, y


def _varied_case(seed):
    """A tiny instance of 50 rows and 10 features with a mix of settings by ``seed``: CNF
    every fourth, sample weights every third, and ``(C, D)`` in (9, 4), (8, 3), (10, 4);
    returns ``X, y, sample_weight, form, C, D``."""
    X, y = _instance(seed + 900, n=50, d=10, noise=0.3)
    form = "cnf" if seed % 4 == 3 else "dnf"
    sw = None if seed % 3 != 1 else \
        np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
    C, D = [(9, 4), (8, 3), (10, 4)][seed % 3]
    return X, y, sw, form, C, D


def _check_certificate(cert, rs, problem, bf_obj, C, **obj_kw):
    score = ruleset_objective(rs, problem, **obj_kw)
    assert math.isclose(score.objective, cert.objective, abs_tol=1e-9)
    assert cert.lower_bound <= bf_obj + 1e-9, "reported bound exceeds the true optimum"
    assert cert.objective >= bf_obj - 1e-9
    if C is not None:
        assert rs.complexity <= C
    if cert.proven_optimal:
        assert math.isclose(cert.objective, bf_obj, abs_tol=1e-9)
    else:
        assert cert.termination is not Termination.OPTIMAL
        assert cert.status is SolutionStatus.FEASIBLE


def _case_problem(case):
    """An exactness case's instance (``CASES`` below): the problem, the objective's keywords
    and the brute-force optimum."""
    seed, form, C, D, weighted, fnw, lam0, lam1, _ = case
    X, y = _instance(seed)
    sw = np.random.default_rng(seed + 100).integers(1, 4, len(y)).astype(float) if weighted else None
    problem = RuleProblem.from_matrix(X, y, sample_weight=sw)
    kw = dict(fn_weight=fnw, clause_penalty=lam0, literal_penalty=lam1)
    _, bf_obj = brute_force_ruleset(X, y, C, D, sample_weight=sw, form=form, **kw)
    return problem, kw, bf_obj


def _with_and_without(X, y, problem, key, C, D, off: dict, on: dict, **kw):
    """A primal heuristic (its record ``stats[key]``) only adds columns and a start: fits
    without (``off``) and with it (``on``), on the same path otherwise, are both valid against
    brute force, the one with it is no worse, the bound is the same, and the fit without it
    has no record.  Returns the brute-force optimum and both certificates."""
    _, bf = brute_force_ruleset(X, y, C, D)
    rs0, c0 = solve(problem, **off, **kw)
    rs1, c1 = solve(problem, **on, **kw)
    _check_certificate(c0, rs0, problem, bf, C)
    _check_certificate(c1, rs1, problem, bf, C)
    assert c1.objective <= c0.objective
    assert c1.lower_bound == c0.lower_bound
    assert c0.stats[key] is None
    return bf, c0, c1


# ---- exactness on tiny instances ------------------------------------------------------------
CASES = [  # seed, form, C, D, weighted, fn_weight, clause_penalty, literal_penalty, pricers
    (0, "dnf", 8, 3, False, 1.0, 0.0, 0.0, "auto"),
    (1, "dnf", 10, 3, False, 1.0, 0.0, 0.0, "exact"),
    (2, "dnf", 6, 2, False, 1.0, 0.0, 0.0, "bnb"),
    (3, "cnf", 8, 3, False, 1.0, 0.0, 0.0, "auto"),
    (4, "cnf", 7, 2, False, 2.0, 0.0, 0.0, "exact"),
    (5, "dnf", 9, 3, True, 1.0, 0.0, 0.0, "auto"),
    (6, "dnf", 8, 3, False, 0.5, 0.0, 0.0, "heuristic"),
    (7, "dnf", None, 3, False, 1.0, 1.0, 0.5, "auto"),
    (8, "dnf", 12, 4, False, 1.0, 0.5, 0.0, "bnb"),
    (9, "cnf", None, 2, True, 1.0, 0.75, 0.25, "exact"),
    (10, "dnf", 2, 1, False, 1.0, 0.0, 0.0, "auto"),
    (11, "dnf", 12, 3, False, 1.0, 0.0, 0.0, "auto"),
]


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c[0]}-{c[1]}-{c[8]}" for c in CASES])
def test_final_ip_equals_brute_force(case):
    seed, form, C, D, weighted, fnw, lam0, lam1, pricing = case
    X, y = _instance(seed)
    sw = np.random.default_rng(seed + 100).integers(1, 4, len(y)).astype(float) if weighted else None
    problem = RuleProblem.from_matrix(X, y, [f"f{j}" for j in range(X.shape[1])], sample_weight=sw)
    kw = dict(fn_weight=fnw, clause_penalty=lam0, literal_penalty=lam1)
    rs, cert = solve(problem, complexity_bound=C, max_clause_length=D, form=form, pricers=pricing,
                     pricing_deterministic_time=20.0, **kw)
    bf, bf_obj = brute_force_ruleset(X, y, C, D, sample_weight=sw, form=form, **kw)
    assert math.isclose(ruleset_objective(bf, problem, **kw).objective, bf_obj, abs_tol=1e-9)
    _check_certificate(cert, rs, problem, bf_obj, C, **kw)
    # exact pricing to convergence + gap closing: the IP optimum is the brute-force optimum
    assert math.isclose(cert.objective, bf_obj, abs_tol=1e-9)
    assert cert.proven_optimal and cert.termination is Termination.OPTIMAL
    assert rs.form == form


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("pricing", ["exact", "bnb"])
def test_lp_bound_at_convergence_is_below_optimum(seed, pricing):
    X, y = _instance(seed + 20, noise=0.3)
    problem = RuleProblem.from_matrix(X, y)
    C = 6 + seed % 5
    rs, cert = solve(problem, complexity_bound=C, max_clause_length=3, pricers=pricing,
                     close_gap=False, pricing_deterministic_time=20.0)
    _, bf_obj = brute_force_ruleset(X, y, C, 3)
    assert cert.stats["lp_converged"] or cert.stats["stop_reason"] == "lp_bound_attained"
    assert cert.stats["rmlp_objective"] <= bf_obj + 1e-7          # z_LP <= z_MIP
    assert math.ceil(cert.stats["rmlp_objective"] - 1e-6) <= bf_obj
    _check_certificate(cert, rs, problem, bf_obj, C)


@pytest.mark.parametrize("seed", range(10))
def test_every_reported_bound_is_valid_under_limits(seed):
    rng = np.random.default_rng(seed)
    X, y = _instance(seed + 40, noise=0.3)
    problem = RuleProblem.from_matrix(X, y)
    C = int(rng.integers(5, 13))
    opts = dict(complexity_bound=C, max_clause_length=3, max_iter=int(rng.integers(0, 4)),
                pricers=str(rng.choice(["auto", "heuristic", "bnb"])),
                _heuristic_max_generated=int(rng.choice([3, 30, 5000])),
                pricing_nodes=int(rng.choice([5, 50, 100000])),
                close_gap=bool(rng.random() < 0.5), columns_per_iter=int(rng.integers(1, 6)))
    rs, cert = solve(problem, **opts)
    _, bf_obj = brute_force_ruleset(X, y, C, 3)
    _check_certificate(cert, rs, problem, bf_obj, C)
    for h in cert.history:
        assert h["lower_bound"] <= bf_obj + 1e-9


def test_sampled_pricing_keeps_results_valid():
    X, y = _instance(77, n=30)
    problem = RuleProblem.from_matrix(X, y)
    rs, cert = solve(problem, complexity_bound=8, max_clause_length=3, sample_rows=10,
                     max_nonzeros=40, seed=3)
    _, bf_obj = brute_force_ruleset(X, y, 8, 3)
    assert cert.stats["sampled_pricing"]
    _check_certificate(cert, rs, problem, bf_obj, 8)


def test_cnf_is_de_morgan_of_dnf_on_negated_problem():
    X, y = _instance(5)
    p = RuleProblem.from_matrix(X, y)
    pn = RuleProblem.from_matrix(~X, 1 - y)
    cnf, c1 = solve(p, complexity_bound=8, max_clause_length=3, form="cnf")
    dnf, c2 = solve(pn, complexity_bound=8, max_clause_length=3, form="dnf")
    assert c1.objective == c2.objective and c1.proven_optimal and c2.proven_optimal
    assert cnf.form == "cnf"
    # the CNF predicts 1 exactly when the DNF with the same clauses on ~X predicts 0
    neg = RuleSet(cnf.clauses, "dnf")
    assert (cnf.predict(X) == 1 - neg.predict(~X)).all()


def test_tic_tac_toe_exact_rule_set():
    from rulecert.datasets import load_tictactoe
    X, y = load_tictactoe()
    cols, names = [], []
    for c in X.columns:
        for v in "xob":
            cols.append((X[c] == v).to_numpy())
            names.append(f"{c}=={v}")
    Xb = np.column_stack(cols)
    problem = RuleProblem.from_matrix(Xb, y, names)
    rs, cert = solve(problem, complexity_bound=32, time_limit=120)
    assert cert.proven_optimal and cert.objective == 0
    assert (rs.predict(Xb) == y).all() and rs.complexity == 32
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    want = {tuple(sorted((3 * s, 1) for s in line)) for line in lines}   # column 3*s is "s==x"
    assert set(rs.clauses) == want


# ---- pricing units ----------------------------------------------------------------------------
def _all_reduced_costs(X, v, const, lit, D):
    out = {}
    for length in range(1, min(D, X.shape[1]) + 1):
        for cl in itertools.combinations(range(X.shape[1]), length):
            cov = np.logical_and.reduce(X[:, list(cl)], axis=1)
            out[cl] = const + lit * length + float(v[cov].sum())
    return out


def _random_pricing(seed):
    rng = np.random.default_rng(seed)
    G, d, D = int(rng.integers(2, 60)), int(rng.integers(1, 8)), int(rng.integers(1, 5))
    X = rng.random((G, d)) < rng.uniform(0.2, 0.9)
    v = rng.normal(size=G) * (rng.random(G) < 0.8)
    return X, v, float(rng.uniform(0, 1)), float(rng.uniform(0, 0.5)), D


@pytest.mark.parametrize("seed", range(25))
def test_pricers_bounds_are_valid_and_exact_when_complete(seed):
    X, v, const, lit, D = _random_pricing(seed)
    allrc = _all_reduced_costs(X, v, const, lit, D)
    true = min(allrc.values())
    inst = PricingInstance(X, v, const, lit, D, np.arange(X.shape[1]))
    assert single_literal_bound(inst) <= true + 1e-12
    for r in (heuristic_pricing(inst, threshold=0.0, max_length=D, max_generated=10**6,
                                stop_when_found=False),
              heuristic_pricing(inst, threshold=0.0, max_length=2, max_generated=3),
              cpsat_pricing(inst, deterministic_time=10.0)):
        assert r.bound <= true + 1e-9
        for cl, rc in zip(r.clauses, r.reduced_costs):
            assert math.isclose(allrc[cl], rc, abs_tol=1e-9) and rc < 0
        if r.complete and true < 0:
            assert math.isclose(r.reduced_costs[0], true, abs_tol=1e-9)
    b = branch_and_bound(X, v, const, lit, D, K=3, upper=0.0)
    assert b.complete and b.bound <= min(0.0, true) + 1e-9
    if true < 0:
        assert math.isclose(b.reduced_costs[0], true, abs_tol=1e-9)
    b2 = branch_and_bound(X, v, const, lit, D, K=3, upper=0.0, node_limit=2, chunk=1)
    assert b2.bound <= min(0.0, true) + 1e-9


@pytest.mark.parametrize("seed", range(20))
def test_heuristic_bound_valid_under_every_cut(seed):
    """The batched heuristic keeps a valid bound whichever cap or deadline cuts it (the cap is
    checked clause by clause inside a batch), and its clauses are exact and distinct."""
    X, v, const, lit, D = _random_pricing(seed + 500)
    allrc = _all_reduced_costs(X, v, const, lit, D)
    true = min(allrc.values())
    inst = PricingInstance(X, v, const, lit, D, np.arange(X.shape[1]))
    for kw in (dict(max_generated=0), dict(max_generated=1), dict(max_generated=7),
               dict(max_found=0, stop_when_found=False), dict(max_found=4, stop_when_found=False),
               dict(deadline=0.0, stop_when_found=False), dict(max_return=None, stop_when_found=False, max_generated=10**6)):
        r = heuristic_pricing(inst, threshold=0.0, max_length=D, **kw)
        assert r.bound <= true + 1e-9, kw
        assert len(set(r.clauses)) == len(r.clauses)
        for cl, rc in zip(r.clauses, r.reduced_costs):
            assert math.isclose(allrc[cl], rc, abs_tol=1e-9) and rc < 0
        if "deadline" in kw and not r.complete and D > 1:
            assert r.termination is Termination.TIME_LIMIT
        if kw.get("max_generated") == 10**6:
            assert r.complete and sorted(r.clauses) == sorted(k for k, c in allrc.items() if c < 0)


@pytest.mark.parametrize("d,k", [(7, 3), (5000, 6)])
def test_clause_keys_equal_iff_clauses_equal(d, k):
    """Both key forms (base-d integers, and row bytes when d**k does not fit in 62 bits)."""
    from rulecert.mipmodels.colgen.pricing.heuristic import _clause_keys
    rng = np.random.default_rng(d)
    C = np.sort(rng.integers(0, d, size=(400, k)), axis=1)
    C[200:] = C[:200][rng.permutation(200)]
    keys = _clause_keys(C, d)
    for i in range(0, 400, 7):
        for j in range(0, 400, 11):
            assert (keys[i] == keys[j]) == bool((C[i] == C[j]).all())
    assert np.unique(keys).size == len({tuple(r) for r in C.tolist()})


@pytest.mark.parametrize("seed", range(15))
def test_enumeration_finds_every_clause_below_threshold(seed):
    rng = np.random.default_rng(seed + 1000)
    # threshold-structured features (chains of implications) exercise the dominance rules
    G = int(rng.integers(3, 50))
    Z = rng.integers(0, 5, size=(G, 2))
    X = np.column_stack([c for f in range(2) for t in range(3) for c in (Z[:, f] <= t, Z[:, f] > t)])
    v = rng.normal(size=G)
    const, lit, D = float(rng.uniform(0, 1)), float(rng.uniform(0, 0.4)), int(rng.integers(1, 5))
    T = float(rng.uniform(-1, 1))
    e = branch_and_bound(X, v, const, lit, D, K=10**6, upper=T, tighten=False)
    assert e.complete
    got = {cl: np.logical_and.reduce(X[:, list(cl)], axis=1) for cl in e.clauses}
    for cl, rc in _all_reduced_costs(X, v, const, lit, D).items():
        cov = np.logical_and.reduce(X[:, list(cl)], axis=1)
        if rc < T and cov.any():   # a dominating clause (same coverage, fewer literals) was found
            assert any(set(g) <= set(cl) and np.array_equal(gc, cov) for g, gc in got.items())


def _threshold_pricing(seed):
    """Pricing instances on threshold features with negations (chains of implications, as
    binarized data has), mixed-sign coefficients and clauses of up to 5 literals."""
    rng = np.random.default_rng(seed + 2000)
    G, nv, nt = int(rng.integers(5, 70)), int(rng.integers(2, 4)), int(rng.integers(2, 5))
    Z = rng.integers(0, nt + 1, size=(G, nv))
    X = np.column_stack([c for f in range(nv) for t in range(nt)
                         for c in (Z[:, f] <= t, Z[:, f] > t)] + [rng.random(G) < 0.5])
    v = np.where(rng.random(G) < 0.5, -rng.uniform(0, 1, G), rng.integers(0, 3, G)).astype(float)
    return X, v, float(rng.uniform(0, 1)), float(rng.uniform(0, 1.5)), int(rng.integers(2, 6))


@pytest.mark.parametrize("seed", list(range(20)) + [57, 104, 156, 173, 241, 244])
def test_branch_and_bound_exclusion_bound_is_exact_on_threshold_features(seed):
    """The exclusion bound (implication chains, kept-mass buckets) prunes only what cannot
    beat the threshold: top-K finds the brute-force minimum, every node-limited bound is
    below it, and enumeration finds every clause below thresholds up to the median.  (Seeds 57
    to 244: instances where capping the kept mass one bucket too low, a bound too strong,
    loses clauses.)"""
    X, v, const, lit, D = _threshold_pricing(seed)
    allrc = _all_reduced_costs(X, v, const, lit, D)
    true = min(allrc.values())
    b = branch_and_bound(X, v, const, lit, D, K=1, upper=0.0)
    assert b.complete and b.bound <= min(0.0, true) + 1e-9
    if true < -1e-9:
        assert math.isclose(b.reduced_costs[0], true, abs_tol=1e-9)
    for n in (1, 3, 10):
        bn = branch_and_bound(X, v, const, lit, D, K=1, upper=0.0, node_limit=n, chunk=1)
        assert bn.bound <= min(0.0, true) + 1e-9
    covs = {cl: np.logical_and.reduce(X[:, list(cl)], axis=1) for cl in allrc}
    for q in (0.05, 0.2, 0.5):
        T = float(np.quantile(list(allrc.values()), q))
        e = branch_and_bound(X, v, const, lit, D, K=10**6, upper=T, tighten=False)
        assert e.complete
        for cl, rc in allrc.items():
            if rc < T and covs[cl].any():
                assert any(set(g) <= set(cl) and np.array_equal(covs[g], covs[cl])
                           for g in e.clauses)


def test_the_searchs_allocation_free_argsort_orders_as_numbas_argsort():
    """The branch-and-bound's ``_argsort_into`` (into preallocated arrays) gives the order of
    numba's ``np.argsort``, ties included (many equal keys, lengths around numba's insertion
    sort cutoff of 15 and far past it), so the search expands its children in the same order
    as before it stopped allocating."""
    import numba as nb

    from rulecert.mipmodels.colgen.pricing.bnb import _argsort_into

    @nb.njit
    def numba_argsort(a):
        return np.argsort(a)

    rng = np.random.default_rng(0)
    R = np.empty(600, dtype=np.int64)
    stack = np.empty((100, 2), dtype=np.int64)
    for n in [0, 1, 2, 14, 15, 16, 17, 40, 137, 566]:
        for levels in (3, 50, None):
            A = rng.random(n + 5) if levels is None else rng.integers(0, levels, n + 5) / 7.0
            _argsort_into(A, n, R, stack)
            assert np.array_equal(R[:n], numba_argsort(A[:n].copy())), (n, levels)


@pytest.mark.parametrize("seed", range(12))
def test_parallel_branch_and_bound_is_exact_and_its_limited_bounds_valid(seed):
    """The search on 2 and 3 workers (the tree dealt at depth PARALLEL_SPLIT_DEPTH): complete,
    it finds the brute-force minimum and the serial search's K best reduced costs and bound,
    and enumerates every clause below the threshold (up to dominance, as the serial search);
    under node limits and found_node_limit its bound is below the brute-force minimum and two
    runs return the same clauses, nodes and bound."""
    X, v, const, lit, D = _threshold_pricing(seed)
    allrc = _all_reduced_costs(X, v, const, lit, D)
    true = min(allrc.values())
    covs = {cl: np.logical_and.reduce(X[:, list(cl)], axis=1) for cl in allrc}
    serial = branch_and_bound(X, v, const, lit, D, K=4, upper=0.0)
    T = float(np.quantile(list(allrc.values()), 0.2))
    for w in (2, 3):
        r = branch_and_bound(X, v, const, lit, D, K=4, upper=0.0, workers=w)
        assert r.complete and np.allclose(r.reduced_costs, serial.reduced_costs)
        assert math.isclose(r.bound, serial.bound, abs_tol=1e-12)
        if true < -1e-9:
            assert math.isclose(r.reduced_costs[0], true, abs_tol=1e-9)
        e = branch_and_bound(X, v, const, lit, D, K=10**6, upper=T, tighten=False, workers=w)
        assert e.complete and len(set(e.clauses)) == len(e.clauses)
        for cl, rc in allrc.items():
            if rc < T and covs[cl].any():
                assert any(set(g) <= set(cl) and np.array_equal(covs[g], covs[cl])
                           for g in e.clauses)
        for kw in (dict(node_limit=2), dict(node_limit=9), dict(found_node_limit=3)):
            a, b = (branch_and_bound(X, v, const, lit, D, K=2, upper=0.0, workers=w, **kw)
                    for _ in range(2))
            assert (a.clauses, a.nodes, a.bound, a.complete) == \
                (b.clauses, b.nodes, b.bound, b.complete)
            assert a.bound <= min(0.0, true) + 1e-9
            if "node_limit" in kw:
                assert a.nodes <= kw["node_limit"]
        small = branch_and_bound(X, v, const, lit, D, K=1, upper=T, tighten=False, workers=w)
        assert small.bound <= min(T, true) + 1e-9
        if sum(rc < T and covs[cl].any() for cl, rc in allrc.items()) > 1:
            assert small.overflow and not small.complete


def test_parallel_branch_and_bound_stops_at_ctrl_c_after_a_round_with_a_valid_bound():
    """Ctrl-C (the monitor's request) stops the search on 2 workers after its round: an
    incomplete result, a bound below the true minimum, in both modes."""
    from rulecert.mipmodels.colgen.pricing.bnb import PARALLEL_ROUND
    from rulecert.monitor import catch_interrupt, request_interrupt
    rng = np.random.default_rng(3)
    Z = rng.integers(0, 10, size=(400, 16))
    X = np.column_stack([c for f in range(16) for t in (2, 5, 7)
                         for c in (Z[:, f] <= t, Z[:, f] > t)])
    v = np.where(rng.random(400) < 0.4, -rng.uniform(0, 1, 400), rng.uniform(0, 1.2, 400))
    for tighten, upper in ((True, 0.0), (False, -10.0)):
        kw = dict(K=5 if tighten else 10**6, upper=upper, tighten=tighten)
        full = branch_and_bound(X, v, 0.5, 0.3, 6, workers=2, **kw)
        assert full.complete and full.nodes > 10 * PARALLEL_ROUND
        with catch_interrupt():
            request_interrupt()
            cut = branch_and_bound(X, v, 0.5, 0.3, 6, workers=2, **kw)
        assert not cut.complete and cut.nodes <= 1 + 2 * (PARALLEL_ROUND + X.shape[1])
        assert cut.bound <= full.reduced_costs[0] + 1e-9


def test_parallel_column_generation_reaches_the_brute_force_optimum():
    """Column generation with its branch-and-bound searches on 2 workers: the optimum
    proven, as on one; under node limits a valid certificate, the same in two runs."""
    X, y = _instance(11)
    problem = RuleProblem.from_matrix(X, y)
    _, bf_obj = brute_force_ruleset(X, y, 12, 3)
    for w in (1, 2):
        rs, cert = solve(problem, complexity_bound=12, max_clause_length=3, pricers="bnb",
                         workers=w)
        _check_certificate(cert, rs, problem, bf_obj, 12)
        assert cert.proven_optimal and math.isclose(cert.objective, bf_obj, abs_tol=1e-9)
    # weak heuristics, so that the limited branch-and-bound searches do the work
    X, y = _instance(11, n=60, d=10, noise=0.3)
    problem = RuleProblem.from_matrix(X, y)
    _, bf_obj = brute_force_ruleset(X, y, 8, 3)
    limited = [solve(problem, complexity_bound=8, max_clause_length=3, pricers="bnb",
                     workers=2, max_iter=4, pricing_nodes=30, _found_nodes=5,
                     bound_nodes=40, close_gap_nodes=50, _heuristic_max_generated=3,
                     beam_width=1) for _ in range(2)]
    for rs, cert in limited:
        _check_certificate(cert, rs, problem, bf_obj, 8)
        assert cert.stats["pricing_calls"]["bnb"] >= 1
        assert cert.stats["pricing_calls"]["bound_search"] >= 1
    (r1, c1), (r2, c2) = limited
    assert (str(r1), c1.objective, c1.lower_bound, c1.iterations, c1.stats["columns"]) == \
        (str(r2), c2.objective, c2.lower_bound, c2.iterations, c2.stats["columns"])
    with pytest.raises(ValueError, match="workers"):
        solve(problem, complexity_bound=12, workers=0)


def test_found_node_limit_stop_does_not_depend_on_the_chunks():
    """Top-K pricing that stops once a clause is held past found_node_limit nodes stops at
    the same node however the search is cut into chunks (their sizes follow the wall clock):
    the same clauses, nodes and bound, so column generation is deterministic."""
    rng = np.random.default_rng(5)
    Z = rng.integers(0, 10, size=(300, 12))
    X = np.column_stack([c for f in range(12) for t in (2, 5, 7) for c in (Z[:, f] <= t, Z[:, f] > t)])
    v = np.where(rng.random(300) < 0.5, -rng.uniform(0, 1, 300), rng.uniform(0, 1.2, 300))
    stopped_early = 0
    for found in (1, 40, 300, 2000):
        runs = [branch_and_bound(X, v, 0.5, 0.3, 6, K=5, upper=0.0, found_node_limit=found,
                                 chunk=chunk) for chunk in (1, 7, 64, 20000)]
        for r in runs[1:]:
            assert (r.clauses, r.nodes, r.bound, r.complete) == \
                (runs[0].clauses, runs[0].nodes, runs[0].bound, runs[0].complete)
        stopped_early += not runs[0].complete and runs[0].clauses != []
    assert stopped_early >= 2


def test_found_node_limit_goes_on_a_tenth_of_it_past_a_late_first_clause():
    """Top-K pricing under found_node_limit L stops at node L when it holds a clause by then;
    when its first clause comes later (at node f), it goes on to node f + L // 10
    (FOUND_GRACE_DIVISOR), so that a late clause comes with those found right after it.
    Either stop is the node-limited search's at that node (the same clauses)."""
    from rulecert.mipmodels.colgen.pricing.bnb import FOUND_GRACE_DIVISOR
    rng = np.random.default_rng(4)
    Z = rng.integers(0, 10, size=(300, 12))
    X = np.column_stack([c for f in range(12) for t in (2, 5, 7) for c in (Z[:, f] <= t, Z[:, f] > t)])
    v = np.where(rng.random(300) < 0.3, -rng.uniform(0, 1, 300), rng.uniform(0, 1.2, 300))

    def search(**kw):
        return branch_and_bound(X, v, 0.5, 0.3, 6, K=5, upper=0.0, **kw)

    lo, hi = 1, search().nodes        # the node at which the search first holds a clause
    while lo < hi:
        m = (lo + hi) // 2
        lo, hi = (lo, m) if search(node_limit=m).clauses else (m + 1, hi)
    first = lo
    assert first > 1000
    late = 0
    for L in (100, 1000, first + 1, 2 * first, 4 * first):
        r = search(found_node_limit=L)
        stop = max(L, first + L // FOUND_GRACE_DIVISOR)
        late += stop > L
        assert not r.complete and r.nodes == stop, (L, first, r.nodes)
        ref = search(node_limit=stop)
        assert (r.clauses, r.reduced_costs, r.bound) == (ref.clauses, ref.reduced_costs, ref.bound)
    assert late == 3


def test_implication_chains_are_chains():
    from rulecert.mipmodels.colgen.pricing.bnb import implication_chains, implications
    X, *_ = _threshold_pricing(3)
    IMP = implications(X)
    chain, n = implication_chains(X, IMP)
    assert n < X.shape[1]          # thresholds do form chains
    for a in range(X.shape[1]):
        for b in range(a + 1, X.shape[1]):
            if chain[a] == chain[b]:
                assert IMP[a, b] or IMP[b, a]


@pytest.mark.parametrize("seed", range(4))
def test_implications_match_their_definition(seed):
    from rulecert.mipmodels.colgen.pricing.bnb import implications
    rng = np.random.default_rng(seed)
    G = int(rng.integers(1, 40))
    Z = rng.integers(0, 6, size=(G, 3))   # thresholds: chains of implications, plus noise
    X = np.column_stack([Z[:, f] > t for f in range(3) for t in range(5)]
                        + [rng.random(G) < 0.5, np.ones(G, bool), np.zeros(G, bool)])
    IMP = implications(X)
    for j in range(X.shape[1]):
        for i in range(X.shape[1]):
            want = i != j and not (X[:, j] & ~X[:, i]).any()
            assert IMP[j, i] == want


def test_master_duals_give_nonnegative_reduced_costs_for_its_columns():
    X, y = _instance(3)
    problem = RuleProblem.from_matrix(X, y)
    _, _, pos, neg = problem.groups
    P = np.flatnonzero(pos > 0)
    m = RestrictedMaster(pos[P].astype(float), 9.0)
    clauses = [(0, 1), (2, 4), (0,), (1, 2, 3)]
    patterns = problem.groups[0]
    covs = [np.logical_and.reduce(patterns[:, list(c)], axis=1) for c in clauses]
    row = {g: r for r, g in enumerate(P)}
    m.add_columns([np.array([row[g] for g in np.flatnonzero(cv) if g in row]) for cv in covs],
                  [float(neg[cv].sum()) for cv in covs], [1 + len(c) for c in clauses])
    res, mu, lam = m.solve_lp(None)
    assert mu is not None and (mu >= 0).all() and lam >= 0
    for c, cv in zip(clauses, covs):
        rc = float(neg[cv].sum()) + lam * (1 + len(c)) - sum(mu[row[g]] for g in np.flatnonzero(cv) if g in row)
        assert rc >= -1e-7
    L = mu.sum() - lam * 9.0 + np.minimum(0, pos[P] - mu).sum()
    assert math.isclose(L, res.objective, abs_tol=1e-6)       # strong duality
    # an IP with options, then the LP again: the options held for the IP only
    ip = m.solve_ip(None, None, mip_abs_gap=0.5, options={"mip_pscost_minreliable": 0})
    assert ip.x is not None and m.h.getOptionValue("mip_pscost_minreliable")[1] == 8


# ---- model, objective, bad input, limits ----------------------------------------------------
def test_ruleset_model_predict_text_json():
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 0]], dtype=bool)
    dnf = RuleSet([((0, 1), (2, 1)), ((1, 1),)], "dnf", ["a", "b", "c"])
    assert list(dnf.predict(X)) == [1, 1, 1, 0]
    assert dnf.complexity == 5 and dnf.n_clauses == 2 and dnf.n_literals == 3
    cnf = RuleSet([((0, 1), (1, 1)), ((2, 0),)], "cnf", ["a", "b", "c"])
    assert list(cnf.predict(X)) == [0, 0, 1, 0]
    assert "a and c" in dnf.to_text() and "or (b)" in dnf.to_text()
    assert "a or b" in cnf.to_text() and "(not c)" in cnf.to_text()
    for r in (dnf, cnf, RuleSet([], "dnf"), RuleSet([], "cnf")):
        assert RuleSet.from_json(r.to_json()) == r
    assert list(RuleSet([], "dnf").predict(X)) == [0] * 4
    assert list(RuleSet([], "cnf").predict(X)) == [1] * 4
    with pytest.raises(ValueError, match="form"):
        RuleSet([], "xor")
    # the empty clause: always true in a DNF, always false in a CNF, complexity 1
    for form, want in (("dnf", 1), ("cnf", 0)):
        r = RuleSet([()], form)
        assert list(r.predict(X)) == [want] * 4 and r.complexity == 1
        assert ("(true)" if form == "dnf" else "(false)") in r.to_text()
        assert RuleSet.from_json(r.to_json()) == r


def test_hamming_loss_by_hand():
    X = np.array([[1, 1], [1, 0], [0, 1], [0, 0], [1, 1]], dtype=bool)
    y = np.array([1, 1, 0, 1, 0])
    rs = RuleSet([((0, 1),), ((1, 1),)], "dnf")
    s = ruleset_objective_xy(rs, X, y)
    # positives: rows 0,1 covered, row 3 not -> 1 FN; negatives: row 2 hits 1, row 4 hits 2
    assert (s.false_negatives, s.false_positive_hits, s.hamming_loss) == (1, 3, 4)
    assert s.errors == 3 and s.complexity == 4
    s2 = ruleset_objective_xy(rs, X, y, sample_weight=[1, 1, 2, 3, 1], fn_weight=2.0,
                              clause_penalty=0.5, literal_penalty=0.25)
    assert s2.hamming_loss == 2.0 * 3 + (2 + 2) and s2.objective == 10 + 1.0 + 0.5
    # CNF: DNF loss of the negated problem; CNF clause (a OR b) false only on row 3 (positive)
    cnf = RuleSet([((0, 1), (1, 1))], "cnf")
    s3 = ruleset_objective_xy(cnf, X, y)
    assert (s3.false_negatives, s3.false_positive_hits) == (2, 1)


def test_bad_input_raises_clear_errors():
    X, y = _instance(1)
    p = RuleProblem.from_matrix(X, y)
    with pytest.raises(ValueError, match="C=1.5 < 2"):
        solve(p, complexity_bound=1.5, empty_clause=False)
    with pytest.raises(ValueError, match="C=0.5 < 1"):
        solve(p, complexity_bound=0.5)          # the empty clause is admitted by default
    with pytest.raises(ValueError, match="max_clause_length D"):
        solve(p, max_clause_length=0)
    with pytest.raises(ValueError, match="one class"):
        solve(RuleProblem.from_matrix(X, np.ones(len(y), int)))
    with pytest.raises(ValueError, match="penalized form needs"):
        solve(p, complexity_bound=None)
    with pytest.raises(ValueError, match="pricers must be one of"):
        solve(p, pricers="magic")
    with pytest.raises(ValueError, match="fn_weight"):
        solve(p, fn_weight=0.0)
    with pytest.raises(ValueError, match="no binary features"):
        solve(RuleProblem.from_matrix(np.zeros((4, 0), bool), [0, 1, 0, 1]))
    with pytest.raises(ValueError, match="NaN"):
        RuleProblem.from_matrix(np.where(X, 1.0, np.nan), y)
    with pytest.raises(ValueError, match="time_limit"):
        solve(p, time_limit=0)


def test_iteration_limit_is_reported_honestly():
    X, y = _instance(11, noise=0.35)
    p = RuleProblem.from_matrix(X, y)
    rs, cert = solve(p, complexity_bound=10, max_clause_length=3, max_iter=1, close_gap=False)
    _, bf_obj = brute_force_ruleset(X, y, 10, 3)
    _check_certificate(cert, rs, p, bf_obj, 10)
    if not cert.proven_optimal:
        assert cert.termination is Termination.ITERATION_LIMIT
    assert cert.stats["cg_iterations"] <= 1
    assert set(cert.stats["time"]) >= {"lp", "pricing_heuristic", "pricing_cpsat", "ip"}


def test_options_object_and_overrides():
    X, y = _instance(2)
    p = RuleProblem.from_matrix(X, y)
    o = ColGenOptions.of(complexity_bound=8, max_clause_length=2)
    rs1, c1 = solve(p, o)
    rs2, c2 = solve(p, o, complexity_bound=4)
    assert rs2.complexity <= 4 and c2.objective >= c1.objective


def _binarized(name, **kw):
    from rulecert import datasets
    from rulecert.mining import FeatureBinarizer
    X, y = datasets.load(name, **kw)
    cat = list(datasets.HEART_CATEGORICAL) if name == "heart" else None
    fb = FeatureBinarizer(n_thresholds=9, negations=True, categorical=cat,
                          missing="indicator").fit(X)
    Xb = np.asarray(fb.transform(X)).astype(bool)
    return RuleProblem.from_matrix(Xb, y, list(map(str, fb.get_feature_names_out())))


def test_transfusion_certified_optimal():
    """The paper certified a gap of at most 0.7% for transfusion with C = 15; C = 10 is proved
    optimal here in a few seconds (C = 15 too, see experiments/brcg_table.py --certify)."""
    problem = _binarized("transfusion")
    rs, cert = solve(problem, complexity_bound=10, time_limit=120)
    assert cert.proven_optimal and cert.termination is Termination.OPTIMAL
    assert ruleset_objective(rs, problem).objective == cert.objective
    assert rs.complexity <= 10


@pytest.mark.slow
@pytest.mark.parametrize("name,C", [("liver", 10), ("transfusion", 15), ("heart", 10)])
def test_small_uci_certified_optimal(name, C):
    problem = _binarized(name)
    rs, cert = solve(problem, complexity_bound=C, time_limit=600)
    assert cert.proven_optimal
    assert ruleset_objective(rs, problem).objective == cert.objective


def test_initial_clauses_and_column_cap():
    X, y = _instance(6)
    p = RuleProblem.from_matrix(X, y)
    _, bf_obj = brute_force_ruleset(X, y, 8, 3)
    rs, cert = solve(p, complexity_bound=8, max_clause_length=3, initial_clauses=[(0, 1), (2, 4)])
    assert cert.proven_optimal and cert.objective == bf_obj
    with pytest.raises(ValueError, match="initial clause"):
        solve(p, initial_clauses=[(0, 99)])
    rs, cert = solve(p, complexity_bound=8, max_clause_length=3, _max_columns=3, close_gap=False)
    assert cert.stats["columns"] <= 3
    _check_certificate(cert, rs, p, bf_obj, 8)
    if not cert.proven_optimal:
        assert cert.termination is Termination.ITERATION_LIMIT


def test_time_limited_restricted_ip_skips_presolve_and_keeps_its_result(monkeypatch):
    """HiGHS 1.12's MIP presolve ignores the time limit; a restricted IP whose limit is short
    for its size runs without presolve.  With every limit made short the result must be
    unchanged (same optimum, still certified); without a time limit presolve stays on."""
    from rulecert.mipmodels.colgen import master as master_mod
    X, y = _instance(11)
    p = RuleProblem.from_matrix(X, y)
    _, bf_obj = brute_force_ruleset(X, y, 8, 3)
    seen = []
    real = master_mod.hx.solve

    def spy(h, **kw):
        if kw.get("is_mip"):
            seen.append(h.getOptionValue("presolve")[1])
        return real(h, **kw)

    monkeypatch.setattr(master_mod.hx, "solve", spy)
    monkeypatch.setattr(master_mod, "PRESOLVE_SECONDS_PER_NONZERO", 1e9)
    monkeypatch.setattr(master_mod, "SCAN_MAX_PAIRABLE", -1)     # HiGHS, never the scan
    rs, cert = solve(p, complexity_bound=8, max_clause_length=3, time_limit=600)
    assert seen and set(seen) == {"off"}
    n_timed = len(seen)
    rs2, cert2 = solve(p, complexity_bound=8, max_clause_length=3)
    assert len(seen) > n_timed and set(seen[n_timed:]) == {"choose"}
    assert cert2.proven_optimal and math.isclose(cert2.objective, bf_obj)
    assert cert.proven_optimal and cert.objective == bf_obj
    assert ruleset_objective(rs, p).objective == cert.objective


def test_initial_solution_is_the_restricted_ip_incumbent():
    """A rule set passed as initial_solution is a valid incumbent whenever it fits C: under a
    deterministic limit that leaves the column generation unfinished, the result is never
    worse than it, and a solution that does not fit C is ignored."""
    X, y = _instance(1, n=300, d=14, noise=0.3)
    p = RuleProblem.from_matrix(X, y)
    sol1 = solve(p, complexity_bound=6, max_clause_length=3, pricing_deterministic_time=5.0)
    first, c1 = sol1
    sol = [list(c) for c in sol1.solution_clauses]
    assert sol and ruleset_objective(first, p).objective == c1.objective
    rs, cert = solve(p, complexity_bound=12, max_clause_length=3, max_iter=1, close_gap=False,
                     initial_solution=sol, pricers="heuristic", _heuristic_max_generated=1,
                     ip_nodes=1)
    assert cert.objective <= c1.objective
    assert cert.warm_start_objective <= c1.objective   # the IP started from it (or better)
    assert ruleset_objective(rs, p).objective == cert.objective and rs.complexity <= 12
    rs, cert = solve(p, complexity_bound=3, max_clause_length=3, max_iter=1, close_gap=False,
                     initial_solution=sol)
    assert rs.complexity <= 3 and ruleset_objective(rs, p).objective == cert.objective
    assert cert.stats["restricted_ip_start"] != "initial_solution"   # it does not fit C=3


@pytest.mark.parametrize("seed", range(4))
def test_cpsat_pricing_stopped_before_any_bound_proves_nothing(seed):
    """Regression: CP-SAT pricing stopped at once (UNKNOWN) once returned bound 0, so the
    loop declared the LP optimal with no column and certified the empty rule set.  Now the
    pricing bound is -inf, the heuristic takes over, and every certificate stays valid."""
    X, y = _instance(seed + 40, n=30, d=8)
    p = RuleProblem.from_matrix(X, y)
    r = cpsat_pricing(PricingInstance(X, np.where(y == 1, -1.0, 1.0), 0.0, 0.0, 3,
                                      np.arange(8), exact=True), deterministic_time=1e-9)
    assert not r.complete and r.bound == -math.inf
    rs, cert = solve(p, complexity_bound=8, max_clause_length=3, pricers="exact",
                     pricing_deterministic_time=1e-9, close_gap=False)
    _, bf_obj = brute_force_ruleset(X, y, 8, 3)
    _check_certificate(cert, rs, p, bf_obj, 8)


@pytest.mark.parametrize("seed", range(8))
def test_support_ip_is_the_optimum_over_its_columns(seed):
    """The restricted IP over the LP support: its selection is feasible, no worse than the
    start it is given, and (solved without a limit) the brute-force optimum over exactly the
    support columns and the start's columns."""
    from rulecert.mipmodels.colgen.restricted_ip import _support_ip
    rng = np.random.default_rng(seed)
    P, m, C = 12, 14, 9
    covers = [np.flatnonzero(rng.random(P) < 0.4) for _ in range(m)]
    costs = rng.integers(0, 4, size=m).astype(float)
    cpx = rng.integers(2, 5, size=m)
    master = RestrictedMaster(np.ones(P), C)
    master.add_columns(covers, costs, cpx)
    res, _, _ = master.solve_lp(None)
    w_lp = master.clause_values(res.x)
    start = np.zeros(m, dtype=bool)
    start[int(np.argmin(cpx))] = True
    start_obj = master.selection_objective(start)
    sel, info = _support_ip(master, w_lp, start, start_obj, 0, 1e-9, None)
    cols = np.flatnonzero((w_lp > 1e-6) | start)
    if cols.size == m:
        assert sel is None and info == {}
        return
    assert info["columns"] == cols.size and info["termination"] == "optimal"
    assert sel is not None and not sel[np.setdiff1d(np.arange(m), cols)].any()
    assert cpx[sel].sum() <= C and master.selection_objective(sel) <= start_obj + 1e-9
    best = min(master.selection_objective(np.isin(np.arange(m), sub))
               for r in range(cols.size + 1) for sub in itertools.combinations(cols, r)
               if cpx[list(sub)].sum() <= C)
    assert math.isclose(master.selection_objective(sel), best, abs_tol=1e-9)


@pytest.mark.parametrize("seed", range(16))
def test_restricted_ip_of_at_most_two_columns_is_scanned_exactly(seed, monkeypatch):
    """When no three columns fit C apart from the empty clause (complexity 1, covering every
    positive group, so best alone), that is C <= 5, the restricted IP is solved by scanning
    every selection of at most two columns: its objective is the brute-force optimum over all
    subsets that fit, the same as HiGHS's, and its bound equals it; when three other columns
    fit (C = 6), or three fit and a cost is negative, HiGHS solves it."""
    from rulecert.mipmodels.colgen import master as master_mod
    rng = np.random.default_rng(seed)
    P, m, C = 10, 12, 1 + seed % 6          # C = 1..5: scanned; 6: three columns fit
    covers = [np.arange(P)] + [np.flatnonzero(rng.random(P) < 0.5) for _ in range(m - 1)]
    costs = rng.integers(0, 5, size=m).astype(float)
    if seed % 7 == 4:                       # C = 5 and 6
        costs[1] = -1.0       # the empty clause is then not best alone: no dominance
    cpx = np.concatenate([[1], rng.integers(2, 5, size=m - 1)])   # the empty clause, then 1-3 literals
    a = rng.integers(1, 3, size=P).astype(float)

    def build():
        mm = RestrictedMaster(a, C)
        mm.add_columns(covers, costs, cpx)
        return mm
    best = min(build().selection_objective(np.isin(np.arange(m), sub))
               for r in range(4) for sub in itertools.combinations(range(m), r)
               if cpx[list(sub)].sum() <= C)
    scanned = build().solve_ip(None, None, mip_abs_gap=1e-9)
    monkeypatch.setattr(master_mod, "SCAN_MAX_PAIRABLE", -1)     # HiGHS, never the scan
    by_highs = build().solve_ip(None, None, mip_abs_gap=1e-9)
    assert by_highs.solver == "highs" and by_highs.termination == Termination.OPTIMAL
    full = np.array([len(c) == P for c in covers]) & (costs.min() >= 0)
    three_fit = np.sort(cpx[~full])[:3].sum() <= C
    if C <= 4 or (C == 5 and costs.min() >= 0):
        assert scanned.solver == "scan"
    assert (scanned.solver == "highs") == three_fit
    sel = build().clause_values(scanned.x) > 0.5
    assert cpx[sel].sum() <= C
    assert math.isclose(build().selection_objective(sel), scanned.objective, abs_tol=1e-9)
    assert math.isclose(scanned.objective, best, abs_tol=1e-9)
    assert math.isclose(by_highs.objective, best, abs_tol=1e-9)
    if not three_fit:
        assert scanned.bound == scanned.objective and scanned.status == SolutionStatus.OPTIMAL


def _selection_instance(seed, P=12, m=14, C=9):
    rng = np.random.default_rng(seed)
    covers = [np.flatnonzero(rng.random(P) < 0.4) for _ in range(m)]
    costs = rng.integers(0, 4, size=m).astype(float)
    cpx = rng.integers(2, 5, size=m)
    a = rng.integers(1, 3, size=P).astype(float)
    master = RestrictedMaster(a, C)
    master.add_columns(covers, costs, cpx)
    A = np.zeros((m, P), dtype=bool)
    for k, cov in enumerate(covers):
        A[k, cov] = True
    return master, A, a, costs, cpx, C


@pytest.mark.parametrize("seed", range(10))
def test_local_search_ends_in_a_local_optimum_no_worse_than_its_start(seed):
    """The restricted IP's local search: its objective is the master's, it never leaves the
    complexity budget or gets worse than its start, and where its descent stops no single
    add, drop or swap improves (every move re-evaluated from scratch), and the result is
    never better than the brute-force optimum."""
    from rulecert.mipmodels.colgen.improvers.selection_search import SelectionSearch, local_search
    master, A, a, costs, cpx, C = _selection_instance(seed)
    m = len(costs)
    search = SelectionSearch(A, a, costs, cpx, C)
    rng = np.random.default_rng(seed + 100)
    start = np.zeros(m, dtype=bool)
    for k in rng.permutation(m):
        if cpx[start].sum() + cpx[k] <= C:
            start[k] = True
    for sel in (start, np.zeros(m, dtype=bool)):
        assert math.isclose(search.objective(sel), master.selection_objective(sel))
    cur = start.copy()
    search.descend(cur)
    obj = master.selection_objective(cur)
    assert cpx[cur].sum() <= C and obj <= master.selection_objective(start) + 1e-9

    def feasible(s):
        return cpx[s].sum() <= C

    for j in range(-1, m):
        for k in range(-1, m):
            s = cur.copy()
            if j >= 0:
                if not s[j]:
                    continue
                s[j] = False
            if k >= 0:
                if s[k] or k == j:
                    continue
                s[k] = True
            if feasible(s):
                assert master.selection_objective(s) >= obj - 1e-9, (j, k)
    sel, obj2, info = local_search(search, start, seed=seed)
    best = min(master.selection_objective(np.isin(np.arange(m), sub))
               for r in range(m + 1) for sub in itertools.combinations(range(m), r)
               if cpx[list(sub)].sum() <= C)
    assert feasible(sel) and math.isclose(master.selection_objective(sel), obj2)
    assert best - 1e-9 <= obj2 <= obj + 1e-9 and info["kicks"] == 200


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_greedy_selection_with_local_search_reaches_the_optimum_on_small_masters():
    """On 20 small random masters the warm start (greedy + local search) is the brute-force
    optimum of the restricted IP on most, never worse than the plain greedy start
    (``improve=False``), and optimal more often than it."""
    from rulecert.mipmodels.colgen.restricted_ip import _greedy_selection

    class _St:
        pass

    hits = greedy_hits = 0
    for seed in range(20):
        master, A, a, costs, cpx, C = _selection_instance(seed)
        st = _St()
        st.C = C
        sel, obj, info = _greedy_selection(master, st, None, seed=seed)
        assert cpx[sel].sum() <= C and math.isclose(obj, master.selection_objective(sel))
        sel0, obj0, info0 = _greedy_selection(master, st, None, seed=seed, improve=False)
        assert info0 == {"greedy_objective": obj0} and cpx[sel0].sum() <= C
        assert math.isclose(obj0, info["greedy_objective"]) and obj <= obj0 + 1e-9
        m = len(costs)
        best = min(master.selection_objective(np.isin(np.arange(m), sub))
                   for r in range(m + 1) for sub in itertools.combinations(range(m), r)
                   if cpx[list(sub)].sum() <= C)
        assert obj >= best - 1e-9
        hits += obj <= best + 1e-9
        greedy_hits += obj0 <= best + 1e-9
    assert hits >= 16 and greedy_hits < hits


def test_gap_closing_cap_default_and_an_enumeration_cut_short_proves_no_optimum():
    """Gap closing: an enumeration that reaches its cap does not close the gap (at most the
    ladder's partial bound, valid against brute force), while the full enumeration proves
    the optimum; the cap used is in the stats."""
    X, y = _instance(510, n=30, noise=0.3)
    p = RuleProblem.from_matrix(X, y)
    _, bf_obj = brute_force_ruleset(X, y, 9, 3)
    rs, cert = solve(p, complexity_bound=9, max_clause_length=3)
    g = cert.stats["gap_closing"]
    assert g["cap"] == 10_000 and g["complete"] and g["enumerated"] > 2
    assert cert.proven_optimal and cert.objective == bf_obj
    rs, cert = solve(p, complexity_bound=9, max_clause_length=3, close_gap_columns=2)
    g = cert.stats["gap_closing"]
    assert g["cap"] == 2 and not g["complete"] and g["added"] <= 2
    _check_certificate(cert, rs, p, bf_obj, 9)
    assert not (cert.stats["bound_kind"] == "gap closing" and
                cert.stats["bound_detail"] == "reduced-cost enumeration + restricted IP")
    with pytest.raises(ValueError, match="close_gap_columns must be an integer >= 1"):
        solve(p, complexity_bound=9, close_gap_columns=-1)


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_gap_closing_ladder_proves_partial_bounds_never_past_brute_force(monkeypatch):
    """An enumeration of the whole gap-closing threshold that the node limit cuts short is
    made at lower thresholds (``gap_closing.gap_ladder``): each finished rung ``b`` proves ``b``.
    On tiny instances with a few hundred nodes (the first try at the whole threshold gets a
    sixteenth of them: the rungs cost about as much as the whole here, so with the default
    half they are seldom reached): the bound never passes brute force, never falls when the
    limit grows, and some rungs prove a bound between the one without gap closing and the
    optimum: the ladder's own (the certificate calls it partial) or the Lagrangian bound at
    the rung's duals (``gap_closing._enumerated_lagrangian``)."""
    from rulecert.mipmodels.colgen.provers import gap_closing
    monkeypatch.setattr(gap_closing, "GAP_FIRST_SHARE", 16)
    partial = 0
    for seed in range(8):
        X, y = _instance(seed + 900, n=50, d=10, noise=0.3)
        C, D = [(9, 4), (12, 5), (8, 3), (10, 4)][seed % 4]
        p = RuleProblem.from_matrix(X, y)
        kw = dict(complexity_bound=C, max_clause_length=D, pricers="heuristic", max_iter=3,
                  bound_search_steps=0, seed=seed)
        off = solve(p, close_gap=False, **kw).certificate.lower_bound
        _, opt = brute_force_ruleset(X, y, C, D)
        bounds = []
        for limit in (100, 300, 1000, 3000):
            rs, cert = solve(p, close_gap_nodes=limit, **kw)
            _check_certificate(cert, rs, p, opt, C)
            g = cert.stats.get("gap_closing") or {}
            for b, u, nodes, complete in g.get("ladder", [])[1:]:
                assert u <= g["threshold"] + 1e-6 and nodes <= limit
            kind, detail = cert.stats["bound_kind"], cert.stats["bound_detail"]
            if kind == "gap closing" and detail.startswith("partial reduced-cost enumeration"):
                partial += cert.lower_bound < opt
                assert not g["complete"] and g["cut"] <= g["threshold"]
                assert off < cert.lower_bound <= max(b for b, *_, ok in g["ladder"][1:] if ok)
            elif kind == "lagrangian" and detail.startswith("at gap closing's duals"):
                partial += cert.lower_bound < opt
                assert not g["complete"] and off < cert.lower_bound == g["lagrangian"]["bound"]
            bounds.append(cert.lower_bound)
        assert bounds == sorted(bounds), (seed, bounds)
    assert partial >= 5


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_gap_closing_ladder_after_the_cap_is_opt_in_and_never_past_brute_force():
    """``ladder_after_cap``: a whole-threshold enumeration that reached its cap
    climbs the ladder too.  By default it does not (the ladder holds the whole threshold
    alone and the bound is the one without gap closing); with the option, on two tiny
    instances and caps of 3, 10 and 30 clauses, rungs run below the threshold, the bound
    never falls below the one without gap closing nor passes brute force, and some caps
    raise it."""
    raised = 0
    for seed in (2, 6):
        X, y = _instance(seed + 900, n=50, d=10, noise=0.3)
        p = RuleProblem.from_matrix(X, y)
        kw = dict(complexity_bound=8, max_clause_length=3, pricers="heuristic", max_iter=3,
                  bound_search_steps=0, seed=seed)
        off = solve(p, close_gap=False, **kw).certificate.lower_bound
        _, opt = brute_force_ruleset(X, y, 8, 3)
        for cap in (3, 10, 30):
            rs, cert = solve(p, close_gap_columns=cap, **kw)
            g = cert.stats["gap_closing"]
            assert not g["complete"] and len(g["ladder"]) == 1 and cert.lower_bound == off
            rs, cert = solve(p, close_gap_columns=cap, ladder_after_cap=True, **kw)
            _check_certificate(cert, rs, p, opt, 8)
            g = cert.stats["gap_closing"]
            assert len(g["ladder"]) > 1 and all(u <= g["threshold"] + 1e-6
                                                for _, u, *_ in g["ladder"][1:])
            assert off <= cert.lower_bound <= opt
            raised += cert.lower_bound > off
    assert raised >= 2
    with pytest.raises(ValueError, match="ladder_after_cap must be True or False"):
        solve(p, complexity_bound=8, ladder_after_cap="yes")


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_gap_closing_enumeration_gives_the_lagrangian_bound_at_its_duals(monkeypatch):
    """Gap closing's enumeration is a pricing proof at its duals: every clause it did not
    return costs >= its cut, so the Lagrangian bound there takes the returned clauses as
    knapsack items (``gap_closing._enumerated_lagrangian``).  On tiny instances (DNF and CNF,
    weights, fn_weight, penalties; node limits that stop enumerations early, some
    below a negative cut; the whole threshold first gets a sixteenth of them, as in the
    ladder's test) that bound never passes brute force, a fit's bound is at least it, and
    it raises the bound past every other on some instances."""
    from rulecert.mipmodels.colgen.provers import gap_closing
    monkeypatch.setattr(gap_closing, "GAP_FIRST_SHARE", 16)
    raised = tried = 0
    for seed in range(12):
        X, y, sw, form, C, D = _varied_case(seed)
        fnw = 0.5 if seed % 5 == 2 else 1.0
        p = RuleProblem.from_matrix(X, y, sample_weight=sw)
        obj_kw = dict(clause_penalty=0.5, literal_penalty=0.25) if seed % 6 == 5 else {}
        _, opt = brute_force_ruleset(X, y, C, D, sample_weight=sw, form=form, fn_weight=fnw,
                                     **obj_kw)
        kw = dict(complexity_bound=C, max_clause_length=D, form=form, fn_weight=fnw,
                  pricers="heuristic", max_iter=3, bound_search_steps=0, seed=seed, **obj_kw)
        for limit in (100, 300, 1000):
            rs, cert = solve(p, close_gap_nodes=limit, **kw)
            _check_certificate(cert, rs, p, opt, C, fn_weight=fnw, **obj_kw)
            lag = (cert.stats.get("gap_closing") or {}).get("lagrangian")
            if lag is None:
                continue
            tried += 1
            assert lag["bound"] <= opt + 1e-9, (seed, limit, lag, opt)
            assert cert.lower_bound >= lag["bound"]
            raised += (cert.stats["bound_kind"] == "lagrangian" and
                       cert.stats["bound_detail"].startswith("at gap closing's duals"))
    assert raised >= 4 and tried >= 20, (raised, tried)


@pytest.mark.parametrize("local_search", [True, False])
def test_local_search_option_switches_the_start_and_keeps_results_valid(local_search):
    """``_local_search=False`` starts the restricted IP from the plain greedy selection (no
    search in the stats); either way the certificate is valid against brute force."""
    X, y = _instance(520, n=30, noise=0.3)
    p = RuleProblem.from_matrix(X, y)
    _, bf_obj = brute_force_ruleset(X, y, 9, 3)
    rs, cert = solve(p, complexity_bound=9, max_clause_length=3, max_iter=1, close_gap=False,
                     _local_search=local_search)
    _check_certificate(cert, rs, p, bf_obj, 9)
    info = cert.stats["local_search"]
    assert ("kicks" in info) is local_search and "greedy_objective" in info
    assert cert.stats["restricted_ip_start"] != ("greedy" if local_search else "greedy + local search")


# ---- the empty clause (paper's pricing (6)-(10) without a literal; AIX360 returns it) --------
EMPTY_CASES = [  # seed, form, C, D, clause_penalty, literal_penalty, pricers
    (0, "dnf", 1, 3, 0.0, 0.0, "auto"), (1, "dnf", 3, 2, 0.0, 0.0, "auto"),
    (2, "dnf", 5, 3, 0.0, 0.0, "exact"), (3, "cnf", 5, 2, 0.0, 0.0, "bnb"),
    (4, "dnf", None, 3, 1.0, 0.5, "auto"), (5, "dnf", 7, 3, 0.0, 0.0, "auto"),
    (6, "cnf", 1, 3, 0.0, 0.0, "auto"), (7, "dnf", 4, 3, 0.0, 0.0, "heuristic"),
]


def _positive_heavy(seed, n=30, d=8):
    """Noisy labels with a large majority of the learned class: 'always true' is often best."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) < 0.5
    y = ((X[:, 0] | X[:, 1] | (rng.random(n) < 0.6)) ^ (rng.random(n) < 0.15)).astype(int)
    return X, y


@pytest.mark.parametrize("case", EMPTY_CASES, ids=[f"seed{c[0]}-{c[1]}-C{c[2]}" for c in EMPTY_CASES])
def test_empty_clause_final_ip_equals_brute_force(case):
    seed, form, C, D, lam0, lam1, pricing = case
    X, y = _positive_heavy(seed)
    if form == "cnf":
        y = 1 - y
    problem = RuleProblem.from_matrix(X, y)
    kw = dict(clause_penalty=lam0, literal_penalty=lam1)
    rs, cert = solve(problem, complexity_bound=C, max_clause_length=D, form=form, pricers=pricing,
                     empty_clause=True, pricing_deterministic_time=20.0, **kw)
    _, bf_obj = brute_force_ruleset(X, y, C, D, form=form, empty_clause=True, **kw)
    _, bf_plain = (None, math.inf) if C is not None and C < 2 else \
        brute_force_ruleset(X, y, C, D, form=form, **kw)
    assert bf_obj <= bf_plain + 1e-9          # a larger model class
    _check_certificate(cert, rs, problem, bf_obj, C, **kw)
    assert math.isclose(cert.objective, bf_obj, abs_tol=1e-9) and cert.proven_optimal
    for h in cert.history:
        assert h["lower_bound"] <= bf_obj + 1e-9


SMALL_CASES = [  # seed, form, C, empty clause, fn_weight, clause_penalty, literal_penalty, weighted
    (s, "cnf" if s % 5 == 4 else "dnf", (2, 3, 4, 4.5, 5, 5.5, 3.5)[s % 7], s % 3 != 2,
     (1.0, 2.0, 0.5)[s % 3], (0.0, 0.0, 1.0, 0.5)[s % 4], (0.0, 0.5)[s % 2] if s % 4 else 0.0,
     s % 6 == 5)
    for s in range(28)]


@pytest.mark.parametrize("case", SMALL_CASES, ids=[f"seed{c[0]}-{c[1]}-C{c[2]}-e{int(c[3])}"
                                                   for c in SMALL_CASES])
def test_small_class_search_certifies_the_brute_force_optimum(case):
    """Below C = 6 (at most two non-empty clauses fit) the whole class is searched: with no
    column generation at all (``max_iter=0``, no gap closing) the fit is the brute-force
    optimum, proven, over DNF and CNF, with and without the empty clause, weights and
    penalties; under a node limit of its search the bound still never passes the optimum."""
    seed, form, C, empty, fnw, lam0, lam1, weighted = case
    X, y = _positive_heavy(seed + 200, n=36, d=7)
    if form == "cnf":
        y = 1 - y
    w = np.random.default_rng(seed).integers(1, 4, size=len(y)).astype(float) if weighted else None
    problem = RuleProblem.from_matrix(X, y, sample_weight=w)
    kw = dict(fn_weight=fnw, clause_penalty=lam0, literal_penalty=lam1)
    _, bf = brute_force_ruleset(X, y, C, 6, form=form, empty_clause=empty, sample_weight=w, **kw)
    # the enumeration capped at one clause proves nothing: the proof is the search's
    rs, cert = solve(problem, complexity_bound=C, form=form, empty_clause=empty, max_iter=0,
                     polish=False, close_gap_columns=1, **kw)
    _check_certificate(cert, rs, problem, bf, C, **kw)
    assert cert.proven_optimal and math.isclose(cert.objective, bf, abs_tol=1e-9)
    small = (cert.stats["gap_closing"] or {}).get("small_class")
    assert small is None or math.isclose(small["bound"], bf, abs_tol=1e-9)
    for nodes in (1, 3):
        rs, cert = solve(problem, complexity_bound=C, form=form, empty_clause=empty, max_iter=0,
                         polish=False, close_gap_nodes=nodes, **kw)
        _check_certificate(cert, rs, problem, bf, C, **kw)
    off = solve(problem, complexity_bound=C, form=form, empty_clause=empty, max_iter=0,
                polish=False, close_gap=False, **kw)[1]
    assert "small_class" not in (off.stats["gap_closing"] or {})


def test_empty_clause_is_chosen_when_best_and_bounds_stay_valid_under_limits():
    chosen = 0
    for seed in range(12):
        X, y = _positive_heavy(seed + 50)
        problem = RuleProblem.from_matrix(X, y)
        C = 3 + seed % 4
        _, bf_obj = brute_force_ruleset(X, y, C, 3, empty_clause=True)
        _, bf_plain = brute_force_ruleset(X, y, C, 3)
        rs, cert = solve(problem, complexity_bound=C, max_clause_length=3, empty_clause=True,
                         max_iter=seed % 3, close_gap=bool(seed % 2), pricing_nodes=50)
        _check_certificate(cert, rs, problem, bf_obj, C)
        chosen += () in [tuple(c) for c in rs.clauses] and bf_obj < bf_plain
    assert chosen >= 2, "the instances should make the empty clause strictly better sometimes"


def test_empty_clause_estimator_at_complexity_one():
    from rulecert.estimators.brcg import BooleanRuleCGClassifier, BooleanRuleCGCV
    X, y = _positive_heavy(3)
    clf = BooleanRuleCGClassifier(1, solver_options={'empty_clause': True}).fit(X.astype(int), y)
    # the only rule sets of complexity <= 1: predict 0 (loss = positives) or TRUE (negatives)
    want_true = (y == 0).sum() < (y == 1).sum()
    assert want_true and clf.complexity_ == 1 and "(true)" in str(clf)
    assert (clf.predict(X.astype(int)) == 1).all() and clf.certificate_.proven_optimal
    with pytest.raises(ValueError, match="no clause fits"):
        BooleanRuleCGClassifier(1, solver_options={'empty_clause': False}).fit(X.astype(int), y)
    with pytest.raises(ValueError, match="no clause fits"):
        BooleanRuleCGCV([1, 5], cv=2, solver_options={'empty_clause': False}).fit(X.astype(int), y)
    cv = BooleanRuleCGCV([1, 5], cv=2, random_state=0, solver_options={'empty_clause': True}).fit(X.astype(int), y)
    assert cv.complexity_ <= cv.complexity_bound_


@pytest.mark.parametrize("case", [CASES[0], CASES[3], CASES[8]], ids=["dnf", "cnf", "bnb"])
def test_light_ip_options_reach_the_ip_only_and_keep_it_exact(case, monkeypatch):
    from rulecert.mipmodels import highs as hx
    from rulecert.mipmodels.colgen import LIGHT_IP_OPTIONS
    seen = []
    orig = hx.solve

    def spy(h, **kw):
        seen.append((kw["is_mip"], h.getOptionValue("mip_pscost_minreliable")[1],
                     h.getOptionValue("mip_heuristic_run_rins")[1]))
        return orig(h, **kw)
    monkeypatch.setattr(hx, "solve", spy)
    seed, form, C, D, weighted, fnw, lam0, lam1, pricing = case
    X, y = _instance(seed)
    problem = RuleProblem.from_matrix(X, y)
    kw = dict(fn_weight=fnw, clause_penalty=lam0, literal_penalty=lam1)
    rs, cert = solve(problem, complexity_bound=C, max_clause_length=D, form=form,
                     pricers=pricing, pricing_deterministic_time=20.0,
                     ip_options=LIGHT_IP_OPTIONS, **kw)
    _, bf_obj = brute_force_ruleset(X, y, C, D, form=form, **kw)
    _check_certificate(cert, rs, problem, bf_obj, C, **kw)
    assert cert.proven_optimal and math.isclose(cert.objective, bf_obj, abs_tol=1e-9)
    ips = [s for s in seen if s[0]]
    assert ips and all(s[1:] == (0, False) for s in ips)      # every IP solve got them
    lps = [s for s in seen if not s[0]]
    assert lps and all(s[1:] == (8, True) for s in lps)        # the LPs kept HiGHS's defaults


def test_bad_ip_options_fail_before_any_work(monkeypatch):
    from rulecert.mipmodels import highs as hx
    monkeypatch.setattr(hx, "solve", lambda *a, **k: pytest.fail("solved despite bad options"))
    p = RuleProblem.from_matrix(*_instance(1))
    with pytest.raises(ValueError, match="'mip_magic' is not a HiGHS option"):
        solve(p, complexity_bound=5, ip_options={"mip_magic": 1})
    with pytest.raises(ValueError, match="HiGHS refuses mip_heuristic_effort='lots'"):
        solve(p, complexity_bound=5, ip_options={"mip_heuristic_effort": "lots"})
    with pytest.raises(ValueError, match="'mip_max_nodes' is set by rulecert; use ip_nodes"):
        solve(p, complexity_bound=5, ip_options={"mip_max_nodes": 3})
    with pytest.raises(ValueError, match="ip_options must be a dict"):
        solve(p, complexity_bound=5, ip_options=["mip_heuristic_effort"])


def test_the_estimators_pass_their_bound_node_limits_to_the_solve(monkeypatch):
    """bound_nodes and final_bound_nodes (``solver_options``) reach every solve of both
    estimators; their defaults are ColGenOptions' own; a bad value is refused by name before
    any fit."""
    from rulecert.estimators.brcg import BooleanRuleCGClassifier, BooleanRuleCGCV
    from rulecert.mipmodels import colgen
    defaults = colgen.ColGenOptions().certification
    for est in (BooleanRuleCGClassifier(), BooleanRuleCGCV()):
        o = est._options(30, 0, 5, None)
        assert o.certification.bound_nodes == defaults.bound_nodes
        assert o.certification.final_bound_nodes == defaults.final_bound_nodes
    seen = []
    orig = colgen.solve

    def spy(problem, options=None, **kw):
        seen.append((options.certification.bound_nodes, options.certification.final_bound_nodes))
        return orig(problem, options, **kw)
    monkeypatch.setattr(colgen, "solve", spy)
    X, y = _instance(2)
    kw = dict(solver_options=dict(bound_nodes=321, final_bound_nodes=4321, max_iter=2))
    BooleanRuleCGClassifier(5, **kw).fit(X.astype(int), y)
    BooleanRuleCGCV([3, 5], cv=2, **kw).fit(X.astype(int), y)
    assert len(seen) == 1 + 2 * 2 + 1 and set(seen) == {(321, 4321)}
    seen.clear()
    with pytest.raises(ValueError, match="final_bound_nodes must be an integer >= 0"):
        BooleanRuleCGClassifier(5, solver_options={'final_bound_nodes': -1}).fit(X.astype(int), y)
    assert seen == []
