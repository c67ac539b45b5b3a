"""The learners a study may name, and :func:`run_cell`, one cell's fit and evaluation.

Each :class:`Learner` declares its parameters with their defaults (the resolved values enter
the cell hash), the data it takes, the cross-validation kinds it supports, a check of a
parameter set (run before any cell) and ``fit(params, data, tr, te, seed, threads)``, which
returns a :class:`Fit`: test and training predictions (or metrics it computed itself), the
model's complexity, the certificate and a JSON-able ``detail``.  Solver threads per cell are
set explicitly: CP-SAT's ``num_workers`` and the threads of column generation's
branch-and-bound searches through the estimators' ``workers`` (= the study's ``threads``);
the colgen master and restricted IP run HiGHS with ``threads=1`` (fixed in
:mod:`rulecert.mipmodels.colgen`); BLAS/OpenMP pools are limited by :func:`run_cell`.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import socket
import time
import traceback
from datetime import datetime, timezone
from typing import Any, Callable

import numpy as np

from . import data as _data


@dataclasses.dataclass
class Fit:
    pred_test: Any = None
    pred_train: Any = None
    complexity: float | None = None
    certificate: Any = None
    detail: dict = dataclasses.field(default_factory=dict)
    metrics: dict = dataclasses.field(default_factory=dict)
    fit_time: float | None = None     # seconds of the fit alone (default: all of ``fit``)


@dataclasses.dataclass(frozen=True)
class Learner:
    name: str
    params: dict
    fit: Callable
    data_kinds: tuple = ("table",)
    cv_kinds: tuple = ("kfold", "split", "none")
    check_params: Callable = lambda params: None
    extra_metrics: tuple = ()
    warmup: Callable | None = None
    doc: str = ""


def _rates(y_true, y_pred) -> dict:
    y_true = np.asarray(y_true).astype(bool)
    y_pred = np.asarray(y_pred).astype(bool)
    return {"tpr": float((y_pred & y_true).sum() / max(1, y_true.sum())),
            "fpr": float((y_pred & ~y_true).sum() / max(1, (~y_true).sum()))}


def _acc(y, p):
    return float((np.asarray(p) == np.asarray(y)).mean()) if len(y) else math.nan


# metric name -> fn(y_test, pred_test, y_train, pred_train)
METRICS: dict[str, Callable] = {
    "acc": lambda yt, pt, yr, pr: _acc(yt, pt),
    "train_acc": lambda yt, pt, yr, pr: _acc(yr, pr),
    "tpr": lambda yt, pt, yr, pr: _rates(yt, pt)["tpr"],
    "fpr": lambda yt, pt, yr, pr: _rates(yt, pt)["fpr"],
    "complexity": None,   # from the model
}


# ---- BRCG ---------------------------------------------------------------------------------
_BRCG_COMMON = dict(max_clause_length=None, empty_clause=False, form="dnf", fn_weight=1.0,
                    effort="default", time_limit=None, max_iter=None, pricers="auto",
                    pricing_nodes=None, pricing_seconds=30.0, pricing_deterministic_time=None,
                    ip_nodes=None, ip_options=None, bound_search_steps=3, columns_per_iter=50,
                    beam_width=5, close_gap=True, n_thresholds=9, negations=True)
"""A BRCG cell's parameters: the estimator's own and solver options (flat, by name)."""
_BINARIZER_KEYS = ("n_thresholds", "negations")


def _est_params(params, estimator, drop=()):
    """A cell's parameters as ``estimator``'s: its own parameters as they are, the others
    (solver options) in ``solver_options``."""
    own = set(estimator._get_param_names())
    p = {k: v for k, v in params.items() if k not in _BINARIZER_KEYS and k not in drop}
    options = {**(p.pop("solver_options", None) or {}),
               **{k: p.pop(k) for k in list(p) if k not in own}}
    return dict(p, solver_options=options or None)


def _binarizer(params, categorical):
    return _data.make_binarizer(categorical, params["n_thresholds"], params["negations"])


def _brcg_estimator(params, seed, threads, categorical=None):
    from ..estimators.brcg import BooleanRuleCGClassifier
    return BooleanRuleCGClassifier(**_est_params(params, BooleanRuleCGClassifier),
                                   workers=threads, random_state=seed,
                                   binarizer=_binarizer(params, categorical))


def _brcg_cv_estimator(params, seed, threads, categorical=None):
    from ..estimators.brcg import BooleanRuleCGCV
    p = _est_params(params, BooleanRuleCGCV)
    p["complexity_bounds"] = tuple(p["complexity_bounds"])
    return BooleanRuleCGCV(**p, workers=threads, random_state=seed,
                           binarizer=_binarizer(params, categorical))


def _sk_check(build):
    def check(params):
        est = build(params, 0, 1)
        try:
            est._validate_params()
            if hasattr(est, "_solver_options"):
                # a BRCG learner: its solver options too (at a valid C: a cell's own C is
                # checked when it runs, and a bad one is recorded as that cell's error)
                est._options(1, 0, 30, None)
        except ValueError as exc:
            raise ValueError(" ".join(str(exc).split())) from None
    return check


def fit_eval(clf, X, y, tr, te) -> dict:
    """Fit ``clf`` on rows ``tr``, evaluate on ``te``: accuracies, complexity, fit time and
    the certificate's figures (the per-fit record of the BRCG studies)."""
    t0 = time.perf_counter()
    clf.fit(X.iloc[tr], y[tr])
    fit_time = time.perf_counter() - t0
    acc = float((clf.predict(X.iloc[te]) == y[te]).mean())
    c = clf.certificate_
    return {"acc": acc, "train_acc": float((clf.predict(X.iloc[tr]) == y[tr]).mean()),
            "complexity": int(clf.complexity_), "time": fit_time,
            "objective": c.objective, "bound": c.lower_bound, "rel_gap": c.rel_gap,
            "termination": c.termination.value, "bound_kind": c.stats.get("bound_kind")}


def _fit_estimator(clf, table, tr, te, detail=None) -> Fit:
    t0 = time.perf_counter()
    clf.fit(table.X.iloc[tr], table.y[tr])
    fit_time = time.perf_counter() - t0
    return Fit(clf.predict(table.X.iloc[te]), clf.predict(table.X.iloc[tr]),
               int(clf.complexity_), clf.certificate_, detail or {}, fit_time=fit_time)


def _fit_brcg(params, table, tr, te, seed, threads):
    return _fit_estimator(_brcg_estimator(params, seed, threads, table.categorical), table, tr, te)


def _fit_brcg_cv(params, table, tr, te, seed, threads):
    clf = _brcg_cv_estimator(params, seed, threads, table.categorical)
    fit = _fit_estimator(clf, table, tr, te)
    fit.detail = {"C": clf.complexity_bound_, "cv_results": _plain(clf.cv_results_)}
    return fit


def _inner_cv(folds: int, repeats: int, seed: int):
    """The inner cross-validation of the protocol: ``folds`` stratified folds, or repeated
    ``repeats`` times with seeds from ``seed`` (the one-standard-error rule then has
    ``folds x repeats`` splits)."""
    if repeats <= 1:
        return folds
    from sklearn.model_selection import RepeatedStratifiedKFold
    return RepeatedStratifiedKFold(n_splits=folds, n_repeats=repeats, random_state=seed)


_PROTOCOL_ONLY = ("grid", "inner_folds", "inner_repeats", "warm_start")


def _protocol_cv_params(params, seed) -> dict:
    """``BooleanRuleCGCV``'s parameters for one protocol cell: the estimator's own (the
    protocol's keys removed), the grid, the inner CV and the time of the whole search,
    ``time_limit x (inner splits + 1) x grid size``."""
    p = {k: v for k, v in params.items() if k not in _PROTOCOL_ONLY}
    splits = params["inner_folds"] * params["inner_repeats"]
    cvp = dict(p, complexity_bounds=list(params["grid"]),
               cv=_inner_cv(params["inner_folds"], params["inner_repeats"], seed))
    if p["time_limit"] is not None:
        cvp["time_limit"] = p["time_limit"] * (splits + 1) * len(params["grid"])
    return cvp


def _fit_brcg_protocol(params, table, tr, te, seed, threads):
    """One outer fold of Dash et al.'s protocol (experiments/brcg_table.py): C chosen by inner
    CV (``BooleanRuleCGCV``, time ``time_limit x (inner splits + 1) x grid size``), then every
    C of the grid fitted on the outer training set (a warm-started path: the trade-off curve
    and the one-standard-error choice)."""
    from ..estimators.brcg import choose_complexity_bound
    grid = list(params["grid"])
    splits = params["inner_folds"] * params["inner_repeats"]
    p = {k: v for k, v in params.items() if k not in _PROTOCOL_ONLY}
    cvp = _protocol_cv_params(params, seed)
    cv = _brcg_cv_estimator(cvp, seed, threads, table.categorical)
    X, y = table.X, table.y
    chosen = fit_eval(cv, X, y, tr, te)
    best_C, se_C = cv.complexity_bound_, choose_complexity_bound(cv.cv_results_, "1se")
    inner_accs = {C: [float(cv.cv_results_[f"split{k}_test_score"][i])
                      for k in range(splits)]
                  for i, C in enumerate(cv.cv_results_["complexity_bound"])}
    clf = _brcg_estimator(dict(p, complexity_bound=min(grid)), seed, threads, table.categorical)
    clf.set_params(warm_start=params["warm_start"])
    per_C = {}
    for C in sorted(grid):
        clf.set_params(complexity_bound=C)
        per_C[C] = fit_eval(clf, X, y, tr, te)
    detail = _plain(dict(chosen, C=best_C, C_1se=se_C, inner=inner_accs, per_C=per_C))
    return Fit(cv.predict(X.iloc[te]), cv.predict(X.iloc[tr]), int(cv.complexity_),
               cv.certificate_, detail)


# ---- CORELS ---------------------------------------------------------------------------------
def _corels_bounds(off):
    from ..search.corels import CorelsBounds
    if off in (None, "", "none"):
        return CorelsBounds()
    return CorelsBounds(**{off: False})


def _check_corels(params):
    from ..search.corels import CorelsBounds
    names = [f.name for f in dataclasses.fields(CorelsBounds)]
    if params["bounds_off"] not in (None, "", "none", *names):
        raise ValueError(f"bounds_off must be '' or one of {names}, got {params['bounds_off']!r}")
    if not isinstance(params["c"], (int, float)) or params["c"] < 0:
        raise ValueError(f"c must be a number >= 0, got {params['c']!r}")


def _fit_corels(params, problem, tr, te, seed, threads):
    from ..models.rulelist import rule_list_objective
    from ..search import corels
    p = dict(params)
    off = p.pop("bounds_off")
    rl, cert = corels.solve(problem, p.pop("c"), bounds=_corels_bounds(off), **p)
    score = rule_list_objective(rl, problem, params["c"])
    return Fit(complexity=rl.n_rules, certificate=cert,
               detail={"rules": rl.to_text()},
               metrics={"train_acc": 1.0 - score.mistakes / problem.total_mass,
                        "acc": 1.0 - score.mistakes / problem.total_mass})


def _warm_corels(problem):
    from ..search import corels
    corels.solve(problem, 0.05)   # compile the kernel before any timed fit


# ---- falling rule lists and the ROC baselines (experiments/frl_bank.py) ----------------------
def _mined(table, tr, max_predicates, min_support):
    from ..mining.fpgrowth import mine_fpgrowth
    key = (id(table), tuple(tr[:8]), len(tr), max_predicates, min_support)
    hit = _MINED.get(key)
    if hit is None:
        aset = mine_fpgrowth(table.X.iloc[tr], table.y[tr], max_predicates=max_predicates,
                             min_support=min_support)
        hit = aset.to_problem(table.y[tr])
        _MINED.clear()
        _MINED[key] = hit
    return hit


_MINED: dict = {}


def _check_frl(params):
    if params["program"] not in ("frl", "softfrl"):
        raise ValueError(f"program must be 'frl' or 'softfrl', got {params['program']!r}")
    if params["search"] not in ("mc", "exact"):
        raise ValueError(f"search must be 'mc' or 'exact', got {params['search']!r}")


def _fit_frl(params, table, tr, te, seed, threads):
    """Algorithm FRL / softFRL (Monte-Carlo), and with ``search="exact"`` the branch-and-bound
    seeded with the Monte-Carlo list, on antecedents mined from the training rows."""
    from ..search.falling.bnb import branch_and_bound
    from ..search.falling.mc import monte_carlo
    problem = _mined(table, tr, params["max_predicates"], params["min_support"])
    prog, w, C, C1 = params["program"], params["w"], params["C"], params["C1"]
    it = params["mc_iterations"]
    if it is not None and prog == "softfrl":
        it *= 2
    model, cert = monte_carlo(problem, prog, w, C, C1, iterations=it, seed=seed)
    if params["search"] == "exact":
        model, cert = branch_and_bound(problem, prog, w, C, C1, time_limit=params["time_limit"],
                                       node_limit=params["node_limit"], incumbent=model)
    Xte, Xtr = table.X.iloc[te].to_numpy(), table.X.iloc[tr].to_numpy()
    return Fit(model.predict(Xte), model.predict(Xtr), model.n_rules, cert,
               {"rules": model.to_text()})


def _check_baseline(params):
    if params["model"] not in ("cart", "random-forest", "adaboost", "ripper"):
        raise ValueError(f"model must be cart, random-forest, adaboost or ripper, got "
                         f"{params['model']!r}")


def _fit_baseline(params, table, tr, te, seed, threads):
    """Cost-sensitive CART, random forest, AdaBoost (weight ``w`` on positives) or RIPPER
    (``wittgenstein``), the comparison methods of frl_bank.py's ROC study."""
    X, y, m = table.X, table.y, params["model"]
    if m == "ripper":
        import wittgenstein as lw
        rip = lw.RIPPER(random_state=seed)
        train = X.iloc[tr].reset_index(drop=True).copy()
        train["__label__"] = y[tr]
        rip.fit(train, class_feat="__label__", pos_class=1)
        pred = lambda rows: np.asarray(rip.predict(X.iloc[rows].reset_index(drop=True)), dtype=bool)
        return Fit(pred(te), pred(tr))
    from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier
    clf = {"cart": lambda: DecisionTreeClassifier(min_samples_leaf=50, random_state=seed),
           "random-forest": lambda: RandomForestClassifier(n_estimators=100, min_samples_leaf=20,
                                                           n_jobs=threads, random_state=seed),
           "adaboost": lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=2),
                                                  n_estimators=100, random_state=seed)}[m]()
    clf.fit(X.iloc[tr], y[tr], sample_weight=np.where(y[tr] == 1, params["w"], 1.0))
    return Fit(clf.predict(X.iloc[te]), clf.predict(X.iloc[tr]))


_BRCG_PARAMS = dict(complexity_bound=30, **_BRCG_COMMON)
_BRCG_CV_PARAMS = dict(complexity_bounds=[5, 10, 15, 25, 35], cv=3, selection="best",
                       **_BRCG_COMMON)
_PROTOCOL_PARAMS = dict(grid=[5, 10, 15, 25, 35], inner_folds=3, inner_repeats=1,
                        warm_start=True,
                        **dict(_BRCG_COMMON, time_limit=5.0, pricing_seconds=2.0))

LEARNERS: dict[str, Learner] = {}


def register(learner: Learner) -> Learner:
    LEARNERS[learner.name] = learner
    return learner


register(Learner("brcg", _BRCG_PARAMS, _fit_brcg,
                 check_params=_sk_check(lambda p, s, t: _brcg_estimator(p, s, t)),
                 doc="BooleanRuleCGClassifier: one fit at complexity_bound"))
register(Learner("brcg_cv", _BRCG_CV_PARAMS, _fit_brcg_cv,
                 check_params=_sk_check(lambda p, s, t: _brcg_cv_estimator(p, s, t)),
                 doc="BooleanRuleCGCV: C chosen by inner cross-validation, then refitted"))
register(Learner("brcg_protocol", _PROTOCOL_PARAMS, _fit_brcg_protocol,
                 check_params=_sk_check(lambda p, s, t: _brcg_cv_estimator(
                     _protocol_cv_params(p, s), s, t)),
                 doc="one outer fold of Dash et al.'s protocol (brcg_table.py)"))
register(Learner("corels", dict(c=0.01, policy="lower_bound", max_length=None, time_limit=None,
                                node_limit=None, memory_limit_mb=None, bounds_off=""),
                 _fit_corels, data_kinds=("problem",), cv_kinds=("none",),
                 check_params=_check_corels, warmup=_warm_corels,
                 doc="CORELS branch-and-bound on a mined antecedent problem"))
register(Learner("frl", dict(program="frl", search="exact", w=7.0, C=1e-6, C1=0.5,
                             mc_iterations=None, time_limit=30.0, node_limit=None,
                             max_predicates=2, min_support=0.1),
                 _fit_frl, check_params=_check_frl,
                 doc="falling / softly falling rule list (Monte-Carlo, then exact)"))
register(Learner("baseline", dict(model="cart", w=1.0), _fit_baseline,
                 check_params=_check_baseline,
                 doc="CART, random forest, AdaBoost (class weight w) or RIPPER"))


def get_learner(name: str) -> Learner:
    if name not in LEARNERS:
        raise ValueError(f"unknown learner {name!r}; known: {', '.join(sorted(LEARNERS))}")
    return LEARNERS[name]


# ---- one cell ---------------------------------------------------------------------------------
def _plain(obj):
    """JSON-able copy (numpy scalars and arrays to Python, dict keys kept as given)."""
    return json.loads(json.dumps(obj, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def split_indices(cell, y) -> tuple[np.ndarray, np.ndarray]:
    """Training and test rows of the cell's fold."""
    cv = cell.cv
    n = len(y)
    if cv["kind"] == "none":
        idx = np.arange(n)
        return idx, idx
    if cv["kind"] == "split":
        rng = np.random.default_rng(cv["seed"])
        for _ in range(cv["repeat"] + 1):
            perm = rng.permutation(n)
        ntr = int((1 - cv["test_size"]) * n)
        return perm[:ntr], perm[ntr:]
    from sklearn.model_selection import StratifiedKFold
    folds = StratifiedKFold(cv["folds"], shuffle=True, random_state=cv["seed"])
    for f, (tr, te) in enumerate(folds.split(np.zeros(n), y)):
        if f == cv["fold"]:
            return tr, te
    raise ValueError(f"fold {cv['fold']} out of range")


def _versions() -> dict:
    from importlib import metadata
    out = {}
    for pkg in ("rulecert", "highspy", "ortools", "numpy", "scikit-learn"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    out["rulecert"] = _rulecert_version()
    out["python"] = platform.python_version()
    return out


def _rulecert_version():
    from .. import _version
    return _version.__version__


def code_version() -> str:
    """The versions that enter every cell's hash: rulecert and its solvers (HiGHS, OR-Tools)."""
    from importlib import metadata
    parts = [f"rulecert {_rulecert_version()}"]
    for pkg in ("highspy", "ortools"):
        try:
            parts.append(f"{pkg} {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{pkg} none")
    return "; ".join(parts)


_WARM: set = set()
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS")


def run_cell(cell) -> dict:
    """Fit and evaluate one cell; never raises for an error of the fit (it is recorded with its
    message), only for KeyboardInterrupt / SystemExit."""
    from threadpoolctl import threadpool_limits
    started = datetime.now(timezone.utc)
    t0, cpu0 = time.perf_counter(), time.process_time()
    rec = {"key": cell.key, "learner": cell.learner, "dataset": cell.dataset,
           "data_sha256": cell.data_sha256, "repeat": cell.repeat, "fold": cell.fold,
           "seed": cell.seed, "threads": cell.threads, "params": json.dumps(cell.params, sort_keys=True),
           "cv": json.dumps(cell.cv, sort_keys=True), "status": "ok", "error": None}
    for k, v in cell.params.items():
        rec[f"p_{k}"] = json.dumps(v) if isinstance(v, (list, dict)) else v
    fit_time = None
    try:
        learner = get_learner(cell.learner)
        if code_version() != cell.version:
            raise ValueError(f"this worker runs {code_version()}; the cell was made for "
                             f"{cell.version}")
        sha = _data.data_sha256(cell.dataset)
        if sha != cell.data_sha256:
            raise ValueError(f"the data of {cell.dataset!r} here (sha256 {sha[:12]}) is not the "
                             f"data the cell was made for ({cell.data_sha256[:12]})")
        data = _data.load(cell.dataset)
        y = np.asarray(data.y)
        tr, te = split_indices(cell, y)
        with threadpool_limits(cell.threads):
            if learner.warmup is not None and (learner.name, cell.dataset) not in _WARM:
                learner.warmup(data)
                _WARM.add((learner.name, cell.dataset))
            t1 = time.perf_counter()
            fit = learner.fit(dict(cell.params), data, tr, te, cell.seed, cell.threads)
            fit_time = fit.fit_time if fit.fit_time is not None else time.perf_counter() - t1
        rec["n_train"], rec["n_test"] = int(len(tr)), int(len(te))
        for name, fn in METRICS.items():
            if name in fit.metrics:
                rec[name] = float(fit.metrics[name])
            elif fn is not None and fit.pred_test is not None:
                rec[name] = fn(y[te], fit.pred_test, y[tr], fit.pred_train)
        rec["complexity"] = None if fit.complexity is None else float(fit.complexity)
        c = fit.certificate
        if c is not None:
            d = c.to_dict()
            rec.update({"objective": d["objective"], "lower_bound": d["lower_bound"],
                        "abs_gap": d["abs_gap"], "rel_gap": d["rel_gap"],
                        "termination": d["termination"], "cert_status": d["status"],
                        "proven_optimal": d["proven_optimal"], "nodes": d["nodes"],
                        "iterations": d["iterations"], "solver": d["solver"],
                        "solver_version": d["solver_version"], "solver_time": d["wall_time"],
                        "certificate": json.dumps(_plain(d), sort_keys=True)})
        rec["detail"] = json.dumps(_plain(fit.detail), sort_keys=True)
    except Exception as exc:   # the study goes on; the record says what happened
        rec["status"] = "error"
        rec["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
        rec["traceback"] = traceback.format_exc()[-4000:]
    rec["fit_time"] = fit_time
    rec["cell_time"] = time.perf_counter() - t0
    rec["cpu_time"] = time.process_time() - cpu0     # this process's CPU seconds for the cell
    rec["started"] = started.isoformat()
    rec["finished"] = datetime.now(timezone.utc).isoformat()
    rec["versions"] = json.dumps(_versions(), sort_keys=True)
    rec["host"] = socket.gethostname()
    rec["machine"] = f"{platform.system()} {platform.machine()} {os.cpu_count()} cpus"
    rec["pid"] = os.getpid()
    return rec
