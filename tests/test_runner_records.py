"""Records that survive: a damaged or misplaced record is named, skipped by the report and
computed again by the next run; leftovers of killed writes are removed; two runs of one study
at once share its cells (each computed once) and both finish; local workers end with their
driver.  The studies use a learner that fits nothing (a counted constant), so each takes a
second or two; the tests that start interpreters of their own are marked slow (run them with
``-m slow``)."""
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rulecert.experiments import Store, expand, run
from rulecert.experiments.report import report
from rulecert.experiments.store import HOST, alive
from rulecert.experiments.study import load_study

REPO = Path(__file__).resolve().parents[1]

# A .py study: its learner predicts the majority-free constant 0 and appends one line per fit
# ("pid cb seed") to computed.txt beside the study file; with barrier = 1 every fit waits
# (30 s at most) until two processes have fitted, so two runs started together overlap.
COUNTED_PY = '''
import os, time
from pathlib import Path
import numpy as np
from rulecert.experiments import CV, Study
from rulecert.experiments.learners import Fit, Learner, register

COUNTER = Path(__file__).parent / "computed.txt"


def _fit(params, data, tr, te, seed, threads):
    with open(COUNTER, "a") as fh:
        fh.write(f"{os.getpid()} {params['cb']} {seed}\\n")
    deadline = time.time() + 30          # a hang guard, not a timing
    while params["barrier"] and time.time() < deadline and len(
            {line.split()[0] for line in COUNTER.read_text().splitlines()}) < 2:
        time.sleep(0.05)
    return Fit(np.zeros(len(te), int), np.zeros(len(tr), int), complexity=float(params["cb"]))


register(Learner("counted", {"cb": 0, "barrier": 0}, _fit))


def build_study():
    return Study(name="counted", learner="counted", datasets=["liver"],
                 params={"barrier": BARRIER}, grid={"cb": [0, 1, 2]}, cv=CV(kind="split", repeats=2),
                 results=str(Path(__file__).parent / "res"))
'''


def counted(tmp_path, barrier=0):
    f = tmp_path / "counted.py"
    f.write_text(COUNTED_PY.replace("BARRIER", str(barrier)))
    return f


def fits(tmp_path):
    """(pid, cb, seed) of every fit so far."""
    p = tmp_path / "computed.txt"
    return [tuple(line.split()) for line in p.read_text().splitlines()] if p.exists() else []


def env():
    return dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def quiet(msg):
    pass


# ---- damaged and misplaced records ----------------------------------------------------------
def flip(p: Path):
    """Flip the last byte of each column's chunk: values, not the footer nor page headers."""
    import pyarrow.parquet as pq
    rg = pq.ParquetFile(p).metadata.row_group(0)
    b = bytearray(p.read_bytes())
    for i in range(rg.num_columns):
        c = rg.column(i)
        start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
        b[start + c.total_compressed_size - 1] ^= 0xFF
    p.write_bytes(bytes(b))


def truncate(p: Path):
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


@pytest.mark.parametrize("damage", ["flip", "truncate", "copy"])
def test_a_bad_record_is_named_skipped_by_report_and_computed_again(shared_data, tmp_path,
                                                                    capsys, damage):
    from rulecert.cli import main
    f = counted(tmp_path)
    study, _ = load_study(f)
    folder = Path(study.results)
    cells = expand(study)
    assert run(study, log=quiet)["ran"] == len(cells) == 6
    victim = folder / "cells" / f"{cells[3].key}.parquet"
    if damage == "flip":
        flip(victim)
    elif damage == "truncate":
        truncate(victim)
    else:       # a valid record, of another cell
        victim.write_bytes((folder / "cells" / f"{cells[0].key}.parquet").read_bytes())
    capsys.readouterr()

    assert main(["report", str(f), "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert "5 of 6 cells finished" in out
    line = next(x for x in out.splitlines() if x.startswith("skipped:"))
    assert victim.name in line and "`rulecert run` computes it again" in line
    assert ("another cell" in line) == (damage == "copy")
    assert out.count("skipped:") == 1

    before = len(fits(tmp_path))
    assert main(["run", str(f)]) == 0
    err = capsys.readouterr().err
    assert f"cells/{victim.name}" in err and "computed again" in err
    assert "ran 1 cells" in err
    assert len(fits(tmp_path)) == before + 1                # that cell only
    assert Store(folder).record(cells[3].key)[0] == "ok"
    report(study, folder, file=(buf := io.StringIO()), plot_dir=False)
    assert "6 of 6 cells finished" in buf.getvalue() and "skipped:" not in buf.getvalue()


def test_load_results_names_a_skipped_cell_on_stderr(shared_data, tmp_path, capsys):
    from rulecert.experiments import load_results
    study, _ = load_study(counted(tmp_path))
    run(study, log=quiet)
    cell = expand(study)[1]
    truncate(Path(study.results) / "cells" / f"{cell.key}.parquet")
    assert len(load_results(study)) == 5
    assert f"{cell.key}.parquet is damaged" in capsys.readouterr().err


# ---- leftovers and claims of killed runs ----------------------------------------------------
def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_leftovers_of_killed_writes_are_removed_and_dead_claims_taken_over(shared_data,
                                                                          tmp_path):
    study, _ = load_study(counted(tmp_path))
    folder = Path(study.results)
    cells_dir = folder / "cells"
    cells_dir.mkdir(parents=True)
    key = expand(study)[2].key
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        dead = dead_pid()
        gone = [cells_dir / f".{key}.parquet.{HOST}.{dead}.k1llme_.tmp",   # its writer died
                folder / ".study.json.tmp"]                                # old, any writer
        kept = [cells_dir / f".{key}.parquet.{HOST}.{sleeper.pid}.wr1t1ng.tmp",  # writing now
                cells_dir / f".{key}.parquet.tmp"]                         # fresh, unknown
        for p in gone + kept:
            p.write_bytes(b"PAR1 half a record")
        old = time.time() - 2 * 3600
        os.utime(folder / ".study.json.tmp", (old, old))
        # the claim of a run killed on this host: taken over
        (cells_dir / f"{key}.claim").write_text(json.dumps(
            {"pid": dead, "host": HOST, "time": time.time(), "run": "killed"}))
        logged = []
        summary = run(study, log=logged.append)
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()
    assert summary["ran"] == 6 and summary["by_other"] == 0
    assert [p.exists() for p in gone] == [False, False]
    assert [p.exists() for p in kept] == [True, True]
    assert sum("left by a killed write" in m for m in logged) == 2
    assert not list(cells_dir.glob("*.claim"))
    assert len(Store(folder).finished()) == 6


def test_a_cell_claimed_by_a_live_run_is_waited_for(shared_data, tmp_path):
    study, _ = load_study(counted(tmp_path))
    folder = Path(study.results)
    cells = expand(study)
    store = Store(folder)
    store.cells.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        for c in cells[1:3]:      # another run computes two cells
            (store.cells / f"{c.key}.claim").write_text(json.dumps(
                {"pid": holder.pid, "host": HOST, "time": time.time(), "run": "other"}))
        logged, out = [], {}
        t = threading.Thread(target=lambda: out.update(summary=run(study, log=logged.append)))
        t.start()
        deadline = time.time() + 120
        while sum("waiting for it" in m for m in logged) < 2 and time.time() < deadline:
            time.sleep(0.02)
        while len(store.finished()) < 4 and time.time() < deadline:
            time.sleep(0.02)
        assert t.is_alive()              # the run waits for the two claimed cells
        assert len(fits(tmp_path)) == 4
        # the other run stores one of them, then dies before the second
        store.write({"key": cells[1].key, "status": "ok", "run_id": "other", "dataset": "liver",
                     "repeat": 0, "fold": 1})
        (store.cells / f"{cells[1].key}.claim").unlink()
        holder.kill()
        holder.wait()
        t.join(120)
        assert not t.is_alive()
    finally:
        holder.kill()
        holder.wait()
    assert out["summary"]["ran"] == 5 and out["summary"]["by_other"] == 1
    assert len(fits(tmp_path)) == 5
    assert store.record(cells[1].key) == ("ok", "other")
    assert store.record(cells[2].key)[1] == out["summary"]["run_id"]
    assert not list(store.cells.glob("*.claim"))


def test_concurrent_study_writes_never_collide(tmp_path):
    store = Store(tmp_path)
    errors = []

    def write():
        try:
            for i in range(200):
                store.write_study({"name": "s", "i": i})
        except Exception as exc:      # the old fixed temporary name: FileNotFoundError
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert json.loads((tmp_path / "study.json").read_text())["name"] == "s"
    assert not list(tmp_path.glob(".*.tmp"))


# ---- two runs at once -------------------------------------------------------------------------
@pytest.mark.slow      # two fresh interpreters: about 3 CPU seconds, more wall time on a busy machine
def test_two_runs_of_one_study_at_once_compute_each_cell_once(shared_data, tmp_path):
    f = counted(tmp_path, barrier=1)
    procs = [subprocess.Popen([sys.executable, "-m", "rulecert", "run", str(f)], env=env(),
                              cwd=tmp_path, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    errs = [p.communicate(timeout=180)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    done = fits(tmp_path)
    assert sorted((cb, seed) for _, cb, seed in done) == sorted(
        (str(cb), str(seed)) for cb in (0, 1, 2) for seed in (0, 1))    # each cell once
    assert len({pid for pid, _, _ in done}) == 2                        # both runs computed
    study, _ = load_study(f)
    runs = Store(study.results).runs()
    assert len(runs) == 2 and sum(r["ran"] for r in runs) == 6
    assert len(Store(study.results).finished()) == 6
    assert not list((Path(study.results) / "cells").glob("*.claim"))
    assert any("being computed by another run" in e for e in errs)


# ---- workers end with their driver --------------------------------------------------------------
SLEEPY = '''
import ctypes, os, time
from pathlib import Path

def run_cell(cell):
    (Path(__file__).parent / f"worker-{os.getpid()}.pid").write_text("")
    time.sleep(600)

def run_cell_holding_the_gil(cell):      # as a compiled solver that holds the GIL
    (Path(__file__).parent / f"worker-{os.getpid()}.pid").write_text("")
    ctypes.PyDLL(None).sleep(600)
'''

DRIVER = '''
import sys, threading
import sleepy
from rulecert.experiments import CV, Study, engines
engines.run_cell = getattr(sleepy, sys.argv[4])
go = lambda: engines.run(Study(name="s", learner="baseline", datasets=["liver"], cv=CV(folds=4)),
                         jobs=2, dask=sys.argv[3] == "dask", results=sys.argv[1])
if __name__ == "__main__" and sys.argv[2] == "thread":
    t = threading.Thread(target=go)
    t.start()
    t.join()
elif __name__ == "__main__":
    go()
'''


@pytest.mark.slow      # a driver and two loky or Dask workers started from scratch
@pytest.mark.parametrize("where, engine, cell", [
    ("main", "loky", "run_cell"), ("thread", "loky", "run_cell"),
    ("main", "dask", "run_cell_holding_the_gil"), ("thread", "dask", "run_cell_holding_the_gil"),
])
def test_local_workers_end_when_their_driver_is_killed(shared_data, tmp_path, where, engine, cell):
    """From the main thread the kernel ends the loky workers; from another, their watch
    thread.  The workers of the driver's own Dask cluster are ended by the kernel, even inside
    a cell that holds the GIL (Dask's own watch is a thread, which that cell stops)."""
    if engine == "dask":
        pytest.importorskip("distributed")
    (tmp_path / "sleepy.py").write_text(SLEEPY)
    e = env()
    e["PYTHONPATH"] = str(tmp_path) + os.pathsep + e["PYTHONPATH"]
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path / "res"), where,
                               engine, cell], env=e, cwd=tmp_path, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while len(list(tmp_path.glob("worker-*.pid"))) < 2 and time.time() < deadline:
            time.sleep(0.05)
        workers = [int(p.name[len("worker-"):-len(".pid")]) for p in tmp_path.glob("worker-*.pid")]
        assert len(workers) == 2 and driver.poll() is None
        driver.send_signal(signal.SIGKILL)
        driver.wait(60)
        deadline = time.time() + 120          # the cells sleep 600 s: only the driver's end ends them
        while any(alive(w) for w in workers) and time.time() < deadline:
            time.sleep(0.1)
        assert not any(alive(w) for w in workers)
    finally:
        driver.kill()
        for w in [int(p.name[7:-4]) for p in tmp_path.glob("worker-*.pid")]:
            try:
                os.kill(w, signal.SIGKILL)
            except ProcessLookupError:
                pass


# ---- the docs say that a .py study runs ----------------------------------------------------------
@pytest.mark.parametrize("command", ["run", "report"])
def test_the_help_says_a_py_study_is_code(command, capsys):
    from rulecert.cli import main
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "A .py study is Python code: it is executed" in out
    assert "is code" in load_study.__doc__ and "runs the whole file" in " ".join(load_study.__doc__.split())
