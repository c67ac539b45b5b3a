"""The results folder: one Parquet file per finished cell, written atomically, claimed while
it is computed, checked when it is read.

Layout of ``<results>/``: ``cells/<key>.parquet`` (one row: the record of :func:`run_cell`),
``cells/<key>.claim`` (while a run computes the cell), ``study.json`` (the study as last run)
and ``runs.jsonl`` (one line per run: engine, workers, cells run and skipped, wall time).

* A file is written to a temporary file of its own in the same folder
  (``.<name>.<host>.<pid>.<random>.tmp``) and moved into place with ``os.replace``, so a killed
  run leaves whole files or none, and writers never share a temporary name.  The leftovers of
  a killed write are removed by the next run (:meth:`Store.clean`): those whose writer is gone
  (same host, the process no longer exists) or that are older than an hour.
* A record is read whole with its Parquet page checksums verified, and it must hold one row
  whose ``key`` is its file name: a damaged file, or a record copied over another cell's
  file, is no record (it is named, skipped by reports and recomputed by runs).
* A run claims a cell before computing it (:meth:`Store.claim`: an exclusive create of
  ``<key>.claim`` holding pid, host, process start and time) and removes the claim once the
  record is in place, so two runs of one study share its cells instead of computing each
  twice.  A claim whose process is gone (same host) is taken over; a claim from another host
  cannot be checked and is left to that host (remove it by hand if that run is gone).
"""
from __future__ import annotations

import json
import os
import socket
import tempfile
import time
from pathlib import Path

import pandas as pd

HOST = socket.gethostname().replace(".", "_")
STALE_TMP_S = 3600.0     # a temporary file this old is a leftover whoever wrote it


def _start_ticks(pid: int):
    """The start time of process ``pid`` (clock ticks since boot; Linux), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return int(stat[stat.rindex(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def alive(pid: int, start=None) -> bool:
    """Whether process ``pid`` of this host runs (a zombie does not; with ``start``, a process
    that started at another time is another process under a reused pid)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, ValueError):
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        if stat[stat.rindex(b")") + 2:].split()[0] in (b"Z", b"X"):
            return False
    except (OSError, ValueError):
        pass
    return start is None or _start_ticks(pid) in (None, start)


def _write_atomic(path: Path, write) -> None:
    """``write(tmp)`` to a temporary file of this writer beside ``path``, then move it there."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{HOST}.{os.getpid()}.", suffix=".tmp",
                               dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


class Store:
    """A study's results folder: one checksummed Parquet record per cell under ``cells/``,
    written atomically, with the cell's claim while it is computed."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.cells = self.folder / "cells"

    def _path(self, key: str) -> Path:
        return self.cells / f"{key}.parquet"

    def claim_path(self, key: str) -> Path:
        return self.cells / f"{key}.claim"

    # ---- records ------------------------------------------------------------------------
    def _load(self, path: Path):
        """``(table, None)`` for a record, ``(None, why)`` for a file that is none."""
        import pyarrow.parquet as pq
        try:
            table = pq.read_table(path, page_checksum_verification=True)
        except Exception as exc:   # any damage: a torn footer, a bad page, a wrong magic
            why = str(exc).replace(f"Could not open Parquet input source '{path}': ", "")
            return None, f"is damaged ({' '.join(why.split())[:120] or type(exc).__name__})"
        if table.num_rows != 1 or not {"key", "status"} <= set(table.column_names):
            return None, f"is not a cell record ({table.num_rows} rows, no key/status)"
        key = table.column("key")[0].as_py()
        if key != path.stem:
            return None, f"holds the record of another cell ({str(key)[:10]})"
        return table, None

    def record(self, key: str):
        """``(status, run_id)`` of the cell's record, or None when it has none (or a bad one)."""
        path = self._path(key)
        if not path.is_file():
            return None
        table, _ = self._load(path)
        if table is None:
            return None
        run_id = table.column("run_id")[0].as_py() if "run_id" in table.column_names else None
        return table.column("status")[0].as_py(), run_id

    def finished(self, bad: dict | None = None) -> dict[str, tuple]:
        """key -> ``(status, run_id)`` of every stored record; files that are no record go to
        ``bad`` (file name -> why) when given."""
        if not self.cells.is_dir():
            return {}
        out = {}
        for p in self.cells.glob("*.parquet"):
            table, why = self._load(p)
            if table is None:
                if bad is not None:
                    bad[p.name] = why
                continue
            run_id = table.column("run_id")[0].as_py() if "run_id" in table.column_names else None
            out[p.stem] = (table.column("status")[0].as_py(), run_id)
        return out

    def write(self, record: dict) -> Path:
        import pyarrow as pa
        import pyarrow.parquet as pq
        self.cells.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pylist([record])
        path = self._path(record["key"])
        _write_atomic(path, lambda tmp: pq.write_table(table, tmp, write_page_checksum=True))
        return path

    def read(self, keys=None, bad: dict | None = None) -> pd.DataFrame:
        """Every stored record (or those of ``keys``) as one DataFrame, ordered by key; files
        that are no record are left out and go to ``bad`` (file name -> why) when given."""
        if not self.cells.is_dir():
            return pd.DataFrame()
        paths = sorted(self.cells.glob("*.parquet"))
        if keys is not None:
            keys = set(keys)
            paths = [p for p in paths if p.stem in keys]
        frames = []
        for p in paths:
            table, why = self._load(p)
            if table is None:
                if bad is not None:
                    bad[p.name] = why
                continue
            frames.append(table.to_pandas())
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)

    # ---- claims ---------------------------------------------------------------------------
    def _holder(self, path: Path):
        """``(claim dict or None, raw bytes)`` of a claim file; None, None when there is none."""
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None, None
        try:
            holder = json.loads(raw)
            if not isinstance(holder, dict) or not isinstance(holder.get("pid"), int):
                holder = {}
        except ValueError:
            holder = {}      # being written, or torn: judged by its age
        return holder, raw

    def live(self, holder: dict, path: Path | None = None) -> bool:
        """Whether a claim's run may still be computing its cell: its process runs (same
        host), or it is from another host, or it is still being written."""
        if not holder:
            try:
                return time.time() - path.stat().st_mtime < 60.0
            except (OSError, AttributeError):
                return False
        if holder.get("host") != HOST:
            return True
        return alive(holder["pid"], holder.get("start"))

    def claim(self, key: str, run_id: str):
        """Claim the cell for this process.  Returns None when this process holds the claim,
        else the claim of the live run that holds it (a dict: pid, host, time, run)."""
        self.cells.mkdir(parents=True, exist_ok=True)
        path = self.claim_path(key)
        mine = json.dumps({"pid": os.getpid(), "host": HOST, "start": _start_ticks(os.getpid()),
                           "time": time.time(), "run": run_id}).encode()
        holder = {}
        for _ in range(8):
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder, raw = self._holder(path)
                if holder is None:          # released meanwhile: try again
                    continue
                if self.live(holder, path):
                    return holder
                # stale: move it aside under a name of ours and drop it if it is still the
                # claim judged stale (a run that took it over meanwhile gets its claim back)
                fd, aside = tempfile.mkstemp(prefix=f".{path.name}.{HOST}.{os.getpid()}.",
                                             suffix=".tmp", dir=self.cells)
                os.close(fd)
                try:
                    os.replace(path, aside)
                except FileNotFoundError:
                    os.unlink(aside)
                    continue
                if Path(aside).read_bytes() != raw:
                    try:
                        os.link(aside, path)
                    except OSError:
                        pass
                os.unlink(aside)
                continue
            try:
                os.write(fd, mine)
            finally:
                os.close(fd)
            return None
        return holder or {"pid": None, "host": "?"}

    def release(self, key: str) -> None:
        """Remove this process's claim of the cell (another's is left alone)."""
        path = self.claim_path(key)
        holder, _ = self._holder(path)
        if holder and holder.get("pid") == os.getpid() and holder.get("host") == HOST:
            try:
                path.unlink()
            except FileNotFoundError:
                pass

    def holder(self, key: str):
        """The claim of the cell (a dict; ``{}`` while it is being written), or None."""
        return self._holder(self.claim_path(key))[0]

    # ---- the rest ---------------------------------------------------------------------------
    def clean(self) -> list[str]:
        """Remove the temporary files of killed writes: those of this host whose process is
        gone, and any older than an hour.  Returns the names removed."""
        removed = []
        now = time.time()
        for folder in (self.folder, self.cells):
            if not folder.is_dir():
                continue
            for p in folder.glob(".*.tmp"):
                parts = p.name[:-len(".tmp")].rsplit(".", 3)
                try:
                    gone = now - p.stat().st_mtime > STALE_TMP_S
                    if not gone and len(parts) == 4 and parts[1] == HOST and parts[2].isdigit():
                        gone = not alive(int(parts[2]))
                    if gone:
                        p.unlink()
                        removed.append(str(p.relative_to(self.folder)))
                except FileNotFoundError:   # its writer finished or another run removed it
                    continue
        return removed

    def write_study(self, study_dict: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(study_dict, indent=1, default=str)
        _write_atomic(self.folder / "study.json", lambda tmp: Path(tmp).write_text(text))

    def log_run(self, entry: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "runs.jsonl", "a") as fh:
            fh.write(json.dumps(entry, default=str) + "\n")

    def runs(self) -> list[dict]:
        p = self.folder / "runs.jsonl"
        if not p.is_file():
            return []
        out = []
        for line in p.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:      # a line torn by a killed run
                continue
        return out
