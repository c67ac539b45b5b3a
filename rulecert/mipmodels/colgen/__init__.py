"""Boolean rule sets (DNF / CNF) by column generation with a certified gap.

``solve(problem, options, **settings) -> ColGenSolution`` (unpacks as ``(RuleSet,
Certificate)``).  The spine of a solve (``loop.solve``): set up, iterate (master LP, pricing
chain, bound, stop test), restricted IP, then the steps (``steps.STEPS``: improvers, then
provers), finish.  The floor plan, in that order:

* :mod:`.options`: ``ColGenOptions`` in frozen groups (model, limits, pricing, primal steps,
  certification steps), checked when built; :mod:`.presets`: the effort levels;
* :mod:`.state`: the instance as the solve sees it (grouped samples, ``C``, ``D``), the run's
  state and the one place a bound is accepted (``Run.offer_bound``, kinds in ``BoundKind``);
* :mod:`.plan`: the planner, every share of the time limit in one table;
* :mod:`.loop`: the method (the module doc), the spine, the iteration and the certificate;
* :mod:`.master`: the restricted master LP / IP in HiGHS; :mod:`.bounds`: the bound
  arithmetic (Lagrangian, knapsacks, the complexity-dual descent);
* :mod:`.pricing`: the pricers (heuristic, beam, branch-and-bound, CP-SAT) and their chain;
* :mod:`.restricted_ip`: the restricted IP and its warm starts;
* :mod:`.steps`: the contract of the steps after the restricted IP and the loop over them;
* :mod:`.improvers`: the dive, polishing, and the local search of the IP's start;
* :mod:`.provers`: the Lagrangian searches, gap closing, the packing bound, the error-free
  cover LP, the positive-side proof;
* :mod:`.strengthen`: ``strengthen_bound`` raises the bound of a stopped solve by counted
  work.
"""
from ... import _compat
from .bounds import Duals
from .loop import BoundState, ColGenSolution, solve
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
           "BoundKind", "ColGenSolution", "BoundState", "Duals", "solve", "strengthen_bound",
           "RestrictedMaster", "PricingInstance", "PricingResult", "beam_pricing", "bnb_pricing", "cpsat_pricing", "heuristic_pricing",
           "make_instance", "single_literal_bound", "price_by_branch_and_bound", "BnBResult",
           "LIGHT_IP_OPTIONS"]

__getattr__ = _compat.renamed(__name__)
