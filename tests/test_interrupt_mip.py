"""Ctrl-C, the callback and the memory cap on every MIP-side learner (HiGHS, CP-SAT, PuLP's
HiGHS, column generation, the falling MIPs, the crosscheck), in process and on the command line.

Each run below would last far longer than the test (no time limit); a SIGINT (a timer thread
in process, ``send_signal`` to a real ``python -m rulecert`` subprocess) stops it, and the run
must return with ``INTERRUPTED``, a valid certificate (bound <= objective, the objective that
of the returned model) and, on the command line, its result printed and exit status 130.

No test times the stop (the machine may be loaded): a run that ignores the SIGINT is asked to
stop (in process) or killed (command line) after :data:`HANG_GUARD` seconds and then fails on
what it left (the guard fired, the exit code), never on a clock.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest

from rulecert.certificate import SolutionStatus, Termination
from rulecert.models.rulelist import rule_list_objective
from rulecert.models.ruleset import ruleset_objective
from rulecert.monitor import catch_interrupt, interrupt_requested, request_interrupt
from rulecert.problem import RuleProblem

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HANG_GUARD = 120.0
"""Seconds after which a run that ignored the SIGINT is asked to stop (in process) or killed
(command line): a guard against a hang, never an assertion of speed."""


def hard_rule_list_problem(seed=1, n=300, M=15):
    """XOR-like labels: the rule-list MIP runs for minutes without a limit."""
    rng = np.random.default_rng(seed)
    A = rng.random((n, M)) < rng.uniform(0.1, 0.5, M)
    y = (A[:, 0] ^ A[:, 1] ^ (rng.random(n) < 0.3)).astype(int)
    return RuleProblem.from_matrix(A, y)


def pima_path(shared_data):
    return str(shared_data / "pima" / "pima-indians-diabetes.data")


def pima_problem(shared_data):
    """Pima binarized as ``rulecert brcg`` does it (deciles and negations, 768 x 128)."""
    import pandas as pd

    from rulecert.mining import FeatureBinarizer
    df = pd.read_csv(pima_path(shared_data), header=None)
    X, y = df.iloc[:, :-1], df.iloc[:, -1].to_numpy().astype(int)
    fb = FeatureBinarizer(n_thresholds=9, negations=True, missing="indicator")
    Xb = np.asarray(fb.fit_transform(X)).astype(bool)
    return RuleProblem.from_matrix(Xb, y, [str(c) for c in fb.get_feature_names_out()])


def interrupted_after(seconds, fit):
    """Run ``fit()`` with a SIGINT sent to this process after ``seconds``; returns its result.

    A run that ignores the SIGINT is asked to stop after :data:`HANG_GUARD` more seconds and
    the test fails (the guard fired)."""
    sent, guarded = threading.Event(), threading.Event()

    def send():
        sent.set()
        os.kill(os.getpid(), signal.SIGINT)

    def guard():
        guarded.set()
        request_interrupt()

    timer = threading.Timer(seconds, send)
    watchdog = threading.Timer(seconds + HANG_GUARD, guard)
    with catch_interrupt():
        timer.start()
        watchdog.start()
        try:
            out = fit()
        finally:
            timer.cancel()
            watchdog.cancel()
    assert sent.is_set(), "the run ended before the SIGINT: choose a longer instance"
    assert not guarded.is_set(), f"the run ignored the SIGINT for {HANG_GUARD} s"
    return out


def assert_interrupted(cert):
    assert cert.termination is Termination.INTERRUPTED, cert.summary()
    assert not cert.proven_optimal and cert.status is not SolutionStatus.OPTIMAL
    if cert.objective is not None:
        assert cert.lower_bound <= cert.objective + 1e-12
    assert "Ctrl-C" in cert.message or "interrupted" in cert.message.lower()


# ---- in process ---------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["highs", "cpsat", "pulp"])
def test_rule_list_mip_stops_on_sigint_with_incumbent_and_bound(backend):
    from rulecert.mipmodels.rulelist import solve
    p, c = hard_rule_list_problem(), 0.002
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rl, cert = interrupted_after(2.0, lambda: solve(
            p, c, max_rules=5, backend=backend, warm_start="greedy"))
    assert_interrupted(cert)
    assert cert.status is SolutionStatus.FEASIBLE and rl is not None
    assert rule_list_objective(rl, p, c).objective == cert.objective
    assert cert.objective <= cert.warm_start_objective
    assert cert.lower_bound >= cert.stats["equivalent_points_mistakes"] / p.n_samples - 1e-12
    assert cert.history and cert.history[-1]["objective"] == cert.objective


@pytest.mark.parametrize("pricing", ["auto", "exact"])   # "exact": inside CP-SAT pricing
def test_column_generation_stops_on_sigint_with_a_rule_set(shared_data, pricing):
    from rulecert.mipmodels.colgen import solve
    p = pima_problem(shared_data)
    rs, cert = interrupted_after(3.0, lambda: solve(p, complexity_bound=25,
                                                    pricers=pricing))
    assert_interrupted(cert)
    assert cert.stats["stop_reason"] == "interrupted"
    assert ruleset_objective(rs, p).objective == pytest.approx(cert.objective, abs=1e-9)
    assert rs.complexity <= 25
    assert 0.0 <= cert.lower_bound <= cert.objective


def test_column_generation_callback_stops_it(shared_data):
    from rulecert.mipmodels.colgen import solve
    p = pima_problem(shared_data)
    seen = []

    def stop_at_third_iteration(info):
        seen.append(info)
        return info.get("iterations", 0) >= 3

    rs, cert = solve(p, complexity_bound=25, callback=stop_at_third_iteration)
    assert cert.termination is Termination.INTERRUPTED, cert.summary()
    assert "callback" in cert.message and cert.iterations <= 5
    assert seen[0]["solver"] == "colgen" and "lower_bound" in seen[0]
    assert ruleset_objective(rs, p).objective == pytest.approx(cert.objective, abs=1e-9)


@pytest.mark.parametrize("solver", ["highs", "cpsat"])
def test_falling_mip_stops_on_sigint(solver):
    from rulecert.mipmodels.falling import solve
    from rulecert.models.falling import frl_objective
    rng = np.random.default_rng(3)
    n, M = 400, 14
    A = rng.random((n, M)) < rng.uniform(0.1, 0.6, M)
    y = (rng.random(n) < 0.2 + 0.5 * A[:, 0] * A[:, 1]).astype(int)
    p = RuleProblem.from_matrix(A, y)
    fl, cert = interrupted_after(2.0, lambda: solve(
        p, "frl", 1.0, 0.001, max_rules=5, backend=solver))
    assert_interrupted(cert)
    if fl is not None:
        assert frl_objective(p, fl, 1.0, 0.001).objective == pytest.approx(cert.objective,
                                                                           abs=1e-9)


def test_second_sigint_aborts_at_once():
    from rulecert.mipmodels.rulelist import solve
    p = hard_rule_list_problem()
    running = threading.Event()
    running.set()

    def two_signals():      # the second once the first was seen, while the fit still runs
        os.kill(os.getpid(), signal.SIGINT)
        end = time.perf_counter() + HANG_GUARD     # waits for an event, however loaded
        while not interrupt_requested() and time.perf_counter() < end:
            time.sleep(0.001)
        if running.is_set():
            os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Timer(1.0, two_signals)
    try:
        with pytest.raises(KeyboardInterrupt):
            with catch_interrupt():
                sender.start()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    solve(p, 0.002, max_rules=5, warm_start="greedy")
                running.clear()
    finally:
        running.clear()
        sender.join()       # no signal is left to reach a later test


def test_python_user_without_catch_interrupt_gets_a_clean_return():
    """A Python user's Ctrl-C without any catch_interrupt of their own: the fit installs it."""
    from rulecert.mipmodels.rulelist import solve
    p = hard_rule_list_problem()
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # a run that ignored the SIGINT would go on for minutes: time_limit is a hang guard
        rl, cert = solve(p, 0.002, max_rules=5, warm_start="greedy",
                                     time_limit=HANG_GUARD)
    timer.cancel()
    assert cert.termination is Termination.INTERRUPTED, cert.summary()
    assert rl is not None and cert.lower_bound <= cert.objective


@pytest.mark.parametrize("backend", ["highs", "cpsat"])
def test_rule_list_mip_estimator_interrupted_mid_fit(backend):
    """The issue's case: ``RuleListMIPClassifier(backend="highs", time_limit=20)`` interrupted
    returns at once (not at its time limit), fitted, with an honest certificate."""
    import pandas as pd

    from rulecert.estimators import RuleListMIPClassifier
    p = hard_rule_list_problem()
    X = pd.DataFrame(p.dense().astype(int), columns=[f"a{j}" for j in range(p.n_antecedents)])
    clf = RuleListMIPClassifier(c=0.002, max_rules=5, backend=backend, time_limit=20,
                                negations=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        interrupted_after(2.0, lambda: clf.fit(X, p.y))
    assert_interrupted(clf.certificate_)
    assert clf.predict(X).shape == (p.n_samples,)


def test_brcg_estimator_interrupted_mid_fit(shared_data):
    import pandas as pd

    from rulecert.estimators import BooleanRuleCGClassifier
    p = pima_problem(shared_data)
    X = pd.DataFrame(p.dense().astype(int), columns=p.antecedent_names)
    clf = BooleanRuleCGClassifier(complexity_bound=25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        interrupted_after(3.0, lambda: clf.fit(X, p.y))
    assert_interrupted(clf.certificate_)
    assert clf.ruleset_.complexity <= 25


# ---- memory caps ----------------------------------------------------------------------------
def test_column_generation_stops_at_the_memory_cap(shared_data, monkeypatch):
    import rulecert.monitor as monitor
    from rulecert.limits import resident_memory_bytes
    from rulecert.mipmodels.colgen import solve
    p = pima_problem(shared_data)
    # a pool that keeps growing: every reading finds 1 MB more than the last (a real process
    # that ran other tests reuses freed memory, so its resident size need not grow visibly)
    readings = []

    def growing():
        readings.append(1)
        return resident_memory_bytes() + len(readings) * 2**20

    monkeypatch.setattr(monitor, "resident_memory_bytes", growing)
    cap = resident_memory_bytes() / 2**20 + 10.0
    rs, cert = solve(p, complexity_bound=25, memory_limit_mb=cap)
    assert cert.termination is Termination.MEMORY_LIMIT, cert.summary()
    assert cert.stats["stop_reason"] == "memory_limit" and "memory_limit_mb" in cert.message
    assert ruleset_objective(rs, p).objective == pytest.approx(cert.objective, abs=1e-9)
    assert 0.0 <= cert.lower_bound <= cert.objective and not cert.proven_optimal
    assert cert.iterations >= 1


def test_rule_list_mip_too_big_for_the_cap_is_not_built():
    from rulecert.mipmodels.rulelist import solve
    p = hard_rule_list_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rl, cert = solve(p, 0.002, max_rules=5, warm_start="greedy",
                                     memory_limit_mb=1.0)
    assert cert.termination is Termination.MEMORY_LIMIT and "not built" in cert.message
    assert cert.status is SolutionStatus.FEASIBLE
    assert rule_list_objective(rl, p, 0.002).objective == cert.objective
    assert cert.lower_bound <= cert.objective


# ---- the command line ---------------------------------------------------------------------
def run_cli_and_interrupt(args, after, *, progress=None, latest=HANG_GUARD):
    """Start ``python -m rulecert args``; SIGINT it once a progress line on stderr contains
    ``progress`` (the run is in the phase to interrupt; waited for up to ``latest`` seconds),
    or after ``after`` seconds when no ``progress`` is given.  Returns ``(exit code, stdout,
    stderr)``; a process still running :data:`HANG_GUARD` seconds after the SIGINT is killed
    (exit code -9)."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "rulecert", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    lines: list[str] = []
    seen = threading.Event()

    def read_stderr():
        for line in proc.stderr:
            lines.append(line)
            if progress is not None and line.startswith("[") and progress in line:
                seen.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    t_start = time.perf_counter()
    while time.perf_counter() - t_start < (latest if progress is not None else after):
        if proc.poll() is not None:
            pytest.fail(f"finished before the SIGINT: {proc.stdout.read()} {''.join(lines)}")
        if seen.wait(0.05):
            time.sleep(0.5)  # well inside the phase
            break
    if progress is not None and not seen.is_set():
        proc.kill()
        pytest.fail(f"no progress line with {progress!r} in {latest} s: {''.join(lines)}")
    proc.send_signal(signal.SIGINT)
    watchdog = threading.Timer(HANG_GUARD, proc.kill)     # a hang guard, not a speed test
    watchdog.start()
    try:
        out = proc.stdout.read()
        proc.wait()
    finally:
        watchdog.cancel()
        if proc.poll() is None:  # pragma: no cover - a hung run
            proc.kill()
    reader.join(HANG_GUARD)
    return proc.returncode, out, "".join(lines)


def test_cli_brcg_sigint_prints_the_result_and_exits_130(shared_data):
    rc, out, err = run_cli_and_interrupt(
        ["brcg", "--data", pima_path(shared_data), "--C", "25", "--json"], 6.0,
        progress="[colgen")    # SIGINT once the fit prints progress (not while preparing)
    assert rc == 130, err
    assert out.strip(), f"no result printed; stderr: {err}"
    cert = json.loads(out)["certificate"]
    assert cert["termination"] == "interrupted" and cert["proven_optimal"] is False
    assert cert["lower_bound"] <= cert["objective"]
    assert "Traceback" not in err


def test_cli_crosscheck_sigint_in_the_mip_half(compas_stem):
    # CORELS proves c=0.02 in about a second; the MIP over 155 antecedents runs for minutes
    rc, out, err = run_cli_and_interrupt(
        ["crosscheck", "--data", str(compas_stem), "--c", "0.02", "--json"], 8.0,
        progress="rule-list MIP")
    assert rc == 130, err
    d = json.loads(out)
    mip = d["mip"]["certificate"]
    assert mip["termination"] == "interrupted" and mip["lower_bound"] <= mip["objective"]
    assert d["reference"]["certificate"]["termination"] == "optimal"
    assert d["verdict"] == "consistent"
    assert "Traceback" not in err


def test_cli_crosscheck_sigint_in_the_corels_half_stops_both(compas_stem):
    # c=0.002: CORELS runs for minutes (c=0.005 is proven in a few seconds, before its first
    # progress line); one SIGINT stops it and the MIP does not start
    rc, out, err = run_cli_and_interrupt(
        ["crosscheck", "--data", str(compas_stem), "--c", "0.002", "--json"], 5.0,
        progress="corels")
    assert rc == 130, err
    d = json.loads(out)
    for half in ("reference", "mip"):
        cert = d[half]["certificate"]
        assert cert["termination"] == "interrupted", (half, cert)
        assert cert["lower_bound"] <= cert["objective"]


def test_callback_raising_keyboard_interrupt_is_a_stop_request():
    """A callback that raises KeyboardInterrupt (no Ctrl-C pending) stops the run as a
    request: the solve returns INTERRUPTED with its incumbent."""
    from rulecert.mipmodels.rulelist import solve
    calls = []

    def cb(info):
        calls.append(info)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rl, cert = solve(hard_rule_list_problem(), 0.002, max_rules=5,
                                     warm_start="greedy", callback=cb, history_every=0.1)
    assert cert.termination is Termination.INTERRUPTED and rl is not None
    assert cert.lower_bound <= cert.objective
