"""Brute force for tiny instances, one module per model family: the references every solver
is checked against in the tests and in :mod:`rulecert.crosscheck`.

* :mod:`.rulelist` -- rule lists (CORELS objective): :func:`brute_force_rule_list`,
  :func:`brute_force_reference`, :func:`exhaustive`, :func:`brute_force_optimum`;
* :mod:`.falling` -- falling and softly falling rule lists: :func:`brute_force_falling`;
* :mod:`.ruleset` -- DNF / CNF rule sets: :func:`brute_force_ruleset`.

They import only the models (and the bit helpers): never a solver.
"""
from .falling import brute_force_falling
from .rulelist import (PrefixRecord, all_prefixes, brute_force_optimum, brute_force_reference,
                       brute_force_rule_list, exhaustive)
from .ruleset import brute_force_ruleset

__all__ = ["brute_force_falling", "all_prefixes", "brute_force_optimum", "brute_force_reference",
           "brute_force_rule_list", "exhaustive", "PrefixRecord", "brute_force_ruleset"]
