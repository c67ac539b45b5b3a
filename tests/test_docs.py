"""The documentation site under docs/ builds with warnings as errors and every cross-reference
checked (``sphinx-build -W -n --keep-going``, as documented in docs/getting_started.md): a
broken reference, a public class or function without a docstring, a notebook that fails to
render or a learner's example that fails to run fails the build.  The learners' pages under
docs/user_guide/ run their examples in the build; the notebooks are rendered from their
committed outputs.  The API reference has a page per module that declares ``__all__``,
documenting every name of it."""
import ast
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
pytest.importorskip("sphinx")
pytest.importorskip("myst_nb")


def _public_names():
    """(module, name) for every name of every ``__all__`` in the package's source."""
    out = []
    for path in sorted((ROOT / "rulecert").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if (isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)):
                parts = path.relative_to(ROOT).with_suffix("").parts
                module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                if isinstance(node.value, (ast.List, ast.Tuple)):
                    names = [ast.literal_eval(e) for e in node.value.elts]
                else:   # __all__ = list(_EXPORTS): the module knows
                    import importlib
                    names = list(importlib.import_module(module).__all__)
                out.extend((module, n) for n in names)
    return out


def _build_site(out):
    """The site built from a copy of docs/ beside links to notebooks/ and experiments/ (conf.py
    copies the notebooks and the benchmark pages into its own folder): nothing is written into
    the checkout."""
    shutil.copytree(ROOT / "docs", out / "src" / "docs",
                    ignore=shutil.ignore_patterns("_build", "notebooks", "benchmarks", "__pycache__"))
    for name in ("notebooks", "experiments"):
        (out / "src" / name).symlink_to(ROOT / name, target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-E", "-W", "-n", "--keep-going", "-q", "-b", "html",
         "-d", str(out / "doctrees"), str(out / "src" / "docs"), str(out / "html")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-6000:]
    return out / "html"


# One test, one build: a module-scoped fixture would build once per pytest-xdist worker that
# runs one of its tests.
def test_site_builds_without_warnings_runs_the_examples_and_documents_every_public_name(tmp_path):
    html = _build_site(tmp_path)
    for page in ("corels", "rulelist_mip", "falling", "brcg"):   # each example ran: its output
        text = (html / "user_guide" / f"{page}.html").read_text()
        assert "cell_output" in text and "proven optimal" in text, page
    cli = (html / "cli.html").read_text()   # every subcommand, from the argparse parsers
    from rulecert.cli import SUBCOMMANDS
    assert all(f'id="{name}' in cli for name in SUBCOMMANDS), SUBCOMMANDS
    assert (html / "notebooks" / "05_reading_a_certificate.html").exists()

    names = _public_names()   # every name of every __all__: its anchor on its module's page
    assert len(names) > 100
    pages = {}
    missing = []
    for m, n in names:
        page = html / "api" / f"{m}.html"
        if m not in pages:
            pages[m] = page.read_text() if page.exists() else ""
        if f'id="{m}.{n}"' not in pages[m]:
            missing.append(f"{m}.{n}")
    assert not missing, f"not documented on its module's page: {missing}"
