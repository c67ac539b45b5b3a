"""Shared pieces of the FRL / softFRL searches: packed data, prefix bounds, child evaluation.

Used by :mod:`rulecert.search.falling.mc` (Algorithms FRL / softFRL) and
:mod:`rulecert.search.falling.bnb` (the exact branch-and-bound).

Mathematics: Chen & Rudin (AISTATS 2018), restated in ``shared/papers/frl_math.md``.

The capture matrix is split by class: ``capP`` (M x ceil(n+/64)) holds each antecedent's
positives and ``capN`` its negatives, so the counts n+(a, e), n-(a, e) of every antecedent a on
the samples a prefix e leaves uncaptured come from two ``np.bitwise_count`` passes.  An
antecedent already in e captures nothing new, so no "used" mask is needed: a rule must capture
at least one sample (compatibility, Def 2.6).

Vectorised over the children e' = (e, a) of a prefix e, with ñ+ / ñ- the samples e' leaves:

FRL (Program 2.9)
    valid      : a captures >= 1 and leaves >= 1 sample (compatible),
                 alpha_a <= alpha_last (falling), alpha_a > 1/(1+w) (Corollary 4.5),
                 alpha~ <= alpha_a (Proposition 4.2: e' is feasible)
    L(e')      = L(e) + n-(a)/n + C     (every non-else rule predicts 1, Cor. 4.5)
    stop       = min(w ñ+, ñ-)/n       (value of ending e' with its else clause)
    ext        = (1/alpha_a - 1) ñ+/n + C   (one more rule taking every remaining positive)
    bound      = L(e') + min(ext, stop)  (Theorem 4.6, eq. 8)
    terminal   : ext >= stop             (inequality (9): ending now is optimal below e')

softFRL (Program 5.1), alpha_min = min over e' of the proportions (1 for the empty prefix)
    L~(e')     = L~(e) + min(w n+(a), n-(a))/n + C + C1 max(alpha_a - alpha_min(e), 0)
    T1, inf g, T3, T4 of Theorem 5.2 (closed form of the infimum), stop = min(T3, T4),
    ext = min(T1, inf g), bound = L~(e') + min(ext, stop), terminal: stop <= ext.

With C = 0, Corollary 4.5 still holds for the optimal *value* (Lemma 4.4's special case:
truncating a list at its first rule with alpha <= tau never increases L), so restricting the
FRL search to rules with alpha > tau keeps an optimal list in the search space.
"""
from __future__ import annotations

import dataclasses

import numba
import numpy as np

from ... import bits
from ...models.falling import (FallingParams, FallingRuleList, check_falling_problem,
                               falling_counts, frl_objective, make_params, soft_frl_objective,
                               softness_penalty)  # noqa: F401


_SPLIT_BITS = 1 << 26
"""Booleans unpacked at a time when the captures are split by class (64 MB)."""


class FallingData:
    """Class-split packed captures of a RuleProblem (validated: unweighted, two classes);
    ``check(detail)`` (:func:`rulecert.monitor.stop_check`) is asked between blocks of
    antecedents and raises :class:`~rulecert.limits.LimitStop` to stop."""

    def __init__(self, problem, check=None):
        check_falling_problem(problem)
        self.problem = problem
        y = problem.y.astype(bool)
        self.n = int(problem.n_samples)
        self.M = int(problem.n_antecedents)
        pos = np.flatnonzero(y)
        neg = np.flatnonzero(~y)
        self.NP, self.NN = int(pos.size), int(neg.size)
        if self.M:      # unpacked a block of antecedents at a time (M x n booleans can be GBs)
            self.capP = np.empty((self.M, bits.n_words(self.NP)), dtype=np.uint64)
            self.capN = np.empty((self.M, bits.n_words(self.NN)), dtype=np.uint64)
            step = max(1, _SPLIT_BITS // max(1, self.n))
            for a in range(0, self.M, step):
                if check is not None and a:      # between blocks (one block: no stop)
                    check(f" ({a:,} of {self.M:,} antecedents)")
                D = bits.unpack(problem.captures[a:a + step], self.n)  # block x n
                self.capP[a:a + step] = bits.pack(D[:, pos]).reshape(len(D), -1)
                self.capN[a:a + step] = bits.pack(D[:, neg]).reshape(len(D), -1)
        else:
            self.capP = np.zeros((0, bits.n_words(self.NP)), dtype=np.uint64)
            self.capN = np.zeros((0, bits.n_words(self.NN)), dtype=np.uint64)
        self.allP = bits.ones(self.NP)
        self.allN = bits.ones(self.NN)
        self._bufP = np.empty_like(self.capP)
        self._bufN = np.empty_like(self.capN)
        self.captures_something = bool(self.M) and bool(self.capP.any() or self.capN.any())

    def counts(self, remP: np.ndarray, remN: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """n+(a, rem), n-(a, rem) for every antecedent a (int64), on packed bits.

        Small matrices use ``np.bitwise_count``; large ones a fused numba loop (one pass, no
        temporaries), which is several times faster on bank-full-sized data.
        """
        if self.capP.size + self.capN.size >= 20000:
            return _counts_jit(self.capP, self.capN, remP, remN)
        np.bitwise_and(self.capP, remP, out=self._bufP)
        np.bitwise_and(self.capN, remN, out=self._bufN)
        cp = np.bitwise_count(self._bufP).sum(axis=1, dtype=np.int64)
        cn = np.bitwise_count(self._bufN).sum(axis=1, dtype=np.int64)
        return cp, cn

    def remainder(self, prefix) -> tuple[np.ndarray, np.ndarray]:
        """Packed positives and negatives that no antecedent of ``prefix`` captures."""
        remP = self.allP.copy()
        remN = self.allN.copy()
        for a in prefix:
            remP &= ~self.capP[a]
            remN &= ~self.capN[a]
        return remP, remN


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@numba.njit(cache=True, inline="always")
def popcount64(x):
    """Population count of a uint64 (SWAR; LLVM turns it into the popcnt instruction)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return (x * _H01) >> np.uint64(56)


@numba.njit(cache=True)
def _counts_jit(capP, capN, remP, remN):
    M = capP.shape[0]
    cp = np.empty(M, np.int64)
    cn = np.empty(M, np.int64)
    for a in range(M):
        s = 0
        for k in range(remP.shape[0]):
            s += popcount64(capP[a, k] & remP[k])
        cp[a] = s
        s = 0
        for k in range(remN.shape[0]):
            s += popcount64(capN[a, k] & remN[k])
        cn[a] = s
    return cp, cn


@numba.njit(cache=True, inline="always")
def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


_G1 = np.uint64(0x9E3779B97F4A7C15)
_G2 = np.uint64(0xD1B54A32D192ED03)


@numba.njit(cache=True, inline="always")
def _hash_words(rem, cap, a, s1, s2, h1, h2):
    """Fold the words of ``rem & ~cap[a]`` into the two running hashes (and seed streams)."""
    for k in range(rem.shape[0]):
        x = rem[k] & ~cap[a, k]
        s1 += _G1
        s2 += _G2
        h1 += _mix64(x ^ s1)
        h2 += _mix64(x ^ s2)
    return s1, s2, h1, h2


@numba.njit(cache=True)
def child_keys(capP, capN, remP, remN, idx):
    """128-bit keys (two uint64) of the uncaptured set left by each child ``idx``.

    Sum over words of splitmix64(word ^ seed_k) with two seed streams; equal sets give equal
    keys, and two different sets share both keys with probability about 2**-128.
    """
    m = idx.shape[0]
    k1 = np.empty(m, np.uint64)
    k2 = np.empty(m, np.uint64)
    for i in range(m):
        a = idx[i]
        h1 = np.uint64(0)
        h2 = np.uint64(0)
        s1 = np.uint64(0x243F6A8885A308D3)
        s2 = np.uint64(0x13198A2E03707344)
        s1, s2, h1, h2 = _hash_words(remP, capP, a, s1, s2, h1, h2)
        s1, s2, h1, h2 = _hash_words(remN, capN, a, s1, s2, h1, h2)
        k1[i] = h1
        k2[i] = h2
    return k1, k2


# ---- prefix bounds (scalar or vectorised) -------------------------------------------------
def frl_tail(rp, rn, pl, ql, n, w, C):
    """(ext, stop) of Theorem 4.6 for prefixes whose last rule has counts (pl, ql).

    ``ext`` = (1/alpha_last - 1) ñ+/n + C, ``stop`` = min(w ñ+, ñ-)/n; the bound is
    L(e) + min(ext, stop) and inequality (9) is ``ext >= stop``.  The empty prefix uses
    alpha_{-1} = 1, i.e. (pl, ql) = (1, 0).
    """
    rp = np.asarray(rp, dtype=np.float64)
    stop = np.minimum(w * rp, np.asarray(rn, dtype=np.float64)) / n
    ext = (np.asarray(ql, dtype=np.float64) / np.asarray(pl, dtype=np.float64)) * rp / n + C
    return ext, stop


def soft_tail(rp, rn, amin, n, w, C, C1):
    """(ext, stop) of Theorem 5.2: ext = min(T1, inf g), stop = min(T3, T4).

    ``amin`` is alpha_min of the prefix (1 for the empty prefix, which gives no penalty).
    The bound is L~(e) + min(ext, stop); Algorithm softFRL stops extending when stop <= ext.
    """
    rp = np.asarray(rp, dtype=np.float64)
    rn = np.asarray(rn, dtype=np.float64)
    amin = np.asarray(amin, dtype=np.float64)
    rr = rp + rn
    with np.errstate(divide="ignore", invalid="ignore"):
        at = np.where(rr > 0, rp / np.where(rr > 0, rr, 1.0), 0.0)
        pe = C1 * np.maximum(at - amin, 0.0)
        T3 = w * rp / n + pe
        T4 = rn / n + pe
        stop = np.minimum(T3, T4)
        inv = np.where(amin > 0, 1.0 / np.where(amin > 0, amin, 1.0) - 1.0, np.inf)
        lossT1 = np.where(rp > 0, inv * rp, 0.0) / n
        T1 = lossT1 + C + pe + np.where(at >= amin, w * rp / n, 0.0)
        tau = 1.0 / (1.0 + w)
        zeta = np.maximum(np.maximum(amin, at), tau)

        def g(beta):
            return (1.0 / beta - 1.0) * rp / n + C + C1 * (beta - amin)

        g_edge = np.minimum(g(zeta), g(np.ones_like(zeta)))
        if C1 > 0:
            bstar = np.sqrt(rp / (C1 * n))
            inside = (bstar > zeta) & (bstar <= 1.0)
            infg = np.where(inside, g(np.where(inside, bstar, 1.0)), g_edge)
        else:
            infg = g_edge
    ext = np.minimum(T1, infg)
    return ext, stop


@dataclasses.dataclass
class Children:
    """Valid children of one prefix: antecedent indices and their arrays."""

    idx: np.ndarray
    cp: np.ndarray
    cn: np.ndarray
    cost: np.ndarray      # L(e') (FRL) or L~(e') (softFRL)
    alpha: np.ndarray     # proportion of the new rule (FRL) / running minimum (softFRL)
    value: np.ndarray     # objective of ending e' with its else clause
    bound: np.ndarray     # prefix bound of Theorem 4.6 / 5.2
    terminal: np.ndarray  # ending now is optimal among e''s completions


def frl_rule_count_tail(rp, cp, cn, cp_parent, n, w, C):
    """A sharper ``ext`` for FRL children: more positives need more rules, each costing C.

    Below a child e' (last proportion beta = cp/(cp+cn), ñ+ = rp left), k more rules capture
    at most T_k positives, T_k = sum of the k largest n+(a, R) over the *parent's* remaining
    set R (an upper bound on R' = R minus the child's capture).  With p positives captured at
    proportion <= beta they bring >= (1/beta - 1) p negatives, and the rest costs w each:

        ext = min_{k >= 1} [(1/beta - 1) min(T_k, ñ+) + w (ñ+ - min(T_k, ñ+))] / n + C k

    which is >= Theorem 4.6's (1/beta - 1) ñ+/n + C and still below every completion with at
    least one more rule (so inequality (9) with it still certifies that ending is optimal).
    """
    T = np.cumsum(np.sort(cp_parent[cp_parent > 0])[::-1]).astype(np.float64)
    rp = np.asarray(rp, dtype=np.float64)
    if T.size == 0:
        return np.full(rp.shape, np.inf)
    kmax = min(T.size, int(np.searchsorted(T, rp.max(), side="left")) + 1)
    T = T[:kmax]
    r = (np.asarray(cn, dtype=np.float64) / np.asarray(cp, dtype=np.float64))[:, None]
    p = np.minimum(T[None, :], rp[:, None])
    vals = (w * rp[:, None] + np.minimum(0.0, (r - w) * p)) / n + C * np.arange(1, kmax + 1)[None, :]
    return vals.min(axis=1)


def children(params: FallingParams, n: int, cp_all, cn_all, RP: int, RN: int, cost_e: float,
             state, refine: bool = True) -> Children:
    """Evaluate every child of a prefix at once.

    ``state`` is (pl, ql), the last rule's counts, for FRL ((1, 0) at the root) and alpha_min
    for softFRL (1.0 at the root).  ``refine`` adds ``frl_rule_count_tail`` to the FRL
    bound (used by the exact search; the Monte-Carlo search uses Theorem 4.6 as published).
    """
    w, C = params.w, params.C
    if params.program == "frl":
        pl, ql = state
        rp_all = RP - cp_all
        rn_all = RN - cn_all
        nc = cp_all + cn_all
        valid = ((rp_all + rn_all) > 0) & (w * cp_all > cn_all) \
            & (cp_all * (pl + ql) <= pl * nc) & (rp_all * nc <= cp_all * (rp_all + rn_all))
        idx = np.flatnonzero(valid)
        cp, cn = cp_all[idx], cn_all[idx]
        rp, rn = rp_all[idx], rn_all[idx]
        cost = cost_e + cn / n + C
        ext, stop = frl_tail(rp, rn, cp, cn, n, w, C)
        if refine and C * n >= 0.5 and idx.size:
            ext = np.maximum(ext, frl_rule_count_tail(rp, cp, cn, cp_all, n, w, C))
        alpha = cp / (cp + cn)
    else:
        C1 = params.C1
        amin = state
        rp_all = RP - cp_all
        rn_all = RN - cn_all
        valid = ((cp_all + cn_all) > 0) & ((rp_all + rn_all) > 0)
        idx = np.flatnonzero(valid)
        cp, cn = cp_all[idx], cn_all[idx]
        rp, rn = rp_all[idx], rn_all[idx]
        a = cp / (cp + cn)
        cost = cost_e + np.minimum(w * cp, cn) / n + C + C1 * np.maximum(a - amin, 0.0)
        alpha = np.minimum(a, amin)
        ext, stop = soft_tail(rp, rn, alpha, n, w, C, C1)
    return Children(idx, cp, cn, cost, alpha, cost + stop, cost + np.minimum(ext, stop), stop <= ext)


def prefix_bound(problem, prefix, program: str = "frl", w: float = 7.0, C: float = 1e-6,
                 C1: float | None = None) -> float:
    """The published prefix bound: L*(e) of Theorem 4.6 (FRL) or L~*(e) of Theorem 5.2 (softFRL).

    A lower bound on the objective of every compatible list (falling, for FRL) that starts with
    the antecedent prefix ``prefix`` (indices into ``problem``); for FRL, ``prefix`` must be
    feasible (Proposition 4.2), as in the searches.  Every rule of ``prefix`` must capture at
    least one sample (compatibility), else ``ValueError``.  This is the bound of the paper; the
    exact search sharpens the FRL one further (``frl_rule_count_tail``).
    """
    params = make_params(program, w, C, C1)
    n = problem.n_samples
    counts = falling_counts(problem, prefix)
    rules, (rp, rn) = counts[:-1], counts[-1]
    for k, (p, q) in enumerate(rules):
        if p + q == 0:
            raise ValueError(f"rule {k} of the prefix (antecedent {prefix[k]}) captures no sample: "
                             "the prefix is not compatible")
    w, C = params.w, params.C
    cost = sum(min(w * p, q) for p, q in rules) / n + C * len(rules)
    if params.program == "frl":
        pl, ql = rules[-1] if rules else (1, 0)
        if pl == 0:  # alpha_last = 0: a falling completion captures no further positive
            ext, stop = (C if rp == 0 else np.inf), min(w * rp, rn) / n
        else:
            ext, stop = frl_tail(rp, rn, pl, ql, n, w, C)
    else:
        props = [p / (p + q) for p, q in rules]
        cost += params.C1 * softness_penalty(props)
        ext, stop = soft_tail(rp, rn, min(props, default=1.0), n, w, C, params.C1)
    return float(cost + min(float(ext), float(stop)))


def root_tail(params: FallingParams, n: int, RP: int, RN: int):
    """(ext, stop) of the empty prefix."""
    if params.program == "frl":
        ext, stop = frl_tail(RP, RN, 1, 0, n, params.w, params.C)
    else:
        ext, stop = soft_tail(RP, RN, 1.0, n, params.w, params.C, params.C1)
    return float(ext), float(stop)


# ---- the searches' results -----------------------------------------------------------------
def solver_name(params: FallingParams, method: str) -> str:
    """``"frl-<method>"`` or ``"softfrl-<method>"`` (the certificate's solver field)."""
    return f"{params.program}-{method}"


def exact_objective(problem, params: FallingParams, prefix) -> float:
    """Objective of Program 2.9 / 5.1 of ``prefix``, recomputed by :mod:`rulecert.models.falling`."""
    if params.program == "frl":
        return frl_objective(problem, prefix, params.w, params.C).objective
    return soft_frl_objective(problem, prefix, params.w, params.C, params.C1).objective


def check_incumbent(value: float, objective: float, what: str) -> None:
    """A search's running value must equal the exact objective of its list (internal check)."""
    if abs(objective - value) > 1e-9:
        raise AssertionError(f"internal error: {what} {value} != exact objective {objective}")


def model_of(problem, params: FallingParams, prefix) -> FallingRuleList:
    """The FallingRuleList (falling or softly falling by program) of ``prefix``."""
    kind = "falling" if params.program == "frl" else "softly_falling"
    return FallingRuleList.from_prefix(problem, prefix, params.w, kind)
