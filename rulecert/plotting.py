"""Plots of certificates, searches and models (matplotlib, the ``plot`` extra).

Importing :mod:`rulecert` never needs matplotlib; the functions here import it when called and
raise an :class:`ImportError` naming the ``plot`` extra when it is missing.  Each function
draws on the given ``ax`` (or a new figure) and returns the matplotlib Axes.

- :func:`plot_history`: objective and proven lower bound of one or several certificates against
  time, nodes or iterations, the gap between them shaded.
- :func:`plot_search`: the CORELS queue by prefix length over time (from the certificate's
  history, which records ``queue_by_length``).
- :func:`plot_tradeoff`: validation accuracy against model complexity with error bars, from a
  cross-validation result (``BooleanRuleCGCV.cv_results_`` or a dict of the same keys).
- :func:`plot_roc`: the ROC curve of falling rule lists (thresholding their rule probabilities),
  each list's operating point (its threshold 1 / (1 + w)) marked.
- :func:`plot_rashomon`, :func:`plot_feature_usage`: the objectives of a Rashomon set of rule
  lists (sorted) and the share of its lists that read each feature.

What is drawn is exactly what the certificate recorded: points whose value is missing (``None``
or NaN, e.g. column generation has no incumbent objective before its restricted IP) are left out
of that series, never invented.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

from rulecert.certificate import Certificate

_X_KEYS = {
    "time": ("time",),
    "nodes": ("nodes_expanded", "nodes"),
    "iterations": ("iteration", "iterations"),
}
_X_LABELS = {"time": "time (s)", "nodes": "nodes expanded", "iterations": "iteration"}


def _pyplot():
    """matplotlib.pyplot, or an ImportError that names the ``plot`` extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised with matplotlib hidden
        raise ImportError("rulecert.plotting needs matplotlib, which is in the 'plot' extra: "
                          "pip install 'rulecert[plot]'") from exc
    return plt


def _axes(ax):
    if ax is not None:
        return ax
    plt = _pyplot()
    _, ax = plt.subplots(figsize=(6, 4))
    return ax


def _value(entry: dict, key: str) -> float:
    v = entry.get(key)
    if v is None:
        return math.nan
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _x_key(history: Sequence[dict], x: str) -> str:
    if x not in _X_KEYS:
        raise ValueError(f"x must be one of {sorted(_X_KEYS)}, got {x!r}")
    for key in _X_KEYS[x]:
        if history and all(key in e for e in history):
            return key
    raise ValueError(f"this certificate's history has no {x!r} column (its keys: "
                     f"{sorted(set().union(*(e.keys() for e in history)))})")


def history_series(certificate: Certificate, x: str = "time") -> dict[str, np.ndarray]:
    """The points :func:`plot_history` draws: ``x``, ``objective`` and ``lower_bound`` arrays,
    one entry per history record (missing values as NaN)."""
    hist = list(certificate.history)
    if not hist:
        return {"x": np.empty(0), "objective": np.empty(0), "lower_bound": np.empty(0)}
    key = _x_key(hist, x)
    return {"x": np.array([_value(e, key) for e in hist]),
            "objective": np.array([_value(e, "objective") for e in hist]),
            "lower_bound": np.array([_value(e, "lower_bound") for e in hist])}


def plot_history(certificates: Certificate | Iterable[Certificate], *, x: str = "time",
                 labels: Sequence[str] | None = None, ax=None, shade: bool = True,
                 logx: bool = False):
    """Objective (incumbent) and proven lower bound against ``x`` ("time", "nodes" or
    "iterations"), with the gap between them shaded, for one certificate or several on one axis.

    Both series are drawn as steps (a value holds until the next record); a record with no
    objective or no bound is skipped in that series.  A certificate whose history is empty or
    has a single point is drawn as far as it goes, and the title says so.
    """
    certs = [certificates] if isinstance(certificates, Certificate) else list(certificates)
    if not certs:
        raise ValueError("plot_history needs at least one certificate")
    for c in certs:
        if not isinstance(c, Certificate):
            raise TypeError(f"plot_history takes Certificates, got {type(c).__name__}")
    if labels is None:
        labels = [c.solver for c in certs] if len(certs) > 1 else [""]
    labels = list(labels)
    if len(labels) != len(certs):
        raise ValueError(f"{len(labels)} labels for {len(certs)} certificates")
    ax = _axes(ax)
    notes = []
    for i, (cert, label) in enumerate(zip(certs, labels)):
        s = history_series(cert, x)
        n = len(s["x"])
        if n <= 1:
            notes.append(f"{label or cert.solver}: {'empty' if n == 0 else 'one-point'} history")
        if n == 0:
            continue
        color = f"C{i}"
        prefix = f"{label} " if label else ""
        okj = ~np.isnan(s["objective"])
        okb = ~np.isnan(s["lower_bound"])
        ax.step(s["x"][okj], s["objective"][okj], where="post", color=color,
                marker="o" if okj.sum() == 1 else None, label=f"{prefix}objective",
                gid=f"objective-{i}")
        ax.step(s["x"][okb], s["lower_bound"][okb], where="post", color=color, linestyle="--",
                marker="s" if okb.sum() == 1 else None, label=f"{prefix}lower bound",
                gid=f"bound-{i}")
        both = okj & okb
        if shade and both.sum() >= 2:
            ax.fill_between(s["x"][both], s["lower_bound"][both], s["objective"][both],
                            step="post", color=color, alpha=0.15, label=f"{prefix}gap")
    ax.set_xlabel(_X_LABELS[x])
    ax.set_ylabel("objective")
    if logx:
        ax.set_xscale("symlog", linthresh=1e-3)
    title = "objective and proven bound"
    if len(certs) == 1:
        c = certs[0]
        title += f" ({c.termination.value}, gap {c.abs_gap:.3g})" if c.objective is not None \
            else f" ({c.termination.value}, no solution)"
    if notes:
        title += "\n" + "; ".join(notes)
    ax.set_title(title, fontsize=9)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    return ax


def plot_search(certificate: Certificate, *, ax=None, x: str = "time"):
    """The CORELS queue by prefix length over the run: one stacked band per prefix length,
    from the ``queue_by_length`` the search records in each history entry."""
    hist = [e for e in certificate.history if "queue_by_length" in e]
    if not hist:
        raise ValueError("this certificate's history has no 'queue_by_length' (plot_search "
                         "draws CORELS runs: rulecert.search.corels.corels)")
    key = _x_key(hist, x)
    xs = np.array([float(e[key]) for e in hist])
    depth = max(len(e["queue_by_length"]) for e in hist)
    counts = np.zeros((depth, len(hist)))
    for j, e in enumerate(hist):
        counts[:len(e["queue_by_length"]), j] = e["queue_by_length"]
    ax = _axes(ax)
    ax.stackplot(xs, counts, labels=[f"length {d}" for d in range(depth)], step="post")
    ax.set_xlabel(_X_LABELS[x])
    ax.set_ylabel("open prefixes in the queue")
    title = "CORELS queue by prefix length"
    if len(hist) <= 1:
        title += " (one-point history)"
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    return ax


def plot_tradeoff(cv_results: dict[str, Any] | Sequence[dict[str, Any]], *, labels=None,
                  x: str = "mean_complexity", ax=None, annotate: str | None = "complexity_bound"):
    """Validation accuracy against model complexity, with standard-error bars.

    ``cv_results`` is ``BooleanRuleCGCV.cv_results_`` (or a list of them, one curve each): the
    keys ``mean_test_score``, ``split<k>_test_score`` (for the standard error over the k splits)
    and ``x`` (``mean_complexity`` by default) are read.  Each point is annotated with the grid
    value under ``annotate`` (the complexity bound C) when that key is present.
    """
    results = [cv_results] if isinstance(cv_results, dict) else list(cv_results)
    if labels is None:
        labels = [None] * len(results)
    ax = _axes(ax)
    for i, (res, label) in enumerate(zip(results, labels)):
        for key in (x, "mean_test_score"):
            if key not in res:
                raise ValueError(f"cv_results has no {key!r} (keys: {sorted(res)})")
        mean = np.asarray(res["mean_test_score"], dtype=float)
        k = 0
        while f"split{k}_test_score" in res:
            k += 1
        if k > 1:
            split = np.array([np.asarray(res[f"split{j}_test_score"], float) for j in range(k)])
            err = split.std(axis=0, ddof=1) / math.sqrt(k)
        else:
            err = np.zeros_like(mean)
        xs = np.asarray(res[x], dtype=float)
        ax.errorbar(xs, mean, yerr=err, marker="o", capsize=3, color=f"C{i}", label=label)
        if annotate and annotate in res:
            for xi, yi, g in zip(xs, mean, res[annotate]):
                ax.annotate(f"C={g:g}", (xi, yi), textcoords="offset points", xytext=(4, -10),
                            fontsize=7)
    ax.set_xlabel(x.replace("_", " "))
    ax.set_ylabel("validation accuracy (mean ± s.e.)")
    ax.set_title("accuracy / complexity trade-off", fontsize=9)
    if any(lab is not None for lab in labels):
        ax.legend(fontsize=7)
    return ax


def roc_curve_points(scores, y) -> tuple[np.ndarray, np.ndarray]:
    """(false positive rates, true positive rates) of the classifier "score >= t" over every
    distinct score t, from (0, 0) to (1, 1); ``y`` in {0, 1}."""
    scores = np.asarray(scores, dtype=float)
    y = np.asarray(y)
    if scores.shape != y.shape:
        raise ValueError(f"scores and y differ in shape: {scores.shape} vs {y.shape}")
    pos, neg = int((y == 1).sum()), int((y != 1).sum())
    if pos == 0 or neg == 0:
        raise ValueError("an ROC curve needs both classes in y")
    fpr, tpr = [0.0], [0.0]
    for t in np.unique(scores)[::-1]:
        pred = scores >= t
        tpr.append(float((pred & (y == 1)).sum()) / pos)
        fpr.append(float((pred & (y != 1)).sum()) / neg)
    return np.array(fpr), np.array(tpr)


def plot_roc(models, X, y, *, labels=None, ax=None):
    """ROC curves of falling rule lists on (X, y).

    ``models`` is a :class:`~rulecert.models.FallingRuleList` (or a fitted
    ``FallingRuleListClassifier``, or a list of either).  Each curve thresholds the list's rule
    probabilities (the probability of the rule that captures a sample); the list's own decision
    (probability > 1 / (1 + w)) is marked with a dot.  ``X`` is what the model predicts on
    (the binary antecedent matrix for a FallingRuleList, raw features for an estimator).
    """
    items = models if isinstance(models, (list, tuple)) else [models]
    if labels is None:
        labels = [None] * len(items)
    y = np.asarray(y)
    ax = _axes(ax)
    for i, (m, label) in enumerate(zip(items, labels)):
        proba = np.asarray(m.predict_proba(X), dtype=float)
        score = proba[:, 1] if proba.ndim == 2 else proba
        pred = np.asarray(m.predict(X))
        y01 = y if not hasattr(m, "classes_") else (y == m.classes_[1]).astype(int)
        pred01 = pred if not hasattr(m, "classes_") else (pred == m.classes_[1]).astype(int)
        fpr, tpr = roc_curve_points(score, y01)
        auc = float(np.trapezoid(tpr, fpr))
        name = label or f"list {i}"
        ax.plot(fpr, tpr, "-", color=f"C{i}", label=f"{name} (AUC {auc:.3f})")
        pos, neg = (y01 == 1).sum(), (y01 != 1).sum()
        ax.plot([((pred01 == 1) & (y01 != 1)).sum() / neg], [((pred01 == 1) & (y01 == 1)).sum() / pos],
                "o", color=f"C{i}", markersize=7)
    ax.plot([0, 1], [0, 1], "k:", lw=0.5)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("ROC of falling rule lists (dot: the list's decision)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    return ax


def save(ax, path: str, dpi: int = 110) -> str:
    """Write the figure of ``ax`` to ``path`` (PNG, SVG, PDF by its suffix) and close it."""
    plt = _pyplot()
    fig = ax.figure
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def plot_rashomon(rashomon_set, *, ax=None):
    """The objective of every list of a Rashomon set, sorted, against its rank, with the
    optimum and the threshold; a limit-stopped set also shows the bound on missing lists."""
    rs = rashomon_set
    cert = rs.certificate
    ax = _axes(ax)
    obj = np.asarray(rs.objectives, dtype=float)
    ax.step(np.arange(1, len(obj) + 1), obj, where="post", color="C0", label="lists in the set",
            gid="rashomon-objectives")
    ax.axhline(cert.threshold, color="C3", ls="--", lw=1, label=f"threshold {cert.threshold:.5f}")
    ax.axhline(cert.optimum, color="k", ls=":", lw=1, label=f"optimum {cert.optimum:.5f}")
    if not cert.complete and math.isfinite(cert.missing_lower_bound):
        ax.axhline(cert.missing_lower_bound, color="C1", ls="-.", lw=1,
                   label=f"missing lists >= {cert.missing_lower_bound:.5f}")
    ax.set_xlabel("rank")
    ax.set_ylabel("objective")
    state = "complete" if cert.complete else f"stopped ({cert.termination})"
    ax.set_title(f"Rashomon set: {len(obj)} rule lists, {state}", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_feature_usage(rashomon_set, *, ax=None, top: int = 15, feature_of=None):
    """Share of the lists of a Rashomon set that read each feature (the ``top`` most used)."""
    usage = list(rashomon_set.feature_usage(feature_of).items())[:top]
    ax = _axes(ax)
    names = [f for f, _ in usage][::-1]
    vals = [v for _, v in usage][::-1]
    ax.barh(names, vals, color="C2", gid="feature-usage")
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the lists in the set")
    ax.set_title("feature usage across the Rashomon set", fontsize=9)
    return ax
