"""scikit-learn classifiers that wire binarization, mining and the solvers together."""
from ._base import BinaryRuleClassifier, FitInterruptedWarning
from .brcg import BooleanRuleCGClassifier, BooleanRuleCGCV
from .corels import CorelsClassifier
from .falling import FallingRuleListClassifier, SoftFallingRuleListClassifier
from .rulelist_mip import RuleListMIPClassifier

__all__ = ["BinaryRuleClassifier", "FitInterruptedWarning", "CorelsClassifier", "RuleListMIPClassifier",
           "FallingRuleListClassifier", "SoftFallingRuleListClassifier", "BooleanRuleCGClassifier", "BooleanRuleCGCV"]
