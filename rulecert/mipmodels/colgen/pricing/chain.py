"""The pricing chain of one column-generation iteration: pricers tried in turn, by name.

:data:`CHAINS` gives, for each ``pricers`` option, the pricers in the order they are tried;
:data:`PRICERS` maps each name to the function that runs it on one instance.  A pricer is
tried only when the previous ones found no improving clause.  Past ``sample_rows`` distinct
samples every pricer first runs on the paper's random sample, then on the full data; only
pricers run on the full data raise the pricing bound.  See :mod:`rulecert.mipmodels.colgen.loop`
for the method.
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import Callable

import numpy as np

from ....monitor import interrupt_requested
from .beam import beam_pricing
from .bnb import bnb_pricing
from .cpsat import cpsat_pricing
from .heuristic import heuristic_pricing
from .instance import PricingInstance, PricingResult, make_instance, single_literal_bound

BEAM_WIDENING = 1024
"""A beam search that finds nothing is retried with its width doubled up to this factor
(5120 at the default width 5): a wide beam can find improving clauses cheaply where
narrower ones find nothing and the branch-and-bound over short clauses takes long.  A search
that never truncates its beam stops widening (a wider one would not differ).  Where the wide
beam keeps failing, ``adaptive_chain`` (``short_first``) puts the short branch-and-bound
before it instead."""

BEAM_NODE_SCALE = 15.0
"""One branch-and-bound node costs about ``d / BEAM_NODE_SCALE`` beam children on ``d``
features (both scan the candidates' coverages; a node scans every candidate)."""
ADAPTIVE_WINDOW = 20
"""``short_first`` learns from the last this many calls of each pricer."""
ADAPTIVE_LEAST = 3
"""... and only once each has been called this many times."""


def short_first(log: list, d: int) -> bool:
    """Whether the short branch-and-bound should now run before the beam search
    (``adaptive_chain``), from the pricing ``log`` of this solve: with ``c`` the mean work of
    a call (branch-and-bound nodes; beam children in nodes, ``BEAM_NODE_SCALE``) and ``p``
    the share of calls that found improving clauses, each over the last ``ADAPTIVE_WINDOW``
    calls, the expected work of a round that tries the beam first is ``c_b + (1 - p_b) c_s``
    and ``c_s + (1 - p_s) c_b`` the other way round.  The short search runs first when that
    is less.  Counted work, not time: a fit on counted limits stays reproducible."""
    calls = {}
    for m in ("beam", "bnb-short"):
        es = [e for e in log if e["method"] == m][-ADAPTIVE_WINDOW:]
        if len(es) < ADAPTIVE_LEAST:
            return False
        work = sum(e["work"] for e in es) / len(es)
        calls[m] = (work * BEAM_NODE_SCALE / d if m == "beam" else work,
                    sum(e["found"] > 0 for e in es) / len(es))
    (cb, pb), (cs, ps) = calls["beam"], calls["bnb-short"]
    return cs + (1.0 - ps) * cb < cb + (1.0 - pb) * cs


CHAINS = {
    "auto": ("heuristic", "beam", "bnb-short", "bnb", "cp-sat"),
    "exact": ("cp-sat", "heuristic"),
    "bnb": ("heuristic", "beam", "bnb-short", "bnb"),
    "heuristic": ("heuristic",),
}
"""``pricers`` option -> the pricers of the chain, in order."""
PRICING_MODES = tuple(CHAINS)


@dataclasses.dataclass
class _Call:
    """One pricer call: the options, the instance, its limits and the hint so far."""

    o: object
    """The :class:`~rulecert.mipmodels.colgen.options.ColGenOptions` of the solve."""
    inst: PricingInstance
    start: float
    time_limit: float | None
    """This call's wall-clock share (``pricing_seconds`` capped by the time left)."""
    cg_end: float | None
    """End of the column-generation phase (a ``time.perf_counter()`` value)."""
    hint: tuple | None
    iteration: int
    monitor: object = None
    """The solve's :class:`~rulecert.monitor.Monitor` (the CP-SAT pricer stops on its callback
    and memory cap too, not only on Ctrl-C)."""

    @property
    def deadline(self) -> float | None:
        return None if self.time_limit is None else self.start + self.time_limit


def _heuristic(c: _Call):
    o = c.o
    r = heuristic_pricing(c.inst, threshold=-o.tol, max_length=o.pricing._heuristic_max_length,
                          max_generated=o.pricing._heuristic_max_generated,
                          max_return=o.pricing.columns_per_iter, deadline=c.cg_end)
    return r, c.inst, r.best_clause


def _beam(c: _Call):
    # a heuristic: its bound is -inf, so it never raises zlb nor ends the loop
    o, inst, hint = c.o, c.inst, c.hint
    r = beam_pricing(inst, threshold=-o.tol, beam_width=o.pricing.beam_width,
                     max_return=o.pricing.columns_per_iter, deadline=c.deadline,
                     max_width=BEAM_WIDENING * o.pricing.beam_width)
    if r.best_clause is not None and (
            hint is None or inst.reduced_cost(r.best_clause) < inst.reduced_cost(hint)):
        hint = r.best_clause
    return r, inst, hint


def _bnb_on(c: _Call, inst: PricingInstance) -> PricingResult:
    o = c.o
    return bnb_pricing(inst, threshold=-o.tol, max_return=o.pricing.columns_per_iter,
                       node_limit=o.pricing.pricing_nodes, deadline=c.deadline,
                       found_node_limit=o.pricing._found_nodes, workers=o.workers)


def _bnb_short(c: _Call):
    # exact over clauses of at most _heuristic_max_length literals: finds good columns fast
    # when D is large; its bound says nothing about longer clauses
    inst = c.inst
    short = PricingInstance(inst.X, inst.v, inst.const, inst.lit, c.o.pricing._heuristic_max_length,
                            inst.features, exact=False)
    r = _bnb_on(c, short)
    r.method = "bnb-short"
    return r, short, c.hint if r.best_clause is None else r.best_clause


def _bnb(c: _Call):
    r = _bnb_on(c, c.inst)
    return r, c.inst, c.hint if r.best_clause is None else r.best_clause


def _cpsat(c: _Call):
    o, inst, hint = c.o, c.inst, c.hint
    if hint is None and o.pricing.pricers == "exact":
        hint = heuristic_pricing(inst, threshold=-o.tol, max_length=2,
                                 max_generated=200, max_return=1).best_clause
    r = cpsat_pricing(inst, time_limit=c.time_limit,
                      deterministic_time=o.pricing.pricing_deterministic_time, workers=o.workers,
                      seed=o.seed + c.iteration, hint=hint, threshold=-o.tol,
                      max_return=o.pricing.columns_per_iter, monitor=c.monitor)
    return r, inst, hint


PRICERS: dict[str, Callable] = {"heuristic": _heuristic, "beam": _beam, "bnb-short": _bnb_short,
                                "bnb": _bnb, "cp-sat": _cpsat}
"""Pricer name -> ``f(call) -> (PricingResult, instance priced, hint for the next pricer)``."""
TIME_KEYS = {"heuristic": "pricing_heuristic", "beam": "pricing_beam",
             "bnb-short": "pricing_bnb", "bnb": "pricing_bnb", "cp-sat": "pricing_cpsat"}
"""Pricer name -> its entry in the solve's ``stats["time"]``."""


@dataclasses.dataclass
class PricingRound:
    """What one pass of the chain returns."""

    clauses: list[tuple[int, ...]]
    """New improving clauses (full-data feature indices), best first."""
    bound: float
    """``z_CG``: the best proven lower bound on every clause's reduced cost."""
    bound_kind: str
    last: PricingResult | None
    """The last pricer's result (its termination explains an empty round)."""
    sampled: bool
    """The pricers ran on a random sample first."""


def price(X: np.ndarray, v: np.ndarray, const: float, lit: float, D: int, o, *,
          rng: np.random.Generator, iteration: int, cg_deadline,
          improving: Callable[[PricingInstance, PricingResult], list],
          times: dict, calls: dict, log: list, monitor=None,
          history: list | None = None) -> PricingRound:
    """Run the chain of ``o.pricing.pricers`` on the instance ``(X, v, const, lit, D)``.

    ``cg_deadline`` is the column-generation phase's :class:`~rulecert.limits.Deadline`;
    ``improving(inst, result)`` turns a pricer's result into the new clauses of the master
    (mapped to full-data features, made irredundant, re-priced, deduplicated).  ``times``,
    ``calls`` and ``log`` are the solve's records, updated in place; ``adaptive_chain``
    orders the chain by ``history`` (default: ``log``).
    """
    d = X.shape[1]
    full = PricingInstance(X, v, const, lit, D, np.arange(d), exact=True)
    zlb, zkind = single_literal_bound(full), "single-literal"
    big = o.pricing.sample_rows is not None and X.shape[0] > o.pricing.sample_rows  # the paper's medium/large data
    insts = [make_instance(X, v, const, lit, D, rng=rng, sample_rows=o.pricing.sample_rows,
                           max_nonzeros=o.pricing.max_nonzeros)] if big else []
    insts.append(full)
    chain = CHAINS[o.pricing.pricers]
    # (short_first needs calls of both: never true in a chain without them, or where the
    # short search does not run)
    if o.pricing.adaptive_chain and short_first(log if history is None else history, d):
        chain = tuple({"beam": "bnb-short", "bnb-short": "beam"}.get(m, m) for m in chain)
    plan = [(i, m) for i in insts for m in chain
            if m != "bnb-short" or D > o.pricing._heuristic_max_length]
    new: list[tuple[int, ...]] = []
    hint = None
    last = None
    for inst, method in plan:
        if cg_deadline.expired() or interrupt_requested():
            break
        tp = time.perf_counter()
        ptl = o.pricing.pricing_seconds
        rem = cg_deadline.remaining(-math.inf)
        if rem is not None:
            ptl = rem if ptl is None else min(ptl, rem)
        r, inst, hint = PRICERS[method](_Call(o, inst, tp, ptl, cg_deadline.end, hint, iteration,
                                              monitor))
        times[TIME_KEYS[method]] += time.perf_counter() - tp
        calls[r.method] = calls.get(r.method, 0) + 1
        last = r
        log.append({"iteration": iteration, "method": r.method, "exact_instance": inst.exact,
                    "found": len(r.clauses), "best": r.reduced_costs[0] if r.reduced_costs else None,
                    "bound": r.bound, "complete": r.complete, "work": r.generated,
                    "time": r.wall_time, "termination": r.termination.value if r.termination else None})
        if inst.exact and r.bound > zlb:
            zlb, zkind = r.bound, r.method
        new = improving(inst, r)
        if new:
            break
        if inst.exact and zlb >= -o.tol:
            break
    return PricingRound(new, zlb, zkind, last, big)
