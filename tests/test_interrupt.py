"""Ctrl-C during a fit is a result: the command line prints it and exits 130, an estimator ends
fitted with the best model found and warns (issue 14; DESIGN rule 8)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import pytest

from rulecert.certificate import Termination

def _cli(args):
    """A real ``rulecert`` process (PYTHONPATH inherited: the checkout under test wins)."""
    return subprocess.Popen([sys.executable, "-m", "rulecert", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ))


def _interrupt_mid_run(proc, n_signals=1, deadline=120.0):
    """Wait for the first progress line (the run is under way and long), send SIGINT, and
    return (exit code, seconds from the signal to the exit, stdout, stderr)."""
    watchdog = threading.Timer(deadline, proc.kill)
    watchdog.start()
    try:
        seen = []
        for line in proc.stderr:            # progress lines start with "[solver  time]"
            seen.append(line)
            if line.startswith("["):
                break
        t0 = time.monotonic()
        for _ in range(n_signals):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.05)
        out, err = proc.communicate(timeout=30)
        return proc.returncode, time.monotonic() - t0, out, "".join(seen) + err
    finally:
        watchdog.cancel()


def _assert_interrupted_result(rc, dt, out, err, cert):
    assert rc == 130, err
    assert dt < 2.0, f"{dt:.2f} s from SIGINT to exit"
    assert cert["termination"] == "interrupted", cert
    assert cert["lower_bound"] <= cert["objective"] + 1e-12
    assert "Traceback" not in err


def test_corels_cli_sigint_prints_the_incumbent_and_exits_130(compas_stem):
    proc = _cli(["corels", "--data", str(compas_stem), "--c", "0.001", "--json"])
    rc, dt, out, err = _interrupt_mid_run(proc)
    res = json.loads(out)
    _assert_interrupted_result(rc, dt, out, err, res)
    assert res["n_rules"] == len(res["rules"]) and not res["proven_optimal"]


def test_frl_cli_sigint_prints_the_incumbent_and_exits_130(compas_stem):
    proc = _cli(["frl", "--data", str(compas_stem), "--w", "7", "--C", "1e-6", "--json"])
    rc, dt, out, err = _interrupt_mid_run(proc)
    res = json.loads(out)
    _assert_interrupted_result(rc, dt, out, err, res["certificate"])
    assert res["model"]["rules"]


def test_rashomon_cli_sigint_prints_what_it_has_and_exits_130(compas_stem):
    proc = _cli(["rashomon", "--data", str(compas_stem), "--c", "0.001", "--epsilon", "0.05",
                 "--json"])
    rc, dt, out, err = _interrupt_mid_run(proc)
    res = json.loads(out)
    enum = res["certificate"]
    assert enum["termination"] == "interrupted" and not enum["complete"]
    _assert_interrupted_result(rc, dt, out, err, enum["optimum_certificate"])


def test_text_output_too_and_a_second_sigint_aborts_at_once(compas_stem):
    proc = _cli(["corels", "--data", str(compas_stem), "--c", "0.001"])
    rc, dt, out, err = _interrupt_mid_run(proc)
    assert rc == 130 and "termination     : interrupted" in out
    proc = _cli(["corels", "--data", str(compas_stem), "--c", "0.001"])
    rc, dt, out, err = _interrupt_mid_run(proc, n_signals=2)
    assert rc == 130 and dt < 2.0 and "Traceback" not in err


def test_quiet_silences_progress_and_v_after_the_subcommand_is_accepted(compas_stem):
    from rulecert.cli import main
    args = ["corels", "--data", str(compas_stem), "--c", "0.001", "--node-limit", "20000"]
    proc = subprocess.run([sys.executable, "-m", "rulecert", *args, "--quiet", "--json"],
                          capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert proc.returncode == 0 and json.loads(proc.stdout)["termination"] == "node_limit"
    assert not [line for line in proc.stderr.splitlines() if line.startswith("[")]
    assert main(["corels", "--data", str(compas_stem), "--c", "0.05", "-v", "--quiet"]) == 0


def test_cli_warnings_are_one_line(compas_stem):
    proc = subprocess.run([sys.executable, "-m", "rulecert", "corels", "--data", str(compas_stem),
                           "--c", "0.00001", "--node-limit", "10", "--quiet"],
                          capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == [line for line in proc.stderr.splitlines()
                                        if line.startswith("rulecert: warning: c=1e-05")]


# ---- estimators, in process: a timer thread sends SIGINT to this process --------------------
def _fit_interrupted(est, X, y, after=1.5):
    timer = threading.Timer(after, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            est.fit(X, y)
    finally:
        timer.cancel()
    return time.monotonic() - t0, rec


@pytest.fixture(scope="module")
def compas_binary(shared_data):
    from rulecert.datasets import load_compas_corels
    return load_compas_corels(kind="binary")


def _estimators():
    from rulecert.estimators import (CorelsClassifier, FallingRuleListClassifier,
                                     SoftFallingRuleListClassifier)
    return [CorelsClassifier(c=0.001),
            FallingRuleListClassifier(w=7, C=1e-6, min_support=0.01),
            SoftFallingRuleListClassifier(w=7, C=1e-6, C1=0.5, min_support=0.01)]


@pytest.mark.parametrize("est", _estimators(), ids=lambda e: type(e).__name__)
def test_estimator_fit_interrupted_ends_fitted_and_warns(est, compas_binary):
    from rulecert.estimators import FitInterruptedWarning
    X, y = compas_binary
    dt, rec = _fit_interrupted(est, X, y)
    cert = est.certificate_
    assert cert.termination is Termination.INTERRUPTED
    assert cert.lower_bound <= cert.objective and not cert.proven_optimal
    assert dt < 1.5 + 2.0
    assert any(issubclass(w.category, FitInterruptedWarning) for w in rec)
    pred = est.predict(X)                           # fitted with the incumbent
    assert pred.shape == (len(X),) and set(pred) <= set(est.classes_)


def test_rule_list_mip_estimator_interrupted(compas_binary):
    from rulecert.estimators import FitInterruptedWarning, RuleListMIPClassifier
    X, y = compas_binary
    est = RuleListMIPClassifier(c=0.001, max_rules=6, max_card=2)
    dt, rec = _fit_interrupted(est, X, y, after=3.0)
    assert est.certificate_.termination is Termination.INTERRUPTED and dt < 3.0 + 2.0
    assert est.certificate_.lower_bound <= est.certificate_.objective
    assert any(issubclass(w.category, FitInterruptedWarning) for w in rec)


def test_brcg_estimator_interrupted(shared_data):
    from rulecert.estimators import BooleanRuleCGClassifier, FitInterruptedWarning
    from rulecert.datasets import load_pima
    from rulecert.mining import FeatureBinarizer
    X, y = load_pima()              # the example: C = 25 runs for minutes
    est = BooleanRuleCGClassifier(complexity_bound=25,
                                  binarizer=FeatureBinarizer(n_thresholds=9, negations=True))
    dt, rec = _fit_interrupted(est, X, y, after=3.0)
    tail = [(round(h["time"], 2), h.get("event"), h.get("phase")) for h in est.certificate_.history[-8:]]
    assert est.certificate_.termination is Termination.INTERRUPTED and dt < 3.0 + 2.0, (dt, tail)
    assert est.certificate_.lower_bound <= est.certificate_.objective
    assert any(issubclass(w.category, FitInterruptedWarning) for w in rec)


def test_callback_and_verbose_reach_the_solver(compas_binary, capsys, monkeypatch):
    from rulecert import monitor
    from rulecert.estimators import CorelsClassifier, FallingRuleListClassifier

    class Eager(monitor.ProgressPrinter):
        """Prints every sample from the start: verbose's line does not wait for the default
        2 s, which a fit that ends sooner (idle CI: the FRL search below) never reaches."""

        def __init__(self, **kw):
            super().__init__(every=0.0, after=0.0, **kw)

    monkeypatch.setattr(monitor, "ProgressPrinter", Eager)
    X, y = compas_binary
    seen = []
    est = CorelsClassifier(c=0.001, callback=lambda info: seen.append(info) or len(seen) >= 3)
    with pytest.warns(UserWarning, match="interrupted"):
        est.fit(X, y)
    assert est.certificate_.termination is Termination.INTERRUPTED and len(seen) == 3
    assert {"solver", "time", "objective", "lower_bound", "gap", "memory_mb"} <= set(seen[0])
    FallingRuleListClassifier(w=7, C=1e-6, min_support=0.01, time_limit=2.5,
                              verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert "[frl-" in err and " bound " in err and " mem " in err
