"""The floor plan holds: imports run one way down the layers, with no circles.

Every import is read from the source (imports inside functions count too), resolved to a
module of the package, and checked against the layer order of ``rulecert/__init__.py``'s
docstring and docs/architecture.md.  Old module paths and the old names of entry points still
work, with a DeprecationWarning naming the new path.
"""
import ast
import importlib
import pathlib
import warnings

import networkx as nx
import numpy as np
import pytest

import rulecert
from rulecert import RuleProblem, _compat

ROOT = pathlib.Path(rulecert.__file__).parent

# layer of each module, by longest matching prefix; a module may import its own layer or lower
LAYERS = [
    ("rulecert._version", 0), ("rulecert._compat", 0), ("rulecert.bits", 0),
    ("rulecert.checks", 0), ("rulecert.certificate", 0), ("rulecert.limits", 0),
    ("rulecert.monitor", 0),
    ("rulecert.models", 1),
    ("rulecert.problem", 2),
    ("rulecert.mining", 3), ("rulecert.datasets", 3),
    ("rulecert.reference", 4),
    ("rulecert.search", 5), ("rulecert.mipmodels", 5),
    ("rulecert.crosscheck", 6),
    ("rulecert.export", 7),
    ("rulecert.estimators", 7), ("rulecert.plotting", 7), ("rulecert.experiments", 7),
    ("rulecert.cli", 8), ("rulecert.__main__", 8),
]


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for p in ROOT.rglob("*.py")}


def _resolve(mod: str, is_pkg: bool, node: ast.AST, known: set[str]) -> list[str]:
    out = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = mod.split(".")
            if not is_pkg:
                base = base[:-1]
            base = base[:len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        # ``from X import y``: the module X.y when y is a module, else X (y is an attribute)
        names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in known else prefix
                 for a in node.names]
    else:
        return out
    for name in names:
        if not name.startswith("rulecert"):
            continue
        # the deepest known module named by the import
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            out.append(name)
    return out


def _graph() -> nx.DiGraph:
    mods = _modules()
    known = set(mods)
    g = nx.DiGraph()
    for mod, path in mods.items():
        g.add_node(mod)
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            for dep in _resolve(mod, path.name == "__init__.py", node, known):
                if dep != mod:
                    g.add_edge(mod, dep)
    return g


def _layer(mod: str) -> int:
    best = None
    for prefix, layer in LAYERS:
        if mod == prefix or mod.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    assert best is not None, f"{mod} has no layer: add it to LAYERS and DESIGN.md"
    return best[1]


def test_every_module_has_a_layer():
    for mod in _modules():
        if mod != "rulecert":
            _layer(mod)
    assert _layer("rulecert.models.rulelist") < _layer("rulecert.search.corels.loop")


def test_no_import_circles_counting_imports_inside_functions():
    g = _graph()
    g.remove_node("rulecert")  # the public namespace imports from everywhere; nothing imports it
    cycles = list(nx.simple_cycles(g))
    assert not cycles, f"import circles: {cycles[:5]}"


def test_nothing_inside_the_package_imports_its_public_namespace():
    g = _graph()
    assert list(g.predecessors("rulecert")) == []


def test_imports_run_down_the_layers():
    g = _graph()
    g.remove_node("rulecert")
    wrong = [(a, b) for a, b in g.edges if _layer(b) > _layer(a)]
    assert not wrong, f"imports that run up the layers: {wrong}"


def test_models_import_no_solver_and_references_import_no_solver():
    g = _graph()
    for mod in g.nodes:
        deps = set(g.successors(mod))
        if mod.startswith("rulecert.models") or mod.startswith("rulecert.reference"):
            bad = {d for d in deps if _layer(d) >= 2 and not d.startswith("rulecert.reference")}
            assert not bad, f"{mod} imports {bad}"


@pytest.mark.parametrize("old,new", sorted(_compat.MOVED.items()))
def test_old_paths_warn_and_give_the_new_module(old, new):
    import sys
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        mod = importlib.import_module(old)
    assert mod is importlib.import_module(new)
    assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in rec)


RENAMED = sorted((module, old, new) for module, names in _compat.RENAMED.items()
                 for old, (new, _) in names.items())


@pytest.mark.parametrize("module,old,new", RENAMED, ids=[f"{m}.{o}" for m, o, _ in RENAMED])
def test_old_names_warn_with_the_new_path_and_still_work(module, old, new):
    mod = importlib.import_module(module)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        obj = getattr(mod, old)
    assert callable(obj)
    assert [str(w.message) for w in rec if issubclass(w.category, DeprecationWarning)] == [
        f"{module}.{old} is renamed: use {new} (the old name goes in the next release)"]
    assert old not in getattr(mod, "__all__", ())
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        getattr(mod, "no_such_name")


def test_an_old_entry_point_gives_the_new_ones_answer():
    """The old names run the same search as the entry point (CORELS and both falling searches)."""
    from rulecert.search import corels, falling
    from rulecert.mipmodels import falling as falling_mip
    rng = np.random.default_rng(0)
    A = rng.random((60, 5)) < 0.4
    p = RuleProblem.from_matrix(A, (rng.random(60) < 0.3 + 0.4 * A[:, 0]).astype(int))
    with pytest.warns(DeprecationWarning):
        old = corels.corels(p, 0.02)
    assert old[1].objective == corels.solve(p, 0.02).certificate.objective
    with pytest.warns(DeprecationWarning, match="method='exact'"):
        _, exact = falling.frl_branch_and_bound(p, 2.0, 0.01)
    assert exact.objective == pytest.approx(
        falling.solve(p, "frl", 2.0, 0.01, method="exact").certificate.objective, abs=1e-12)
    with pytest.warns(DeprecationWarning, match="backend='highs'"):
        _, mip = falling_mip.solve_highs(p, "frl", 2.0, 0.01, max_rules=2)
    assert mip.objective == pytest.approx(
        falling_mip.solve(p, "frl", 2.0, 0.01, max_rules=2, backend="highs").certificate.objective,
        abs=1e-12)
