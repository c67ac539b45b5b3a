"""Studies declared as grids, run serially, on local processes or on Dask, stored per cell.

``Study`` (:mod:`.study`) declares datasets x learner parameters x cross-validation;
:func:`run` (:mod:`.engines`) runs its unfinished cells and writes one Parquet record per
cell (:mod:`.store`); :func:`load_results` and :mod:`.report` read them back.
"""
import importlib

_WHERE = {"run": ("engines", "run"), "comparable": ("report", "comparable"),
          "load_results": ("report", "load"), "Store": ("store", "Store"),
          **{n: ("study", n) for n in ("CV", "Cell", "Study", "cell_key", "expand", "load_study")}}


def __getattr__(name):
    """The names below, imported when first used: the runner's modules load pandas and
    pyarrow, which a ``rulecert`` subcommand that only builds its parser does not need."""
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _WHERE[name]
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    globals()[name] = value
    return value


__all__ = ["CV", "Cell", "Study", "Store", "cell_key", "expand", "load_results", "load_study", "run",
           "comparable"]
