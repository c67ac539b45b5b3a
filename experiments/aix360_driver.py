"""Run IBM AIX360's BooleanRuleCG on given folds; used by ``bench_brcg.py``.

AIX360's rule-induction extra pins numpy <= 1.24.3, pandas < 2 and scikit-learn < 1.2, so it
cannot live in rulecert's environment; it runs in its own virtualenv, for example

    python3 -m venv /tmp/aix360-venv && /tmp/aix360-venv/bin/pip install "aix360[rbm]==0.3.0" ecos

and ``bench_brcg.py --aix360-python /tmp/aix360-venv/bin/python`` calls this script with that
interpreter.  Input: a directory with ``X.csv`` (raw features), ``y.npy`` (0/1) and
``job.json`` ({"folds": [[train indices], ...], "test": [[test indices], ...],
"categorical": [...], "lambda0": ..., "lambda1": ...}).  Output: one JSON line per fold on
stdout with accuracy, complexity (clauses + literals) and the fit time.  Binarization is
AIX360's own FeatureBinarizer (9 quantile thresholds, negations), fitted on each training set,
and is not counted in the fit time.  With ``"dump": true`` in the job, each fold's binarized
training and test matrices (``fold<k>_train.npy``, ``fold<k>_test.npy``) are saved in the
directory and the JSON line also holds AIX360's whole column pool (``pool``: clauses as column
indices of those matrices), the indices of its selected clauses (``selected``) and the names of
the matrices' columns (``columns``, e.g. "age <= 45.0").
"""
import json
import sys
import time
import warnings

import numpy as np
import pandas as pd


def main(path):
    warnings.filterwarnings("ignore")
    from aix360.algorithms.rbm import BooleanRuleCG, FeatureBinarizer

    job = json.load(open(f"{path}/job.json"))
    X = pd.read_csv(f"{path}/X.csv")
    y = np.load(f"{path}/y.npy").astype(int)
    cat = [c for c in job.get("categorical") or [] if c in X.columns]
    for c in cat:
        X[c] = X[c].astype(str)
    for f, (tr, te) in enumerate(zip(job["folds"], job["test"])):
        fb = FeatureBinarizer(colCateg=cat, numThresh=9, negations=True)
        Xtr = fb.fit_transform(X.iloc[tr])
        Xte = fb.transform(X.iloc[te])
        clf = BooleanRuleCG(lambda0=job.get("lambda0", 0.001), lambda1=job.get("lambda1", 0.001),
                            silent=True)
        t0 = time.perf_counter()
        clf.fit(Xtr, y[tr])
        fit_time = time.perf_counter() - t0
        acc = float((np.asarray(clf.predict(Xte)).ravel() == y[te]).mean())
        train_acc = float((np.asarray(clf.predict(Xtr)).ravel() == y[tr]).mean())
        z = clf.z.loc[:, np.asarray(clf.w) > 0.5]
        complexity = int(z.shape[1] + z.values.sum())
        out = {"fold": f, "acc": acc, "complexity": complexity, "time": fit_time,
               "clauses": int(z.shape[1]), "train_acc": train_acc}
        if job.get("dump"):
            np.save(f"{path}/fold{f}_train.npy", Xtr.values.astype(np.int8))
            np.save(f"{path}/fold{f}_test.npy", Xte.values.astype(np.int8))
            col = {c: j for j, c in enumerate(Xtr.columns)}
            out["pool"] = [[col[i] for i in clf.z.index[clf.z[c].values > 0]] for c in clf.z.columns]
            out["selected"] = [int(k) for k in np.flatnonzero(np.asarray(clf.w) > 0.5)]
            out["columns"] = [" ".join(map(str, c)) for c in Xtr.columns]
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
