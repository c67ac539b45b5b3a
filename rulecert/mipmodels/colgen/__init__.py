"""Boolean rule sets (DNF / CNF) by column generation with a certified gap.

``solve(problem, options) -> (RuleSet, Certificate)``; see :mod:`.loop` for the method and
the bounds, :mod:`.master` for the restricted master in HiGHS, :mod:`.pricing` for the
heuristic, branch-and-bound and CP-SAT pricing, :mod:`.beam` for the beam-search pricing and :mod:`.bnb` for the exact search.
"""
from .bnb import BnBResult, branch_and_bound
from .loop import ColGenOptions, solve
from .master import RestrictedMaster
from .beam import beam_pricing
from .pricing import (PricingInstance, PricingResult, bnb_pricing, cpsat_pricing,
                      heuristic_pricing, make_instance, single_literal_bound)

__all__ = ["ColGenOptions", "solve", "RestrictedMaster", "PricingInstance", "PricingResult",
           "beam_pricing", "bnb_pricing", "cpsat_pricing", "heuristic_pricing", "make_instance",
           "single_literal_bound", "branch_and_bound", "BnBResult"]
