"""The rule-list MIP (issue 3): exact against enumeration, CORELS and across backends.

Every objective is recomputed from the returned RuleList with rulecert.objectives; bounds
are checked against an exact enumeration (validated itself against brute force).  The full
sweep (>= 200 random instances per backend) is marked slow; the default run uses a few.
"""
from __future__ import annotations

import importlib.util
import itertools
import math

import numpy as np
import pytest

from rulecert.certificate import SolutionStatus, Termination
from rulecert.reference import brute_force_rule_list
from rulecert.mipmodels import rulelist as RL
from rulecert.mipmodels.rulelist import fit as RL_fit
from rulecert.mipmodels.rulelist import (BACKENDS, RuleListMIP, solve,
                                         rule_list_mip_model)
from rulecert.models.rulelist import prefix_objective, rule_list_objective
from rulecert.problem import RuleProblem
from rulecert.models.rulelist import RuleList, rule_list_from_prefix

HAVE_CORELS = importlib.util.find_spec("rulecert.search.corels") is not None
pytestmark = pytest.mark.filterwarnings("ignore:c=.* is below 1/n:UserWarning")


# ---- an independent exact reference ---------------------------------------------------------
def reference_optimum(problem: RuleProblem, c: float, max_length: int | None):
    """Optimal objective over CORELS-labelled lists of length <= max_length, by depth-first
    enumeration on Python-int bitsets.  Prunes only with provably safe bounds: an extension
    of a prefix with prefix mistakes m has objective >= (m + EP(rest)) / n + c * (len + 2),
    EP the equivalent-points minority count of the uncaptured samples (JMLR Thm 1, Lemma 2,
    Thm 20).  Returns (best objective, best prefix)."""
    n = problem.n_samples
    D = problem.dense()
    y = problem.y.astype(bool)
    M = D.shape[1]
    L = M if max_length is None else min(max_length, M)
    to_int = lambda v: int("".join("1" if b else "0" for b in v[::-1]) or "0", 2)  # noqa: E731
    caps = [to_int(D[:, j]) for j in range(M)]
    ypos = to_int(y)
    full = (1 << n) - 1
    # equivalent-points minority mask over all antecedents
    _, inv = np.unique(D, axis=0, return_inverse=True) if M else (None, np.zeros(n, int))
    inv = np.asarray(inv).reshape(-1)
    minority = np.zeros(n, bool)
    for g in np.unique(inv):
        idx = np.flatnonzero(inv == g)
        p = y[idx].sum()
        lab = 1 if p < len(idx) - p else 0           # minority label (ties: label 0 is marked)
        minority[idx] = y[idx] == lab
    mino = to_int(minority)
    pc = int.bit_count

    def default_mistakes(rem):
        p = pc(rem & ypos)
        return min(p, pc(rem) - p)

    best = [default_mistakes(full) / n, ()]

    def dfs(prefix, rem, m_pre):
        k = len(prefix)
        for r in range(M):
            if r in prefix:
                continue
            cap = caps[r] & rem
            p = pc(cap & ypos)
            m1 = m_pre + min(p, pc(cap) - p)
            rem1 = rem & ~caps[r]
            obj = (m1 + default_mistakes(rem1)) / n + c * (k + 1)
            if obj < best[0] - 1e-12:
                best[0], best[1] = obj, prefix + (r,)
            if k + 1 < L and (m1 + pc(rem1 & mino)) / n + c * (k + 2) < best[0] - 1e-12:
                dfs(prefix + (r,), rem1, m1)

    if L > 0:
        dfs((), full, 0)
    return best[0], best[1]


# ---- random instances ----------------------------------------------------------------------
def random_problem(rng, n_max=300, m_max=15):
    """Mined-like antecedents: literals and 2-literal conjunctions over d <= 7 random base
    features (so at most 2**7 distinct capture patterns, as in real mined data); labels from
    a planted rule list over the antecedents plus 5-30% label noise."""
    while True:
        n = int(rng.integers(20, n_max + 1))
        M = int(rng.integers(2, m_max + 1))
        d = int(rng.integers(2, 8))
        F = rng.random((n, d)) < rng.uniform(0.2, 0.8, d)
        cols = []
        for _ in range(M):
            j = rng.integers(0, d, size=int(rng.integers(1, 3)))
            v = rng.integers(0, 2, size=len(j))
            cols.append(np.all(F[:, j] == v.astype(bool), axis=1))
        A = np.column_stack(cols)
        planted = rng.choice(M, size=min(M, int(rng.integers(1, 4))), replace=False)
        labels = rng.integers(0, 2, len(planted))
        y = np.full(n, int(rng.integers(0, 2)))
        for j, l in zip(planted[::-1], labels[::-1]):
            y[A[:, j]] = l
        flip = rng.random(n) < rng.uniform(0.05, 0.3)
        y = np.where(flip, 1 - y, y)
        if 0 < y.sum() < n:
            return RuleProblem.from_matrix(A, y)


C_VALUES = (0.0, 0.005, 0.01, 0.02, 0.05)


def planted_problem(seed, n, M):
    """A planted two-rule list on M random antecedents with 15% label noise."""
    rng = np.random.default_rng(seed)
    A = rng.random((n, M)) < rng.uniform(0.1, 0.5, M)
    y = np.where(A[:, 0], 1, np.where(A[:, 1], 0, 1))
    y = np.where(rng.random(n) < 0.15, 1 - y, y)
    return RuleProblem.from_matrix(A, y)


def _instances(count, seed, n_max=300, m_max=15):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        p = random_problem(rng, n_max, m_max)
        c = float(rng.choice(C_VALUES))
        K = int(rng.integers(1, 6))
        yield p, c, K


def _check_against_reference(p, c, K, backend, **kw):
    with _nowarn():
        rl, cert = solve(p, c, max_rules=K, backend=backend, warm_start="greedy", **kw)
    ref, ref_prefix = reference_optimum(p, c, K)
    assert cert.termination is Termination.OPTIMAL, cert.summary()
    assert cert.status is SolutionStatus.OPTIMAL and cert.proven_optimal
    assert isinstance(rl, RuleList)
    s = rule_list_objective(rl, p, c)
    assert s.objective == cert.objective                      # reported = recomputed
    assert math.isclose(cert.objective, ref, rel_tol=0, abs_tol=1e-12), (cert.summary(), ref_prefix)
    assert cert.lower_bound <= ref + 1e-9
    assert rl.n_rules <= K
    # the returned list carries the shared label rule (majority, ties 1)
    again = rule_list_from_prefix(p, rl.indices)
    assert again.predictions == rl.predictions and again.default == rl.default
    assert abs(cert.stats["raw_objective"] - cert.stats["solver_objective"]) < 1e-6
    if HAVE_CORELS:
        from rulecert.search import corels
        crl, ccert = corels.solve(p, c, max_length=K)
        assert ccert.proven_optimal
        assert math.isclose(ccert.objective, cert.objective, abs_tol=1e-12)
    return rl, cert


class _nowarn:
    """Silence the 'c below 1/n' warning of tiny c in the sweeps."""

    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", UserWarning)

    def __exit__(self, *a):
        return self._w.__exit__(*a)


# ---- the reference itself -------------------------------------------------------------------
def test_reference_matches_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(25):
        p = random_problem(rng, n_max=60, m_max=5)
        c = float(rng.choice(C_VALUES))
        K = int(rng.integers(1, 4))
        _, bs = brute_force_rule_list(p, c, K)
        ref, prefix = reference_optimum(p, c, K)
        assert math.isclose(ref, bs.objective, abs_tol=1e-12)
        assert math.isclose(prefix_objective(p, prefix, c).objective, ref, abs_tol=1e-12)


# ---- correctness sweeps ---------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_mip_equals_enumeration_small(backend):
    for p, c, K in _instances(10, seed=11, n_max=120, m_max=8):
        _check_against_reference(p, c, K, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mip_matches_brute_force_tiny(backend):
    rng = np.random.default_rng(3)
    for _ in range(6):
        p = random_problem(rng, n_max=80, m_max=5)
        c = float(rng.choice(C_VALUES))
        K = int(rng.integers(1, 4))
        _, bs = brute_force_rule_list(p, c, K)
        with _nowarn():
            rl, cert = solve(p, c, max_rules=K, backend=backend)
        assert cert.proven_optimal and math.isclose(cert.objective, bs.objective, abs_tol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_mip_equals_enumeration_sweep(backend):
    """>= 200 random instances per backend: n <= 300, M <= 15, K <= 5, five values of c."""
    count = 0
    for p, c, K in _instances(210, seed=2024):
        _check_against_reference(p, c, K, backend)
        count += 1
    assert count >= 200


def test_cuts_off_gives_same_optimum():
    for p, c, K in _instances(6, seed=5, n_max=150, m_max=8):
        with _nowarn():
            _, a = solve(p, c, max_rules=K, cuts=True)
            _, b = solve(p, c, max_rules=K, cuts=False)
            _, d = solve(p, c, max_rules=K, cuts=["order", "last"], backend="cpsat")
            _, e = solve(p, c, max_rules=K, length_bound=False)
        assert a.proven_optimal and b.proven_optimal and d.proven_optimal and e.proven_optimal
        assert math.isclose(a.objective, b.objective, abs_tol=1e-12)
        assert math.isclose(a.objective, d.objective, abs_tol=1e-12)
        assert math.isclose(a.objective, e.objective, abs_tol=1e-12)


def one_hot_problem(rng, n_max=120):
    """Antecedents 'feature = level' of 2-3 categorical features (and a few conjunctions):
    many pairs capture no sample in common; labels from a planted list of mixed labels."""
    while True:
        n = int(rng.integers(30, n_max + 1))
        F = [rng.integers(0, int(rng.integers(2, 5)), n) for _ in range(int(rng.integers(2, 4)))]
        cols = [f == v for f in F for v in np.unique(f)]
        cols += [cols[i] & cols[j] for i, j in rng.integers(0, len(cols), (2, 2))]
        A = np.column_stack(cols)
        y = np.full(n, int(rng.integers(0, 2)))
        for j in rng.choice(A.shape[1], 3, replace=False)[::-1]:
            y[A[:, j]] = int(rng.integers(0, 2))
        y = np.where(rng.random(n) < 0.1, 1 - y, y)
        if 0 < y.sum() < n:
            return RuleProblem.from_matrix(A, y)


def test_disjoint_cut_keeps_the_optimum():
    """The 'disjoint' family is valid: the MIP optimum with and without it is the same on
    random instances with many disjoint antecedents, and equals brute force on tiny ones."""
    rng = np.random.default_rng(55)
    rows = brute = 0
    others = [f for f in RL.CUT_FAMILIES if f != "disjoint"]
    for i in range(6):
        p = one_hot_problem(rng, n_max=60 if i < 3 else 120)
        c = float(rng.choice([0.0, 0.01, 0.02, 0.05]))
        K = int(rng.integers(2, 4))
        rows += sum(nm.startswith("disjoint") for nm in RuleListMIP(p, c, K, cuts=RL.CUT_FAMILIES).row_names)
        with _nowarn():
            _, a = solve(p, c, max_rules=K, backend="cpsat", cuts=RL.CUT_FAMILIES, length_bound=False)
            _, b = solve(p, c, max_rules=K, backend="cpsat", cuts=others, length_bound=False)
            _, h = solve(p, c, max_rules=K, backend="highs", cuts=["disjoint"], length_bound=False)
        assert a.proven_optimal and b.proven_optimal and h.proven_optimal
        assert math.isclose(a.objective, b.objective, abs_tol=1e-12)
        assert math.isclose(a.objective, h.objective, abs_tol=1e-12)
        if p.n_antecedents <= 7:
            _, bs = brute_force_rule_list(p, c, K)
            assert math.isclose(a.objective, bs.objective, abs_tol=1e-12)
            brute += 1
    assert rows > 0 and brute > 0  # the family and the brute-force check were exercised


# ---- limits: never optimal, bounds stay below the optimum -----------------------------------
def _hard_problem(seed=1, n=300, M=15):
    """XOR-like labels: hard for the MIP's LP relaxation (used for limit-stopped runs)."""
    rng = np.random.default_rng(seed)
    A = rng.random((n, M)) < rng.uniform(0.1, 0.5, M)
    y = (A[:, 0] ^ A[:, 1] ^ (rng.random(n) < 0.3)).astype(int)
    return RuleProblem.from_matrix(A, y)


@pytest.mark.parametrize("backend,limit", [("highs", {"node_limit": 1}), ("pulp", {"node_limit": 1}),
                                           ("cpsat", {"deterministic_time": 0.05})])
def test_limit_stopped_bounds_are_valid(backend, limit):
    p, c, K = _hard_problem(seed=1, n=150, M=8), 0.005, 4
    with _nowarn():
        rl, cert = solve(p, c, max_rules=K, backend=backend, warm_start="greedy", **limit)
    ref, _ = reference_optimum(p, c, K)
    assert cert.termination in (Termination.NODE_LIMIT, Termination.ITERATION_LIMIT,
                                Termination.TIME_LIMIT), cert.summary()
    assert cert.status is SolutionStatus.FEASIBLE and not cert.proven_optimal
    assert cert.lower_bound <= ref + 1e-9 and cert.objective >= ref - 1e-12
    assert rule_list_objective(rl, p, c).objective == cert.objective
    assert cert.warm_start_objective is not None and cert.objective <= cert.warm_start_objective + 1e-12


def test_pulp_optimal_after_a_limit_stop_never_reaches_certificate():
    """PuLP reads HiGHS's limit stops (kTimeLimit, kInterrupt, kIterationLimit) as "Optimal";
    our certificate must not.  The stop is triggered by an event count (the callback stops
    the run at its third sample), so HiGHS has run whatever the machine's load; time_limit is
    only a hang guard."""
    p = _hard_problem(seed=4, n=200, M=10)
    seen = []
    with _nowarn():
        rl, cert = solve(p, 0.002, max_rules=5, backend="pulp", time_limit=120,
                                     warm_start="greedy", history_every=0.1,
                                     callback=lambda info: seen.append(info) or len(seen) >= 3)
    assert len(seen) >= 3 and "callback" in cert.message, cert.summary()
    assert cert.stats["pulp_status"] == "Optimal"
    assert cert.termination is Termination.INTERRUPTED, cert.summary()
    assert cert.status is SolutionStatus.FEASIBLE and not cert.proven_optimal
    assert cert.abs_gap > 0 and cert.lower_bound <= cert.objective
    assert rule_list_objective(rl, p, 0.002).objective == cert.objective


def test_pulp_time_limit_stop_is_a_time_limit():
    """A time-limited PuLP run is TIME_LIMIT with its incumbent and a gap, never optimal.  On a
    loaded machine the model's build may use up the 0.5 s (HiGHS then never runs and PuLP has
    nothing to call "Optimal"): the certificate is the same, so only it is checked."""
    p = _hard_problem(seed=4, n=200, M=10)
    with _nowarn():
        rl, cert = solve(p, 0.002, max_rules=5, backend="pulp", time_limit=0.5,
                                     warm_start="greedy")
    assert cert.termination is Termination.TIME_LIMIT, (cert.summary(), cert.stats["pulp_status"])
    assert cert.status is SolutionStatus.FEASIBLE and not cert.proven_optimal
    assert cert.abs_gap > 0 and cert.lower_bound <= cert.objective
    assert rule_list_objective(rl, p, 0.002).objective == cert.objective


def test_time_limit_zero_returns_warm_start_honestly():
    p = _hard_problem(n=100, M=6)
    rl, cert = solve(p, 0.01, max_rules=3, time_limit=0, warm_start="greedy")
    assert cert.termination is Termination.TIME_LIMIT and cert.status is SolutionStatus.FEASIBLE
    assert cert.stats["incumbent_source"] == "warm_start"
    assert cert.objective == cert.warm_start_objective == rule_list_objective(rl, p, 0.01).objective
    rl2, cert2 = solve(p, 0.01, max_rules=3, time_limit=0)
    assert rl2 is None and cert2.status is SolutionStatus.NONE and cert2.objective is None


# ---- COMPAS subsamples (300 samples, the 15 antecedents of highest support) ------------------
def compas_subsample(n=300, M=15, seed=0):
    from rulecert.datasets import load_compas_corels_problem
    full = load_compas_corels_problem("train")
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(full.n_samples, n, replace=False))
    D = full.dense()[idx]
    top = np.argsort(-D.sum(axis=0), kind="stable")[:M]
    return RuleProblem.from_matrix(D[:, top], full.y[idx], [full.antecedents[j] for j in top])


def _compas_or_skip(**kw):
    try:
        return compas_subsample(**kw)
    except (FileNotFoundError, OSError) as exc:  # pragma: no cover - data not installed
        pytest.skip(f"COMPAS data not available: {exc}")


@pytest.mark.parametrize("c", [0.01, 0.02])
@pytest.mark.parametrize("seed", [0, 1])
def test_compas_subsample_certifies_the_unrestricted_optimum(c, seed):
    p = _compas_or_skip(seed=seed)
    assert p.n_samples == 300 and p.n_antecedents == 15
    ref, ref_prefix = reference_optimum(p, c, None)           # unrestricted
    for backend in BACKENDS:
        rl, cert = solve(p, c, max_rules=5, backend=backend, warm_start="greedy")
        assert cert.termination is Termination.OPTIMAL, cert.summary()
        assert cert.stats["exact_for_unrestricted"], cert.message
        assert "exact for the unrestricted problem" in cert.message
        assert math.isclose(cert.objective, ref, abs_tol=1e-12), (backend, ref_prefix, str(rl))
        assert rule_list_objective(rl, p, c).objective == cert.objective
    if HAVE_CORELS:
        from rulecert.search import corels
        _, ccert = corels.solve(p, c)
        assert ccert.proven_optimal and math.isclose(ccert.objective, ref, abs_tol=1e-12)


@pytest.mark.parametrize("c", [0.01, 0.02])
def test_compas_subsample_restricted_lengths(c):
    """Fixed K (no length-bound shrinking): the K-restricted optimum of brute force."""
    p = _compas_or_skip(seed=2)
    for K in (1, 2, 3):
        ref, _ = reference_optimum(p, c, K)
        for backend in BACKENDS:
            rl, cert = solve(p, c, max_rules=K, backend=backend, length_bound=False)
            assert cert.proven_optimal and math.isclose(cert.objective, ref, abs_tol=1e-12)


# ---- exactness for the unrestricted problem --------------------------------------------------
def test_exactness_flag_and_message():
    p = planted_problem(seed=2, n=200, M=8)
    with _nowarn():
        _, small = solve(p, 0.001, max_rules=1)
    assert small.proven_optimal
    L = small.stats["prefix_length_bound"]
    assert L > 1 and small.stats["exact_for_unrestricted"] is False
    assert "restricted to at most 1 rules" in small.message
    # the plain JMLR bound floor(R / c) is never smaller than the refined one
    assert small.stats["prefix_length_bound_jmlr"] >= L
    R = small.stats["prefix_length_bound_objective"]
    assert small.stats["prefix_length_bound_jmlr"] == min(8, math.floor(R / 0.001 + 1e-9))
    _, big = solve(p, 0.05, max_rules=8)
    assert big.stats["exact_for_unrestricted"] is True
    ref, _ = reference_optimum(p, 0.05, None)
    assert math.isclose(big.objective, ref, abs_tol=1e-12)


def test_prefix_length_bound_values():
    p = RuleProblem.from_matrix(np.eye(4, dtype=bool)[[0, 1, 2, 3, 0, 1]], [1, 0, 1, 0, 0, 1])
    G = RL.group_data(p)
    # c = 0.1, incumbent 2 mistakes of 6 with 1 rule: R = 1/3 + 0.1
    ref, jmlr = RL.prefix_length_bound(G, 0.1, 2, 1, 4)
    assert jmlr == min(4, math.floor((2 / 6 + 0.1) / 0.1))
    ep = int(G.ep)
    assert ref == min(4, 1 + math.floor((2 - ep) / (0.1 * 6)))
    assert RL.prefix_length_bound(G, 0.0, 2, 1, 4) == (4, 4)


# ---- warm starts ------------------------------------------------------------------------------
def test_warm_start_forms_and_record():
    p = planted_problem(seed=3, n=150, M=8)
    c = 0.01
    ref, ref_prefix = reference_optimum(p, c, 3)
    for ws in ("greedy", list(ref_prefix), rule_list_from_prefix(p, ref_prefix), None):
        rl, cert = solve(p, c, max_rules=3, warm_start=ws)
        assert cert.proven_optimal and math.isclose(cert.objective, ref, abs_tol=1e-12)
        if ws is None:
            assert cert.warm_start_objective is None
        else:
            assert cert.warm_start_objective is not None
            assert cert.warm_start_objective >= ref - 1e-12
    rl, cert = solve(p, c, max_rules=3, warm_start=list(ref_prefix), backend="cpsat")
    assert math.isclose(cert.warm_start_objective, ref, abs_tol=1e-12)


def test_warm_start_is_repaired_to_fit_the_model():
    p = _hard_problem(seed=3, n=150, M=8)
    # duplicates, too long, and rules that classify too few samples correctly
    rl, cert = solve(p, 0.02, max_rules=2, warm_start=[5, 5, 1, 2, 3, 4])
    assert cert.proven_optimal
    wp = cert.stats["warm_start_prefix"]
    assert len(wp) <= 2 and len(set(wp)) == len(wp)


# ---- bad input: ValueError before any work ----------------------------------------------------
@pytest.fixture
def no_solver(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a solver was called despite bad input")
    monkeypatch.setattr(RL_fit, "_solve_highs_like", boom)
    monkeypatch.setattr(RL_fit, "_solve_cpsat", boom)
    monkeypatch.setattr(RL_fit, "RuleListMIP", boom)


@pytest.mark.parametrize("kwargs,match", [
    ({"max_rules": 0}, "max_rules"), ({"max_rules": -1}, "max_rules"),
    ({"max_rules": 2.5}, "max_rules"), ({"max_rules": True}, "max_rules"),
    ({"max_rules": 2, "c": 1.0}, "c must be in"), ({"max_rules": 2, "c": -0.1}, "c must be in"),
    ({"max_rules": 2, "c": float("nan")}, "c must be in"),
    ({"max_rules": 2, "backend": "gurobi"}, "backend"),
    ({"max_rules": 2, "backend": "cpsat", "node_limit": 5}, "node limit"),
    ({"max_rules": 2, "node_limit": 0}, "node_limit"),
    ({"max_rules": 2, "time_limit": -1}, "time_limit"),
    ({"max_rules": 2, "deterministic_time": 1.0}, "deterministic_time"),
    ({"max_rules": 2, "warm_start": [99]}, "out of range"),
    ({"max_rules": 2, "warm_start": "best"}, "warm_start"),
    ({"max_rules": 2, "cuts": ["nonsense"]}, "cut families"),
])
def test_bad_input_raises_before_work(no_solver, kwargs, match):
    p = _hard_problem(seed=1, n=50, M=4)
    kwargs = dict(kwargs)
    c = kwargs.pop("c", 0.01)
    with pytest.raises(ValueError, match=match):
        solve(p, c, **kwargs)


def test_one_class_and_too_large_and_weights(no_solver, monkeypatch):
    A = np.random.default_rng(0).random((30, 3)) < 0.5
    with pytest.raises(ValueError, match="one class"):
        solve(RuleProblem.from_matrix(A, np.ones(30, int)), 0.01, max_rules=2)
    p = _hard_problem(seed=1, n=50, M=4)
    monkeypatch.setitem(RL.MAX_NONZEROS, "pulp", 100)
    with pytest.raises(ValueError, match="above the pulp backend's limit"):
        solve(p, 0.01, max_rules=3, backend="pulp")
    pw = RuleProblem.from_matrix(A, (A[:, 0]).astype(int), sample_weight=np.linspace(0.5, 1.5, 30))
    with pytest.raises(ValueError, match="integer-valued sample weights"):
        solve(pw, 0.01, max_rules=2, backend="cpsat")


# ---- a missing or failing solver reports ERROR, never falls back -------------------------------
def test_missing_solvers_report_error(monkeypatch):
    from rulecert.mipmodels import cpsat as CP
    from rulecert.mipmodels import highs as H
    p = _hard_problem(seed=1, n=60, M=4)
    monkeypatch.setattr(H, "highspy", None)
    rl, cert = solve(p, 0.01, max_rules=2, backend="highs", warm_start="greedy")
    assert rl is None and cert.termination is Termination.ERROR
    assert cert.status is SolutionStatus.NONE and "highspy is not available" in cert.message
    monkeypatch.setattr(CP, "cp_model", None)
    rl, cert = solve(p, 0.01, max_rules=2, backend="cpsat")
    assert rl is None and cert.termination is Termination.ERROR and "ortools" in cert.message
    import pulp
    monkeypatch.setattr(pulp.HiGHS, "available", lambda self: False)
    rl, cert = solve(p, 0.01, max_rules=2, backend="pulp")
    assert rl is None and cert.termination is Termination.ERROR and "PuLP" in cert.message


def test_inconsistent_solver_objective_is_an_error(monkeypatch):
    p = _hard_problem(seed=1, n=80, M=5)
    real = RuleListMIP.decode

    def wrong(self, x):  # pretend the solver's vector encodes another list
        prefix, labels, default = real(self, x)
        return prefix, labels, 1 - default
    monkeypatch.setattr(RuleListMIP, "decode", wrong)
    rl, cert = solve(p, 0.01, max_rules=2)
    assert cert.termination is Termination.ERROR and "INCONSISTENT" in cert.message
    assert not cert.proven_optimal


# ---- export: LP / MPS, re-solved by highspy --------------------------------------------------
def test_write_lp_and_mps_and_resolve(tmp_path):
    import highspy
    p = _hard_problem(seed=5, n=80, M=5)
    c, K = 0.02, 2
    model = rule_list_mip_model(p, c, K)
    model.write(tmp_path / "m.lp")
    model.write(str(tmp_path / "m.mps"))
    text = (tmp_path / "m.lp").read_text()
    assert "x_k1_r0_pos" in text and "accuracy_k1_pos" in text
    ref, _ = reference_optimum(p, c, K)
    for f in ("m.mps", "m.lp"):
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)
        h.readModel(str(tmp_path / f))
        h.run()
        assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
        assert math.isclose(h.getInfo().objective_function_value / p.n_samples, ref, abs_tol=1e-7)
    with pytest.raises(ValueError, match=".lp or .mps"):
        model.write(tmp_path / "m.txt")


def test_encode_decode_roundtrip_and_model_facts():
    p = _hard_problem(seed=6, n=90, M=6)
    m = RuleListMIP(p, 0.0, 3, cuts=False)
    for prefix in [(), (2,), (0, 4), (5, 1, 3)]:
        rl = rule_list_from_prefix(p, prefix)
        v = m.encode(prefix, rl.predictions, rl.default)
        assert m.decode(v) == (list(prefix), rl.predictions, rl.default)
        # the encoded vector satisfies every row and its cost is the list's mistakes
        start, idx, val = m.csr()
        act = np.add.reduceat(val * v[idx], start[:-1]) if len(idx) else np.zeros(0)
        assert (act >= np.array(m.row_lower) - 1e-9).all() and (act <= np.array(m.row_upper) + 1e-9).all()
        assert math.isclose(m.col_cost @ v, rule_list_objective(rl, p, 0.0).mistakes)
    assert m.n_nonzeros <= RL_fit.check_size(p, "highs", 3, m.G)


def test_weighted_problem_matches_repetition():
    rng = np.random.default_rng(9)
    p = random_problem(rng, n_max=60, m_max=5)
    w = rng.integers(1, 4, p.n_samples)
    rep = np.repeat(np.arange(p.n_samples), w)
    D = p.dense()
    pw = RuleProblem.from_matrix(D, p.y, sample_weight=w.astype(float))
    pr = RuleProblem.from_matrix(D[rep], p.y[rep])
    for backend in BACKENDS:
        _, a = solve(pw, 0.02, max_rules=3, backend=backend)
        _, b = solve(pr, 0.02, max_rules=3, backend=backend)
        assert a.proven_optimal and b.proven_optimal
        assert math.isclose(a.objective, b.objective, abs_tol=1e-12)
    # fractional weights (HiGHS only): checked against enumeration of weighted objectives
    wf = rng.uniform(0.2, 2.0, p.n_samples)
    pf = RuleProblem.from_matrix(D, p.y, sample_weight=wf)
    rl, cert = solve(pf, 0.02, max_rules=2)
    best = min(rule_list_objective(rule_list_from_prefix(pf, q), pf, 0.02).objective
               for k in range(3) for q in itertools.permutations(range(p.n_antecedents), k))
    assert cert.proven_optimal and math.isclose(cert.objective, best, abs_tol=1e-7)
    assert cert.lower_bound <= best + 1e-7


def test_cpsat_history_and_stats():
    p = _hard_problem(seed=2, n=120, M=6)
    rl, cert = solve(p, 0.01, max_rules=3, backend="cpsat", warm_start="greedy")
    assert cert.history and all(h["lower_bound"] <= h["objective"] + 1e-9 for h in cert.history)
    for key in ("n_groups", "n_variables", "n_constraints", "effective_max_rules",
                "prefix_length_bound", "exact_for_unrestricted", "solver_bound"):
        assert key in cert.stats
    assert cert.stats["cpsat_c"] == "1/100"


def _rows_satisfied(m, v):
    start, idx, val = m.csr()
    act = np.add.reduceat(val * v[idx], start[:-1]) if len(idx) else np.zeros(0)
    lo, hi = np.array(m.row_lower), np.array(m.row_upper)
    bad = np.flatnonzero((act < lo - 1e-9) | (act > hi + 1e-9))
    return [m.row_names[i] for i in bad]


def test_repaired_warm_starts_satisfy_every_cut():
    rng = np.random.default_rng(12)
    for _ in range(40):
        p = random_problem(rng, n_max=120, m_max=8)
        c = float(rng.choice([0.005, 0.01, 0.02, 0.05]))
        K = int(rng.integers(1, 5))
        m = RuleListMIP(p, c, K, cuts=True)
        prefix = list(rng.choice(p.n_antecedents, size=int(rng.integers(0, 7))))
        rep = RL.repair_prefix(m.G, prefix, K, m.threshold, True, RL.CUT_FAMILIES, c)
        rl = rule_list_from_prefix(p, rep)
        assert rule_list_objective(rl, p, c).objective <= \
            prefix_objective(p, list(dict.fromkeys(int(r) for r in prefix))[:K], c).objective + 1e-12
        v = m.encode(rep, rl.predictions, rl.default)
        assert _rows_satisfied(m, v) == []


def test_optimal_lists_satisfy_every_cut():
    """The cuts never remove an optimum: the sorted enumeration optimum satisfies them all."""
    rng = np.random.default_rng(13)
    for _ in range(25):
        p = random_problem(rng, n_max=100, m_max=6)
        c = float(rng.choice([0.005, 0.01, 0.02, 0.05]))
        K = int(rng.integers(1, 4))
        _, prefix = reference_optimum(p, c, K)
        m = RuleListMIP(p, c, K, cuts=True)
        # same-label and disjoint neighbours commute: the sorted representative of the optimum
        rep = RL.repair_prefix(m.G, list(prefix), K, 0, False, ["order", "disjoint"], c)
        rl = rule_list_from_prefix(p, rep)
        assert math.isclose(rule_list_objective(rl, p, c).objective,
                            prefix_objective(p, prefix, c).objective, abs_tol=1e-12)
        assert _rows_satisfied(m, m.encode(rep, rl.predictions, rl.default)) == []


def test_irrational_looking_c_on_every_backend():
    """c with a 16-digit decimal: CP-SAT scales by a nearby fraction and corrects its bound."""
    p = planted_problem(seed=8, n=120, M=5)
    c = 1 / 30
    ref, _ = reference_optimum(p, c, 2)
    for backend in BACKENDS:
        rl, cert = solve(p, c, max_rules=2, backend=backend)
        assert math.isclose(cert.objective, ref, abs_tol=1e-12)
        assert cert.lower_bound <= ref + 1e-12 and cert.proven_optimal, cert.summary()
    assert cert.stats["bound_correction"] > 0 and cert.stats["cpsat_c"] != str(RL.c_fraction(c))
