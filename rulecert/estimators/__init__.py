"""scikit-learn classifiers that wire binarization, mining and the solvers together."""
from ._base import BinaryRuleClassifier
from .corels import CorelsClassifier

__all__ = ["BinaryRuleClassifier", "CorelsClassifier"]
