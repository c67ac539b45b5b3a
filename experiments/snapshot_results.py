"""End-to-end results of every learner on the shared datasets, as JSON without times.

A regression snapshot: run it before and after a change that must not change behaviour (a
refactor) and compare the two files byte for byte. Every run uses deterministic limits
(node, iteration and pricing work limits, fixed seeds), so unchanged code writes the same file.
Keys that hold times, memory or time-sized work chunks (``*time*``, ``*rss*``, ``*_mb``,
``chunks``) are dropped recursively.

    python experiments/snapshot_results.py --out before.json
    python experiments/snapshot_results.py --out after.json && cmp before.json after.json
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import warnings

import numpy as np

from rulecert import datasets
from rulecert.cli import main as cli_main

DROP = ("time", "rss", "_mb", "chunks")


def _clean(obj):
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items() if not any(s in str(k) for s in DROP)}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, float) and not np.isfinite(obj):
        return repr(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    return obj


def _cli(args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = cli_main(args)
    return {"args": args, "rc": rc, "out": _clean(json.loads(buf.getvalue()))}


def _fitted(est):
    cert = est.certificate_.to_dict()
    model = getattr(est, "model_", None) or getattr(est, "rule_list_", None) or getattr(est, "rule_set_", None)
    return {"certificate": _clean(cert), "model": None if model is None else _clean(model.to_dict())}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    stem = str(datasets.compas_corels_stem("train"))
    results = {}
    results["corels_compas_c0.01"] = _cli(["corels", "--data", stem, "--c", "0.01", "--json", "--quiet"])
    results["corels_compas_c0.005_nodes"] = _cli(["corels", "--data", stem, "--c", "0.005",
                                                  "--node-limit", "20000", "--json", "--quiet"])
    results["crosscheck_compas_c0.02_K2"] = _cli(["crosscheck", "--data", stem, "--c", "0.02",
                                                  "--max-rules", "2", "--json"])
    results["frl_compas_mc_bnb"] = _cli(["frl", "--data", stem, "--w", "7", "--C", "0.001",
                                         "--iterations", "300", "--seed", "0", "--node-limit", "3000",
                                         "--max-length", "4", "--json"])
    results["softfrl_compas_mc_bnb"] = _cli(["frl", "--data", stem, "--w", "7", "--C", "0.001",
                                             "--soft", "--C1", "0.5", "--iterations", "300", "--seed",
                                             "0", "--node-limit", "3000", "--max-length", "4", "--json"])

    from rulecert.estimators import (BooleanRuleCGClassifier, FallingRuleListClassifier,
                                     RuleListMIPClassifier)
    from rulecert.mining import FeatureBinarizer
    X, y = datasets.load_tictactoe()
    for form in ("dnf", "cnf"):
        est = BooleanRuleCGClassifier(complexity_bound=15, 
                                      random_state=0, form=form,
                                      binarizer=FeatureBinarizer(n_thresholds=9, negations=True), solver_options={'max_iter': 8, 'pricing_nodes': 20000, 'pricing_deterministic_time': 2.0})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
        results[f"brcg_tictactoe_C15_{form}"] = _fitted(est)
    X, y = datasets.load_liver()
    est = RuleListMIPClassifier(c=0.01, max_rules=2, max_card=1, node_limit=200, backend="highs",
                                binarizer=FeatureBinarizer(n_thresholds=4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    results["rulelist_mip_liver"] = _fitted(est)
    est = FallingRuleListClassifier(w=2.0, C=0.01, iterations=200, node_limit=2000, random_state=0,
                                    binarizer=FeatureBinarizer(n_thresholds=4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    results["frl_liver"] = _fitted(est)
    with open(args.out, "w") as fh:
        json.dump(results, fh, indent=1, sort_keys=True)
        fh.write("\n")
    for k, v in results.items():
        out = v.get("out", v.get("certificate", {}))
        print(f"{k:32s} objective={out.get('objective')} bound={out.get('lower_bound')} "
              f"termination={out.get('termination')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
