"""A study declared as data, checked, and expanded into cells.

A :class:`Study` names a learner, its fixed parameters and limits, a grid of parameters (one
cell per combination), datasets and a cross-validation scheme.  It is written as a Python
dataclass or as a TOML file::

    name = "tiny"
    learner = "brcg"
    datasets = ["liver", "transfusion"]
    metrics = ["acc", "complexity"]
    threads = 1                        # solver threads per cell

    [params]                           # the same for every cell
    pricers = "bnb"
    [limits]                           # deterministic limits make results engine-independent
    max_iter = 5
    [grid]                             # one cell per combination
    complexity_bound = [5, 10]
    [cv]
    kind = "kfold"                     # stratified k-fold; "split": random train/test; "none"
    folds = 3
    repeats = 1
    seed = 0

    [[overrides]]                      # parameters for some cells only (matched on
    dataset = "liver"                  # dataset / repeat / fold)
    fold = 0
    complexity_bound = 15

:func:`expand` checks everything (learner, parameter names and values, datasets and their
files, metrics, cross-validation) before any cell runs, and returns the cells.  A cell is one
fit and its evaluation, identified by :func:`cell_key`: the sha256 of the canonical JSON of
everything that determines its result (learner, resolved parameters, dataset name and data
checksum, fold specification, seed, threads, the versions of rulecert and of its solvers
HiGHS and OR-Tools), never of the engine or time.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import itertools
import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from . import data as _data

CV_KINDS = ("kfold", "split", "none")


@dataclasses.dataclass(frozen=True)
class CV:
    """Cross-validation: ``kfold`` (stratified, shuffled with ``seed + repeat``), ``split``
    (``repeats`` random train/test splits, the r-th permutation of ``default_rng(seed)``) or
    ``none`` (fit and evaluate on all the data)."""

    kind: str = "kfold"
    folds: int = 10
    repeats: int = 1
    seed: int = 0
    test_size: float = 0.25


@dataclasses.dataclass
class Study:
    """An experiment: one learner over datasets, a parameter grid, the limits every cell runs
    under, the cross-validation, the seed and the solver threads per cell (the study file's
    fields, checked when the study is loaded)."""

    name: str
    learner: str
    datasets: list[str]
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    grid: dict[str, list] = dataclasses.field(default_factory=dict)
    limits: dict[str, Any] = dataclasses.field(default_factory=dict)
    cv: CV = dataclasses.field(default_factory=CV)
    metrics: list[str] = dataclasses.field(default_factory=lambda: ["acc", "complexity"])
    threads: int = 1
    overrides: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    results: str | None = None
    """Results folder (default ``rulecert-results/<name>`` in the working directory)."""

    def results_dir(self) -> Path:
        return Path(self.results or os.path.join("rulecert-results", self.name))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Cell:
    """One fit and its evaluation; ``key`` identifies its result."""

    key: str
    learner: str
    dataset: str
    data_sha256: str
    params: dict
    cv: dict           # kind, folds, test_size, split seed, repeat, fold
    repeat: int
    fold: int
    seed: int
    threads: int
    version: str

    def spec(self) -> dict:
        return {k: getattr(self, k) for k in ("learner", "dataset", "data_sha256", "params", "cv",
                                              "seed", "threads", "version")}


# ---- loading --------------------------------------------------------------------------------
_STUDY_KEYS = {f.name for f in dataclasses.fields(Study)}
_CV_KEYS = {f.name for f in dataclasses.fields(CV)}


def from_dict(d: dict, *, base: Path | None = None) -> Study:
    """A :class:`Study` from plain data (a TOML file's table); unknown keys are errors."""
    d = dict(d)
    unknown = set(d) - _STUDY_KEYS
    if unknown:
        raise ValueError(f"unknown study key {sorted(unknown)[0]!r}; known: {', '.join(sorted(_STUDY_KEYS))}")
    for req in ("name", "learner", "datasets"):
        if req not in d:
            raise ValueError(f"the study has no {req!r}")
    cv = d.get("cv", {})
    if not isinstance(cv, (dict, CV)):
        raise ValueError(f"cv must be a table (folds, repeats, seed, kind, test_size), got {cv!r}")
    if isinstance(cv, dict):
        bad = set(cv) - _CV_KEYS
        if bad:
            raise ValueError(f"unknown cv key {sorted(bad)[0]!r}; known: {', '.join(sorted(_CV_KEYS))}")
        d["cv"] = CV(**cv)
    if d.get("results") and base is not None and not os.path.isabs(d["results"]):
        d["results"] = str(base / d["results"])
    return Study(**d)


def load_study(path: str | os.PathLike):
    """``(Study, module or None)`` from a TOML file or a Python file that defines
    ``build_study()`` (or ``STUDY``) and optionally ``report(df, study)``.

    A ``.py`` study is code: loading it runs the whole file, with the rights of the user
    (``rulecert run`` and ``rulecert report`` both load it), so run only study files you
    trust.  A TOML study is data and runs nothing."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"study file {str(p)!r} not found")
    if p.suffix == ".toml":
        try:
            with open(p, "rb") as fh:
                d = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{p}: {exc}") from None
        return from_dict(d, base=p.parent), None
    if p.suffix == ".py":
        sys.path.insert(0, str(p.parent.resolve()))
        spec = importlib.util.spec_from_file_location(f"_rulecert_study_{p.stem}", p)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        if hasattr(mod, "build_study"):
            study = mod.build_study()
        elif hasattr(mod, "STUDY"):
            study = mod.STUDY
        else:
            raise ValueError(f"{p} defines neither build_study() nor STUDY")
        return (from_dict(study) if isinstance(study, dict) else study), mod
    raise ValueError(f"study file {str(p)!r}: expected a .toml or .py file")


# ---- hashing --------------------------------------------------------------------------------
def _canonical(obj):
    if isinstance(obj, dict):
        return {str(k): _canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if hasattr(obj, "item"):   # numpy scalars
        return _canonical(obj.item())
    raise ValueError(f"parameter value {obj!r} ({type(obj).__name__}) is not plain data "
                     "(use numbers, strings, booleans, lists)")


def canonical_json(obj) -> str:
    return json.dumps(_canonical(obj), sort_keys=True, separators=(",", ":"), allow_nan=True)


def cell_key(spec: dict) -> str:
    """sha256 of the canonical JSON of a cell's specification (``Cell.spec``)."""
    return hashlib.sha256(canonical_json(spec).encode()).hexdigest()


def _version() -> str:
    from .learners import code_version
    return code_version()


# ---- checks and expansion ------------------------------------------------------------------
def _check_int(name, value, lo):
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {value!r}")


def check(study: Study):
    """Everything that can be checked before a cell runs; returns the learner."""
    from .learners import METRICS, get_learner
    if not isinstance(study.name, str) or not study.name:
        raise ValueError(f"study name must be a non-empty string, got {study.name!r}")
    learner = get_learner(study.learner)
    if isinstance(study.datasets, str) or not study.datasets:
        raise ValueError("datasets must be a non-empty list of dataset names")
    for name in study.datasets:
        spec = _data.check_dataset(name)
        if spec.kind not in learner.data_kinds:
            raise ValueError(f"learner {learner.name!r} takes {'/'.join(learner.data_kinds)} data; "
                             f"dataset {name!r} is a {spec.kind}")
    for section in ("params", "limits", "grid"):
        if not isinstance(getattr(study, section), dict):
            raise ValueError(f"{section} must be a table of parameter values")
    for section in ("params", "limits", "grid"):
        for k in getattr(study, section):
            if k not in learner.params:
                raise ValueError(f"learner {learner.name!r} has no parameter {k!r} (in {section}); "
                                 f"known: {', '.join(sorted(learner.params))}")
    p, lim, g = set(study.params), set(study.limits), set(study.grid)
    both = (p & lim) | (p & g) | (lim & g)
    if both:
        raise ValueError(f"parameter {sorted(both)[0]!r} is given twice (params / limits / grid)")
    for k, v in study.grid.items():
        if isinstance(v, (str, dict)) or not hasattr(v, "__len__") or len(v) == 0:
            raise ValueError(f"grid {k!r} must be a non-empty list of values, got {v!r}")
    if isinstance(study.metrics, str) or not isinstance(study.metrics, (list, tuple)):
        raise ValueError(f"metrics must be a list of metric names, got {study.metrics!r}")
    for m in study.metrics:
        if m not in METRICS and m not in learner.extra_metrics:
            raise ValueError(f"unknown metric {m!r}; known: "
                             f"{', '.join(sorted(set(METRICS) | set(learner.extra_metrics)))}")
    cv = study.cv
    if cv.kind not in CV_KINDS:
        raise ValueError(f"cv kind must be one of {CV_KINDS}, got {cv.kind!r}")
    if cv.kind not in learner.cv_kinds:
        raise ValueError(f"learner {learner.name!r} supports cv kind {'/'.join(learner.cv_kinds)}, "
                         f"not {cv.kind!r}")
    if cv.kind == "kfold":
        _check_int("cv folds", cv.folds, 2)
    _check_int("cv repeats", cv.repeats, 1)
    _check_int("cv seed", cv.seed, 0)
    if cv.kind == "split" and not 0 < cv.test_size < 1:
        raise ValueError(f"cv test_size must be in (0, 1), got {cv.test_size!r}")
    _check_int("threads", study.threads, 1)
    for ov in study.overrides:
        for k in ov:
            if k not in ("dataset", "repeat", "fold") and k not in learner.params:
                raise ValueError(f"learner {learner.name!r} has no parameter {k!r} (in overrides)")
        if "dataset" in ov and ov["dataset"] not in study.datasets:
            raise ValueError(f"override names dataset {ov['dataset']!r}, which the study does not run")
    return learner


def _folds(cv: CV) -> list[tuple[int, int]]:
    if cv.kind == "none":
        return [(0, 0)]
    n = cv.folds if cv.kind == "kfold" else 1
    return [(r, f) for r in range(cv.repeats) for f in range(n)]


def expand(study: Study) -> list[Cell]:
    """Check the study and return its cells (dataset, grid point, repeat, fold order)."""
    learner = check(study)
    version = _version()
    sha = {name: _data.data_sha256(name) for name in study.datasets}
    names = list(study.grid)
    points = [dict(zip(names, vals)) for vals in itertools.product(*(study.grid[k] for k in names))]
    cv = study.cv
    cells, seen_params = [], set()
    for name in study.datasets:
        for point in points:
            for repeat, fold in _folds(cv):
                params = dict(learner.params)
                params.update(study.params)
                params.update(study.limits)
                params.update(point)
                for ov in study.overrides:
                    if all(ov[k] == v for k, v in (("dataset", name), ("repeat", repeat),
                                                   ("fold", fold)) if k in ov):
                        params.update({k: v for k, v in ov.items()
                                       if k not in ("dataset", "repeat", "fold")})
                fp = canonical_json(params)
                if fp not in seen_params:
                    seen_params.add(fp)
                    learner.check_params(params)
                folds = cv.folds if cv.kind == "kfold" else (1 if cv.kind == "none" else 0)
                cvspec = {"kind": cv.kind, "folds": folds, "seed": cv.seed + repeat,
                          "repeat": repeat, "fold": fold}
                if cv.kind == "split":
                    cvspec.update(test_size=cv.test_size, seed=cv.seed)
                seed = cv.seed + repeat * max(1, folds) + fold
                spec = {"learner": learner.name, "dataset": name, "data_sha256": sha[name],
                        "params": params, "cv": cvspec, "seed": seed, "threads": study.threads,
                        "version": version}
                cells.append(Cell(cell_key(spec), learner.name, name, sha[name],
                                  json.loads(canonical_json(params)), cvspec, repeat, fold, seed,
                                  study.threads, version))
    keys = [c.key for c in cells]
    if len(set(keys)) != len(keys):
        raise ValueError("two cells of the study are identical (a grid value or override repeats)")
    return cells
