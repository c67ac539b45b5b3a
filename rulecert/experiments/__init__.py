"""Studies declared as grids, run serially, on local processes or on Dask, stored per cell.

``Study`` (:mod:`.study`) declares datasets x learner parameters x cross-validation;
:func:`run` (:mod:`.engines`) runs its unfinished cells and writes one Parquet record per
cell (:mod:`.store`); :func:`load_results` and :mod:`.report` read them back.
"""
from .engines import run
from .store import Store
from .study import CV, Cell, Study, cell_key, expand, load_study


def load_results(study: Study, results=None):
    """The stored records of ``study``'s cells as a pandas DataFrame (current cells only)."""
    return Store(results or study.results_dir()).read(keys=[c.key for c in expand(study)])


__all__ = ["CV", "Cell", "Study", "Store", "cell_key", "expand", "load_results", "load_study", "run"]
