"""The greedy over pure clauses from the positive side (pricing/meet.py), the error-free cover
LP's first pricer: every clause it returns is pure, within D literals and improving at its
reduced cost recomputed here; it finds a planted pure clause that the duals favour; a seed
repeats its run."""
import itertools

import numpy as np
import pytest

from rulecert.mipmodels.colgen.provers.meet import PureClauseGreedy


def _rc(Xp, y, cl):
    return 1.0 + len(cl) - float(y[Xp[:, list(cl)].all(axis=1)].sum())


def _check(Xp, Xn, y, D, out):
    rcs = [_rc(Xp, y, cl) for cl in out]
    for cl, rc in zip(out, rcs):
        assert 1 <= len(cl) <= D and len(set(cl)) == len(cl)
        assert not Xn[:, list(cl)].all(axis=1).any(), f"{cl} covers a negative group"
        assert rc < -1e-6
    assert rcs == sorted(rcs)
    return rcs


@pytest.mark.parametrize("seed", range(20))
def test_returns_only_pure_improving_clauses_and_never_beats_the_exhaustive_minimum(seed):
    rng = np.random.default_rng(seed)
    Xp, Xn = rng.random((12, 7)) < 0.6, rng.random((8, 7)) < 0.5
    y, D = rng.random(12) * 2.0, 3
    out = PureClauseGreedy(Xp, Xn, D, np.random.default_rng(0)).price(y, K=50)
    rcs = _check(Xp, Xn, y, D, out)
    best = min((_rc(Xp, y, cl) for r in range(1, D + 1)
                for cl in itertools.combinations(range(7), r)
                if not Xn[:, list(cl)].all(axis=1).any()), default=np.inf)
    assert all(rc >= best - 1e-9 for rc in rcs)


def test_finds_a_planted_pure_clause_the_duals_favour():
    """Literals 0, 1, 2 are true on positive groups 0..9 (dual 1 each) and each negative
    group lacks one of them: the clause {0, 1, 2} costs 4 - 10 = -6.  Every other literal is
    random, so a cover of the negatives by them is long."""
    rng = np.random.default_rng(1)
    d, nP, nN = 30, 40, 30
    Xp = rng.random((nP, d)) < 0.5
    Xn = rng.random((nN, d)) < 0.8
    Xp[:10, :3] = True
    Xp[10:, 0] = False
    Xn[:, :3] = True
    Xn[np.arange(nN), np.arange(nN) % 3] = False
    y = np.r_[np.ones(10), np.full(nP - 10, 0.01)]
    out = PureClauseGreedy(Xp, Xn, 6, np.random.default_rng(0)).price(y, K=10)
    rcs = _check(Xp, Xn, y, 6, out)
    assert rcs and rcs[0] <= -6.0 + 1e-9


def test_the_meets_of_given_clauses_seed_it_and_a_seed_repeats_its_run():
    rng = np.random.default_rng(3)
    Xp, Xn = rng.random((30, 12)) < 0.6, rng.random((20, 12)) < 0.5
    y = rng.random(30)

    def run(starts=()):
        return PureClauseGreedy(Xp, Xn, 5, np.random.default_rng(7)).price(y, K=50,
                                                                           starts=starts)
    assert run() == run()
    _check(Xp, Xn, y, 5, run(starts=[(0,), (1, 2)]))


def test_without_positive_duals_or_pure_clauses_it_returns_nothing():
    Xp = np.ones((3, 4), dtype=bool)
    Xn = np.ones((2, 4), dtype=bool)          # every clause covers the negatives
    g = PureClauseGreedy(Xp, Xn, 3, np.random.default_rng(0))
    assert g.price(np.full(3, 5.0), K=5) == []
    assert g.price(np.zeros(3), K=5) == []


def test_clause_within_a_meet_is_pure_irredundant_and_within_it():
    """``clause_within(meet)``: a clause of the meet's literals only, covering no negative
    group, of 1..D literals, none redundant; where no pure clause of at most D literals lies
    within the meet (exhaustive check) it returns None."""
    from rulecert import bits
    found = none_fits = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        Xp, Xn = rng.random((6, 8)) < 0.7, rng.random((6, 8)) < 0.5
        D = 3
        g = PureClauseGreedy(Xp, Xn, D, np.random.default_rng(0))
        T = rng.choice(6, 2, replace=False)
        packed = np.bitwise_and.reduce(g.P[T], axis=0)
        meet = Xp[T].all(axis=0)
        assert np.array_equal(bits.unpack(packed, 8), meet)
        cl = g.clause_within(packed, rng.random(8))
        exists = any(not Xn[:, list(c)].all(axis=1).any()
                     for r in range(1, D + 1)
                     for c in itertools.combinations(np.flatnonzero(meet), r))
        if not exists:
            assert cl is None, (seed, cl)
            none_fits += 1
        if cl is None:
            continue
        found += 1
        assert 1 <= len(cl) <= D and all(meet[j] for j in cl)
        assert not Xn[:, list(cl)].all(axis=1).any()
        for j in cl:                     # irredundant: dropping a literal covers a negative
            rest = [k for k in cl if k != j]
            assert rest == [] or Xn[:, rest].all(axis=1).any()
    assert found >= 10 and none_fits >= 1, (found, none_fits)
