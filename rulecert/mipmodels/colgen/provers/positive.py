"""A pricing lower bound searched from the positive side: over the sets of gain groups a
clause can cover, each bounded by a set-cover LP in HiGHS.

The branch-and-bound pricer (:mod:`.bnb`) branches on literals.  Where the duals spread the
gain thinly over many groups (``v_g < 0`` on many groups, each small), its bound at a node,
the gain still coverable, is loose and no affordable node count proves ``min rc >= u`` for a
threshold ``u`` just below 0, the proof that a small gap needs (``bounds.py``'s bound (1):
``L + N u``).  This search branches on the *gain groups* instead.

Let ``T_S`` be the gain groups (``v_g < 0``) that clause ``S`` covers, ``gain(T) =
sum_{g in T} -v_g`` and ``meet(T)`` the literals true in every group of ``T``
(a clause covers ``T`` only if all its literals lie in ``meet(T)``).  Then

    rc(S) = const + lit |S| + cost(S) - gain(T_S),    cost(S) = sum_{g covered, v_g > 0} v_g,
    rc(S) >= const + F(meet(T)) - gain(T_S)   for every T within T_S,
    F(M)  = min { lit |S| + cost(S) : S within M, 1 <= |S| <= D },

and ``F`` grows as ``M`` shrinks.  ``F(M)`` is a partial set cover (choose literals of ``M``
that exclude the cost groups, each group excluded by any of its false literals); its LP
relaxation, one warm HiGHS model with the literals outside ``M`` fixed to 0, is a lower
bound, made rigorous by evaluating the LP's Lagrangian dual at the row duals HiGHS returns
(any duals give a valid bound, whatever the solver's tolerance or status).  The same
duals bound ``F`` on every smaller set of literals (the reduced costs of the literals left
out drop out), so each child set is screened with its parent's duals before its own LP.

The search is a depth-first enumeration of the *closed* sets ``T`` (every gain group
containing ``meet(T)`` is in ``T``: a clause within ``meet(T)`` covers them all, so ``T_S``
is always closed), each generated once, as closed itemsets are mined (LCM's
prefix-preserving extension): gain groups by gain, largest first; a set is extended by a
group after its last one that shares a literal with ``meet(T)``, then closed, and the
extension is dropped when the closure takes in an earlier group (its sets are reached
from that group's branch).  A clause lies in the subtree of ``T`` when ``T_S`` agrees with
``T`` up to ``T``'s last group, so every clause of the subtree costs at least ``const +
F(meet(T)) - gain(T) - (gain of the later groups that share a literal with meet(T))``; the
subtree is pruned when that is ``>= upper``.  Clauses with ``T_S = T`` exactly cost at
least ``const + F(meet(T)) - gain(T)``; when that falls below ``upper`` the proof fails
and the search stops (a clause below ``upper`` may exist).  The bound returned is the
least of every such figure met, and of the subtrees left when the node limit, the deadline
or Ctrl-C stopped it: valid in every case, and (the bounds of a node's children never
below its own) non-decreasing in the node limit.  A set is first bounded with its parent's
duals, then with those duals raised by dual ascent on its meet (each cover row's dual in
turn goes up to its cost or to the slack of the literals of the meet that exclude it: the
literals the meet lost no longer hold it down); its own cover LP is solved only when they
still leave a child unpruned. A set's children (their closures, gains and subtree bounds)
are computed on packed bits (numba).  Where a set's cover LP falls below ``upper``, its
cover IP (HiGHS, node-limited) is solved before the proof is declared failed: a failed
proof then holds a clause below ``upper`` (the result's ``witness``), and
without limits the proof completes exactly when no clause is below ``upper``.
"""
from __future__ import annotations

import collections
import dataclasses
import math
import threading
import time

import numba as nb
import numpy as np

from .... import bits
from ....monitor import heartbeat, interrupt_requested
from ...highs import lp_row_duals, new_highs

CHECK_EVERY = 32
"""The deadline and Ctrl-C are checked every this many nodes."""
SHRINK = 0.5
"""A set whose meet holds fewer than this share of its cover LP's literals gets a model of
its own over them (HiGHS's work per solve grows with the model, fixed columns included);
its subtree shares it."""
IDLE_WAIT = 0.0005
"""Seconds a thread of the parallel search waits when every set left is on another
thread."""
EXACT_NODE_LIMIT = 2000
"""HiGHS nodes of a cover IP (solved where a set's cover LP would fail the proof)."""


@dataclasses.dataclass
class PositiveSideResult:
    bound: float
    """A proven lower bound on ``rc`` over every clause of 1..D literals (``>= upper`` when
    ``complete``)."""
    complete: bool
    """Every clause was proven to cost at least ``upper``."""
    nodes: int
    """Sets of gain groups whose cover LP was solved."""
    wall_time: float
    stopped: str = ""
    """Why the search ended early: "failed" (a set of gain groups bounded below ``upper``),
    "node_limit", "deadline", "interrupted"; empty when complete."""
    exact: int = 0
    """Cover IPs solved (at sets whose cover LP fell below ``upper``)."""
    witness: tuple | None = None
    """When the proof failed at a set whose cover IP's best clause costs less than
    ``upper``: that clause (no proof of ``upper`` at these duals exists)."""
    witness_rc: float | None = None
    witnesses: tuple = ()
    """Every clause below ``upper`` the failed search met (``witnesses`` > 1: it goes on
    past a failed set until it holds that many), ``witness`` the least of them."""
    ascents: int = 0
    """Sets whose cover LP dual ascent from their parent's duals spared."""


class _CoverLP:
    """``F(M)``'s LP relaxation: ``min lit sum y + sum_c w_c z_c`` over ``y in [0, 1]``
    (literals; 0 outside ``M``), ``z in [0, 1]`` (cost groups), ``1 <= sum y <= D`` and
    ``z_c + sum_{j false in c} y_j >= 1``; :meth:`bound` the Lagrangian dual value at
    HiGHS's row duals (valid for any duals).

    The model holds only the literals ``cols`` (those of a set's meet), for the masks
    within them: a cost group none of them excludes is the constant ``w_c`` (its ``z_c`` is
    1 for every such mask), and its row is left out.  Masks and the literals' reduced costs
    stay indexed over all the literals."""

    def __init__(self, Xc: np.ndarray, w: np.ndarray, lit: float, D: int, cols: np.ndarray):
        self.n_lits = Xc.shape[1]
        self.cols = np.asarray(cols)
        F = ~Xc[:, self.cols]                             # cost group c excluded by literal j
        live = F.any(axis=1)
        self.const = float(w[~live].sum())
        self.lit, self.D, self.w = float(lit), int(D), w[live]
        self.F = F[live]
        self.Ff = self.F.astype(np.float64)
        self.d, self.nc = len(self.cols), int(live.sum())
        self.h = self._model()
        self.h.setOptionValue("presolve", "off")
        self.upper = np.ones(self.d)
        self.mip = None
        self.owner = threading.get_ident()
        """The thread that built the model, the only one that solves it."""

    def _model(self):
        import highspy
        d, nc, w, D = self.d, self.nc, self.w, self.D
        h = new_highs(workers=1)
        inf = highspy.kHighsInf
        h.addVars(d + nc, np.zeros(d + nc), np.ones(d + nc))
        h.changeColsCost(d + nc, np.arange(d + nc, dtype=np.int32),
                         np.concatenate([np.full(d, self.lit), w]))
        h.addRow(1.0, float(D), d, np.arange(d, dtype=np.int32), np.ones(d))
        rows, idx = np.nonzero(np.hstack([self.F, np.eye(nc, dtype=bool)]))
        starts = np.searchsorted(rows, np.arange(nc)).astype(np.int32)
        h.addRows(nc, np.ones(nc), np.full(nc, inf), len(idx), starts,
                  idx.astype(np.int32), np.ones(len(idx)))
        return h

    def exact(self, M: np.ndarray, node_limit: int) -> tuple[float, tuple[int, ...] | None]:
        """``F(M)`` by the integer program (HiGHS, at most ``node_limit`` nodes): its proven
        bound (the optimum when it finishes; +inf when no clause fits ``M``), and the
        literals of its best solution (None: none found)."""
        import highspy
        if self.mip is None:
            self.mip = h = self._model()
            h.changeColsIntegrality(self.d, np.arange(self.d, dtype=np.int32),
                                    np.full(self.d, highspy.HighsVarType.kInteger))
            h.setOptionValue("mip_rel_gap", 0.0)
            h.setOptionValue("mip_abs_gap", 0.0)
        h = self.mip
        h.setOptionValue("mip_max_nodes", int(node_limit))
        h.changeColsBounds(self.d, np.arange(self.d, dtype=np.int32), np.zeros(self.d),
                           M[self.cols].astype(float))
        h.run()
        if h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
            return math.inf, None
        info = h.getInfo()
        bound = float(info.mip_dual_bound)
        bound = self.const + bound if math.isfinite(bound) else -math.inf
        clause = None
        if info.primal_solution_status == 2:
            y = np.asarray(h.getSolution().col_value[:self.d])
            clause = tuple(int(self.cols[j]) for j in np.flatnonzero(y > 0.5))
        return bound, clause

    def bound(self, M: np.ndarray) -> tuple[float, float, np.ndarray]:
        """A lower bound on ``F(M)`` (``M`` a bool mask of the allowed literals, within
        ``cols``), and the same duals' bound on ``F`` of any smaller mask ``M'``: ``base +
        neg @ M'`` (its literals' negative reduced costs drop out), as ``(value, base,
        neg)``."""
        up = M[self.cols].astype(float)
        diff = np.flatnonzero(up != self.upper)
        if len(diff):
            self.h.changeColsBounds(len(diff), diff.astype(np.int32), np.zeros(len(diff)),
                                    up[diff])
            self.upper = up
        self.h.run()
        duals = lp_row_duals(self.h)
        if duals is None:                   # no dual solution: the duals 0 (still valid)
            duals = np.zeros(1 + self.nc)
        return self._at(duals, up)

    def ascend(self, M: np.ndarray, duals: np.ndarray) -> tuple[float, float, np.ndarray,
                                                                  np.ndarray]:
        """:meth:`bound`'s figures at duals raised from ``duals`` (those of a set whose mask
        holds ``M``) by dual ascent on ``M``: each cover row's dual in turn goes up as far as
        its cost and the slack of its excluding literals in ``M`` allow, which loses nothing
        (the literals out of ``M`` no longer count).  No LP is solved."""
        up = M[self.cols]
        pc = np.maximum(0.0, duals[1:])
        ry = self._reduced_costs(float(duals[0]), pc)
        _ascend(self.F, self.w, up, ry, pc)
        return self._at(np.concatenate([duals[:1], pc]), up.astype(float), ry)

    def _reduced_costs(self, p0: float, pc: np.ndarray) -> np.ndarray:
        """The literals' reduced costs at the duals ``p0`` (the length row) and ``pc`` (the
        cover rows)."""
        if not self.nc:
            return np.full(self.d, self.lit - p0)
        return self.lit - p0 - pc @ self.Ff

    def _at(self, duals: np.ndarray, up: np.ndarray, ry: np.ndarray | None = None):
        """``(value, base, neg, duals)`` of :meth:`bound` at ``duals`` (``ry``: the
        literals' reduced costs there, when known)."""
        base, neg = self._dual_function(duals, ry)
        base += self.const
        full = np.zeros(self.n_lits)
        full[self.cols] = neg
        return base + float(neg @ up), base, full, duals

    def _dual_function(self, duals: np.ndarray, ry: np.ndarray | None = None
                       ) -> tuple[float, np.ndarray]:
        """The LP's Lagrangian dual at ``duals``, as the part that does not depend on the
        mask and the literals' ``min(0, reduced cost)`` (``ry``: those reduced costs, when
        known)."""
        p0 = float(duals[0])                # the row 1 <= sum y <= D: either sign
        pc = np.maximum(0.0, duals[1:])     # the cover rows (>=): duals >= 0
        if ry is None:
            ry = self._reduced_costs(p0, pc)
        rz = self.w - pc
        base = (p0 * (1.0 if p0 >= 0 else self.D) + float(pc.sum())
                + float(np.minimum(0.0, rz).sum()))
        return base, np.minimum(0.0, ry)


@nb.njit(cache=True, nogil=True)
def _ascend(F, w, up, ry, pc):
    """Dual ascent on the cover rows (in place): raise ``pc[c]`` by the most that keeps it
    within ``w[c]`` and every literal ``j`` of ``up`` excluding ``c`` at a reduced cost
    ``ry[j] >= 0`` (a row with such a literal already at or below 0 stays); ``ry`` follows
    for every literal."""
    nc, d = F.shape
    for c in range(nc):
        delta = w[c] - pc[c]
        if delta <= 0.0:
            continue
        for j in range(d):
            if up[j] and F[c, j] and ry[j] < delta:
                delta = ry[j]
                if delta <= 0.0:
                    break
        if delta > 0.0:
            pc[c] += delta
            for j in range(d):
                if F[c, j]:
                    ry[j] -= delta


_MET, _CHILD = 1, 2
"""What :func:`_children` says of a candidate group (0: not a child: its closure takes in
an earlier group, or the candidates before it already bounded the rest)."""


@nb.njit(cache=True, nogil=True)
def _children(Wg, Wm, gain, cand, inT, suffix, Fc, head, const, upper):
    """The children of a set ``T`` (module doc): for each candidate group ``cand[k]`` (its
    meet with ``T``'s packed in ``Wm[k]``; ``Fc[k]`` a bound on ``F`` there), the closure
    ``closed[k]`` of ``T`` plus it (``inT`` and every gain group, packed literals ``Wg``,
    that holds the child's meet) and its gain ``mi[k]``; ``kind[k]`` is :data:`_MET` with
    the subtree bound ``val[k]`` when that bound reaches ``upper`` (the candidates from
    ``k`` on, when ``head`` less their gain ``suffix[k]`` does), :data:`_CHILD` with it when
    it does not, and 0 when the closure takes in an earlier group outside ``T``."""
    nk, G, W = len(cand), Wg.shape[0], Wg.shape[1]
    kind = np.zeros(nk, dtype=np.int8)
    val = np.zeros(nk)
    mi = np.zeros(nk)
    closed = np.zeros((nk, G), dtype=np.bool_)
    for k in range(nk):
        if head - suffix[k] >= upper:
            kind[k], val[k] = _MET, head - suffix[k]
            break
        i = cand[k]
        earlier = False
        for h in range(G):
            c = inT[h]
            if not c:
                c = True
                for w in range(W):
                    if Wm[k, w] & ~Wg[h, w]:
                        c = False
                        break
                if c and h < i:
                    earlier = True
                    break
            closed[k, h] = c
        if earlier:
            continue                # an earlier group outside T is covered: an empty subtree
        m, later = 0.0, 0.0
        for h in range(G):
            if closed[k, h]:
                m += gain[h]
            elif h > i:
                for w in range(W):
                    if Wg[h, w] & Wm[k, w]:
                        later += gain[h]
                        break
        mi[k] = m
        val[k] = const + Fc[k] - m - later
        kind[k] = _MET if val[k] >= upper else _CHILD
    return kind, val, mi, closed


def positive_side_bound(X: np.ndarray, v: np.ndarray, const: float, lit: float,
                        max_length: int, upper: float, node_limit: int | None = None,
                        deadline: float | None = None,
                        exact_node_limit: int = EXACT_NODE_LIMIT,
                        workers: int = 1, collect: list | None = None,
                        witnesses: int = 1) -> PositiveSideResult:
    """Prove ``rc(S) = const + lit |S| + sum_{g covered by S} v_g >= upper`` for every clause
    ``S`` of 1..``max_length`` literals over the columns of ``X`` (module doc); the result's
    bound is valid whether or not the proof completes.

    With a list ``collect`` it *enumerates* instead: a set ``T`` whose own clauses may cost
    less than ``upper`` does not fail the search; it is appended to ``collect`` as
    ``(clause or None, F, groups)``: the best clause within ``meet(T)`` its cover IP found
    (``exact_node_limit`` nodes; 0: none is solved), a proven lower bound ``F`` on
    ``F(meet(T))``, and ``T`` (indices into the rows of ``X``); its subtree is searched on.
    A search that completes has then met every set of gain groups some clause below
    ``upper`` covers exactly: a clause ``S`` below ``upper`` has an entry whose ``T`` is the
    set of gain groups ``S`` covers and whose ``F`` is at most ``lit |S| + cost(S)``.
    ``node_limit`` counts cover LPs; ``deadline`` is a ``time.perf_counter()`` value; Ctrl-C
    stops the search.  Where a set's
    cover LP falls below ``upper`` its cover IP is solved (``exact_node_limit`` HiGHS nodes;
    0: never) before the proof is declared failed: an optimal cover below ``upper`` is a
    clause below it (the result's ``witness``).  ``workers`` > 1 runs the search on that many
    threads (:func:`_in_parallel`): a completed proof is as valid, but the order the sets are
    visited in, and so the LP duals, the counts and a stopped search's bound, then depend on
    the threads' timing (counted runs use one), and each thread finishes the set it is on
    when another stops the search, so up to ``workers - 1`` LPs past ``node_limit``.  With
    ``witnesses`` > 1, a failed set whose cover IP holds a clause below ``upper`` does not stop
    the search until that many such clauses are held (column generation then gets them all
    from one search; the sets that failed keep their bounds in the result's)."""
    t0 = time.perf_counter()
    if not math.isfinite(upper):
        raise ValueError(f"upper must be finite, got {upper}")
    X = np.asarray(X, dtype=bool)
    v = np.asarray(v, dtype=float)
    gain_idx = np.flatnonzero(v < 0)
    gain_idx = gain_idx[np.argsort(v[gain_idx], kind="stable")]     # largest gain first
    Xg, gain = X[gain_idx], -v[gain_idx]
    cost = v > 0
    Xc, wc = X[cost], v[cost]
    state = dict(bound=math.inf, nodes=0, exact=0, ascents=0)

    def below(clause) -> float | None:
        """A clause's reduced cost when it is below ``upper``."""
        if not clause:
            return None
        rc = const + lit * len(clause) + float(v[X[:, list(clause)].all(axis=1)].sum())
        return rc if rc < upper else None

    def result(stopped: str, left=(), fails=()) -> PositiveSideResult:
        """The result, with ``left`` the bounds of the sets left open and ``fails`` the
        ``(bound, clause)`` of the sets that failed (then it "failed", whatever else)."""
        stopped = "failed" if fails else stopped
        bound = min([state["bound"], *left, *(f[0] for f in fails)])
        held = sorted({(rc, c) for _, c in fails if (rc := below(c)) is not None})
        held = held[:max(1, witnesses)]     # (threads finish their sets past the count)
        return PositiveSideResult(bound, not stopped, state["nodes"],
                                  time.perf_counter() - t0, stopped, state["exact"],
                                  held[0][1] if held else None, held[0][0] if held else None,
                                  tuple(c for _, c in held), state["ascents"])

    # the sets open are (first group index allowed, the set T as a mask over the gain groups,
    # meet(T), gain(T), inherited subtree bound, a lower bound on F(meet) from the parent's
    # duals, those duals as (base, neg, the cover rows' duals), the parent's cover LP model).
    # T is always closed: every gain group containing meet(T) is in T (the groups any clause
    # within meet(T) covers).
    every = Xg.all(axis=1)                            # groups every clause covers
    root = (0, every, np.ones(X.shape[1], dtype=bool), float(gain[every].sum()), -math.inf,
            -math.inf, None, None)

    Wg = bits.pack(Xg)                                # the gain groups' literals, packed

    def candidates(first, inT, meet):
        c = first + np.flatnonzero(Xg[first:] @ meet)  # groups that can still be added
        return c[~inT[c]]

    def expand(first, inT, meet, m, F, base, neg):
        """The node's own bound, and its children (or None when the figures fall below
        ``upper`` at the node itself, unless it enumerates), with the bounds met on the way."""
        head = const + F - m
        if head < upper and collect is None:
            return head, None, []
        cand = candidates(first, inT, meet)
        suffix = np.cumsum(gain[cand][::-1])[::-1]       # their gain from each one on
        meets = Xg[cand] & meet
        Fc = np.maximum(F, base + meets @ neg)
        Wm = Wg[cand] & bits.pack(meet)                  # the children's meets, packed
        kind, val, mi, closed = _children(Wg, Wm, gain, cand, inT, suffix, Fc, head, const,
                                          upper)
        met = [head, *val[kind == _MET]]
        children = [(int(cand[k]) + 1, closed[k], meets[k], float(mi[k]), float(val[k]),
                     float(Fc[k])) for k in np.flatnonzero(kind == _CHILD)]
        return head, children, met

    def process(entry, push):
        """One set of the search: its bound and its children (pushed); ``(below, witness)``
        when the proof fails at it."""
        first, inT, meet, m, _, floor, pd, lp = entry
        if pd is not None:
            # first the parent's duals, then those raised by dual ascent on this meet: when
            # they prune every child, no LP is needed here
            head, children, met = expand(first, inT, meet, m, floor, *pd[:2])
            ascended = children != []
            if ascended:
                value, base, neg, _ = lp.ascend(meet, pd[2])
                floor = max(value, floor)
                head, children, met = expand(first, inT, meet, m, floor, base, neg)
            if children == [] and head >= upper:   # (an enumeration's entry needs its IP)
                with lock:
                    state["bound"] = min(state["bound"], *met)
                    state["ascents"] += ascended
                return None
        with lock:
            state["nodes"] += 1
        if lp is None or lp.owner != threading.get_ident() or meet.sum() < SHRINK * lp.d:
            # a model over the meet's literals only, for this set's subtree (a model is
            # solved only by the thread that built it)
            lp = _CoverLP(Xc, wc, lit, max_length, np.flatnonzero(meet))
        value, base, neg, duals = lp.bound(meet)
        F = max(value, floor)
        witness = None
        if const + F - m < upper and exact_node_limit:
            # the LP says the proof fails here: the cover IP may say otherwise
            with lock:
                state["exact"] += 1
            Fx, witness = lp.exact(meet, exact_node_limit)
            F = max(F, Fx)
        head, children, met = expand(first, inT, meet, m, F, base, neg)
        if collect is not None and head < upper:
            # the enumeration's entry; its subtree goes on
            collect.append((witness, F, gain_idx[np.flatnonzero(inT)]))
        if children is None:
            # a set T whose own clauses may cost less than upper: the proof fails (its
            # subtree and the sets left open keep their bounds)
            cand = candidates(first, inT, meet)
            with lock:
                state["bound"] = min(state["bound"], head)
            return (head - gain[cand].sum() if len(cand) else math.inf), witness
        with lock:
            state["bound"] = min(state["bound"], *met)
            push((*c, (base, neg, duals), lp) for c in reversed(children))  # largest gain first
        return None

    def limit_reached() -> str:
        heartbeat(phase="positive-side proof", nodes=state["nodes"])
        if node_limit is not None and state["nodes"] >= node_limit:
            return "node_limit"
        if interrupt_requested():
            return "interrupted"
        if deadline is not None and time.perf_counter() >= deadline:
            return "deadline"
        return ""

    def enough(fails) -> bool:
        """Whether the failed sets ``fails`` end the search."""
        return witnesses <= 1 or sum(below(f[1]) is not None for f in fails) >= witnesses

    lock = threading.Lock()
    if workers <= 1:
        stack, fails = [root], []
        while stack:
            if node_limit is not None and state["nodes"] >= node_limit or (
                    state["nodes"] % CHECK_EVERY == 0 and limit_reached()):
                return result(limit_reached(), [s[4] for s in stack], fails)
            failed = process(stack.pop(), stack.extend)
            if failed:
                fails.append(failed)
                if enough(fails):
                    break
        return result("", [s[4] for s in stack], fails)
    return _in_parallel(workers, root, process, limit_reached, lock, result, enough)


def _in_parallel(workers, root, process, limit_reached, lock, result, enough):
    """:func:`positive_side_bound`'s search on ``workers`` threads: each works depth-first
    on its own stack of sets and, when that is empty, takes the oldest set of the longest
    other stack (the cover LPs run outside the GIL).  A failed proof (once ``enough(fails)``),
    the node limit, the deadline or Ctrl-C stops every thread after the set it is on; the
    sets left open on every stack bound the rest."""
    stacks = [collections.deque() for _ in range(workers)]
    stacks[0].append(root)
    outcome: dict = {}
    fails: list = []                            # (below, witness) or an exception, per thread
    busy = [0]

    def work(own):
        while True:
            with lock:
                if outcome:
                    return
                why = limit_reached()
                if why:
                    outcome["stopped"] = why
                    return
                entry = None
                if own:
                    entry = own.pop()
                else:
                    other = max(stacks, key=len)
                    if other:
                        entry = other.popleft()
                    elif not busy[0]:
                        return                   # nothing left anywhere
                if entry is not None:
                    busy[0] += 1
            if entry is None:
                time.sleep(IDLE_WAIT)
                continue
            try:
                failed = process(entry, own.extend)
            except BaseException as e:          # noqa: BLE001 - handed to the caller
                failed = e
            with lock:
                busy[0] -= 1
                if failed is not None:
                    # kept even when another thread stopped the search first: the set's
                    # subtree is bounded by nothing else
                    fails.append(failed)
                    if isinstance(failed, BaseException) or enough(
                            [f for f in fails if not isinstance(f, BaseException)]):
                        outcome.setdefault("stopped", "failed")
                        return

    threads = [threading.Thread(target=work, args=(st,), daemon=True) for st in stacks]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    except BaseException:
        with lock:
            outcome.setdefault("stopped", "interrupted")
        for t in threads:
            t.join()
        raise
    for f in fails:
        if isinstance(f, BaseException):
            raise f
    return result(outcome.get("stopped", ""), [s[4] for st in stacks for s in st], fails)
