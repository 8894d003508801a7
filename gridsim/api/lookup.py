"""Finding a level by name, after Lab2D: ``level_directory`` first, then the built-ins.

A name resolves to one of three sources: a Python module (``<name>.py`` or
``<name>/__init__.py``) defining ``LEVEL`` or ``make(argument)``, a text map
(``<name>.txt``), or an inline map (``"=" + text``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from gridsim.errors import LevelNotFoundError
from gridsim.levels import builtin_root

__all__ = ["LevelSource", "import_level_module", "resolve_level"]


@dataclass(frozen=True)
class LevelSource:
    """Where a level name led.

    Attributes:
        name: the name without its argument (``"examples/maze"``), or the path as given.
        argument: the text after the last ``:`` (``""`` when there is none).
        kind: ``"module"``, ``"text"`` or ``"inline"``.
        path: the file found (None for inline maps).
        builtin: the file lies among gridsim's built-in levels.
        text: the map text of an inline level.
    """

    name: str
    argument: str
    kind: str
    path: Path | None = None
    builtin: bool = False
    text: str | None = None

    @property
    def location(self) -> str:
        """The ``level.path`` property: the file, ``builtin:<name>``, or ``<inline>``."""
        if self.kind == "inline":
            return "<inline>"
        return f"builtin:{self.name}" if self.builtin else str(self.path)


def _kind(path: Path) -> str:
    return "text" if path.suffix == ".txt" else "module"


def resolve_level(level: str | Path, level_directory: str | Path | None = None) -> LevelSource:
    """Resolve a level name (spec: lab2d_levels.md section 1).

    1. A :class:`~pathlib.Path` is that file, with no argument and no search.
    2. A str starting with ``=`` is an inline text map.
    3. Otherwise the str is split at its last ``:`` into name and argument.
    4. A name ending in ``.py`` or ``.txt`` is a file path (relative to the working directory).
    5. Otherwise each root, ``level_directory`` first and then the built-in levels, is tried
       for ``<name>.py``, ``<name>/__init__.py`` and ``<name>.txt``; the first file found wins.

    Raises:
        LevelNotFoundError: nothing found; the message lists every path tried.
    """
    if isinstance(level, Path):
        if level.is_file():
            return LevelSource(str(level), "", _kind(level), level)
        raise LevelNotFoundError(str(level), [str(level)])
    if not isinstance(level, str):
        raise TypeError(f"level must be a str or a pathlib.Path, got {type(level).__name__}")
    if level.startswith("="):
        return LevelSource("<inline>", "", "inline", text=level[1:])
    name, sep, argument = level.rpartition(":")
    if not sep:
        name, argument = level, ""
    if not name:
        raise LevelNotFoundError(level, [])
    if name.endswith((".py", ".txt")):
        path = Path(name)
        if path.is_file():
            return LevelSource(name, argument, _kind(path), path)
        raise LevelNotFoundError(level, [str(path)])
    roots = ([(Path(level_directory), False)] if level_directory is not None else [])
    roots.append((builtin_root(), True))
    tried = []
    for root, builtin in roots:
        for candidate in (root / f"{name}.py", root / name / "__init__.py", root / f"{name}.txt"):
            tried.append(str(candidate))
            if candidate.is_file():
                return LevelSource(name, argument, _kind(candidate), candidate, builtin=builtin)
    raise LevelNotFoundError(level, tried)


_modules: dict[str, ModuleType] = {}
_lock = threading.Lock()


def import_level_module(path: Path) -> ModuleType:
    """Import a level module from its file, once per process per path.

    It gets a private module name (so two levels called ``maze`` never collide); a
    package level (``<name>/__init__.py``) can import its own submodules relatively.
    """
    key = str(Path(path).resolve())
    with _lock:
        if key in _modules:
            return _modules[key]
        digest = hashlib.sha1(key.encode()).hexdigest()[:12]
        mod_name = f"_gridsim_level_{digest}"
        package = Path(key).name == "__init__.py"
        spec = importlib.util.spec_from_file_location(
            mod_name, key, submodule_search_locations=[str(Path(key).parent)] if package else None
        )
        if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
            raise ImportError(f"cannot import level module {key}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[mod_name]
            raise
        _modules[key] = module
        return module
