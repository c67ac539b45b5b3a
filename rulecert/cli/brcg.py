"""``rulecert brcg``: a Boolean rule set (DNF / CNF) by column generation, with its certificate.

Ctrl-C stops the LP, pricing or restricted IP that is running; the rule set of the columns
held is printed with the bound proven so far and the command exits with 130.
"""
from __future__ import annotations

import argparse
import json
import sys


OLD_FLAGS = {
    "--certify": "--effort certify", "--empty-clause": "--option empty_clause=true",
    "--no-empty-clause": "--option empty_clause=false",
    "--clause-penalty": "--complexity-penalty CLAUSE LITERAL",
    "--literal-penalty": "--complexity-penalty CLAUSE LITERAL",
    "--pricing": "--option pricers=...", "--beam-width": "--option beam_width=N",
    "--pricing-time-limit": "--option pricing_seconds=S", "--max-iter": "--option max_iter=N",
    "--pricing-deterministic-time": "--option pricing_deterministic_time=T",
    "--bnb-node-limit": "--option pricing_nodes=N", "--ip-node-limit": "--option ip_nodes=N",
    "--bound-node-limit": "--option bound_nodes=N",
    "--final-bound-node-limit": "--option final_bound_nodes=N",
    "--no-close-gap": "--option close_gap=false",
    "--gap-max-columns": "--option close_gap_columns=N",
    "--gap-node-limit": "--option close_gap_nodes=N", "--dive": "--option dive=true",
    "--no-dive": "--option dive=false", "--adaptive-chain": "--option adaptive_chain=true",
    "--no-adaptive-chain": "--option adaptive_chain=false",
    "--dive-node-limit": "--option dive_nodes=N",
    "--positive-side-nodes": "--option positive_side_cover_lps=N",
    "--error-free-lp-nodes": "--option error_free_cover_lps=N",
    "--polish": "--option polish=true", "--no-polish": "--option polish=false",
    "--polish-iterations": "--option polish_kicks=N",
    "--gap-ladder-after-cap": "--option ladder_after_cap=true",
}
"""Flags of an earlier release, refused with their new spelling."""


class _Renamed(argparse.Action):
    """An old flag: refused, before any work, with its new spelling."""

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} is gone: use {OLD_FLAGS[option_string]}")


def add_parser(sub) -> None:
    from ..limits import EFFORTS
    from ._data import add_header_argument
    from ._run import add_memory_argument
    p = sub.add_parser("brcg", help="Boolean rule set (DNF/CNF) by column generation, certified")
    p.add_argument("--data", required=True,
                   help="a CSV file (raw columns are binarized: decile thresholds and negations) "
                        "or a CORELS file stem (PATH.out + PATH.label: its single-item "
                        "antecedents are the binary features)")
    add_header_argument(p)
    p.add_argument("--target", default=None, help="target column (default: the last column)")
    p.add_argument("--positive", default=None,
                   help="target value that counts as positive (default: 1, 'yes', 'true' or the "
                        "larger of two values)")
    p.add_argument("--C", dest="complexity_bound", type=float, nargs="+", default=[30.0],
                   help="complexity bound: clauses + literals (default 30); several values: "
                        "chosen by stratified cross-validation, then refitted on all rows")
    p.add_argument("--cv", type=int, default=3, help="folds when several --C are given (default 3)")
    p.add_argument("--selection", default="best", choices=["best", "1se"],
                   help="with several --C: best mean validation accuracy, or the smallest C "
                        "within one standard error of it")
    p.add_argument("--D", dest="max_clause_length", type=int, default=None,
                   help="literals per clause (default C - 1)")
    p.add_argument("--form", default="dnf", choices=["dnf", "cnf"])
    p.add_argument("--fn-weight", type=float, default=1.0, help="weight of a false negative")
    p.add_argument("--complexity-penalty", type=float, nargs="+", default=[0.0],
                   metavar="COST", help="penalized form: objective cost per unit of complexity, "
                   "or two values: per clause and per literal (default 0)")
    p.add_argument("--effort", default="default", choices=EFFORTS,
                   help="fast: the paper's bound and small budgets; default; certify: counted "
                        "budgets sized to the data for the strongest certificate (exact "
                        "pricing, the dive, the positive-side proof, the error-free cover LP)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds for the whole command (reading and binarizing the data count; "
                        "with several --C: including the CV); a fit not proven optimal spends "
                        "what its steps leave on the bound")
    p.add_argument("--option", dest="solver_options", action="append", default=[],
                   metavar="KEY=VALUE",
                   help="an expert setting (repeatable), e.g. --option max_iter=20 --option "
                        "empty_clause=false; KEY one of the solver options "
                        "(rulecert.mipmodels.colgen.SOLVER_OPTIONS), VALUE a number, true, "
                        "false, none, a word or JSON")
    p.add_argument("--strengthen-nodes", type=int, default=None,
                   help="after the fit, unless it is proven optimal, raise its bound with this "
                        "many more branch-and-bound nodes at its last duals (strengthen_bound; "
                        "with --effort certify, default its final bound search's budget)")
    add_memory_argument(p)
    p.add_argument("--n-thresholds", type=int, default=9,
                   help="thresholds per numeric column when binarizing (default 9: deciles)")
    p.add_argument("--no-negations", dest="negations", action="store_false",
                   help="binarize without negated literals")
    p.add_argument("--workers", type=int, default=1,
                   help="threads of the branch-and-bound searches and CP-SAT (default 1; the "
                        "same run for a given number)")
    p.add_argument("--seed", type=int, default=0, help="seed of sampling and the solvers "
                   "(default 0: the same run every time)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    for flag in OLD_FLAGS:
        p.add_argument(flag, action=_Renamed, nargs="?", help=argparse.SUPPRESS)
    from ._data import add_missing_argument, add_save_model_argument, reports_limit_stop
    add_missing_argument(p)
    add_save_model_argument(p)
    p.set_defaults(func=reports_limit_stop(run))


def parse_options(items) -> dict:
    """``--option KEY=VALUE`` items as a dict: VALUE read as JSON (numbers, true, false, null,
    objects), ``none`` as None, anything else as a string; a malformed item is refused."""
    out = {}
    for item in items:
        key, sep, text = str(item).partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option expects KEY=VALUE, got {item!r}")
        text = text.strip()
        if text.lower() in ("none", "null"):
            value = None
        elif text.lower() in ("true", "false"):
            value = text.lower() == "true"
        else:
            try:
                value = json.loads(text)
            except ValueError:
                value = text
        out[key.strip()] = value
    return out


def load_binary_data(args):
    """(binary matrix, 0/1 labels, literal names, description) from a CSV file or a CORELS
    file stem (its single-item antecedents are the binary features)."""
    import numpy as np

    from ..monitor import stop_check
    from ._data import binarize_frame, open_data, preparation_monitor, read_csv_table

    path, problem = open_data(args)
    monitor = preparation_monitor(args)
    if problem is not None:
        single = [i for i, nm in enumerate(problem.antecedent_names) if "," not in nm]
        if not single:
            raise ValueError(f"--data {path}: the CORELS file has no single-item antecedents "
                             "to use as binary features")
        names = [problem.antecedents[i].text for i in single]      # sex:Female -> sex == Female
        Xb = problem.dense()[:, single].astype(bool)
        return (Xb, np.asarray(problem.y).astype(int), names,
                f"CORELS files {path}.out/.label: {len(names)} single-item antecedents as "
                "binary features")
    df, X, y, target = read_csv_table(path, args, stop_check(monitor, f"reading {path}"))
    Xt, fb = binarize_frame(X, args, stop_check(monitor, f"binarizing {path}"),
                            n_thresholds=args.n_thresholds, negations=args.negations)
    names = [str(c) for c in Xt.columns]
    args.data_info.binarizer, args.data_info.feature_names = fb, names
    Xb = np.asarray(Xt).astype(bool)
    stop_check(monitor, f"preparing {path} (no rule set yet)")()
    how = ("binary columns used as they are" if fb is None
           else f"binarized into {len(names)} literals")
    return Xb, np.asarray(y).astype(int), names, f"{path}: {len(df)} rows, target {target!r}, {how}"


def build_estimator(args, callback=None):
    """The estimator the command fits: :class:`BooleanRuleCGClassifier` for one ``--C``,
    :class:`BooleanRuleCGCV` for several; its settings are checked in ``fit``.  Its time limit
    is what the command's ``--time-limit`` leaves now (:func:`~rulecert.cli._data.time_left`:
    the imports count; ``run`` sets it again once the data are read and binarized)."""
    from ..estimators.brcg import BooleanRuleCGClassifier, BooleanRuleCGCV
    from ..limits import check_count_limit
    from ._data import time_left
    penalty = args.complexity_penalty
    if len(penalty) > 2:
        raise ValueError(f"--complexity-penalty takes one or two values, got {len(penalty)}")
    check_count_limit(args.strengthen_nodes, "--strengthen-nodes")   # before any work
    check_count_limit(args.workers, "--workers", allow_none=False)
    common = dict(max_clause_length=args.max_clause_length, form=args.form,
                  fn_weight=args.fn_weight,
                  complexity_penalty=penalty[0] if len(penalty) == 1 else tuple(penalty),
                  effort=args.effort, time_limit=time_left(args), random_state=args.seed,
                  workers=args.workers, solver_options=parse_options(args.solver_options),
                  memory_limit_mb=args.memory_limit_mb, callback=callback)
    grid = list(args.complexity_bound)
    if len(grid) > 1:
        return BooleanRuleCGCV(grid, cv=args.cv, selection=args.selection, **common)
    return BooleanRuleCGClassifier(complexity_bound=grid[0], **common)


def run(args) -> int:
    import numpy as np
    import pandas as pd

    from ._data import class_labels, deadline, save_model_if_asked, time_left
    from ._plot import write_plot
    from ._run import interrupted, progress
    clf = build_estimator(args, progress(args))   # first: its settings are checked before
    Xb, y, names, desc = load_binary_data(args)   # any work, and seconds of imports never
    clf.set_params(time_limit=time_left(args))    # run past --time-limit; the fit gets what
    #                                               reading and binarizing left
    grid = list(args.complexity_bound)
    frame = pd.DataFrame(Xb.astype(np.int8), columns=names)
    strengthen = args.strengthen_nodes
    if strengthen is None and args.effort == "certify":
        # the final bound search's budget: skipped where that search ran (pricing came up
        # empty), spent at the last duals of a fit that max_iter stopped before it
        C0 = grid[0] if len(grid) == 1 else max(grid)
        strengthen = clf._options(len(y), 0, C0, None).certification.final_bound_nodes
    clf.fit(frame, y)
    if strengthen is not None and not clf.certificate_.proven_optimal \
            and not interrupted(clf.certificate_):
        if getattr(clf, "_bound_state", None) is None:
            # a time limit stopped the fit before its first pricing call: no duals to search
            # at (strengthen_bound would refuse); say so instead of losing the printed result
            clf.certificate_.stats["bound_strengthening"] = {
                "node_budget": strengthen, "nodes": 0, "skipped": "the fit stopped before its "
                "first pricing call: there are no duals to search at"}
        elif deadline(args).expired():
            clf.certificate_.stats["bound_strengthening"] = {
                "node_budget": strengthen, "nodes": 0, "skipped": "no time left"}
        else:     # within the command's time limit, with its progress lines
            clf.strengthen_bound(frame, y, strengthen, time_limit=time_left(args))
    ruleset, cert = clf.ruleset_, clf.certificate_
    C = getattr(clf, "complexity_bound_", grid[0])
    cv = getattr(clf, "cv_results_", None)
    write_plot(args, [cert])        # written once the result is printed
    save_model_if_asked(args, ruleset, complexity_bound=C, certificate=cert.to_dict())
    return _print_result(args, desc, y, names, ruleset, cert, C, cv, class_labels(args))


def _print_result(args, desc, y, names, ruleset, cert, C, cv, labels) -> int:
    import numpy as np

    from ._run import exit_code
    s = cert.stats
    if args.json:
        d = {"data": desc, "complexity_bound": C, "ruleset": ruleset.to_dict(),
             "rules_text": ruleset.to_text(labels=labels), "certificate": cert.to_dict()}
        if cv is not None:
            d["cv_results"] = {k: np.asarray(v).tolist() for k, v in cv.items()}
        print(json.dumps(d, default=str))
        return exit_code(cert)
    print(f"data: {desc}")
    if cv is not None:
        print(f"C by {args.cv}-fold stratified CV ({args.selection}): mean validation accuracy "
              "(std) / mean complexity / fold fits proven optimal")
        for i, c in enumerate(cv["complexity_bound"]):
            print(f"  C = {c:g}: {cv['mean_test_score'][i]:.4f} ({cv['std_test_score'][i]:.4f}) / "
                  f"{cv['mean_complexity'][i]:.1f} / {cv['proven_optimal'][i]:.0%}"
                  + ("   <- chosen" if c == C else ""))
    print(f"{len(y)} samples, {len(names)} binary features, C = {C:g}, form = {args.form}\n")
    print(ruleset.to_text(labels=labels))
    print(f"\nHamming loss: {s['hamming_loss']}, training errors: {s['training_errors']} / "
          f"{len(y)}, complexity: {ruleset.complexity}")
    print(cert.summary())
    print(f"bound           : {s['bound_kind']}"
          + (f" ({s['bound_detail']})" if s.get("bound_detail") else ""))
    if "bound_strengthening" in s:
        b = s["bound_strengthening"]
        print(f"strengthened    : skipped: {b['skipped']}" if b.get("skipped") else
              f"strengthened    : bound {b['bound_before']:g} -> {b['bound']:g} with {b['nodes']} "
              f"of {b['node_budget']} nodes in {b['seconds']:.1f}s"
              + (" (interrupted)" if b["interrupted"] else ""))
    if s.get("bound_time_left"):
        b = s["bound_time_left"]
        print(f"time left       : bound {b['bound_before']:g} -> {b['bound']:g} with {b['nodes']} "
              f"nodes in {b['seconds']:.1f}s" + (" (interrupted)" if b["interrupted"] else
                                                 f"; ended: {b['ended']}" if b.get("ended")
                                                 else ""))
    if s.get("positive_side"):
        b = s["positive_side"]
        print(f"positive side   : skipped: {b['skipped']}" if b.get("skipped") else
              f"positive side   : bound {b['bound_before']:g} -> {b['bound']:g} with "
              f"{b['nodes']} cover LPs in {b['seconds']:.1f}s at the final master LP "
              f"{b['lp']:.6g}")
    if s.get("error_free_lp"):
        b = s["error_free_lp"]
        print(f"error-free LP   : bound {b['bound']:g} ("
              + (b["reason"] if b["bound"] > 0 else f"nothing proven: {b['stopped']}")
              + f"); LP >= {b['lp_bound']:.6g}, restricted LP {b['restricted_lp'] or 0:.6g}, "
              f"{b['iterations']} iterations, {b['columns']} pure clauses, {b['proof_lps']} "
              f"cover LPs in {b['wall_time']:.1f}s"
              + ("; subsets of " + ", ".join(str(t["groups"]) for t in b["subsets"])
                 + " positive groups" if b.get("subsets") else ""))
    if s.get("dive"):
        dv = s["dive"]
        found = "no rule set" if dv["objective"] is None else f"objective {dv['objective']:g}"
        print(f"dive            : {found} ({dv['stop']}) after {dv['fixed']} fixings, "
              f"{dv['iterations']} pricing rounds, {dv['columns']} new columns, "
              f"{dv['seconds']:.1f}s; restricted IP started from {s['restricted_ip_start']}")
    if s.get("polish"):
        pl = s["polish"]
        print(f"polish          : objective {pl['objective_before']:g} -> {pl['objective']:g} with "
              f"{pl['kicks']} kicks, {pl['moves']} moves, {pl['new_columns']} new columns in "
              f"{pl['wall_time']:.1f}s")
    t = s["time"]
    print("time per phase  : " + ", ".join(f"{k} {v:.2f}s" for k, v in t.items()))
    print(f"columns / iters : {s['columns']} / {s['cg_iterations']}", file=sys.stdout)
    return exit_code(cert)
