"""Sphinx configuration of rulecert's documentation.

Build: ``pip install ".[docs]" && sphinx-build -W -n --keep-going docs docs/_build/html``
(``tests/test_docs.py`` runs the same build).  The notebooks under ``notebooks/`` are rendered
from their committed outputs, never run; the learners' pages under ``user_guide/`` run their
examples in every build (``example-cell``: in this process, no kernel).
"""
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))          # the checkout's rulecert, installed or not

import rulecert  # noqa: E402

# The notebooks and the benchmark pages live outside docs/: copied in at each build (ignored by
# git) so that their relative links resolve as on the repository's own pages (symbolic links
# would not do: Sphinx resolves them, and the links then point outside docs/).  The test builds
# from a copy of docs/, so it never writes here.
import shutil  # noqa: E402

for _src, _dst, _glob in ((ROOT / "notebooks", DOCS / "notebooks", "[0-9][0-9]_*.ipynb"),
                          (ROOT / "experiments" / "results", DOCS / "benchmarks", "**/*.md")):
    shutil.rmtree(_dst, ignore_errors=True)
    for _f in sorted(_src.glob(_glob)):
        (_dst / _f.relative_to(_src)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(_f, _dst / _f.relative_to(_src))

project = "rulecert"
author = "rulecert contributors"
copyright = "rulecert contributors"
release = rulecert.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinxarg.ext",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
root_doc = "index"

# -- the theme ------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"rulecert {release}"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2,
                      # the sidebar: the current section's pages only (each page renders it)
                      "collapse_navigation": True, "navigation_depth": 2}
html_static_path = []

# -- MyST and notebooks -------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 4
nb_execution_mode = "off"          # the notebooks: their committed outputs, never re-run

# -- API reference: a page per module that declares __all__ (api/*.rst, ``.. rulecert-api::``) --
autodoc_typehints = "signature"
autodoc_member_order = "bysource"
autoclass_content = "class"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_param = False     # parameter types as text, not as cross-references
napoleon_use_rtype = False
napoleon_use_ivar = False

# -- nitpicky: third-party and typing names have no target offline (no intersphinx) -------------
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|pandas|pd|sklearn|highspy|ortools|pulp|networkx|numba|dask|pyarrow|matplotlib|joblib)(\..*)?"),
    (r"py:.*", r"(typing|collections\.abc|collections|dataclasses|enum|pathlib|argparse|os|io|concurrent\.futures)\..*"),
    (r"py:class", r"'?(list\[)?dict\[str"),   # pieces of a string annotation 'dict[str, ...]'
    (r"py:class", r"fractions\.Fraction"),
    (r"py:class", r"(int|float|str|bool|bytes|dict|list|tuple|set|frozenset|object|type|callable|None|Ellipsis|NoneType|Path|Callable|Iterable|Iterator|Sequence|Mapping|Any|Optional|Union)"),
]
napoleon_custom_sections = [("Attributes", "params_style")]  # attribute types as text too


# -- every module of the package as a link target ---------------------------------------------
# Docstrings name internal modules (:mod:`rulecert.monitor`, :mod:`.bounds`); the page
# api/modules lists each module with the first line of its docstring, so those links resolve.

def _module_names():
    import pkgutil
    names = ["rulecert"]
    for info in pkgutil.walk_packages(rulecert.__path__, "rulecert."):
        names.append(info.name)
    return sorted(names)


def _first_line(modname):
    import importlib
    import inspect
    doc = inspect.getdoc(importlib.import_module(modname)) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


from docutils import nodes  # noqa: E402
from sphinx.util.docutils import SphinxDirective  # noqa: E402


class ModuleList(SphinxDirective):
    """``.. rulecert-modules::``: a target and a one-line summary (as text) per module."""

    def run(self):
        out = []
        for name in _module_names():
            if name.rsplit(".", 1)[-1].startswith("_"):
                continue
            import importlib
            item = nodes.definition_list_item()
            term = nodes.term()
            if hasattr(importlib.import_module(name), "__all__"):   # its page is in the API
                term += self.parse_inline(f":mod:`{name}`")[0]
            else:
                out.extend(self.parse_text_to_nodes(f".. py:module:: {name}\n   :no-index-entry:\n"))
                term += nodes.literal(text=name)
            item += term
            item += nodes.definition("", nodes.paragraph(text=_first_line(name)))
            out.append(nodes.definition_list("", item))
        return out


class ModuleAPI(SphinxDirective):
    """``.. rulecert-api:: MODULE``: the module's docstring, then every name of its ``__all__``
    (classes with their documented members, functions, constants), all on the one page."""

    required_arguments = 1

    def run(self):
        import importlib
        import inspect
        modname = self.arguments[0]
        module = importlib.import_module(modname)
        groups = {"Classes": [], "Functions": [], "Constants": []}
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                kind = "exception" if issubclass(obj, BaseException) else "class"
                groups["Classes"].append(f".. auto{kind}:: {name}\n   :members:")
            elif inspect.isroutine(obj):
                groups["Functions"].append(f".. autofunction:: {name}")
            else:
                groups["Constants"].append(f".. autodata:: {name}")
        text = [f".. automodule:: {modname}\n   :no-members:", f".. currentmodule:: {modname}"]
        for title, items in groups.items():
            if items:
                text += [f".. rubric:: {title}", *items]
        return self.parse_text_to_nodes("\n\n".join(text) + "\n")


class ExampleCell(SphinxDirective):
    """``example-cell``: Python code run when the page is read, shown with what it printed (stdout
    and stderr).  The cells of a page share one namespace, in order; an exception fails the build.
    Run here rather than in a Jupyter kernel per page: rulecert is imported once for all."""

    has_content = True
    optional_arguments = 1     # the language, as a code-cell's: python

    def run(self):
        import contextlib
        import io
        import traceback
        from sphinx.util import logging
        code = "\n".join(self.content) + "\n"
        namespace = self.env.temp_data.setdefault("example-cell", {"__name__": "__main__"})
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                exec(compile(code, "<example-cell>", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 (reported: fails the build under -W)
            trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__.tb_next))
            logging.getLogger(__name__).warning("example-cell raised:\n%s", trace,
                                                location=self.get_location())
        source = nodes.literal_block(code, code, language="python")
        cell = nodes.container("", nodes.container("", source, classes=["cell_input"]), classes=["cell"])
        if printed.getvalue():
            out = nodes.literal_block(printed.getvalue(), printed.getvalue(), language="none")
            cell += nodes.container("", out, classes=["cell_output"])
        return [cell]


# -- docstrings of public names -------------------------------------------------------------------

# Every public class and function has a docstring: the build fails on one without.
_ATTRIBUTE_DOCS = {}


def _docstrings(app, what, name, obj, options, lines):
    """A constant shows its own docstring, never its type's; a public class or function has one."""
    import inspect
    if what in ("data", "attribute", "property"):
        own = inspect.getdoc(type(obj)) or ""
        if lines and "\n".join(lines).strip() == own.strip():
            lines[:] = []
        if not lines and what == "data":   # re-exported: the docstring beside its definition
            from sphinx.pycode import ModuleAnalyzer
            modname, attr = name.rsplit(".", 1)
            for mname, mod in sorted(sys.modules.items()):
                if mname.startswith("rulecert.") and mname != modname and getattr(mod, attr, None) is obj:
                    try:
                        docs = ModuleAnalyzer.for_module(mname).find_attr_docs()
                    except Exception:  # noqa: BLE001 (no source: nothing to take)
                        continue
                    if ("", attr) in docs:
                        lines[:] = list(docs[("", attr)])
                        break
        _ATTRIBUTE_DOCS[name] = list(lines)
    elif what in ("class", "function", "exception") and not any(line.strip() for line in lines):
        from sphinx.util import logging
        logging.getLogger(__name__).warning("public name without a docstring: %s", name)


def _attribute_text(app, what, name, obj, options, lines):
    """An attribute's docstring as written: napoleon reads "text: more" as "type: description"."""
    if name in _ATTRIBUTE_DOCS:
        lines[:] = _ATTRIBUTE_DOCS.pop(name)


def _skip(app, what, name, obj, skip, options):
    """scikit-learn's generated metadata-routing methods are not rulecert's to document."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


# One object exported under several public names (rulecert.RuleList is rulecert.models.RuleList)
# is documented on each module's page; each registers the same canonical name, which Sphinx would report as
# a duplicate description.  The canonical name is kept once; real duplicates still warn.
from sphinx.domains.python import PythonDomain  # noqa: E402

_note_object = PythonDomain.note_object


def _note_object_once(self, name, objtype, node_id, aliased=False, location=None):
    if aliased and name in self.objects and self.objects[name].aliased:
        return
    return _note_object(self, name, objtype, node_id, aliased=aliased, location=location)


PythonDomain.note_object = _note_object_once


def setup(app):
    app.add_directive("rulecert-modules", ModuleList)
    app.add_directive("rulecert-api", ModuleAPI)
    app.add_directive("example-cell", ExampleCell)
    app.connect("autodoc-process-docstring", _docstrings, priority=400)
    app.connect("autodoc-process-docstring", _attribute_text, priority=600)
    app.connect("autodoc-skip-member", _skip)
