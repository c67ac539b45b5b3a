"""The experiment runner: one tiny study, the same results on every engine, resumable runs,
stable cell hashes, bad input refused before any cell runs."""
import inspect
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import pytest

from rulecert.experiments import CV, Store, Study, comparable, expand, load_results, run
from rulecert.experiments.study import load_study

REPO = Path(__file__).resolve().parents[1]


def tiny(**kw) -> Study:
    """12 cells of a few tenths of a second each, with deterministic limits only (iteration
    and node limits, no time limit), so every engine must give the same records."""
    d = dict(name="tiny", learner="brcg", datasets=["liver", "transfusion"],
             params={"pricers": "bnb"},
             limits={"max_iter": 5, "pricing_nodes": 20000, "pricing_seconds": 1000.0},
             grid={"complexity_bound": [5, 10]}, cv=CV(folds=3, seed=0),
             metrics=["acc", "train_acc", "complexity"])
    d.update(kw)
    return Study(**d)


def quiet(msg):
    pass


@pytest.fixture(scope="module")
def serial(shared_data, tmp_path_factory):
    """The reference: the tiny study run serially."""
    folder = tmp_path_factory.mktemp("serial")
    summary = run(tiny(), results=folder, log=quiet)
    df = load_results(tiny(), folder)
    return folder, summary, df


def test_serial_run_stores_one_record_per_cell(serial):
    folder, summary, df = serial
    n = len(expand(tiny()))
    assert n == 12 and summary["ran"] == n and summary["errors"] == 0
    assert sorted(p.stem for p in (folder / "cells").glob("*.parquet")) == sorted(df["key"])
    assert (df["status"] == "ok").all()
    # the record holds the certificate, metrics, times, versions and the machine
    row = df.iloc[0]
    for col in ("objective", "lower_bound", "rel_gap", "termination", "certificate", "acc",
                "complexity", "fit_time", "cell_time", "versions", "host", "machine"):
        assert col in df.columns and row[col] is not None, col
    assert '"highspy"' in row["versions"] and '"ortools"' in row["versions"]
    assert set(df["termination"]) <= {"optimal", "iteration_limit", "node_limit"}


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_loky_and_dask_give_the_serial_results(serial, tmp_path):
    _, _, ref = serial
    s_loky = run(tiny(), jobs=2, results=tmp_path / "loky", log=quiet)
    s_dask = run(tiny(), jobs=2, dask=True, results=tmp_path / "dask", log=quiet)
    assert (s_loky["engine"], s_dask["engine"]) == ("loky", "dask")
    loky = load_results(tiny(), tmp_path / "loky")
    dask = load_results(tiny(), tmp_path / "dask")
    assert set(loky["engine"]) == {"loky"} and set(dask["engine"]) == {"dask"}
    assert len(set(loky["pid"])) >= 2   # worker processes ran cells
    pd.testing.assert_frame_equal(comparable(loky), comparable(ref))
    pd.testing.assert_frame_equal(comparable(dask), comparable(ref))


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_a_killed_dask_worker_loses_nothing(serial, tmp_path):
    from rulecert.experiments.engines import local_cluster
    distributed = pytest.importorskip("distributed")
    _, _, ref = serial
    n = len(ref)
    folder = tmp_path / "fault"
    with local_cluster(2) as cluster, distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        out = {}
        t = threading.Thread(target=lambda: out.update(
            summary=run(tiny(), client=client, results=folder, log=quiet)))
        t.start()
        deadline = time.time() + 120
        while len(list((folder / "cells").glob("*.parquet"))) < 2 and time.time() < deadline:
            time.sleep(0.02)
        done_at_kill = len(list((folder / "cells").glob("*.parquet")))
        killed_at = datetime.now(timezone.utc).isoformat()
        os.kill(pids[0], signal.SIGKILL)          # a worker dies with cells in flight
        t.join(240)
        assert not t.is_alive()
    assert 2 <= done_at_kill < n
    assert out["summary"]["ran"] == n and out["summary"]["errors"] == 0
    df = load_results(tiny(), folder)
    assert pids[0] not in set(df.loc[df["finished"] > killed_at, "pid"])   # it is gone
    pd.testing.assert_frame_equal(comparable(df), comparable(ref))


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_an_interrupted_run_resumes_without_recomputing(serial, tmp_path):
    _, _, ref = serial
    n = len(ref)
    study_file = tmp_path / "tiny.toml"
    study_file.write_text(TINY_TOML)
    folder = tmp_path / "res"
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from rulecert.cli import main; sys.exit(main())",
                             "run", str(study_file),
                             "--results", str(folder)], env=env, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 120
    while len(list((folder / "cells").glob("*.parquet"))) < 3 and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "rerun to resume" in err
    first = {p.stem: (p.stat().st_mtime_ns, p.read_bytes()) for p in (folder / "cells").glob("*.parquet")}
    assert 3 <= len(first) < n
    first_run = set(Store(folder).read()["run_id"])
    assert len(first_run) == 1

    study, _ = load_study(study_file)
    summary = run(study, results=folder, log=quiet)
    assert summary["skipped"] == len(first) and summary["ran"] == n - len(first)
    for p in (folder / "cells").glob("*.parquet"):
        if p.stem in first:   # finished cells were not recomputed nor rewritten
            assert (p.stat().st_mtime_ns, p.read_bytes()) == first[p.stem]
    df = load_results(study, folder)
    assert len(df) == n
    assert (df["run_id"].isin(first_run)).sum() == len(first)
    runs = Store(folder).runs()
    assert [r["interrupted"] for r in runs] == [True, False]
    pd.testing.assert_frame_equal(comparable(df), comparable(ref))
    # a third run has nothing to do
    assert run(study, results=folder, log=quiet)["ran"] == 0


TINY_TOML = """
name = "tiny"
learner = "brcg"
datasets = ["liver", "transfusion"]
metrics = ["acc", "train_acc", "complexity"]
[params]
pricers = "bnb"
[limits]
max_iter = 5
pricing_nodes = 20000
pricing_seconds = 1000.0
[grid]
complexity_bound = [5, 10]
[cv]
folds = 3
seed = 0
"""


def test_toml_and_dataclass_declare_the_same_cells(shared_data, tmp_path):
    f = tmp_path / "tiny.toml"
    f.write_text(TINY_TOML)
    study, module = load_study(f)
    assert module is None
    assert [c.key for c in expand(study)] == [c.key for c in expand(tiny())]


# ---- cell hashes --------------------------------------------------------------------------
def _key(study, i=0):
    return expand(study)[i].key


def test_cell_hash_is_stable_and_ignores_what_does_not_determine_the_result(shared_data, tmp_path):
    base = _key(tiny(datasets=["liver"]))
    assert base == _key(tiny(datasets=["liver"]))
    # name, results folder, metrics, the order of the grid's keys and of params: same cells
    assert base == _key(tiny(datasets=["liver"], name="other", results=str(tmp_path),
                             metrics=["acc"]))
    assert base == _key(tiny(datasets=["liver"], params={"pricers": "bnb", "form": "dnf"}))
    keys = [c.key for c in expand(tiny())]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("change", [
    dict(limits={"max_iter": 6, "pricing_nodes": 20000, "pricing_seconds": 1000.0}),
    dict(params={"pricers": "auto"}),
    dict(grid={"complexity_bound": [6]}),
    dict(cv=CV(folds=3, seed=1)),
    dict(cv=CV(folds=4, seed=0)),
    dict(threads=2),
])
def test_cell_hash_changes_with_parameters_seed_and_folds(shared_data, change):
    assert _key(tiny(datasets=["liver"])) != _key(tiny(datasets=["liver"], **change))


def test_cell_hash_changes_with_the_package_version(shared_data, monkeypatch):
    from rulecert import _version
    base = _key(tiny(datasets=["liver"]))
    monkeypatch.setattr(_version, "__version__", _version.__version__ + ".post1")
    assert _key(tiny(datasets=["liver"])) != base


def test_cell_hash_changes_with_the_data_file(shared_data, tmp_path, monkeypatch):
    base = _key(tiny(datasets=["liver"]))
    home = tmp_path / "data"
    (home / "liver_bupa").mkdir(parents=True)
    copy = home / "liver_bupa" / "bupa.data"
    shutil.copy(shared_data / "liver_bupa" / "bupa.data", copy)
    monkeypatch.setenv("RULECERT_DATA", str(home))
    assert _key(tiny(datasets=["liver"])) == base          # same bytes elsewhere: same cell
    copy.write_bytes(copy.read_bytes().replace(b"85,92,45", b"85,92,46", 1))
    assert _key(tiny(datasets=["liver"])) != base


# ---- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize("change,named", [
    (dict(learner="ripperx"), "ripperx"),
    (dict(grid={"complexity_bnd": [5]}), "complexity_bnd"),
    (dict(limits={"time_limt": 3}), "time_limt"),
    (dict(datasets=["liver", "irises"]), "irises"),
    (dict(metrics=["acc", "f7"]), "f7"),
    (dict(params={"pricers": "magic"}), "pricers"),
    (dict(cv=CV(kind="loo")), "loo"),
])
def test_a_bad_study_fails_before_any_cell_with_one_line(shared_data, tmp_path, change, named):
    with pytest.raises(ValueError) as exc:
        run(tiny(**change), results=tmp_path / "r", log=quiet)
    msg = str(exc.value)
    assert named in msg and "\n" not in msg
    assert not (tmp_path / "r").exists()


def test_the_command_reports_a_bad_study_in_one_line(shared_data, tmp_path, capsys):
    from rulecert.cli import main
    f = tmp_path / "bad.toml"
    f.write_text(TINY_TOML.replace('learner = "brcg"', 'learner = "brcgg"'))
    assert main(["run", str(f), "--results", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rulecert run: error: unknown learner 'brcgg'") and "\n" not in err
    f.write_text(TINY_TOML + "\n[surprise]\nx = 1\n")
    assert main(["run", str(f)]) == 2
    assert "unknown study key 'surprise'" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_an_unreachable_scheduler_is_a_one_line_error(shared_data, tmp_path, capsys,
                                                     monkeypatch):
    distributed = pytest.importorskip("distributed")
    from rulecert.cli import main
    from rulecert.experiments import engines
    f = tmp_path / "tiny.toml"
    f.write_text(TINY_TOML)
    clients = []        # the connection is bounded by our timeout (not Dask's default 30 s)
    real_client = distributed.Client
    monkeypatch.setattr(distributed, "Client",
                        lambda *a, **kw: clients.append(kw) or real_client(*a, **kw))
    assert main(["run", str(f), "--scheduler", "tcp://127.0.0.1:9", "--results",
                 str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    default_timeout = inspect.signature(engines.connect).parameters["timeout"].default
    assert [kw.get("timeout") for kw in clients] == [default_timeout], clients
    assert err.startswith("rulecert run: error: cannot reach the Dask scheduler at "
                          "'tcp://127.0.0.1:9'") and "\n" not in err
    assert not (tmp_path / "r" / "cells").exists()


def test_a_cell_that_raises_is_recorded_and_the_study_goes_on(shared_data, tmp_path, capsys):
    # C = 1 passes the parameter check (it is valid with empty_clause) but not the fit
    study = tiny(datasets=["liver"], grid={"complexity_bound": [1, 5]}, cv=CV(folds=2))
    summary = run(study, results=tmp_path, log=quiet)
    assert summary["ran"] == 4 and summary["errors"] == 2
    df = load_results(study, tmp_path)
    bad = df[df["p_complexity_bound"] == 1]
    assert (bad["status"] == "error").all() and (df[df["p_complexity_bound"] == 5]["status"] == "ok").all()
    assert all("complexity_bound" in m for m in bad["error"])
    # errors are finished cells: a rerun skips them unless asked to retry
    assert run(study, results=tmp_path, log=quiet)["ran"] == 0
    assert run(study, results=tmp_path, log=quiet, retry_errors=True)["ran"] == 2
    from rulecert.experiments.report import report
    report(study, tmp_path, plot_dir=False)
    out = capsys.readouterr().out
    assert out.count("error: liver") == 2


# ---- report --------------------------------------------------------------------------------
def test_report_tables_and_plots_come_from_the_records(serial, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from rulecert.cli import main
    folder, _, df = serial
    f = tmp_path / "tiny.toml"
    f.write_text(TINY_TOML)
    assert main(["report", str(f), "--results", str(folder), "--plots", str(tmp_path / "p")]) == 0
    out = capsys.readouterr().out
    assert "12 of 12 cells finished" in out
    g = df[(df["dataset"] == "transfusion") & (df["p_complexity_bound"] == 10)]
    row = next(line for line in out.splitlines() if line.startswith("| transfusion | 10 |"))
    assert f"{g['acc'].mean():.4g}" in row and f"{g['complexity'].mean():.4g}" in row
    assert "| serial | 1 | 12 | 0 | 12 |" in out
    for name in ("tradeoff.png", "times.png", "gaps.png"):
        assert (tmp_path / "p" / name).stat().st_size > 1000


# ---- slices, overrides, the ported scripts ---------------------------------------------------
def test_overrides_and_only_select_cells(shared_data, tmp_path):
    study = tiny(datasets=["liver", "transfusion"], grid={}, cv=CV(folds=2),
                 params={"pricers": "bnb", "complexity_bound": 5},
                 overrides=[{"dataset": "liver", "fold": 1, "complexity_bound": 7}])
    cells = expand(study)
    assert [c.params["complexity_bound"] for c in cells] == [5, 7, 5, 5]
    summary = run(study, results=tmp_path, only={"dataset": "liver"}, log=quiet)
    assert summary["cells"] == 2 and summary["ran"] == 2
    df = load_results(study, tmp_path)
    assert list(df["dataset"]) == ["liver", "liver"] and list(df["p_complexity_bound"]) == [5, 7]
    with pytest.raises(ValueError, match="'seed'"):
        run(study, results=tmp_path, only={"seed": 0}, log=quiet)
    with pytest.raises(ValueError, match="no parameter 'complexity'"):
        expand(tiny(overrides=[{"dataset": "liver", "complexity": 3}]))


def _script(name, *args, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, str(REPO / "experiments" / name), *args], env=env,
                         cwd=cwd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out


def test_corels_ablation_runs_on_the_runner_and_prints_its_table(shared_data, tmp_path):
    args = ["--node-limit", "300", "--results", str(tmp_path / "r")]
    first = _script("corels_ablation.py", *args, cwd=tmp_path)
    lines = first.stdout.splitlines()
    assert lines[1].split() == ["variant", "time", "s", "ratio", "expanded", "trie", "ins", "map",
                                "ins", "max", "queue", "termination", "objective", "bound", "gap"]
    rows = lines[2:]
    assert [r[:24].strip() for r in rows] == [
        "CORELS (all bounds)", "no hierarchical", "no lookahead", "no support",
        "no accurate_support", "no equivalent_points", "no permutation", "no prefix_length"]
    assert all(r.split()[-8] == "300" and "node_limit" in r for r in rows)   # nodes expanded
    again = _script("corels_ablation.py", *args, cwd=tmp_path)      # nothing is searched again
    assert "8 already finished, 0 to run" in again.stderr
    def counts(out):   # expanded, insertions, queue, termination, objective, bound, gap
        return [r.split()[-8:] for r in out.stdout.splitlines()[2:]]
    assert counts(again) == counts(first)
    study, module = load_study(REPO / "experiments" / "corels_ablation.py")
    assert module is not None and len(expand(study)) == 8


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_brcg_table_runs_on_the_runner_and_prints_its_tables(shared_data, tmp_path):
    args = ["--datasets", "transfusion", "--folds", "2", "--grid", "5", "10", "--inner-folds",
            "2", "--inner-repeats", "2", "--time-limit", "0", "--pricing-time-limit", "0",
            "--max-iter", "2", "--bnb-node-limit", "2000", "--pricing", "bnb",
            "--results", str(tmp_path / "r")]
    # one fold, then the tables of what is stored without running the other (--report-only)
    _script("brcg_table.py", *args, "--only", "fold=0", cwd=tmp_path)
    rep = _script("brcg_table.py", *args, "--report-only", cwd=tmp_path)
    assert "2 cells, 1 finished, 1 not run (--report-only)" in rep.stderr
    assert "| transfusion | " in rep.stdout and "Partial" in rep.stdout
    assert "transfusion (1 of 2)" in rep.stdout
    assert len(Store(tmp_path / "r").read()) == 1
    out = _script("brcg_table.py", *args, "--out", str(tmp_path / "out.json"), cwd=tmp_path).stdout
    assert "Partial" not in out
    assert ("| dataset | ours acc % (se) | ours complexity (se) | paper CG acc (se) / complexity "
            "| AIX360 acc / complexity | ours s / fold (inner CV + final fit) | C chosen | final "
            "fit proven optimal | vs paper |") in out
    assert "| transfusion | " in out and "C by the one-standard-error rule" in out
    assert "transfusion: C=5: " in out and ", C=10: " in out
    assert "of 1 datasets with a paper figure" in out
    import json
    res = json.loads((tmp_path / "out.json").read_text())["results"]["transfusion"]
    df = Store(tmp_path / "r").read()
    assert len(res) == 2 == len(df)
    assert sorted(r["acc"] for r in res) == sorted(df["acc"])
    assert all(len(accs) == 4 for r in res for accs in r["inner"].values())   # 2 x 2 splits
    import sys
    sys.path.insert(0, str(REPO / "experiments"))
    import brcg_table
    # transfusion's paper figure: 77.9 (s.e. 1.4) at complexity 5.6
    assert brcg_table.met("transfusion", 76.6, 1.3, 5.6) is True
    assert brcg_table.met("transfusion", 76.4, 1.3, 5.0) is False
    assert brcg_table.met("transfusion", 78.0, 0.5, 5.7) is False
    assert brcg_table.met("bank_full", 90.0, 1.0, 3.0) is None


@pytest.mark.slow   # over 6 s on 2 cores: run with -m slow
def test_a_cell_whose_solver_was_interrupted_is_not_stored(shared_data, tmp_path, monkeypatch):
    from rulecert.experiments import engines
    from rulecert.experiments.learners import run_cell
    calls = []

    def fake(cell):   # the second cell's solver is stopped by Ctrl-C and returns its incumbent
        rec = run_cell(cell)
        calls.append(cell.key)
        if len(calls) == 2:
            rec["termination"] = "interrupted"
        return rec

    monkeypatch.setattr(engines, "run_cell", fake)
    study = tiny(datasets=["liver"], grid={"complexity_bound": [5]}, cv=CV(folds=3))
    with pytest.raises(KeyboardInterrupt):
        run(study, results=tmp_path, log=quiet)
    assert [p.stem for p in (tmp_path / "cells").glob("*.parquet")] == calls[:1]
    assert Store(tmp_path).runs()[-1]["interrupted"] is True
    monkeypatch.setattr(engines, "run_cell", run_cell)
    assert run(study, results=tmp_path, log=quiet)["ran"] == 2


def test_a_worker_with_other_versions_records_an_error(shared_data, monkeypatch):
    from rulecert import _version
    from rulecert.experiments.learners import run_cell
    cell = expand(tiny(datasets=["liver"]))[0]
    monkeypatch.setattr(_version, "__version__", "0.0.0")
    rec = run_cell(cell)
    assert rec["status"] == "error" and "rulecert 0.0.0" in rec["error"]


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_the_protocol_trade_off_plot_comes_from_each_fold_path(shared_data, tmp_path):
    pytest.importorskip("matplotlib")
    from rulecert.experiments.report import plots
    _script("brcg_table.py", "--datasets", "liver", "--folds", "2", "--grid", "5", "10",
            "--inner-folds", "2", "--time-limit", "0", "--max-iter", "2", "--bnb-node-limit",
            "2000", "--pricing", "bnb", "--results", str(tmp_path / "r"), cwd=tmp_path)
    df = Store(tmp_path / "r").read()
    files = plots(df, Study(name="t", learner="brcg_protocol", datasets=["liver"]), tmp_path / "p")
    assert str(tmp_path / "p" / "tradeoff.png") in files
