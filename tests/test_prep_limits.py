"""A limit covers the whole command: reading, binarizing and mining count against
``--time-limit``, a limit or Ctrl-C stops mining inside its loops, and the work after a
Rashomon enumeration (collecting the lists, the measures over the set) runs on the same clock.

The slow steps are made slow on purpose (a sleep), so the tests do not depend on the machine's
speed; a SIGALRM guard fails a test that hangs instead of timing anything.
"""
from __future__ import annotations

import json
import signal
import time

import numpy as np
import pandas as pd
import pytest

from rulecert.certificate import Termination
from rulecert.limits import Deadline, LimitStop
from rulecert.mining import mine_antecedents
from rulecert.mining.fpgrowth import fpgrowth_itemsets, mine_fpgrowth
from rulecert.monitor import Monitor, catch_interrupt, request_interrupt
from rulecert.problem import RuleProblem, unique_rows


@pytest.fixture
def hang_guard():
    """Fail (rather than hang) a test still running after 120 s."""
    def _raise(signum, frame):
        raise TimeoutError("hang guard: still running after 120 s")
    previous = signal.signal(signal.SIGALRM, _raise)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


# ---- grouping identical rows: a sort of packed rows, the outputs of np.unique(axis=0) ------
def _old_groups(D):
    rows, inverse, counts = np.unique(D, axis=0, return_inverse=True, return_counts=True)
    return rows, inverse.reshape(-1), counts


@pytest.mark.parametrize("cols", [1, 3, 7, 8, 9, 63, 64, 65, 130])
def test_unique_rows_matches_np_unique(cols):
    rng = np.random.default_rng(cols)
    for n in (1, 2, 50, 700):
        pool = rng.random((max(1, n // 4), cols)) < rng.uniform(0.1, 0.9)
        D = pool[rng.integers(0, len(pool), n)]
        for got, want in zip(unique_rows(D), _old_groups(D)):
            np.testing.assert_array_equal(got, want)
        same = np.repeat(D[:1], n, axis=0)                 # all rows identical
        for got, want in zip(unique_rows(same), _old_groups(same)):
            np.testing.assert_array_equal(got, want)


def test_unique_rows_edge_cases():
    rows, inverse, counts = unique_rows(np.zeros((5, 0), dtype=bool))
    assert rows.shape == (1, 0) and inverse.tolist() == [0] * 5 and counts.tolist() == [5]
    rows, inverse, counts = unique_rows(np.zeros((0, 4), dtype=bool))
    assert rows.shape == (0, 4) and len(inverse) == 0 and len(counts) == 0


@pytest.mark.parametrize("n,cols", [(1, 3), (63, 9), (64, 64), (65, 65), (300, 130), (17000, 12)])
def test_problem_groups_match_np_unique(n, cols):
    """RuleProblem.groups packs the captures chunk by chunk (16,384 samples): same groups, in
    the same order, as np.unique over the dense matrix."""
    rng = np.random.default_rng(n + cols)
    pool = rng.random((max(1, n // 3), cols)) < 0.4
    D = pool[rng.integers(0, len(pool), n)]
    y = rng.integers(0, 2, n)
    P = RuleProblem.from_matrix(D, y)
    patterns, inverse, pos, neg = P.groups
    rows, inv, counts = _old_groups(D)
    np.testing.assert_array_equal(patterns, rows)
    np.testing.assert_array_equal(inverse, inv)
    np.testing.assert_array_equal(pos + neg, counts)
    np.testing.assert_array_equal(pos, np.bincount(inv, weights=y, minlength=len(rows)))


def test_fpgrowth_itemsets_unchanged_on_duplicate_rows():
    rng = np.random.default_rng(2)
    A = (rng.random((40, 6)) < 0.5)[rng.integers(0, 40, 400)]
    found = fpgrowth_itemsets(A, 40, 3)
    for items, count in found.items():
        assert count == int(A[:, list(items)].all(axis=1).sum())
    assert len(found) > 5


# ---- mining stops inside its loops --------------------------------------------------------
def _binary(n=60, d=14, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.random((n, d)) < 0.5).astype(np.int8), rng.integers(0, 2, n)


def _slow_counts(monkeypatch, seconds=0.02):
    """Every support count of the mining sleeps ``seconds``: a mining that cannot finish."""
    from rulecert import bits
    count = bits.count

    def slow(*a, **k):
        time.sleep(seconds)
        return count(*a, **k)
    monkeypatch.setattr(bits, "count", slow)


def test_mining_stops_at_the_deadline(monkeypatch, hang_guard):
    X, y = _binary()
    _slow_counts(monkeypatch)
    monitor = Monitor("test", deadline=Deadline(0.3))
    with pytest.raises(LimitStop) as info:
        mine_antecedents(X, max_card=14, negations=True, monitor=monitor)
    assert info.value.termination is Termination.TIME_LIMIT
    assert "time limit of 0.3 s reached while mining antecedents" in str(info.value)
    with pytest.raises(LimitStop) as info:
        mine_fpgrowth(X, y, max_predicates=14, min_support=0.0, negations=True,
                      monitor=Monitor("test", deadline=Deadline(0.3)))
    assert info.value.termination is Termination.TIME_LIMIT


def test_mining_stops_at_the_first_ctrl_c(monkeypatch, hang_guard):
    X, y = _binary()
    _slow_counts(monkeypatch, 0.005)
    from rulecert import bits
    count, calls = bits.count, []

    def ctrl_c_after_a_while(*a, **k):    # the first Ctrl-C, as the handler records it
        calls.append(1)
        if len(calls) == 20:
            request_interrupt()
        return count(*a, **k)
    monkeypatch.setattr(bits, "count", ctrl_c_after_a_while)
    for method in ("bitset", "fptree"):
        calls.clear()
        with catch_interrupt(), pytest.raises(LimitStop) as info:   # no monitor given
            if method == "bitset":
                mine_antecedents(X, max_card=14, negations=True)
            else:   # FP-growth proper: the interrupt is requested before the trees are mined
                request_interrupt()
                mine_fpgrowth(X, y, max_predicates=14, min_support=0.0, method="fptree")
        assert info.value.termination is Termination.INTERRUPTED
        assert "Ctrl-C" in str(info.value)


def test_mining_with_a_monitor_gives_the_same_antecedents():
    X, y = _binary(seed=3)
    plain = mine_antecedents(X, max_card=3, min_support=0.05, negations=True)
    watched = mine_antecedents(X, max_card=3, min_support=0.05, negations=True,
                               monitor=Monitor("test", deadline=Deadline(600)))
    assert plain.names == watched.names
    np.testing.assert_array_equal(plain.captures, watched.captures)


# ---- the command line: preparation counts against the limit ------------------------------
@pytest.fixture
def csv(tmp_path):
    rng = np.random.default_rng(5)
    X = pd.DataFrame((rng.random((120, 4)) < 0.4).astype(np.int8), columns=list("abcd"))
    y = (X.a | X.c).to_numpy() ^ (rng.random(120) < 0.1)
    path = tmp_path / "d.csv"
    X.assign(y=y.astype(int)).to_csv(path, index=False)
    return str(path)


def _slow_binarize(monkeypatch, seconds):
    import rulecert.cli._data as data
    binarize = data.binarize_frame

    def slow(*a, **k):
        time.sleep(seconds)
        return binarize(*a, **k)
    monkeypatch.setattr(data, "binarize_frame", slow)


COMMANDS = {"corels": [], "crosscheck": ["--c", "0.01"], "frl": ["--method", "exact"],
            "rashomon": [], "brcg": ["--C", "5"]}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_preparation_past_the_limit_is_a_limit_stop(command, csv, monkeypatch, capsys,
                                                    hang_guard):
    from rulecert.cli import main
    _slow_binarize(monkeypatch, 0.6)
    code = main([command, "--data", csv, "--time-limit", "0.3", "--quiet", "--json",
                 *COMMANDS[command]])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err.strip().splitlines()[-1].startswith(
        f"rulecert {command}: stopped: time limit of 0.3 s reached while")
    out = json.loads(captured.out)
    assert out["termination"] == "time_limit" and out["proven_optimal"] is False


def test_the_solver_gets_what_preparation_left(csv, monkeypatch, capsys, hang_guard):
    import rulecert.search.corels as corels_pkg
    from rulecert.cli import main
    _slow_binarize(monkeypatch, 0.5)
    given, corels = [], corels_pkg.solve

    def spy(*a, **k):
        given.append(k["time_limit"])
        return corels(*a, **k)
    monkeypatch.setattr(corels_pkg, "solve", spy)
    assert main(["corels", "--data", csv, "--time-limit", "60", "--quiet"]) == 0
    assert len(given) == 1 and given[0] <= 60 - 0.5
    assert "proven optimal  : True" in capsys.readouterr().out


def test_ctrl_c_while_mining_exits_130_with_one_line(csv, monkeypatch, capsys, hang_guard):
    import rulecert.cli._data as data
    from rulecert.cli import main
    binarize = data.binarize_frame

    def ctrl_c(*a, **k):            # the first Ctrl-C arrives while the data are binarized
        request_interrupt()
        return binarize(*a, **k)
    monkeypatch.setattr(data, "binarize_frame", ctrl_c)
    assert main(["corels", "--data", csv, "--quiet"]) == 130
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "interrupted by the user (Ctrl-C) while" in lines[0]


def test_a_negative_time_limit_is_refused_before_any_work(csv, capsys):
    from rulecert.cli import main
    assert main(["corels", "--data", csv, "--time-limit", "-1"]) == 2
    assert "--time-limit must be >= 0 seconds" in capsys.readouterr().err


# ---- the Rashomon set: the work after the enumeration is under the limit ------------------
def _rashomon_problem():
    rng = np.random.default_rng(11)
    X = (rng.random((80, 6)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] | X[:, 2]) ^ (rng.random(80) < 0.2)).astype(int)
    return RuleProblem.from_matrix(X, y)


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_collecting_the_lists_stops_with_the_best_ones(monkeypatch, hang_guard):
    from rulecert.search.corels import rashomon as R
    P = _rashomon_problem()
    full = R.rashomon_set(P, 0.02, epsilon=0.6)
    assert full.certificate.complete and len(full) > 10
    collect = R._Enumeration.sorted_lists

    def stopped_after_two(self, chunk=2):    # the deadline passes while the lists are collected
        self.monitor.should_stop = lambda: (Termination.TIME_LIMIT, "")
        return collect(self, chunk=2)
    monkeypatch.setattr(R._Enumeration, "sorted_lists", stopped_after_two)
    part = R.rashomon_set(P, 0.02, epsilon=0.6)
    cert = part.certificate
    assert cert.termination == "time_limit" and not cert.complete and cert.n_found == 2
    assert part.prefixes == full.prefixes[:2]
    assert cert.missing_lower_bound <= full.objectives[2] + 1e-12
    assert "the best 2 of" in cert.message


def test_measures_stop_at_the_limit_with_those_of_the_best_lists(monkeypatch):
    import rulecert.models.rashomon as M
    from rulecert.search.corels import rashomon_set
    P = _rashomon_problem()
    rs = rashomon_set(P, 0.02, epsilon=0.6)
    whole = rs.multiplicity(P)
    assert whole["complete"] and whole["n_lists"] == len(rs)
    assert whole["feature_usage"] == rs.feature_usage()
    monkeypatch.setattr(M, "_CELLS", 3 * P.groups[0].shape[0])     # three lists per chunk
    stopped = Monitor("test", deadline=Deadline(0.0))
    part = rs.multiplicity(P, stopped)
    assert part["complete"] is False and part["stopped"] == "time_limit"
    assert part["n_lists"] == 3
    best = M.RashomonSet(rs.prefixes[:3], rs.objectives[:3], rs.c, rs.threshold,
                         rs.certificate, rs.antecedent_names)
    expect = best.multiplicity(P)
    keys = ("ambiguity", "discrepancy", "n_distinct_predictions", "feature_usage")
    assert {k: part[k] for k in keys} == {k: expect[k] for k in keys}
    assert part["feature_usage"] == best.feature_usage() != whole["feature_usage"]


def test_feature_usage_as_counted_list_by_list():
    from rulecert.search.corels import rashomon_set
    P = _rashomon_problem()
    rs = rashomon_set(P, 0.02, epsilon=0.6)
    feats = [set(f) for f in rs._features(None)]
    count = {}
    for p in rs.prefixes:
        for f in set().union(*(feats[a] for a in p)) if p else ():
            count[f] = count.get(f, 0) + 1
    expect = dict(sorted(((f, v / len(rs)) for f, v in count.items()),
                         key=lambda kv: (-kv[1], kv[0])))
    assert rs.feature_usage() == expect


def test_rashomon_command_says_the_measures_are_incomplete(csv, monkeypatch, capsys,
                                                         hang_guard):
    import rulecert.models.rashomon as M
    from rulecert.cli import main
    monkeypatch.setattr(M, "_CELLS", 1)          # one list per chunk
    predictions = M.RashomonSet.group_predictions

    def slow(self, problem, start=0, stop=None):   # the first chunk ends past the limit
        if start == 0:
            time.sleep(3.5)
        return predictions(self, problem, start, stop)
    monkeypatch.setattr(M.RashomonSet, "group_predictions", slow)
    code = main(["rashomon", "--data", csv, "--epsilon", "0.3", "--time-limit", "3",
                 "--node-limit", "50", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "(incomplete, time_limit: the measures above cover the best" in out


def test_the_command_clock_starts_with_the_rulecert_process():
    import argparse

    from rulecert.cli._data import deadline, process_age
    age = process_age()
    assert age > 0.0                              # this process started before this test
    import time
    d = deadline(argparse.Namespace(time_limit=None, started=time.perf_counter() - age))
    assert d.elapsed() >= age
    d = deadline(argparse.Namespace(time_limit=None))   # main() called from Python
    assert d.elapsed() < age


# ---- CORELS's columns over the groups: the problem's block transpose, checked ----------
def _problem_with_groups(n=300, M=70, seed=4):
    rng = np.random.default_rng(seed)
    pool = rng.random((n // 3, M)) < 0.4
    D = np.vstack([pool[rng.integers(0, len(pool), n - 40)], rng.random((40, M)) < 0.5])
    return RuleProblem.from_matrix(D, rng.integers(0, 2, n)), D


@pytest.mark.parametrize("n,M", [(1, 1), (5, 8), (64, 64), (65, 9), (200, 130), (700, 3)])
def test_packed_columns_undoes_the_transpose(n, M):
    from rulecert import bits
    from rulecert.problem import _transposed, packed_columns
    rng = np.random.default_rng(n * M)
    captures = bits.pack(rng.random((M, n)) < 0.5)
    np.testing.assert_array_equal(packed_columns(_transposed(captures, n), M), captures)


def test_kernel_columns_are_the_groups_patterns_packed(monkeypatch):
    from rulecert import bits
    import rulecert.problem as problem_module
    from rulecert.search.corels.data import build_kernel_data
    P, _ = _problem_with_groups()
    monkeypatch.setattr(problem_module, "_CHUNK_BYTES", 64)      # many blocks
    kd = build_kernel_data(P)
    patterns, _, pos, neg = P.groups
    size = pos + neg
    heavy, single = patterns[size >= 2], patterns[size == 1]
    assert len(heavy) and len(single)
    Wh = bits.n_words(len(heavy))
    np.testing.assert_array_equal(kd.capg[:, :Wh], bits.pack(heavy.T))
    np.testing.assert_array_equal(kd.capg[:, Wh:], bits.pack(single.T))


def test_grouping_asks_the_check_between_blocks_and_stops(monkeypatch):
    import rulecert.problem as problem_module
    P, D = _problem_with_groups(n=2000, M=40)
    monkeypatch.setattr(problem_module, "_CHUNK_BYTES", 64)
    calls = []

    def stop_at_the_third(detail=""):
        calls.append(detail)
        if len(calls) == 3:
            raise LimitStop(Termination.TIME_LIMIT, "time limit reached while grouping")
    with pytest.raises(LimitStop):
        P.group_rows(stop_at_the_third)
    assert len(calls) == 3
    rows, inverse, counts = unique_rows(D)               # a stopped grouping is not kept
    patterns, inv, pos, neg = P.groups
    np.testing.assert_array_equal(patterns, rows)
    np.testing.assert_array_equal(pos + neg, counts)


def test_corels_stopped_while_grouping_holds_the_empty_list(monkeypatch, hang_guard):
    import rulecert.problem as problem_module
    from rulecert.search.corels import solve
    P, _ = _problem_with_groups()
    transposed = problem_module._transposed

    def slow(captures, n, check=None):       # the deadline passes while the samples are grouped
        time.sleep(0.3)
        return transposed(captures, n, check)
    monkeypatch.setattr(problem_module, "_transposed", slow)
    model, cert = solve(P, 0.01, time_limit=0.1)
    assert cert.termination is Termination.TIME_LIMIT and not cert.proven_optimal
    assert "while grouping the samples" in cert.message
    assert model.indices == []
    assert cert.lower_bound <= cert.objective
    assert cert.stats["kernel_mode"] == "samples"


# ---- reading and binarizing ask the monitor ----------------------------------------------
def test_csv_read_in_blocks_with_a_check_between(tmp_path, monkeypatch):
    import rulecert.cli._data as data
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"a": rng.normal(size=500).round(3), "b": rng.choice(["u", "v"], 500),
                       "y": rng.integers(0, 2, 500)})
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    monkeypatch.setattr(data, "READ_CELLS", 300)                # 100 rows a block
    calls = []
    got = data.read_csv_frame(str(path), "yes", calls.append)
    pd.testing.assert_frame_equal(got, pd.read_csv(path))
    assert len(calls) >= 5 and "(row 100)" in calls[1]
    with pytest.raises(LimitStop, match="while reading"):
        data.read_csv_frame(str(path), "yes", data_stop(Monitor("t", deadline=Deadline(0.0)),
                                                       "reading"))


def data_stop(monitor, what):
    from rulecert.monitor import stop_check
    return stop_check(monitor, what)


def test_binarizer_asks_the_check_column_by_column():
    from rulecert.mining import FeatureBinarizer
    rng = np.random.default_rng(9)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(list("pqr"), 200)})
    calls = []
    fb = FeatureBinarizer().fit(X, check=calls.append)
    assert calls == [" (column 'a')", " (column 'b')"]
    calls.clear()
    out = fb.transform(X, check=calls.append)
    assert len(calls) == out.shape[1]
    pd.testing.assert_frame_equal(out, FeatureBinarizer().fit_transform(X))
    with pytest.raises(LimitStop, match="time limit of 0 s reached while binarizing"):
        fb.transform(X, check=data_stop(Monitor("t", deadline=Deadline(0.0)), "binarizing"))


def test_literals_are_packed_a_block_at_a_time_under_the_check(monkeypatch):
    import rulecert.mining.antecedents as mining
    from rulecert import bits
    A = np.random.default_rng(3).random((70, 9)) < 0.4
    monkeypatch.setattr(mining, "_PACK_CELLS", 2 * 70)           # two columns a block
    calls = []
    lits, V = mining._literals(A, True, lambda: calls.append(1))
    assert len(calls) == 5 and len(lits) == 18
    assert (V == np.vstack([bits.pack(A.T), bits.pack(~A.T)])).all()
    with pytest.raises(LimitStop, match="time limit of 0 s reached while mining"):
        mining.mine_antecedents(A, max_card=2, monitor=Monitor("t", deadline=Deadline(0.0)))


# ---- progress from inside long steps: heartbeat -------------------------------------------
def test_heartbeat_samples_only_the_run_in_progress_from_its_thread():
    import threading

    from rulecert.monitor import heartbeat, reporting
    infos = []
    m = Monitor("test", callback=infos.append)
    m.sample(7.0, 2.0, event="start")
    heartbeat(phase="outside")                    # no run in progress: nothing
    with reporting(m):
        t = threading.Thread(target=heartbeat, kwargs={"phase": "other thread"})
        t.start()
        t.join()
        heartbeat(phase="pricing", nodes=12)
        heartbeat(phase="too soon")               # the next periodic sample is not due yet
    assert [i.get("phase") for i in infos] == [None, "pricing"]
    assert infos[1]["objective"] == 7.0 and infos[1]["lower_bound"] == 2.0
    assert infos[1]["nodes"] == 12 and infos[1]["event"] == "periodic"


def test_command_progress_comes_from_its_own_thread_during_a_step_that_asks_nothing(
        hang_guard):
    """The command's lines keep coming while a step that never calls back runs (here: a
    wait), show the last sample a solver gave (as an old one once it is), and stop at close."""
    import io
    import threading

    from rulecert.cli._run import CommandProgress
    out, printed = io.StringIO(), threading.Event()

    class Stream:
        def write(self, text):
            out.write(text)
            if out.getvalue().count("\n") >= 2:
                printed.set()

        def flush(self):
            pass
    p = CommandProgress(time.perf_counter(), every=0.05, after=0.0, stream=Stream())
    assert printed.wait(60)                       # a step that asks no monitor: two lines
    assert out.getvalue().splitlines()[0].endswith("] preparing the data")
    assert p({"solver": "frl", "time": 1.0, "objective": 0.25, "lower_bound": 0.2}) is False
    printed.clear()
    n = out.getvalue().count("\n")
    while out.getvalue().count("\n") < n + 2:    # two more lines from the solver's sample
        assert printed.wait(60)
        printed.clear()
    after = out.getvalue().splitlines()[n:]
    assert all("[frl " in line and "objective 0.25 bound 0.2" in line for line in after)
    # the second line after the sample is more than a period after it: shown as old
    assert after[1].startswith("[rulecert ") and "working; the last sample" in after[1]
    p({"solver": "frl", "time": 2.0, "event": "end"})          # an end: printed at once
    assert out.getvalue().splitlines()[-1].endswith("frl finished; summarizing")
    p.close()
    n = out.getvalue().count("\n")
    time.sleep(0.3)                               # six periods of the thread
    assert out.getvalue().count("\n") == n        # nothing after close


def _slow_bnb_rounds(monkeypatch, seconds):
    """Every branch-and-bound round sleeps ``seconds`` and the first expands one node."""
    import rulecert.mipmodels.colgen.pricing.bnb as bnb
    compiled = bnb._run

    def slow(*a):
        time.sleep(seconds)
        return compiled(*a)
    monkeypatch.setattr(bnb, "_run", slow)
    monkeypatch.setattr(bnb, "round_nodes", lambda words, literals: 1)


@pytest.mark.slow   # over 6 s on 2 cores (loading the branch-and-bound kernel): -m slow
def test_strengthening_reports_progress_and_stops_at_its_time_limit(monkeypatch, hang_guard):
    from rulecert.mipmodels.colgen import solve, strengthen_bound
    from test_colgen import _instance
    X, y = _instance(400, n=40, d=9, noise=0.25)
    P = RuleProblem.from_matrix(X, y, [f"f{j}" for j in range(9)])
    sol = solve(P, complexity_bound=6, max_clause_length=3, max_iter=1, pricers="heuristic",
                bound_search_steps=0, close_gap=False, seed=0)
    assert not sol.certificate.proven_optimal
    _slow_bnb_rounds(monkeypatch, 0.2)          # one round outlasts the time limit
    infos = []
    out = strengthen_bound(P, sol, 10**9, time_limit=0.05, callback=infos.append)
    done = out.certificate.stats["bound_strengthening"]
    assert done["time_limit"] is True and done["interrupted"] is False
    assert out.certificate.lower_bound >= sol.certificate.lower_bound
    assert infos[0]["event"] == "bound strengthening"
    assert any(i.get("phase") == "branch-and-bound pricing" for i in infos)


def test_all_distinct_samples_are_the_columns_themselves(monkeypatch):
    import rulecert.search.corels.loop as loop
    from rulecert.search.corels import solve
    from rulecert.search.corels.data import build_kernel_data
    rng = np.random.default_rng(12)
    D = rng.random((60, 14)) < 0.5
    assert len(unique_rows(D)[0]) == 60
    P = RuleProblem.from_matrix(D, rng.integers(0, 2, 60))
    kd = build_kernel_data(P)
    assert kd.mode == "samples" and kd.n_minority == 0
    np.testing.assert_array_equal(kd.capg, P.captures)
    _, auto = solve(P, 0.02)
    monkeypatch.setattr(loop, "build_kernel_data",
                        lambda prob, check=None: build_kernel_data(prob, "groups", check))
    _, grouped = solve(P, 0.02)
    assert auto.proven_optimal and grouped.proven_optimal
    assert auto.objective == grouped.objective


def test_falling_search_data_split_stops_between_blocks(monkeypatch):
    import rulecert.search.falling.bounds as fb
    P, _ = _problem_with_groups(n=300, M=70)
    calls = []

    def stop_at_the_second(detail=""):
        calls.append(detail)
        if len(calls) == 2:
            raise LimitStop(Termination.TIME_LIMIT, "time limit reached while splitting")
    whole = fb.FallingData(P)
    fb.FallingData(P, stop_at_the_second)       # one block on small data: no check at all
    assert calls == []
    monkeypatch.setattr(fb, "_SPLIT_BITS", P.n_samples * 10)     # ten antecedents a block
    with pytest.raises(LimitStop):
        fb.FallingData(P, stop_at_the_second)
    assert calls == [" (10 of 70 antecedents)", " (20 of 70 antecedents)"]
    calls.clear()
    blocked = fb.FallingData(P, calls.append)
    np.testing.assert_array_equal(blocked.capP, whole.capP)
    np.testing.assert_array_equal(blocked.capN, whole.capN)
