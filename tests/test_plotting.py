"""rulecert.plotting: the drawn data is the certificate's (Agg backend, rendered to PNG)."""
import math
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from rulecert import Certificate, plotting  # noqa: E402
from rulecert.models import FallingRuleList  # noqa: E402
from rulecert.problem import RuleProblem  # noqa: E402
from rulecert.search import corels  # noqa: E402


@pytest.fixture
def problem():
    rng = np.random.default_rng(3)
    X = (rng.random((200, 8)) < 0.3).astype(np.uint8)
    y = ((X[:, 0] | X[:, 3]) ^ (rng.random(200) < 0.1)).astype(int)
    return RuleProblem.from_matrix(X, y)


def _lines(ax, gid):
    return [ln for ln in ax.get_lines() if ln.get_gid() == gid]


def _steps(ln):
    """The (x, y) points a post-step line was given (matplotlib stores them as drawn)."""
    return np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float)


def test_history_draws_the_certificates_points(problem, tmp_path):
    _, cert = corels.solve(problem, c=0.01, history_every=1e-4)
    assert len(cert.history) >= 2
    ax = plotting.plot_history(cert)
    plotting.save(ax, str(tmp_path / "h.png"))
    assert (tmp_path / "h.png").stat().st_size > 1000
    x, obj = _steps(_lines(ax, "objective-0")[0])
    _, bound = _steps(_lines(ax, "bound-0")[0])
    np.testing.assert_array_equal(x, [e["time"] for e in cert.history])
    np.testing.assert_array_equal(obj, [e["objective"] for e in cert.history])
    np.testing.assert_array_equal(bound, [e["lower_bound"] for e in cert.history])
    assert "optimal" in ax.get_title()


def test_history_by_nodes_and_several_certificates(problem):
    _, a = corels.solve(problem, c=0.01, history_every=1e-4)
    _, b = corels.solve(problem, c=0.02, history_every=1e-4)
    fig, ax = plt.subplots()
    plotting.plot_history([a, b], x="nodes", labels=["c=0.01", "c=0.02"], ax=ax)
    for i, cert in enumerate((a, b)):
        x, obj = _steps(_lines(ax, f"objective-{i}")[0])
        np.testing.assert_array_equal(x, [e["nodes_expanded"] for e in cert.history])
        np.testing.assert_array_equal(obj, [e["objective"] for e in cert.history])
    assert {t.get_text() for t in ax.get_legend().get_texts()} >= {"c=0.01 objective", "c=0.02 lower bound"}
    plt.close(fig)


def test_history_skips_missing_values_and_says_when_short():
    hist = [{"time": 0.0, "iteration": 1, "objective": None, "lower_bound": 1.0},
            {"time": 0.5, "iteration": 2, "objective": 5.0, "lower_bound": float("nan")},
            {"time": 1.0, "iteration": 3, "objective": 4.0, "lower_bound": 3.0}]
    cert = Certificate("iteration_limit", "feasible", 4.0, 3.0, "demo", history=hist)
    ax = plotting.plot_history(cert, x="iterations")
    x, obj = _steps(_lines(ax, "objective-0")[0])
    np.testing.assert_array_equal(x, [2, 3])
    np.testing.assert_array_equal(obj, [5.0, 4.0])
    x, bound = _steps(_lines(ax, "bound-0")[0])
    np.testing.assert_array_equal(x, [1, 3])
    np.testing.assert_array_equal(bound, [1.0, 3.0])
    plt.close(ax.figure)

    one = Certificate("optimal", "optimal", 1.0, 1.0, "demo",
                      history=[{"time": 0.1, "objective": 1.0, "lower_bound": 1.0}])
    ax = plotting.plot_history(one)
    assert "one-point history" in ax.get_title()
    plt.close(ax.figure)
    empty = Certificate("optimal", "optimal", 1.0, 1.0, "demo")
    ax = plotting.plot_history(empty)
    assert "empty history" in ax.get_title()
    plt.close(ax.figure)


def test_history_bad_input():
    cert = Certificate("optimal", "optimal", 1.0, 1.0, "demo",
                       history=[{"time": 0.1, "objective": 1.0, "lower_bound": 1.0}])
    with pytest.raises(ValueError, match="x must be one of"):
        plotting.plot_history(cert, x="seconds")
    with pytest.raises(ValueError, match="no 'nodes' column"):
        plotting.plot_history(cert, x="nodes")
    with pytest.raises(TypeError, match="Certificates"):
        plotting.plot_history([cert, "not a certificate"])
    with pytest.raises(ValueError, match="2 labels for 1"):
        plotting.plot_history(cert, labels=["a", "b"])


def test_search_plot_stacks_the_queue_by_length(problem):
    _, cert = corels.solve(problem, c=0.005, history_every=1e-4)
    ax = plotting.plot_search(cert)
    hist = [e for e in cert.history if "queue_by_length" in e]
    depth = max(len(e["queue_by_length"]) for e in hist)
    assert len(ax.collections) == depth
    # the top of the stack is the total queue size at each record
    tops = [sum(e["queue_by_length"]) for e in hist]
    top_path = ax.collections[-1].get_paths()[0].vertices
    assert max(top_path[:, 1]) == pytest.approx(max(tops))
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="queue_by_length"):
        plotting.plot_search(Certificate("optimal", "optimal", 1.0, 1.0, "demo"))


def test_tradeoff_plots_means_and_standard_errors():
    cv = {"complexity_bound": [5, 10], "mean_test_score": [0.7, 0.75], "mean_complexity": [4.0, 9.0],
          "split0_test_score": [0.68, 0.74], "split1_test_score": [0.72, 0.76],
          "split2_test_score": [0.70, 0.75]}
    ax = plotting.plot_tradeoff(cv)
    line = ax.get_lines()[0]
    np.testing.assert_array_equal(line.get_xdata(), [4.0, 9.0])
    np.testing.assert_array_equal(line.get_ydata(), [0.7, 0.75])
    split = np.array([cv[f"split{k}_test_score"] for k in range(3)])
    se = split.std(axis=0, ddof=1) / math.sqrt(3)
    segs = ax.collections[0].get_segments()
    np.testing.assert_allclose([s[1, 1] - s[0, 1] for s in segs], 2 * se)
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="mean_test_score"):
        plotting.plot_tradeoff({"mean_complexity": [1]})


def test_roc_points_and_plot():
    import pandas as pd
    from rulecert.estimators import FallingRuleListClassifier
    rng = np.random.default_rng(5)
    X = pd.DataFrame((rng.random((300, 6)) < 0.35).astype(np.int8), columns=[f"f{j}" for j in range(6)])
    y = ((X.f0 | X.f2).to_numpy() ^ (rng.random(300) < 0.15)).astype(int)
    clf = FallingRuleListClassifier(w=2.0, C=0.001, node_limit=2000, iterations=50).fit(X, y)
    score = clf.predict_proba(X)[:, 1]
    fpr, tpr = plotting.roc_curve_points(score, y)
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    assert len(fpr) == len(np.unique(score)) + 1
    ax = plotting.plot_roc(clf, X, y, labels=["frl"])
    curve, point = ax.get_lines()[0], ax.get_lines()[1]
    np.testing.assert_array_equal(curve.get_xdata(), fpr)
    np.testing.assert_array_equal(curve.get_ydata(), tpr)
    pred = clf.predict(X)
    assert point.get_xdata()[0] == pytest.approx(((pred == 1) & (y == 0)).sum() / (y == 0).sum())
    assert point.get_ydata()[0] == pytest.approx(((pred == 1) & (y == 1)).sum() / (y == 1).sum())
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="both classes"):
        plotting.roc_curve_points([0.1, 0.2], [1, 1])


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"'plot' extra"):
        plotting.plot_history(Certificate("optimal", "optimal", 1.0, 1.0, "demo"))


def test_importing_rulecert_does_not_import_matplotlib():
    import subprocess
    code = ("import sys, rulecert, rulecert.plotting, rulecert.estimators, rulecert.cli; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_plot_writes_the_history_png(tmp_path, capsys):
    from rulecert.cli import main
    from rulecert.datasets import compas_corels_stem
    stem = str(compas_corels_stem("train"))
    out = tmp_path / "run.png"
    assert main(["corels", "--data", stem, "--c", "0.02", "--quiet", "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["corels", "--data", stem, "--c", "0.02", "--plot", str(tmp_path / "run.txt")]) == 2
    assert "--plot" in capsys.readouterr().err
    assert not (tmp_path / "run.txt").exists()
