"""Boolean rule sets (DNF / CNF) by column generation with a certified gap.

``solve(problem, options) -> ColgenSolution`` (unpacks as ``(RuleSet, Certificate)``).  The
floor plan, in the order of a solve:

* :mod:`.options`: ``ColGenOptions`` in frozen groups (model, limits, pricing, primal
  steps, certification steps), checked when built; :mod:`.presets`: the effort levels;
* :mod:`.state`: the instance as the solve sees it (grouped samples, ``C``, ``D``);
* :mod:`.loop`: the method and its phases (the module doc), the column-generation loop and
  the certificate;
* :mod:`.master`: the restricted master LP / IP in HiGHS;
* :mod:`.pricing`: the pricers (heuristic, beam, branch-and-bound, CP-SAT) and their chain;
* :mod:`.bounds`: the bound arithmetic; :mod:`.bound_search`: the searches that raise the
  bound during column generation and at its end;
* :mod:`.restricted_ip`: the restricted IP and its warm starts (:mod:`.localsearch`);
* :mod:`.dive`: the column-generation dive (a primal heuristic);
* :mod:`.polish`: local search over literals from the restricted IP's rule set, reaching
  clauses no pricing round generated (a primal heuristic);
* :mod:`.gap_closing`: gap closing by reduced-cost enumeration;
* :mod:`.strengthen`: ``strengthen_bound`` raises the bound of a stopped solve by counted
  work.
"""
from .loop import BoundState, ColgenSolution, solve
from .state import BoundKind
from .options import (CertificationSteps, ColGenOptions, Limits, ModelSpec, PricingOptions,
                      PrimalSteps, SOLVER_OPTIONS, resolve)
from .master import RestrictedMaster
from .presets import EFFORTS, effort_settings
from .restricted_ip import LIGHT_IP_OPTIONS
from .strengthen import strengthen_bound
from .pricing import (BnBResult, PricingInstance, PricingResult, beam_pricing, bnb_pricing,
                      cpsat_pricing, heuristic_pricing, make_instance,
                      price_by_branch_and_bound, single_literal_bound)

__all__ = ["ColGenOptions", "ModelSpec", "Limits", "PricingOptions", "PrimalSteps",
           "CertificationSteps", "SOLVER_OPTIONS", "EFFORTS", "effort_settings", "resolve",
           "BoundKind", "ColgenSolution", "BoundState", "solve", "strengthen_bound",
           "RestrictedMaster", "PricingInstance", "PricingResult", "beam_pricing", "bnb_pricing", "cpsat_pricing", "heuristic_pricing",
           "make_instance", "single_literal_bound", "price_by_branch_and_bound", "BnBResult",
           "LIGHT_IP_OPTIONS"]
