"""The shared run monitor: Ctrl-C handling, limits, history thinning, progress lines."""
from __future__ import annotations

import io
import os
import signal
import threading
import time

import pytest

from rulecert.certificate import Termination
from rulecert.limits import (Deadline, default_memory_limit_mb, machine_memory_bytes,
                             resolve_memory_limit_mb)
from rulecert.monitor import (Monitor, ProgressPrinter, catch_interrupt, format_progress,
                              interrupt_requested, progress_callback, request_interrupt)


def _wait_for(pred, timeout=60.0):
    """Wait for an event (returns as soon as it happens; ``timeout`` only guards a hang)."""
    end = time.time() + timeout
    while not pred() and time.time() < end:
        time.sleep(0.005)
    return pred()


def test_first_sigint_requests_second_aborts_and_handler_is_restored():
    before = signal.getsignal(signal.SIGINT)
    with catch_interrupt():
        assert not interrupt_requested()
        os.kill(os.getpid(), signal.SIGINT)
        assert _wait_for(interrupt_requested)
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1.0)  # the handler raises here, in the main thread
    assert signal.getsignal(signal.SIGINT) is before
    assert not interrupt_requested()


def test_nested_runs_share_one_request_until_the_outermost_ends():
    with catch_interrupt():
        with catch_interrupt():
            os.kill(os.getpid(), signal.SIGINT)
            assert _wait_for(interrupt_requested)
        assert interrupt_requested()  # the second half of a crosscheck still sees it
    assert not interrupt_requested()


def test_request_from_another_thread_stops_the_monitor():
    with catch_interrupt():
        mon = Monitor("t")
        assert mon.should_stop() is None
        threading.Timer(0.05, request_interrupt).start()
        assert _wait_for(lambda: mon.should_stop() is not None)
        term, msg = mon.should_stop()
        assert term is Termination.INTERRUPTED and "Ctrl-C" in msg


def test_deadline_and_memory_cap():
    mon = Monitor("t", deadline=Deadline(0.0))
    assert mon.should_stop()[0] is Termination.TIME_LIMIT
    mon = Monitor("t", memory_limit_mb=1.0)  # any Python process holds more than 1 MB
    term, msg = mon.should_stop()
    assert term is Termination.MEMORY_LIMIT and "memory_limit_mb=1" in msg
    big = Monitor("t", memory_limit_mb=1e9)
    assert big.should_stop() is None
    assert big.would_exceed_memory(2e15) and not big.would_exceed_memory(1.0)


def test_callback_returning_true_stops_and_receives_the_info():
    seen = []

    def cb(info):
        seen.append(info)
        return info["iterations"] >= 3

    mon = Monitor("colgen", callback=cb, history_every=0.0)
    stops = [mon.sample(1.0, 0.5, iterations=i) for i in range(5)]
    assert stops == [False, False, False, True, True]
    assert mon.should_stop() == (Termination.INTERRUPTED, "stopped by the callback")
    assert seen[0]["solver"] == "colgen" and seen[0]["gap"] == pytest.approx(0.5)
    assert seen[0]["memory_mb"] > 0


def test_periodic_samples_are_spaced_and_history_is_thinned_keeping_events():
    mon = Monitor("t", history_every=3600.0)
    mon.sample(1.0, 0.0)
    mon.sample(1.0, 0.0)  # too soon: skipped
    mon.sample(0.9, 0.1, event="incumbent")  # events are always kept
    assert [e["event"] for e in mon.history] == ["periodic", "incumbent"]

    mon = Monitor("t", history_every=0.0, max_history=16)
    for i in range(200):
        mon.sample(1.0, i / 200, event="incumbent" if i % 50 == 0 else "periodic", nodes=i)
    assert len(mon.history) <= 17
    assert sum(e["event"] == "incumbent" for e in mon.history) == 4
    nodes = [e["nodes"] for e in mon.history]
    assert nodes == sorted(nodes) and nodes[0] == 0


def test_progress_printer_waits_then_prints_every_few_seconds_and_chains():
    out = io.StringIO()
    chained = []
    p = ProgressPrinter(every=5.0, after=2.0, stream=out, chain=lambda i: chained.append(i) or False)
    for t in (0.5, 1.9, 2.1, 3.0, 7.2, 7.3):
        assert p({"solver": "frl", "time": t, "objective": 0.25, "lower_bound": 0.2,
                  "gap": 0.2, "nodes": 1234, "memory_mb": 99.0}) is False
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and len(chained) == 6
    assert lines[0] == "[frl     2.1s] objective 0.25 bound 0.2 gap 20.00% nodes 1,234 mem 99 MB"
    assert progress_callback(False) is None
    assert isinstance(progress_callback(True), ProgressPrinter)
    assert format_progress({"time": 1.0}).startswith("[rulecert     1.0s] objective -")


def test_memory_defaults_and_bad_values():
    assert 0 < default_memory_limit_mb() < machine_memory_bytes() / 2**20
    assert resolve_memory_limit_mb("auto") == default_memory_limit_mb()
    assert resolve_memory_limit_mb(None) is None
    assert resolve_memory_limit_mb(512) == 512.0
    for bad in (0, -1, float("nan"), "lots"):
        with pytest.raises(ValueError, match="memory_limit_mb"):
            resolve_memory_limit_mb(bad)


def test_record_keeps_solver_built_samples_with_the_best_bound_and_optional_callback():
    seen = []
    mon = Monitor("corels", callback=lambda info: seen.append(info) or False, history_every=0.5)
    assert mon.due()
    assert mon.record({"time": 0.1, "objective": 0.5, "lower_bound": 0.3, "event": "periodic",
                       "nodes_expanded": 7}, prefix=[1, 2]) is False
    assert not mon.due()                                  # the next periodic sample waits
    mon.record({"time": 0.2, "objective": 0.4, "lower_bound": 0.2, "event": "incumbent"})
    mon.record({"time": 0.3, "objective": 0.4, "lower_bound": 0.35, "event": "end"}, notify=False)
    assert [e["lower_bound"] for e in mon.history] == [0.3, 0.3, 0.35]
    assert len(seen) == 2 and seen[0]["prefix"] == [1, 2] and seen[0]["solver"] == "corels"
    assert "prefix" not in mon.history[0]                  # extras go to the callback only


def test_memory_is_read_at_most_every_memory_every_seconds(monkeypatch):
    import rulecert.monitor as M
    reads = []
    monkeypatch.setattr(M, "resident_memory_bytes", lambda: reads.append(1) or 10 * 2**20)
    mon = M.Monitor("t", memory_limit_mb=1e6, memory_every=3600.0)
    n = len(reads)
    for _ in range(100):
        assert mon.should_stop() is None
    assert len(reads) - n == 1
    assert mon.would_exceed_memory(2e12)                  # growth checks always read afresh


def test_second_ctrl_c_is_an_abort_a_callbacks_keyboardinterrupt_is_not():
    from rulecert.monitor import is_abort
    with catch_interrupt():
        assert not is_abort(KeyboardInterrupt())
        request_interrupt()
        assert is_abort(KeyboardInterrupt()) and not is_abort(ValueError())


def test_progress_printer_follows_a_run_of_several_phases():
    out = io.StringIO()
    p = ProgressPrinter(every=5.0, after=2.0, stream=out)
    for t in (0.5, 1.5, 2.5):        # phase one: printed at 2.5 s
        p({"solver": "frl-monte-carlo", "time": t})
    for t in (0.1, 3.0, 5.1):        # phase two restarts its clock: 2.5 + 5.1 >= 7.5
        p({"solver": "frl-bnb", "time": t})
    assert [line.split()[0] for line in out.getvalue().splitlines()] == ["[frl-monte-carlo",
                                                                         "[frl-bnb"]
