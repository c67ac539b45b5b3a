"""rulecert: interpretable rule models learned by mathematical programming, each certified."""
from .certificate import Certificate, SolutionStatus, Termination
from .problem import RuleProblem
from .rules import Antecedent, RuleList

__version__ = "0.1.0"
__all__ = ["Certificate", "SolutionStatus", "Termination", "RuleProblem", "Antecedent", "RuleList",
           "__version__"]
