"""Each CORELS pruning rule against brute force over the subtree it prunes; kernel vs numpy."""

import numpy as np
import pytest

from rulecert import RuleProblem, bits
from rulecert.mining import read_corels
from rulecert.search.corels import bounds as B
from rulecert.search.corels import kernel as K
from rulecert.search.corels.data import build_kernel_data
from rulecert.reference.rulelist import exhaustive

EPS = 1e-9  # scaled objective units (mistakes); distinct values in these tests differ by >= 0.01


def tiny_problem(rng, n_range=(6, 50), m_range=(2, 6)):
    n = int(rng.integers(*n_range))
    M = int(rng.integers(*m_range))
    A = rng.random((n, M)) < rng.uniform(0.05, 0.8, size=M)
    for j in range(1, M):
        r = rng.random()
        k = int(rng.integers(0, j))
        if r < 0.15:
            A[:, j] = A[:, k] | A[:, j]
        elif r < 0.3:
            A[:, j] = A[:, k] & A[:, j]
    y = rng.random(n) < rng.uniform(0.25, 0.75)
    if y.all() or not y.any():
        y[0] = not y[0]
    return RuleProblem.from_matrix(A, y.astype(int))


def instances(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        p = tiny_problem(rng)
        n = p.n_samples
        c = float(rng.choice([0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 1.0 / n, 2.0 / n]))
        recs = exhaustive(p, c)
        yield p, c, c * n, recs


def incumbents(recs, rng, k=6):
    """Plausible incumbent values R (scaled): the optimum and objectives of random lists."""
    vals = sorted(r.scaled_objective for r in recs.values())
    pick = [vals[0]] + [vals[int(i)] for i in rng.integers(0, len(vals), size=k)]
    return pick


def test_support_bounds_theorems_10_11():
    checked = [0, 0]
    for p, c, C, recs in instances(1, 150):
        opt = min(r.scaled_objective for r in recs.values())
        for pre, r in recs.items():
            if not pre:
                continue
            if B.support_prunes(r.last_captured, C):
                checked[0] += 1
                assert r.subtree_min > opt + EPS, (pre, c)  # no optimal list starts with pre
            if B.accurate_support_prunes(r.last_correct, C):
                checked[1] += 1
                assert r.subtree_min > opt + EPS, (pre, c)
    assert min(checked) > 100


def test_hierarchical_lookahead_equivalent_points_prefix_length():
    rng = np.random.default_rng(2)
    checked = dict.fromkeys(["hier", "eq", "look", "look_eq", "plen", "kmax"], 0)
    for p, c, C, recs in instances(2, 150):
        M = p.n_antecedents
        for R in incumbents(recs, rng):
            k_max = B.max_prefix_length(R, C, M)
            # Theorem 4: every list with objective <= R has at most k_max rules
            assert all(r.depth <= k_max for r in recs.values() if r.scaled_objective <= R + EPS)
            checked["kmax"] += 1
            for pre, r in recs.items():
                b = B.hierarchical_lower_bound(r.prefix_mistakes, r.depth, C)
                b0 = r.minority_left
                if B.subtree_prunes(b, R):  # Theorem 1
                    checked["hier"] += 1
                    assert r.subtree_min >= R - EPS
                if B.subtree_prunes(b + b0, R):  # Theorem 20
                    checked["eq"] += 1
                    assert r.subtree_min >= R - EPS
                assert r.subtree_min >= b + b0 - EPS
                if B.lookahead_prunes(b, C, R):  # Lemma 2
                    checked["look"] += 1
                    assert r.extension_min >= R - EPS
                if B.lookahead_prunes(b + b0, C, R):  # Lemma 2 with Theorem 20
                    checked["look_eq"] += 1
                    assert r.extension_min >= R - EPS
                if B.prefix_length_prunes_children(r.depth, b, R, C, k_max):  # Theorems 4, 6
                    checked["plen"] += 1
                    assert r.extension_min >= R - EPS
    assert min(checked.values()) > 50, checked


def test_permutation_bound_corollary_16():
    checked = 0
    for p, c, C, recs in instances(3, 150):
        by_set = {}
        for pre, r in recs.items():
            by_set.setdefault(frozenset(pre), []).append(r)
        for group in by_set.values():
            for r1 in group:
                for r2 in group:
                    if r1 is not r2 and B.permutation_dominated(r2.prefix_mistakes, r1.prefix_mistakes):
                        checked += 1
                        assert r1.subtree_min <= r2.subtree_min + EPS
    assert checked > 1000


def _uncaptured(p, prefix):
    u = p.all.copy()
    for a in prefix:
        u &= ~p.captures[a]
    return u.tobytes()


@pytest.mark.parametrize("capped", [False, True])
def test_equivalent_support_theorem_15(capped):
    """Prefixes that leave the same samples uncaptured (any antecedent sets, any lengths): a
    strict extension of the one the verdict drops is never better than the best strict extension
    of the one it keeps (within ``max_length`` when capped) or than the dropped prefix itself
    (whose objective the search has evaluated: an extension by antecedents of the kept prefix
    captures nothing more and only adds rules).  Equal lengths compare integer mistakes."""
    rng = np.random.default_rng(15 + capped)
    checked = {"drop new": 0, "drop kept": 0, "other sets": 0, "keep both": 0}
    for _ in range(60):
        p = tiny_problem(rng, (6, 30))
        M, n = p.n_antecedents, p.n_samples
        c = float(rng.choice([0.0, 0.01, 0.02, 0.05, 0.1, 1.0 / n, 2.0 / n]))
        L = int(rng.integers(1, M + 1)) if capped else None
        recs = exhaustive(p, c, max_length=L)
        any_length = L is None or L >= M
        by_u = {}
        for pre, r in recs.items():
            by_u.setdefault(_uncaptured(p, pre), []).append(r)
        for group in by_u.values():
            if len(group) > 20:     # pairs of a sample keep the test fast
                group = [group[i] for i in rng.choice(len(group), 20, replace=False)]
            for new in group:
                for kept in group:
                    if new is kept:
                        continue
                    v = B.equivalent_support_verdict(new.prefix_mistakes, new.depth,
                                                     kept.prefix_mistakes, kept.depth, c * n,
                                                     any_length)
                    if v == 1:
                        checked["drop new"] += 1
                        assert (min(kept.extension_min, new.scaled_objective)
                                <= new.extension_min + EPS), (new, kept)
                    elif v == -1:
                        checked["drop kept"] += 1
                        assert (min(new.extension_min, kept.scaled_objective)
                                <= kept.extension_min + EPS), (new, kept)
                    else:
                        checked["keep both"] += 1
                        assert not any_length and new.depth != kept.depth
                    if v != 0 and set(new.prefix) != set(kept.prefix):
                        checked["other sets"] += 1
                    if new.depth == kept.depth:
                        assert v == (1 if new.prefix_mistakes >= kept.prefix_mistakes else -1)
    assert min(checked["drop new"], checked["drop kept"], checked["other sets"]) > 1000, checked
    assert (checked["keep both"] > 50) if capped else (checked["keep both"] == 0), checked


def test_paper_theorem6_floor_form_is_not_used():
    """JMLR eq. (11) with floor and a strict inequality would cut a child with b + C < R when
    (R - b) / C is not an integer; our one-step form keeps it."""
    C, b, R = 1.0, 0.0, 1.5
    assert not B.prefix_length_prunes_children(0, b, R, C, B.max_prefix_length(R, C, 10))


def test_labels_ties_predict_one():
    assert B.rule_correct(3, 3) == 3 and B.default_mistakes(3, 3) == 3
    assert B.default_mistakes(5, 2) == 2 and B.default_mistakes(2, 5) == 2


# ---- kernel counts vs the numpy reference ---------------------------------------------------
def _compare_counts(p, rng, trials=20):
    for mode in ("groups", "samples"):
        kd = build_kernel_data(p, mode)
        for _ in range(trials):
            L = int(rng.integers(0, min(4, p.n_antecedents) + 1))
            prefix = rng.permutation(p.n_antecedents)[:L].astype(np.int32)
            ref = B.child_counts_reference(p, prefix)
            pos, neg, mnr, pu, nu, mu = K.child_counts(kd.capg, kd.tables, kd.upos, kd.umin,
                                                       kd.allcols, kd.n_heavy_words, kd.has_umin,
                                                       prefix)
            assert (pos == ref["pos"]).all() and (neg == ref["neg"]).all()
            assert (mnr == ref["minority"]).all()
            assert (pu, nu, mu) == (ref["pos_u"], ref["neg_u"], ref["min_u"])


@pytest.mark.parametrize("n, M", [(50, 3), (700, 8), (3000, 13), (130, 40)])
def test_kernel_counts_match_numpy_reference(n, M):
    rng = np.random.default_rng(n + M)
    A = rng.random((n, M)) < rng.uniform(0.1, 0.9, size=M)
    y = (rng.random(n) < 0.4).astype(int)
    p = RuleProblem.from_matrix(A, y)
    kd = build_kernel_data(p)
    assert kd.n_minority == bits.count(p.minority)
    _compare_counts(p, rng)


def test_kernel_counts_match_on_compas(compas_stem):
    p = read_corels(compas_stem)
    kd = build_kernel_data(p)
    assert kd.mode == "groups" and kd.n_words < p.n_words
    _compare_counts(p, np.random.default_rng(0), trials=30)


def test_heap_orders_by_key_then_id():
    """Entries order like (key, id), (key, -id) for dfs; keys (float32-rounded) of either sign."""
    rng = np.random.default_rng(0)
    for lifo in (False, True):
        keys = rng.integers(-4, 5, size=300).astype(float) * 1.5 + rng.choice([0.0, np.inf], 300, p=[0.95, 0.05])
        heap = np.empty(300, np.uint64)
        size = 0
        for i, k in enumerate(keys):
            size = K.heap_push(heap, size, np.uint64(K.heap_entry(k, i, lifo)))
        out = []
        while size:
            e, size = K.heap_pop(heap, size)
            out.append(K.heap_id(np.uint64(e), lifo))
        expect = sorted(range(300), key=lambda i: (keys[i], -i if lifo else i))
        assert out == expect
    big = 2**31 - 2
    assert K.heap_id(np.uint64(K.heap_entry(0.0, big, True)), True) == big
    assert K.heap_id(np.uint64(K.heap_entry(0.0, big, False)), False) == big


# ---- the gain bound (the lookahead's count of what later rules can fix) ------------------------
@pytest.mark.parametrize("capped", [False, True])
def test_gain_bound_never_exceeds_the_best_strict_extension(capped):
    """For every prefix, the gain bound from its exact counts (``gain_bound``), and for every
    child the bound from the parent's counts (``child_gain_bound``), are at most the best
    objective of any strict extension (within ``max_length`` when capped); the whole samples
    stored for the child keep its lower bound at most its own objective."""
    rng = np.random.default_rng(55 + capped)
    checked = {"parent": 0, "child": 0, "stronger than Lemma 2": 0}
    for _ in range(40):
        p = tiny_problem(rng, (6, 40))
        M, n = p.n_antecedents, p.n_samples
        c = float(rng.choice([0.0, 0.01, 0.02, 0.05, 1.0 / n, 2.0 / n]))
        C = c * n
        L = int(rng.integers(1, M + 1)) if capped else M
        recs = exhaustive(p, c, max_length=L)
        kd = build_kernel_data(p)
        fig, arg = np.zeros(8), np.zeros(4, np.int64)
        for pre, r in recs.items():
            if len(pre) >= L:
                continue
            pos, neg, mnr, pu, nu, mu = K.child_counts(kd.capg, kd.tables, kd.upos, kd.umin,
                                                       kd.allcols, kd.n_heavy_words, kd.has_umin,
                                                       np.array(pre, np.int32))
            K.gain_figures(pos, pos + neg, mnr, fig, arg)
            b = r.prefix_mistakes + C * len(pre)
            for mn in (mu, 0):      # with and without the equivalent-points minority
                assert K.gain_bound(b, pu, nu, mn, fig, L - len(pre), C) <= r.extension_min + EPS
                checked["parent"] += 1
            for j in range(M):
                ch = recs[pre + (j,)] if j not in pre else None
                if ch is None or len(pre) + 1 >= L:
                    continue
                bc = ch.prefix_mistakes + C * ch.depth
                gb = K.child_gain_bound(bc, pu, nu, mu - mnr[j], pos[j], neg[j], mnr[j], j, fig,
                                        arg, L - ch.depth, C)
                assert gb <= ch.extension_min + EPS, (pre, j, c, L)
                e = K.gain_stored_eq(gb, bc, C)
                assert ch.minority_left <= e <= ch.default_mistakes
                assert bc + e + C <= gb + EPS
                checked["child"] += 1
                checked["stronger than Lemma 2"] += gb > bc + C + ch.minority_left + EPS
    assert checked["parent"] > 1000 and checked["child"] > 1000, checked
    assert checked["stronger than Lemma 2"] > 40, checked
