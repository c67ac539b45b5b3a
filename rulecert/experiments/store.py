"""The results folder: one Parquet file per finished cell, written atomically.

Layout of ``<results>/``: ``cells/<key>.parquet`` (one row: the record of :func:`run_cell`),
``study.json`` (the study as last run) and ``runs.jsonl`` (one line per run: engine, workers,
cells run and skipped, wall time).  A record is written to a temporary file in the same folder
and moved into place with ``os.replace``, so a killed run leaves whole records or none.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pandas as pd


class Store:
    def __init__(self, folder):
        self.folder = Path(folder)
        self.cells = self.folder / "cells"

    def _path(self, key: str) -> Path:
        return self.cells / f"{key}.parquet"

    def finished(self) -> dict[str, str]:
        """key -> status ("ok" / "error") of every stored cell."""
        import pyarrow.parquet as pq
        if not self.cells.is_dir():
            return {}
        out = {}
        for p in self.cells.glob("*.parquet"):
            try:
                out[p.stem] = pq.read_table(p, columns=["status"]).column("status")[0].as_py()
            except Exception:   # an unreadable file is not a finished cell
                continue
        return out

    def write(self, record: dict) -> Path:
        import pyarrow as pa
        import pyarrow.parquet as pq
        self.cells.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pylist([record])
        fd, tmp = tempfile.mkstemp(prefix=f".{record['key'][:16]}.", suffix=".tmp", dir=self.cells)
        os.close(fd)
        try:
            pq.write_table(table, tmp)
            os.replace(tmp, self._path(record["key"]))
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return self._path(record["key"])

    def read(self, keys=None) -> pd.DataFrame:
        """Every stored record (or those of ``keys``) as one DataFrame, ordered by key."""
        import pyarrow.parquet as pq
        if not self.cells.is_dir():
            return pd.DataFrame()
        paths = sorted(self.cells.glob("*.parquet"))
        if keys is not None:
            keys = set(keys)
            paths = [p for p in paths if p.stem in keys]
        frames = [pq.read_table(p).to_pandas() for p in paths]
        frames = [f for f in frames if len(f)]
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)

    def write_study(self, study_dict: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / ".study.json.tmp"
        tmp.write_text(json.dumps(study_dict, indent=1, default=str))
        os.replace(tmp, self.folder / "study.json")

    def log_run(self, entry: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "runs.jsonl", "a") as fh:
            fh.write(json.dumps(entry, default=str) + "\n")

    def runs(self) -> list[dict]:
        p = self.folder / "runs.jsonl"
        if not p.is_file():
            return []
        return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
