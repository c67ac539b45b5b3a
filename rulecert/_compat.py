"""Old module paths and old names, kept for one release: using one warns and gives the new one.

rulecert 0.1 kept its models and objectives in flat modules at the package root; they now live
in :mod:`rulecert.models` (each model with its exact objective), the brute-force references in
:mod:`rulecert.reference`.  ``import rulecert.rules`` (and the other old paths in
:data:`MOVED`) still works, with a ``DeprecationWarning`` naming the new path.

Each solver package now has one entry point, ``solve``; the other names of an entry point (and
the names renamed since) are in :data:`RENAMED`.  A package lists them by ending with
``__getattr__ = _compat.renamed(__name__)``: ``from rulecert.search.corels import corels``
still works, with a ``DeprecationWarning`` naming the new path.  The old paths and names go
in the next release.
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


def _resolve(path: str):
    module, _, name = path.partition("(")[0].rpartition(".")
    return getattr(importlib.import_module(module), name)


def _falling(program: str, method: str, C1=None):
    """The old per-program entry points of the falling searches (``frl_branch_and_bound(problem,
    w, C, **options)``): the same search, by its engine."""
    engine = ("rulecert.search.falling.bnb.branch_and_bound" if method == "exact" else
              "rulecert.search.falling.mc.monte_carlo")

    def old(problem, w: float = 7.0, C: float = 1e-6, C1=C1, **options):
        return _resolve(engine)(problem, program, w, C, C1, **options)
    return old


def _mip_backend(backend: str):
    """The old ``solve_highs`` / ``solve_cpsat`` of the falling MIP: ``solve`` on that backend."""
    def old(*args, **options):
        return _resolve("rulecert.mipmodels.falling.solve")(*args, backend=backend, **options)
    return old


RENAMED = {
    # module: {old name: (new path, the object given for the old name, or None for the new one)}
    "rulecert.search.corels": {"corels": ("rulecert.search.corels.solve", None)},
    "rulecert.search.corels.loop": {"corels": ("rulecert.search.corels.solve", None)},
    "rulecert.mipmodels.rulelist": {
        "fit_rule_list_mip": ("rulecert.mipmodels.rulelist.solve", None)},
    "rulecert.mipmodels.rulelist.fit": {
        "fit_rule_list_mip": ("rulecert.mipmodels.rulelist.solve", None)},
    "rulecert.search.falling": {
        "branch_and_bound": ("rulecert.search.falling.solve(..., method='exact')",
                             "rulecert.search.falling.bnb.branch_and_bound"),
        "monte_carlo": ("rulecert.search.falling.solve(..., method='monte_carlo')",
                        "rulecert.search.falling.mc.monte_carlo"),
        "frl_branch_and_bound": ("rulecert.search.falling.solve(problem, 'frl', w, C, "
                                 "method='exact')", _falling("frl", "exact")),
        "softfrl_branch_and_bound": ("rulecert.search.falling.solve(problem, 'softfrl', w, C, "
                                     "C1, method='exact')", _falling("softfrl", "exact", 0.5)),
        "frl_monte_carlo": ("rulecert.search.falling.solve(problem, 'frl', w, C, "
                            "method='monte_carlo')", _falling("frl", "monte_carlo")),
        "softfrl_monte_carlo": ("rulecert.search.falling.solve(problem, 'softfrl', w, C, C1, "
                                "method='monte_carlo')", _falling("softfrl", "monte_carlo", 0.5)),
    },
    "rulecert.mipmodels.falling": {
        "solve_highs": ("rulecert.mipmodels.falling.solve(..., backend='highs')",
                        _mip_backend("highs")),
        "solve_cpsat": ("rulecert.mipmodels.falling.solve(..., backend='cpsat')",
                        _mip_backend("cpsat")),
    },
    "rulecert.mipmodels.colgen": {
        "ColgenSolution": ("rulecert.mipmodels.colgen.ColGenSolution", None),
        "branch_and_bound": ("rulecert.mipmodels.colgen.price_by_branch_and_bound", None),
        "brute_force_ruleset": ("rulecert.reference.brute_force_ruleset", None),
    },
    "rulecert.mipmodels.colgen.loop": {
        "ColgenSolution": ("rulecert.mipmodels.colgen.ColGenSolution", None)},
}
"""Module -> old name -> (the new path, said in the warning; what the old name gives: None for
the object at the new path, a dotted path, or a function keeping the old call working)."""


def renamed(module: str):
    """The module ``__getattr__`` of ``module``: an old name warns and gives its replacement."""
    table = RENAMED.get(module, {})

    def __getattr__(name: str):
        if name not in table:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new, given = table[name]
        warnings.warn(f"{module}.{name} is renamed: use {new} (the old name goes in the next "
                      "release)", DeprecationWarning, stacklevel=2)
        if given is None or isinstance(given, str):
            return _resolve(given or new)
        return given
    return __getattr__


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
