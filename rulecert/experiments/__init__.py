"""Studies declared as grids, run serially, on local processes or on Dask, stored per cell.

``Study`` (:mod:`.study`) declares datasets x learner parameters x cross-validation;
:func:`run` (:mod:`.engines`) runs its unfinished cells and writes one Parquet record per
cell (:mod:`.store`); :func:`load_results` and :mod:`.report` read them back.
"""
from .engines import run
from .report import comparable, load as load_results
from .store import Store
from .study import CV, Cell, Study, cell_key, expand, load_study


__all__ = ["CV", "Cell", "Study", "Store", "cell_key", "expand", "load_results", "load_study", "run",
           "comparable"]
