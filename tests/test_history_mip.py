"""Certificates' histories on the MIP side (HiGHS, CP-SAT, column generation, the falling MIP)
and reproducible command-line runs of ``brcg`` and ``crosscheck``.

A run with a small ``history_every`` stopped by its callback at its twelfth sample (an event
count, not a clock: the machine may be loaded) holds at least ten samples; the bounds never
decrease and the objectives never increase along the history (each sample holds the best
incumbent and the best proven bound at its time).  Time limits here are only hang guards.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from rulecert.problem import RuleProblem

from test_interrupt_mip import HANG_GUARD, REPO, hard_rule_list_problem, pima_problem


def _stop_after(n, seen=None):
    """A callback that records each sample's info (in ``seen``) and stops the run at the
    ``n``-th sample holding both an incumbent and a bound (a count, not a clock)."""
    seen = [] if seen is None else seen

    def callback(info):
        seen.append(info)
        return sum(i.get("objective") is not None and i.get("lower_bound") is not None
                   for i in seen) >= n
    return callback


def assert_draws_the_run(cert, at_least=10, last_objective=None):
    """``last_objective``: what the last sample's objective is (default the certificate's)."""
    h = cert.history
    assert len(h) >= at_least, (len(h), h[:3])
    times = [e["time"] for e in h]
    assert times == sorted(times)
    bounds = [e["lower_bound"] for e in h if e.get("lower_bound") is not None]
    objs = [e["objective"] for e in h if e.get("objective") is not None]
    assert len(bounds) >= at_least and len(objs) >= at_least
    assert all(b1 <= b2 + 1e-12 for b1, b2 in zip(bounds, bounds[1:])), bounds
    assert all(o1 >= o2 - 1e-12 for o1, o2 in zip(objs, objs[1:])), objs
    assert all(math.isfinite(b) for b in bounds)
    last = cert.objective if last_objective is None else last_objective
    assert bounds[-1] <= cert.lower_bound + 1e-9 and objs[-1] == pytest.approx(last)
    for e in h:
        if e.get("objective") is not None and e.get("lower_bound") is not None:
            assert e["lower_bound"] <= e["objective"] + 1e-9


@pytest.mark.parametrize("backend", ["highs", "cpsat"])
def test_rule_list_mip_history(backend):
    from rulecert.mipmodels.rulelist import solve
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rl, cert = solve(hard_rule_list_problem(), 0.002, max_rules=5,
                                     backend=backend, warm_start="greedy",
                                     time_limit=HANG_GUARD, history_every=0.1,
                                     callback=_stop_after(12))
    assert "callback" in cert.message, cert.summary()
    assert_draws_the_run(cert)


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_column_generation_history_per_iteration(shared_data):
    from rulecert.mipmodels.colgen import solve
    # a deterministic iteration limit (the bound search makes iterations slower or faster
    # with the machine's load): one sample per iteration, 12 of them
    rs, cert = solve(pima_problem(shared_data), complexity_bound=25, max_iter=12,
                     history_every=0.1)
    assert_draws_the_run(cert)
    its = [e for e in cert.history if e.get("event") == "iteration"]
    assert len(its) >= 10 and cert.history[-1]["event"] == "end"
    assert all("rmlp" in e and "columns" in e for e in its)
    assert [e["iterations"] for e in its] == sorted(e["iterations"] for e in its)


@pytest.mark.parametrize("solver", ["highs", "cpsat"])
def test_falling_mip_history(solver):
    from rulecert.mipmodels.falling import solve
    rng = np.random.default_rng(3)
    A = rng.random((200, 10)) < rng.uniform(0.1, 0.6, 10)
    y = (rng.random(200) < 0.2 + 0.5 * A[:, 0] * A[:, 1]).astype(int)
    fl, cert = solve(RuleProblem.from_matrix(A, y), "frl", 1.0, 0.001, max_rules=4,
                     backend=solver, time_limit=HANG_GUARD, history_every=0.1,
                     callback=_stop_after(12))
    assert "callback" in cert.message, cert.summary()
    # the samples hold the solver's incumbent value; the certificate the decoded list's
    # objective, which a run stopped early may have better (never worse) than that value
    assert cert.objective <= cert.stats["solver_objective"] + 1e-9
    assert_draws_the_run(cert, last_objective=cert.stats["solver_objective"])


def test_progress_callback_sees_the_mip():
    from rulecert.mipmodels.rulelist import solve
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        solve(hard_rule_list_problem(), 0.002, max_rules=5, warm_start="greedy",
                          time_limit=HANG_GUARD, history_every=0.2,
                          callback=_stop_after(3, seen))
    assert len(seen) >= 3
    assert all(i["solver"] == "rule-list MIP (highs)" and "gap" in i and "memory_mb" in i
               for i in seen)


# ---- the same command twice gives the same result ------------------------------------------
TIMES = {"time", "wall_time", "build_time", "history"}
"""Clock readings (and the history, a time series) differ between two runs; so do resident
memory readings (keys ending in ``_mb``, e.g. CORELS's ``peak_rss_mb``)."""


def _without_times(x):
    if isinstance(x, dict):
        return {k: _without_times(v) for k, v in x.items()
                if k not in TIMES and not k.endswith("_time") and not k.endswith("_mb")}
    if isinstance(x, list):
        return [_without_times(v) for v in x]
    return x


def _run_json(args):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-m", "rulecert", *args, "--json", "--quiet"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return _without_times(json.loads(out.stdout))


def _binary_csv(path, n=300, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < rng.uniform(0.2, 0.6, d)).astype(int)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & (rng.random(n) < 0.7))
         | (rng.random(n) < 0.1)).astype(int)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(d)])
    df["label"] = y
    df.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("command,size", [
    (["brcg", "--C", "12"], (300, 10)),
    (["crosscheck", "--c", "0.01", "--max-card", "1", "--max-rules", "2"], (150, 6)),
])
@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_two_cli_runs_give_the_same_json_apart_from_times(tmp_path, command, size):
    data = _binary_csv(tmp_path / "d.csv", *size)
    args = [command[0], "--data", data, *command[1:]]
    first, second = _run_json(args), _run_json(args)
    assert first == second
    assert json.dumps(first, sort_keys=True, default=str) == json.dumps(second, sort_keys=True,
                                                                         default=str)
