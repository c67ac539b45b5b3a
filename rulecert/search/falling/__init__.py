"""Falling (FRL) and softly falling (softFRL) rule lists: Monte-Carlo and exact searches.

Chen & Rudin, "An optimization approach to learning falling rule lists" (AISTATS 2018);
the mathematics is restated in ``shared/papers/frl_math.md``.

* :func:`solve` -- the one entry point: Monte-Carlo, exact, or (default) Monte-Carlo whose
  list seeds the exact search, under one deadline for both;
* :mod:`.mc` -- Algorithms FRL and softFRL (curiosity-weighted sampling, prefix bounds, stop
  probability, seeded): ``solve(..., method="monte_carlo")``;
* :mod:`.bnb` -- exact best-first branch-and-bound with the same bounds plus captured-set
  dominance, certified: ``solve(..., method="exact")``;
* :func:`prefix_bound` and :mod:`.bounds` -- class-split packed data, the prefix bounds of Theorems 4.6 / 5.2 and the
  evaluation of all children of a prefix at once.

:func:`solve` takes a :class:`~rulecert.problem.RuleProblem` (unweighted, both classes) and
returns a :class:`FallingSolution` (unpacks as ``(FallingRuleList, Certificate)``).  The
brute-force reference is :func:`rulecert.reference.brute_force_falling`.
Bad input: ``w <= 0``, ``C < 0``, ``C1 < 0``, one class only, sample weights or
``time_limit <= 0`` raise ``ValueError`` before any work.  An antecedent set that captures
nothing gives the valid trivial list (the else clause alone), certified optimal: it is the
only compatible list.
"""
from __future__ import annotations

import dataclasses

from ...certificate import Certificate, Solution, Termination
from ...limits import AUTO, DEFAULT_SEED, Deadline, check_time_limit, resolve_memory_limit_mb
from ...monitor import catch_interrupt, interrupt_requested
from ...models.falling import FallingRuleList
from ... import _compat
from . import bnb, mc
from .bounds import prefix_bound

METHODS = ("monte_carlo", "exact", "both")
"""``solve``'s methods: Algorithm FRL / softFRL alone, the exact search alone, or both."""


@dataclasses.dataclass(frozen=True)
class FallingSolution(Solution):
    """What :func:`solve` returns; unpacks as ``model, certificate = solve(...)``.

    ``certificate`` is the final search's (the exact one when it ran);
    ``monte_carlo_certificate`` is the Monte-Carlo search's (the same object as
    ``certificate`` for ``method="monte_carlo"``, ``None`` for ``method="exact"``).
    """

    model: FallingRuleList
    certificate: Certificate
    monte_carlo_certificate: Certificate | None = None


def solve(problem, program: str = "frl", w: float = 7.0, C: float = 1e-6, C1=None, *,
          method: str = "both", iterations: int | None = None, prob_terminate: float = 0.01,
          lam: float = 0.8, seed: int | None = DEFAULT_SEED, max_length: int | None = None,
          time_limit: float | None = None, node_limit: int | None = None,
          deadline: Deadline | None = None, memory_limit_mb: float | str | None = AUTO,
          callback=None, history_every: float = 1.0) -> FallingSolution:
    """A falling (``program="frl"``) or softly falling (``"softfrl"``, needs ``C1``) rule list.

    ``method="monte_carlo"`` runs the Monte-Carlo search ``mc.monte_carlo`` (``iterations``,
    ``prob_terminate``, ``lam``, ``seed``); ``"exact"`` runs the branch-and-bound
    ``bnb.branch_and_bound`` (``max_length``, ``node_limit``); ``"both"`` runs the
    Monte-Carlo search and seeds the exact search with its list.  ``time_limit`` (seconds, > 0) bounds the whole call, each search getting what
    remains; a caller whose fit started earlier passes its own started ``deadline`` instead.
    ``iterations`` and ``node_limit`` are the deterministic limits (with the same ``seed`` the
    same list comes back).  ``memory_limit_mb`` (``"auto"``: the default cap, ``None``: none)
    caps both searches; ``callback`` gets the info dict of :mod:`rulecert.monitor` from both
    (returning True stops).  Ctrl-C during the Monte-Carlo search returns its best list
    (termination INTERRUPTED) without starting the exact search; during the exact search, the
    incumbent with the bound proven so far.
    Returns a :class:`FallingSolution` (unpacks as ``(FallingRuleList, Certificate)``).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if deadline is None:
        deadline = Deadline(check_time_limit(time_limit, "time_limit", allow_zero=False))
    elif time_limit is not None:
        raise ValueError("give time_limit or a started deadline, not both")
    memory_limit_mb = resolve_memory_limit_mb(memory_limit_mb)
    watch = dict(memory_limit_mb=memory_limit_mb, callback=callback, history_every=history_every)
    model = mc_cert = cert = None
    with catch_interrupt():
        if method in ("monte_carlo", "both"):
            model, mc_cert = mc.monte_carlo(problem, program, w, C, C1, iterations=iterations,
                                         prob_terminate=prob_terminate, lam=lam, seed=seed,
                                         time_limit=deadline.remaining(), **watch)
            cert = mc_cert
        if method == "exact" or method == "both" and not _stopped_by_user(mc_cert):
            model, cert = bnb.branch_and_bound(problem, program, w, C, C1, max_length=max_length,
                                           time_limit=deadline.remaining(),
                                           node_limit=node_limit, incumbent=model, **watch)
    return FallingSolution(model, cert, mc_cert)


def _stopped_by_user(cert) -> bool:
    """Ctrl-C or the callback stopped this search: the next one must not start."""
    return interrupt_requested() or cert.termination is Termination.INTERRUPTED


__all__ = ["solve", "FallingSolution", "METHODS", "prefix_bound"]

__getattr__ = _compat.renamed(__name__)
