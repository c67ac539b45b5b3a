"""Helpers shared by the BRCG studies (brcg_table.py, bench_brcg.py, brcg_localsearch.py,
brcg_pool_check.py): datasets, binarizer, the grid of C, AIX360's reference figures, one fit
and its evaluation.  Not a study; the scripts import it (run them from any directory: Python
puts ``experiments/`` on the path of a script it runs).
"""
from __future__ import annotations

import math

import numpy as np

# one definition of the binarizer, the loaders and the per-fit record, shared with the runner
from rulecert.experiments.data import load_table, make_binarizer  # noqa: F401
from rulecert.experiments.learners import fit_eval  # noqa: F401

# AIX360 BooleanRuleCG with its defaults (lambda 0.001), 10-fold, measured in the issue:
# accuracy %, complexity, seconds per fold (None: not reported)
AIX360 = {
    "banknote": (97.9, 12.7, 2.2), "heart": (77.5, 42.9, 4.5), "ilpd": (70.1, 4.1, 20.5),
    "ionosphere": (90.0, 19.3, 11.1), "liver": (56.2, 26.2, None), "pima": (76.6, 27.0, 17.7),
    "tictactoe": (99.4, 35.9, 5.1), "transfusion": (79.0, 9.9, 3.3), "wdbc": (94.7, 15.1, 9.1),
}
GRID = [5, 10, 15, 25, 35]   # the grid of C for the inner cross-validation
DATASETS = ["banknote", "heart", "ilpd", "ionosphere", "liver", "liver_selector", "pima",
            "tictactoe", "transfusion", "wdbc"]


def load(name):
    """Raw features, 0/1 labels and the binarizer settings for one dataset."""
    t = load_table(name)
    return t.X, t.y, t.categorical


def mean_se(vals):
    v = np.asarray(vals, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else 0.0
