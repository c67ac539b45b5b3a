"""Probe: would the relaxations proposed in issue 55 tighten the FRL bound on bank-full?

On the prefixes of the best list found (w = 7, C = 1e-6) and at the root, prints Theorem
4.6's bound next to two valid relaxations of the completions' loss on the remaining samples R
(cap alpha_last on every later rule, ratio r = 1/alpha_last - 1 negatives per captured positive):

* equivalent points: samples with the same capture vector (over all antecedents) get one label,
  so loss >= sum over the patterns in R of min(w n+, n-); with the falling cap, the Lagrangian
  w n+(R) + max_{lam in [0,1]} sum_g min(0, lam n-_g + ((1 - lam) r - w) n+_g) (a lower bound of
  min over label-1 pattern sets A of n-(A) + w (n+(R) - n+(A)) s.t. n-(A) >= r n+(A));
* admissible antecedents: a rule can take positives at proportion > 1/(1+w) only if its own
  negatives are below w times its positives or other admissible antecedents can remove the
  excess; the positives the admissible antecedents cover bound what any completion captures.

``--lp ROWS``: the issue's other lead, the LP relaxation of the exact MIP
(:mod:`rulecert.mipmodels.falling`, HiGHS) as a bound, for lists of at most 3 rules.  The MIP
of all 23,672 capture patterns is beyond reach (HiGHS took over 9 minutes on the LP of 300 rows
with 5 rules), so on random subsamples of ``ROWS`` rows (seeds 0, 1, 2) it prints the LP's value
beside the exact search's certificate on the same rows and lists: its bound after 100 nodes,
and at its stop (at most 20,000 nodes).

Run:  python experiments/frl_bank_bound_probe.py [--lp ROWS]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_frl_bank import bank_problem  # noqa: E402
from rulecert import bits  # noqa: E402
from rulecert.models.falling import falling_counts  # noqa: E402

W, C = 7.0, 1e-6
BEST = ["marital=married and poutcome=success", "30<=age<60 and poutcome=success",
        "housing=no and previous>=2", "60<=age<100 and loan=no", "17<=age<30 and housing=no",
        "contact=cellular and balance>=2000"]


def lagrangian(p, q, r):
    lam = np.linspace(0.0, 1.0, 2001)[:, None]
    return W * p.sum() + np.minimum(0.0, lam * q + ((1 - lam) * r - W) * p).sum(1).max()


def admissible_cover(D, y):
    Pa, Na = D[:, y == 1].sum(1), D[:, y == 0].sum(1)
    exc = Na - W * Pa
    adm = Pa > 0
    while True:
        cnt = D[adm].sum(0)
        other = ((cnt[None, :] - D * adm[:, None]) >= 1) & (D == 1) & (y == 0)[None, :]
        new = adm & ((exc < 0) | (other.sum(1) > exc))
        if (new == adm).all():
            return int(adm.sum()), int((Pa > 0).sum()), int(D[adm][:, y == 1].any(0).sum())
        adm = new


def lp_bound(problem, max_rules):
    """(LP value, seconds) of the relaxation of falling.solve's HiGHS model (nan: not solved
    within 120 s)."""
    from rulecert.mipmodels import falling

    class Relaxed(Exception):
        pass

    def relaxation(h, **_):
        h.setOptionValue("solve_relaxation", True)
        h.setOptionValue("time_limit", 120.0)
        t0 = time.perf_counter()
        h.run()
        raise Relaxed(h.getInfo().objective_function_value, h.getModelStatus(),
                      time.perf_counter() - t0)

    real, falling._highs.solve = falling._highs.solve, relaxation
    try:
        falling.solve(problem, "frl", W, C, max_rules=max_rules, backend="highs")
    except Relaxed as r:
        value, status, seconds = r.args
        if str(status) != "HighsModelStatus.kOptimal":
            return float("nan"), seconds     # not solved within HiGHS' 120 s
        return value, seconds
    finally:
        falling._highs.solve = real
    raise RuntimeError("the model was not solved")


def lp_probe(P, rows):
    from rulecert.problem import RuleProblem
    from rulecert.search.falling import solve
    D = bits.unpack(P.captures, P.n_samples)
    y = np.asarray(P.y, dtype=np.int64)
    K = 3
    print(f"FRL w = {W:g}, C = {C:g}, at most {K} rules; {rows} random rows of bank-full per seed")
    print("seed groups  LP bound  LP s   search: objective  bound@100  bound (stop, nodes)")
    for seed in (0, 1, 2):
        pick = np.sort(np.random.default_rng(seed).choice(P.n_samples, rows, replace=False))
        sub = RuleProblem.from_matrix(D[:, pick].T, y[pick], P.antecedent_names)
        lp, secs = lp_bound(sub, K)
        _, early = solve(sub, "frl", W, C, method="exact", max_length=K, node_limit=100)
        _, cert = solve(sub, "frl", W, C, method="exact", max_length=K, node_limit=20_000)
        print(f"{seed:4d} {sub.groups[0].shape[0]:6d}  {lp:9.2e} {secs:5.1f}   {cert.objective:.4f}"
              f"             {early.lower_bound:.4f}     {cert.lower_bound:.4f} "
              f"({cert.termination.value}, {cert.nodes:,})", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lp", type=int, metavar="ROWS", help="the MIP's LP on subsamples of ROWS rows")
    args = ap.parse_args()
    P = bank_problem()
    if args.lp:
        return lp_probe(P, args.lp)
    y = np.asarray(P.y, dtype=np.int64)
    n = P.n_samples
    D = bits.unpack(P.captures, n).astype(np.int64)
    _, inv = np.unique(D.T, axis=0, return_inverse=True)
    inv = inv.ravel()
    print(f"{inv.max() + 1} distinct capture patterns among {n} samples, {P.n_antecedents} antecedents")
    names = P.antecedent_names
    best = [names.index(s) for s in BEST]
    print("depth  Thm 4.6   equiv.points+cap   admissible/with positives   covered/left positives")
    for k in range(len(best) + 1):
        e = best[:k]
        cnt = falling_counts(P, e)
        cost = sum(q for _, q in cnt[:-1]) / n + C * k
        pl, ql = cnt[k - 1] if k else (1, 0)
        r = ql / pl
        rp, rn = cnt[-1]
        stop = min(W * rp, rn) / n
        inR = ~D[e].any(0).astype(bool) if k else np.ones(n, bool)
        g = inv[inR]
        pp = np.bincount(g, weights=y[inR], minlength=inv.max() + 1)
        nn = np.bincount(g, weights=1 - y[inR], minlength=inv.max() + 1)
        thm = cost + min(r * rp / n + C, stop)
        lag = cost + min(lagrangian(pp, nn, r) / n + C, stop)
        a, m, cov = admissible_cover(D[:, inR], y[inR])
        print(f"{k:5d}  {thm:.4f}    {lag:.4f}             {a}/{m}                     {cov}/{rp}")


if __name__ == "__main__":
    main()
