"""Column generation's lower bounds: the Lagrangian bound at any complexity dual (normalised by
clause complexity), the complexity-dual search, the certificate's account
of the bound; all checked against brute force on tiny instances and under deterministic
limits.  Also the empty clause's default and the C / D checks."""
import itertools
import math

import numpy as np
import pytest

from rulecert.mipmodels.colgen import ColGenOptions, solve
from rulecert.mipmodels.colgen.bounds import (at_complexity_dual, complexity_bound_at,
                                              complexity_dual_descent,
                                              complexity_dual_search, conflict_bound,
                                              knapsack_bound, lagrangian_bound, read_duals)
from rulecert.mipmodels.colgen.state import State
from rulecert.models.ruleset import ruleset_objective
from rulecert.problem import RuleProblem
from rulecert.reference import brute_force_ruleset
from test_colgen import _instance as _colgen_instance


def _instance(seed, n=24, d=7, noise=0.2):
    """The column-generation tests' tiny random instances, a little smaller by default."""
    return _colgen_instance(seed, n=n, d=d, noise=noise)


def _problem(X, y):
    return RuleProblem.from_matrix(X, y, [f"f{j}" for j in range(X.shape[1])])


def _all_clauses(d, D):
    for k in range(1, D + 1):
        yield from itertools.combinations(range(d), k)


def _rc(st, duals, cl):
    """rc(t) of one clause at ``duals``."""
    cov = np.logical_and.reduce(st.X[:, list(cl)], axis=1)
    return duals.const + duals.lit * len(cl) + float(duals.v[cov].sum())


def _negative_clauses(st, duals):
    """``(rc, clause)`` of every non-empty clause of 1..D literals with rc(t) < 0, in
    enumeration order."""
    return [(rc, cl) for cl in _all_clauses(st.d, st.D) if (rc := _rc(st, duals, cl)) < 0]


def _exact_min_rc(st, duals):
    """min over the non-empty clauses of 1..D literals of rc(t), by enumeration."""
    return min(_rc(st, duals, cl) for cl in _all_clauses(st.d, st.D))


# ---- the mathematics, at arbitrary duals ------------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("empty", [False, True])
def test_bound_at_any_duals_never_exceeds_the_optimum(seed, empty):
    """Bound (1) holds for every mu >= 0 and every complexity dual t >= 0 (not only the LP's),
    with the exact pricing minimum or any lower bound on it; the complexity-normalised choice
    t* = -min_k rc_k(0)/c_k gives B(mu) + r C, at least the paper's bound with N = C/2."""
    X, y = _instance(seed)
    rng = np.random.default_rng(1000 + seed)
    C = int(rng.integers(3 if not empty else 1, 9))
    D = int(rng.integers(1, 4))
    p = _problem(X, y)
    _, opt = brute_force_ruleset(X, y, C, D, empty_clause=empty)
    st = State(p, ColGenOptions.of(complexity_bound=C, max_clause_length=D, empty_clause=empty))
    for _ in range(6):
        mu = rng.uniform(0, 1, len(st.P)) * st.a * rng.choice([0.3, 1.0])
        base = read_duals(st, 0.0, mu, 0.0, empty)
        # t* of the module doc: the most negative reduced cost per unit of complexity at t=0
        r = min(_rc(st, base, cl) / (1 + len(cl)) for cl in _all_clauses(st.d, st.D))
        bounds = []
        for t in [0.0, float(rng.uniform(0, 2)), float(rng.uniform(0, 6)), max(0.0, -r)]:
            dt = at_complexity_dual(st, base, t)
            z = _exact_min_rc(st, dt)
            b = complexity_bound_at(st, dt, z, math.inf)
            assert b <= opt + 1e-9, (t, b, opt)
            # a weaker proven pricing bound gives a weaker, still valid bound
            assert complexity_bound_at(st, dt, z - 1.5, math.inf) <= b + 1e-9
            # never below the paper's form at the same duals
            assert b >= lagrangian_bound(st, dt, z, math.inf) - 1e-9
            bounds.append(b)
        if r < 0:
            ts = at_complexity_dual(st, base, -r)
            assert _exact_min_rc(st, ts) >= -1e-9
            ratio_bound = base.base + r * C + (min(0.0, base.empty_rc0 - r) if empty else 0.0)
            assert bounds[-1] >= st.round_bound(ratio_bound) - 1e-9
            # and, with N = C/2 (no floor, the LP's count), above the paper's form at any t
            for t, b in zip([0.0], bounds):
                dt = at_complexity_dual(st, base, t)
                paper_lp = dt.lagrangian + C / 2 * min(0.0, _exact_min_rc(st, dt))
                assert bounds[-1] >= math.floor(paper_lp + 1e-6) - 1e-9


@pytest.mark.parametrize("seed", range(10))
def test_knapsack_bound_by_clause_length(seed):
    """Per-length pricing bounds (exact minimum per length, or any lower bound on it) in the
    knapsack over lengths never exceed the optimum and are at least the one-class bound."""
    X, y = _instance(seed + 200, n=26, d=7)
    rng = np.random.default_rng(seed)
    C, D = int(rng.integers(5, 14)), int(rng.integers(2, 5))
    empty = bool(seed % 2)
    p = _problem(X, y)
    _, opt = brute_force_ruleset(X, y, C, D, empty_clause=empty)
    st = State(p, ColGenOptions.of(complexity_bound=C, max_clause_length=D, empty_clause=empty))
    for _ in range(5):
        mu = rng.uniform(0, 1, len(st.P)) * st.a
        dt = read_duals(st, 0.0, mu, float(rng.uniform(0, 3)), empty)
        per = {}
        for cl in _all_clauses(st.d, st.D):
            per[len(cl)] = min(per.get(len(cl), math.inf), _rc(st, dt, cl))
        exact = [(1 + k, z) for k, z in per.items()]
        b = knapsack_bound(st, dt, exact, math.inf)
        assert b <= opt + 1e-9
        assert b >= complexity_bound_at(st, dt, min(per.values()), math.inf) - 1e-9
        for L in range(1, st.D):         # two classes: <= L exact, > L a weaker bound
            zs = min(z for k, z in per.items() if k <= L)
            zl = min(z for k, z in per.items() if k > L) - float(rng.uniform(0, 2))
            assert knapsack_bound(st, dt, [(2, zs), (L + 2, zl)], math.inf) <= opt + 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_complexity_dual_search_with_exact_pricing(seed):
    """The search, pricing exactly by enumeration, keeps the best of its steps, never exceeds
    the optimum and returns only clauses that improve at the starting dual."""
    X, y = _instance(seed + 50)
    rng = np.random.default_rng(seed)
    C, D = int(rng.integers(4, 10)), int(rng.integers(2, 4))
    p = _problem(X, y)
    _, opt = brute_force_ruleset(X, y, C, D, empty_clause=True)
    st = State(p, ColGenOptions.of(complexity_bound=C, max_clause_length=D, empty_clause=True))
    mu = rng.uniform(0, 1, len(st.P)) * st.a
    lam = float(rng.uniform(0, 1))
    duals = read_duals(st, float(rng.uniform(1, 10)), mu, lam, True)
    calls = []

    enumerate_ = bool(seed % 2)     # odd seeds: every clause below 0 as knapsack items

    def price_at(dt, share):
        calls.append(dt.lam)
        found = _negative_clauses(st, dt)
        if enumerate_:
            return [(2, 0.0)], [cl for _, cl in found[:5]], True, \
                [(rc, 1 + len(cl)) for rc, cl in found]
        return [(2, min(0.0, _exact_min_rc(st, dt)))], [cl for _, cl in found[:5]], True, None

    z0 = _exact_min_rc(st, duals)
    sr = complexity_dual_search(st, duals, z0, [], math.inf, price_at, steps=4)
    assert len(calls) <= 4 and all(t >= lam for t in calls)
    assert sr.bound <= opt + 1e-9
    assert sr.bound == max(s[2] for s in sr.steps)
    assert sr.bound >= complexity_bound_at(st, duals, z0, math.inf)
    assert all(_rc(st, duals, cl) < 0 for cl in sr.clauses)


def _descent_case(seed):
    """A tiny instance, random duals and an exact pricer by enumeration whose proof costs
    ``nodes(share)``, more nodes at a smaller complexity dual (as the branch-and-bound's do);
    a call whose limit is below that stops incomplete with a weaker valid bound."""
    X, y = _instance(seed + 80)
    rng = np.random.default_rng(seed)
    C, D = int(rng.integers(4, 10)), int(rng.integers(2, 4))
    _, opt = brute_force_ruleset(X, y, C, D, empty_clause=True)
    st = State(_problem(X, y), ColGenOptions.of(complexity_bound=C, max_clause_length=D))
    duals = read_duals(st, float(rng.uniform(2, 10)), rng.uniform(0, 1, len(st.P)) * st.a,
                       float(rng.uniform(0, 0.5)), True)
    growth = float(rng.uniform(3, 12))
    calls = []

    def price_at(dt, share, limit):
        cost = int(math.ceil(20 * math.exp(growth * (1 - share))))
        calls.append((dt.lam, share, limit, cost))
        found = sorted(_negative_clauses(st, dt))
        if limit is not None and cost > limit:       # stopped: a bound, below the minimum
            return [(2, min(0.0, _exact_min_rc(st, dt)) - 1.0)], [], False, None, limit
        return ([(2, 0.0)], [cl for _, cl in found[:3]], True,
                [(rc, 1 + len(cl)) for rc, cl in found], cost)
    return st, duals, opt, calls, price_at


@pytest.mark.parametrize("seed", range(8))
def test_the_last_searchs_descent_stays_within_its_budget_and_below_the_optimum(seed):
    """The descent in t spends at most its node budget in all (the first calls at most
    first_limit each), never prices below the LP's dual, never exceeds brute force, and
    returns only clauses that improve at the LP's dual."""
    st, duals, opt, calls, price_at = _descent_case(seed)
    z0 = _exact_min_rc(st, duals)
    for budget in (0, 50, 400, 3000, 10**5, None):
        calls.clear()
        sr = complexity_dual_descent(st, duals, z0, [], math.inf, price_at, budget, 60, 40)
        used = sum(min(cost, math.inf if lim is None else lim) for _, _, lim, cost in calls)
        assert budget is None or used <= budget, (budget, calls)
        assert all(t >= duals.lam for t, *_ in calls)
        assert calls == [] or calls[0][2] <= 60
        assert sr.bound <= opt + 1e-9
        assert sr.bound == max(s[2] for s in sr.steps)
        assert sr.bound >= complexity_bound_at(st, duals, z0, math.inf)
        assert all(_rc(st, duals, cl) < 0 for cl in sr.clauses)


def test_the_last_searchs_bound_never_decreases_with_its_budget():
    """A larger node budget repeats the smaller one's calls (each the same but the last, which
    may get more nodes) and keeps the best bound: the bound is non-decreasing in the budget,
    and on some instances a large budget proves what a small one cannot."""
    gained = 0
    for seed in range(8):
        st, duals, opt, calls, price_at = _descent_case(seed)
        z0 = _exact_min_rc(st, duals)
        bounds, paths = [], []
        for budget in (0, 30, 100, 300, 1000, 3000, 10**4, 10**5, 10**6, None):
            calls.clear()
            sr = complexity_dual_descent(st, duals, z0, [], math.inf, price_at, budget, 60, 40)
            bounds.append(sr.bound)
            paths.append([c[:2] for c in calls])
        assert all(a <= b + 1e-12 for a, b in zip(bounds, bounds[1:])), (seed, bounds)
        for short, long in zip(paths, paths[1:]):
            assert long[:len(short)] == short
        assert bounds[-1] <= opt + 1e-9
        gained += bounds[-1] > bounds[0]
    assert gained >= 3


def test_the_descent_stops_at_its_target_and_above_the_minimum_share():
    """Given a target (a known rule set's objective), the descent stops once its bound reaches
    it, after a prefix of the same calls; it never prices at a share below
    DESCENT_MIN_SHARE."""
    from rulecert.mipmodels.colgen.bounds import DESCENT_MIN_SHARE
    stopped = 0
    for seed in range(8):
        st, duals, opt, calls, price_at = _descent_case(seed)
        z0 = _exact_min_rc(st, duals)
        full = complexity_dual_descent(st, duals, z0, [], math.inf, price_at, None, 60, 40)
        path = list(calls)
        assert all(share >= DESCENT_MIN_SHARE for _, share, *_ in path)
        for target in sorted({step[2] for step in full.steps[1:]}):
            calls.clear()
            sr = complexity_dual_descent(st, duals, z0, [], math.inf, price_at, None, 60, 40,
                                         target=target)
            assert calls == path[:len(calls)] and sr.bound >= target - 1e-9
            if len(calls) < len(path):
                stopped += 1
                assert max((s[2] for s in sr.steps[:-1]), default=-math.inf) < target - 1e-9
    assert stopped >= 3


def test_a_descent_resumed_from_its_proofs_goes_on_where_it_left_off():
    """Resumed from the first k proofs of a descent (``proofs``, as the time-left search
    resumes the solve's last search, with the clauses it found and its best bound), the
    descent makes exactly the calls the uninterrupted one made after its k-th proof (it
    proves no share again) and reaches the same best bound."""
    checked = 0
    for seed in range(8):
        st, duals, opt, calls, price_at = _descent_case(seed)
        z0 = _exact_min_rc(st, duals)
        found = []                                  # the clauses each call returned

        def pricer(dt, share, limit):
            out = price_at(dt, share, limit)
            found.append(out[1])
            return out
        full = complexity_dual_descent(st, duals, z0, [], math.inf, pricer, None, 60, 40)
        path = list(calls)
        proven = [i for i, (_, _, lim, cost) in enumerate(path) if lim is None or cost <= lim]
        assert full.proofs == [(path[i][1], path[i][3]) for i in proven]
        for k, i in enumerate(proven, 1):
            if any(j not in proven for j in range(proven[0], i)):
                break        # a failure after the first proof: the bisection is not resumed
            calls.clear()
            before = max(step[2] for step in full.steps[:i + 2])   # b0 and calls 0..i
            known = [cl for cls in found[:i + 1] for cl in cls]
            sr = complexity_dual_descent(st, duals, z0, known, math.inf, price_at, None, 60,
                                         40, best_known=before, proofs=full.proofs[:k])
            assert calls == path[i + 1:], (seed, k)
            assert max(before, sr.bound) == full.bound <= opt + 1e-9
            assert sr.proofs == full.proofs
            checked += 1
    assert checked >= 8, checked



def test_a_descent_on_the_clock_keeps_its_steps_within_reach():
    """With ``affordable`` (the nodes the time left can buy), a descent resumed after its
    k-th proof (k >= 2): with no limit, makes the calls it makes without one; when the last
    proof's nodes are more than the reach share of what is affordable, makes no call (any
    smaller t costs more) and says so; when the planned step is predicted to cost more than that share,
    makes a shorter step that costs about that share (the fake pricer's nodes grow
    exponentially in the share, as predicted) and is proven; never exceeds brute force."""
    from rulecert.mipmodels.colgen.bounds import DESCENT_REACH_SHARE
    shortened = 0
    for seed in range(8):
        st, duals, opt, calls, price_at = _descent_case(seed)
        z0 = _exact_min_rc(st, duals)
        full = complexity_dual_descent(st, duals, z0, [], math.inf, price_at, None, 60, 40)
        for k in range(2, len(full.proofs) + 1):
            last = full.proofs[k - 1][1]

            def resumed(nodes_left):
                calls.clear()
                sr = complexity_dual_descent(st, duals, z0, [], math.inf, price_at, None, 60,
                                             40, proofs=full.proofs[:k],
                                             affordable=None if nodes_left is None
                                             else lambda: nodes_left)
                assert sr.bound <= opt + 1e-9
                return list(calls), sr.ended
            free, _ = resumed(None)
            assert resumed(math.inf)[0] == free
            assert resumed(0.99 * last / DESCENT_REACH_SHARE) == (
                [], "no smaller complexity dual can be proven in the time left")
            can = 1.5 * last
            path, _ = resumed(can / DESCENT_REACH_SHARE)
            if free and free[0][3] > 1.02 * can:       # the planned step is out of reach
                assert path and path[0][1] < full.proofs[k - 1][0]
                cost, limit = path[0][3], path[0][2]
                assert last < cost <= 1.02 * can and (limit is None or cost <= limit)
                shortened += 1
    assert shortened >= 4, shortened

def _implied_instance(seed, n=26, noise=0.2):
    """Tiny random data plus conjunctions of its features (so that features imply others and
    the pricing search skips redundant and dominated clauses)."""
    X, y = _instance(seed, n=n, d=6, noise=noise)
    X = np.column_stack([X, X[:, 0] & X[:, 1], X[:, 2] & ~X[:, 3], X[:, 0] & X[:, 1] & X[:, 4]])
    return X, y


def _two_class_knapsack(st, dt, L, u):
    """The enumerated knapsack with two classes: every clause of <= L literals below 0 and
    every longer one below u < 0 enumerated by the branch-and-bound, the rest >= u."""
    from rulecert.mipmodels.colgen.pricing.bnb import price_by_branch_and_bound as bnb
    es = bnb(st.X, dt.v, dt.const, dt.lit, L, K=10**6, upper=0.0, tighten=False)
    el = bnb(st.X, dt.v, dt.const, dt.lit, st.D, K=10**6, upper=u, tighten=False)
    assert es.complete and el.complete
    found = {cl: rc for cl, rc in zip(es.clauses, es.reduced_costs)}
    found.update((cl, rc) for cl, rc in zip(el.clauses, el.reduced_costs) if len(cl) > L)
    return knapsack_bound(st, dt, [(2, 0.0), (L + 2, u)], math.inf,
                          [(rc, 1 + len(cl)) for cl, rc in found.items()])


@pytest.mark.parametrize("seed", range(10))
def test_enumerated_knapsack_bound_never_exceeds_the_optimum(seed):
    """The enumerated knapsack: the branch-and-bound's enumeration (irredundant, undominated
    clauses only) below 0 for short clauses and below u < 0 for long ones, each clause used at
    most once, never exceeds the brute-force optimum, is at least the bound by classes alone
    and falls (weakly) as t grows."""
    from rulecert.mipmodels.colgen.pricing.bnb import price_by_branch_and_bound as bnb
    X, y = _implied_instance(seed + 400)
    rng = np.random.default_rng(seed)
    C, D, empty = int(rng.integers(3, 12)), int(rng.integers(2, 4)), bool(seed % 2)
    _, opt = brute_force_ruleset(X, y, C, D, empty_clause=empty)
    st = State(_problem(X, y), ColGenOptions.of(complexity_bound=C, max_clause_length=D,
                                             empty_clause=empty))
    for _ in range(4):
        base = read_duals(st, 0.0, rng.uniform(0, 1, len(st.P)) * st.a, 0.0, empty)
        prev = math.inf
        for t in sorted(float(x) for x in rng.uniform(0, 2, 4)):
            dt = at_complexity_dual(st, base, t)
            e = bnb(st.X, dt.v, dt.const, dt.lit, st.D, K=10**6, upper=0.0, tighten=False)
            assert e.complete
            items = [(rc, 1 + len(cl)) for rc, cl in zip(e.reduced_costs, e.clauses)]
            b = knapsack_bound(st, dt, [(2, 0.0)], math.inf, items)
            assert b <= opt + 1e-9, (t, b, opt)
            assert b >= complexity_bound_at(st, dt, _exact_min_rc(st, dt), math.inf) - 1e-9
            assert b <= prev + 1e-9
            prev = b
            # short clauses (1 literal) below 0, long ones only below u
            assert _two_class_knapsack(st, dt, 1, -float(rng.uniform(0, 2))) <= opt + 1e-9


def _master_lp_duals(st, empty):
    """The master LP over every clause of 1..D literals (and the empty clause), solved in
    HiGHS by scipy: its value, the cover duals mu and the complexity dual lambda."""
    from scipy.optimize import linprog
    cols = [cl for cl in _all_clauses(st.d, st.D)] + ([()] if empty else [])
    nP = len(st.P)
    A = np.zeros((nP + 1, nP + len(cols)))
    cost = np.concatenate([st.a, np.zeros(len(cols))])
    A[:nP, :nP] = -np.eye(nP)
    for k, cl in enumerate(cols):
        cov = (np.logical_and.reduce(st.X[:, list(cl)], axis=1) if cl
               else np.ones(st.G, dtype=bool))
        cost[nP + k] = float(st.neg[cov].sum())
        A[:nP, nP + k] = -cov[st.P].astype(float)
        A[nP, nP + k] = 1 + len(cl)
    b = np.concatenate([-np.ones(nP), [st.C]])
    res = linprog(cost, A_ub=A, b_ub=b, bounds=(0, 1), method="highs")
    assert res.status == 0
    return res.fun, -res.ineqlin.marginals[:nP], -res.ineqlin.marginals[nP]


@pytest.mark.parametrize("seed", range(12))
def test_enumerated_knapsack_at_the_lp_duals_can_beat_the_lp_and_stays_below_the_optimum(seed):
    """At the master LP's optimal duals the bound at t = lambda is the LP value; below lambda
    the enumerated knapsack (each clause at most once) only rises, and may pass the LP (seeds
    4, 5, 8; on seed 4 it reaches the optimum at t = 0), yet never the brute-force optimum:
    the tight setting where a bound too strong shows."""
    from rulecert.mipmodels.colgen.pricing.bnb import price_by_branch_and_bound as bnb
    X, y = _implied_instance(seed + 500, n=40, noise=0.3)   # weighted: no rounding of bounds
    w = np.random.default_rng(seed + 500).uniform(0.5, 1.5, len(y))
    rng = np.random.default_rng(seed)
    C, D, empty = int(rng.integers(2, 7)), 3, bool(seed % 2)
    _, opt = brute_force_ruleset(X, y, C, D, empty_clause=empty, sample_weight=w)
    p = RuleProblem.from_matrix(X, y, [f"f{j}" for j in range(X.shape[1])], sample_weight=w)
    st = State(p, ColGenOptions.of(complexity_bound=C, max_clause_length=D, empty_clause=empty))
    z_lp, mu, lam = _master_lp_duals(st, empty)
    base = read_duals(st, z_lp, mu, lam, empty)
    prev = -math.inf
    for t in np.linspace(lam, 0.0, 6):
        dt = at_complexity_dual(st, base, float(t))
        e = bnb(st.X, dt.v, dt.const, dt.lit, st.D, K=10**6, upper=0.0, tighten=False)
        b = knapsack_bound(st, dt, [(2, 0.0)], math.inf,
                           [(rc, 1 + len(cl)) for rc, cl in zip(e.reduced_costs, e.clauses)])
        if t == lam:
            assert b >= st.round_bound(z_lp) - 1e-6
        assert prev - 1e-9 <= b <= opt + 1e-9, (t, b, z_lp, opt)
        for L in (1, 2):                   # short clauses below 0, long ones only below u
            assert _two_class_knapsack(st, dt, L, -float(rng.uniform(0, 1))) <= b + 1e-9
        prev = b


def test_search_where_pricing_finds_nothing_uses_the_enumerated_knapsack():
    """Pricing that finds nothing (a heuristic generating no clause) ends column generation;
    the complexity-dual search then enumerates the clauses of negative reduced cost at its t
    and certifies their knapsack: above the conflict bound of the same run without the
    search, never above the brute-force optimum, and named in the certificate."""
    kinds = []
    for seed in range(5, 11):
        X, y = _instance(seed, n=40, d=8, noise=0.3)
        p = _problem(X, y)
        _, opt = brute_force_ruleset(X, y, 8, 3)
        out = {}
        for steps in (1, 0):
            _, out[steps] = solve(p, complexity_bound=8, max_clause_length=3, max_iter=1,
                                  pricers="heuristic", _heuristic_max_generated=0,
                                  bound_search_steps=steps, close_gap=False)
        assert out[0].lower_bound <= out[1].lower_bound <= opt + 1e-9
        kinds.append((out[1].stats["bound_kind"], out[1].stats["bound_detail"]))
        if kinds[-1][0] == "conflict floor":      # named so where it equals the floor
            assert out[1].lower_bound == out[1].stats["conflict_floor"]
            assert out[1].stats["bound_is_conflict_floor"] is True
    assert sum(k == "lagrangian" and d.startswith("enumerated knapsack")
               for k, d in kinds) >= 3, kinds


def test_the_last_search_spends_final_bound_node_limit_in_all(monkeypatch):
    """Where pricing finds nothing, the last search's calls use at most
    final_bound_nodes nodes together (its first at most bound_nodes), they
    enumerate every clause below 0 (no threshold for long clauses), and its bound stays below
    the optimum."""
    from rulecert.mipmodels.colgen.provers import lagrangian as bound_search
    calls = []
    orig = bound_search.price_by_branch_and_bound

    def spy(*a, **kw):
        r = orig(*a, **kw)
        calls.append((kw.get("node_limit"), kw.get("upper", 0.0), r.nodes))
        return r
    monkeypatch.setattr(bound_search, "price_by_branch_and_bound", spy)
    X, y = _instance(6, n=40, d=8, noise=0.3)
    _, opt = brute_force_ruleset(X, y, 8, 5)
    _, cert = solve(_problem(X, y), complexity_bound=8, max_clause_length=5, max_iter=1,
                    pricers="heuristic", _heuristic_max_generated=0, bound_search_steps=1,
                    bound_nodes=40, final_bound_nodes=700, close_gap=False)
    assert len(calls) >= 3, calls
    assert calls[0][0] <= 40 and all(lim is not None for lim, _, _ in calls)
    assert sum(n for _, _, n in calls) <= 700
    assert all(u == 0.0 for _, u, _ in calls)
    assert cert.lower_bound <= opt + 1e-9


def test_enumeration_past_its_cap_keeps_a_valid_bound():
    """An enumeration stopped past K clauses is incomplete, and its bound still holds for
    the clauses it dropped."""
    from rulecert.mipmodels.colgen.pricing.bnb import price_by_branch_and_bound as bnb
    X, y = _implied_instance(3)
    st = State(_problem(X, y), ColGenOptions.of(complexity_bound=8, max_clause_length=3))
    rng = np.random.default_rng(0)
    dt = read_duals(st, 0.0, rng.uniform(0.5, 1, len(st.P)) * st.a, 0.0, True)
    full = bnb(st.X, dt.v, dt.const, dt.lit, 3, K=10**6, upper=0.0, tighten=False)
    assert full.complete and len(full.clauses) > 4
    for K in (1, 2, 4):
        r = bnb(st.X, dt.v, dt.const, dt.lit, 3, K=K, upper=0.0, tighten=False)
        assert r.overflow and not r.complete
        assert r.bound <= min(full.reduced_costs) + 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_conflict_bound_on_duplicated_samples(seed):
    """Identical samples with both labels: the conflict duals' bound, valid with no pricing at
    all, never exceeds the optimum and is what a fit stopped at once still certifies."""
    rng = np.random.default_rng(seed)
    X0, _ = _instance(seed + 300, n=10, d=5)
    X = X0[rng.integers(0, 10, 30)]                      # many duplicated rows
    y = rng.integers(0, 2, 30)
    y[:2] = [0, 1]
    w = rng.integers(1, 3, 30).astype(float)
    p = RuleProblem.from_matrix(X, y, [f"f{j}" for j in range(5)], sample_weight=w)
    C, fnw = int(rng.integers(2, 8)), float(rng.choice([0.5, 1.0, 2.0]))
    _, opt = brute_force_ruleset(X, y, C, 3, sample_weight=w, fn_weight=fnw, empty_clause=True)
    st = State(p, ColGenOptions.of(complexity_bound=C, max_clause_length=3, fn_weight=fnw))
    _, _, pos, neg = p.groups
    want = sum(min(fnw * a, b) for a, b in zip(pos, neg))
    assert conflict_bound(st) == st.round_bound(want) and conflict_bound(st) <= opt + 1e-9
    _, cert = solve(p, complexity_bound=C, max_clause_length=3, fn_weight=fnw, max_iter=1,
                    pricers="heuristic", bound_search_steps=0, close_gap=False)
    assert conflict_bound(st) <= cert.lower_bound <= opt + 1e-9


# ---- end to end, under deterministic limits -----------------------------------------------------
LIMITS = [  # max_iter, bound_search_steps, bound_nodes, pricing_nodes, pricers,
    #          final_bound_nodes (the last search's, when pricing found no clause)
    (1, 3, 200, 200, "bnb", 50),
    (2, 3, 50, 100, "bnb", 10_000_000),
    (3, 2, 500, None, "auto", 300),
    (4, 0, None, 300, "heuristic", 10),
    (6, 4, 100, 2000, "bnb", 5000),
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("limits", LIMITS, ids=[f"it{l[0]}-s{l[1]}" for l in LIMITS])
def test_bound_under_limits_never_exceeds_brute_force(seed, limits):
    it, steps, bnl, pnl, pricing, fnl = limits
    X, y = _instance(seed + 7, n=30, d=8)
    C, D = [(6, 3), (9, 3), (12, 4), (5, 2), (8, 7), (10, 9)][seed]
    p = _problem(X, y)
    _, opt = brute_force_ruleset(X, y, C, D)
    rs, cert = solve(p, complexity_bound=C, max_clause_length=D, max_iter=it,
                     bound_search_steps=steps, bound_nodes=bnl, pricing_nodes=pnl,
                     final_bound_nodes=fnl, pricers=pricing, pricing_deterministic_time=5.0,
                     close_gap=False)
    assert math.isclose(ruleset_objective(rs, p).objective, cert.objective, abs_tol=1e-9)
    assert cert.objective >= opt - 1e-9 and rs.complexity <= C
    assert cert.lower_bound <= opt + 1e-9
    for h in cert.history:
        if "iteration_bound" in h:
            assert h["iteration_bound"] <= opt + 1e-9
    if cert.proven_optimal:
        assert math.isclose(cert.objective, opt)
    assert "1.." in cert.stats["bound_class"] and f"<= {C:g}" in cert.stats["bound_class"]


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_bound_never_decreases_when_the_fit_runs_longer():
    """Same seed and deterministic limits: a longer run repeats the shorter one and then keeps
    the best bound, so the certified bound is non-decreasing in max_iter."""
    X, y = _instance(3, n=60, d=10, noise=0.25)
    p = _problem(X, y)
    kw = dict(complexity_bound=10, max_clause_length=4, pricing_nodes=400,
              bound_nodes=300, pricers="bnb", close_gap=False, seed=3)
    bounds, hists = [], []
    for it in range(1, 9):
        _, cert = solve(p, max_iter=it, **kw)
        bounds.append(cert.lower_bound)
        hists.append([h["lower_bound"] for h in cert.history if "iteration_bound" in h])
    assert all(b1 <= b2 + 1e-12 for b1, b2 in zip(bounds, bounds[1:])), bounds
    for short, long in zip(hists, hists[1:]):
        assert long[:len(short)] == short          # the longer run repeats the shorter one
    _, opt = brute_force_ruleset(X, y, 10, 4)
    assert bounds[-1] <= opt + 1e-9


def test_search_reaches_the_optimum_when_run_to_convergence():
    X, y = _instance(11, n=40, d=8)
    p = _problem(X, y)
    _, opt = brute_force_ruleset(X, y, 9, 3)
    rs, cert = solve(p, complexity_bound=9, max_clause_length=3, pricers="bnb")
    assert cert.proven_optimal and math.isclose(cert.objective, opt)
    assert math.isclose(ruleset_objective(rs, p).objective, opt)


def test_trivial_bound_is_said_in_the_certificate(monkeypatch):
    # one iteration, the pricing heuristic only (no proof), no search: nothing beats 0 (the
    # packing bound, off here, proves one error: a positive sample has no pure clause;
    # tests/test_colgen_packing.py covers it)
    from rulecert.mipmodels.colgen import steps      # the steps after the restricted IP
    from rulecert.mipmodels.colgen.provers.packing import PackingBound
    monkeypatch.setattr(steps, "packing_bound", lambda st, **kw: PackingBound())
    X, y = _instance(5, n=60, d=10, noise=0.3)
    p = _problem(X, y)
    _, cert = solve(p, complexity_bound=12, max_clause_length=5, max_iter=1, pricers="heuristic",
                    _heuristic_max_generated=0, bound_search_steps=0, close_gap=False)
    assert cert.lower_bound == 0.0 and cert.objective > 0
    assert cert.stats["bound_trivial"] is True
    assert "trivial" in cert.message and "1..5 literals" in cert.message
    assert not cert.proven_optimal
    # the same data run to convergence: the message names the bound and its class instead
    _, cert = solve(p, complexity_bound=12, max_clause_length=5, pricers="bnb")
    assert cert.lower_bound > 0 and "trivial" not in cert.message
    assert "DNF rule sets of complexity <= 12 over clauses of 1..5 literals and the empty clause" \
        in cert.message


@pytest.mark.parametrize("seed", range(5))
def test_the_lp_ceiling_is_at_least_the_lp_and_said_where_it_caps_the_gap(seed):
    """``stats["lp_ceiling"]`` (the last restricted LP, rounded up) is never below the master
    LP over every clause, at any iteration limit; the message names it exactly where it is
    below the objective and not below the bound (seeds 0, 3 and 4 at convergence: the
    restricted IP over the LP's columns is one above the LP)."""
    X, y = _instance(seed, n=60, d=10, noise=0.3)
    p = _problem(X, y)
    st = State(p, ColGenOptions.of(complexity_bound=8, max_clause_length=3))
    z_lp, _, _ = _master_lp_duals(st, True)
    said_any = False
    for it in (1, 4, None):
        _, cert = solve(p, complexity_bound=8, max_clause_length=3, max_iter=it, pricers="bnb",
                        close_gap=False)
        top = cert.stats["lp_ceiling"]
        assert top >= st.round_bound(z_lp) - 1e-9 and top >= cert.stats["rmlp_objective"] - 1e-6
        said = "no bound from the LP relaxation exceeds" in cert.message
        assert said == (not cert.proven_optimal and cert.lower_bound <= top < cert.objective)
        if said:
            gap = (cert.objective - top) / cert.objective
            assert f"exceeds {top:.6g}: gap >= {gap:.1%}" in cert.message
        said_any |= said and it is None
    assert said_any or seed not in (0, 3, 4)


def test_options_are_checked():
    X, y = _instance(0)
    p = _problem(X, y)
    with pytest.raises(ValueError, match="unknown option '_smoothing'"):
        solve(p, _smoothing=0.5)
    with pytest.raises(ValueError, match="bound_search_steps"):
        solve(p, bound_search_steps=-1)
    with pytest.raises(ValueError, match="^bound_nodes must be an integer >= 0"):
        solve(p, bound_nodes=-5)
    with pytest.raises(ValueError, match="^final_bound_nodes must be an integer >= 0"):
        solve(p, final_bound_nodes=-5)


# ---- the empty clause by default; C and D checks ------------------------------------------------
def test_empty_clause_is_on_by_default_and_C_checks_follow_it():
    from rulecert.estimators import BooleanRuleCGClassifier, BooleanRuleCGCV
    assert ColGenOptions().model.empty_clause is True
    assert BooleanRuleCGClassifier()._options(30, 0, 30, None).model.empty_clause is True
    assert BooleanRuleCGCV([1, 5])._options(30, 0, 5, None).model.empty_clause is True
    X, y = _instance(2)
    p = _problem(X, y)
    rs, cert = solve(p, complexity_bound=1)          # only the empty rule set or "always 1"
    assert rs.complexity <= 1 and cert.proven_optimal
    _, opt = brute_force_ruleset(X, y, 1, 1, empty_clause=True)
    assert math.isclose(cert.objective, opt)
    assert math.isclose(opt, min(y.sum(), len(y) - y.sum()))
    clf = BooleanRuleCGClassifier(1).fit(X.astype(int), y)
    assert clf.complexity_ <= 1
    with pytest.raises(ValueError, match=r"complexity_bound C=0.5 < 1"):
        solve(p, complexity_bound=0.5)
    with pytest.raises(ValueError, match=r"complexity_bound C=1.5 < 2"):
        solve(p, complexity_bound=1.5, empty_clause=False)
    with pytest.raises(ValueError, match="complexity_bound=1 < 2"):
        BooleanRuleCGClassifier(1, solver_options={'empty_clause': False}).fit(X.astype(int), y)
    with pytest.raises(ValueError, match="max_clause_length D must be an integer >= 1"):
        solve(p, complexity_bound=5, max_clause_length=0)


# ---- the deterministic benchmark ---------------------------------------------------------------
@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_deterministic_bounds_table_prints_the_same_twice(shared_data, capsys, monkeypatch):
    """brcg_bounds.py runs on counted limits only (iterations, nodes) with a fixed seed: two
    runs of the same code print the identical table."""
    from pathlib import Path
    exp = str(Path(__file__).resolve().parents[1] / "experiments")
    monkeypatch.syspath_prepend(exp)
    import brcg_bounds
    argv = ["--datasets", "liver", "--C", "6", "--max-iter", "4", "--positive-side-nodes", "2000",
            "--bnb-nodes", "20000",
            "--bound-nodes", "20000", "--strengthen", "20000", "--no-times"]
    tables = []
    for _ in range(2):
        brcg_bounds.main(argv)
        tables.append(capsys.readouterr().out)
    assert tables[0] == tables[1]
    assert "| liver | 345 x 90 | 6 |" in tables[0]
    assert "Limits (deterministic, seed 0): 4 column-generation iterations" in tables[0]
    assert "strengthen_bound(20000 nodes per 2000 rows): bound / gap |" in tables[0]
    assert tables[0].count(" nodes) |") == 1          # the liver row's strengthened bound
    assert "| 4, max iter |" in tables[0]             # max_iter stopped it: no last search


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_bounds_table_with_a_time_limit_says_it_is_not_reproducible(shared_data, capsys,
                                                                   monkeypatch):
    """``--time-limit S`` (the issue's 300 s per fit) hands the limit to every fit on top of
    the counted limits and says so above the table and in the seconds table."""
    from pathlib import Path
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "experiments"))
    import brcg_bounds
    calls = []
    real = brcg_bounds.limits

    def limits(args, rows, variant):
        kw = real(args, rows, variant)
        calls.append(kw["time_limit"])
        return kw
    monkeypatch.setattr(brcg_bounds, "limits", limits)
    brcg_bounds.main(["--no-today", "--datasets", "liver", "--C", "6", "--max-iter", "4",
                      "--positive-side-nodes", "2000", "--bnb-nodes", "20000", "--bound-nodes", "20000", "--strengthen", "0",
                      "--no-dive", "--polish-iterations", "50", "--time-limit", "60"])
    out = capsys.readouterr().out
    assert calls == [60.0]
    assert "Wall-clock limit: 60 s per fit" in out and "prints another table" in out
    assert "Wall-clock seconds per fit (limit 60 s):" in out
    assert "| liver | 345 x 90 | 6 |" in out
    brcg_bounds.main(["--no-today", "--datasets", "liver", "--C", "6", "--max-iter", "4",
                      "--positive-side-nodes", "2000", "--bnb-nodes", "20000", "--bound-nodes", "20000", "--strengthen", "0",
                      "--no-dive", "--polish-iterations", "50"])
    out = capsys.readouterr().out
    assert calls == [60.0, None] and "Wall-clock limit" not in out
    assert "(reported, never used to stop a fit)" in out


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_bounds_table_strengthens_a_fit_whose_last_search_ran_only_with_more_nodes(
        shared_data, capsys, monkeypatch):
    """A fit whose pricing came up empty ran its last search at its last duals already:
    ``--strengthen`` with no more nodes leaves it alone (``-``) instead of repeating that
    search; with more, it continues the descent."""
    from pathlib import Path
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "experiments"))
    import brcg_bounds
    rows = {}
    for budget in ("20000", "80000"):
        brcg_bounds.main(["--no-today", "--datasets", "liver", "--C", "6", "--max-iter", "50",
                          "--positive-side-nodes", "2000", "--bnb-nodes", "1000", "--bound-nodes", "20000",
                          "--final-bound-nodes", "20000", "--strengthen", budget, "--no-times"])
        row = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| liver |")]
        assert len(row) == 1
        assert ", pricing exhausted |" in row[0]
        rows[budget] = row[0]
    assert rows["20000"].endswith("| - |")
    assert " nodes) |" not in rows["20000"]
    assert rows["80000"].endswith(" nodes) |")


def test_brcg_table_certify_runs_brcg_bounds_with_its_clause_class(shared_data, capsys,
                                                                   monkeypatch):
    """``brcg_table.py --certify`` forwards the clause class (--no-empty-clause,
    --max-clause-length) to brcg_bounds.py, which fits that class and says so, and prints its
    time table without today's column."""
    from pathlib import Path
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "experiments"))
    import brcg_table
    brcg_table.main(["--certify", "--datasets", "liver", "--certify-C", "6",
                     "--no-empty-clause", "--max-clause-length", "2"])
    out = capsys.readouterr().out
    assert "new bound (class: clauses of <= min(C-1, 2) literals) |" in out
    assert "| liver | 345 x 90 | 6 | - | - | " in out
    assert "liver C=6: today -, new " in out
