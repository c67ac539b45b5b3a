"""The batched beam-search pricer (rulecert.mipmodels.colgen.pricing.beam) against the original
per-node one (``beam_pricing`` of rulecert/mipmodels/colgen/pricing.py at commit
``OLD_BEAM_COMMIT``, loaded from git history), measured in the same run.

Pricing instances with realistic duals are captured from column generation on real data
(binarized with FeatureBinarizer(n_thresholds=9, negations=True)): every beam-search call of
``rulecert.mipmodels.colgen.solve`` (default options: the beam runs when the greedy heuristic
finds nothing) records its instance.  Each instance is then priced by both implementations
with beam width 5 and 160 and clause length D = 10 and 26 (fixed width), and by the call
column generation makes (width 5, widened up to 160 while nothing is found, D of the solve);
printed: the best-of-``--repeat`` times, the ratio new/old (same run, same machine state) and
whether the outputs are identical (clauses, reduced costs to 1e-9, generated, best clause,
termination).  ``--random N`` also compares the two on N random small instances (ties on
purpose: duplicated rows and columns, few distinct weights).  ``--permute-check`` compares the
old code with itself on the same instances with their groups reordered: with more than 256
groups, floating-point sums depend on the order, which decides between clauses tied in exact
arithmetic -- the differences between old and new are of that kind.

    RULECERT_DATA=/work/shared/data python experiments/bench_beam.py
    python experiments/bench_beam.py --datasets pima --iterations 6 --random 500

The machine is shared: times are noisy; the ratio is of times measured side by side.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import subprocess
import sys
import time
import warnings

import numpy as np

from rulecert.mipmodels.colgen.pricing import PricingInstance
from rulecert.mipmodels.colgen.pricing.beam import beam_pricing as new_beam

HERE = os.path.dirname(os.path.abspath(__file__))
OLD_BEAM_COMMIT = "8411883"
"""The commit whose ``rulecert/mipmodels/colgen/pricing.py`` holds the original per-node beam
search (before the batched rewrite of commit f6c2e1c)."""
OLD_BEAM_PATH = "rulecert/mipmodels/colgen/pricing.py"


def load_old_beam(commit: str = OLD_BEAM_COMMIT, path: str = OLD_BEAM_PATH):
    """``beam_pricing`` of ``path`` at ``commit``, read with ``git show`` and executed as a
    module of the package ``rulecert.mipmodels.colgen`` (its relative imports resolve there)."""
    try:
        src = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=HERE, check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", "") or e
        raise SystemExit(f"bench_beam.py needs git and the repository history to load the old "
                         f"beam search ({commit}:{path}): {str(detail).strip()}") from None
    name = f"rulecert.mipmodels.colgen._old_pricing_{commit}"
    spec = importlib.util.spec_from_loader(name, loader=None, origin=f"git:{commit}:{path}")
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "rulecert.mipmodels.colgen"
    sys.modules[name] = module
    exec(compile(src, f"<git {commit}:{path}>", "exec"), module.__dict__)
    return module.beam_pricing


old_beam = None
"""The old beam search, loaded by :func:`main` (:func:`load_old_beam`)."""


def differences(a, b) -> list[str]:
    """What differs between two PricingResults (empty: identical outputs)."""
    out = []
    if a.clauses != b.clauses:
        out.append("clauses")
    if len(a.reduced_costs) != len(b.reduced_costs) or any(
            abs(x - y) > 1e-9 for x, y in zip(a.reduced_costs, b.reduced_costs)):
        out.append("reduced_costs")
    if a.generated != b.generated:
        out.append("generated")
    if a.best_clause != b.best_clause:
        out.append("best_clause")
    if a.termination is not b.termination:
        out.append("termination")
    if (a.bound, a.complete, a.method) != (b.bound, b.complete, b.method):
        out.append("bound/complete/method")
    return out


def capture(name: str, C: int, iterations: int, time_limit: float):
    """Pricing instances of the beam-search calls of column generation on dataset ``name``."""
    from rulecert import datasets
    from rulecert.mining import FeatureBinarizer
    from rulecert.mipmodels.colgen import solve
    from rulecert.mipmodels.colgen.pricing import chain as loop   # the chain calls the beam
    from rulecert.problem import RuleProblem

    X, y = datasets.load(name)
    Xb = FeatureBinarizer(n_thresholds=9, negations=True).fit_transform(X).to_numpy().astype(bool)
    problem = RuleProblem.from_matrix(Xb, y)
    calls = []
    inner = loop.beam_pricing

    def spy(inst, **kw):
        calls.append((PricingInstance(inst.X.copy(), inst.v.copy(), inst.const, inst.lit,
                                      inst.max_length, inst.features, inst.exact), kw))
        return inner(inst, **kw)

    loop.beam_pricing = spy
    try:
        solve(problem, complexity_bound=C, max_iter=iterations, time_limit=time_limit,
              close_gap=False)
    finally:
        loop.beam_pricing = inner
    return Xb.shape, calls


def timed(f, inst, kw, repeat):
    best, res = math.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        res = f(inst, **kw)
        best = min(best, time.perf_counter() - t)
    return best, res


def compare_pair(inst, kw, repeat):
    """Times (old, new) and the differences of the outputs, old and new run alternately."""
    t_old = t_new = math.inf
    for _ in range(repeat):
        t, a = timed(old_beam, inst, kw, 1)
        t_old = min(t_old, t)
        t, b = timed(new_beam, inst, kw, 1)
        t_new = min(t_new, t)
    return t_old, t_new, differences(a, b)


def bench(args):
    total = {}
    for name in args.datasets:
        shape, calls = capture(name, args.C, args.iterations, args.time_limit)
        if not calls:
            print(f"\n{name}: no beam call captured")
            continue
        print(f"\n{name}: binarized {shape[0]} x {shape[1]}, C={args.C}, "
              f"{len(calls)} beam calls captured (G x d of the instances: "
              f"{calls[0][0].X.shape[0]} x {calls[0][0].X.shape[1]})")
        configs = [(f"B={B:<3} D={D:<2}", B, D, None) for B in (5, 160) for D in (10, 26)]
        configs.append(("as in CG: B=5..160", None, None, "cg"))
        print(f"  {'config':20s} {'old s':>8s} {'new s':>8s} {'new/old':>8s}  identical")
        for label, B, D, mode in configs:
            t_old = t_new = 0.0
            same, diffs, self_same = 0, {}, 0
            for inst, kw in calls:
                kw = dict(kw)
                kw["deadline"] = None
                if mode is None:
                    inst = PricingInstance(inst.X, inst.v, inst.const, inst.lit, D,
                                           inst.features, inst.exact)
                    kw["beam_width"], kw["max_width"] = B, None
                to, tn, dd = compare_pair(inst, kw, args.repeat)
                t_old += to
                t_new += tn
                same += not dd
                for k in dd:
                    diffs[k] = diffs.get(k, 0) + 1
                if args.permute_check:   # the old code against itself on reordered groups
                    perm = np.random.default_rng(0).permutation(inst.X.shape[0])
                    instp = PricingInstance(inst.X[perm], inst.v[perm], inst.const, inst.lit,
                                            inst.max_length, inst.features, inst.exact)
                    self_same += not differences(old_beam(inst, **kw), old_beam(instp, **kw))
            total.setdefault(label, [0.0, 0.0])
            total[label][0] += t_old
            total[label][1] += t_new
            extra = "" if not diffs else "  differ: " + ", ".join(f"{k} {v}" for k, v in diffs.items())
            if args.permute_check:
                extra += f"  [old vs old on permuted groups: {self_same}/{len(calls)} identical]"
            print(f"  {label:20s} {t_old:8.3f} {t_new:8.3f} {t_new / t_old:8.3f}  "
                  f"{same}/{len(calls)}{extra}")
    if len(args.datasets) > 1:
        print("\nall datasets:")
        for label, (a, b) in total.items():
            print(f"  {label:20s} {a:8.3f} {b:8.3f} {b / a:8.3f}")


# ---- random instances -----------------------------------------------------------------------
def random_instance(rng):
    G = int(rng.integers(1, 301))
    d = int(rng.integers(1, 41))
    X = rng.random((G, d)) < rng.uniform(0.2, 0.9)
    kind = int(rng.integers(4))
    if kind == 0:
        v = rng.normal(size=G) * (rng.random(G) < 0.8)
    elif kind == 1:       # few distinct values: many exact ties
        v = rng.choice([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0], size=G) / 7
    elif kind == 2:
        v = np.where(rng.random(G) < 0.3, -rng.uniform(0.2, 1.0, G), rng.uniform(0, 1.0, G))
    else:
        v = rng.integers(-3, 4, size=G).astype(float)
    if rng.random() < 0.4 and d > 1:      # duplicated columns
        k = int(rng.integers(1, d))
        X[:, rng.choice(d, k)] = X[:, rng.choice(d, k)]
    if rng.random() < 0.4 and G > 1:      # duplicated rows (and their weights)
        k = int(rng.integers(1, G))
        src, dst = rng.choice(G, k), rng.choice(G, k)
        X[dst] = X[src]
        if rng.random() < 0.5:
            v[dst] = v[src]
    if rng.random() < 0.1:
        X[:, rng.integers(d)] = True
    const, lit = float(rng.uniform(-1, 1)), float(rng.uniform(-0.3, 0.4))
    return PricingInstance(X, v, const, lit, int(rng.integers(1, 9)), np.arange(d))


def random_check(n, seed):
    buckets = {"G <= 256": [0, 0, {}], "G > 256": [0, 0, {}]}
    t_old = t_new = 0.0
    for s in range(seed, seed + n):
        rng = np.random.default_rng(s)
        inst = random_instance(rng)
        for _ in range(3):
            B = int(rng.choice([1, 2, 3, 5, 8, 16, 32, 64]))
            kw = dict(threshold=float(rng.choice([0.0, -0.1, 0.3, -1e-7])), beam_width=B,
                      max_return=[None, 1, 5, 50][int(rng.integers(4))],
                      max_width=[None, 32 * B][int(rng.integers(2))])
            t = time.perf_counter()
            a = old_beam(inst, **kw)
            t_old += time.perf_counter() - t
            t = time.perf_counter()
            b = new_beam(inst, **kw)
            t_new += time.perf_counter() - t
            dd = differences(a, b)
            bk = buckets["G <= 256" if inst.X.shape[0] <= 256 else "G > 256"]
            bk[0] += 1
            bk[1] += bool(dd)
            for k in dd:
                bk[2][k] = bk[2].get(k, 0) + 1
    print(f"\nrandom instances (seeds {seed}..{seed + n - 1}, 3 calls each; "
          f"old {t_old:.2f} s, new {t_new:.2f} s):")
    for k, (calls, bad, what) in buckets.items():
        print(f"  {k:9s}: {calls} calls, {calls - bad} identical, {bad} differ"
              + (f" ({', '.join(f'{a} {b}' for a, b in what.items())})" if what else ""))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="*", default=["pima", "ionosphere"])
    ap.add_argument("--C", type=int, default=27, help="complexity bound (D = C - 1)")
    ap.add_argument("--iterations", type=int, default=60,
                    help="column-generation iterations to capture instances from")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="time limit of the column-generation run")
    ap.add_argument("--repeat", type=int, default=2, help="best of this many runs")
    ap.add_argument("--random", type=int, default=0, help="random instances to compare")
    ap.add_argument("--permute-check", action="store_true",
                    help="also compare the old code with itself on the same instances with "
                         "their groups listed in another order (floating-point ties)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    global old_beam
    old_beam = load_old_beam()
    warnings.filterwarnings("ignore", category=UserWarning)
    os.environ.setdefault("RULECERT_DATA", "/work/shared/data")
    if args.datasets:
        bench(args)
    if args.random:
        random_check(args.random, args.seed)


if __name__ == "__main__":
    main()
