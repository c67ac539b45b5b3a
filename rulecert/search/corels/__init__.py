"""CORELS: certifiably optimal rule lists by branch and bound (Angelino et al., JMLR 2018).

    from rulecert.search.corels import corels, CorelsBounds
    rule_list, cert = corels(problem, c=0.01)      # corels is solve, the package's one verb

Modules: :mod:`.bounds` (every bound, one function each, and the numpy reference for child
evaluation), :mod:`.data` (the problem compiled to packed group columns), :mod:`.kernel` (the
numba branch-and-bound: child evaluation, queue, prefix trie, symmetry-aware map, garbage
collection), :mod:`.loop` (the driver: limits, progress, certificate), :mod:`.rashomon` (every
list within a threshold of the optimum: the Rashomon set).
"""
from .bounds import CorelsBounds
from .loop import POLICIES, SOLVER, corels
from .rashomon import rashomon_set

solve = corels
"""The package's one verb (``corels`` is the same function)."""

__all__ = ["solve", "corels", "CorelsBounds", "POLICIES", "SOLVER", "rashomon_set"]
