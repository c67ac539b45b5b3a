"""Every certificate's history draws the run: periodic samples (not only events), bounds that
never decrease, objectives that never increase, a bounded size on long runs (issue 14).

Sample counts do not depend on the machine's speed or load: a run is bounded by a work limit
(nodes, iterations) or stopped by its callback after a number of samples (an event count);
time limits are only hang guards (:data:`HANG_GUARD`)."""
from __future__ import annotations

import pytest

from rulecert.monitor import Monitor

HANG_GUARD = 120.0
"""A time limit that only ends a run whose own stop (callback, work limit) never came."""


def _stop_after(n):
    """A callback that stops the run at its ``n``-th sample (a count, not a clock)."""
    seen = []
    return lambda info: seen.append(info) or len(seen) >= n


def _assert_draws_the_run(cert, min_samples=10):
    h = cert.history
    assert len(h) >= min_samples, [e.get("event") for e in h]
    assert sum(e.get("event") == "periodic" for e in h) >= min_samples // 2
    times = [e["time"] for e in h]
    assert times == sorted(times)
    bounds = [e["lower_bound"] for e in h if e["lower_bound"] is not None]
    objectives = [e["objective"] for e in h if e["objective"] is not None]
    assert all(a <= b + 1e-12 for a, b in zip(bounds, bounds[1:])), bounds
    assert all(a >= b - 1e-12 for a, b in zip(objectives, objectives[1:])), objectives
    assert all(lb <= ob + 1e-12 for lb, ob in zip(bounds, objectives))
    end = h[-1]
    assert end["event"] == "end" and end["objective"] == pytest.approx(cert.objective)
    assert end["lower_bound"] == pytest.approx(cert.lower_bound)


@pytest.fixture(scope="module")
def compas(compas_stem):
    from rulecert.mining import read_corels
    return read_corels(str(compas_stem))


def test_corels_history_is_periodic_and_monotone(compas):
    from rulecert.search import corels
    # a work limit, not a clock: the records' spacing (at least 20x a record's scan) scales
    # with the machine, so the count of periodic samples does not depend on its speed or load
    _, cert = corels.solve(compas, 0.001, node_limit=20000, history_every=0.01)
    _assert_draws_the_run(cert)
    assert {"nodes_expanded", "queue_size"} <= set(cert.history[1])


@pytest.mark.parametrize("program", ["frl", "softfrl"])
def test_frl_branch_and_bound_history(compas, program):
    from rulecert.search.falling.bnb import branch_and_bound
    _, cert = branch_and_bound(compas, program, 7.0, 1e-6, 0.5 if program == "softfrl" else None,
                               time_limit=HANG_GUARD, history_every=0.05,
                               callback=_stop_after(20))
    assert "callback" in cert.message, cert.summary()
    _assert_draws_the_run(cert)
    assert all("nodes" in e and "queue_size" in e for e in cert.history)


def test_frl_monte_carlo_history(compas):
    from rulecert.search.falling.mc import monte_carlo
    _, cert = monte_carlo(compas, "frl", 7.0, 1e-6, iterations=10**7, time_limit=HANG_GUARD,
                          history_every=0.05, callback=_stop_after(20))
    assert "callback" in cert.message, cert.summary()
    _assert_draws_the_run(cert)
    assert all("iterations" in e for e in cert.history)


def test_frl_solve_both_phases_have_histories(compas):
    """The exact phase is stopped by its callback at its 20th sample (a count: a node limit
    gave 8 samples on a fast machine); the Monte-Carlo phase, which a callback stop would end
    with the call, by 6000 iterations, far over one 0.05 s sampling period on any machine."""
    from rulecert.search.falling import solve
    seen = []

    def stop_exact_at_20(info):
        if "nodes" in info:
            seen.append(info)
        return len(seen) >= 20

    sol = solve(compas, "frl", 7.0, 1e-6, iterations=6000, time_limit=HANG_GUARD,
                history_every=0.05, callback=stop_exact_at_20)
    assert "callback" in sol.certificate.message, sol.certificate.summary()
    assert sol.certificate.solver == "frl-bnb"      # the exact phase ran, after the Monte Carlo
    _assert_draws_the_run(sol.certificate)
    _assert_draws_the_run(sol.monte_carlo_certificate, min_samples=3)


def test_corels_history_stays_bounded_and_spaced_on_long_runs(compas):
    """A record scans the queue: asked for a sample at every chunk, CORELS still keeps the
    scans under ~5% of the run, so the history stays small."""
    from rulecert.search import corels
    _, cert = corels.solve(compas, 0.001, node_limit=20000, history_every=1e-9)
    assert 5 <= len(cert.history) <= 200


def test_monitor_keeps_the_best_bound_and_thins_to_a_bounded_size():
    mon = Monitor("t", history_every=0.0, max_history=32)
    for i in range(1000):
        lb = (i % 7) / 10.0            # a bound that dips: the history keeps the best so far
        mon.sample(1.0, lb, iterations=i)
    bounds = [e["lower_bound"] for e in mon.history]
    assert len(mon.history) <= 33 and bounds == sorted(bounds) and bounds[-1] == 0.6
    iters = [e["iterations"] for e in mon.history]
    assert iters[0] == 0 and iters == sorted(iters)     # an even picture of the whole run
