"""The Lab2D-shaped surface every gridsim vector env has: specs, start/advance, properties, events.

Everything is batched over the N envs (rows); per-env items take an ``index``. A family's
:class:`LevelApi` (its ``api.py``) declares its observations (:meth:`LevelApi._observation_entries`),
action components and extra properties (:meth:`LevelApi._family_properties`); its env class
declares the event specs (``EVENT_SPECS``) and settings (``SETTINGS``). The env holds its level
API as ``env.level_api`` (built with the env from its ``level_api_class``), and
:class:`LevelApiFacade` makes the API's public names the env's.
"""

from __future__ import annotations

import numbers
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

import gridsim._core as _core
from gridsim.engine.locking import synchronized
from gridsim.engine.parts import Delegate, Part
from gridsim.engine.rng import SEED_BOUND, entropy_seed
from gridsim.engine.settings import Setting, check_max_steps, format_value
from gridsim.engine.state import brief
from gridsim.engine.vector import GridVectorEnv
from gridsim.errors import (
    ArgumentTypeError,
    InvalidActionError,
    InvalidArgumentError,
    InvalidStateError,
    NameNotFoundError,
)
from gridsim.lab2d.properties import Property, PropertyTable
from gridsim.lab2d.specs import (
    ActionSpec,
    EnvironmentStatus,
    ObsSpec,
    PropertyAttribute,
    PropertyResult,
    property_error,
)

__all__ = ["LevelApi", "LevelApiFacade", "ObservationEntry", "parse_pair", "texts_of"]

# name -> (spec, function of the env returning an (N, *shape) array or a tuple of N values)
ObservationEntry = tuple[ObsSpec, Callable[[], Any]]


E = TypeVar("E", bound=GridVectorEnv)


class LevelApi(Part[E]):
    """The level API of ``docs/levels.md`` over one vector env (``env.level_api``).

    It uses the env's public interface (``check_open``, ``row_index``, ``row_units``,
    ``started``, ``has_world``, ``sync_obs``, ``commit``, ``seed_writes``, ``step_without_autoreset``,
    ``state_io``, ``num_threads_setting``), its state and kernel, and what the family and the
    level declare (``SETTINGS``, ``EVENT_SPECS``, ``level_def``, ``level_source``, ``level_values``).
    A family's subclass adds its observations, action components and properties.
    """

    def __init__(self, env: E, lock: threading.RLock):
        super().__init__(env, lock)
        self._property_table: PropertyTable | None = None  # built on first use

    # ------------------------------------------------------------------ units

    def _rows_of(self, index) -> np.ndarray:
        """A bool (N,) row mask from None (all), an int, a sequence of ints or a bool mask."""
        env = self.env
        N = env.num_envs
        if index is None:
            return np.ones(N, np.bool_)
        if isinstance(index, (numbers.Integral, np.integer)) and not isinstance(index, bool):
            mask = np.zeros(N, np.bool_)
            mask[env.row_index(int(index))] = True
            return mask
        arr = np.asarray(index)
        if arr.dtype == np.bool_:
            if arr.shape != (N,):
                raise InvalidArgumentError(f"a bool index must have shape ({N},), got {arr.shape}")
            if not arr.any():
                raise InvalidArgumentError("the index selects no env")
            return arr.copy()
        if arr.ndim != 1 or arr.dtype.kind not in "iu" or not len(arr):
            raise InvalidArgumentError(
                f"index must be None, an int, a non-empty list of ints or a bool mask, got {index!r}")
        mask = np.zeros(N, np.bool_)
        for i in arr:
            mask[env.row_index(int(i))] = True
        return mask

    # ------------------------------------------------------------------ specs

    def _observation_entries(self) -> dict[str, ObservationEntry]:
        """Family hook: every named observation."""
        return {}

    @synchronized
    def observation_spec(self) -> list[ObsSpec]:
        """The named observations of one env: ``ObsSpec(name, dtype, shape)``, -1 for a varying dimension."""
        return [spec for spec, _ in self._observation_entries().values()]

    @synchronized
    def observation(self, name: str):
        """Observation ``name`` of all envs: an ``(N, *shape)`` array, or a tuple of N values for str or varying shapes.

        Raises:
            RuntimeError: before the first reset.
            NameNotFoundError: an unknown name (a ``KeyError``).
        """
        env = self.env
        env.check_open()
        if not env.started:
            raise RuntimeError("the environment is not started: call reset() or start() first")
        entries = self._observation_entries()
        if not isinstance(name, str) or name not in entries:
            raise NameNotFoundError(f"no observation {name!r}; this env has {list(entries)}")
        env.sync_obs()
        return entries[name][1]()

    def discrete_action_spec(self) -> list[ActionSpec]:
        """The discrete action components of one env (inclusive int bounds)."""
        return []

    def continuous_action_spec(self) -> list[ActionSpec]:
        """The continuous action components of one env (inclusive float bounds)."""
        return []

    def text_action_spec(self) -> list[str]:
        """Names of text actions (a scripting facility; built-in families have none)."""
        hook = getattr(self.env.level_def, "text_action_spec", None)
        return list(hook()) if hook is not None else []

    def event_spec(self) -> list:
        """The events this family's kernel writes: ``EventSpec(name, fields)``; payloads are int32."""
        return list(self.env.EVENT_SPECS)

    # ----------------------------------------------------------------- events

    @synchronized
    def events(self, index: int = 0) -> list[tuple[str, list[np.ndarray]]]:
        """Env ``index``'s events of the last step or reset: ``[(name, [int32 payload])]`` in emission order.

        Reading never clears them; the next step, advance, start or reset does. Empty unless
        the env was made with ``events=True``.
        """
        env = self.env
        env.check_open()
        from gridsim.engine.events import decode_events

        unit = int(env.row_units[env.row_index(index)])
        return decode_events(env.state, env.EVENT_SPECS, unit)

    @synchronized
    def events_batch(self) -> dict[str, np.ndarray]:
        """Every env's events as arrays, ordered by env, then emission.

        ``env`` int32 (E,), ``type`` int16 (E,) (1-based index into :meth:`event_spec`),
        ``payload`` int32 (E, K) padded with -1.
        """
        env = self.env
        env.check_open()
        from gridsim.engine.events import batch_events

        per_unit = batch_events(env.state, env.EVENT_SPECS)
        units = env.row_units
        if np.array_equal(units, np.arange(len(units))):
            return per_unit
        # Agent-rows views: each row reports its world's events.
        parts = [np.flatnonzero(per_unit["env"] == u) for u in units]
        take = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        rows = np.repeat(np.arange(len(units), dtype=np.int32), [len(p) for p in parts])
        return {"env": rows, "type": per_unit["type"][take], "payload": per_unit["payload"][take]}

    # ------------------------------------------------------- start / advance

    @synchronized
    def start(self, episode: int = 0, seed: int | Sequence[int] | None = None, index=None):
        """Start episode ``episode`` of the selected envs (all by default), keyed by ``seed``.

        Env i gets the key of ``seed + i`` (as ``reset(seed=seed)`` gives it), or ``seed[k]``
        for the k-th selected env when ``seed`` is a sequence; ``None`` draws a seed from OS
        entropy. ``start(e, s, index=i)`` reproduces env i's episode e after ``reset(seed=s)``
        without playing the episodes before it. Seeds are below ``2**128``; the start happens
        completely or not at all, also under ``KeyboardInterrupt``.
        """
        env = self.env
        env.check_open()
        last = np.iinfo(env.state.episode.dtype).max
        if isinstance(episode, bool) or not isinstance(episode, numbers.Integral) or not 0 <= episode <= last:
            raise InvalidArgumentError(f"episode must be an integer in 0..{last}, got {episode!r}")
        mask = self._rows_of(index)
        rows = np.flatnonzero(mask)
        if seed is None:
            chosen = [entropy_seed() for _ in rows]
        elif isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
            if seed < 0:
                raise InvalidArgumentError(f"seed must be non-negative, got {brief(seed)}")
            chosen = [int(seed) + int(i) for i in rows]
            if chosen[-1] >= SEED_BOUND:
                raise InvalidArgumentError(f"seed + i (env i's seed) must be below 2**128, got seed={brief(seed)}")
        else:
            if not isinstance(seed, (Sequence, np.ndarray)):
                raise ArgumentTypeError(f"seed must be an int, a sequence of ints or None, got {type(seed).__name__}")
            chosen = list(seed)
            if len(chosen) != len(rows):
                raise InvalidArgumentError(f"seed holds {len(chosen)} seeds for {len(rows)} selected envs")
            if any(isinstance(s, bool) or not isinstance(s, numbers.Integral) or not 0 <= s < SEED_BOUND
                   for s in chosen):
                raise InvalidArgumentError("seeds must be integers in 0..2**128 - 1")
        seeds = np.full(env.num_envs, None, dtype=object)
        for i, s in zip(rows, chosen, strict=True):
            seeds[i] = int(s)
        unit_mask, writes = env.seed_writes(mask, seeds)  # new keys, episode 0 ...
        units = np.flatnonzero(unit_mask)
        episode_dtype = env.state.episode.dtype
        writes.append((env.state.episode, units, np.full(len(units), episode, episode_dtype)))  # ... then this one
        env.commit(writes, [(env.kernel.reset, (np.ascontiguousarray(unit_mask).view(np.uint8),))],
                   worlds=env.has_world | unit_mask)

    @synchronized
    def advance(self, discrete=None, continuous=None, text=None) -> tuple[np.ndarray, np.ndarray]:
        """One kernel step of every env without autoreset; returns ``(cont, reward)``.

        ``cont`` is bool (N,), False where the episode ended (terminated or truncated);
        ``reward`` (N,) of the state's ``REWARD_DTYPE`` (float32, or float64). Actions: ``discrete``
        int (N, len(discrete_action_spec())) (or (N,) for one component), ``continuous`` float
        (N, len(continuous_action_spec())).
        ``text`` (N,) strings go to the level's ``on_text_actions`` first.

        Raises:
            RuntimeError: before the first start/reset, or for an env whose episode ended
                (``start`` it, or ``reset`` it, first).
        """
        env = self.env
        env.check_open()
        if not env.started:
            raise RuntimeError("the environment is not started: call start() or reset() first")
        if text is not None:
            self._text_actions(text)
        actions = self._advance_actions(discrete, continuous)
        ended = env.state.needs_reset[env.row_units]
        if ended.any():
            i = int(np.flatnonzero(ended)[0])
            raise RuntimeError(f"env {i}'s episode ended: call start() (or reset) before advancing it")
        env.step_without_autoreset(actions)
        st = env.state
        return ~(st.terminated | st.truncated), st.rewards.copy()

    def _advance_actions(self, discrete, continuous):
        """The Gymnasium action batch of ``advance``'s components."""
        env = self.env
        N = env.num_envs
        d_spec, c_spec = self.discrete_action_spec(), self.continuous_action_spec()
        if c_spec:
            if discrete is not None:
                raise InvalidActionError("this env has no discrete actions")
            if continuous is None:
                raise InvalidActionError(f"advance needs continuous actions of shape ({N}, {len(c_spec)})")
            return np.asarray(continuous)
        if continuous is not None:
            raise InvalidActionError("this env has no continuous actions")
        if discrete is None:
            raise InvalidActionError(f"advance needs discrete actions of shape ({N}, {len(d_spec)})")
        a = np.asarray(discrete)
        if a.shape != (N, len(d_spec)) and a.shape != (N,) + (() if len(d_spec) == 1 else (len(d_spec),)):
            raise InvalidActionError(f"discrete actions must have shape ({N}, {len(d_spec)}), got {a.shape}")
        if not env.single_action_space.shape:  # Discrete: one component per env
            return a.reshape(N)
        return a.reshape(N, len(d_spec))

    def _text_actions(self, text):
        env = self.env
        texts = np.asarray(text, dtype=object)
        if texts.shape != (env.num_envs,):
            raise InvalidArgumentError(f"text actions must have shape ({env.num_envs},), got {texts.shape}")
        hook = getattr(env.level_def, "on_text_actions", None)
        for i, t in enumerate(texts):
            if t is None or t == "":
                continue
            if hook is None:
                raise InvalidArgumentError("this level takes no text actions (its text_action_spec() is empty)")
            hook(env, i, str(t))
            env.state_io.clear_events(int(env.row_units[i]))

    @synchronized
    def status(self) -> np.ndarray:
        """Every env's :class:`EnvironmentStatus` as an int8 (N,) array (RUNNING, TERMINATED, INTERRUPTED)."""
        env = self.env
        env.check_open()
        st = env.state
        ended = st.needs_reset[env.row_units]
        out = np.full(env.num_envs, EnvironmentStatus.RUNNING, np.int8)
        out[ended & st.terminated] = EnvironmentStatus.TERMINATED
        out[ended & ~st.terminated] = EnvironmentStatus.INTERRUPTED
        return out

    # -------------------------------------------------------------- properties

    def _family_properties(self, table: PropertyTable):
        """Family hook: add the family's properties."""

    @property
    @synchronized
    def properties(self) -> PropertyTable:
        """The property table (built on first use)."""
        if self._property_table is None:
            self._property_table = self._build_properties()
        return self._property_table

    def _setting_property(self, key: str, decl: Setting) -> Property:
        """The ``settings.<key>`` property: its value as text, and a writer when it is writable."""

        def get(i: int | None) -> str:
            return format_value(self.setting_value(key))

        def set_(i: int | None, value: str) -> None:
            self._write_setting(key, value)

        return Property(get=get, set=set_ if decl.writable else None, doc=decl.doc)

    def _build_properties(self) -> PropertyTable:
        env = self.env
        t = PropertyTable()
        for key, decl in self._all_settings().items():
            t.add(f"settings.{key}", self._setting_property(key, decl))
        src = env.level_source
        t.add("level.name", Property(lambda i: self._level_name()))
        t.add("level.argument", Property(lambda i: "" if src is None else src.argument))
        t.add("level.path", Property(lambda i: self._level_path()))
        t.add("num_envs", Property(lambda i: str(env.num_envs)))
        st = env.state

        def unit(i):
            return int(env.row_units[i])

        t.add("episode.number", Property(lambda i: str(int(st.episode[unit(i)])), per_env=True))
        t.add("episode.step", Property(lambda i: str(int(self._episode_steps()[unit(i)])), per_env=True))
        t.add("episode.seed", Property(lambda i: format_value(st.seeds[unit(i)]), per_env=True))
        t.add("episode.return", Property(lambda i: repr(float(st.ep_return[unit(i)])), per_env=True))
        t.add("events.dropped", Property(
            lambda i: str(int(st.event_dropped[unit(i)])) if hasattr(st, "event_dropped") else "0", per_env=True))
        self._family_properties(t)
        extra = getattr(env.level_def, "properties", None)
        if extra is not None:
            for key, prop in extra(env).items():
                t.add(key, prop)
        return t

    def _level_name(self) -> str:
        env = self.env
        src = env.level_source
        if src is not None:
            return src.name
        return str(getattr(env, "level_name", type(env).__name__))

    def _level_path(self) -> str:
        src = self.env.level_source
        return "<unknown>" if src is None else src.location

    def _episode_steps(self) -> np.ndarray:
        """(units,) steps taken in each world's episode: the state's ``STEP_FIELD`` (a family may override)."""
        env = self.env
        name = env.state.STEP_FIELD
        if not name:
            raise NotImplementedError(f"{type(env.state).__name__} names no STEP_FIELD (its episode's step counter)")
        return getattr(env.state, name)

    def _row(self, key: str, prop: Property, index) -> int | None:
        env = self.env
        if not prop.per_env:
            return None
        if index is None:
            if env.num_envs == 1:
                return 0
            raise property_error(PropertyResult.INVALID_ARGUMENT,
                                 f"property {key!r} is per env: pass index= (num_envs={env.num_envs})")
        try:
            return env.row_index(index)
        except IndexError as e:
            raise property_error(PropertyResult.INVALID_ARGUMENT, str(e)) from None

    @synchronized
    def read_property(self, key: str, index: int | None = None) -> str:
        """The value of property ``key`` (of env ``index`` for per-env keys) as a string.

        Raises:
            KeyError: no such key (``.code`` NOT_FOUND).
            PermissionError: the key only groups others (``.code`` PERMISSION_DENIED).
            ValueError: a per-env key without a valid index (``.code`` INVALID_ARGUMENT).
        """
        env = self.env
        env.check_open()
        prop = self.properties.entry(key, PropertyAttribute.READABLE)
        return prop.get(self._row(key, prop, index))

    @synchronized
    def write_property(self, key: str, value: str, index: int | None = None) -> None:
        """Write property ``key``.

        State writes apply at once (and clear the env's events), settings at each env's next reset.
        A write happens completely or not at all, also under ``KeyboardInterrupt``.

        Raises:
            KeyError: no such key (NOT_FOUND).
            PermissionError: read-only (PERMISSION_DENIED).
            ValueError: a value that does not parse, or a bad index (INVALID_ARGUMENT).
            InvalidStateError: a state value outside the family's invariants (a ValueError; INVALID_ARGUMENT);
                nothing is written.
        """
        env = self.env
        env.check_open()
        prop = self.properties.entry(key, PropertyAttribute.WRITABLE)
        if not isinstance(value, str):
            raise property_error(PropertyResult.INVALID_ARGUMENT,
                                 f"property values are strings, got {type(value).__name__}")
        row = self._row(key, prop, index)
        assert prop.set is not None  # entry() grants WRITABLE only to keys with a setter
        try:
            prop.set(row, value)
        except InvalidStateError as e:  # a value that parses but breaks the family's invariants
            e.code = PropertyResult.INVALID_ARGUMENT
            raise
        except (ValueError, TypeError, OverflowError) as e:
            if getattr(e, "code", None) is not None:
                raise
            raise property_error(PropertyResult.INVALID_ARGUMENT, f"cannot write {value!r} to {key!r}: {e}") from None
        if row is not None:
            env.state_io.clear_events(int(env.row_units[row]))

    @synchronized
    def list_property(self, key: str, index: int | None = None) -> list[tuple[str, PropertyAttribute]]:
        """The keys directly under ``key`` (``""`` for the top level), full keys with their attributes.

        Raises:
            KeyError: no such key (NOT_FOUND).
            PermissionError: the key has nothing under it (PERMISSION_DENIED).
        """
        env = self.env
        env.check_open()
        if isinstance(key, str) and key == "":
            return self.properties.children("")
        self.properties.lookup(key, PropertyAttribute.LISTABLE)
        return self.properties.children(key)

    def try_read_property(self, key: str, index: int | None = None) -> tuple[PropertyResult, str | None]:
        """:meth:`read_property` returning ``(code, value or None)`` instead of raising (Lab2D's form)."""
        try:
            return PropertyResult.SUCCESS, self.read_property(key, index)
        except _PROPERTY_FAILURES as e:
            return PropertyResult(getattr(e, "code", PropertyResult.INVALID_ARGUMENT)), None

    def try_write_property(self, key: str, value: str, index: int | None = None) -> PropertyResult:
        """:meth:`write_property` returning the code instead of raising."""
        try:
            self.write_property(key, value, index)
            return PropertyResult.SUCCESS
        except _PROPERTY_FAILURES as e:
            return PropertyResult(getattr(e, "code", PropertyResult.INVALID_ARGUMENT))

    def try_list_property(self, key: str, index: int | None = None) -> tuple[PropertyResult, list]:
        """:meth:`list_property` returning ``(code, list)`` instead of raising."""
        try:
            return PropertyResult.SUCCESS, self.list_property(key, index)
        except _PROPERTY_FAILURES as e:
            return PropertyResult(getattr(e, "code", PropertyResult.INVALID_ARGUMENT)), []

    # ---------------------------------------------------------------- settings

    def _all_settings(self) -> dict[str, Setting]:
        env = self.env
        out = dict(env.SETTINGS)
        level_settings = getattr(env.level_def, "settings", None) or {}
        out.update(level_settings)
        return out

    @synchronized
    def setting_value(self, key: str) -> Any:
        """The current value of setting ``key``.

        A written value shows at once, though it applies at each env's next reset.
        """
        env = self.env
        if key in env.level_values:
            return env.level_values[key]
        decl = env.SETTINGS[key]
        reader = getattr(self, f"_setting_{key}", None)
        if reader is not None:
            return reader()
        return getattr(env, "init_args", {}).get(decl.kwarg or key, decl.default)

    def _setting_max_steps(self):
        limit = int(self.env.kernel.max_steps)
        return None if limit <= 0 else limit

    def _setting_num_threads(self):
        return self.env.num_threads_setting

    def _write_setting(self, key: str, text: str):
        """Apply a written setting (``max_steps`` at each env's next reset, ``num_threads`` from the next call)."""
        decl = self.env.SETTINGS[key]
        value = decl.parse(key, text)
        getattr(self, f"_write_setting_{key}")(value)

    def _write_setting_num_threads(self, value):
        self.env.num_threads = value

    def _write_setting_max_steps(self, value):
        env = self.env
        value = check_max_steps(value, "max_steps")
        _core.commit([], [(setattr, (env.kernel, "max_steps", 0 if value is None else value)),
                          (setattr, (env, "max_episode_steps", value))])


class LevelApiFacade:
    """The level API's public names on a family's env: each is ``env.level_api``'s.

    A family's env class derives from it and from :class:`gridsim.GridVectorEnv`, and names its
    :class:`LevelApi` in ``level_api_class``, which the env builds as ``env.level_api``::

        class NavVectorEnv(LevelApiFacade, GridVectorEnv):
            level_api_class = NavApi
    """

    level_api: LevelApi
    level_api_class: type[LevelApi] = LevelApi

    observation_spec = Delegate("level_api", LevelApi.observation_spec)
    observation = Delegate("level_api", LevelApi.observation)
    discrete_action_spec = Delegate("level_api", LevelApi.discrete_action_spec)
    continuous_action_spec = Delegate("level_api", LevelApi.continuous_action_spec)
    text_action_spec = Delegate("level_api", LevelApi.text_action_spec)
    event_spec = Delegate("level_api", LevelApi.event_spec)
    events = Delegate("level_api", LevelApi.events)
    events_batch = Delegate("level_api", LevelApi.events_batch)
    start = Delegate("level_api", LevelApi.start)
    advance = Delegate("level_api", LevelApi.advance)
    status = Delegate("level_api", LevelApi.status)
    properties = Delegate("level_api", LevelApi.properties)
    read_property = Delegate("level_api", LevelApi.read_property)
    write_property = Delegate("level_api", LevelApi.write_property)
    list_property = Delegate("level_api", LevelApi.list_property)
    try_read_property = Delegate("level_api", LevelApi.try_read_property)
    try_write_property = Delegate("level_api", LevelApi.try_write_property)
    try_list_property = Delegate("level_api", LevelApi.try_list_property)
    setting_value = Delegate("level_api", LevelApi.setting_value)


# What the try_* property methods turn into a result code (the property errors derive from these).
_PROPERTY_FAILURES = (KeyError, PermissionError, ValueError, OverflowError)


def texts_of(env) -> tuple[str, ...]:
    """Every row of ``env`` as text (the ``WORLD.TEXT`` observation)."""
    return tuple(env.render_text(i) for i in range(env.num_envs))


def parse_pair(text: str, what: str) -> tuple[int, int]:
    """Two integers written ``"a,b"`` (a property value); ``what`` names it in errors."""
    parts = text.split(",")
    if len(parts) != 2:
        raise InvalidArgumentError(f"{what} is written as two integers 'a,b', got {text!r}")
    return int(parts[0]), int(parts[1])

