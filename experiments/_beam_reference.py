"""Frozen copy of the original (per-node) beam-search pricer of
``rulecert.mipmodels.colgen.pricing`` (as of commit 8411883), kept only as the reference that
``experiments/bench_beam.py`` times and compares :mod:`rulecert.mipmodels.colgen.beam` against.
Not part of the package; do not use elsewhere."""
from __future__ import annotations

import math
import time

import numpy as np

from rulecert.certificate import Termination
from rulecert.mipmodels.colgen.pricing import PricingInstance, PricingResult


# ---- beam search ---------------------------------------------------------------------------
def beam_pricing(inst: PricingInstance, *, threshold: float = 0.0, beam_width: int = 5,
                 max_return: int | None = 50, deadline: float | None = None,
                 max_width: int | None = None) -> PricingResult:
    """Beam search over clauses (AIX360's ``beam_search``, ``wLB = 0.5``; see module doc).

    Level 1 scores every literal ``j``: its reduced cost ``rc = const + lit + sum_{g in j}
    v_g`` and the bound on its extensions ``lb = const + 2 lit + sum_{g in j} min(v_g, 0)``.
    The ``beam_width`` clauses of smallest ``0.5 rc + 0.5 lb`` among those with ``lb`` below
    the cut (``threshold``, or the ``max_return``-th best reduced cost found once that many
    are held: nothing else can enter the output) are extended by every other literal (one
    product ``v[cov] @ X[cov]`` per clause), the ``beam_width`` best distinct children are
    kept, and so on up to ``max_length`` literals.  Literals that do not change a clause's
    coverage are not added (with ``lit >= 0`` such a clause and its extensions are dominated)
    and clauses with equal coverage are kept once (the shortest, then the lexicographically
    first): equal coverage at equal length means equal reduced costs for the whole subtree.

    Returns every clause generated with reduced cost ``< threshold`` (best first, distinct
    coverages, at most ``max_return``; ``None`` = all).  A heuristic: ``bound`` is ``-inf``,
    ``complete`` is False; termination is ``TIME_LIMIT`` when ``deadline`` (a
    ``time.perf_counter()`` value) cut the search, else ``ITERATION_LIMIT``.
    ``best_clause`` is the best clause seen, negative or not (a CP-SAT hint).  With
    ``beam_width`` at least the number of clauses of ``max_length - 1`` literals the search is
    exhaustive (but still reports no bound).

    ``max_width``: when the search finds no clause below the threshold, it is run again with
    the width doubled, up to ``max_width`` (a narrow beam often dies out after a few levels
    in a few milliseconds; a search of width ``B`` costs about ``B`` times one of width 1).
    ``generated`` and ``wall_time`` then cover all the runs.
    """
    if (isinstance(beam_width, bool) or not isinstance(beam_width, (int, np.integer))
            or beam_width < 1):
        raise ValueError(f"beam_width must be an integer >= 1, got {beam_width!r}")
    if max_return is not None and max_return < 1:
        raise ValueError(f"max_return must be >= 1 or None, got {max_return!r}")
    t0 = time.perf_counter()
    width, generated, best = int(beam_width), 0, None
    while True:
        r, best_rc, truncated = _beam_once(inst, threshold, width, max_return, deadline)
        generated += r.generated
        if r.best_clause is not None and (best is None or best_rc < best[0]):
            best = (best_rc, r.best_clause)
        if (r.clauses or r.termination is Termination.TIME_LIMIT or max_width is None
                or 2 * width > max_width or not truncated):   # a wider beam would not differ
            break
        width *= 2
    r.generated, r.wall_time = generated, time.perf_counter() - t0
    r.best_clause = None if best is None else best[1]
    return r


def _beam_once(inst: PricingInstance, threshold: float, beam_width: int,
               max_return: int | None, deadline: float | None):
    """One beam search of width ``beam_width`` (see :func:`beam_pricing`); returns the
    result, the reduced cost of its best clause and whether the beam ever dropped a node."""
    t0 = time.perf_counter()
    B, K, D = int(beam_width), max_return, int(inst.max_length)
    X, Xf, v = inst.X, inst.Xf, inst.v
    d = X.shape[1]
    if d == 0 or D < 1:
        return PricingResult([], [], -math.inf, False, "beam", Termination.ITERATION_LIMIT,
                             time.perf_counter() - t0), math.inf, False
    vneg = np.minimum(v, 0.0)
    drop_redundant = inst.lit >= 0
    found: dict[bytes, tuple[float, tuple[int, ...]]] = {}   # packed coverage -> (rc, clause)

    def order(rc, clause):
        return (rc, len(clause), clause)

    def offer(rc: float, clause: tuple[int, ...], cov: np.ndarray) -> None:
        key = np.packbits(cov).tobytes()
        old = found.get(key)
        if old is None or order(rc, clause) < order(*old):
            found[key] = (rc, clause)

    def prune_found() -> float:
        """Keep the best ``K`` clauses; return the cut below which a node can still help."""
        if K is None or len(found) < K:
            return threshold
        items = sorted(found.items(), key=lambda kv: order(*kv[1]))[:K]
        found.clear()
        found.update(items)
        return min(threshold, items[-1][1][0])

    # ---- level 1: every literal
    rc1 = inst.fixed(1) + v @ Xf
    j0 = int(np.argmin(rc1))
    best = (float(rc1[j0]), (j0,))
    generated = d
    imp = np.flatnonzero(rc1 < threshold)
    if K is not None and imp.size > K:
        imp = imp[np.argsort(rc1[imp], kind="stable")[:K]]
    for j in imp:
        offer(float(rc1[j]), (int(j),), X[:, j])
    cut = prune_found()
    nodes: list[tuple[tuple[int, ...], np.ndarray]] = []
    truncated = False
    if D >= 2:
        lb1 = inst.fixed(2) + vneg @ Xf
        ok = np.flatnonzero(lb1 < cut)
        truncated = ok.size > B
        if ok.size:
            score = 0.5 * rc1[ok] + 0.5 * lb1[ok]
            seen: set[bytes] = set()
            for j in ok[np.argsort(score, kind="stable")]:
                cov = X[:, j]
                key = np.packbits(cov).tobytes()
                if key in seen:
                    continue
                seen.add(key)
                nodes.append(((int(j),), cov.copy()))
                if len(nodes) >= B:
                    break

    # ---- levels 2..D: extend the beam
    level = 1            # literals of the clauses in ``nodes``
    timed_out = False
    while nodes and level < D:
        # children: the ``B`` best of each node by score, as (score, node, literal) arrays;
        # coverages are only built for the few that the global selection looks at
        c_score: list[np.ndarray] = []
        c_node: list[np.ndarray] = []
        c_lit: list[np.ndarray] = []
        deeper = level + 2 <= D          # children can still be extended
        rc_fixed, lb_fixed = inst.fixed(level + 1), inst.fixed(level + 2)
        for p, (clause, cov) in enumerate(nodes):
            if deadline is not None and time.perf_counter() > deadline:
                timed_out = True
                break
            idx = np.flatnonzero(cov)
            Xc = Xf[idx]
            W = np.stack((v[idx], vneg[idx], np.ones(idx.size))) @ Xc
            rcs = rc_fixed + W[0]
            mask = np.ones(d, dtype=bool)
            mask[list(clause)] = False
            if drop_redundant:
                mask &= W[2] < idx.size - 0.5
            sel = np.flatnonzero(mask)
            generated += sel.size
            if not sel.size:
                continue
            jm = int(sel[np.argmin(rcs[sel])])
            if rcs[jm] < best[0]:
                best = (float(rcs[jm]), tuple(sorted(clause + (jm,))))
            imp = sel[rcs[sel] < threshold]
            if K is not None and imp.size > K:
                imp = imp[np.argsort(rcs[imp], kind="stable")[:K]]
            for j in imp:
                offer(float(rcs[j]), tuple(sorted(clause + (int(j),))), cov & X[:, j])
            if not deeper:
                continue
            lbs = lb_fixed + W[1]
            ok = sel[lbs[sel] < cut]
            if not ok.size:
                continue
            score = 0.5 * rcs[ok] + 0.5 * lbs[ok]
            top = np.argsort(score, kind="stable")[:B]
            truncated |= ok.size > B
            c_score.append(score[top])
            c_node.append(np.full(top.size, p))
            c_lit.append(ok[top])
        cut = prune_found()
        if timed_out or not c_score:
            break
        scores, owner, lits = map(np.concatenate, (c_score, c_node, c_lit))
        truncated |= scores.size > B
        children: list[tuple[tuple[int, ...], np.ndarray]] = []
        seen: set[bytes] = set()
        for pos in np.lexsort((lits, owner, scores)):
            clause, cov = nodes[owner[pos]]
            ccov = cov & X[:, lits[pos]]
            key = np.packbits(ccov).tobytes()
            if key in seen:      # same coverage, same length: same subtree
                continue
            seen.add(key)
            children.append((tuple(sorted(clause + (int(lits[pos]),))), ccov))
            if len(children) >= B:
                break
        nodes = children
        level += 1
    items = sorted(found.values(), key=lambda t: order(*t))
    if K is not None:
        items = items[:K]
    term = Termination.TIME_LIMIT if timed_out else Termination.ITERATION_LIMIT
    return PricingResult([cl for _, cl in items], [rc for rc, _ in items], -math.inf, False,
                         "beam", term, time.perf_counter() - t0, generated,
                         best_clause=best[1]), best[0], truncated
