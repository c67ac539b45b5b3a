"""The teaching notebooks under notebooks/: committed executed in order without errors, and each
runs top to bottom on the shared data (in a temporary folder, so the committed copies and figures
are not touched; the folder links ``shared/data`` to the data, which the kernel finds from its
working directory), followed by the exercise answers a markdown cell tagged ``run-answer`` hides
(its ```python blocks), so an answer that stops running fails too.  Refresh the committed copies
with ``python notebooks/execute.py``."""
import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")


def _execute_module():
    spec = importlib.util.spec_from_file_location("notebooks_execute", ROOT / "notebooks" / "execute.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_six_lessons_are_there():
    names = [p.name[:2] for p in NOTEBOOKS]
    assert names == ["01", "02", "03", "04", "05", "06"], names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_notebook_was_executed_in_order_without_errors(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    for c in code:
        for out in c.outputs:
            assert out.output_type != "error", f"{path.name}: error output {out.get('ename')}"
            assert out.get("name") != "stderr" or "Traceback" not in out.get("text", "")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path, tmp_path, shared_data):
    nb = nbformat.read(path, as_version=4)
    answers = [block for c in nb.cells if "run-answer" in c.metadata.get("tags", [])
               for block in re.findall(r"```python\n(.*?)```", c.source, re.S)]
    nb.cells += [nbformat.v4.new_code_cell(block) for block in answers]
    nbformat.write(nb, tmp_path / path.name)
    # the kernel runs in tmp_path and, with RULECERT_DATA unset (as in CI), finds the data as
    # a user's notebook beside a checkout does: shared/data from its working directory up
    # (rulecert.datasets.data_home), not beside the package (a non-editable install has none)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_data.resolve(), target_is_directory=True)
    nb = _execute_module().execute(tmp_path / path.name, tmp_path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
