"""search.falling.prefix_bound (Theorems 4.6 / 5.2) against brute force on tiny instances."""
import numpy as np
import pytest

from rulecert.models.falling import frl_objective, soft_frl_objective
from rulecert.problem import RuleProblem
from rulecert.reference import all_prefixes
from rulecert.search.falling import prefix_bound


def _compatible_lists(P, program, w, C, C1):
    """Objective of every compatible (falling, for FRL) list over P's antecedents, by prefix."""
    out = {}
    for pre in all_prefixes(P.n_antecedents, P.n_antecedents):
        try:
            s = (frl_objective(P, pre, w, C) if program == "frl"
                 else soft_frl_objective(P, pre, w, C, C1))
        except ValueError:       # a rule or the else clause captures nothing
            continue
        if program == "frl" and not s.falling:
            continue
        out[pre] = s.objective
    return out


@pytest.mark.parametrize("program,C1", [("frl", None), ("softfrl", 0.3)])
def test_prefix_bound_below_every_completion(program, C1):
    rng = np.random.default_rng(7)
    checked = tight = 0
    for _ in range(12):
        X = (rng.random((25, 4)) < 0.4).astype(np.uint8)
        y = (rng.random(25) < 0.4).astype(int)
        if y.min() == y.max():
            continue
        P = RuleProblem.from_matrix(X, y)
        lists = _compatible_lists(P, program, 3.0, 0.01, C1)
        for e in lists:
            best = min(v for d, v in lists.items() if d[:len(e)] == e)
            b = prefix_bound(P, e, program, 3.0, 0.01, C1)
            assert np.isfinite(b)
            assert b <= best + 1e-12, (e, b, best)
            checked += 1
            tight += abs(b - best) < 1e-12
    assert checked > 100 and 0 < tight < checked


def test_prefix_bound_rejects_a_rule_that_captures_nothing():
    X = np.array([[1, 1], [1, 0], [0, 0], [0, 1]], np.uint8)
    P = RuleProblem.from_matrix(X, [1, 0, 0, 1])
    with pytest.raises(ValueError, match="captures no sample"):
        prefix_bound(P, [0, 0], "frl", 3.0, 0.01)
