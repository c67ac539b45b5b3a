"""The positive-side pricing proof (``pricing/positive.py``) against brute force, and its use
at the end of a solve (``bound_search.positive_side_search``)."""
import itertools

import numpy as np
import pytest

from rulecert.mipmodels.colgen import BoundKind, solve
from rulecert.mipmodels.colgen.provers.positive import positive_side_bound
from rulecert.problem import RuleProblem
from rulecert.reference import brute_force_ruleset
from test_colgen import _check_certificate, _varied_case


def _min_reduced_cost(X, v, const, lit, D):
    d = X.shape[1]
    return min(const + lit * L + v[X[:, list(S)].all(axis=1)].sum()
               for L in range(1, D + 1) for S in itertools.combinations(range(d), L))


def _random_pricing(rng, gain_only=False):
    G, d = int(rng.integers(3, 15)), int(rng.integers(2, 7))
    X = rng.random((G, d)) < rng.uniform(0.3, 0.8)
    v = rng.normal(size=G) * rng.uniform(0.2, 3)
    if gain_only:
        v = -np.abs(v)
    return X, v, rng.uniform(-1, 1), rng.uniform(0, 0.5), int(rng.integers(1, d + 1))


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_positive_side_bound_never_exceeds_brute_force_and_grows_with_its_node_limit():
    """On 150 random pricing problems (groups of both signs, lengths 1..d) and four
    thresholds around the true minimum: the bound never exceeds the minimum reduced cost
    under any node limit (the failed proofs' bounds included), a completed proof never claims
    a threshold above the minimum, the bound never falls as the node limit grows; without a
    node limit every threshold below the minimum is proven (the cover IP settles the sets
    whose LP falls short) and every one above it fails with a witness clause below it."""
    rng = np.random.default_rng(7)
    witnesses = 0
    for _ in range(150):
        X, v, const, lit, D = _random_pricing(rng)
        opt = _min_reduced_cost(X, v, const, lit, D)
        for upper in (opt - 1.0, opt - 1e-3, opt + 1e-3, opt + 1.0):
            prev = -np.inf
            for limit in (1, 2, 5, None):
                r = positive_side_bound(X, v, const, lit, D, upper, node_limit=limit)
                assert r.bound <= opt + 1e-9, (upper, limit, r, opt)
                assert not (r.complete and upper > opt + 1e-9), (upper, r, opt)
                assert r.complete == (r.stopped == "")
                if r.complete:
                    assert r.bound >= upper - 1e-9
                assert r.bound >= prev - 1e-9, (upper, limit, r.bound, prev)
                prev = r.bound
                if limit is not None:
                    assert r.nodes <= limit
            assert r.complete == (upper <= opt), (upper, r, opt)
            if upper > opt:
                S = r.witness
                assert S is not None and 1 <= len(S) <= D
                rc = const + lit * len(S) + v[X[:, list(S)].all(axis=1)].sum()
                assert np.isclose(rc, r.witness_rc) and rc < upper
                witnesses += 1
    assert witnesses == 300


def _closed_sets(X, v):
    """The sets T of gain groups (``v < 0``) with a nonempty meet that hold every gain group
    containing their meet (plus the empty set): the sets the proof can visit."""
    G = X[v < 0]
    count = 1
    for k in range(1, len(G) + 1):
        for T in itertools.combinations(range(len(G)), k):
            meet = G[list(T)].all(axis=0)
            if meet.any() and set(np.flatnonzero(G[:, meet].all(axis=1))) == set(T):
                count += 1
    return count


def test_positive_side_bound_visits_each_closed_set_of_gain_groups_at_most_once():
    """A set of gain groups that misses a group containing its meet holds no clause of its
    own (every clause within the meet covers that group too): the search solves a cover LP
    at most once per closed set, counted here by brute force (the search over every set of
    gain groups did not, on two of these 240 proofs), and the sets its dual ascent settled
    without an LP are others."""
    rng = np.random.default_rng(11)
    below = 0
    for gain_only in [False] * 60 + [True] * 60:
        X, v, const, lit, D = _random_pricing(rng, gain_only)
        opt = _min_reduced_cost(X, v, const, lit, D)
        closed = _closed_sets(X, v)
        for upper in (opt - 1e-3, opt - 1.0):
            r = positive_side_bound(X, v, const, lit, D, upper, exact_node_limit=0)
            assert r.nodes <= closed, (r.nodes, closed)
            # the sets the dual ascent settled without an LP are other closed sets
            assert r.nodes + r.ascents <= closed, (r.nodes, r.ascents, closed)
            below += r.nodes < closed
    assert below > 0


def test_positive_side_bound_completes_without_cost_groups():
    """With no group of positive coefficient the cover LP is exact (``F = lit``) and every
    set of gain groups that shares a literal is covered by a one-literal clause, so every
    threshold at or below the minimum reduced cost is proven."""
    rng = np.random.default_rng(3)
    for _ in range(60):
        X, v, const, lit, D = _random_pricing(rng, gain_only=True)
        opt = _min_reduced_cost(X, v, const, lit, D)
        r = positive_side_bound(X, v, const, lit, D, opt - 1e-6)
        assert r.complete and opt - 1e-6 - 1e-9 <= r.bound <= opt + 1e-9, (r, opt)


def test_positive_side_bound_refuses_an_infinite_threshold():
    X = np.ones((2, 2), dtype=bool)
    with pytest.raises(ValueError, match="upper must be finite"):
        positive_side_bound(X, np.array([-1.0, 1.0]), 0.0, 0.1, 2, -np.inf)


def _open_gap_cases():
    """12 tiny solves whose gap stays open (column generation stopped by ``max_iter``, gap
    closing off): the problem, its brute-force optimum, C, the solve's options and its
    certificate without the positive-side proof."""
    for seed in range(12):
        X, y, sw, form, C, D = _varied_case(seed)
        p = RuleProblem.from_matrix(X, y, sample_weight=sw)
        _, opt = brute_force_ruleset(X, y, C, D, sample_weight=sw, form=form)
        kw = dict(complexity_bound=C, max_clause_length=D, form=form, pricers="heuristic",
                  max_iter=3, bound_search_steps=0, seed=seed, close_gap=False)
        yield p, opt, C, kw, solve(p, **kw)[1]


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_positive_side_search_raises_a_solves_bound_and_never_passes_brute_force():
    """At the end of a solve (column generation stopped by ``max_iter``, gap closing off,
    so the gap is open): the bound with the positive-side proof is valid against brute force,
    at least the bound without it, never falls as its budget (``positive_side_cover_lps``)
    grows, and on some instances it is higher (up to the optimum, proven)."""
    raised = optimal = 0
    for p, opt, C, kw, off in _open_gap_cases():
        assert off.stats["positive_side"] is None
        prev = off.lower_bound
        for limit in (30, 300, None):
            rs, cert = solve(p, positive_side_cover_lps=limit, **kw)
            _check_certificate(cert, rs, p, opt, C)
            assert cert.objective == off.objective
            assert cert.lower_bound >= prev
            prev = cert.lower_bound
            rec = cert.stats["positive_side"]
            if rec is not None and limit is not None:
                assert rec["nodes"] <= limit
        raised += prev > off.lower_bound
        optimal += cert.proven_optimal and not off.proven_optimal
        if prev > off.lower_bound:
            # raised above the solve's bound, so above the conflict floor: named as such
            assert cert.stats["bound_kind"] == BoundKind.POSITIVE_SIDE.value
            assert cert.stats["bound_detail"].startswith(
                "lagrangian at the final master LP's duals, every clause's reduced cost >= ")
            assert "positive-side proof" in cert.message
    assert raised >= 4 and optimal >= 2, (raised, optimal)


def test_positive_side_bound_stops_at_its_deadline_and_on_ctrl_c(monkeypatch):
    """A passed deadline or Ctrl-C stops the search before its first cover LP, as such (not
    complete), with a bound that is still valid (here the trivial one)."""
    import time

    from rulecert.mipmodels.colgen.provers import positive
    rng = np.random.default_rng(11)
    X, v, const, lit, D = _random_pricing(rng)
    opt = _min_reduced_cost(X, v, const, lit, D)
    r = positive_side_bound(X, v, const, lit, D, opt - 1e-3, deadline=time.perf_counter() - 1)
    assert (r.stopped, r.complete, r.nodes) == ("deadline", False, 0) and r.bound <= opt
    monkeypatch.setattr(positive, "interrupt_requested", lambda: True)
    r = positive_side_bound(X, v, const, lit, D, opt - 1e-3)
    assert (r.stopped, r.complete, r.nodes) == ("interrupted", False, 0) and r.bound <= opt


def test_dual_ascent_raises_the_cover_bound_and_stays_below_the_cover_minimum():
    """``_CoverLP.ascend`` (the bound a set gets from its parent's duals raised on its own
    meet, before any LP): on 200 random partial set covers, from random duals and from the
    LP's own, the value never falls below the starting duals' and never exceeds ``F(M)``,
    the least ``lit |S| + cost(S)`` over clauses ``S`` within ``M`` (brute force), nor does
    its figure for any smaller mask exceed ``F`` there."""
    from rulecert.mipmodels.colgen.provers.positive import _CoverLP
    rng = np.random.default_rng(11)
    raised = 0
    for _ in range(200):
        nc, d = int(rng.integers(1, 9)), int(rng.integers(2, 7))
        Xc = rng.random((nc, d)) < rng.uniform(0.2, 0.8)
        w, lit, D = rng.uniform(0.1, 2, nc), rng.uniform(0, 1), int(rng.integers(1, d + 1))
        lp = _CoverLP(Xc, w, lit, D, np.arange(d))

        def F(M):
            return min((lit * L + w[Xc[:, list(S)].all(axis=1)].sum()
                        for L in range(1, D + 1)
                        for S in itertools.combinations(np.flatnonzero(M), L)), default=np.inf)

        M = rng.random(d) < 0.7
        M[rng.integers(d)] = True
        _, _, _, lp_duals = lp.bound(np.ones(d, dtype=bool))
        starts = [lp_duals, np.concatenate([[rng.normal()], rng.uniform(0, 1, lp.nc)])]
        for duals in starts:
            before = lp._at(duals, M[lp.cols].astype(float))[0]
            value, base, neg, _ = lp.ascend(M, duals)
            assert before - 1e-9 <= value <= F(M) + 1e-9, (before, value, F(M))
            raised += value > before + 1e-9
            for sub in itertools.product([False, True], repeat=int(M.sum())):
                Ms = np.zeros(d, dtype=bool)
                Ms[np.flatnonzero(M)[list(sub)]] = True
                assert base + neg @ Ms <= F(Ms) + 1e-9
    assert raised > 50


def _larger_pricing(rng):
    """A random pricing problem large enough for two threads to work on (up to 30 groups,
    10 literals)."""
    G, d = int(rng.integers(10, 31)), int(rng.integers(6, 11))
    X = rng.random((G, d)) < rng.uniform(0.4, 0.8)
    v = rng.normal(size=G) * rng.uniform(0.2, 3)
    return X, v, rng.uniform(-1, 1), rng.uniform(0, 0.5), int(rng.integers(2, d + 1))


def test_positive_side_bound_on_two_threads_is_as_valid_as_on_one(monkeypatch):
    """The search on 2 threads (each depth-first on its own stack, taking the oldest set of
    the other's when its own is empty): on 40 random pricing problems large enough for both
    to work (up to 30 groups, 10 literals) and four thresholds, the bound never exceeds the
    brute-force minimum under any node limit (the LPs counted overshoot the limit by at most
    one set per other thread), a proof without limits completes exactly when no clause is
    below the threshold and otherwise returns a clause below it; a passed deadline, Ctrl-C
    and an error in a thread stop it."""
    import time

    from rulecert.mipmodels.colgen.provers import positive
    rng = np.random.default_rng(5)
    for _ in range(40):
        X, v, const, lit, D = _larger_pricing(rng)
        opt = _min_reduced_cost(X, v, const, lit, D)
        for upper in (opt - 1.0, opt - 1e-3, opt + 1e-3, opt + 1.0):
            for limit in (3, 20, None):
                r = positive_side_bound(X, v, const, lit, D, upper, node_limit=limit,
                                        workers=2)
                assert r.bound <= opt + 1e-9, (upper, limit, r, opt)
                assert r.complete == (r.stopped == "")
                if limit is not None:
                    assert r.nodes <= limit + 1
            assert r.complete == (upper <= opt), (upper, r, opt)
            if r.complete:
                assert r.bound >= upper - 1e-9
            else:
                S = r.witness
                assert S is not None and 1 <= len(S) <= D
                assert const + lit * len(S) + v[X[:, list(S)].all(axis=1)].sum() < upper
    r = positive_side_bound(X, v, const, lit, D, opt - 1e-3, workers=2,
                            deadline=time.perf_counter() - 1)
    assert (r.stopped, r.nodes) == ("deadline", 0) and r.bound <= opt
    with monkeypatch.context() as mp:
        mp.setattr(positive, "interrupt_requested", lambda: True)
        r = positive_side_bound(X, v, const, lit, D, opt - 1e-3, workers=2)
        assert (r.stopped, r.nodes) == ("interrupted", 0) and r.bound <= opt

    def broken(self, M):
        raise RuntimeError("cover LP broke")
    monkeypatch.setattr(positive._CoverLP, "bound", broken)
    with pytest.raises(RuntimeError, match="cover LP broke"):
        positive_side_bound(X, v, const, lit, D, opt - 1e-3, workers=2)


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_positive_side_search_goes_after_the_descent_at_duals_with_many_gain_groups(
        monkeypatch):
    """Under a time limit, a proof at duals with more than ``POSITIVE_SIDE_FIRST_MAX_GROUPS``
    gain groups is only prepared before the complexity-dual descent and runs after it
    (here every proof, the limit set to 0): the record says so, and the bound stays valid
    against brute force and at least the bound without the proof; without a time limit the
    proof keeps its place (before the descent, which does not run)."""
    from rulecert.mipmodels.colgen.provers import lagrangian as bound_search
    monkeypatch.setattr(bound_search, "POSITIVE_SIDE_FIRST_MAX_GROUPS", 0)
    after = 0
    for p, opt, C, kw, off in _open_gap_cases():
        for limit in (None, 60.0):
            rs, cert = solve(p, positive_side_cover_lps=None, time_limit=limit, **kw)
            _check_certificate(cert, rs, p, opt, C)
            assert cert.lower_bound >= off.lower_bound
            rec = cert.stats["positive_side"]
            if rec is None or rec.get("skipped"):
                continue
            assert rec["gain_groups"] > 0 and rec["tries"]     # the proof ran
            assert bool(rec.get("after_descent")) == (limit is not None)
            after += limit is not None
    assert after >= 3, after


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_positive_side_bound_collects_several_witnesses_when_asked():
    """With ``witnesses`` = K > 1 a failed search goes on past its first failed set: on 60
    random pricing problems above their minimum, on one thread and on two, it returns at most
    K distinct clauses, each of 1..D literals and (recomputed) below the threshold, the least
    first as ``witness``; the bound stays at most the brute-force minimum; it stops at K; and
    below the minimum it still completes."""
    rng = np.random.default_rng(11)
    several = 0
    for _ in range(60):
        X, v, const, lit, D = _larger_pricing(rng)
        opt = _min_reduced_cost(X, v, const, lit, D)
        for workers in (1, 2):
            r = positive_side_bound(X, v, const, lit, D, opt - 1e-3, workers=workers,
                                    witnesses=5)
            assert r.complete and r.witnesses == ()
            for upper, K in ((opt + 1e-3, 5), (opt + 1.0, 3), (opt + 1.0, 50)):
                r = positive_side_bound(X, v, const, lit, D, upper, workers=workers,
                                        witnesses=K)
                assert not r.complete and r.stopped == "failed"
                assert r.bound <= opt + 1e-9
                assert 1 <= len(r.witnesses) <= K
                assert len(set(r.witnesses)) == len(r.witnesses)
                rcs = [const + lit * len(S) + v[X[:, list(S)].all(axis=1)].sum()
                       for S in r.witnesses]
                assert all(1 <= len(S) <= D for S in r.witnesses)
                assert max(rcs) < upper and rcs == sorted(rcs)
                assert r.witness == r.witnesses[0] and np.isclose(r.witness_rc, rcs[0])
                several += len(r.witnesses) > 1
                if workers == 1 and K == 3:
                    one = positive_side_bound(X, v, const, lit, D, upper)
                    assert len(one.witnesses) == 1 and one.nodes <= r.nodes
    assert several >= 60
