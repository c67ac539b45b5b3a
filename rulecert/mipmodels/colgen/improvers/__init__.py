"""The improvers: steps that may return a better rule set than the restricted IP's.

* :mod:`.selection_search` -- local search over the master's columns (add, drop, swap), the
  restricted IP's warm start;
* :mod:`.dive` -- the column-generation dive (``colgen/steps.py`` runs it after the IP);
* :mod:`.polish` -- local search over literals from the IP's rule set (a step too).
"""
