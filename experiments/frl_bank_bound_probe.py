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

Run:  python experiments/frl_bank_bound_probe.py
"""
import sys
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


def main():
    P = bank_problem()
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
