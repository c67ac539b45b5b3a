"""The Rashomon set of rule lists against brute force, the MIP and CP-SAT (issue 17)."""
import math
import warnings

import numpy as np
import pytest

from rulecert.models import RashomonSet, rule_list_from_prefix, rule_list_objective
from rulecert.models.rashomon import antecedent_features
from rulecert.problem import RuleProblem
from rulecert.reference import exhaustive
from rulecert.search.corels import rashomon_set
from rulecert.search.corels.rashomon import POLICIES

# tiny random instances often have c below 1/n, which rulecert warns about
pytestmark = pytest.mark.filterwarnings("ignore:c=.* is below 1/n")


def _random_problem(rng, n_max=30, m_max=5):
    while True:
        n = int(rng.integers(6, n_max))
        M = int(rng.integers(1, m_max + 1))
        X = (rng.random((n, M)) < rng.uniform(0.2, 0.7)).astype(np.uint8)
        y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(int)
        if 0 < y.sum() < n:
            return RuleProblem.from_matrix(X, y)


def _brute_force(P, c, threshold, min_capture, max_length=None):
    """Every prefix (CORELS labels) with objective <= threshold, as {prefix: objective}."""
    out = {}
    for prefix in exhaustive(P, c, max_length=max_length):
        counts = P.capture_counts(prefix)
        if any(q[1][0] + q[1][1] < min_capture for q in counts[:-1]):
            continue
        obj = rule_list_objective(rule_list_from_prefix(P, prefix), P, c).objective
        if obj <= threshold + 1e-12 * max(1.0, threshold):
            out[prefix] = obj
    return out


def test_the_set_equals_brute_force_on_300_tiny_instances():
    rng = np.random.default_rng(2026)
    checked = nonempty_beyond_optimum = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # c below 1/n on some instances
        for i in range(300):
            P = _random_problem(rng)
            c = float(rng.choice([0.0, 0.01, 0.05, 0.1]))
            eps = float(rng.choice([0.0, 0.05, 0.2]))
            min_capture = int(rng.choice([0, 1, 2]))
            policy = POLICIES[i % 3]
            L = (None, None, 2, 3)[i % 4]      # a length cap clips the gain bound's tails
            rs = rashomon_set(P, c, epsilon=eps, min_capture=min_capture, policy=policy,
                              max_length=L)
            truth = _brute_force(P, c, rs.threshold, min_capture, max_length=L)
            assert rs.certificate.complete
            assert sorted(rs.prefixes) == sorted(truth), (i, c, eps, min_capture, policy, L)
            for p, o in zip(rs.prefixes, rs.objectives):
                assert o == pytest.approx(truth[p], abs=1e-12)
            assert list(rs.objectives) == sorted(rs.objectives)
            checked += 1
            nonempty_beyond_optimum += len(rs) > 1
    assert checked == 300 and nonempty_beyond_optimum > 30


def _prefix_state(run, prefix):
    """(U, b, mistakes, deficit) of ``prefix`` in ``run``'s group arithmetic, computed rule by
    rule from the capture patterns (independently of the search)."""
    U = np.ones(run.A.shape[1], dtype=bool)
    b = mistakes = deficit = 0.0
    for a in prefix:
        taken = U & run.capt[a]
        pos, tot, mn = run.stats[:, taken].sum(axis=1)
        mist = min(pos, tot - pos)
        b += run.Cs + mist
        mistakes += mist
        deficit += max(0.0, run.Cs - (tot - mist) + mn)
        U &= ~taken
    return U, b, mistakes, deficit


def test_extension_bounds_never_exceed_the_brute_force_minimum():
    """Every prefix of tiny instances (lists up to length L enumerated exhaustively): the
    bound on its strict extensions (gain bound included, from its exact counts) and the bound
    each child gets from the parent's counts are at most the least objective over the strict
    extensions; and they are attained often enough that the test can fail."""
    from rulecert.limits import Deadline
    from rulecert.monitor import Monitor
    from rulecert.reference.rulelist import exhaustive
    from rulecert.search.corels.rashomon import _Enumeration
    rng = np.random.default_rng(55)
    checked = tight = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(24):
            P = _random_problem(rng, n_max=40, m_max=5)
            c = float(rng.choice([0.0, 0.02, 0.05, 0.1]))
            L = [None, 2, 3][i % 3]
            recs = exhaustive(P, c, max_length=L)
            N = P.n_samples
            opt = min(r.scaled_objective for r in recs.values()) / N
            run = _Enumeration(P, c, 10.0, opt, L, 0, "bfs", Monitor("t", deadline=Deadline(None)),
                               opt)
            assert run.L == (P.n_antecedents if L is None else min(L, P.n_antecedents))
            for prefix, rec in recs.items():
                if len(prefix) >= run.L:
                    continue
                U, b, mistakes, deficit = _prefix_state(run, prefix)
                assert b == pytest.approx(rec.prefix_mistakes + run.Cs * len(prefix))
                counts = run.A @ (run.stats * U).T
                left = run.stats @ U
                bound = run._extension_bound(prefix, b, deficit, left, counts)
                assert bound <= rec.extension_min + 1e-9, (i, prefix)
                tight += bound >= rec.extension_min - 1e-9
                if len(prefix) + 1 >= run.L:
                    continue
                cand = np.array([a for a in range(P.n_antecedents) if a not in prefix])
                new = counts[cand]
                mist = np.minimum(new[:, 0], new[:, 1] - new[:, 0])
                deficit_child = deficit + np.maximum(0.0, run.Cs - (new[:, 1] - mist) + new[:, 2])
                deeper = run._children_bounds(prefix, cand, b + run.Cs + mist, deficit_child,
                                              tuple(left[k] - new[:, k] for k in range(3)), counts)
                for a, d in zip(cand, deeper):
                    assert d <= recs[prefix + (int(a),)].extension_min + 1e-9, (i, prefix, a)
                checked += 1
    assert checked > 200 and tight > 50


def test_policies_expand_the_same_prefixes_on_tiny_instances(monkeypatch):
    """A prefix is expanded when its parent's bound keeps it, whatever the order: without its
    memo the compiled search and the reference agree prefix count for prefix count; with it
    the compiled search expands no more and lists the same."""
    from rulecert.search.corels import rashomon
    rng = np.random.default_rng(56)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(12):
            P = _random_problem(rng, n_max=40, m_max=6)
            c = float(rng.choice([0.01, 0.02, 0.05]))
            eps = float(rng.choice([0.05, 0.2, 0.5]))
            memo = rashomon_set(P, c, epsilon=eps)
            monkeypatch.setattr(rashomon, "MEMO_BYTES", 0)
            sets = [rashomon_set(P, c, epsilon=eps, policy=pol) for pol in POLICIES]
            monkeypatch.undo()
            assert len({s.certificate.nodes for s in sets}) == 1
            assert memo.certificate.nodes <= sets[0].certificate.nodes
            assert memo.prefixes == sets[0].prefixes == sets[1].prefixes == sets[2].prefixes


def test_the_memo_keeps_the_set_exact_with_a_full_or_colliding_table(monkeypatch):
    """The depth-first search's memo (what lies below a prefix depends on the order of its
    rules only through b and the deficit) cuts later orderings of the same rules: the set
    equals brute force with the default table and with a table of two rows, where every key
    lands on the same two slots (collisions, evictions at every store); and the memo cuts."""
    from rulecert.search.corels import rashomon
    rng = np.random.default_rng(57)
    nodes = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(16):
            P = _random_problem(rng, n_max=50, m_max=7)
            c = float(rng.choice([0.0, 0.01, 0.02]))
            eps = float(rng.choice([0.1, 0.3, 0.6]))
            min_capture = int(rng.choice([0, 1]))
            L = (3, 4)[i % 2]   # several orderings of one set reach the last depths
            truth = None
            for name, size in (("off", 0), ("two rows", 2 * (8 * 2 + 16)),
                               ("default", rashomon.MEMO_BYTES)):
                monkeypatch.setattr(rashomon, "MEMO_BYTES", size)
                rs = rashomon_set(P, c, epsilon=eps, min_capture=min_capture, max_length=L)
                if truth is None:
                    truth = _brute_force(P, c, rs.threshold, min_capture, max_length=L)
                assert rs.certificate.complete
                assert sorted(rs.prefixes) == sorted(truth), (i, name)
                nodes[name] = nodes.get(name, 0) + rs.certificate.nodes
    assert nodes["default"] < nodes["off"] and nodes["two rows"] <= nodes["off"]


def test_threshold_equal_to_the_optimum_gives_the_optimal_lists():
    rng = np.random.default_rng(5)
    for _ in range(50):
        P = _random_problem(rng)
        rs = rashomon_set(P, 0.05, epsilon=0.0)
        opt = rs.certificate.optimum
        truth = _brute_force(P, 0.05, opt, 1)
        assert sorted(rs.prefixes) == sorted(truth) and len(rs) >= 1
        assert all(o == pytest.approx(opt, abs=1e-12) for o in rs.objectives)


def test_limit_stopped_enumeration_is_a_subset_with_a_valid_bound():
    rng = np.random.default_rng(11)
    stopped = 0
    for _ in range(60):
        P = _random_problem(rng, n_max=40, m_max=6)
        full = rashomon_set(P, 0.01, epsilon=0.5, max_models=None)
        for policy in POLICIES:
            part = rashomon_set(P, 0.01, epsilon=0.5, node_limit=3, policy=policy)
            assert set(part.prefixes) <= set(full.prefixes)
            if part.certificate.complete:
                assert set(part.prefixes) == set(full.prefixes)
                continue
            stopped += 1
            missing = set(full.prefixes) - set(part.prefixes)
            obj = dict(zip(full.prefixes, full.objectives))
            assert all(obj[p] >= part.certificate.missing_lower_bound - 1e-12 for p in missing)
            assert part.certificate.termination == "node_limit"
    assert stopped > 20


def test_max_models_stops_cleanly_with_the_count():
    rng = np.random.default_rng(3)
    X = (rng.random((40, 5)) < 0.4).astype(np.uint8)
    P = RuleProblem.from_matrix(X, (rng.random(40) < 0.5).astype(int))
    full = rashomon_set(P, 0.01, threshold=1.0, max_models=None, min_capture=0)
    assert len(full) > 20
    part = rashomon_set(P, 0.01, threshold=1.0, max_models=5, min_capture=0)
    assert part.certificate.termination == "model_limit" and not part.certificate.complete
    assert 5 <= len(part) < len(full) and part.certificate.n_found == len(part)
    assert set(part.prefixes) <= set(full.prefixes)


@pytest.mark.parametrize("policy", POLICIES)
def test_memory_cap_stops_cleanly_with_a_valid_bound(policy):
    rng = np.random.default_rng(12)
    X = (rng.random((60, 6)) < 0.4).astype(np.uint8)
    P = RuleProblem.from_matrix(X, (rng.random(60) < 0.5).astype(int))
    full = rashomon_set(P, 0.01, threshold=1.0, max_models=None, min_capture=0, policy=policy)
    # a cap below what the process already holds: the first memory check stops the run
    part = rashomon_set(P, 0.01, threshold=1.0, max_models=None, min_capture=0, policy=policy,
                        memory_limit_mb=1.0)
    assert part.certificate.termination == "memory_limit" and not part.certificate.complete
    assert "memory_limit_mb" in part.certificate.message
    assert set(part.prefixes) < set(full.prefixes)
    obj = dict(zip(full.prefixes, full.objectives))
    missing = set(full.prefixes) - set(part.prefixes)
    assert all(obj[p] >= part.certificate.missing_lower_bound - 1e-12 for p in missing)


def test_threshold_below_the_optimum_is_an_empty_set_not_an_error():
    P = _random_problem(np.random.default_rng(1))
    rs = rashomon_set(P, 0.01, threshold=-1.0)
    assert len(rs) == 0 and rs.certificate.complete
    assert "below the optimum" in rs.certificate.message


@pytest.mark.parametrize("kwargs,match", [
    (dict(epsilon=-0.1), "epsilon must be"),
    (dict(epsilon=float("nan")), "epsilon must be"),
    (dict(), "exactly one of epsilon"),
    (dict(epsilon=0.1, threshold=0.5), "exactly one of epsilon"),
    (dict(epsilon=0.1, policy="random"), "policy must be one of"),
    (dict(epsilon=0.1, max_models=0), "max_models"),
    (dict(epsilon=0.1, min_capture=-1), "min_capture"),
    (dict(epsilon=0.1, memory_limit_mb=0), "memory_limit_mb"),
])
def test_bad_input(kwargs, match):
    P = _random_problem(np.random.default_rng(2))
    with pytest.raises(ValueError, match=match):
        rashomon_set(P, 0.01, **kwargs)


def test_policies_give_the_same_lists_on_compas_antecedents(compas_stem):
    from rulecert.mining import read_corels
    P = read_corels(str(compas_stem)).subset(range(40))
    sets = [rashomon_set(P, 0.01, epsilon=0.01, policy=pol) for pol in POLICIES]
    assert all(s.certificate.complete for s in sets)
    assert sets[0].prefixes == sets[1].prefixes == sets[2].prefixes and len(sets[0]) > 1
    np.testing.assert_array_equal(sets[0].objectives, sets[2].objectives)


def _direct_predictions(rs: RashomonSet, P):
    dense = P.dense()
    out = []
    for p in rs.prefixes:
        rl = rule_list_from_prefix(P, p)
        out.append(rl.predict_captures(dense[:, list(p)]) if p else np.full(P.n_samples, rl.default))
    return np.array(out)


def test_multiplicity_usage_and_reliance_against_direct_computation():
    rng = np.random.default_rng(8)
    for _ in range(20):
        P = _random_problem(rng, n_max=40, m_max=5)
        rs = rashomon_set(P, 0.02, epsilon=0.3)
        pred = _direct_predictions(rs, P)
        np.testing.assert_array_equal(rs.predictions(P), pred)
        m = rs.multiplicity(P)
        diff = pred != pred[0]
        assert m["ambiguity"] == pytest.approx(diff.any(axis=0).mean())
        assert m["discrepancy"] == pytest.approx(diff.mean(axis=1).max())
        assert m["n_distinct_predictions"] == len({tuple(r) for r in pred})
        use = rs.antecedent_usage()
        for a in range(P.n_antecedents):
            assert use[a] == pytest.approx(np.mean([a in p for p in rs.prefixes]))
        # model reliance: permute the samples of one feature's antecedents, learned labels kept
        perm = np.random.default_rng(0).permutation(P.n_samples)
        rel = rs.model_reliance(P, seed=0)
        dense = P.dense()
        y = np.asarray(P.y)
        for f, (lo, hi) in rel.items():
            a = P.antecedent_names.index(f)
            dp = dense.copy()
            dp[:, a] = dense[perm, a]
            drops = []
            for p in rs.prefixes:
                rl = rule_list_from_prefix(P, p)
                base = (rl.predict_captures(dense[:, list(p)]) if p else np.full(P.n_samples, rl.default))
                new = (rl.predict_captures(dp[:, list(p)]) if p else base)
                drops.append((base == y).mean() - (new == y).mean())
            assert (lo, hi) == pytest.approx((min(drops), max(drops)))


def test_antecedent_features_from_names():
    assert antecedent_features("sex:Male,juvenile-crimes:>0") == ["sex", "juvenile-crimes"]
    assert antecedent_features("{priors:>3}") == ["priors"]
    assert antecedent_features("age<=30 && not smoker") == ["age", "smoker"]
    assert antecedent_features("glucose > 120.5") == ["glucose"]


def test_mip_discrepancy_and_cpsat_count_equal_the_enumeration():
    from rulecert.mipmodels.rashomon import count_rule_lists, max_discrepancy
    rng = np.random.default_rng(3)
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while checked < 12:
            P = _random_problem(rng, n_max=30, m_max=4)
            c = float(rng.choice([0.02, 0.05]))
            K = min(3, P.n_antecedents)
            rs = rashomon_set(P, c, epsilon=float(rng.choice([0.0, 0.1, 0.3])), max_length=K)
            disc = rs.multiplicity(P)["discrepancy"]
            for backend in ("highs", "cpsat"):
                d = max_discrepancy(P, c, rs.threshold, rs.prefixes[0], max_rules=K, backend=backend)
                assert d.proven and d.discrepancy == pytest.approx(disc, abs=1e-12)
                assert d.prefix in set(rs.prefixes)
            count, complete = count_rule_lists(P, c, rs.threshold, max_rules=K)
            assert complete and count == len(rs)
            checked += 1


def test_estimator_and_cli(tmp_path, capsys):
    import json
    import pandas as pd
    from rulecert.cli import main
    from rulecert.estimators import CorelsClassifier
    rng = np.random.default_rng(4)
    X = pd.DataFrame((rng.random((200, 5)) < 0.4).astype(np.int8),
                     columns=["smoker", "age_over_60", "male", "diabetic", "active"])
    y = ((X.smoker | X.diabetic).to_numpy() ^ (rng.random(200) < 0.1)).astype(int)
    est = CorelsClassifier(c=0.01, max_card=1).fit(X, y)
    rs = est.rashomon_set(0.05)
    assert rs.certificate.complete and len(rs) >= 1
    assert rs.certificate.optimum == pytest.approx(est.certificate_.objective)
    assert set(rs.feature_usage()) <= set(X.columns) | {f"not {c}" for c in X.columns}
    csv = tmp_path / "d.csv"
    X.assign(y=y).to_csv(csv, index=False)
    assert main(["rashomon", "--data", str(csv), "--c", "0.01", "--epsilon", "0.05",
                 "--max-card", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # the command mines the same antecedents as the estimator (binary columns, max_card 1)
    assert out["certificate"]["complete"] and out["certificate"]["n_found"] == len(rs)
    assert math.isclose(out["multiplicity"]["discrepancy"], rs.multiplicity(est.problem_)["discrepancy"])


def test_an_enumeration_whose_tables_pass_the_memory_cap_does_not_start(monkeypatch):
    """Its tables (groups x antecedents) are checked against the cap before they are made:
    200,000 groups x 12,000 antecedents needed 19 GB at once.  The set is empty, stopped by
    memory_limit, with the optimum's bound for every missing list."""
    import rulecert.search.corels.rashomon as R
    P = _random_problem(np.random.default_rng(11))
    monkeypatch.setattr(R, "_TABLE_BYTES", 2.0**60)
    rs = rashomon_set(P, 0.02, epsilon=0.2, memory_limit_mb=10**6)
    cert = rs.certificate
    assert cert.termination == "memory_limit" and not cert.complete and len(rs) == 0
    assert cert.missing_lower_bound == cert.optimum_certificate.lower_bound
    assert "nothing was enumerated" in cert.message and cert.nodes == 0

