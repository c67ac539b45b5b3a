"""``rulecert brcg``: a Boolean rule set (DNF / CNF) by column generation, with its certificate.

Ctrl-C stops the LP, pricing or restricted IP that is running; the rule set of the columns
held is printed with the bound proven so far and the command exits with 130.
"""
from __future__ import annotations

import argparse
import json
import sys


def add_parser(sub) -> None:
    from ..limits import (DEFAULT_BOUND_NODE_LIMIT, DEFAULT_CLOSE_GAP_MAX_COLUMNS,
                          DEFAULT_CLOSE_GAP_NODE_LIMIT, DEFAULT_FINAL_BOUND_NODE_LIMIT)
    from ._data import add_header_argument
    from ._run import add_memory_argument
    p = sub.add_parser("brcg", help="Boolean rule set (DNF/CNF) by column generation, certified")
    unset = argparse.SUPPRESS      # the limits (LIMITS): absent unless given
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
    p.add_argument("--empty-clause", action=argparse.BooleanOptionalAction, default=True,
                   help="admit the empty clause (always true, complexity 1; then --C >= 1), as "
                        "the paper and AIX360 do (default); --no-empty-clause: clauses of at "
                        "least one literal (then --C >= 2)")
    p.add_argument("--form", default="dnf", choices=["dnf", "cnf"])
    p.add_argument("--fn-weight", type=float, default=1.0, help="weight of a false negative")
    p.add_argument("--clause-penalty", type=float, default=0.0, help="objective cost per clause")
    p.add_argument("--literal-penalty", type=float, default=0.0, help="objective cost per literal")
    p.add_argument("--pricing", default=unset, choices=["auto", "exact", "bnb", "heuristic"],
                   help="pricers of column generation (default auto)")
    p.add_argument("--beam-width", type=int, default=5, help="width of the beam-search pricer")
    p.add_argument("--certify", action="store_true",
                   help="a certification run: counted limits sized to the data "
                        "(rulecert.mipmodels.colgen.certification_options: exact "
                        "branch-and-bound pricing, no clock, large node budgets, gap closing "
                        "up to 100000 clauses; a fit that max_iter stopped before the last "
                        "bound search gets that search's nodes from strengthen_bound); the "
                        "limit options given explicitly win")
    p.add_argument("--time-limit", type=float, default=unset,
                   help="seconds for the whole fit (with several --C: including the CV); a fit not "
                        "proven optimal spends what its phases leave on the bound")
    p.add_argument("--pricing-time-limit", type=seconds_or_none, default=unset,
                   metavar="S|none",
                   help="seconds per exact pricing call (default 30; none: only the counted "
                        "limits, for a run that is the same on every machine)")
    p.add_argument("--max-iter", type=int, default=unset,
                   help="column-generation iterations (deterministic)")
    p.add_argument("--pricing-deterministic-time", type=float, default=unset,
                   help="CP-SAT deterministic time per exact pricing call (deterministic)")
    p.add_argument("--bnb-node-limit", type=int, default=unset,
                   help="node limit of one branch-and-bound pricing call (deterministic)")
    p.add_argument("--ip-node-limit", type=int, default=unset,
                   help="node limit of the restricted master IP (deterministic)")
    p.add_argument("--bound-node-limit", type=int, default=unset,
                   help="nodes of each pricing call that strengthens the certified bound during "
                        f"column generation (deterministic; default {DEFAULT_BOUND_NODE_LIMIT})")
    p.add_argument("--final-bound-node-limit", type=int, default=unset,
                   help="nodes in all of the last bound search, when pricing finds no clause "
                        f"(deterministic; default {DEFAULT_FINAL_BOUND_NODE_LIMIT}; e.g. "
                        "100000000 to certify more)")
    p.add_argument("--strengthen-nodes", type=int, default=None,
                   help="after the fit, unless it is proven optimal, raise its bound with this "
                        "many more branch-and-bound nodes at its last duals (strengthen_bound; "
                        "with --certify, default --final-bound-node-limit's)")
    add_memory_argument(p)
    p.add_argument("--no-close-gap", dest="close_gap", action="store_false", default=unset,
                   help="skip the reduced-cost enumeration that closes the integrality gap")
    p.add_argument("--gap-max-columns", dest="close_gap_max_columns", type=int, default=unset,
                   help="most clauses that enumeration may hold (default "
                        f"{DEFAULT_CLOSE_GAP_MAX_COLUMNS}; e.g. 100000 to certify more)")
    p.add_argument("--gap-node-limit", dest="close_gap_node_limit", type=int, default=unset,
                   help="branch-and-bound nodes of that enumeration in all (deterministic; "
                        f"default {DEFAULT_CLOSE_GAP_NODE_LIMIT})")
    p.add_argument("--dive", action=argparse.BooleanOptionalAction, default=unset,
                   help="after the restricted IP, a column-generation dive (fix the largest "
                        "fractional column, price again, until the LP is integral), then the "
                        "restricted IP again over its columns too; a primal heuristic "
                        "(default off; on with --certify)")
    p.add_argument("--adaptive-chain", action=argparse.BooleanOptionalAction, default=unset,
                   help="try the short branch-and-bound before the beam search once it has "
                        "cost less counted work per improving pricing round (default off; on "
                        "with --certify)")
    p.add_argument("--dive-node-limit", type=int, default=unset, metavar="N",
                   help="branch-and-bound pricing nodes of the whole dive (default 5000000; "
                        "--certify: 5000000 per 2000 rows)")
    p.add_argument("--positive-side-nodes", dest="positive_side_node_limit", type=int,
                   default=unset, metavar="N",
                   help="cover LPs of the positive-side pricing proof at the end of a fit "
                        "whose gap is open (default 0: off; --certify: 500000 per 2000 rows)")
    p.add_argument("--error-free-lp-nodes", dest="error_free_lp_node_limit", type=int,
                   default=unset, metavar="N",
                   help="cover LPs of the error-free cover LP bound's proofs, tried when the "
                        "bound is below one error and the packing bound proves nothing "
                        "(default 0: off; --certify: 500000 per 2000 rows)")
    p.add_argument("--polish", action=argparse.BooleanOptionalAction, default=unset,
                   help="after the restricted IP, polish its rule set by local search over "
                        "literals (drop, add or swap a literal, drop or add a clause), reaching "
                        "clauses no pricing round generated (default on)")
    p.add_argument("--polish-iterations", type=int, default=unset, metavar="N",
                   help="random kicks of that search, each followed by a descent (default 200; "
                        "--certify: 2000)")
    p.add_argument("--gap-ladder-after-cap", action="store_true",
                   help="when the enumeration reaches --gap-max-columns, still prove what "
                        "lower thresholds can (close_gap_ladder_after_cap)")
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
    from ._data import add_missing_argument, add_save_model_argument
    add_missing_argument(p)
    add_save_model_argument(p)
    p.set_defaults(func=run)


LIMITS = ("pricing", "time_limit", "pricing_time_limit", "max_iter", "pricing_deterministic_time",
          "bnb_node_limit", "ip_node_limit", "bound_node_limit",
          "final_bound_node_limit", "close_gap", "close_gap_max_columns", "close_gap_node_limit",
          "dive", "dive_node_limit", "positive_side_node_limit", "error_free_lp_node_limit",
          "polish", "polish_iterations", "adaptive_chain")
"""The estimator parameters ``--certify`` presets.  Their options are absent from the parsed
namespace unless given, so that one given explicitly wins over the preset."""


def limit_defaults() -> dict:
    """Those parameters without ``--certify``: the estimator's defaults."""
    from ..estimators.brcg import BooleanRuleCGClassifier
    defaults = BooleanRuleCGClassifier().get_params()
    return {k: defaults[k] for k in LIMITS}


def fit_limits(args, rows: int) -> dict:
    """The estimator's limit parameters: those given on the command line, else ``--certify``'s
    (:func:`~rulecert.mipmodels.colgen.certification_options` on ``rows`` rows), else the
    defaults."""
    from ..mipmodels.colgen import certification_options
    preset = certification_options(rows) if args.certify else {}
    return {k: getattr(args, k) if hasattr(args, k) else preset.get(k, default)
            for k, default in limit_defaults().items()}


def seconds_or_none(text: str):
    """A number of seconds, or ``none`` (no wall-clock limit)."""
    if str(text).strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds or 'none', "
                                         f"got {text!r}") from None


def load_binary_data(args):
    """(binary matrix, 0/1 labels, literal names, description) from a CSV file or a CORELS
    file stem (its single-item antecedents are the binary features)."""
    import numpy as np

    from ._data import binarize_frame, open_data, read_csv_table

    path, problem = open_data(args)
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
    df, X, y, target = read_csv_table(path, args)
    Xt, fb = binarize_frame(X, args, n_thresholds=args.n_thresholds, negations=args.negations)
    names = [str(c) for c in Xt.columns]
    args.data_info.binarizer, args.data_info.feature_names = fb, names
    Xb = np.asarray(Xt).astype(bool)
    how = ("binary columns used as they are" if fb is None
           else f"binarized into {len(names)} literals")
    return Xb, np.asarray(y).astype(int), names, f"{path}: {len(df)} rows, target {target!r}, {how}"


def run(args) -> int:
    import numpy as np
    import pandas as pd

    from ..estimators.brcg import BooleanRuleCGClassifier, BooleanRuleCGCV
    from ..limits import check_count_limit
    from ._data import class_labels, save_model_if_asked
    from ._plot import write_plot
    from ._run import exit_code, interrupted, progress
    Xb, y, names, desc = load_binary_data(args)
    common = dict(max_clause_length=args.max_clause_length, empty_clause=args.empty_clause,
                  form=args.form,
                  fn_weight=args.fn_weight, clause_penalty=args.clause_penalty,
                  literal_penalty=args.literal_penalty, beam_width=args.beam_width,
                  close_gap_ladder_after_cap=args.gap_ladder_after_cap, random_state=args.seed,
                  **fit_limits(args, len(y)),
                  workers=args.workers)
    check_count_limit(args.strengthen_nodes, "--strengthen-nodes")   # before any work
    strengthen = args.strengthen_nodes
    if strengthen is None and args.certify:
        # the last search's budget: skipped where that search ran (pricing came up empty),
        # spent at the last duals of a fit that max_iter stopped before it
        strengthen = common["final_bound_node_limit"]
    check_count_limit(args.workers, "--workers", allow_none=False)
    grid = list(args.complexity_bound)
    est = BooleanRuleCGCV if len(grid) > 1 else BooleanRuleCGClassifier
    watch = {"memory_limit_mb": args.memory_limit_mb, "callback": progress(args)}
    common.update({k: v for k, v in watch.items() if k in est._get_param_names()})
    if len(grid) > 1:
        clf = BooleanRuleCGCV(grid, cv=args.cv, selection=args.selection, **common)
    else:
        clf = BooleanRuleCGClassifier(complexity_bound=grid[0], **common)
    frame = pd.DataFrame(Xb.astype(np.int8), columns=names)
    clf.fit(frame, y)
    if strengthen is not None and not clf.certificate_.proven_optimal \
            and not interrupted(clf.certificate_):
        if getattr(clf, "_bound_state", None) is None:
            # a time limit stopped the fit before its first pricing call: no duals to search
            # at (strengthen_bound would refuse); say so instead of losing the printed result
            clf.certificate_.stats["bound_strengthening"] = {
                "node_budget": strengthen, "nodes": 0, "skipped": "the fit stopped before its "
                "first pricing call: there are no duals to search at"}
        else:
            clf.strengthen_bound(frame, y, strengthen)
    ruleset, cert = clf.ruleset_, clf.certificate_
    C = getattr(clf, "complexity_bound_", grid[0])
    cv = getattr(clf, "cv_results_", None)
    s = cert.stats
    write_plot(args, [cert])
    labels = class_labels(args)
    save_model_if_asked(args, ruleset, complexity_bound=C, certificate=cert.to_dict())
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
    print(f"bound           : {s['bound_kind']}")
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
