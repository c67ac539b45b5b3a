"""Run a study's unfinished cells serially, on local processes (joblib / loky) or on a Dask
cluster, writing each record as it arrives.

The engine decides only where a cell runs: a cell's result depends on its specification alone
(with deterministic limits it is identical whichever engine ran it).  Records are written by
this process (the driver) as results arrive, so a Dask cluster needs no shared results
folder, and an interrupted run loses at most the cells in flight.  Workers run one cell at a
time (loky: ``n_jobs`` processes; Dask: ``threads_per_worker=1`` for the local cluster) and
are started with ``OMP_NUM_THREADS`` and friends set to the study's ``threads``; local worker
processes end with the driver (killed when it dies, even inside a cell).

Runs of one study may go at once (on one host, or on hosts sharing the results folder): each
claims a cell before computing it (:meth:`.Store.claim`), skips the cells another live run
claimed and, after its own, waits for them (or computes those whose run ended without a
record).  A file in ``cells/`` that is no record (damaged, or another cell's record) is named
and its cell computed again.
"""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time
import uuid
from datetime import datetime, timezone

from ..monitor import interrupt_requested
from .learners import THREAD_ENV, run_cell
from . import options
from .store import HOST, Store
from .study import Study, expand


add_arguments = options.add_arguments
"""The engine options of ``rulecert run`` (:mod:`.options`), for scripts."""


@contextlib.contextmanager
def thread_env(threads: int):
    """Set the thread-pool variables that worker processes inherit; restore them after."""
    old = {k: os.environ.get(k) for k in THREAD_ENV}
    os.environ.update({k: str(threads) for k in THREAD_ENV})
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _serial(cells, **_):
    for cell in cells:
        yield run_cell(cell)


_WATCHED: list = []


def _end_with(parent: int, pdeathsig: bool) -> None:
    """Make this worker process end when its driver ``parent`` does, even inside a long cell.

    A thread exits the worker within a second of the driver's death; on Linux, with
    ``pdeathsig``, the kernel kills it at once (``PR_SET_PDEATHSIG``), even while a solver holds
    the GIL.  That signal follows the driver *thread* that started the worker, so the driver
    asks for it only from its main thread (a run on another thread keeps the reusable workers
    alive after that thread ends)."""
    if _WATCHED:
        return
    _WATCHED.append(parent)
    if pdeathsig and sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    if os.getppid() != parent:     # the driver died before the signal was set
        os._exit(1)
    threading.Thread(target=watch, name="rulecert-driver-watch", daemon=True).start()


def _in_worker(fn, parent, pdeathsig, cell):
    """``fn(cell)`` in a local worker process that ends with its driver."""
    _end_with(parent, pdeathsig)
    return fn(cell)


def _loky(cells, jobs, **_):
    from joblib import Parallel, delayed
    parent, main = os.getpid(), threading.current_thread() is threading.main_thread()
    yield from Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered")(
        delayed(_in_worker)(run_cell, parent, main, c) for c in cells)


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ValueError("the Dask engine needs dask.distributed: pip install 'rulecert[dask]'") from None
    return distributed


def connect(scheduler: str, timeout: float = 5.0):
    """A ``dask.distributed.Client`` of the scheduler at ``scheduler``; one-line error when it
    cannot be reached."""
    distributed = _import_distributed()
    try:
        return distributed.Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        msg = " ".join(str(exc).split())[:200]
        raise ValueError(f"cannot reach the Dask scheduler at {scheduler!r}: {msg}") from None


def _end_with_driver(parent: int):
    """A Dask worker plugin: each worker of the driver's own ``LocalCluster`` (a child of the
    driver ``parent``) ends with it (:func:`_end_with`), also one its nanny restarts.  Dask's
    own check of its parent is a thread, which a cell holding the GIL (a compiled solver)
    keeps from running: the kernel's signal does not wait for it."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class EndWithDriver(WorkerPlugin):
        name = "rulecert-end-with-driver"

        def setup(self, worker):
            _end_with(parent, True)

    return EndWithDriver()


def local_cluster(n_workers: int, **kwargs):
    """A ``LocalCluster`` of ``n_workers`` single-threaded worker processes (no dashboard)."""
    distributed = _import_distributed()
    import logging
    kw = dict(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
              silence_logs=logging.ERROR)
    kw.update(kwargs)
    return distributed.LocalCluster(**kw)


def _dask(cells, client, **_):
    from distributed import as_completed
    cells = list(cells)
    futures = client.map(run_cell, cells, key=[f"rulecert-cell-{c.key}" for c in cells],
                         pure=False)
    by_future = dict(zip(futures, cells))
    try:
        for fut in as_completed(futures):
            try:
                yield fut.result()
            except Exception as exc:   # e.g. KilledWorker: the cell's worker died too often
                cell = by_future[fut]
                yield {"key": cell.key, "learner": cell.learner, "dataset": cell.dataset,
                       "data_sha256": cell.data_sha256, "repeat": cell.repeat,
                       "fold": cell.fold, "seed": cell.seed, "status": "error",
                       "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"}
    finally:
        client.cancel([f for f in futures if not f.done()])


def run(study: Study, *, jobs: int | None = None, dask: bool = False,
        scheduler: str | None = None, client=None, results=None, retry_errors: bool = False,
        only: dict | None = None, log=None, scheduler_timeout: float = 5.0,
        report_only: bool = False) -> dict:
    """Run the study's unfinished cells; returns the run's summary (also appended to
    ``runs.jsonl``).

    ``jobs``: local worker processes (joblib/loky; with ``dask=True`` a Dask ``LocalCluster``);
    ``scheduler``: address of a Dask scheduler; ``client``: a ``dask.distributed.Client`` to
    use as is.  None of them: serial, in this process.  Finished cells (and, unless
    ``retry_errors``, cells recorded as errors) are skipped, and so are the cells another live
    run is computing (this run waits for them at the end; ``by_other`` in the summary counts
    the cells other runs stored meanwhile).  ``only``: run just the cells
    whose dataset / repeat / fold equal the given values (a slice of the study).
    ``report_only``: run nothing, only count what is stored (a script then prints its tables
    from the finished cells while another process is still running the rest).
    """
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"--jobs must be an integer >= 1, got {jobs!r}")
    if scheduler is not None and (jobs is not None or dask):
        raise ValueError("give either --scheduler ADDRESS or --jobs N [--dask], not both")
    cells = expand(study)                      # every check happens here, before any cell runs
    if only:
        bad = set(only) - {"dataset", "repeat", "fold"}
        if bad:
            raise ValueError(f"--only selects by dataset, repeat or fold, not {sorted(bad)[0]!r}")
        cells = [c for c in cells if all(str(getattr(c, k)) == str(v) for k, v in only.items())]
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ValueError("the runner stores its results as Parquet: pip install 'rulecert[runner]'") from None
    store = Store(results or study.results_dir())
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    bad: dict = {}
    done = store.finished(bad)                 # key -> (status, run_id) of every good record
    keys = {c.key for c in cells}
    for name, why in sorted(bad.items()):
        if name.removesuffix(".parquet") in keys:
            log(f"{study.name}: cells/{name} {why}: "
                f"{'not counted' if report_only else 'the cell is computed again'}")
    pending = [c for c in cells if c.key not in done
               or (retry_errors and done[c.key][0] == "error")]
    if report_only:
        log(f"{study.name}: {len(cells)} cells, {len(cells) - len(pending)} finished, "
            f"{len(pending)} not run (--report-only)")
        return {"study": study.name, "cells": len(cells), "skipped": len(cells) - len(pending),
                "ran": 0, "errors": 0, "pending": len(pending), "wall_time": 0.0}
    own = None
    if client is not None:
        engine, workers = "dask", len(client.scheduler_info().get("workers", {}))
    elif scheduler is not None:
        own = client = connect(scheduler, scheduler_timeout)
        engine, workers = "dask", len(client.scheduler_info().get("workers", {}))
    elif dask:
        engine, workers = "dask", jobs or 1
    elif jobs and jobs > 1:
        engine, workers = "loky", jobs
    else:
        engine, workers = "serial", 1
    summary = {"run_id": uuid.uuid4().hex[:12], "study": study.name, "engine": engine,
               "workers": workers, "cells": len(cells), "skipped": len(cells) - len(pending),
               "ran": 0, "errors": 0, "by_other": 0, "host": socket.gethostname(),
               "started": datetime.now(timezone.utc).isoformat(), "interrupted": False}
    for name in store.clean():
        log(f"{study.name}: removed {name}, left by a killed write")
    store.write_study(study.to_dict())
    log(f"{study.name}: {len(cells)} cells, {summary['skipped']} already finished, "
        f"{len(pending)} to run ({engine}, {workers} worker{'s' * (workers != 1)})")
    held: set = set()        # cells this run claimed and has not stored yet
    others: dict = {}        # cells claimed by another run: waited for at the end

    def name(cell):
        return f"{cell.dataset} r{cell.repeat} f{cell.fold} {cell.key[:10]}"

    def claimed(batch):
        """The cells of ``batch`` this run claims and that no other run stored meanwhile."""
        for cell in batch:
            holder = store.claim(cell.key, summary["run_id"])
            if holder is not None:
                if cell.key not in others:
                    log(f"{name(cell)} is being computed by another run (pid "
                        f"{holder.get('pid')} on {holder.get('host')}): waiting for it")
                others[cell.key] = cell
                continue
            held.add(cell.key)
            now = store.record(cell.key)
            if now is not None and now != done.get(cell.key):   # stored by another run
                store.release(cell.key)
                held.discard(cell.key)
                summary["by_other"] += 1
                continue
            yield cell

    def wait_for_others():
        """Wait until each cell claimed by another run is stored (counted) or its claim
        lapses without a record (returned: this run computes it).  A cell claimed on another
        host is not waited for: its run cannot be seen from here."""
        while others:
            free = []
            for key, cell in list(others.items()):
                now = store.record(key)
                if now is not None and now != done.get(key):
                    del others[key]
                    summary["by_other"] += 1
                    continue
                holder = store.holder(key)
                if holder is None or not store.live(holder, store.claim_path(key)):
                    del others[key]
                    free.append(cell)
                elif holder and holder.get("host") != HOST:
                    del others[key]
                    log(f"{name(cell)} is claimed by a run on host {holder.get('host')} (pid "
                        f"{holder.get('pid')}); not waited for: rerun once it is done, or "
                        f"remove {store.claim_path(key)} if that run is gone")
            if free:
                return free
            if others:
                if interrupt_requested():
                    raise KeyboardInterrupt
                time.sleep(0.2)
        return []

    t0 = time.perf_counter()
    cluster = None
    try:
        with thread_env(study.threads):
            if engine == "dask" and client is None and pending:
                cluster = local_cluster(workers)
                own = client = _import_distributed().Client(cluster)
                client.register_plugin(_end_with_driver(os.getpid()))
            batch = pending
            while batch:
                for rec in {"serial": _serial, "loky": _loky, "dask": _dask}[engine](
                        claimed(batch), jobs=workers, client=client):
                    if rec.get("termination") == "interrupted":
                        # a solver stopped by Ctrl-C returns its incumbent: not the cell's
                        # result, so it is not stored and the run stops (a rerun computes it)
                        raise KeyboardInterrupt
                    rec.update(study=study.name, engine=engine, run_id=summary["run_id"])
                    store.write(rec)
                    store.release(rec["key"])
                    held.discard(rec["key"])
                    summary["ran"] += 1
                    summary["errors"] += rec["status"] == "error"
                    what = (f"acc {rec['acc']:.3f}" if rec.get("acc") is not None
                            else rec.get("error") or "")
                    log(f"[{summary['ran']}/{len(pending)}] {rec['dataset']} r{rec['repeat']} "
                        f"f{rec['fold']} {rec['key'][:10]} {rec['status']} {what}")
                    if interrupt_requested():
                        # Ctrl-C (under rulecert.monitor.catch_interrupt) between or inside
                        # cells that do not watch it: stop after storing the cell that finished
                        raise KeyboardInterrupt
                batch = wait_for_others()
    except BaseException:
        summary["interrupted"] = True
        raise
    finally:
        for key in list(held):
            store.release(key)
        summary["wall_time"] = time.perf_counter() - t0
        store.log_run(summary)
        if own is not None:
            own.close()
        if cluster is not None:
            cluster.close()
    by_other = f", {summary['by_other']} by another run" if summary["by_other"] else ""
    log(f"{study.name}: ran {summary['ran']} cells ({summary['errors']} errors){by_other} in "
        f"{summary['wall_time']:.1f}s; results in {store.folder}")
    return summary


def run_from_args(study: Study, args, **kwargs) -> dict:
    """:func:`run` with the options of :func:`add_arguments`."""
    only = None
    if args.only:
        if any("=" not in kv for kv in args.only):
            raise ValueError(f"--only takes KEY=VALUE, got {args.only!r}")
        only = dict(kv.split("=", 1) for kv in args.only)
    return run(study, jobs=args.jobs, dask=args.dask, scheduler=args.scheduler,
               results=args.results, retry_errors=args.retry_errors, only=only,
               report_only=getattr(args, "report_only", False), **kwargs)
