"""highspy, ortools.sat and pulp import in one process and each solves a tiny model.

highspy 1.15 and ortools 9.15 each ship their own libhighs and cannot be imported together;
pyproject.toml pins a set that works, and this test keeps it honest.
"""
import math

import numpy as np
import pytest


def _tiny_knapsack():
    # max 5a + 4b + 3c  s.t. 2a + 3b + c <= 4, binary  -> optimum a=1, c=1 (value 8)
    return np.array([5.0, 4.0, 3.0]), np.array([2.0, 3.0, 1.0]), 4.0, 8.0


def test_all_three_solvers_in_one_process():
    import highspy
    import pulp
    from ortools.sat.python import cp_model

    from rulecert.certificate import Termination
    from rulecert.mipmodels import cpsat, highs

    v, w, cap, best = _tiny_knapsack()
    # HiGHS via highspy (minimize the negated value)
    h = highs.new_highs()
    for _ in range(3):
        h.addVariable(0, 1)
    h.changeColsIntegrality(3, np.arange(3, dtype=np.int32),
                            np.array([highspy.HighsVarType.kInteger] * 3))
    h.changeColsCost(3, np.arange(3, dtype=np.int32), -v)
    h.addRow(-highspy.kHighsInf, cap, 3, np.arange(3, dtype=np.int32), w)
    r = highs.solve(h, is_mip=True, mip_abs_gap=1e-6)
    assert r.termination is Termination.OPTIMAL
    assert math.isclose(-r.objective, best) and list(np.round(r.x)) == [1, 0, 1]

    # CP-SAT
    m = cpsat.new_model()
    xs = [m.NewBoolVar(f"x{i}") for i in range(3)]
    m.Add(sum(int(w[i]) * xs[i] for i in range(3)) <= int(cap))
    m.Maximize(sum(int(v[i]) * xs[i] for i in range(3)))
    r2 = cpsat.solve(m, xs, workers=1)
    assert r2.termination is Termination.OPTIMAL and r2.objective == best
    assert isinstance(m, cp_model.CpModel)

    # PuLP with its HiGHS backend
    p = pulp.LpProblem("k", pulp.LpMaximize)
    ys = [pulp.LpVariable(f"y{i}", cat="Binary") for i in range(3)]
    p += pulp.lpSum(v[i] * ys[i] for i in range(3))
    p += pulp.lpSum(w[i] * ys[i] for i in range(3)) <= cap
    p.solve(pulp.HiGHS(msg=False))
    assert math.isclose(pulp.value(p.objective), best)


def test_cpsat_unknown_status_gives_no_bound():
    """CP-SAT stopped before proving anything (status UNKNOWN) reports best_objective_bound
    = 0, which here would exceed the true minimum -5: the wrapper must report -inf."""
    from rulecert.certificate import SolutionStatus
    from rulecert.mipmodels import cpsat as cx
    m = cx.new_model()
    x = m.NewIntVar(-5, 5, "x")
    ys = [m.NewBoolVar(f"y{i}") for i in range(200)]
    m.Add(sum(ys) == x + 100)
    m.Minimize(x)
    res = cx.solve(m, [x], deterministic_time=1e-9)
    assert res.status is SolutionStatus.NONE
    assert res.bound == -math.inf
    full = cx.solve(m, [x])
    assert full.objective == -5 and full.bound == -5


def test_cpsat_parameters_by_name():
    """set_parameters: a list extends a repeated field, a string naming one of an enum field's
    constants sets it, a plain value (a string field's too) is set; an unknown name, or a
    constant that is not the field's, is an error, not ignored."""
    from ortools.sat.python import cp_model
    from rulecert.mipmodels.cpsat import set_parameters
    p = cp_model.CpSolver().parameters
    set_parameters(p, {"subsolvers": ["core", "default_lp"], "num_full_subsolvers": 2,
                       "max_sat_stratification": "STRATIFICATION_NONE",
                       "log_prefix": "FIXED_SEARCH"})
    assert list(p.subsolvers) == ["core", "default_lp"] and p.num_full_subsolvers == 2
    assert p.max_sat_stratification == p.STRATIFICATION_NONE
    assert p.log_prefix == "FIXED_SEARCH"      # a string field keeps the string
    with pytest.raises((AttributeError, TypeError)):
        set_parameters(p, {"no_such_parameter": 1})
    with pytest.raises(ValueError, match="STRATIFICATION_NONE"):     # a constant of another
        set_parameters(p, {"max_sat_stratification": "NO_STRATIFICATION"})
    with pytest.raises(ValueError, match="max_sat_stratification"):
        set_parameters(p, {"max_sat_stratification": "FIXED_SEARCH"})    # enum of search_branching
