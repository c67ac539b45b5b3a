"""Certified bounds of Boolean rule-set column generation on the full training data, today's
bound beside the new one, on deterministic work limits.

For every dataset and C: one fit of the training problem (Hamming loss, complexity <= C,
clauses of at most D = C - 1 literals and the empty clause) on the whole data set, binarized
as in brcg_table.py, with the *same* deterministic limits for both variants:

* ``today``: the code of ``--today-src`` (a checkout of main; default: this checkout with the
  new bound switched off, ``bound_search_steps=0``), run in a subprocess;
* ``new``: this checkout (the Lagrangian bound at the best complexity dual, by clause length,
  as an exact knapsack over the enumerated clauses of negative reduced cost, ``bounds.py``;
  pricing's branch-and-bound with the exclusion bound, ``pricing/bnb.py``).

The default limits (``effort="certify"`` (``rulecert.mipmodels.colgen.presets.certify_settings``), which
``rulecert brcg --effort certify`` uses too: 100 iterations, 3 x 10^7 branch-and-bound nodes per
pricing call per 2000 rows, 500 restricted-IP nodes, gap closing up to 100,000 clauses with
10^8 nodes; the bound's search: 3 complexity duals per iteration at 10^6 nodes each, and where
pricing finds no clause a last search, a descent in the dual, of ``--final-bound-nodes`` =
10^8 nodes in all, all per 2000 rows) let the exact pricing *prove* the LP optimal where that
is affordable: the bound is then the LP bound and gap closing can make it the optimum.  The column "iterations, stop" says whether that last
search ran (``pricing exhausted``) or ``max_iter`` came first (no last search: the bound is the
per-iteration searches').  The last column is the last restricted LP's value, at least the
LP optimum: neither the LP bound nor the Lagrangian bound normalised by complexity can
exceed that optimum, so where that LP is far below the rule set found, a small gap needs
the enumerated knapsack (``bounds.py``: it can exceed the LP, where the enumeration of every
clause below 0 completes) or branching (branch-and-price).

``--workers N`` runs the branch-and-bound searches on N threads (``pricing/bnb.py``): the
same table for the same N, a different one (equally valid) from one worker's.

Nothing is stopped by the clock: column-generation iterations, branch-and-bound pricing
nodes, restricted-IP nodes and gap-closing nodes are counted, the seed is fixed, so two runs
of unchanged code print the same table on any machine (the times, printed in a separate
table, are the only figures that differ).  ``--time-limit S`` adds a wall-clock limit of S
seconds per fit (the issue's "300 s per fit"): the fit then also spends the time its phases
leave on the bound (``bound_search.raise_bound_with_time_left``), and where the clock stops
it the table depends on the machine and the run.

    python experiments/brcg_bounds.py --no-today --out bounds.json     # the issue's table
    python experiments/brcg_bounds.py --no-today --workers 2 --out bounds.json   # on 2 cores
    python experiments/brcg_bounds.py --no-today --workers 2 --strengthen 0 \
        --out bounds.json             # without strengthen_bound's column
    python experiments/brcg_bounds.py --today-src /tmp/rulecert_main --out bounds.json
    python experiments/brcg_bounds.py --datasets liver --C 5 --max-iter 5    # a quick look
    python experiments/brcg_bounds.py --no-today --datasets ionosphere --C 10 --strengthen 400000000
    python experiments/brcg_bounds.py --no-today --workers 2 --strengthen 0 --time-limit 300 \
        --datasets ilpd pima --C 10 20      # the issue's 300 s per fit (not reproducible)

``--strengthen N`` then raises the bound of each fit that is not proven optimal by
``strengthen_bound``: N nodes per 2000 rows of the complexity-dual descent at the fit's last
duals, in a column of its own.  A fit whose pricing came up empty ran that descent already
with ``--final-bound-nodes``; ``strengthen_bound`` skips it unless N is larger (``-``).  The
default N is ``--final-bound-nodes``' (as ``rulecert brcg --effort certify``): only the fits that
``max_iter`` stopped before their last search get it.  Ionosphere at C = 10 (100 iterations,
2 workers): bound 0 -> 9 with 10^8 nodes, 134 s on top of the fit's 67 s; at C = 20 it stays 0
(the last restricted LP is 1.4).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np

from _common import DATASETS, load, make_binarizer

HERE = os.path.dirname(os.path.abspath(__file__))
ALL = ["heart", "liver", "transfusion", "ilpd", "pima", "ionosphere", "wdbc", "banknote",
       "tictactoe", "bank_full"]   # the gap targets first (the default)
assert set(ALL) == set(DATASETS) - {"liver_selector"} | {"bank_full"}
CHOICES = ALL + ["liver_selector"]


BOUND_FIELDS = ("bound_nodes", "final_bound_nodes")
"""The new bound's limits: today's code runs with its own (or with the bound off)."""


def limits(args, rows: int, variant: str) -> dict:
    """The deterministic work limits of a fit (no wall-clock limit unless ``--time-limit``):
    the library's ``effort="certify"`` budgets (``certify_settings``) with this run's
    settings.  Computed here for today's code too and handed to it as JSON, so an older
    checkout needs only ``solve``; for it the options carry their old names."""
    from rulecert.mipmodels.colgen.presets import certify_settings
    kw = certify_settings(rows, max_iter=args.max_iter, bnb_nodes=args.bnb_nodes,
                          ip_nodes=args.ip_nodes, gap_columns=args.gap_columns,
                          gap_nodes=args.gap_nodes, bound_nodes=args.bound_nodes,
                          final_bound_nodes=args.final_bound_nodes, dive_nodes=args.dive_nodes,
                          polish_kicks=args.polish_iterations,
                          positive_side_cover_lps=args.positive_side_nodes,
                          error_free_cover_lps=args.error_free_lp_nodes)
    kw.update(pricers=args.pricing, seed=args.seed, empty_clause=args.empty_clause,
              max_clause_length=args.max_clause_length, workers=args.workers,
              time_limit=args.time_limit)
    if variant == "new":
        kw.update(bound_search_steps=args.bound_steps, ladder_after_cap=args.ladder_after_cap, dive=args.dive,
                  polish=args.polish, adaptive_chain=args.adaptive_chain)
        return kw
    for name in BOUND_FIELDS + ("dive", "dive_nodes", "polish_kicks", "adaptive_chain",
                                "positive_side_cover_lps", "error_free_cover_lps"):
        del kw[name]
    if variant == "today-off":          # this checkout, in this process: the new names
        kw.update(bound_search_steps=0)
        return kw
    from rulecert.mipmodels.colgen.options import RENAMED
    old = {new: was for was, new in RENAMED.items() if new}
    return {old.get(k, k.lstrip("_")): v for k, v in kw.items()}


def problem_of(name):
    from rulecert.problem import RuleProblem
    if name == "bank_full":
        from rulecert import datasets
        X, y = datasets.load("bank_full")
        y, categorical = np.asarray(y).astype(int), None
    else:
        X, y, categorical = load(name)
    fb = make_binarizer(categorical).fit(X)
    Xb = np.asarray(fb.transform(X)).astype(bool)
    return RuleProblem.from_matrix(Xb, y, list(map(str, fb.get_feature_names_out()))), Xb.shape


def fit_one(name, C, variant, args, kw=None) -> dict:
    """One fit in this process (the code on ``sys.path``); ``kw``: its limits (default
    :func:`limits`)."""
    from rulecert.mipmodels.colgen import solve
    problem, shape = problem_of(name)
    kw = limits(args, shape[0], variant) if kw is None else kw
    t0 = time.perf_counter()
    sol = solve(problem, complexity_bound=C, **kw)
    rs, cert = sol
    out = {"dataset": name, "C": C, "variant": variant, "rows": shape[0], "features": shape[1],
           "objective": cert.objective, "bound": cert.lower_bound, "rel_gap": cert.rel_gap,
           "termination": cert.termination.value, "bound_kind": cert.stats["bound_kind"],
           "bound_class": cert.stats.get("bound_class", "-"),
           "iterations": cert.iterations, "complexity": rs.complexity,
           "rmlp": cert.stats.get("rmlp_objective"), "lp_ceiling": cert.stats.get("lp_ceiling"),
           "stop": cert.stats.get("stop_reason"),
           "time": time.perf_counter() - t0}
    dv = cert.stats.get("dive")
    if dv:
        out["dive"] = {k: dv[k] for k in ("objective", "stop", "fixed", "iterations", "columns",
                                          "seconds")}
        out["dive"]["restricted_ip_start"] = cert.stats.get("restricted_ip_start")
    pl = cert.stats.get("polish")
    if pl:
        out["polish"] = dict(pl)
    tl = cert.stats.get("bound_time_left")
    if tl:
        out["bound_time_left"] = dict(tl)
    ps = cert.stats.get("positive_side")
    if ps:
        out["positive_side"] = {k: ps.get(k) for k in ("nodes", "seconds", "bound_before",
                                                      "bound", "lp", "skipped", "tries",
                                                      "gain_groups", "after_descent")}
    ef = cert.stats.get("error_free_lp")
    if ef:
        out["error_free_lp"] = dict(ef)
    if variant == "new" and getattr(args, "strengthen", None):
        from rulecert.mipmodels.colgen import strengthen_bound
        from rulecert.mipmodels.colgen.presets import scaled_nodes
        t1 = time.perf_counter()
        c2 = strengthen_bound(problem, sol, scaled_nodes(args.strengthen, shape[0])).certificate
        done = c2.stats.get("bound_strengthening", {})    # none: proven optimal already
        if not done.get("skipped"):
            out["strengthened"] = {"bound": c2.lower_bound, "rel_gap": c2.rel_gap,
                                   "bound_kind": c2.stats["bound_kind"],
                                   "nodes": done.get("nodes", 0),
                                   "time": time.perf_counter() - t1}
    return out


def fit_today(name, C, args) -> dict:
    if not args.today_src:
        return fit_one(name, C, "today-off", args)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.today_src))
    kw = limits(args, problem_of(name)[1][0], "today")
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, str(C),
           "--worker-limits", json.dumps(kw)] + args.passthrough
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=HERE)
    if out.returncode != 0:
        raise RuntimeError(f"today's code failed on {name} C={C}:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def short_kind(kind: str) -> str:
    if kind.startswith("lagrangian normalised by complexity"):
        return "lagrangian, complexity dual " + kind.split("complexity dual ")[1].split(" ")[0]
    return kind.replace(" pricing bound", "")


def clause_class(args) -> str:
    """The clauses every fit (and its bound) ranges over."""
    d = "C-1" if args.max_clause_length is None else f"min(C-1, {args.max_clause_length})"
    return f"clauses of <= {d} literals" + (" + empty" if args.empty_clause else "")


def print_header(cls: str, file=None, strengthen=None):
    extra = ("" if not strengthen else
             f" strengthen_bound({strengthen} nodes per 2000 rows): bound / gap |")
    print("\n| dataset | rows x features | C | today: objective / bound / gap | today's bound "
          f"| new: objective / bound / gap | new bound (class: {cls}) | new: iterations, stop "
          "| last restricted LP (least gap of a bound from the LP relaxation) |" + extra,
          file=file)
    print("|---|---|---|---|---|---|---|---|---|" + ("---|" if strengthen else ""), file=file)


def print_row(r, file=None, strengthen=None):
    t, n = r["today"], r["new"]
    today = ("- | -" if t is None else f"{t['objective']:.0f} / {t['bound']:.0f} / "
             f"{t['rel_gap']:.1%} | {short_kind(t['bound_kind'])}")
    extra = ""
    if strengthen:
        s2 = n.get("strengthened")
        extra = (" - |" if s2 is None else
                 f" {s2['bound']:.0f} / {s2['rel_gap']:.1%} ({s2['nodes']} nodes) |")
    print(f"| {r['dataset']} | {n['rows']} x {n['features']} | {r['C']} | {today} | "
          f"{n['objective']:.0f} / {n['bound']:.0f} / "
          f"{n['rel_gap']:.1%} | {short_kind(n['bound_kind'])} | {stop_of(n)} | "
          f"{_num(n.get('rmlp'))}{_ceiling_gap(n)} |" + extra, file=file, flush=True)


def _ceiling_gap(n) -> str:
    """The least gap any bound from the LP relaxation could certify for the rule set found:
    its bound can exceed neither the last restricted LP nor, rounded up, ``lp_ceiling``."""
    top = n.get("lp_ceiling")
    if top is None or n["objective"] <= 0:
        return ""
    return f" ({max(0.0, n['objective'] - top) / n['objective']:.1%})"


def stop_of(n) -> str:
    """Column generation's iterations and why it stopped: the last bound search runs only
    when pricing came up empty (``pricing_exhausted``); after ``max_iter`` the bound is the
    per-iteration searches' (``--strengthen`` then raises it)."""
    stop = n.get("stop")
    return f"{n.get('iterations', '-')}, {'-' if stop is None else stop.replace('_', ' ')}"


def _num(x):
    return "-" if x is None else f"{x:.1f}"


def print_times(rows, file=None, time_limit=None):
    said = ("reported, never used to stop a fit" if time_limit is None
            else f"limit {time_limit:g} s")
    print(f"\nWall-clock seconds per fit ({said}):", file=file)
    for r in rows:
        today = "-" if r["today"] is None else f"{r['today']['time']:.1f} s"
        s2 = r["new"].get("strengthened")
        more = "" if s2 is None else f", strengthen_bound {s2['time']:.1f} s"
        dv = r["new"].get("dive")
        if dv:
            found = "-" if dv["objective"] is None else f"{dv['objective']:g}"
            more += (f"; the dive (within the fit) {dv['seconds']:.1f} s: {found}, "
                     f"{dv['fixed']} fixings, {dv['iterations']} pricing rounds")
        pl = r["new"].get("polish")
        if pl:
            more += (f"; polishing {pl['wall_time']:.1f} s: {pl['objective_before']:g} -> "
                     f"{pl['objective']:g} ({pl['kicks']} kicks)")
        tl = r["new"].get("bound_time_left")
        if tl:
            more += (f"; the time left {tl['seconds']:.1f} s: bound {tl['bound_before']:g} -> "
                     f"{tl['bound']:g} ({tl['nodes']} nodes"
                     + (f", ended: {tl['ended']})" if tl.get("ended") else ")"))
        ps = r["new"].get("positive_side")
        if ps and not ps.get("skipped"):
            when = " after the descent" if ps.get("after_descent") else ""
            more += (f"; the positive-side proof{when} {ps['seconds']:.1f} s: bound "
                     f"{ps['bound_before']:g} -> {ps['bound']:g} ({ps['nodes']} cover LPs, "
                     f"{ps.get('gain_groups', '?')} gain groups)")
        ef = r["new"].get("error_free_lp")
        if ef:
            more += (f"; the error-free cover LP {ef['wall_time']:.1f} s: bound "
                     f"{ef['bound']:g}, LP >= {ef['lp_bound']:.6g} (restricted LP "
                     f"{ef['restricted_lp'] or 0:.6g}, {ef['iterations']} iterations, "
                     f"{ef['proof_lps']} cover LPs"
                     + (f", ended: {ef['stopped']})" if ef["stopped"] else ")"))
        print(f"  {r['dataset']} C={r['C']}: today {today}, new {r['new']['time']:.1f} s{more}",
              file=file)


def certify_defaults() -> dict:
    """The defaults of ``certify_settings`` (defined once, there); none in the worker of
    ``--today-src``, whose older checkout may lack it and whose limits come as JSON."""
    import inspect
    try:
        from rulecert.mipmodels.colgen.presets import certify_settings
    except ImportError:
        return collections.defaultdict(lambda: None)
    return {k: p.default for k, p in inspect.signature(certify_settings).parameters.items()}


def main(argv=None):
    CERTIFY = certify_defaults()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=ALL, choices=CHOICES)
    ap.add_argument("--C", type=int, nargs="+", default=[10, 20])
    ap.add_argument("--max-iter", type=int, default=CERTIFY["max_iter"],
                    help="column-generation iterations")
    ap.add_argument("--pricing", default="bnb")
    ap.add_argument("--bnb-nodes", type=int, default=CERTIFY["bnb_nodes"],
                    help="node limit of each branch-and-bound pricing call")
    ap.add_argument("--ip-nodes", type=int, default=CERTIFY["ip_nodes"],
                    help="restricted-IP node limit")
    ap.add_argument("--bound-steps", type=int, default=3)
    ap.add_argument("--bound-nodes", type=int, default=CERTIFY["bound_nodes"])
    ap.add_argument("--final-bound-nodes", type=int, default=CERTIFY["final_bound_nodes"],
                    help="nodes per 2000 rows of the last bound search in all (when pricing "
                         "found no clause)")
    ap.add_argument("--strengthen", type=int, default=CERTIFY["final_bound_nodes"],
                    help="then spend this many nodes per 2000 rows on strengthen_bound at the "
                         "fit's last duals (a column of its own; fits whose own last search ran "
                         "only when this exceeds --final-bound-nodes; default: the last "
                         "search's budget, as `rulecert brcg --effort certify`; 0: none)")
    ap.add_argument("--dive", action=argparse.BooleanOptionalAction, default=True,
                    help="the column-generation dive before the restricted IP (option dive; "
                         "on with effort='certify'; today's code runs without it)")
    ap.add_argument("--adaptive-chain", action=argparse.BooleanOptionalAction, default=True,
                    help="order the beam search and the short branch-and-bound by their "
                         "counted work (option adaptive_chain; on with "
                         "effort='certify'; today's code runs without it)")
    ap.add_argument("--dive-nodes", type=int, default=CERTIFY["dive_nodes"],
                    help="branch-and-bound pricing nodes per 2000 rows of the whole dive")
    ap.add_argument("--polish", action=argparse.BooleanOptionalAction, default=True,
                    help="polishing after the restricted IP (option polish; on by "
                         "default; today's code runs without it)")
    ap.add_argument("--polish-iterations", type=int, default=CERTIFY["polish_kicks"],
                    help="kicks of polishing per 2000 rows (option polish_kicks, as "
                         "effort='certify' sizes it)")
    ap.add_argument("--positive-side-nodes", type=int, default=CERTIFY["positive_side_cover_lps"],
                    help="cover LPs of the positive-side pricing proof at the end of a fit "
                         "whose gap is open, per 2000 rows (0: off)")
    ap.add_argument("--error-free-lp-nodes", type=int, default=CERTIFY["error_free_cover_lps"],
                    help="cover LPs of the error-free cover LP bound's proofs per 2000 rows "
                         "(0, the default: off)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=None,
                    help="a wall-clock limit per fit in seconds, on top of the counted limits "
                         "(the issue's 300 s goal): the table is then NOT reproducible")
    ap.add_argument("--workers", type=int, default=1,
                    help="threads of the branch-and-bound searches (deterministic for a given "
                         "number; 2 on the issue's 2-core machine)")
    ap.add_argument("--today-src", default=None,
                    help="a checkout of main to run today's code from (PYTHONPATH)")
    ap.add_argument("--no-today", action="store_true",
                    help="run only this checkout (the today columns print '-')")
    ap.add_argument("--no-empty-clause", dest="empty_clause", action="store_false",
                    help="clauses of >= 1 literal only (default: the empty clause is admitted)")
    ap.add_argument("--max-clause-length", type=int, default=None,
                    help="D, literals per clause (default C - 1)")
    ap.add_argument("--gap-columns", type=int, default=CERTIFY["gap_columns"],
                    help="most clauses gap closing may enumerate")
    ap.add_argument("--gap-nodes", type=int, default=CERTIFY["gap_nodes"],
                    help="gap closing's nodes in all per 2000 rows")
    ap.add_argument("--ladder-after-cap", action="store_true",
                    help="gap closing climbs its ladder also when the whole enumeration "
                         "reached --gap-columns (option ladder_after_cap)")
    ap.add_argument("--no-times", action="store_true", help="omit the wall-clock table")
    ap.add_argument("--out", default=None)
    ap.add_argument("--worker", nargs=2, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--worker-limits", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=UserWarning)
    argv = list(sys.argv[1:] if argv is None else argv)
    args.passthrough = [a for a in argv if a not in ("--no-times", "--no-today")]
    if "--today-src" in args.passthrough:
        i = args.passthrough.index("--today-src")
        del args.passthrough[i:i + 2]
    if args.worker:
        print(json.dumps(fit_one(args.worker[0], int(args.worker[1]), "today", args,
                                 json.loads(args.worker_limits))))
        return
    if args.time_limit is not None:
        print(f"Wall-clock limit: {args.time_limit:g} s per fit, on top of the counted limits "
              f"below: where the clock stops a fit, another run or machine prints another "
              f"table.")
    print(f"Limits (deterministic, seed {args.seed}): {args.max_iter} column-generation "
          f"iterations, {args.bnb_nodes} nodes per 2000 rows per branch-and-bound pricing call "
          f"({args.gap_nodes} in gap closing), {args.ip_nodes} restricted-IP nodes; new bound: "
          f"{args.bound_steps} complexity duals per iteration, {args.bound_nodes} nodes per 2000 "
          f"rows each ({args.final_bound_nodes} in all in the last search), "
          f"{args.workers} worker(s); "
          + (f"the dive: {args.dive_nodes} pricing nodes per 2000 rows in all"
             if args.dive else "no dive")
          + ("; the adaptive pricing chain" if args.adaptive_chain else "")
          + f".  Today's code: {args.today_src or 'this checkout, new bound off'}.")
    print_header(clause_class(args), strengthen=args.strengthen)
    rows = []
    for name in args.datasets:
        for C in args.C:
            today = None if args.no_today else fit_today(name, C, args)
            new = fit_one(name, C, "new", args)
            rows.append({"dataset": name, "C": C, "today": today, "new": new})
            print_row(rows[-1], strengthen=args.strengthen)
            print(f"  {name} C={C}: new {new['objective']:.0f}/{new['bound']:.0f} "
                  f"({new['time']:.0f}s) {new['bound_kind']}", file=sys.stderr, flush=True)
            if args.out:
                with open(args.out, "w") as fh:
                    json.dump({"args": {k: v for k, v in vars(args).items()
                                        if k != "passthrough"}, "rows": rows},
                              fh, indent=1, default=str)
    if not args.no_times:
        print_times(rows, time_limit=args.time_limit)


if __name__ == "__main__":
    main()
