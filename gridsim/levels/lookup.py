"""The one level resolver, after Lab2D: ``level_directory`` first, then the built-ins.

A name resolves to one of three sources: a Python module (``<name>.py`` or
``<name>/__init__.py``) defining ``LEVEL`` or ``make(argument)``, a text map
(``<name>.txt``), or an inline map (``"=" + text``). Every family and
:func:`gridsim.make` find levels through :func:`resolve_level`; :func:`find_level`
and :func:`read_level` are its text-map form.

A name never leaves its root: absolute names and ``..`` are refused, and a file found
through a symbolic link must still lie inside the root. A level module is Python code
that runs when it is loaded, like any import; ``allow_code=False`` accepts text levels only.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import importlib.util
import itertools
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from gridsim.errors import ArgumentTypeError, LevelError, LevelNotFoundError, close_matches
from gridsim.levels.textmap import ParsedLevel, decode_level_bytes, parse_level_text

__all__ = [
    "ID_NAMESPACE",
    "LevelSource",
    "builtin_level_names",
    "builtin_root",
    "check_level_name",
    "find_level",
    "gridsim_id",
    "import_level_module",
    "level_names",
    "read_level",
    "read_source",
    "resolve_level",
]


_MAX_SCANNED = 20_000
# The Gymnasium namespace of gridsim's ids ("gridsim/MiniGrid-DoorKey-8x8-v0"): the resolver suggests
# ids for a misspelt one, and the registry and the tools name ids with it.
ID_NAMESPACE = "gridsim/"


@functools.cache
def builtin_root() -> Path:
    """The folder of gridsim's built-in levels (one subfolder per family).

    Installed, it is the package ``gridsim.builtin_levels``; in a source checkout it is
    the repository's ``levels/`` folder. Never the working directory.
    """
    try:
        return Path(str(importlib.resources.files("gridsim.builtin_levels")))
    except ImportError:
        return Path(__file__).resolve().parents[2] / "levels"  # gridsim/levels/lookup.py -> the checkout


def builtin_level_names(family: str) -> list[str]:
    """Sorted names of the built-in text levels of a family, e.g. ``["nav/four_rooms", ...]``."""
    return sorted(f"{family}/{p.stem}" for p in (builtin_root() / family).glob("*.txt"))


@dataclass(frozen=True)
class LevelSource:
    """Where a level name led.

    A text source can be given to a family's env as ``level=``: it reads that file, with no
    second lookup (:func:`read_source`).

    Attributes:
        name: the name without its argument (``"examples/maze"``), or the path as given.
        argument: the text after the last ``:`` (``""`` when there is none).
        kind: ``"module"``, ``"text"`` or ``"inline"``.
        path: the file found, symbolic links resolved (None for inline maps).
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


def _refuse_code(src: LevelSource, allow_code: bool) -> LevelSource:
    """``src``, unless it is a Python level module and ``allow_code`` is False."""
    if src.kind == "module" and not allow_code:
        raise LevelError(f"level {src.name!r} is a Python level module, code that runs when it is loaded; "
                         "allow_code=False accepts text levels only", str(src.path))
    return src


def check_level_name(name: str) -> None:
    """Refuse a name that could leave the level directories.

    Raises:
        LevelError: the name is absolute (``/x``; ``C:x`` on Windows), has a ``..`` part, a
            backslash or a NUL character.
    """
    reason = None
    if "\0" in name:
        reason = "holds a NUL character"
    elif "\\" in name:
        reason = "holds a backslash; separate folders with '/'"
    elif name.startswith("/") or Path(name).anchor:  # the anchor: a drive or root, on Windows too
        reason = "is absolute"
    elif ".." in name.split("/"):
        reason = "has a '..' part"
    if reason is not None:
        raise LevelError(f"level name {name!r} {reason}: a name is looked up inside the level directories "
                         "(level_directory, then the built-in levels); pass a level_directory and a name "
                         "relative to it, or a pathlib.Path of the file", name)


def resolve_level(level: str | Path, level_directory: str | Path | None = None, *,
                  family: str | None = None, text_only: bool = False, allow_code: bool = True) -> LevelSource:
    """Resolve a level name (spec: lab2d_levels.md section 1).

    1. A :class:`~pathlib.Path` is that file, with no argument and no search; it ends in
       ``.txt`` (a text map) or ``.py`` (a level module).
    2. A str starting with ``=`` is an inline text map.
    3. Otherwise the str is split at its last ``:`` into name and argument.
    4. The name must stay inside the roots: no absolute names, no ``..`` (:func:`check_level_name`).
    5. Each root, ``level_directory`` first and then the built-in levels, is tried for
       ``<name>.py``, ``<name>/__init__.py`` and ``<name>.txt`` (a name ending in ``.py`` or
       ``.txt`` is tried as it is); the first file found wins. The file, symbolic links
       resolved, must lie inside its root.
    6. With ``family``, a bare name (no ``/``) that step 5 does not find is tried again as
       ``<family>/<name>``.

    Args:
        level: the name, path or inline map.
        level_directory: a folder searched before the built-in levels.
        family: the folder a bare name may also live in (step 6).
        text_only: look for text maps only: the name is not split at ``:`` and only
            ``<name>.txt`` (or a name ending in ``.txt``) is tried in each root.
        allow_code: False refuses a Python level module (it would run when loaded).

    Raises:
        LevelNotFoundError: nothing found; the message lists every path tried.
        LevelError: the name leaves the roots, a path ends in neither ``.txt`` nor ``.py``, or
            it names a Python level module and ``allow_code`` is False.
    """
    if isinstance(level, Path):
        if not _is_file(level):
            raise LevelNotFoundError(str(level), [str(level)])
        if level.suffix not in (".txt", ".py"):  # nothing else can be read as a level
            raise LevelError(f"a level file ends in .txt (a text map) or .py (a level module), got {level.name!r}",
                             str(level))
        return _refuse_code(LevelSource(str(level), "", _kind(level), level.resolve()), allow_code)
    if not isinstance(level, str):
        raise ArgumentTypeError(f"level must be a str or a pathlib.Path, got {type(level).__name__}")
    if level.startswith("="):
        return LevelSource("<inline>", "", "inline", text=level[1:])
    name, sep, argument = ("", "", "") if text_only else level.rpartition(":")
    if not sep:
        name, argument = level, ""
    if not name:
        raise LevelNotFoundError(level, [])
    check_level_name(name)
    tried: list[str] = []
    names = [name] + ([f"{family}/{name}"] if family is not None and "/" not in name else [])
    for candidate_name in names:
        found = _search(candidate_name, level_directory, text_only, tried)
        if found is not None:
            path, builtin = found
            src = LevelSource(candidate_name, argument, _kind(path), path, builtin=builtin)
            return _refuse_code(src, allow_code)
    # A suggestion is another name: never one that was just tried (a dangling link or a folder
    # named like a level is listed by name but is no file; suggesting it would name the failure).
    failed = {level, *names, *(n.removesuffix(".txt").removesuffix(".py") for n in names)}
    # Spelling -> the name suggested: the levels, and the ids for callers that take an id or a level
    # name (evaluate, the gridsim commands), which end here for a misspelt id.
    known = {n: n for n in level_names(level_directory, text_only=text_only) if n not in failed}
    if not text_only:
        known |= _id_spellings(name, failed)
    suggestions = close_matches(names[-1], known) or close_matches(name, known)
    raise LevelNotFoundError(level, tried, [known[s] for s in suggestions])


def gridsim_id(name: str) -> str | None:
    """The registered gridsim id ``name`` names, or None when it names none.

    A registered id whose env is gridsim's names itself (``gridsim/Nav-four_rooms-v0``, or an id
    of :func:`gridsim.register_level`). A name without a namespace also names the gridsim id it is
    the end of: ``MiniGrid-DoorKey-8x8-v0``, Minigrid's own id, is ``gridsim/MiniGrid-DoorKey-8x8-v0``,
    which plays that env seed for seed. It does so even where the ``minigrid`` package has
    registered its own env under that name: the gridsim tools run gridsim envs.

    Args:
        name: an id, with or without ``gridsim/``.

    Returns:
        The id as registered, or None.
    """
    import gymnasium as gym

    candidates = [name] if "/" in name else [name, ID_NAMESPACE + name]
    return next((c for c in candidates if c in gym.registry and _is_gridsim(gym.registry[c])), None)


def _is_gridsim(spec: Any) -> bool:
    """Whether a Gymnasium spec makes a gridsim env (its vector entry point is gridsim's)."""
    entry = spec.vector_entry_point
    return isinstance(entry, str) and entry.startswith("gridsim.")


def _id_spellings(name: str, failed: set[str]) -> dict[str, str]:
    """The gridsim ids, each as ``name`` would spell it -> the id as registered.

    A name in gridsim's namespace is compared with the ids whole; a name without a ``/`` with the
    ids without the namespace (``MiniGrid-DoorKey-8x8-v9``, Minigrid's spelling, suggests
    ``gridsim/MiniGrid-DoorKey-8x8-v0``); a name in a folder (``nav/four_romos``) is no id.
    """
    import gymnasium as gym

    ids = [k for k in gym.registry if k.startswith(ID_NAMESPACE) and k not in failed]
    if name.startswith(ID_NAMESPACE):
        return {k: k for k in ids}
    if "/" in name:
        return {}
    return {k.removeprefix(ID_NAMESPACE): k for k in ids}


def level_names(level_directory: str | Path | None = None, *, text_only: bool = False) -> list[str]:
    """Sorted names of the levels in ``level_directory`` and among the built-ins.

    A name is a ``.txt`` or ``.py`` file's path below its root without the suffix, or a
    package folder's (``<name>/__init__.py``); hidden and private (``_``) parts are skipped.
    Used to suggest the closest names when a level is not found; at most the first
    ``_MAX_SCANNED`` files of each root are looked at.
    """
    names: set[str] = set()
    for root, _ in _roots(level_directory):
        if not root.is_dir():
            continue
        # Bounded, so a level_directory such as "/" cannot stall an error message.
        for path in itertools.islice(root.rglob("*.txt" if text_only else "*.*"), _MAX_SCANNED):
            if path.suffix not in (".txt", ".py") or not _is_file(path):  # a dangling link or a folder is no level
                continue
            rel = path.relative_to(root)
            if rel.name == "__init__.py":
                rel = rel.parent
                if rel == Path("."):
                    continue
            else:
                rel = rel.with_suffix("")
            if any(part.startswith(("_", ".")) for part in rel.parts):
                continue
            names.add(rel.as_posix())
    return sorted(names)


def _roots(level_directory: str | Path | None) -> list[tuple[Path, bool]]:
    """The folders a name is looked up in, ``level_directory`` first, each with whether it is built in."""
    roots = [(builtin_root(), True)]
    if level_directory is None:
        return roots
    if not isinstance(level_directory, (str, os.PathLike)) or "\0" in str(level_directory):
        raise ArgumentTypeError(f"level_directory must be a folder (a str or a path), got {level_directory!r}")
    return [(Path(level_directory), False), *roots]


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long for the file system, say
        return False


def _search(name: str, level_directory: str | Path | None, text_only: bool,
            tried: list[str]) -> tuple[Path, bool] | None:
    """The first file of ``name`` in the roots, resolved (and whether it is built in); appends to ``tried``."""
    roots = _roots(level_directory)
    suffixed = name.endswith(".txt" if text_only else (".py", ".txt"))
    for root, builtin in roots:
        if suffixed:
            candidates: tuple[Path, ...] = (root / name,)
        elif text_only:
            candidates = (root / f"{name}.txt",)
        else:
            candidates = (root / f"{name}.py", root / name / "__init__.py", root / f"{name}.txt")
        for candidate in candidates:
            tried.append(str(candidate))
            if _is_file(candidate):
                real, real_root = candidate.resolve(), root.resolve()
                if not real.is_relative_to(real_root):
                    raise LevelError(f"{candidate} leads to {real}, outside the level directory {real_root}",
                                     str(candidate))
                return real, builtin
    return None


def find_level(name: str | Path, level_directory: str | Path | None = None, *,
               family: str | None = None) -> Path:
    """Resolve a text-map name to its file (:func:`resolve_level` with ``text_only=True``).

    A :class:`~pathlib.Path` is taken literally. A name is looked up as ``<name>.txt`` (or
    as itself when it ends in ``.txt``) in ``level_directory`` first, then among the built-in
    levels, so a user directory can shadow a built-in level of the same name.

    Args:
        name: a level name such as ``"nav/four_rooms"``, or a path.
        level_directory: an extra folder searched before the built-ins.
        family: also try ``<family>/<name>`` for a bare name.

    Returns:
        The level file.

    Raises:
        LevelNotFoundError: nothing matched; the error lists every path tried.
        LevelError: the name leaves the level directories.
    """
    path = resolve_level(name, level_directory, family=family, text_only=True).path
    assert path is not None  # text_only never returns an inline level for a file name
    return path


@functools.lru_cache(maxsize=256)
def _read_file(path: str, mtime_ns: int, size: int) -> ParsedLevel:
    # mtime and size are part of the key, so an edited file is read again.
    with open(path, "rb") as f:
        return parse_level_text(decode_level_bytes(f.read(), path), path)


def read_level(level: str | Path, level_directory: str | Path | None = None, *,
               family: str | None = None) -> ParsedLevel:
    """Find and parse a text level.

    Args:
        level: a level name or path (see :func:`find_level`), or a str starting with
            ``"="`` holding the map text itself (the rest of the string).
        level_directory: an extra folder searched before the built-ins.
        family: also try ``<family>/<name>`` for a bare name.

    Returns:
        The parsed level. Files are cached on (path, modification time, size).
    """
    if isinstance(level, str) and level.startswith("="):
        return parse_level_text(level[1:])
    path = find_level(level, level_directory, family=family)  # symbolic links resolved
    st = path.stat()
    return _read_file(str(path), st.st_mtime_ns, st.st_size)


def read_source(src: LevelSource) -> ParsedLevel:
    """Parse a text level already resolved (:func:`resolve_level`), without looking it up again.

    A family's env takes such a source as its ``level=`` (:func:`gridsim.make` passes the one
    it resolved), so a level name is resolved once per env. Files are cached as by
    :func:`read_level`.

    Raises:
        LevelError: ``src`` is a Python level module, not a text map.
    """
    if src.kind == "inline":
        return parse_level_text(src.text or "")
    if src.kind != "text" or src.path is None:
        raise LevelError(f"level {src.name!r} is a Python level module, not a text map", str(src.path))
    st = src.path.stat()
    return _read_file(str(src.path), st.st_mtime_ns, st.st_size)


_modules: dict[str, ModuleType] = {}
# The modules being loaded now: key -> the thread running it and an event set when it ends.
_loading: dict[str, tuple[int, threading.Event]] = {}
# The key each thread waits for (to tell a cycle across threads from a wait).
_waiting: dict[int, str] = {}
# Guards the three tables only: a module's code runs without it, so a level module may load
# other level modules (each load takes it again for a moment).
_lock = threading.Lock()


def _cycle(key: str, me: int) -> bool:
    """Whether waiting for ``key`` would wait for ``me`` itself: follow who loads what (under ``_lock``)."""
    seen: set[str] = set()
    while key in _loading and key not in seen:
        seen.add(key)
        owner = _loading[key][0]
        if owner == me:
            return True
        if owner not in _waiting:
            return False
        key = _waiting[owner]
    return False


def import_level_module(path: Path) -> ModuleType:
    """Import a level module from its file, once per process per path.

    It gets a private module name (so two levels called ``maze`` never collide); a
    package level (``<name>/__init__.py``) can import its own submodules relatively.
    The module is Python code and runs now, like any import; it may load other level
    modules. Threads that load the same module at once get the one module, run once.

    Raises:
        LevelError: the file is not valid Python (with its line and column), or it loads
            itself while it runs (directly, through other level modules, or through a thread
            that waits for it).
    """
    key = str(Path(path).resolve())
    me = threading.get_ident()
    while True:
        with _lock:
            if key in _modules:
                return _modules[key]
            if key not in _loading:
                done = threading.Event()
                _loading[key] = (me, done)
                break
            if _cycle(key, me):
                raise LevelError("the level module loads itself while it runs (a cycle of level modules)", key)
            event = _loading[key][1]
            _waiting[me] = key
        try:
            event.wait()  # another thread runs it; then it is loaded, or failed and is tried here
        finally:
            with _lock:
                del _waiting[me]
    try:
        module = _exec_level_module(key)
        with _lock:
            _modules[key] = module
        return module
    finally:
        with _lock:
            del _loading[key]
        done.set()


def _exec_level_module(key: str) -> ModuleType:
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
    except SyntaxError as e:  # a malformed level file, with its line and column
        del sys.modules[mod_name]
        raise LevelError(f"invalid Python: {e.msg}", key, e.lineno, e.offset) from e
    except BaseException:
        del sys.modules[mod_name]
        raise
    return module
