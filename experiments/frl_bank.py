"""The bank-full study of Chen & Rudin (AISTATS 2018) with rulecert's FRL / softFRL.

Steps
1. Binarize bank-full (45,211 clients) into 63 binary literals, chosen to contain the
   predicates of the paper's Table 1:
   age in [17,30), [30,60), [60,100); one literal per category of job, marital, education,
   default, housing, loan, contact, month, poutcome; balance < 0, [0,500), [500,2000), >= 2000;
   day <= 10, 11..20, >= 21; campaign = 1, = 2, >= 3; pdays = -1, [0,200), >= 200;
   previous = 0, = 1, >= 2.  ``duration`` is left out (it is only known after the call).
2. Mine antecedents with FP-growth separately within positives and within negatives
   (at most 2 predicates, support >= 10% of one class; identical capture vectors merged).
3. Check the paper's Table 1 list on these antecedents (objective 0.560290 at w=7, C=1e-6).
4. Whole data, w in {1,3,5,7}: Algorithm FRL (3000 it.), Algorithm softFRL (6000 it.), then the
   exact branch-and-bound seeded with the Monte-Carlo list under a time limit; print the lists
   as Table 1, the certificates (objective, bound, gap, nodes, time) and write the weighted
   training loss against time of every search to ``--out``/traces_*.csv.
5. ROC over w on ``--splits`` random 75/25 splits: FRL, softFRL, cost-sensitive CART, random
   forest, AdaBoost (class weight w on positives) and RIPPER (``wittgenstein``, one point);
   true/false positive rates to ``--out``/roc.csv and, with matplotlib, roc_split*.png.
   Step 5 runs on the experiment runner (rulecert.experiments; ``--jobs N``, ``--dask``,
   ``--scheduler``, ``--results``): one cell per split, w and method, stored as it finishes.

Run:  python experiments/frl_bank.py [--quick] [--time-limit S] [--splits K] [--roc-only] [--out DIR]
Timings are wall-clock on a shared 2-core machine.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time

import numpy as np
import pandas as pd

from rulecert.experiments import CV, Study, engines, load_results
from rulecert.datasets import (BANK_FULL_TABLE1 as TABLE1, BANK_FULL_TABLE1_OBJECTIVE as
                               PAPER_TABLE1_OBJECTIVE, bank_full_literals as binarize,
                               load_bank_full)
from rulecert.mining.fpgrowth import mine_fpgrowth
from rulecert.models.falling import FallingRuleList, frl_objective
from rulecert.search.falling.bnb import branch_and_bound
from rulecert.search.falling.mc import monte_carlo


def table1_prefix(problem):
    """Indices of the Table 1 antecedents in ``problem`` (matched as literal sets)."""
    names = [set(nm.split(" and ")) for nm in problem.antecedent_names]
    out = []
    for a, b in TABLE1:
        hits = [i for i, s in enumerate(names) if s == {a, b}]
        if not hits:
            return None
        out.append(hits[0])
    return out


def learn(problem, w, C, C1, time_limit, mc_iters=None, seed=0):
    """MC FRL, MC softFRL, exact FRL and softFRL seeded by MC; returns dict of (model, cert)."""
    out = {}
    for prog in ("frl", "softfrl"):
        it = None if mc_iters is None else mc_iters * (1 if prog == "frl" else 2)
        mm, mc = monte_carlo(problem, prog, w, C, C1, iterations=it, seed=seed)
        out[f"{prog}-mc"] = (mm, mc)
        if time_limit > 0:
            bm, bc = branch_and_bound(problem, prog, w, C, C1, time_limit=time_limit, incumbent=mm)
            out[f"{prog}-exact"] = (bm, bc)
    return out


def write_trace(path, cert):
    with open(path, "w", newline="") as f:
        wr = csv.writer(f)
        if "best_by_iteration" in cert.stats:
            wr.writerow(["iteration", "time_s", "best_objective", "lower_bound"])
            for i, (t, v) in enumerate(zip(cert.stats["time_by_iteration"], cert.stats["best_by_iteration"])):
                wr.writerow([i + 1, f"{t:.4f}", f"{v:.8f}", f"{cert.lower_bound:.8f}"])
        else:
            wr.writerow(["nodes", "time_s", "best_objective", "lower_bound"])
            for h in cert.history:
                wr.writerow([h.get("nodes", ""), f"{h['time']:.4f}", f"{h['objective']:.8f}",
                             "" if h["lower_bound"] != h["lower_bound"] else f"{h['lower_bound']:.8f}"])


def rates(y_true, y_pred):
    y_true = np.asarray(y_true).astype(bool)
    y_pred = np.asarray(y_pred).astype(bool)
    tpr = (y_pred & y_true).sum() / max(1, y_true.sum())
    fpr = (y_pred & ~y_true).sum() / max(1, (~y_true).sum())
    return float(tpr), float(fpr)


ROC_FRL = ("frl-exact", "softfrl-exact", "frl-mc", "softfrl-mc")
ROC_BASELINES = ("cart", "random-forest", "adaboost")


def roc_studies(ws, splits, C, C1, time_limit, mc_iters, seed=0, results=None, ripper=True):
    """The ROC study as runner studies on bank_full (one cell per split, w and method): FRL /
    softFRL (learner ``frl``: Monte-Carlo, and branch-and-bound seeded by it), the weighted
    baselines and RIPPER (learner ``baseline``)."""
    cv = CV(kind="split", repeats=splits, seed=seed, test_size=0.25)
    searches = ["exact", "mc"] if time_limit > 0 else ["mc"]
    out = [Study(name="frl_bank_roc", learner="frl", datasets=["bank_full"],
                 params={"C": C, "C1": C1, "mc_iterations": mc_iters},
                 limits={"time_limit": time_limit if time_limit > 0 else None},
                 grid={"w": ws, "search": searches, "program": ["frl", "softfrl"]}, cv=cv,
                 metrics=["tpr", "fpr"], results=results),
           Study(name="frl_bank_roc", learner="baseline", datasets=["bank_full"],
                 grid={"w": ws, "model": list(ROC_BASELINES)}, cv=cv, metrics=["tpr", "fpr"],
                 results=results)]
    if ripper:
        out.append(Study(name="frl_bank_roc", learner="baseline", datasets=["bank_full"],
                         params={"model": "ripper"}, cv=cv, metrics=["tpr", "fpr"], results=results))
    return out


def roc_study(ws, splits, C, C1, time_limit, mc_iters, out_dir, seed=0, args=None):
    try:
        import wittgenstein  # noqa: F401
        ripper = True
    except ImportError:
        ripper = False
        print("wittgenstein is not installed: RIPPER is skipped", file=sys.stderr)
    studies = roc_studies(ws, splits, C, C1, time_limit, mc_iters, seed,
                          getattr(args, "results", None), ripper)
    recs = []
    for study in studies:
        if args is not None:
            engines.run_from_args(study, args)
        else:
            engines.run(study)
        recs.append(load_results(study, study.results))
    df = pd.concat(recs, ignore_index=True)
    for _, r in df[df["status"] != "ok"].iterrows():
        print(f"  split {r['repeat']} {r['params']}: error {r['error']}", file=sys.stderr)
    df = df[df["status"] == "ok"]
    method = np.where(df["learner"] == "frl", df["p_program"].astype(str) + "-" + df["p_search"].astype(str),
                      df["p_model"].astype(str))
    df = df.assign(method=method)
    order = {m: i for i, m in enumerate(ROC_FRL + ROC_BASELINES)}
    rows = []
    for s in range(splits):
        for w in ws:
            sel = df[(df["repeat"] == s) & (df["method"] != "ripper") & (df["p_w"] == w)]
            sel = sel.iloc[np.argsort([order[m] for m in sel["method"]], kind="stable")]
            for _, r in sel.iterrows():
                rows.append((s, w, r["method"], r["tpr"], r["fpr"]))
            print(f"  split {s} w={w}: " + ", ".join(f"{r[2]} tpr={r[3]:.3f} fpr={r[4]:.3f}"
                                                    for r in rows if r[0] == s and r[1] == w), flush=True)
        rip = df[(df["repeat"] == s) & (df["method"] == "ripper")]
        for _, r in rip.iterrows():
            rows.append((s, "-", "ripper", r["tpr"], r["fpr"]))
            print(f"  split {s} RIPPER: tpr={rows[-1][3]:.3f} fpr={rows[-1][4]:.3f}", flush=True)
    with open(os.path.join(out_dir, "roc.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["split", "w", "method", "tpr", "fpr"])
        wr.writerows(rows)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        for s in range(splits):
            fig, ax = plt.subplots(figsize=(5, 5))
            for meth in sorted({r[2] for r in rows}):
                pts = sorted([(r[4], r[3]) for r in rows if r[0] == s and r[2] == meth])
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-" if len(pts) > 1 else "s", label=meth)
            ax.plot([0, 1], [0, 1], "k:", lw=0.5)
            ax.set_xlabel("false positive rate")
            ax.set_ylabel("true positive rate")
            ax.set_title(f"bank-full test ROC over w, split {s}")
            ax.legend(fontsize=7)
            fig.savefig(os.path.join(out_dir, f"roc_split{s}.png"), dpi=100)
            plt.close(fig)
    except ImportError:
        pass
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="300 MC iterations, 1 split, short limits")
    ap.add_argument("--time-limit", type=float, default=600.0, help="exact search per program and w (s)")
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--roc-time-limit", type=float, default=30.0)
    ap.add_argument("--ws", type=str, default="1,3,5,7")
    ap.add_argument("--no-roc", action="store_true")
    ap.add_argument("--roc-only", action="store_true", help="skip the whole-data study")
    ap.add_argument("--out", type=str, default=os.path.join(tempfile.gettempdir(), "rulecert_frl_bank"),
                    help="folder for traces, ROC points and plots (default: a temp folder)")
    engines.add_arguments(ap)   # the ROC study's cells (default results: rulecert-results/frl_bank_roc)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    ws = [float(v) for v in args.ws.split(",")]
    mc_iters = 300 if args.quick else None
    if args.quick:
        args.splits = min(args.splits, 1)
        args.time_limit = min(args.time_limit, 30.0)
        args.roc_time_limit = min(args.roc_time_limit, 5.0)
    C, C1 = 1e-6, 0.5

    X, y = load_bank_full()
    y = np.asarray(y, dtype=np.int64)
    Xb = binarize(X)
    t = time.perf_counter()
    aset = mine_fpgrowth(Xb, y, max_predicates=2, min_support=0.1)
    problem = aset.to_problem(y)
    print(f"bank-full: {len(y)} samples, {Xb.shape[1]} binary literals, {problem.n_antecedents} "
          f"antecedents mined in {time.perf_counter() - t:.2f} s")
    pre = table1_prefix(problem)
    if pre is None:
        print("the Table 1 antecedents are not all in the mined set")
    else:
        s = frl_objective(problem, pre, 7.0, C)
        print(f"paper's Table 1 list on our antecedents: objective {s.objective:.6f} "
              f"(paper: {PAPER_TABLE1_OBJECTIVE:.6f}), falling={s.falling}")
        print(FallingRuleList.from_prefix(problem, pre, 7.0).to_text())
    print()
    summary = []
    for w in (ws if not args.roc_only else []):
        res = learn(problem, w, C, C1, args.time_limit, mc_iters)
        for key, (m, c) in res.items():
            write_trace(os.path.join(args.out, f"trace_{key}_w{w:g}.csv"), c)
            summary.append((w, key, c))
            print(f"=== w={w:g} {key}: objective {c.objective:.6f}, lower bound {c.lower_bound:.6f}, "
                  f"gap {c.abs_gap:.6f} ({c.rel_gap:.2%}), {c.termination.value}, "
                  f"nodes/iterations {max(c.nodes, c.iterations)}, {c.wall_time:.1f} s")
            print(m.to_text())
            if w == 7.0 and key == "frl-exact":
                ratio = c.objective / PAPER_TABLE1_OBJECTIVE
                print(f"--> w=7 FRL: {c.objective:.6f} vs Table 1 {PAPER_TABLE1_OBJECTIVE:.6f} "
                      f"(ratio {ratio:.4f}; {'at least as good' if c.objective <= PAPER_TABLE1_OBJECTIVE + 5e-7 else 'WORSE'})")
            print()
    if summary:
        print("summary (w, search, objective, lower bound, gap, termination, time s)")
    for w, key, c in summary:
        print(f"  {w:g}\t{key:15s}\t{c.objective:.6f}\t{c.lower_bound:.6f}\t{c.abs_gap:.6f}\t"
              f"{c.termination.value}\t{c.wall_time:.1f}")
    if not args.no_roc and args.splits > 0:
        print(f"\nROC study: {args.splits} random 75/25 splits, w in {ws}")
        roc_study(ws, args.splits, C, C1, args.roc_time_limit, mc_iters, args.out, args=args)
        print(f"ROC points written to {args.out}/roc.csv")


if __name__ == "__main__":
    main()
