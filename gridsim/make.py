"""``gridsim.Level`` and ``gridsim.make``: a level is a family, what it plays and its settings.

A level module (found by :func:`gridsim.levels.lookup.resolve_level`) defines ``LEVEL``, a
:class:`Level`, or ``make(argument) -> Level``. A text map becomes a :class:`Level` of the
family its path names. :meth:`Level.make_env` builds the family's batched env, whose
kernel does all per-step work; the level's Python runs only at construction.
:class:`LevelEnv` is the one-env view of any level. Families come from
:data:`gridsim.families.FAMILIES`.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import gymnasium as gym

from gridsim.engine.settings import (
    COMMON_SETTINGS,
    RESERVED_ALIASES,
    Setting,
    SettingsError,
    as_flag,
    flatten_args,
    format_value,
    merge_settings,
    parse_seed_setting,
    refuse_private_arguments,
)
from gridsim.engine.single import SingleEnvView
from gridsim.engine.vector import GridVectorEnv
from gridsim.errors import ArgumentTypeError, GridSimError, InvalidArgumentError, LevelError, LevelNotFoundError
from gridsim.families import FAMILIES, family_row
from gridsim.levels.lookup import LevelSource, gridsim_id, import_level_module, read_source, resolve_level
from gridsim.levels.textmap import parse_level_text

__all__ = ["Level", "LevelEnv", "load_level", "make"]


class Level:
    r"""A level of one family: what it plays, its default settings and its own settings.

    Args:
        family: ``"nav"``, ``"roboman"`` or ``"kitchen"``; it decides the kernel.
        map: the map text (``nav``: native or PixelWorld format; ``kitchen``: gym-cooking's),
            or a :class:`~pathlib.Path` to a map file.
        defaults: default values of the family's settings (``{"max_steps": 100}``); settings
            and keyword arguments given at construction override them.
        settings: the level's own settings, name -> :class:`gridsim.Setting`; their values
            reach :meth:`build` (and are readable as ``settings.<name>``).
        name: a name for people (``level.name`` shows the name it was found under).
        description: one line for people.
        **family_kwargs: other constructor arguments of the family that are not strings,
            for example a navigation ``alphabet`` dict or kitchen ``rules``.

    Subclasses override :meth:`build` to turn the level's own settings into family
    arguments (a generated map, say), :meth:`properties` to add properties, and may define
    ``text_action_spec()`` and ``on_text_actions(env, index, text)``.

    Example:
        >>> import gridsim
        >>> level = gridsim.Level("nav", map="#####\n#S 0#\n#####", defaults={"max_steps": 20})
        >>> envs = level.make_env(num_envs=4)
        >>> envs.read_property("settings.max_steps")
        '20'
    """

    def __init__(self, family: str, *, map: str | Path | None = None, defaults: Mapping[str, Any] | None = None,
                 settings: Mapping[str, Setting] | None = None, name: str | None = None, description: str = "",
                 **family_kwargs: Any):
        cls = family_row(family).vector_env
        self.family = family
        self.map = map
        self.defaults = dict(defaults or {})
        self.settings = dict(settings or {})
        self.name = name
        self.description = description
        self.family_kwargs = family_kwargs
        self._init_settings: dict[str, str] = {}
        # Where a text level's map file was found (load_level): the env reads it without a second lookup.
        self._map_source: LevelSource | None = None
        clash = set(self.settings) & set(cls.SETTINGS)
        if clash:
            raise LevelError(f"level settings {sorted(clash)} shadow the {family} family's settings", repr(name))
        for key in self.defaults:
            if key not in cls.SETTINGS:
                raise SettingsError(key, f"not a setting of the {family} family; it has {sorted(cls.SETTINGS)}")

    @property
    def env_class(self) -> type[GridVectorEnv]:
        """The family's vector env class."""
        return family_row(self.family).vector_env

    def declared_settings(self) -> dict[str, Setting]:
        """Every setting: the family's, then the level's own."""
        return {**self.env_class.SETTINGS, **self.settings}

    # ---------------------------------------------------------------- protocol

    def init(self, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Validate ``settings`` (str -> str, nested values flattened) and keep them for the specs.

        Returns the typed value of every setting the call named. Raises
        :class:`gridsim.SettingsError` for an unknown key or a value that does not parse.
        """
        flat = flatten_args(settings) if settings is not None else {}
        declared = self.declared_settings()
        values = {}
        for key, text in flat.items():
            head = key.rpartition(".")[0]
            if key in RESERVED_ALIASES:
                continue
            if head in declared and declared[head].type is list:
                continue
            if key not in declared:
                raise SettingsError(key, f"unknown setting; this level knows {sorted(declared)}")
            values[key] = declared[key].parse(key, text)
        self._init_settings = flat
        self.__dict__.pop("_probe_env", None)
        return values

    def build(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Family constructor arguments from the level's own setting values (hook).

        The default passes the map (as ``level=``) and ``family_kwargs``.
        """
        kwargs = dict(self.family_kwargs)
        if self.map is not None:
            if isinstance(self.map, Path):
                src = self._map_source
                kwargs["level"] = src if src is not None and src.path == self.map else self.map
            elif family_row(self.family).takes_map:
                kwargs["level"] = "=" + self.map
        return kwargs

    def compile(self, settings: Mapping[str, Any] | None = None):
        """The family's compiled level (arrays and tables the kernel reads).

        A ``gridsim.nav.NavLevel``, a ``gridsim.kitchen.KitchenLevel`` or the gridroboman task tuple
        (the env's :meth:`~gridsim.GridVectorEnv.compiled_level`).
        """
        env = self.make_env(1, settings=settings)
        try:
            return env.compiled_level()
        finally:
            env.close()

    def properties(self, env) -> dict:
        """Extra properties of this level: key -> :class:`gridsim.lab2d.properties.Property` (hook)."""
        return {}

    # ----------------------------------------------------------------- the env

    def make_env(self, num_envs: int = 1, *, settings: Mapping[str, Any] | None = None,
                 source: LevelSource | None = None, **kwargs: Any) -> GridVectorEnv:
        """The family's vector env playing this level.

        ``settings`` (str -> str) and ``kwargs`` (the family's keyword arguments) override
        the level's defaults; a setting and a keyword argument naming the same thing must agree.
        """
        declared = self.env_class.SETTINGS
        flat = flatten_args(settings) if settings is not None else dict(self._init_settings)
        own = {k: v for k, v in flat.items() if k in self.settings}
        family_settings = {k: v for k, v in flat.items() if k not in self.settings}
        values = {k: decl.default for k, decl in self.settings.items()}
        for key, text in own.items():
            values[key] = self.settings[key].parse(key, text)
        # What the caller gave, settings folded into keyword arguments (conflicts raise here).
        given = merge_settings(declared, family_settings, kwargs)
        with _not_suggesting(self.name):
            try:
                merged = self.build(values)
            except GridSimError:
                raise
            except (ValueError, TypeError, OverflowError) as e:  # the level's word on its settings
                raise LevelError(f"level {self.name!r} cannot build with settings {values}: {e}",
                                 repr(self.name)) from e
            for key, value in self.defaults.items():
                decl = declared[key]
                name = decl.kwarg or key
                if name not in given:
                    merged[name] = decl.parse(key, value) if isinstance(value, str) and decl.type is not str else value
            merged.update(given)
            env = self.env_class(num_envs=num_envs, **merged)
        env.level_source = source
        env.level_def = self
        env.level_values = values
        return env

    def _probe(self):
        probe = self.__dict__.get("_probe_env")
        if probe is None:
            probe = self.make_env(1)
            self.__dict__["_probe_env"] = probe
        return probe

    def observation_spec(self) -> list:
        """The specs of an env of this level with the settings given to :meth:`init`."""
        return self._probe().observation_spec()

    def discrete_action_spec(self) -> list:
        """See :meth:`observation_spec`."""
        return self._probe().discrete_action_spec()

    def continuous_action_spec(self) -> list:
        """See :meth:`observation_spec`."""
        return self._probe().continuous_action_spec()

    def event_spec(self) -> list:
        """See :meth:`observation_spec`."""
        return self._probe().event_spec()

    def __repr__(self) -> str:
        return f"Level({self.family!r}, name={self.name!r})"


def _text_level(src: LevelSource, family: str | None) -> Level:
    """A :class:`Level` of a text map: the family from its path, its ``[meta]`` or ``family=``."""
    first = src.name.replace("\\", "/").split("/", 1)[0] if src.kind == "text" else None
    meta: dict[str, str] = {}
    text = src.text if src.kind == "inline" else None
    where = str(src.path) if src.kind == "text" else "<string>"
    if src.kind == "text" and src.path is not None:  # a text level is a file
        with open(src.path, "rb") as f:
            head = f.read(4096)
        if head.lstrip().startswith(b"%gridsim"):
            meta = dict(read_source(src).meta)
    elif text is not None and text.lstrip().startswith("%gridsim"):
        meta = dict(parse_level_text(text).meta)
    fam = family or (first if first in FAMILIES else None) or meta.get("family")
    if fam is None:
        raise LevelError(f"cannot tell the family of level {src.name!r}: name it after its family's folder "
                         f"({', '.join(f + '/' for f in FAMILIES)}), write '[meta] family = ...' "
                         f"or pass family= ({', '.join(FAMILIES)})", where)
    if fam not in FAMILIES:
        raise LevelError(f"unknown family {fam!r}; the families are {', '.join(FAMILIES)}", where)
    if src.argument:
        raise LevelError(f"level {src.name!r} is a text map; it takes no ':{src.argument}' argument", where)
    defaults = family_row(fam).level_defaults(meta)
    level_map: str | Path | None = src.path if src.kind == "text" else text
    level = Level(fam, map=level_map, defaults=defaults, name=src.name)
    if src.kind == "text":
        level._map_source = src
    return level


def load_level(level: str | Path | Level, level_directory: str | Path | None = None,
               family: str | None = None, *, allow_code: bool = True) -> tuple[Level, LevelSource | None]:
    """Resolve a level name to a :class:`Level` (and where it was found).

    A Python level module runs when it is first loaded, like any import; ``allow_code=False``
    refuses one (see :func:`gridsim.levels.lookup.resolve_level`).

    Raises:
        LevelNotFoundError: no level has that name.
        InvalidArgumentError: ``family`` is not a family's name.
        LevelError: the name leaves the level directories, the level is malformed or its
            family cannot be told, its module refuses the argument, or it is a Python level
            module and ``allow_code`` is False.
    """
    if family is not None and (not isinstance(family, str) or family not in FAMILIES):
        raise InvalidArgumentError(f"family must be one of {', '.join(FAMILIES)} or None, got {family!r}")
    if isinstance(level, Level):
        return level, None
    src = resolve_level(level, level_directory, allow_code=allow_code)
    if src.kind == "module" and src.path is not None:  # a module level is a file
        where = str(src.path)
        with _not_suggesting(src.name):  # the module may look up levels of its own
            module = import_level_module(src.path)
            if hasattr(module, "make"):
                try:
                    lvl = module.make(src.argument)
                except GridSimError:
                    raise
                except (ValueError, TypeError, OverflowError) as e:  # the module's word on a bad argument
                    raise LevelError(f"level {src.name!r} refused the argument {src.argument!r}: {e}", where) from e
            elif hasattr(module, "LEVEL"):
                if src.argument:
                    raise LevelError(f"level {src.name!r} defines LEVEL, not make(argument); "
                                     f"it takes no ':{src.argument}' argument", where)
                lvl = module.LEVEL
            else:
                raise LevelError("the level module defines neither LEVEL nor make(argument)", where)
        if not isinstance(lvl, Level):
            raise LevelError(f"the level module gave {type(lvl).__name__}, not a gridsim.Level", where)
        if family is not None and family != lvl.family:
            raise LevelError(f"level {src.name!r} is of family {lvl.family!r}, not {family!r}", where)
        return lvl, src
    if src.kind == "inline" and family is None:
        raise LevelError("an inline level ('=' + map text) needs family= ("
                         f"{' or '.join(n for n, f in FAMILIES.items() if f.takes_map)})")
    return _text_level(src, family), src


@contextlib.contextmanager
def _not_suggesting(name: str | None) -> Iterator[None]:
    """While level ``name`` loads, a level it cannot find never suggests ``name``, the level that is failing."""
    try:
        yield
    except LevelNotFoundError as e:
        if name is None or name not in e.suggestions:
            raise
        fixed = LevelNotFoundError(e.name, e.tried, [s for s in e.suggestions if s != name])
        raise fixed.with_traceback(e.__traceback__) from None


def make(level: str | Path | Level | type | Any | None = None, num_envs: int = 1, *,
         settings: Mapping[str, Any] | None = None, level_directory: str | Path | None = None,
         family: str | None = None, **kwargs: Any) -> GridVectorEnv:
    """A batched env of any level; ``gridsim.make_vec`` is the same function.

    ``level`` is a name (``"examples/maze:21"``, ``"roboman:StackRedOnGreen"``,
    ``"kitchen/open-divider_salad"``), a path, an inline map (``"=" + text`` with
    ``family=``), a :class:`Level`, or a registered gridsim id (``"gridsim/MiniGrid-DoorKey-8x8-v0"``,
    or Minigrid's ``"MiniGrid-DoorKey-8x8-v0"``: :func:`gridsim.levels.lookup.gridsim_id`), which
    makes the id's env as registered, ``gymnasium.make_vec(id, num_envs)``, or a Python task: a
    subclass of Minigrid's ``MiniGridEnv``, played seed for seed (``kwargs``: its constructor's
    arguments and gridsim's settings; ``gridsim.minigrid.python_tasks``), or a compiled task
    (``gridsim.minigrid.compiled.task``). The family comes from
    the name or the level's ``family`` setting; the settings a level file writes
    (``max_episode_steps``, ``obs_type``, ``actions``, ``alphabet``, ``view_size``) are defaults
    that ``settings`` and ``kwargs`` override.

    ``settings`` is Lab2D's string table (nested values are flattened); ``kwargs`` are the
    family's keyword arguments. The reserved Lab2D settings ``levelName``, ``levelDirectory``
    and ``mixerSeed`` are accepted as aliases of ``level``, ``level_directory`` and ``mixer_seed``.

    Example:
        >>> import gridsim
        >>> envs = gridsim.make("examples/maze:11", num_envs=8)
        >>> envs.read_property("level.argument")
        '11'
        >>> gridsim.make_vec("nav/four_rooms", num_envs=8).max_episode_steps
        200
    """
    refuse_private_arguments(kwargs, "make")
    if isinstance(level, type):  # a Python task: a Minigrid MiniGridEnv subclass
        from gridsim.minigrid.python_tasks import make_task_env

        return make_task_env(level, num_envs, **({} if settings is None else {"settings": settings}), **kwargs)
    from gridsim.minigrid.compiled import CompiledTask

    if isinstance(level, CompiledTask):
        return level.make_env(num_envs, **({} if settings is None else {"settings": settings}), **kwargs)
    flat = flatten_args(settings) if settings is not None else {}
    allow_code = _allow_code(flat, kwargs)
    for alias, name in RESERVED_ALIASES.items():
        if alias not in flat:
            continue
        value: Any = flat.pop(alias)
        current = {"level": level, "level_directory": level_directory}.get(name, kwargs.get(name))
        if name == "mixer_seed":
            value = parse_seed_setting(alias, value)
        if current is not None and format_value(current) != format_value(value):
            raise SettingsError(alias, f"the setting says {value!r} but {name}={current!r} was also given")
        if name == "level":
            level = value
        elif name == "level_directory":
            level_directory = value
        else:
            kwargs[name] = value
    if level is None:
        raise ArgumentTypeError("make() needs a level (or the setting 'levelName')")
    env_id = gridsim_id(level) if isinstance(level, str) else None
    if env_id is not None:
        # A registered id is its env as registered (its keyword arguments and step limit), batched.
        if level_directory is not None or family is not None:
            raise ArgumentTypeError(f"{level!r} is a registered id: it takes no level_directory or family")
        if flat:
            kwargs["settings"] = flat
        return cast(GridVectorEnv, gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                                                **kwargs))
    lvl, src = load_level(cast(Any, level), level_directory, family, allow_code=allow_code)
    return lvl.make_env(num_envs, settings=flat, source=src, **kwargs)


def _allow_code(flat: dict[str, str], kwargs: dict[str, Any]) -> bool:
    """The ``allow_code`` setting or keyword argument (they must agree), folded into ``kwargs``.

    It is read before the level is loaded, since it decides whether a level module may run.
    """
    decl = COMMON_SETTINGS["allow_code"]
    allow = as_flag(kwargs.get("allow_code", decl.default), "allow_code")
    if "allow_code" in flat:
        value = decl.parse("allow_code", flat.pop("allow_code"))
        if "allow_code" in kwargs and allow != value:
            raise SettingsError("allow_code", f"the setting says {value} but allow_code={allow} was also given")
        kwargs["allow_code"] = allow = value
    return allow


class LevelEnv(SingleEnvView):
    """One env (``gymnasium.Env``) of any level name, through :func:`gridsim.make`.

    ``gymnasium.make("gridsim/Level-v0", level="examples/maze:21")`` builds it; the keyword
    arguments are :func:`gridsim.make`'s (``settings``, ``level_directory``, ``family``,
    and the family's own).
    """

    def __init__(self, level, render_mode: str | None = None, *, settings=None, level_directory=None,
                 family: str | None = None, **kwargs: Any):
        refuse_private_arguments(kwargs, type(self).__name__)  # before the level (maybe code) is loaded
        flat = flatten_args(settings) if settings is not None else None
        allow_code = _allow_code({} if flat is None else flat, kwargs)
        lvl, src = load_level(level, level_directory, family, allow_code=allow_code)
        self.vector_class = functools.partial(lvl.make_env, settings=flat, source=src)
        super().__init__(render_mode=render_mode, **kwargs)
