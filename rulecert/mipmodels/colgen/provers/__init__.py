"""The provers: steps that raise the certified lower bound (``colgen/steps.py`` runs them).

* :mod:`.lagrangian` -- the Lagrangian bound's searches: the complexity-dual search of each
  iteration, the descent when pricing finds nothing, the descent with the time left, and the
  positive-side proof of the final master LP's pricing problem;
* :mod:`.gap_closing` -- gap closing by reduced-cost enumeration, and the search over the
  whole class when at most two clauses fit ``C``;
* :mod:`.packing` -- no error-free rule set fits ``C``: the packing bound;
* :mod:`.cover_lp` -- the same by the LP of the least-complexity error-free cover;
* :mod:`.positive` and :mod:`.meet` -- the searches those proofs run (over the groups a clause
  covers, not over literals).
"""
