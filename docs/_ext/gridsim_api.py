"""The API reference's one directive: ``public-module``, every public name of a module, each documented once.

``.. public-module:: gridsim.nav`` renders the module's docstring and then each name of its
``__all__`` (or, for a module without one, each public name it defines) with autodoc. A name
is documented at its home: the first module of :data:`MODULES` that exports the object.
Elsewhere it is one line that links there, so ``gridsim.NavVectorEnv``, ``gridsim.envs.NavVectorEnv``
and ``gridsim.nav.env.NavVectorEnv`` are one entry, and references to any of them resolve
(autodoc gives each entry its defining module's path as ``:canonical:``).

The build fails (a warning, with ``-W``) when a module of :data:`MODULES` has no page, when
a page names a module that is not in :data:`MODULES`, or when gridsim has an importable module
that is in neither :data:`MODULES` nor :data:`LEFT_OUT`: a new module is documented or left out
on purpose, never forgotten.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import PycodeError
from sphinx.ext.autodoc.mock import mock
from sphinx.pycode import ModuleAnalyzer
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.inspect import stringify_signature
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)

# The documented modules, in order of precedence: an object exported by several of them is
# documented at the first (``gridsim.GridVectorEnv``, not ``gridsim.engine.vector.GridVectorEnv``).
MODULES = [
    "gridsim",
    "gridsim.errors",
    "gridsim.make",
    "gridsim.registry",
    "gridsim.envs",
    "gridsim.families",
    "gridsim.nav",
    "gridsim.roboman",
    "gridsim.kitchen",
    "gridsim.minigrid",
    "gridsim.minigrid.interop",
    "gridsim.minigrid.babyai",
    "gridsim.minigrid.bot",
    "gridsim.minigrid.demos",
    "gridsim.minigrid.python_tasks",
    "gridsim.minigrid.compiled",
    "gridsim.minigrid.checking",
    "gridsim.minigrid.tasks",
    "gridsim.minigrid.ids",
    "gridsim.minigrid.spaces",
    "gridsim.minigrid.rng",
    "gridsim.minigrid.render",
    "gridsim.minigrid.world",
    "gridsim.minigrid.attributes",
    "gridsim.minigrid.streams",
    "gridsim.minigrid.wrappers",
    "gridsim.lab2d",
    "gridsim.lab2d.specs",
    "gridsim.lab2d.properties",
    "gridsim.lab2d.surface",
    "gridsim.levels",
    "gridsim.levels.textmap",
    "gridsim.levels.lookup",
    "gridsim.engine",
    "gridsim.engine.vector",
    "gridsim.engine.parts",
    "gridsim.engine.stateio",
    "gridsim.engine.rendering",
    "gridsim.engine.single",
    "gridsim.engine.fields",
    "gridsim.engine.state",
    "gridsim.engine.statefile",
    "gridsim.engine.checkpoint",
    "gridsim.engine.settings",
    "gridsim.engine.locking",
    "gridsim.engine.events",
    "gridsim.engine.rng",
    "gridsim.engine.draw",
    "gridsim.engine.family",
    "gridsim.engine.grammar",
    "gridsim.engine.files",
    "gridsim.engine.memory",
    "gridsim.engine.kernel",
    "gridsim.tools",
    "gridsim.distributed",
    "gridsim.tools.evaluate",
    "gridsim.tools.results",
    "gridsim.tools.policies",
    "gridsim.tools.draws",
    "gridsim.tools.distributed",
    "gridsim.tools.record",
    "gridsim.tools.play",
    "gridsim.tools.benchmark",
    "gridsim.tools.env_names",
    "gridsim.tools.torch_agent",
    "gridsim.integrations",
    "gridsim.integrations.sb3",
    "gridsim.integrations.rllib",
]

# Modules with no page of their own, and below them their submodules; ``pkg.`` leaves out only the submodules.
LEFT_OUT = {
    # A family's implementation: its package exports the public part (docs/new_family.md
    # describes each file's duty).
    "gridsim.nav.": "a family's implementation",
    "gridsim.roboman.": "a family's implementation",
    "gridsim.kitchen.": "a family's implementation",
    "gridsim.minigrid.api": "a family's implementation",
    "gridsim.minigrid.env": "a family's implementation",
    "gridsim.minigrid.state": "a family's implementation",
    "gridsim.minigrid.fields": "a family's implementation",
    # Run by setup.py before it compiles (docs/architecture.md, "The kernel").
    "gridsim.engine.codegen": "the build's code generator",
    "gridsim.minigrid._kernel": "a family's implementation",
    # The pure-Python oracles, imported by tests and bench only.
    "gridsim.reference": "the oracles of the tests",
    # The command line: README.md documents the commands. (Private modules, ``_x``, are left out too.)
    "gridsim.cli": "the command line",
    # The installed copy of the levels/ folder (setup.py's package_dir): level data, described in
    # docs/levels.md; only an installed build has it.
    "gridsim.builtin_levels": "the built-in levels (data)",
}


def _public_names(module: Any) -> list[str]:
    """A module's ``__all__``, or else the public names it defines itself (what autodoc would document)."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not inspect.ismodule(value)
        and getattr(value, "__module__", None) == module.__name__
    ]


def _key(value: Any, module: str, name: str) -> tuple[Any, ...]:
    """What makes two exports one entry: the object's identity, but for scalars and empty containers.

    Python shares those between unrelated names (``EMPTY = 0`` here, ``FLOOR = 0`` there), so each
    such name is an entry of its own.
    """
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))) or (
        isinstance(value, (tuple, frozenset)) and not value
    ):
        return ("value", module, name)
    return ("object", id(value))


class _Catalogue:
    """Every documented module's public names and the home of each object."""

    def __init__(self, mock_imports: list[str]) -> None:
        self.modules: dict[str, Any] = {}
        self.names: dict[str, list[str]] = {}
        self.home: dict[tuple[Any, ...], str] = {}
        with mock(mock_imports):
            for module_name in MODULES:
                module = importlib.import_module(module_name)
                self.modules[module_name] = module
                self.names[module_name] = _public_names(module)
                for name in self.names[module_name]:
                    self.home.setdefault(_key(getattr(module, name), module_name, name), f"{module_name}.{name}")
            self.unlisted = self._unlisted()

    def _unlisted(self) -> list[str]:
        """The importable modules of gridsim that are neither documented nor left out."""
        import gridsim

        names = [info.name for info in pkgutil.walk_packages(gridsim.__path__, "gridsim.", onerror=lambda name: None)]
        return [name for name in names if name not in MODULES and not _left_out(name)]


def _left_out(name: str) -> bool:
    """Whether :data:`LEFT_OUT` leaves the module out: private, or listed (``pkg.`` lists a package's modules)."""
    if any(part.startswith("_") for part in name.split(".")):
        return True
    return any(name.startswith(p) if p.endswith(".") else name == p or name.startswith(p + ".") for p in LEFT_OUT)


def _catalogue(app: Sphinx) -> _Catalogue:
    if not hasattr(app, "_gridsim_catalogue"):
        app._gridsim_catalogue = _Catalogue(list(app.config.autodoc_mock_imports))  # type: ignore[attr-defined]
    return app._gridsim_catalogue  # type: ignore[attr-defined]


def _summary(value: Any) -> str:
    """The first line of an object's own docstring, or ''."""
    doc = inspect.getdoc(value) if (inspect.isclass(value) or callable(value)) else None
    return doc.strip().splitlines()[0] if doc and doc.strip() else ""


def _entry(full_name: str, value: Any) -> list[str]:
    """The autodoc directive that documents ``value`` as ``full_name``."""
    if inspect.isclass(value) and issubclass(value, BaseException):
        return [f".. autoexception:: {full_name}", "   :members:", "   :show-inheritance:", ""]
    if inspect.isclass(value):
        return [f".. autoclass:: {full_name}", "   :members:", "   :show-inheritance:", ""]
    if inspect.isroutine(value):
        return [f".. autofunction:: {full_name}", ""]
    lines = [f".. autodata:: {full_name}"]
    shown = repr(value)
    if len(shown) > 80 or "\n" in shown:
        # A long value (a table of ids, an array) reads better as its type and size.
        size = f" of {len(value)}" if hasattr(value, "__len__") else ""
        lines.append(f"   :annotation: : {type(value).__name__}{size}")
    return [*lines, ""]


class PublicModule(SphinxDirective):
    """``.. public-module:: gridsim.x``: the module's docstring, then each of its public names."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        """The module's entry and its names' entries, parsed from generated autodoc directives."""
        module_name = self.arguments[0]
        catalogue = _catalogue(self.env.app)
        if module_name not in catalogue.modules:
            logger.warning("public-module %s: not in gridsim_api.MODULES", module_name, location=self.get_location())
            return []
        if not hasattr(self.env, "gridsim_pages"):
            self.env.gridsim_pages = {}
        self.env.gridsim_pages.setdefault(self.env.docname, []).append(module_name)
        module = catalogue.modules[module_name]
        lines = [f".. automodule:: {module_name}"]
        if module_name in catalogue.home.values():
            # A module shadowed by a name of its package (the function gridsim.make over the
            # module gridsim.make): the object keeps the name, the module is documented unindexed.
            lines.append("   :no-index:")
        lines.append("")
        elsewhere = []
        for name in catalogue.names[module_name]:
            value = getattr(module, name)
            full_name = f"{module_name}.{name}"
            home = catalogue.home[_key(value, module_name, name)]
            if home == full_name:
                lines += _entry(full_name, value)
            else:
                elsewhere.append((name, home, _summary(value)))
        if elsewhere:
            lines += [".. rubric:: Also exported here", ""]
            for name, home, summary in elsewhere:
                lines.append(f"- ``{name}``: :py:obj:`{home}`" + (f" — {summary}" if summary else ""))
            lines.append("")
        content = StringList(lines, source=f"<public-module {module_name}>")
        node = nodes.container()
        nested_parse_with_titles(self.state, content, node)
        return node.children


def _purge(app: Sphinx, env: Any, docname: str) -> None:
    getattr(env, "gridsim_pages", {}).pop(docname, None)


def _merge(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    env.gridsim_pages = getattr(env, "gridsim_pages", {})
    theirs = getattr(other, "gridsim_pages", {})
    env.gridsim_pages.update({d: theirs[d] for d in docnames if d in theirs})


def _check(app: Sphinx, env: Any) -> None:
    """Every module of MODULES has a page, once; every gridsim module is documented or left out."""
    catalogue = _catalogue(app)
    seen: dict[str, str] = {}
    for docname, modules in sorted(getattr(env, "gridsim_pages", {}).items()):
        for module_name in modules:
            if module_name in seen:
                logger.warning("public-module %s is on two pages: %s and %s", module_name, seen[module_name], docname)
            seen[module_name] = docname
    for module_name in MODULES:
        if module_name not in seen:
            logger.warning("gridsim_api.MODULES lists %s, but no page has `public-module %s`", module_name, module_name)
    for module_name in catalogue.unlisted:
        logger.warning("%s is in neither gridsim_api.MODULES nor gridsim_api.LEFT_OUT", module_name)


def _has_doc_comment(full_name: str) -> bool:
    """Whether a module-level name has a ``#:`` comment or a docstring after its assignment."""
    module_name, _, name = full_name.rpartition(".")
    try:
        return ("", name) in ModuleAnalyzer.for_module(module_name).find_attr_docs()
    except PycodeError:
        return False


def _markdown_docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Gymnasium-style docstrings, in reStructuredText: ``## Heading`` lines and markdown tables.

    The env classes' docstrings have Gymnasium's sections (``## Description``, ``## Action Space``,
    ...) and markdown tables (their settings table is also what ``gridsim list --settings`` prints);
    the rest of their markup is reStructuredText already.
    """
    if what == "data" and lines and not _has_doc_comment(name):
        # A value has no docstring of its own: autodoc would show its type's (dict's, ndarray's).
        lines[:] = []
        return
    if what in ("attribute", "property") and lines and lines[0].startswith("Alias for field number "):
        lines[:] = []  # a NamedTuple's field: its class docstring says what the fields are
        return
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        # Only at the docstring's own indentation: never inside a literal block or an example.
        if line.startswith(("## ", "### ")) and line.lstrip("#").strip():
            out += [f".. rubric:: {line.lstrip('#').strip()}", ""]
            i += 1
            continue
        if line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not lines[i].startswith("|---"):
                    rows.append([cell.strip() for cell in lines[i].strip().strip("|").split("|")])
                i += 1
            if any(len(row) != len(rows[0]) for row in rows):
                logger.warning("%s: a markdown table whose rows have different numbers of cells", name)
            out += [".. list-table::", "   :header-rows: 1", ""]
            for row in rows:
                out += [f"   {'* -' if k == 0 else '  -'} {cell}" for k, cell in enumerate(row)]
            out.append("")
            continue
        out.append(line)
        i += 1
    lines[:] = out


class OutsideLinks(SphinxPostTransform):
    """Markdown links to files outside docs/ that the site includes as pages of its own.

    ``[x](../examples/README.md#minigrid)`` is right on GitHub; in the site it goes to the page
    that includes the file (``gridsim_included_files``: path from the repository root -> page).
    A link to any other file outside docs/ is left to MyST, which warns.
    """

    default_priority = 5  # before MyST's resolver (9)

    def run(self, **kwargs: Any) -> None:
        """Point each such link at the page that includes its file."""
        root = os.path.dirname(os.path.abspath(self.env.srcdir))
        pages = self.config.gridsim_included_files
        for node in self.document.findall(addnodes.pending_xref):
            if node.get("reftype") != "myst" or node.get("refdomain") != "doc":
                continue
            target = str(node["reftarget"])
            if not os.path.isabs(target):
                continue
            path = os.path.relpath(target, root).replace(os.sep, "/")
            for included, page in pages.items():
                if os.path.splitext(included)[0] == path:
                    node["reftarget"] = page


def _class_signature(app: Sphinx, what: str, name: str, obj: Any, options: Any, signature: str | None,
                     return_annotation: str | None) -> tuple[str, str | None] | None:
    """A vector env's constructor arguments, not ``(*args, **kwargs)``.

    ``GridVectorEnv.__new__`` takes any arguments (it records them for pickling), and autodoc
    reads ``__new__`` before ``__init__``; Python's own signature of the class is the constructor's.
    """
    if what in ("class", "exception") and signature == "(*args, **kwargs)":
        try:
            return stringify_signature(inspect.signature(obj), show_return_annotation=False), return_annotation
        except (TypeError, ValueError):
            return None
    return None


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directive and the completeness check."""
    app.add_directive("public-module", PublicModule)
    app.add_config_value("gridsim_included_files", {}, "env")
    app.add_post_transform(OutsideLinks)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check)
    # Before napoleon (priority 500), which reads the sections this leaves.
    app.connect("autodoc-process-docstring", _markdown_docstring, priority=400)
    app.connect("autodoc-process-signature", _class_signature)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
