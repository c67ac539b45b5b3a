"""The steps after the restricted IP, with one contract, and the loop that runs them.

A step is an *improver* (it may return a better rule set: it updates the restricted IP's
selection and adds the clauses as columns) or a *prover* (it yields :class:`.state.Proof`\\ s,
lower bounds with their kind).  Every step has the same small interface (:class:`Step`):

* ``applies(run, ip) -> bool`` -- whether the step has anything to do here (its switch, its
  budget, the form of the problem); what every step needs besides -- a solve not stopped by
  Ctrl-C, the callback or the memory cap, time left, and for a prover a gap still open --
  :func:`run_steps` checks once for all;
* ``run(run, ip, end) -> iterable of Proof or None`` -- the work, within ``end``, the
  :class:`~rulecert.limits.Deadline` the planner (:mod:`.plan`) hands it: its share of the time
  left when it starts.

Proofs go to one place only, :meth:`.state.Run.offer_bound`, which keeps the best and its
kind.  A prover's generator is resumed after each offer, so a step that tries several
thresholds sees the bound its earlier proofs raised.

:data:`STEPS`, in order: the dive and polishing (improvers), then the provers -- the search
over the whole small class, gap closing by reduced-cost enumeration, the packing bound, the
error-free cover LP, the positive-side proof, the Lagrangian descent with the time left, and
the positive-side proof deferred after it.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable

from .provers.lagrangian import (deferred_positive_side, deferred_positive_side_applies,
                           positive_side_applies, positive_side_search,
                           raise_bound_with_time_left, time_left_applies)
from .provers.cover_lp import cover_lp_bound
from .improvers.dive import dive, dive_applies
from .provers.gap_closing import close_gap, close_gap_applies, small_class_applies, solve_small_class
from .provers.packing import least_error_weight, packing_bound
from .plan import SHARES, share_of
from .improvers.polish import polish, polish_applies
from .restricted_ip import STOPPED, RestrictedIP, resolve_after_dive
from .state import BoundKind, Proof, Run, improving_clauses


@dataclasses.dataclass(frozen=True)
class Step:
    """One step after the restricted IP (the module doc gives the contract)."""

    name: str
    role: str
    """"improver" or "prover"."""
    applies: Callable[[Run, RestrictedIP], bool]
    run: Callable[..., Iterable[Proof] | None]
    share: Callable[[Run], float] | float = 1.0
    """Its share of the time left when it starts (the planner's :data:`.plan.SHARES`)."""


def run_steps(run: Run, ip: RestrictedIP, steps=None) -> None:
    """Run ``steps`` (default :data:`STEPS`) in order: each that applies, while the solve is
    not stopped and has time left (and, for a prover, its gap is open), gets its deadline and
    runs; every proof
    it yields is offered to :meth:`Run.offer_bound`.  ``run.steps`` records what each did."""
    for step in STEPS if steps is None else steps:
        why = _why_not(run, ip, step)
        if why is None:
            t0 = time.perf_counter()
            share = step.share(run) if callable(step.share) else step.share
            before = run.best_bound
            for proof in step.run(run, ip, share_of(run.end, share, t0)) or ():
                run.offer_bound(proof.bound, proof.kind, proof.detail)
            run.steps[step.name] = {"wall_time": time.perf_counter() - t0,
                                    "bound_before": before, "bound": run.best_bound}
        elif why != "does not apply":
            run.steps[step.name] = {"skipped": why}


def _why_not(run: Run, ip: RestrictedIP, step: Step) -> str | None:
    """Why ``step`` does not run (None: it runs)."""
    if run.stop in STOPPED or run.check_stop(step.name) is not None:
        return "the solve was stopped"
    if run.end.expired():
        return "no time left"
    if step.role == "prover" and not run.gap_open(ip.objective):
        return "the gap is closed"
    return None if step.applies(run, ip) else "does not apply"


# ---- the improvers ------------------------------------------------------------------------
def _dive(run: Run, ip: RestrictedIP, end) -> None:
    """The column-generation dive (:mod:`.improvers.dive`), then the restricted IP again over its
    columns too, from the better start."""
    run.master.to_lp()
    run.dive = dive(run, lambda duals: lambda inst, r: improving_clauses(run.st, duals, inst, r,
                                                                         run.o.tol), end)
    resolve_after_dive(run, ip)


# ---- the provers that need no pricing -----------------------------------------------------
def _least_error(run: Run) -> float:
    """One error's least weight, rounded as bounds are."""
    return run.st.round_bound(least_error_weight(run.st))


def _packing_applies(run: Run, ip: RestrictedIP) -> bool:
    """The bound is below one error's weight and the rule set found errs."""
    least = _least_error(run)
    return run.best_bound < least <= ip.objective


def _packing(run: Run, ip: RestrictedIP, end) -> Iterable[Proof]:
    """The packing bound (:mod:`.provers.packing`: no rule set of complexity ``<= C`` is
    error-free); its work is capped and it stops at ``end``.  Record: ``run.packing``."""
    pk = packing_bound(run.st, expired=end.expired)
    run.packing = pk.stats()
    yield Proof(pk.bound, BoundKind.PACKING, pk.reason)


def _error_free_applies(run: Run, ip: RestrictedIP) -> bool:
    """Its budget is not 0, the packing bound ran to its end and the bound is still below
    one error's weight."""
    return (run.o.certification.error_free_cover_lps != 0 and run.packing is not None
            and not run.packing["stopped"] and _packing_applies(run, ip))


def _error_free_share(run: Run) -> float:
    """All the time left where the LP ceiling already is the bound (nothing after it can
    gain), else the planner's share."""
    top = run.lp_ceiling()
    return 1.0 if top is not None and top <= run.best_bound else SHARES["error-free cover LP"]


def _error_free(run: Run, ip: RestrictedIP, end) -> Iterable[Proof]:
    """The error-free cover LP bound (:mod:`.provers.cover_lp`), seeded with the master's columns,
    with ``error_free_cover_lps`` cover LPs.  Record: ``run.error_free_lp``."""
    cl = cover_lp_bound(run.st, run.o.certification.error_free_cover_lps, seeds=run.st.clauses,
                        deadline=end.end, workers=run.o.workers,
                        should_stop=run.monitor.should_stop)
    run.error_free_lp = cl.stats()
    yield Proof(cl.bound, BoundKind.ERROR_FREE_COVER_LP, cl.reason)
    run.check_stop("the error-free cover LP", overriding=True)


STEPS = (
    Step("dive", "improver", dive_applies, _dive, SHARES["dive"]),
    Step("polish", "improver", polish_applies, polish, SHARES["polish"]),
    Step("whole small class", "prover", small_class_applies, solve_small_class),
    Step("gap closing", "prover", close_gap_applies, close_gap),
    Step("packing", "prover", _packing_applies, _packing),
    Step("error-free cover LP", "prover", _error_free_applies, _error_free, _error_free_share),
    Step("positive side", "prover", positive_side_applies, positive_side_search,
         SHARES["positive side"]),
    Step("descent with the time left", "prover", time_left_applies, raise_bound_with_time_left),
    Step("positive side after the descent", "prover", deferred_positive_side_applies,
         deferred_positive_side),
)
"""The steps after the restricted IP, in the order :func:`run_steps` runs them."""
