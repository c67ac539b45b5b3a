"""The datasets a study may name: how to load each one and which stored files it reads.

Every name maps to a :class:`DataSpec`: the file keys of :data:`rulecert.datasets.FILES`
whose sha256 enters the hash of every cell on that dataset, the kind of data it gives
("table": raw features, 0/1 labels and the binarizer settings; "problem": a
:class:`~rulecert.problem.RuleProblem` of mined antecedents) and its loader.  The data is read
through :mod:`rulecert.datasets` (``RULECERT_DATA``); nothing is copied.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
from typing import Callable

import numpy as np


@dataclasses.dataclass(frozen=True)
class DataSpec:
    name: str
    files: tuple[str, ...]
    kind: str              # "table" or "problem"
    load: Callable


@dataclasses.dataclass(frozen=True)
class Table:
    """Raw features, 0/1 labels and the columns the binarizer treats as categorical."""

    X: object
    y: np.ndarray
    categorical: list | None = None


# the binarizer of the BRCG studies (Dash et al.: decile thresholds and negations)
def make_binarizer(categorical=None, n_thresholds: int = 9, negations: bool = True):
    from ..mining import FeatureBinarizer
    return FeatureBinarizer(n_thresholds=n_thresholds, negations=negations,
                            categorical=categorical, missing="indicator")


def load_table(name: str) -> Table:
    """Raw features, 0/1 labels and the binarizer's categorical columns for one UCI dataset
    (``liver_selector``: BUPA liver with the UCI selector column as target)."""
    from .. import datasets
    if name == "liver_selector":
        X, y = datasets.load_liver(target="selector")
    else:
        X, y = datasets.load(name)
    categorical = list(datasets.HEART_CATEGORICAL) if name == "heart" else None
    return Table(X, np.asarray(y).astype(int), categorical)


def _bank_full_literals(name: str) -> Table:
    from .. import datasets
    X, y = datasets.load_bank_full()
    return Table(datasets.bank_full_literals(X), np.asarray(y, dtype=np.int64), None)


def _compas_corels(name: str):
    from .. import datasets
    from ..mining import read_corels
    split = name.rpartition("_")[2]
    return read_corels(datasets.compas_corels_stem(split))


_UCI = ["banknote", "heart", "ilpd", "ionosphere", "liver", "pima", "tictactoe", "transfusion",
        "wdbc"]
DATASETS: dict[str, DataSpec] = {n: DataSpec(n, (n,), "table", load_table) for n in _UCI}
DATASETS["liver_selector"] = DataSpec("liver_selector", ("liver",), "table", load_table)
DATASETS["bank_full"] = DataSpec("bank_full", ("bank_full",), "table", _bank_full_literals)
for _split in ("train", "test"):
    DATASETS[f"compas_corels_{_split}"] = DataSpec(
        f"compas_corels_{_split}",
        tuple(f"compas_{_split}.{ext}" for ext in ("out", "label", "minor")), "problem",
        _compas_corels)


def check_dataset(name: str) -> DataSpec:
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(sorted(DATASETS))}")
    return DATASETS[name]


@functools.lru_cache(maxsize=64)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def data_sha256(name: str) -> str:
    """sha256 over the dataset's stored files (path and bytes of each), as read now from the
    data home; a missing file is a one-line ``ValueError``."""
    from .. import datasets
    spec = check_dataset(name)
    h = hashlib.sha256()
    for key in spec.files:
        try:
            p = datasets.file_path(key)
        except FileNotFoundError as exc:
            raise ValueError(f"dataset {name!r}: {exc}") from None
        st = os.stat(p)
        h.update(datasets.FILES[key].path.encode())
        h.update(_file_sha256(str(p), st.st_size, st.st_mtime_ns).encode())
    return h.hexdigest()


@functools.lru_cache(maxsize=8)
def load(name: str):
    """The dataset's data (cached per process: the cells of a worker share it)."""
    spec = check_dataset(name)
    return spec.load(name)
