"""What a learner returns, each model with its exact objective beside it.

* :mod:`.antecedent` -- :class:`Antecedent` (a conjunction of binary literals), first-match
  evaluation shared by ordered models, the one antecedent lookup (:func:`antecedent_rows`);
* :mod:`.rulelist` -- :class:`RuleList` (CORELS, the rule-list MIP) and
  :func:`rule_list_objective`; the label rule :func:`majority_label` (ties predict 1);
* :mod:`.falling` -- :class:`FallingRuleList` and :func:`frl_objective` /
  :func:`soft_frl_objective` (Chen & Rudin, AISTATS 2018);
* :mod:`.ruleset` -- :class:`RuleSet` (DNF / CNF) and :func:`ruleset_objective`
  (Dash, Gunluk & Wei, NeurIPS 2018).

Models import nothing from the solvers (nor from :mod:`rulecert.problem`: they use a problem's
methods), so every solver, the brute-force references and the tests score a model the same way.
"""
from .antecedent import Antecedent, OrderedRules, antecedent_rows
from .falling import (FallingRuleList, FallingScore, frl_objective, soft_frl_objective)
from .rulelist import (RuleList, RuleListScore, majority_label, prefix_objective,
                       rule_list_from_prefix, rule_list_objective)
from .rashomon import EnumerationCertificate, RashomonSet
from .ruleset import RuleSet, RuleSetScore, ruleset_objective, ruleset_objective_xy

__all__ = ["Antecedent", "OrderedRules", "antecedent_rows", "RuleList", "RuleListScore",
           "majority_label", "prefix_objective", "rule_list_from_prefix", "rule_list_objective",
           "FallingRuleList", "FallingScore", "frl_objective", "soft_frl_objective",
           "RuleSet", "RuleSetScore", "ruleset_objective", "ruleset_objective_xy",
           "RashomonSet", "EnumerationCertificate"]
