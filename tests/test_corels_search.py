"""CORELS branch-and-bound: agreement with brute force, limits, certificates, COMPAS optima."""
import itertools
import logging
import warnings

import numpy as np
import pytest

from rulecert import RuleProblem, SolutionStatus, Termination
from rulecert.reference import brute_force_rule_list
from rulecert.mining import read_corels
from rulecert.models.rulelist import rule_list_objective
from rulecert.search import corels
from rulecert.search.corels import POLICIES, CorelsBounds
from rulecert.search.corels.bounds import prefix_stats_reference
from rulecert.reference.rulelist import brute_force_optimum, exhaustive

BOUND_NAMES = [f for f in CorelsBounds.__dataclass_fields__]
ALL_COMBOS = [CorelsBounds(**dict(zip(BOUND_NAMES, flags)))
              for flags in itertools.product([False, True], repeat=len(BOUND_NAMES))]
C_CHOICES = [0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.25]


def random_problem(rng, n_range=(5, 61), m_range=(1, 7)):
    n = int(rng.integers(*n_range))
    M = int(rng.integers(*m_range))
    dens = rng.uniform(0.05, 0.8, size=M)
    A = rng.random((n, M)) < dens
    # structure that makes ties, nested and duplicate antecedents, equivalent points
    for j in range(1, M):
        r = rng.random()
        k = int(rng.integers(0, j))
        if r < 0.1:
            A[:, j] = A[:, k]
        elif r < 0.2:
            A[:, j] = A[:, k] | A[:, j]
        elif r < 0.3:
            A[:, j] = A[:, k] & A[:, j]
    y = rng.random(n) < rng.uniform(0.2, 0.8)
    if y.all() or not y.any():
        y[0] = not y[0]
    return RuleProblem.from_matrix(A, y.astype(int))


def pick_c(rng, n):
    if rng.random() < 0.3:  # a multiple of 1/n: many exact ties between lists
        return min(0.9, int(rng.integers(1, 4)) / n)
    return float(rng.choice(C_CHOICES))


def run(problem, c, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return corels.solve(problem, c, **kw)


def check_model(problem, c, model, cert):
    """The reported objective is the exact objective of the returned model."""
    score = rule_list_objective(model, problem, c)
    assert cert.objective == pytest.approx(score.objective, abs=1e-12)
    assert cert.stats["mistakes"] == score.mistakes
    assert cert.stats["n_rules"] == score.n_rules == model.n_rules
    assert cert.lower_bound <= cert.objective + cert.abs_tol
    assert cert.solver == "rulecert-corels"
    return score


def assert_optimal(problem, c, model, cert, best):
    _, m_opt, k_opt, obj_opt = best
    score = check_model(problem, c, model, cert)
    assert cert.termination is Termination.OPTIMAL
    assert cert.status is SolutionStatus.OPTIMAL and cert.proven_optimal
    if (score.mistakes, score.n_rules) != (m_opt, k_opt):
        # a different list with the same objective (a tie): equal up to float rounding only
        assert abs(score.objective - obj_opt) < 1e-12, (score, best)
    else:
        assert score.objective == obj_opt


# ---- brute force agreement ------------------------------------------------------------------
def test_reference_enumeration_matches_crosscheck_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(40):
        p = random_problem(rng, (5, 40), (1, 5))
        c = pick_c(rng, p.n_samples)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prefix, score = brute_force_rule_list(p, c)
        ref = brute_force_optimum(p, c)
        for pre, r in exhaustive(p, c).items():  # the quantities the bound tests rely on
            assert (r.prefix_mistakes, r.default_mistakes, r.minority_left) == prefix_stats_reference(p, pre)
        assert (ref[1], ref[2]) == (score.mistakes, score.n_rules) or abs(ref[3] - score.objective) < 1e-12
        assert ref[3] == pytest.approx(score.objective, abs=1e-12)


def test_agrees_with_brute_force_on_1024_random_instances_all_bound_combinations():
    """Every combination of the 7 bounds (each used 8 times) and every policy."""
    rng = np.random.default_rng(2018)
    for i in range(1024):
        p = random_problem(rng)
        c = pick_c(rng, p.n_samples)
        best = brute_force_optimum(p, c)
        bounds = ALL_COMBOS[i % len(ALL_COMBOS)]
        policy = POLICIES[(i // len(ALL_COMBOS) + i) % len(POLICIES)]
        model, cert = run(p, c, bounds=bounds, policy=policy)
        assert_optimal(p, c, model, cert, best)
        model, cert = run(p, c)  # all bounds, default policy
        assert_optimal(p, c, model, cert, best)


def test_samples_mode_kernel_agrees_with_brute_force(monkeypatch):
    """The search on one column per sample (used for >= 2**21 samples) gives the same optima."""
    from rulecert.search.corels import loop
    from rulecert.search.corels.data import build_kernel_data
    monkeypatch.setattr(loop, "build_kernel_data", lambda prob, check=None: build_kernel_data(prob, "samples", check))
    rng = np.random.default_rng(21)
    for i in range(200):
        p = random_problem(rng, (5, 150), (1, 7))
        c = pick_c(rng, p.n_samples)
        model, cert = run(p, c, bounds=ALL_COMBOS[(5 * i) % len(ALL_COMBOS)],
                          policy=POLICIES[i % len(POLICIES)])
        assert cert.stats["kernel_mode"] == "samples"
        assert_optimal(p, c, model, cert, brute_force_optimum(p, c))


def test_max_length_agrees_with_restricted_brute_force():
    rng = np.random.default_rng(11)
    for i in range(150):
        p = random_problem(rng, (10, 50), (2, 7))
        c = pick_c(rng, p.n_samples)
        L = int(rng.integers(0, 4))
        best = brute_force_optimum(p, c, max_length=L)
        model, cert = run(p, c, max_length=L, policy=POLICIES[i % len(POLICIES)],
                          bounds=ALL_COMBOS[(37 * i) % len(ALL_COMBOS)])
        assert model.n_rules <= L
        assert_optimal(p, c, model, cert, best)
        assert cert.stats["max_length"] == L
        if L < p.n_antecedents:
            # never claims the unrestricted optimum unless Theorem 4 shows L is not binding
            unrestricted = brute_force_optimum(p, c)
            if not cert.stats["max_length_binding"]:
                assert cert.objective == pytest.approx(unrestricted[3], abs=1e-12)
                assert "not binding" in cert.message
            else:
                assert "max_length" in cert.message and "may bind" in cert.message


def test_gain_bound_lookahead_agrees_with_brute_force():
    """With the lookahead (and so the gain bound) on and off, with and without max_length, the
    search certifies the brute-force optimum; stopped by a node limit, every recorded bound
    (the open queue's, from the stored gain bounds) is at most the optimum."""
    rng = np.random.default_rng(55)
    cut = stopped = 0
    for i in range(80):
        p = random_problem(rng, (10, 60), (2, 7))
        c = pick_c(rng, p.n_samples)
        L = None if i % 2 else int(rng.integers(1, 4))
        best = brute_force_optimum(p, c, max_length=L)
        for look in (True, False):
            model, cert = run(p, c, max_length=L, bounds=CorelsBounds(lookahead=look),
                              policy=POLICIES[i % len(POLICIES)])
            assert_optimal(p, c, model, cert, best)
            gain = cert.stats["pruned_gain"] + cert.stats["expansions_closed_by_gain"]
            cut += gain
            assert look or gain == 0
        model, cert = run(p, c, max_length=L, node_limit=int(rng.integers(1, 4)),
                          history_every=1e-9)
        check_model(p, c, model, cert)
        stopped += cert.termination is Termination.NODE_LIMIT
        for h in cert.history:
            assert h["lower_bound"] <= best[3] + 1e-12 <= h["objective"] + 2e-12
    assert cut > 15 and stopped > 10, (cut, stopped)


def test_max_length_not_binding_is_recognized():
    # large c: Theorem 4 caps every optimal list at floor(R/c) <= 1 rule
    rng = np.random.default_rng(5)
    p = random_problem(rng, (40, 41), (5, 6))
    _, cert = run(p, 0.3, max_length=1)
    assert cert.proven_optimal
    assert cert.stats["max_length_binding"] is False and cert.stats["optimal_unrestricted"]
    assert "not binding" in cert.message


def test_warm_start_recorded_and_optimum_unchanged():
    rng = np.random.default_rng(3)
    for _ in range(30):
        p = random_problem(rng, (10, 60), (2, 7))
        c = pick_c(rng, p.n_samples)
        best = brute_force_optimum(p, c)
        for init in (list(best[0]), [int(rng.integers(0, p.n_antecedents))]):
            model, cert = run(p, c, initial_prefix=init)
            recs = exhaustive(p, c)
            r = recs[tuple(init)]
            assert cert.warm_start_objective == pytest.approx(r.mistakes / p.n_samples + c * len(init), abs=1e-12)
            assert_optimal(p, c, model, cert, best)


def _medium_instance(seed, n=400, M=14):
    rng = np.random.default_rng(seed)
    A = rng.random((n, M)) < rng.uniform(0.1, 0.6, size=M)
    logits = A[:, :4] @ np.array([1.0, -1.5, 0.8, 1.2]) + rng.normal(0, 1.0, n)
    return RuleProblem.from_matrix(A, (logits > 0.3).astype(int))


@pytest.mark.parametrize("seed", range(3))
def test_medium_instances_every_configuration_agrees(seed):
    """Too large for brute force: every single bound off, random combinations and every policy
    certify the same optimum as the default run."""
    p = _medium_instance(seed)
    rng = np.random.default_rng(seed)
    for c in (0.005, 0.01, 0.03):
        ref_model, ref = run(p, c)
        assert ref.proven_optimal
        configs = [{"bounds": CorelsBounds().replace(**{o: False})} for o in BOUND_NAMES]
        configs += [{"policy": pol} for pol in POLICIES]
        for _ in range(6):
            flags = dict(zip(BOUND_NAMES, rng.random(len(BOUND_NAMES)) < 0.5))
            flags["lookahead"] = flags["permutation"] = True  # keeps the search small
            configs.append({"bounds": CorelsBounds(**flags), "policy": str(rng.choice(POLICIES))})
        for kw in configs:
            model, cert = run(p, c, time_limit=60, **kw)
            check_model(p, c, model, cert)
            assert cert.proven_optimal, kw
            assert cert.objective == pytest.approx(ref.objective, abs=1e-12), kw


# ---- limits -------------------------------------------------------------------------------
def _hard_instance(seed, n=300, M=7):
    rng = np.random.default_rng(seed)
    A = rng.random((n, M)) < rng.uniform(0.2, 0.6, size=M)
    logits = A[:, :3] @ np.array([1.0, -1.5, 0.8]) + rng.normal(0, 1.2, n)
    y = (logits > 0).astype(int)
    return RuleProblem.from_matrix(A, y)


@pytest.mark.parametrize("seed", range(6))
def test_node_limit_stop_is_feasible_with_valid_bound(seed):
    p = _hard_instance(seed)
    c = 0.002
    best = brute_force_optimum(p, c)
    stopped = 0
    for limit in (0, 1, 2, 3, 5, 10, 30):
        for policy in POLICIES:
            model, cert = run(p, c, node_limit=limit, policy=policy)
            check_model(p, c, model, cert)
            assert cert.nodes <= limit
            if cert.termination is Termination.NODE_LIMIT:
                stopped += 1
                assert cert.status is SolutionStatus.FEASIBLE and not cert.proven_optimal
                assert cert.lower_bound <= best[3] + 1e-12 <= cert.objective + 2e-12
                assert cert.lower_bound <= cert.objective
                assert cert.gap > 0
            else:
                assert cert.termination is Termination.OPTIMAL
                assert cert.objective == pytest.approx(best[3], abs=1e-12)
    assert stopped > 0


def test_node_limit_bounds_valid_for_all_bound_combinations():
    """Stopped anywhere, with any bounds and policy, the bound never exceeds the optimum."""
    rng = np.random.default_rng(99)
    stopped = 0
    for i in range(512):
        p = random_problem(rng, (20, 80), (3, 8))
        c = pick_c(rng, p.n_samples)
        best = brute_force_optimum(p, c)
        limit = int(rng.integers(0, 15))
        model, cert = run(p, c, node_limit=limit, bounds=ALL_COMBOS[i % len(ALL_COMBOS)],
                          policy=POLICIES[(i // 7) % len(POLICIES)], history_every=1e-9)
        check_model(p, c, model, cert)
        for h in cert.history:
            assert h["lower_bound"] <= best[3] + 1e-12 <= h["objective"] + 2e-12
        if cert.termination is Termination.NODE_LIMIT:
            stopped += 1
            assert cert.status is SolutionStatus.FEASIBLE and cert.nodes == limit
            assert cert.lower_bound <= best[3] + 1e-12 <= cert.objective + 2e-12
        else:
            assert_optimal(p, c, model, cert, best)
    assert stopped > 150


def test_time_limit_zero_and_callback_stop():
    p = _hard_instance(1)
    _, cert = run(p, 0.002, time_limit=0)
    assert cert.termination is Termination.TIME_LIMIT and cert.status is SolutionStatus.FEASIBLE
    calls = []

    def stop(info):
        calls.append(info)
        return True

    model, cert = run(p, 0.002, callback=stop, history_every=1e-9)
    assert calls and {"time", "objective", "lower_bound", "nodes_expanded", "prefix"} <= set(calls[0])
    assert cert.termination is Termination.INTERRUPTED and not cert.proven_optimal
    check_model(p, 0.002, model, cert)


def test_keyboard_interrupt_returns_incumbent():
    p = _hard_instance(2)

    def interrupt(info):
        raise KeyboardInterrupt

    model, cert = run(p, 0.002, callback=interrupt, history_every=1e-9)
    assert cert.termination is Termination.INTERRUPTED
    assert "KeyboardInterrupt" in cert.message
    check_model(p, 0.002, model, cert)


def test_memory_limit_stops_cleanly():
    p = _hard_instance(3)
    model, cert = run(p, 0.002, memory_limit_mb=1)  # below the interpreter's own footprint
    assert cert.termination is Termination.MEMORY_LIMIT and cert.status is SolutionStatus.FEASIBLE
    check_model(p, 0.002, model, cert)


def test_history_and_logging(caplog, capsys):
    p = _hard_instance(4)
    with caplog.at_level(logging.INFO, logger="rulecert.corels"):
        model, cert = run(p, 0.002)
    assert cert.proven_optimal
    assert capsys.readouterr().out == ""  # no printing
    assert any("incumbent" in r.message for r in caplog.records)
    events = [h["event"] for h in cert.history]
    assert events[0] == "start" and events[-1] == "end" and "incumbent" in events
    for h in cert.history:
        assert {"time", "objective", "lower_bound", "queue_size", "queue_by_length"} <= set(h)
        assert h["lower_bound"] <= h["objective"] + 1e-12
    objs = [h["objective"] for h in cert.history]
    assert objs == sorted(objs, reverse=True)
    s = cert.stats
    for k in ("nodes_expanded", "trie_insertions", "map_insertions", "max_queue_size", "gc_runs"):
        assert isinstance(s[k], int)
    assert s["nodes_expanded"] == cert.nodes > 0


# ---- edge cases and bad input ---------------------------------------------------------------
def test_empty_antecedent_set_is_default_rule_certified():
    p = RuleProblem(np.zeros((0, 1), dtype=np.uint64), [0, 1, 1], [])
    model, cert = run(p, 0.01)
    assert model.n_rules == 0 and model.default == 1
    assert cert.proven_optimal and cert.termination is Termination.OPTIMAL
    assert cert.objective == pytest.approx(1 / 3)


def test_max_length_zero():
    p = _hard_instance(0)
    model, cert = run(p, 0.002, max_length=0)
    assert model.n_rules == 0 and cert.proven_optimal and cert.stats["max_length_binding"]


def _ok_problem():
    return RuleProblem.from_matrix(np.array([[1, 0], [0, 1], [1, 1], [0, 0]]), [0, 1, 1, 0])


@pytest.mark.parametrize("kwargs, match", [
    ({"c": -0.1}, "c must be in"), ({"c": 1.0}, "c must be in"), ({"c": float("nan")}, "c must be in"),
    ({"policy": "best_first"}, "policy must be one of"),
    ({"max_length": -1}, "max_length"), ({"max_length": 1.5}, "max_length"),
    ({"node_limit": -3}, "node_limit"), ({"time_limit": -1}, "time_limit"),
    ({"memory_limit_mb": 0}, "memory_limit_mb"),
    ({"bounds": {"support": False}}, "CorelsBounds"),
    ({"initial_prefix": [5]}, "out of range"),
    ({"initial_prefix": [0, 0]}, "repeats"),
    ({"initial_prefix": [0, 1], "max_length": 1}, "more than max_length"),
    ({"callback": 3}, "callback"), ({"history_every": 0}, "history_every"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        corels.solve(_ok_problem(), **{"c": 0.3, **kwargs})


def test_bad_bounds_flag():
    with pytest.raises(ValueError, match="True or False"):
        CorelsBounds(support="yes")


def test_one_class_and_weighted_rejected():
    with pytest.raises(ValueError, match="one class"):
        corels.solve(RuleProblem.from_matrix(np.array([[1], [0]]), [1, 1]), 0.1)
    weighted = RuleProblem.from_matrix(np.array([[1], [0], [1]]), [1, 0, 0], sample_weight=[1.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="sample weights"):
        corels.solve(weighted, 0.1)
    with pytest.raises(ValueError, match="RuleProblem"):
        corels.solve(np.zeros((3, 3)), 0.1)


def test_small_c_warns():
    with pytest.warns(UserWarning, match="below 1/n"):
        corels.solve(_ok_problem(), 0.1)  # 1/n = 0.25


# ---- COMPAS (reference C++ CORELS optima) -----------------------------------------------------
@pytest.fixture(scope="module")
def compas(compas_stem):
    return read_corels(compas_stem)


def _compas_check(compas, c, mistakes, rules, objective, **kw):
    model, cert = corels.solve(compas, c, **kw)
    score = check_model(compas, c, model, cert)
    assert cert.termination is Termination.OPTIMAL and cert.proven_optimal
    assert (score.mistakes, score.n_rules) == (mistakes, rules)
    assert cert.objective == pytest.approx(objective, abs=5e-11)
    return model, cert


def test_compas_c002(compas):
    _compas_check(compas, 0.02, 2365, 1, 0.3844629373)


def test_compas_c001(compas):
    _, cert = _compas_check(compas, 0.01, 2258, 2, 0.3679734936)
    assert cert.stats["kernel_mode"] == "groups"


@pytest.mark.slow
def test_compas_c0005(compas):
    _compas_check(compas, 0.005, 2129, 4, 0.3480936970)


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["bfs", "dfs", "objective", "curiosity"])
def test_compas_policies_c001(compas, policy):
    _compas_check(compas, 0.01, 2258, 2, 0.3679734936, policy=policy)


@pytest.mark.slow
@pytest.mark.parametrize("off", [b for b in BOUND_NAMES if b != "equivalent_points"])
def test_compas_each_bound_off_c002(compas, off):
    _compas_check(compas, 0.02, 2365, 1, 0.3844629373, bounds=CorelsBounds().replace(**{off: False}))


@pytest.mark.slow
def test_compas_equivalent_points_off_on_40_antecedents(compas):
    # without Theorem 20 the full COMPAS search does not fit in memory (2,063 of the 2,365
    # mistakes are equivalent-point minorities); the first 40 antecedents take about a second
    sub = compas.subset(range(40))
    _compas_check(sub, 0.02, 2365, 1, 0.3844629373, bounds=CorelsBounds(equivalent_points=False))


def test_compas_node_limit(compas):
    model, cert = corels.solve(compas, 0.005, node_limit=2000)
    check_model(compas, 0.005, model, cert)
    assert cert.termination is Termination.NODE_LIMIT and cert.status is SolutionStatus.FEASIBLE
    assert cert.nodes == 2000
    assert cert.lower_bound <= 0.3480936970 <= cert.objective + 1e-12


@pytest.fixture(scope="module")
def compas_mined(compas_stem):
    """The 362 antecedents the reference Python binding mines from compas_train-binary.csv."""
    from rulecert.mining import mine_antecedents
    path = compas_stem.parent / "compas_train-binary.csv"
    with open(path) as fh:
        header = fh.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64)
    ants = mine_antecedents(data[:, :-1], header[:-1], max_card=2, min_support=0.005,
                            negations=True, merge_identical=False)
    assert len(ants) == 362
    return ants.to_problem(data[:, -1])


@pytest.mark.parametrize("c, mistakes, rules, objective", [
    (0.02, 2269, 1, 0.3696686701), (0.01, 2129, 3, 0.3580936970),
    pytest.param(0.005, 2129, 3, 0.3430936970, marks=pytest.mark.slow)])
def test_compas_362_mined_antecedents(compas_mined, c, mistakes, rules, objective):
    _compas_check(compas_mined, c, mistakes, rules, objective)
