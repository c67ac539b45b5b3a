"""CORELS: certifiably optimal rule lists by branch and bound (Angelino et al., JMLR 2018).

    from rulecert.search import corels
    rule_list, cert = corels.solve(problem, c=0.01)

Modules: :mod:`.bounds` (every bound, one function each, and the numpy reference for child
evaluation), :mod:`.data` (the problem compiled to packed group columns), :mod:`.kernel` (the
numba branch-and-bound: child evaluation, queue, prefix trie, symmetry-aware map, garbage
collection), :mod:`.loop` (the driver: limits, progress, certificate), :mod:`.rashomon` (every
list within a threshold of the optimum: the Rashomon set).
"""
from .bounds import CorelsBounds
from ... import _compat
from .loop import POLICIES, SOLVER, solve
from .rashomon import rashomon_set

__all__ = ["solve", "CorelsBounds", "POLICIES", "SOLVER", "rashomon_set"]

__getattr__ = _compat.renamed(__name__)
