"""Solver-vs-solver agreement: the CORELS branch-and-bound against the rule-list MIP on one problem.

The top of the solver layers: it imports the solvers and :mod:`rulecert.reference`, and
nothing in the package imports it back except the estimators and the CLI.

Both solvers minimize the same objective (``mistakes / N + c * rules``) over the same rule
lists.  They *agree* when

* both proved optimality and their optimal objectives are equal -- compared exactly, as
  ``mistakes * q + p * N * rules`` for ``c = p / q`` (:func:`~rulecert.mipmodels.rulelist.c_fraction`), so
  two different optimal lists with tied objectives agree, and the record says whether the
  mistakes and rule counts are identical too;
* otherwise (a limit stopped one of them) each proven lower bound is at most the other's
  incumbent objective (within the certificates' tolerances).

A disagreement is a bug to find, not a tolerance to widen: the result keeps both rule lists
and certificates.

Unless ``max_rules`` is given, the MIP gets as many positions as the prefix-length bound
computed from the CORELS incumbent (JMLR Theorem 6 / Corollary 5, refined with equivalent
points), so it solves the unrestricted problem exactly; with ``max_rules`` both solvers are
restricted to lists of at most that many rules (CORELS through ``max_length``).

Both halves run under one ``rulecert.monitor.catch_interrupt``: one Ctrl-C stops the half
that is running and the other one too (a MIP not yet started returns the CORELS list as its
incumbent, without solving), both certificates then say ``interrupted``.
"""
from __future__ import annotations

import dataclasses
import inspect
from fractions import Fraction
from typing import Any, Callable

from .certificate import Certificate, Termination
from .limits import DEFAULT_SEED, resolve_memory_limit_mb
from .monitor import catch_interrupt, request_interrupt
from .mipmodels import rulelist
from .mipmodels.rulelist import c_fraction, group_data, prefix_length_bound
from .mipmodels.rulelist.formulation import check_size
from .models.rulelist import RuleList, rule_list_objective
from .search import corels


@dataclasses.dataclass
class CrossCheckResult:
    """Outcome of :func:`crosscheck_rule_list`."""

    agree: bool
    """True when the two solvers are consistent (see the module docstring)."""
    verdict: str
    """"agree" (both proven, same optimum), "consistent" (bounds consistent, not both
    proven), "disagree", or "error" (a solver failed: nothing could be compared)."""
    reason: str
    c: float
    max_rules: int
    """Number of positions the MIP was given."""
    restricted: bool
    """True when both solvers were restricted to ``max_rules`` rules by the caller."""
    reference_name: str
    reference_rule_list: RuleList | None
    reference_certificate: Certificate
    mip_rule_list: RuleList | None
    mip_certificate: Certificate
    same_mistakes_and_rules: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        def rl(r):
            return None if r is None else r.to_dict()
        return {"agree": self.agree, "verdict": self.verdict, "reason": self.reason,
                "c": self.c, "max_rules": self.max_rules, "restricted": self.restricted,
                "same_mistakes_and_rules": self.same_mistakes_and_rules,
                "reference": {"name": self.reference_name,
                              "rule_list": rl(self.reference_rule_list),
                              "certificate": self.reference_certificate.to_dict()},
                "mip": {"rule_list": rl(self.mip_rule_list),
                        "certificate": self.mip_certificate.to_dict()}}

    def summary(self) -> str:
        def fmt(x):
            return "none" if x is None else f"{x:.10f}"
        rc, mc = self.reference_certificate, self.mip_certificate
        lines = [f"cross-check at c={self.c}: {self.verdict.upper()} - {self.reason}",
                 f"  {self.reference_name:<8} objective {fmt(rc.objective)}  bound {fmt(rc.lower_bound)}  "
                 f"{rc.termination.value}  ({rc.wall_time:.2f} s)",
                 f"  {'mip':<8} objective {fmt(mc.objective)}  bound {fmt(mc.lower_bound)}  "
                 f"{mc.termination.value}  ({mc.wall_time:.2f} s, {mc.solver}, K={self.max_rules})"]
        if self.reference_rule_list is not None:
            lines += [f"{self.reference_name} rule list:",
                      *("  " + s for s in self.reference_rule_list.to_text().splitlines())]
        if self.mip_rule_list is not None:
            lines += ["MIP rule list:", *("  " + s for s in self.mip_rule_list.to_text().splitlines())]
        return "\n".join(lines)


def _corels_reference(problem, c, *, max_length, time_limit, **watch):
    """CORELS with the run-watching keywords it takes (``node_limit``, ``callback``,
    ``memory_limit_mb``, ``history_every``)."""
    params = inspect.signature(corels.solve).parameters
    return corels.solve(problem, c, max_length=max_length, time_limit=time_limit,
                  **{k: v for k, v in watch.items() if k in params})


def _exact_value(problem, rule_list, c):
    """Objective as an exact rational (integral masses), else None."""
    s = rule_list_objective(rule_list, problem, c)
    G = group_data(problem)
    if not G.integral:
        return s, None
    return s, Fraction(int(round(s.mistakes)), int(G.N)) + c_fraction(c) * s.n_rules


def crosscheck_rule_list(problem, c: float, max_rules: int | None = None, backend: str = "highs",
                         time_limit: float | None = None, *, cuts=True, seed: int = DEFAULT_SEED,
                         reference: Callable | None = None, reference_name: str = "corels",
                         node_limit: int | None = None, mip_node_limit: int | None = None,
                         deterministic_time: float | None = None, callback=None,
                         memory_limit_mb="auto", history_every: float = 1.0) -> CrossCheckResult:
    """Run CORELS and the rule-list MIP on ``problem`` and compare (see module docstring).

    ``time_limit`` applies to each solver separately.  ``reference`` replaces CORELS by any
    callable with CORELS's call shape ``f(problem, c, max_length=, time_limit=) ->
    (RuleList, Certificate)`` (used in tests with brute force).  Bad input, and a problem whose
    MIP exceeds the backend's size limit even with the fewest positions, raise ``ValueError``
    before either solver runs.

    Deterministic limits: ``node_limit`` (CORELS expansions), ``mip_node_limit`` (HiGHS
    branch-and-bound nodes), ``deterministic_time`` (CP-SAT).  ``callback`` (the progress info
    dict of :mod:`rulecert.monitor`, returning True stops), ``memory_limit_mb`` ("auto": the
    default cap) and ``history_every`` go to both solvers.  One Ctrl-C stops both halves.
    """
    c = problem.check_regularization(c)
    problem.check_two_classes()
    if max_rules is not None and (isinstance(max_rules, bool) or not isinstance(max_rules, int)
                                  or max_rules < 1):
        raise ValueError(f"max_rules must be a positive integer or None, got {max_rules!r}")
    mem = resolve_memory_limit_mb(memory_limit_mb)
    check_size(problem, backend, max_rules or 1)  # the MIP's fewest positions: before any work
    with catch_interrupt():
        if reference is None:
            ref_list, ref_cert = _corels_reference(
                problem, c, max_length=max_rules, time_limit=time_limit, node_limit=node_limit,
                callback=callback, memory_limit_mb=mem, history_every=history_every)
        else:
            ref_list, ref_cert = reference(problem, c, max_length=max_rules,
                                           time_limit=time_limit)
        if ref_cert.termination is Termination.INTERRUPTED:
            request_interrupt()  # stopped by Ctrl-C or the callback: the MIP half stops too
        return _mip_half(problem, c, max_rules, backend, time_limit, cuts, seed, ref_list,
                         ref_cert, reference_name, mip_node_limit, deterministic_time, callback,
                         mem, history_every)


def _mip_half(problem, c, max_rules, backend, time_limit, cuts, seed, ref_list, ref_cert,
              reference_name, node_limit, deterministic_time, callback, mem, history_every):
    """The MIP half (its positions from the reference's incumbent) and the comparison."""
    G = group_data(problem)
    M = problem.n_antecedents
    if max_rules is not None:
        K = max_rules
    else:
        if ref_list is not None and ref_cert.objective is not None:
            s = rule_list_objective(ref_list, problem, c)
            L, _ = prefix_length_bound(G, c, s.mistakes, s.n_rules, M)
        else:  # no incumbent: Corollary 5 from the default-only list
            p, n = int(problem.n_positive), problem.n_samples - int(problem.n_positive)
            L, _ = prefix_length_bound(G, c, min(p, n) if G.integral else min(
                float(G.pos.sum()), float(G.neg.sum())), 0, M)
        K = max(1, L)
    warm = ref_list if ref_list is not None else "greedy"
    mip = rulelist.solve(problem, c, max_rules=K, backend=backend, time_limit=time_limit,
                            warm_start=warm, cuts=cuts, seed=seed, node_limit=node_limit,
                            deterministic_time=deterministic_time, callback=callback,
                            memory_limit_mb=mem, history_every=history_every)
    mip_list, mip_cert = mip
    verdict, reason, same = _compare(problem, c, ref_list, ref_cert, mip_list, mip_cert,
                                     reference_name, max_rules is not None,
                                     mip.exact_for_unrestricted)
    return CrossCheckResult(verdict in ("agree", "consistent"), verdict, reason, c, K,
                            max_rules is not None, reference_name, ref_list, ref_cert,
                            mip_list, mip_cert, same)


def _compare(problem, c, ref_list, ref_cert, mip_list, mip_cert, ref_name, restricted,
             mip_exact_for_unrestricted):
    for name, cert in ((ref_name, ref_cert), ("mip", mip_cert)):
        if cert.termination is Termination.ERROR:
            return "error", f"{name} reported an error: {cert.message}", None
    # the objectives each solver reports must be those of the lists they returned
    for name, rl, cert in ((ref_name, ref_list, ref_cert), ("mip", mip_list, mip_cert)):
        if (rl is None) != (cert.objective is None):
            return "disagree", f"{name} returned a rule list and an objective inconsistently", None
        if rl is not None:
            s = rule_list_objective(rl, problem, c)
            if abs(s.objective - cert.objective) > max(cert.abs_tol, 1e-9):
                return ("disagree", f"{name} reports objective {cert.objective!r} but its rule list "
                        f"scores {s.objective!r}", None)
    if not restricted and not mip_exact_for_unrestricted:
        return ("disagree", "the MIP was not exact for the unrestricted problem although its "
                "positions came from the prefix-length bound", None)
    tol = max(ref_cert.abs_tol, mip_cert.abs_tol, 1e-9)
    both = ref_cert.proven_optimal and mip_cert.proven_optimal
    if both:
        rs, rv = _exact_value(problem, ref_list, c)
        ms, mv = _exact_value(problem, mip_list, c)
        same = (round(rs.mistakes, 9), rs.n_rules) == (round(ms.mistakes, 9), ms.n_rules)
        equal = (rv == mv) if rv is not None else abs(rs.objective - ms.objective) <= tol
        if equal:
            detail = ("same mistakes and rule count" if same else
                      f"tied optima: {ref_name} {rs.mistakes:g} mistakes / {rs.n_rules} rules, "
                      f"MIP {ms.mistakes:g} mistakes / {ms.n_rules} rules")
            return "agree", f"both proven optimal with objective {ms.objective:.10f} ({detail})", same
        return ("disagree", f"both proven optimal but {ref_name} has {rs.mistakes:g} mistakes / "
                f"{rs.n_rules} rules (objective {rs.objective!r}) and the MIP {ms.mistakes:g} / "
                f"{ms.n_rules} (objective {ms.objective!r})", same)
    problems = []
    if ref_cert.objective is not None and mip_cert.lower_bound > ref_cert.objective + tol:
        problems.append(f"MIP bound {mip_cert.lower_bound!r} > {ref_name} objective {ref_cert.objective!r}")
    if mip_cert.objective is not None and ref_cert.lower_bound > mip_cert.objective + tol:
        problems.append(f"{ref_name} bound {ref_cert.lower_bound!r} > MIP objective {mip_cert.objective!r}")
    if ref_cert.proven_optimal and mip_cert.objective is not None and \
            mip_cert.objective < ref_cert.objective - tol:
        problems.append(f"MIP found {mip_cert.objective!r} below {ref_name}'s proven optimum "
                        f"{ref_cert.objective!r}")
    if mip_cert.proven_optimal and ref_cert.objective is not None and \
            ref_cert.objective < mip_cert.objective - tol:
        problems.append(f"{ref_name} found {ref_cert.objective!r} below the MIP's proven optimum "
                        f"{mip_cert.objective!r}")
    if problems:
        return "disagree", "; ".join(problems), None
    who = [n for n, ce in ((ref_name, ref_cert), ("mip", mip_cert)) if not ce.proven_optimal]
    return ("consistent", f"not proven by {', '.join(who)}: each bound is consistent with the "
            "other's incumbent", None)


__all__ = ["crosscheck_rule_list", "CrossCheckResult"]
