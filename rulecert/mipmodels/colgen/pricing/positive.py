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
subtree is pruned when that is ``>= upper``.  Clauses with ``T_S = T`` exactly cost at least ``const + F(meet(T)) -
gain(T)``; when that falls below ``upper`` the proof fails and the search stops (a clause
below ``upper`` may exist).  The bound returned is the least of every such figure met, and
of the subtrees left when the node limit, the deadline or Ctrl-C stopped it: valid in every
case, and (the bounds of a node's children never below its own) non-decreasing in the node
limit.  A set is first bounded with its parent's duals; its own cover LP is solved only
when they leave a child unpruned.  Where a set's cover LP falls
below ``upper``, its cover IP (HiGHS, node-limited) is solved before the proof is declared
failed: a failed proof then holds a clause below ``upper`` (the result's ``witness``), and
without limits the proof completes exactly when no clause is below ``upper``.  Measured at
WDBC's final master LP duals at C = 10 (LP 10.72): ``min rc >= -0.1436`` proven in 43,030
cover LPs (87,114 over every set of gain groups), where the literal branch-and-bound's bound
stays at -21.9 after 5 x 10^6 nodes.
"""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from ....monitor import interrupt_requested
from ...highs import lp_row_duals, new_highs

CHECK_EVERY = 32
"""The deadline and Ctrl-C are checked every this many nodes."""
SHRINK = 0.5
"""A set whose meet holds fewer than this share of its cover LP's literals gets a model of
its own over them (HiGHS's work per solve grows with the model, fixed columns included);
its subtree shares it.  At WDBC's final duals at C = 10, 5000 cover LPs take 9.3 s this way
and 15.7 s in the model over every literal (0.25: 10.5 s, 0.75: 10.3 s)."""
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

    def _model(self):
        import highspy
        d, nc, w, D = self.d, self.nc, self.w, self.D
        h = new_highs(threads=1)
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
        base, neg = self._dual_function(duals)
        base += self.const
        full = np.zeros(self.n_lits)
        full[self.cols] = neg
        return base + float(neg @ up), base, full

    def _dual_function(self, duals: np.ndarray) -> tuple[float, np.ndarray]:
        """The LP's Lagrangian dual at ``duals``, as the part that does not depend on the
        mask and the literals' ``min(0, reduced cost)``."""
        p0 = float(duals[0])                # the row 1 <= sum y <= D: either sign
        pc = np.maximum(0.0, duals[1:])     # the cover rows (>=): duals >= 0
        ry = self.lit - p0 - pc @ self.Ff if self.nc else np.full(self.d, self.lit - p0)
        rz = self.w - pc
        base = (p0 * (1.0 if p0 >= 0 else self.D) + float(pc.sum())
                + float(np.minimum(0.0, rz).sum()))
        return base, np.minimum(0.0, ry)


def positive_side_bound(X: np.ndarray, v: np.ndarray, const: float, lit: float,
                        max_length: int, upper: float, node_limit: int | None = None,
                        deadline: float | None = None,
                        exact_node_limit: int = EXACT_NODE_LIMIT) -> PositiveSideResult:
    """Prove ``rc(S) = const + lit |S| + sum_{g covered by S} v_g >= upper`` for every clause
    ``S`` of 1..``max_length`` literals over the columns of ``X`` (module doc); the result's
    bound is valid whether or not the proof completes.  ``node_limit`` counts cover LPs;
    ``deadline`` is a ``time.perf_counter()`` value; Ctrl-C stops the search.  Where a set's
    cover LP falls below ``upper`` its cover IP is solved (``exact_node_limit`` HiGHS nodes;
    0: never) before the proof is declared failed: an optimal cover below ``upper`` is a
    clause below it (the result's ``witness``)."""
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
    state = dict(bound=math.inf, nodes=0, exact=0)

    def result(stopped: str, left: float = math.inf, witness=None) -> PositiveSideResult:
        rc = None
        if witness:
            cov = X[:, list(witness)].all(axis=1)
            rc = const + lit * len(witness) + float(v[cov].sum())
            witness = witness if rc < upper else None
        return PositiveSideResult(min(state["bound"], left), not stopped, state["nodes"],
                                  time.perf_counter() - t0, stopped, state["exact"],
                                  witness, rc if witness else None)

    # a stack of (first group index allowed, the set T as a mask over the gain groups,
    # meet(T), gain(T), inherited subtree bound, a lower bound on F(meet) from the parent's
    # duals, those duals as (base, neg), the parent's cover LP model).  T is always closed: every gain group containing
    # meet(T) is in T (the groups any clause within meet(T) covers).
    Xn = ~Xg
    root = Xg.all(axis=1)                             # groups every clause covers
    stack = [(0, root, np.ones(X.shape[1], dtype=bool), float(gain[root].sum()), -math.inf,
              -math.inf, None, None)]

    def candidates(first, inT, meet):
        c = first + np.flatnonzero(Xg[first:] @ meet)  # groups that can still be added
        return c[~inT[c]]

    def expand(first, inT, meet, m, F, base, neg):
        """The node's own bound, and its children (or None when the figures fall below
        ``upper`` at the node itself), with the bounds met on the way."""
        head = const + F - m
        if head < upper:
            return head, None, []
        cand = candidates(first, inT, meet)
        g = gain[cand]
        suffix = np.cumsum(g[::-1])[::-1]                 # their gain from each one on
        meets = Xg[cand] & meet
        contains = ~(meets @ Xn.T)                        # group h contains child i's meet
        Fc = np.maximum(F, base + meets @ neg)
        met, children = [head], []
        for k, (i, si, Fi, Mi) in enumerate(zip(cand, suffix, Fc, meets)):
            if head - si >= upper:
                met.append(head - si)
                break
            closed = inT | contains[k]
            if (closed[:i] & ~inT[:i]).any():
                continue        # an earlier group outside T is covered: an empty subtree
            mi = float(gain[closed].sum())
            later = (Xg[i + 1:] @ Mi) & ~closed[i + 1:]
            sub = const + Fi - mi - float(gain[i + 1:][later].sum())
            if sub >= upper:
                met.append(sub)
                continue
            children.append((int(i) + 1, closed, Mi, mi, sub, Fi))
        return head, children, met

    while stack:
        if node_limit is not None and state["nodes"] >= node_limit:
            return result("node_limit", min(s[4] for s in stack))
        if state["nodes"] % CHECK_EVERY == 0 and (
                deadline is not None and time.perf_counter() >= deadline
                or interrupt_requested()):
            return result("interrupted" if interrupt_requested() else "deadline",
                          min(s[4] for s in stack))
        first, inT, meet, m, _, floor, pd, lp = stack.pop()
        if pd is not None:
            # first the parent's duals: when they prune every child, no LP is needed here
            head, children, met = expand(first, inT, meet, m, floor, *pd)
            if children == []:
                state["bound"] = min(state["bound"], *met)
                continue
        state["nodes"] += 1
        size = int(meet.sum())
        if lp is None or size < SHRINK * lp.d:
            # a model over the meet's literals only, for this set's subtree
            lp = _CoverLP(Xc, wc, lit, max_length, np.flatnonzero(meet))
        value, base, neg = lp.bound(meet)
        F = max(value, floor)
        witness = None
        if const + F - m < upper and exact_node_limit:
            # the LP says the proof fails here: the cover IP may say otherwise
            state["exact"] += 1
            Fx, witness = lp.exact(meet, exact_node_limit)
            F = max(F, Fx)
        head, children, met = expand(first, inT, meet, m, F, base, neg)
        if children is None:
            # a set T whose own clauses may cost less than upper: the proof fails (its
            # subtree and the sets left on the stack keep their bounds)
            cand = candidates(first, inT, meet)
            below = head - gain[cand].sum() if len(cand) else math.inf
            state["bound"] = min(state["bound"], head)
            return result("failed", min([s[4] for s in stack] + [below]), witness)
        state["bound"] = min(state["bound"], *met)
        stack.extend((*c, (base, neg), lp) for c in reversed(children))   # largest gain first
    return result("")
