"""experiments/bench_brcg.py, the same-matrix comparison, on a fake dumped AIX360 fold (no
AIX360 needed): both rule sets are scored on the same matrix, the figures agree with a direct
computation, and the checks catch a disagreement."""
import argparse
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "experiments"))
bench = pytest.importorskip("bench_brcg")


def _dnf(X, clauses):
    """Direct DNF prediction and clause hits (no rulecert code)."""
    hits = np.zeros(X.shape[0], dtype=int)
    for c in clauses:
        hits += X[:, list(c)].all(axis=1) if c else 1
    return (hits > 0).astype(int), hits


@pytest.fixture(scope="module")
def fold():
    rng = np.random.default_rng(3)
    X = rng.random((90, 8)) < 0.5
    y = (_dnf(X, [(0, 1), (2, 3, 4)])[0] ^ (rng.random(90) < 0.1)).astype(int)
    tr, te = np.arange(60), np.arange(60, 90)
    pool = [(), (0,), (1,), (2, 3), (0, 5), (2, 3, 4), (6, 7)]
    selected = [3, 4]                   # AIX360's pick: "c2 & c3" or "c0 & c5", complexity 6
    aix_clauses = [pool[k] for k in selected]
    pred_tr, pred_te = _dnf(X[tr], aix_clauses)[0], _dnf(X[te], aix_clauses)[0]
    a = {"fold": 0, "acc": float((pred_te == y[te]).mean()), "complexity": 6, "time": 2.0,
         "clauses": 2, "train_acc": float((pred_tr == y[tr]).mean())}
    dumped = {"Xtr": X[tr], "Xte": X[te], "pool": [list(c) for c in pool], "selected": selected,
              "columns": [f"c{j}" for j in range(8)]}
    args = argparse.Namespace(no_empty_clause=False, time_factor=0.9, seed=0)
    return bench.same_fold(a, dumped, y[tr], y[te], args), X, y, tr, te, pool, selected


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_same_fold_scores_both_rule_sets_on_the_same_matrix(fold):
    f, X, y, tr, te, pool, selected = fold
    a, o = f["aix"], f["ours"]
    pred, hits = _dnf(X[tr], [pool[k] for k in selected])
    assert a["train_errors"] == int((pred != y[tr]).sum())
    assert a["train_hamming"] == int(((y[tr] == 1) & (hits == 0)).sum() + hits[y[tr] == 0].sum())
    assert sorted(a["rules"]) == [["c0", "c5"], ["c2", "c3"]]
    ours_clauses = [tuple(int(n[1:]) for n in r) for r in o["rules"]]
    pred_o, hits_o = _dnf(X[tr], ours_clauses)
    assert o["train_errors"] == int((pred_o != y[tr]).sum())
    assert o["acc"] == pytest.approx(float((_dnf(X[te], ours_clauses)[0] == y[te]).mean()))
    assert o["complexity"] <= o["C"] == 6
    assert o["time_limit"] == pytest.approx(1.8)
    # a tiny instance: proven optimal, so at least as good as AIX360's rule set of the same C
    assert o["termination"] == "optimal"
    assert o["train_hamming"] == o["objective"] <= a["train_hamming"]
    assert o["bound"] <= a["train_hamming"]
    assert f["aix_in_our_class"] and bench._same_checks(f) == []


def test_checks_and_table(fold, capsys):
    f = fold[0]
    row = bench.summary_row("fake", "same", True, [f, f])
    lr = bench.train_loss_ratio(row, "train_hamming")
    ratio = f["ours"]["train_hamming"] / f["aix"]["train_hamming"]
    assert lr == (pytest.approx(ratio), pytest.approx(ratio), 2)
    bench.print_table([row], 0.9, measured=True)
    out = capsys.readouterr().out
    assert "| fake |" in out and "all pass" in out
    bad = dict(f, aix=dict(f["aix"], driver_train_acc=f["aix"]["train_acc"] - 0.1))
    assert any("train_acc" in m for m in bench._same_checks(bad))
