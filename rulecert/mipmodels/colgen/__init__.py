"""Boolean rule sets (DNF / CNF) by column generation with a certified gap.

``solve(problem, options) -> ColgenSolution`` (unpacks as ``(RuleSet, Certificate)``); see
:mod:`.loop` for the method and its phases, :mod:`.master` for the restricted master in
HiGHS, :mod:`.pricing` for the pricers (heuristic, beam, branch-and-bound, CP-SAT) and their
chain, :mod:`.bounds` for the bound arithmetic, :mod:`.restricted_ip` for the restricted IP
and its warm starts (:mod:`.localsearch`); ``strengthen_bound`` (:mod:`.strengthen`) raises
the bound of a stopped solve by counted work; ``certification_options`` (:mod:`.presets`)
gives the counted limits of a certification run.
"""
from .loop import BoundState, ColgenSolution, ColGenOptions, solve
from .master import RestrictedMaster
from .presets import certification_options
from .restricted_ip import LIGHT_IP_OPTIONS
from .strengthen import strengthen_bound
from .pricing import (BnBResult, PricingInstance, PricingResult, beam_pricing, bnb_pricing,
                      cpsat_pricing, heuristic_pricing, make_instance,
                      price_by_branch_and_bound, single_literal_bound)

__all__ = ["ColGenOptions", "ColgenSolution", "BoundState", "solve", "strengthen_bound",
           "certification_options",
           "RestrictedMaster", "PricingInstance", "PricingResult", "beam_pricing", "bnb_pricing", "cpsat_pricing", "heuristic_pricing",
           "make_instance", "single_literal_bound", "price_by_branch_and_bound", "BnBResult",
           "LIGHT_IP_OPTIONS"]
