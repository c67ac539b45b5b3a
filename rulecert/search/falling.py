"""Falling (FRL) and softly falling (softFRL) rule lists: Monte-Carlo and exact searches.

Chen & Rudin, "An optimization approach to learning falling rule lists" (AISTATS 2018);
the mathematics is restated in ``shared/papers/frl_math.md``.

* :func:`frl_monte_carlo`, :func:`softfrl_monte_carlo` -- Algorithms FRL and softFRL
  (curiosity-weighted sampling, prefix bounds, stop probability, seeded);
* :func:`frl_branch_and_bound`, :func:`softfrl_branch_and_bound` -- exact best-first
  branch-and-bound with the same bounds plus captured-set dominance, certified;

Every function takes a :class:`~rulecert.problem.RuleProblem` (unweighted, both classes) and
returns ``(FallingRuleList, Certificate)``.  The brute-force reference is
:func:`rulecert.reference.brute_force_falling`.
Bad input: ``w <= 0``, ``C < 0``, ``C1 < 0``, one class only or sample weights raise
``ValueError`` before any work.  An antecedent set that captures nothing gives the valid
trivial list (the else clause alone), certified optimal: it is the only compatible list.
"""
from .falling_bnb import branch_and_bound, frl_branch_and_bound, softfrl_branch_and_bound
from .falling_mc import frl_monte_carlo, monte_carlo, softfrl_monte_carlo

__all__ = ["branch_and_bound", "frl_branch_and_bound", "softfrl_branch_and_bound",
           "monte_carlo", "frl_monte_carlo", "softfrl_monte_carlo"]
