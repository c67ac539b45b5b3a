"""An exact mixed-integer program of CORELS rule lists over pre-mined antecedents::

    from rulecert.mipmodels import rulelist
    rule_list, cert = rulelist.solve(problem, c=0.01, max_rules=5, backend="highs")

Modules: :mod:`.formulation` (the model: groups, variables, rows, cuts, and its export to LP /
MPS, HiGHS, PuLP and CP-SAT; the mathematics is in its docstring), :mod:`.fit` (input checks,
warm start, the prefix-length bound on the positions built, the backends chosen by name),
:mod:`.certify` (incumbent, lower bound, status, exactness for the unrestricted problem).
"""
from ... import _compat
from .formulation import (BACKENDS, CUT_FAMILIES, DEFAULT_CUTS, MAX_NONZEROS, GroupData,
                          RuleListMIP, c_fraction, greedy_prefix, group_data, prefix_length_bound,
                          repair_prefix, support_threshold)
from .fit import RuleListMIPSolution, rule_list_mip_model, solve

__all__ = ["solve", "RuleListMIPSolution", "RuleListMIP", "rule_list_mip_model", "greedy_prefix",
           "prefix_length_bound", "group_data", "GroupData", "BACKENDS", "CUT_FAMILIES",
           "DEFAULT_CUTS", "MAX_NONZEROS", "support_threshold", "repair_prefix", "c_fraction"]

__getattr__ = _compat.renamed(__name__)
