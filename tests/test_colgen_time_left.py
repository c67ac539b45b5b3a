"""A time-limited solve spends the time its phases left on the bound
(``bound_search.raise_bound_with_time_left``): the last search's descent at the last duals,
stopped by the clock.  Checked against brute force on tiny instances, where the descent ends
long before the limit (so these results do not depend on the machine's speed)."""
import math

import pytest

from rulecert.certificate import Termination
from rulecert.mipmodels.colgen import BoundKind, solve
from rulecert.mipmodels.colgen.provers import lagrangian as bound_search
from rulecert.monitor import request_interrupt
from rulecert.problem import RuleProblem
from rulecert.reference import brute_force_ruleset

from test_colgen import _check_certificate, _instance

C, D = 9, 3
# one iteration of column generation and no per-iteration bound search: the bound is weak
# when the restricted IP ends, and the time limit is far from reached
LIMITED = dict(complexity_bound=C, max_clause_length=D, max_iter=1, close_gap=False,
               pricers="heuristic", bound_search_steps=0, time_limit=60.0)


def _tiny(seed):
    X, y = _instance(seed + 300, n=40, d=8, noise=0.25)
    return X, y, RuleProblem.from_matrix(X, y)


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_the_time_left_raises_the_bound_never_past_brute_force(monkeypatch):
    """With and without the search (``TIME_LEFT_MIN_SECONDS`` infinite turns it off): the
    same rule set, a bound never lower and never above the brute-force optimum, strictly
    higher on some instances, and the certificate says so."""
    raised = 0
    for seed in range(8):
        X, y, p = _tiny(seed)
        _, bf = brute_force_ruleset(X, y, C, D)
        monkeypatch.setattr(bound_search, "TIME_LEFT_MIN_SECONDS", math.inf)
        rs0, c0 = solve(p, seed=seed, **LIMITED)
        monkeypatch.setattr(bound_search, "TIME_LEFT_MIN_SECONDS", 1.0)
        rs1, c1 = solve(p, seed=seed, **LIMITED)
        _check_certificate(c0, rs0, p, bf, C)
        _check_certificate(c1, rs1, p, bf, C)
        assert c0.stats["bound_time_left"] is None
        assert c1.objective == c0.objective
        assert c0.lower_bound <= c1.lower_bound <= bf + 1e-9
        rec = c1.stats["bound_time_left"]
        if c0.lower_bound >= c0.objective - 1e-9:
            assert rec is None          # proven optimal already: nothing to raise
            continue
        assert rec is not None and rec["bound_before"] == c0.lower_bound
        assert rec["bound"] == c1.lower_bound and not rec["interrupted"]
        assert rec["seconds"] < LIMITED["time_limit"]
        assert rec["ended"]             # why the descent ended, in words
        if c1.lower_bound >= c1.objective - 1e-9:
            assert "objective" in rec["ended"], rec["ended"]
        if c1.lower_bound > c0.lower_bound:
            raised += 1
            # raised above c0's bound, so above the conflict floor: named as the Lagrangian
            assert c1.stats["bound_kind"] == BoundKind.LAGRANGIAN.value
            assert c1.stats["bound_detail"].startswith(
                "at the last duals, raised with the time left"), c1.stats["bound_detail"]
            assert rec["nodes"] > 0 and rec["complexity_dual"] is not None
            assert any(h.get("event") == "bound search" for h in c1.history)
        assert c1.termination in (Termination.ITERATION_LIMIT, Termination.OPTIMAL)
    assert raised >= 4, raised


def test_no_search_without_a_time_limit_or_in_the_penalized_form():
    """Counted runs stay reproducible (``final_bound_nodes`` and ``strengthen_bound``
    are theirs), and the penalized form has no complexity dual to descend in."""
    X, y, p = _tiny(1)
    kw = {k: v for k, v in LIMITED.items() if k != "time_limit"}
    _, cert = solve(p, **kw)
    assert cert.stats["bound_time_left"] is None
    _, cert = solve(p, complexity_bound=None, clause_penalty=1.0, literal_penalty=0.5,
                    max_clause_length=D, max_iter=1, close_gap=False, pricers="heuristic",
                    time_limit=60.0)
    assert cert.stats["bound_time_left"] is None


def test_ctrl_c_during_the_search_stops_the_solve_as_interrupted(monkeypatch):
    """Ctrl-C after the search's first pricing call: no further call starts, the bound is
    what was proven, and the solve is reported as interrupted, saying where."""
    real = bound_search.bound_pricer

    def pricer(*a, **kw):
        price_at = real(*a, **kw)

        def once(*b, **kb):
            out = price_at(*b, **kb)
            request_interrupt()
            return out
        return once
    monkeypatch.setattr(bound_search, "bound_pricer", pricer)
    X, y, p = _tiny(0)
    _, bf = brute_force_ruleset(X, y, C, D)
    rs, cert = solve(p, **LIMITED)
    rec = cert.stats["bound_time_left"]
    assert rec is not None and rec["interrupted"]
    assert cert.termination is Termination.INTERRUPTED
    assert cert.stats["stop_reason"] == "interrupted"
    assert "raising the bound with the time left" in cert.message
    _check_certificate(cert, rs, p, bf, C)


def test_a_call_the_clock_stopped_ends_the_descent():
    """``bounds.complexity_dual_descent`` without a node budget (the time-left search's): a
    pricing call that reports ``NODES_STOPPED`` nodes (the clock or Ctrl-C stopped it) ends
    the descent, so no call starts after the time limit.  A pricer that never proves
    anything is called ``steps`` times; stopped at its second call, twice."""
    from rulecert.mipmodels.colgen.bounds import NODES_STOPPED, complexity_dual_descent
    from rulecert.mipmodels.colgen.state import State
    X, y, p = _tiny(0)
    sol = solve(p, **{k: v for k, v in LIMITED.items() if k != "time_limit"})
    state = sol.bound_state
    st = State(p, state.options)

    def descent(stop_at):
        calls = []

        def price_at(dt, f, limit):
            calls.append(limit)
            nodes = NODES_STOPPED if len(calls) == stop_at else 10
            return [(2, -1e9)], [], False, None, nodes      # nothing proven
        complexity_dual_descent(st, state.duals, state.pricing_bound, [], state.ub, price_at,
                                None, 10, 6)
        return len(calls)
    assert descent(None) == 6
    assert descent(2) == 2


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_the_time_left_resumes_the_last_searchs_descent(monkeypatch):
    """Where the solve's last search ran at the last duals (pricing found no clause), the
    time-left search goes on from that search's proofs and the clauses it found: it prices
    only below the smallest share the last search proved (the time-left search used to prove
    those shares again, on ILPD at C = 10 for 45 of its 147 s).  Valid against brute force."""
    real = bound_search.final_bound_search
    resumed = 0
    for seed in range(8):
        searches = []

        def recorded(*a, **kw):
            out = real(*a, **kw)
            # the time-left search's descents aim at the rule set's objective, the last not
            searches.append(("target" in kw, kw.get("proofs"), list(a[4]), out))
            return out
        monkeypatch.setattr(bound_search, "final_bound_search", recorded)
        X, y = _instance(seed + 300, n=80, d=9, noise=0.3)
        p = RuleProblem.from_matrix(X, y)
        _, bf = brute_force_ruleset(X, y, C, D)
        # heuristic pricing of single literals finds no clause long before the LP is optimal;
        # the last search's small node budget leaves the descent unfinished
        rs, cert = solve(p, complexity_bound=C, max_clause_length=D, close_gap=False,
                         pricers="heuristic", _heuristic_max_length=1,
                         final_bound_nodes=100, time_limit=60.0, seed=seed)
        _check_certificate(cert, rs, p, bf, C)
        time_left = [s[1:] for s in searches if s[0]]
        last = [s[3] for s in searches if not s[0]]
        if not time_left or not last or not last[-1].proofs:
            continue
        resumed += 1
        proofs, found, _ = time_left[0]
        assert proofs == last[-1].proofs and found == last[-1].clauses
        proven = min(t for t, _, _, complete, _, items in last[-1].steps[1:]
                     if complete and items is not None)
        assert all(t < proven for _, _, sr in time_left for t, *_ in sr.steps[1:])
    assert resumed >= 6, resumed
