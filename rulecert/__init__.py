"""rulecert: interpretable rule models learned by mathematical programming, each certified.

The floor plan (imports run one way, down this list): :mod:`~rulecert.bits`,
:mod:`~rulecert.checks`, :mod:`~rulecert.certificate` (and ``certify``), :mod:`~rulecert.limits`
-> :mod:`rulecert.models` -> :mod:`~rulecert.problem` -> :mod:`rulecert.mining`,
:mod:`~rulecert.datasets` -> :mod:`rulecert.reference` -> :mod:`rulecert.search`,
:mod:`rulecert.mipmodels` -> :mod:`~rulecert.crosscheck` -> :mod:`rulecert.estimators`,
:mod:`rulecert.cli`.
"""
from . import _compat
from .certificate import Certificate, Solution, SolutionStatus, Termination, certify
from .models import Antecedent, RuleList
from .problem import RuleProblem

_compat.install()

from ._version import __version__
__all__ = ["Certificate", "Solution", "SolutionStatus", "Termination", "certify", "RuleProblem", "Antecedent",
           "RuleList", "__version__"]
