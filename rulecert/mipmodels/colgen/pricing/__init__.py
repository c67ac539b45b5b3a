"""Pricing for Boolean rule-set column generation: find clauses of negative reduced cost.

Reduced cost of a clause ``k`` (a conjunction of ``|k|`` binary features, ``1 <= |k| <= D``)
given the master duals (``mu_g`` for the cover rows, ``lambda`` for the complexity row),
aggregated over groups ``g`` of identical samples::

    rc(k) = const + lit * |k| + sum_{g covered by k} v_g,
    const = lambda + clause_penalty,  lit = lambda + literal_penalty,
    v_g   = (negative mass of g) - mu_g.

The pricers, all on a :class:`PricingInstance`:

* :func:`single_literal_bound` -- a cheap valid lower bound on ``min_k rc(k)``: every clause
  covers a subset of what any one of its literals covers, so
  ``rc(k) >= const + lit + min_j sum_{g covered by j} min(v_g, 0)``.
* :func:`heuristic_pricing` -- the paper's greedy extension (Sec. 3): all one-literal
  clauses are scored by their reduced cost; level by level (up to ``max_length`` literals)
  the clauses are extended in increasing score order by one more literal, until a cap on
  the generated clauses.  A clause is only extended when the best reduced cost any of its
  extensions could reach, ``const + lit * (|k|+1) + sum_{g in k} min(v_g, 0)``, is below the
  threshold.  Because every clause is either generated or a superset of a generated clause
  that was not extended, ``min(rc of generated clauses, extension bound of clauses not
  extended)`` is a *valid* lower bound on the whole pricing problem; when nothing was cut
  by the cap or the time limit and ``max_length >= D`` the search is exact.
* :func:`.beam.beam_pricing` -- the beam search of IBM AIX360's
  ``BooleanRuleCG`` (width ``B``, depth up to ``max_length``): at each level only the ``B``
  best clauses by ``0.5 * rc + 0.5 * (extension bound)`` (among those whose extension bound
  is below the threshold) are extended by every other literal; optionally re-run with the
  width doubled while it finds nothing.  Cheap and good at long clauses over many features,
  but a heuristic: its bound is ``-inf`` (it proves nothing).
* :func:`bnb_pricing` -- an exact depth-first branch-and-bound over clauses on packed bits
  (:mod:`.bnb`, compiled with numba); also used to enumerate clauses for gap closing.
* :func:`cpsat_pricing` -- the paper's pricing IP (6)-(10) in CP-SAT, aggregated over
  groups, collecting every improving solution through a solution callback.

The chain that column generation runs each iteration (:func:`price`) takes its pricers
by name from :data:`PRICERS` in the order :data:`CHAINS` gives for the
``pricers`` option.  Modules: :mod:`.instance` (instance, result, sampling, the cheap bound),
:mod:`.heuristic`, :mod:`.beam`, :mod:`.bnb`, :mod:`.cpsat`, :mod:`.chain`.
"""
from .beam import beam_pricing
from .bnb import BnBResult, bnb_pricing, price_by_branch_and_bound, warm_up
from .chain import BEAM_WIDENING, CHAINS, PRICERS, PRICING_MODES, PricingRound, price
from .cpsat import cpsat_pricing
from .heuristic import heuristic_pricing
from .instance import PricingInstance, PricingResult, make_instance, single_literal_bound

__all__ = ["PricingInstance", "PricingResult", "make_instance", "single_literal_bound",
           "heuristic_pricing", "beam_pricing", "bnb_pricing", "cpsat_pricing",
           "price_by_branch_and_bound", "BnBResult", "warm_up", "price", "PricingRound",
           "CHAINS", "PRICERS", "PRICING_MODES", "BEAM_WIDENING"]
