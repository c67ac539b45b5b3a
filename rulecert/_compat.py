"""Old module paths, kept for one release: importing one warns and returns the new module.

rulecert 0.1 kept its models and objectives in flat modules at the package root; they now live
in :mod:`rulecert.models` (each model with its exact objective), the brute-force references in
:mod:`rulecert.reference`.  ``import rulecert.rules`` (and the other old paths below) still works,
with a ``DeprecationWarning`` naming the new path; the old paths go in the next release.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED = {
    "rulecert.rules": "rulecert.models.rulelist",
    "rulecert.objectives": "rulecert.models.rulelist",
    "rulecert.ruleset": "rulecert.models.ruleset",
    "rulecert.objectives_ruleset": "rulecert.models.ruleset",
    "rulecert.falling_model": "rulecert.models.falling",
    "rulecert.objectives_falling": "rulecert.models.falling",
    "rulecert.mipmodels.crosscheck": "rulecert.crosscheck",
    "rulecert.search.corels.reference": "rulecert.reference.rulelist",
    "rulecert.search.falling_brute": "rulecert.reference.falling",
    "rulecert.mipmodels.colgen.bruteforce": "rulecert.reference.ruleset",
    "rulecert.search.falling_mc": "rulecert.search.falling.mc",
    "rulecert.search.falling_bnb": "rulecert.search.falling.bnb",
    "rulecert.search.falling_core": "rulecert.search.falling.bounds",
    "rulecert.mipmodels.colgen.beam": "rulecert.mipmodels.colgen.pricing.beam",
    "rulecert.mipmodels.colgen.bnb": "rulecert.mipmodels.colgen.pricing.bnb",
}
# rulecert.mipmodels.rulelist became a package (formulation, fit, certify) that re-exports every
# public name of the old module, so its import path is unchanged.
"""Old module path -> new module path."""


class _MovedLoader(importlib.abc.Loader):
    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec):
        warnings.warn(f"{spec.name} moved to {self.new}; import it from there (the old path "
                      "goes in the next release)", DeprecationWarning, stacklevel=3)
        return importlib.import_module(self.new)

    def exec_module(self, module):
        pass


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _MovedLoader(new))


def install() -> None:
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
