"""Beam-search pricing for Boolean rule-set column generation: returned clauses are exact,
improving and of distinct coverages, the search is the documented one (a plain per-node
reference in exact arithmetic, ties included), exhaustive with a wide beam, it honours its
deadline, it proves nothing, and column generation with it stays exact on tiny instances."""
import itertools
import math
import time

import numpy as np
import pytest

from rulecert.certificate import Termination
from rulecert.mipmodels.colgen import ColGenOptions, PricingInstance, bnb_pricing, solve
from rulecert.mipmodels.colgen.pricing.beam import beam_pricing
from rulecert.models.ruleset import ruleset_objective
from rulecert.problem import RuleProblem
from rulecert.reference import brute_force_ruleset
from test_colgen import _instance   # the tiny random instances of the column-generation tests


def _random_pricing(seed, G=None, d=None):
    rng = np.random.default_rng(seed)
    G = int(rng.integers(5, 60)) if G is None else G
    d = int(rng.integers(3, 8)) if d is None else d
    X = rng.random((G, d)) < rng.uniform(0.3, 0.8)
    v = rng.normal(size=G) * (rng.random(G) < 0.8)
    return X, v, float(rng.uniform(0, 0.5)), float(rng.uniform(0, 0.3))


def _exact_rc(X, v, const, lit, clause):
    cov = np.logical_and.reduce(X[:, list(clause)], axis=1)
    return const + lit * len(clause) + float(v[cov].sum())


@pytest.mark.parametrize("seed", range(20))
def test_returned_clauses_are_exact_improving_distinct_and_sorted(seed):
    X, v, const, lit = _random_pricing(seed)
    D = 1 + seed % 4
    threshold = [0.0, -0.2, 0.3][seed % 3]
    inst = PricingInstance(X, v, const, lit, D, np.arange(X.shape[1]))
    r = beam_pricing(inst, threshold=threshold, beam_width=1 + seed % 3, max_return=7)
    assert r.method == "beam" and not r.complete and r.bound == -math.inf
    assert r.termination is Termination.ITERATION_LIMIT
    assert len(r.clauses) == len(r.reduced_costs) <= 7
    assert len(set(r.clauses)) == len(r.clauses)
    assert r.reduced_costs == sorted(r.reduced_costs)
    covs = {np.logical_and.reduce(X[:, list(cl)], axis=1).tobytes() for cl in r.clauses}
    assert len(covs) == len(r.clauses)       # distinct coverages
    for cl, rc in zip(r.clauses, r.reduced_costs):
        assert cl == tuple(sorted(set(cl))) and 1 <= len(cl) <= D
        assert all(0 <= j < X.shape[1] for j in cl)
        assert math.isclose(_exact_rc(X, v, const, lit, cl), rc, abs_tol=1e-9)
        assert rc < threshold
    # the hint is the best clause seen; it is at least as good as anything returned
    assert r.best_clause is not None
    best_rc = _exact_rc(X, v, const, lit, r.best_clause)
    if r.reduced_costs:
        assert best_rc <= r.reduced_costs[0] + 1e-9


@pytest.mark.parametrize("seed", range(12))
def test_wide_beam_finds_the_exhaustive_minimum(seed):
    X, v, const, lit = _random_pricing(seed + 100, d=int(np.random.default_rng(seed).integers(3, 7)))
    d = X.shape[1]
    for D in (2, 3):
        inst = PricingInstance(X, v, const, lit, D, np.arange(d))
        exact = bnb_pricing(inst, threshold=0.0, max_return=5)
        assert exact.complete
        # every clause of D-1 literals fits in the beam: the search is exhaustive
        width = math.comb(d, D - 1)
        r = beam_pricing(inst, threshold=0.0, beam_width=width, max_return=5)
        brute = min(_exact_rc(X, v, const, lit, cl) for k in range(1, D + 1)
                    for cl in itertools.combinations(range(d), k))
        if brute < 0:
            assert math.isclose(exact.reduced_costs[0], brute, abs_tol=1e-9)
            assert math.isclose(r.reduced_costs[0], brute, abs_tol=1e-9)
        else:
            assert not exact.clauses and not r.clauses


def test_narrow_beam_still_finds_a_planted_long_clause():
    # 40 features; a 4-literal clause covers a block of strongly negative groups
    rng = np.random.default_rng(5)
    G, d = 200, 40
    X = rng.random((G, d)) < 0.5
    block = np.arange(20)
    X[np.ix_(block, [3, 11, 17, 29])] = True
    v = rng.uniform(0.05, 0.3, size=G)
    v[block] = -1.0
    inst = PricingInstance(X, v, 0.2, 0.05, 5, np.arange(d))
    r = beam_pricing(inst, beam_width=5)
    assert r.clauses and r.reduced_costs[0] < 0
    truth = bnb_pricing(inst, threshold=0.0, max_return=1)
    assert math.isclose(r.reduced_costs[0], truth.reduced_costs[0], abs_tol=1e-9)
    assert r.clauses[0] == (3, 11, 17, 29)


def _sparse_negative_instance(seed):
    # few negative groups: a narrow beam often dies out before it finds one
    rng = np.random.default_rng(seed)
    G, d = 80, 20
    X = rng.random((G, d)) < rng.uniform(0.3, 0.7)
    neg = rng.random(G) < rng.uniform(0.05, 0.3)
    v = np.where(neg, -rng.uniform(0.2, 1.0, G), rng.uniform(0, 1.0, G))
    return PricingInstance(X, v, rng.uniform(0, 1), rng.uniform(0, 0.5), 6, np.arange(d))


def test_widening_reruns_with_doubled_width_until_something_is_found():
    widened = 0
    for seed in range(40):
        inst = _sparse_negative_instance(seed)
        r = beam_pricing(inst, beam_width=1, max_width=16)
        # the widened search returns what the first successful width returns
        runs = [beam_pricing(inst, beam_width=w) for w in (1, 2, 4, 8, 16)]
        first = next((x for x in runs if x.clauses), runs[-1])
        assert r.clauses == first.clauses and r.reduced_costs == first.reduced_costs
        assert r.generated >= first.generated and r.bound == -math.inf
        if r.clauses and not runs[0].clauses:
            widened += 1
            assert r.generated > first.generated
        best = min((inst.reduced_cost(x.best_clause), x.best_clause) for x in runs[:runs.index(first) + 1])
        assert math.isclose(inst.reduced_cost(r.best_clause), best[0], abs_tol=1e-12)
    assert widened >= 3        # the instances do exercise the widening


def test_deadline_in_the_past_returns_quickly_with_time_limit():
    X, v, const, lit = _random_pricing(3, G=400, d=60)
    inst = PricingInstance(X, v, -1.0, 0.0, 6, np.arange(X.shape[1]))
    r = beam_pricing(inst, beam_width=50, deadline=time.perf_counter() - 1.0)
    assert r.termination is Termination.TIME_LIMIT and not r.complete and r.bound == -math.inf
    for cl, rc in zip(r.clauses, r.reduced_costs):   # what it holds is still exact
        assert math.isclose(_exact_rc(X, v, -1.0, 0.0, cl), rc, abs_tol=1e-9)
    full = beam_pricing(inst, beam_width=50)
    assert full.termination is Termination.ITERATION_LIMIT and full.generated > r.generated


def test_deadline_in_the_near_future_is_honoured():
    # pima-sized (G = 700, d = 150), a wide and deep beam: a deadline cuts it short (fewer
    # clauses generated than the full search) and what it holds is exact
    rng = np.random.default_rng(0)
    X = rng.random((700, 150)) < 0.5
    v = np.where(rng.random(700) < 0.3, -0.05, 0.2)
    inst = PricingInstance(X, v, 0.5, 0.01, 26, np.arange(150))
    full = beam_pricing(inst, beam_width=160, threshold=-1e-7)
    cut = 0
    for delay in (0.002, 0.005, 0.01):
        start = time.perf_counter()
        r = beam_pricing(inst, beam_width=160, threshold=-1e-7, deadline=start + delay)
        if r.termination is Termination.TIME_LIMIT:
            cut += 1
            assert r.generated < full.generated
        else:                  # finished before its deadline (a very fast machine)
            assert r.generated == full.generated and r.clauses == full.clauses
        for cl, rc in zip(r.clauses, r.reduced_costs):
            assert math.isclose(_exact_rc(X, v, 0.5, 0.01, cl), rc, abs_tol=1e-9)
    assert cut >= 1


def test_blas_thread_setting_is_restored():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = [lib["num_threads"] for lib in threadpoolctl.threadpool_info()]
    X, v, const, lit = _random_pricing(4, G=300, d=30)
    beam_pricing(PricingInstance(X, v, const, lit, 4, np.arange(30)), beam_width=20)
    assert [lib["num_threads"] for lib in threadpoolctl.threadpool_info()] == before


# ---- the documented search, in exact arithmetic ----------------------------------------------
def _reference_beam(X, v, const, lit, D, B, K, threshold, max_width=None):
    """The beam search as documented, node by node in plain Python (one clause at a time).
    With integer weights every sum is exact, so ties are real ties and must be broken as
    documented: reduced cost, then length, then clause for the output; score, then the
    parent's place in the beam, then the literal for the beam."""
    G, d = X.shape

    def cov(cl):
        return frozenset(g for g in range(G) if all(X[g, j] for j in cl))

    def rc(cl, c):
        return const + lit * len(cl) + sum(v[g] for g in c)

    def lb(cl, c):
        return const + lit * (len(cl) + 1) + sum(min(v[g], 0) for g in c)

    def once(B):
        found = {}

        def offer(r, cl, c):
            if c not in found or (r, len(cl), cl) < found[c]:
                found[c] = (r, len(cl), cl)

        def prune():
            if K is None or len(found) < K:
                return threshold
            keep = sorted(found.items(), key=lambda kv: kv[1])[:K]
            found.clear()
            found.update(keep)
            return min(threshold, keep[-1][1][0])

        covs = [cov((j,)) for j in range(d)]
        rc1 = [rc((j,), covs[j]) for j in range(d)]
        best = min((rc1[j], j) for j in range(d))
        best = (best[0], (best[1],))
        generated = d
        imp = sorted((j for j in range(d) if rc1[j] < threshold), key=lambda j: (rc1[j], j))
        for j in imp[:K] if K is not None else imp:
            offer(rc1[j], (j,), covs[j])
        cut = prune()
        nodes, truncated = [], False
        if D >= 2:
            ok = [j for j in range(d) if lb((j,), covs[j]) < cut]
            truncated = len(ok) > B
            seen = set()
            for j in sorted(ok, key=lambda j: (0.5 * rc1[j] + 0.5 * lb((j,), covs[j]), j)):
                if covs[j] not in seen and len(nodes) < B:
                    seen.add(covs[j])
                    nodes.append(((j,), covs[j]))
        level = 1
        while nodes and level < D:
            deeper = level + 2 <= D
            cands = []
            for p, (cl, c) in enumerate(nodes):
                kids = {j: tuple(sorted(cl + (j,))) for j in range(d) if j not in cl}
                kc = {j: cov(k) for j, k in kids.items()}
                sel = [j for j in kids if not (lit >= 0 and kc[j] == c)]
                generated += len(sel)
                if not sel:
                    continue
                rcs = {j: rc(kids[j], kc[j]) for j in sel}
                jm = min(sel, key=lambda j: (rcs[j], j))
                if rcs[jm] < best[0]:
                    best = (rcs[jm], kids[jm])
                imp = sorted((j for j in sel if rcs[j] < threshold), key=lambda j: (rcs[j], j))
                for j in imp[:K] if K is not None else imp:
                    offer(rcs[j], kids[j], kc[j])
                if deeper:
                    sc = {j: 0.5 * rcs[j] + 0.5 * lb(kids[j], kc[j]) for j in sel}
                    ok = sorted((j for j in sel if lb(kids[j], kc[j]) < cut),
                                key=lambda j: (sc[j], j))
                    truncated |= len(ok) > B
                    cands += [(sc[j], p, j, kids[j], kc[j]) for j in ok[:B]]
            cut = prune()
            if not cands:
                break
            truncated |= len(cands) > B
            nodes, seen = [], set()
            for _, _, _, k, c in sorted(cands, key=lambda t: t[:3]):
                if c not in seen and len(nodes) < B:
                    seen.add(c)
                    nodes.append((k, c))
            level += 1
        items = sorted(found.values())
        if K is not None:
            items = items[:K]
        return [t[2] for t in items], [t[0] for t in items], generated, best, truncated

    width, generated, best = B, 0, None
    while True:
        cls, rcs, gen, b, truncated = once(width)
        generated += gen
        if best is None or b[0] < best[0]:
            best = b
        if cls or max_width is None or 2 * width > max_width or not truncated:
            return cls, rcs, generated, best[1]
        width *= 2


@pytest.mark.parametrize("seed", range(40))
def test_same_search_as_the_plain_reference_with_ties(seed):
    # integer weights: all sums are exact, so ties (many: few distinct weights, duplicated
    # rows and columns) are real and the order between tied clauses is the documented one
    rng = np.random.default_rng(seed + 500)
    G, d = int(rng.integers(1, 40)), int(rng.integers(1, 9))
    X = rng.random((G, d)) < rng.uniform(0.3, 0.9)
    if d > 1 and seed % 3 == 0:
        X[:, rng.integers(d)] = X[:, rng.integers(d)]
    if G > 1 and seed % 4 == 0:
        X[rng.integers(G)] = X[rng.integers(G)]
    v = rng.integers(-3, 4, size=G).astype(float)
    const, lit = float(rng.integers(-2, 3)), float(rng.integers(-1, 2)) / 2
    for _ in range(3):
        D, B = int(rng.integers(1, 6)), int(rng.choice([1, 2, 3, 5, 8]))
        K = [None, 1, 3, 50][int(rng.integers(4))]
        thr = float(rng.choice([0.0, 1.0, -1.0]))
        mw = [None, 8 * B][int(rng.integers(2))]
        inst = PricingInstance(X, v, const, lit, D, np.arange(d))
        r = beam_pricing(inst, threshold=thr, beam_width=B, max_return=K, max_width=mw)
        cls, rcs, generated, best = _reference_beam(X, v, const, lit, D, B, K, thr, mw)
        assert r.clauses == cls
        assert r.reduced_costs == rcs
        assert r.generated == generated
        assert r.best_clause == best
        assert r.termination is Termination.ITERATION_LIMIT


@pytest.mark.parametrize("seed", range(6))
def test_batching_does_not_change_the_result(seed, monkeypatch):
    # one node per product, the one-product path only, the two-product path only, more
    # than 256 groups (products in chunks): weights on a dyadic grid make every sum exact,
    # whatever its order, so the results must be identical
    from rulecert.mipmodels.colgen.pricing import beam
    X, v, const, lit = _random_pricing(seed + 900, G=[200, 700][seed % 3 == 0], d=25)
    v = np.round(v * 8) / 8 - 0.25
    const, lit = round(const * 8) / 8, [1, -1][seed % 2] * round(lit * 16) / 16
    inst = PricingInstance(X, v, const, lit, 6, np.arange(25))
    kw = dict(threshold=-1e-7, beam_width=12, max_return=[None, 5][seed % 2], max_width=48)
    ref = beam_pricing(inst, **kw)
    for flops, small in ((1, 8), (1e12, 10**9), (1e12, 0), (2e4, 0)):
        monkeypatch.setattr(beam, "_BATCH_FLOPS", flops)
        monkeypatch.setattr(beam, "_SMALL_BATCH", small)
        r = beam_pricing(inst, **kw)
        assert (r.clauses, r.reduced_costs, r.generated, r.best_clause) == \
            (ref.clauses, ref.reduced_costs, ref.generated, ref.best_clause)


def test_bad_beam_width_raises():
    X, v, const, lit = _random_pricing(0)
    inst = PricingInstance(X, v, const, lit, 2, np.arange(X.shape[1]))
    with pytest.raises(ValueError, match="beam_width"):
        beam_pricing(inst, beam_width=0)
    problem = RuleProblem.from_matrix(X[:, :3], (np.arange(len(v)) % 2).astype(int))
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="beam_width"):
            solve(problem, complexity_bound=6, beam_width=bad)


# ---- column generation with the beam in the plan --------------------------------------------
@pytest.mark.parametrize("seed,form,C,D,pricing,width", [
    (0, "dnf", 8, 3, "auto", 5), (1, "dnf", 10, 4, "auto", 1), (2, "cnf", 8, 3, "auto", 2),
    (3, "dnf", 12, 4, "bnb", 5), (4, "dnf", 9, 3, "auto", 3), (5, "cnf", 10, 4, "bnb", 1),
])
def test_solve_with_beam_equals_brute_force(seed, form, C, D, pricing, width):
    X, y = _instance(seed + 300)
    problem = RuleProblem.from_matrix(X, y)
    # _heuristic_max_generated=1 starves the greedy heuristic so that the beam does the work
    rs, cert = solve(problem, ColGenOptions.of(complexity_bound=C, max_clause_length=D, form=form,
                                               pricers=pricing, beam_width=width,
                                               _heuristic_max_generated=1,
                                               _heuristic_max_length=2,
                                               pricing_deterministic_time=20.0))
    _, bf_obj = brute_force_ruleset(X, y, C, D, form=form)
    score = ruleset_objective(rs, problem)
    assert math.isclose(score.objective, cert.objective, abs_tol=1e-9)
    assert rs.complexity <= C
    assert cert.lower_bound <= bf_obj + 1e-9
    assert math.isclose(cert.objective, bf_obj, abs_tol=1e-9)
    assert cert.proven_optimal and cert.termination is Termination.OPTIMAL
    for h in cert.history:
        assert h["lower_bound"] <= bf_obj + 1e-9
    stats = cert.stats
    assert stats["pricing_calls"]["beam"] >= 1 and "pricing_beam" in stats["time"]
    beam_entries = [e for e in stats["pricing_log"] if e["method"] == "beam"]
    assert beam_entries and all(e["bound"] == -math.inf and not e["complete"]
                                for e in beam_entries)
    assert set(beam_entries[0]) == set(stats["pricing_log"][0])
    # the beam never ends column generation: convergence is proven by an exact pricer
    if stats["stop_reason"] == "converged":
        last = [e for e in stats["pricing_log"] if e["iteration"] == stats["cg_iterations"]]
        assert last[-1]["method"] != "beam" and last[-1]["complete"]


def test_beam_bound_never_becomes_the_pricing_bound():
    X, y = _instance(321, noise=0.3)
    problem = RuleProblem.from_matrix(X, y)
    _, cert = solve(problem, complexity_bound=10, max_clause_length=4, pricers="bnb",
                    _heuristic_max_generated=1, _heuristic_max_length=2, close_gap=False)
    for h in cert.history:
        if "pricing_bound_kind" in h:
            assert h["pricing_bound_kind"] != "beam"
            assert math.isfinite(h["pricing_bound"])
    _, bf_obj = brute_force_ruleset(X, y, 10, 4)
    assert cert.lower_bound <= bf_obj + 1e-9


# ---- the adaptive chain: the beam or the short branch-and-bound first, by counted work ----
def _entry(method, work, found):
    return {"iteration": 0, "method": method, "exact_instance": True, "found": found,
            "best": None, "bound": -math.inf, "complete": False, "work": work, "time": 0.0,
            "termination": None}


def test_short_first_compares_the_expected_work_of_the_two_orders():
    from rulecert.mipmodels.colgen.pricing.chain import (ADAPTIVE_LEAST, ADAPTIVE_WINDOW,
                                                          BEAM_NODE_SCALE, short_first)
    d = 150
    child = d / BEAM_NODE_SCALE      # beam children per branch-and-bound node
    rng = np.random.default_rng(0)
    swapped = 0
    for _ in range(300):
        nb, ns = rng.integers(ADAPTIVE_LEAST, 2 * ADAPTIVE_WINDOW, size=2)
        beam = [_entry("beam", int(rng.integers(0, 10**7)), int(rng.integers(0, 3)))
                for _ in range(nb)]
        short = [_entry("bnb-short", int(rng.integers(1, 10**6)), int(rng.integers(0, 3)))
                 for _ in range(ns)]
        log = [e for pair in itertools.zip_longest(beam, short) for e in pair if e]
        b, s = beam[-ADAPTIVE_WINDOW:], short[-ADAPTIVE_WINDOW:]
        cb = np.mean([e["work"] for e in b]) / child
        pb = np.mean([e["found"] > 0 for e in b])
        cs = np.mean([e["work"] for e in s])
        ps = np.mean([e["found"] > 0 for e in s])
        expected = bool(cs + (1 - ps) * cb < cb + (1 - pb) * cs)
        assert short_first(log, d) == expected
        swapped += expected
        # until each pricer has run ADAPTIVE_LEAST times: the fixed order
        assert not short_first(beam + short[:ADAPTIVE_LEAST - 1], d)
        assert not short_first(beam[:ADAPTIVE_LEAST - 1] + short, d)
    assert 30 <= swapped <= 270           # both answers are exercised
    # a beam that costs 10^6 nodes and finds in 1 of 10 calls against a short search of 10^5
    # nodes that always finds: the short search first; a cheap beam: the beam first
    costly = [_entry("beam", int(1e6 * child), int(i == 0)) for i in range(10)]
    cheap = [_entry("bnb-short", 10**5, 1) for _ in range(10)]
    assert short_first(costly + cheap, d)
    assert not short_first([_entry("beam", int(1e4 * child), 1)] * 10 + cheap, d)


def _price_order(o, history):
    """The pricers one chain runs after ``history`` (nothing they find is new, so every
    pricer up to the full branch-and-bound runs)."""
    from rulecert.limits import Deadline
    from rulecert.mipmodels.colgen.pricing import chain
    X, _ = _instance(7)
    X = np.asarray(X, bool)
    v = np.random.default_rng(1).normal(0, 1, X.shape[0])
    log = list(history)
    chain.price(X, v, 0.5, 0.05, o.model.max_clause_length, o, rng=np.random.default_rng(0),
                iteration=9, cg_deadline=Deadline(None), improving=lambda inst, r: [],
                times=dict.fromkeys(chain.TIME_KEYS.values(), 0.0), calls={}, log=log)
    return [e["method"] for e in log[len(history):]]


def test_the_adaptive_chain_runs_the_short_search_first_when_the_beam_costs_more():
    from rulecert.mipmodels.colgen.pricing.chain import ADAPTIVE_LEAST, BEAM_NODE_SCALE
    d = _instance(7)[0].shape[1]
    costly = [_entry("beam", int(1e6 * d / BEAM_NODE_SCALE), 0) for _ in range(5)]
    cheap = [_entry("bnb-short", 10**3, 1) for _ in range(5)]
    few = costly[:ADAPTIVE_LEAST - 1] + cheap
    o = ColGenOptions.of(complexity_bound=12, max_clause_length=8, pricers="bnb",
                         _heuristic_max_generated=1, _heuristic_max_length=2, sample_rows=None)
    fixed = _price_order(o, costly + cheap)
    adaptive = _price_order(o.replace(adaptive_chain=True), costly + cheap)
    assert fixed.index("beam") < fixed.index("bnb-short"), fixed
    assert adaptive.index("bnb-short") < adaptive.index("beam"), adaptive
    assert sorted(adaptive) == sorted(fixed)       # the same pricers, in another order
    early = _price_order(o.replace(adaptive_chain=True), few)
    assert early.index("beam") < early.index("bnb-short"), early


def test_solve_with_the_adaptive_chain_equals_brute_force(monkeypatch):
    from rulecert.mipmodels.colgen.pricing import chain
    # a huge scale makes the beam dear: the short search goes first once both have run; a
    # beam of width 1 that never widens fails often enough for the short search to run
    monkeypatch.setattr(chain, "BEAM_NODE_SCALE", 1e9)
    monkeypatch.setattr(chain, "ADAPTIVE_LEAST", 1)
    monkeypatch.setattr(chain, "BEAM_WIDENING", 1)
    short_first_rounds = 0
    for seed in range(12):
        X, y = _instance(seed + 340)
        problem = RuleProblem.from_matrix(X, y)
        _, bf_obj = brute_force_ruleset(X, y, 10, 4)
        rs, cert = solve(problem, ColGenOptions.of(complexity_bound=10, max_clause_length=4,
                                                   pricers="bnb", _heuristic_max_generated=1,
                                                   _heuristic_max_length=2, adaptive_chain=True,
                                                   beam_width=1))
        score = ruleset_objective(rs, problem)
        assert math.isclose(score.objective, cert.objective, abs_tol=1e-9)
        assert cert.lower_bound <= bf_obj + 1e-9
        assert math.isclose(cert.objective, bf_obj, abs_tol=1e-9) and cert.proven_optimal
        first = {}
        for e in cert.stats["pricing_log"]:
            if e["method"] in ("beam", "bnb-short"):
                first.setdefault(e["iteration"], e["method"])
        short_first_rounds += sum(m == "bnb-short" for m in first.values())
    assert short_first_rounds >= 3


def test_adaptive_chain_must_be_a_bool():
    X, y = _instance(1)
    with pytest.raises(ValueError, match="adaptive_chain"):
        solve(RuleProblem.from_matrix(X, y), complexity_bound=6, adaptive_chain="yes")
