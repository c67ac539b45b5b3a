"""Execute the teaching notebooks top to bottom and save them with their outputs.

    python notebooks/execute.py                 # every notebook here
    python notebooks/execute.py 01 03           # those whose name starts with 01 or 03

Run from anywhere; each notebook runs with this folder as its working directory (figures go to
``notebooks/figures/``) and needs the shared data: ``RULECERT_DATA`` if set, else the
``shared/data`` folder that :func:`rulecert.datasets.data_home` finds from this folder up.
The tests run every notebook the same way in a temporary folder (tests/test_notebooks.py) and
check that the committed copies were executed in order without errors.
"""
from __future__ import annotations

import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent


def notebooks(prefixes=()) -> list[pathlib.Path]:
    """The notebooks in this folder (sorted), optionally only those starting with a prefix."""
    found = sorted(HERE.glob("[0-9][0-9]_*.ipynb"))
    return [p for p in found if not prefixes or any(p.name.startswith(x) for x in prefixes)]


def execute(path: pathlib.Path, workdir: pathlib.Path, timeout: int = 600):
    """Run ``path`` in ``workdir`` with a fresh kernel; returns the executed notebook."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    (workdir / "figures").mkdir(exist_ok=True)
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(workdir)}}).execute()
    return nb


def main(argv: list[str]) -> int:
    import nbformat

    for path in notebooks(argv):
        t0 = time.perf_counter()
        nb = execute(path, HERE)
        nbformat.write(nb, path)
        print(f"{path.name}: executed in {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
