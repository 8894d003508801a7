"""A vector env's state in and out: the state dict, its checks, and one world's checked write.

:class:`StateIO` is the part of every :class:`gridsim.GridVectorEnv` that reads and writes its
state as a whole (``env.state_dict()`` and ``env.load_state_dict()`` are its methods; a
checkpoint is a state dict in a file, ``gridsim.engine.checkpoint``), and the shared end of
every family's ``set_state``: :meth:`StateIO.unit_view` gives a copy of one world's fields to
change, :meth:`StateIO.commit_view` checks it and writes it. Every write ends in the env's
``commit``, all or nothing.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from operator import is_not
from typing import Any

import numpy as np

from gridsim.engine.locking import synchronized
from gridsim.engine.parts import Part
from gridsim.engine.rng import SEED_BOUND
from gridsim.engine.state import StateView, brief
from gridsim.engine.statefile import (
    FORMAT_VERSION,
    READABLE_VERSIONS,
    StateSource,
    decode_rules,
    decode_seeds,
    encode_rules,
    encode_seeds,
)
from gridsim.errors import InvalidStateError

__all__ = ["StateIO"]


class StateIO(Part[Any]):
    """The state I/O of a vector env (``env.state_io``): state dicts and the checked write of one world.

    It uses the env's public interface: ``state``, ``kernel``, ``num_envs``, ``check_open``,
    ``has_world``, ``sync_obs``, ``commit``, ``row_obs``, and the family's ``STATE_LABELS``, ``EVENT_SPECS`` and
    ``state_class_names``.
    """

    @synchronized
    def state_dict(self) -> dict[str, Any]:
        """A deep copy of the whole batch state: numpy arrays and a few scalars, none of dtype object.

        The keys and their meaning are the format of ``gridsim.engine.statefile``: every saved
        field of the state, ``seeds`` (uint64 (U, 2): each world's seed as its low and high 64
        bits) with ``has_seed`` (bool (U,): False where a world was never seeded), ``has_world``
        (bool (U,): False where a world was never reset, started or given a state), ``num_envs``,
        ``max_steps``, ``format_version``, ``env_class`` and ``rules`` (the env's
        ``rules_signature()`` as JSON text). ``numpy.savez`` writes it without pickling;
        :func:`gridsim.save_checkpoint` writes it to a file atomically.
        """
        env = self.env
        env.check_open()
        st = env.state
        env.sync_obs()
        out: dict[str, Any] = {name: getattr(st, name).copy() for name in st.DYNAMIC}
        out["seeds"], out["has_seed"] = encode_seeds(st.seeds)
        out["has_world"] = env.has_world
        out["num_envs"] = env.num_envs
        out["max_steps"] = int(env.kernel.max_steps)  # the limit of the next episodes (a written setting)
        out["format_version"] = FORMAT_VERSION
        out["env_class"] = type(env).__name__
        out["rules"] = encode_rules(env.rules_signature())
        return out

    @synchronized
    def load_state_dict(self, state: Mapping[str, Any]):
        """Restore a batch saved by :meth:`state_dict`; stepping then continues bit-identically.

        ``state`` may be what ``numpy.load`` returns for a file written with
        ``numpy.savez(path, **env.state_dict())`` (or :func:`gridsim.save_checkpoint`). Such
        an ``NpzFile`` is read without unpickling anything, even one opened with
        ``allow_pickle=True``: each entry's header is checked before its data is read, and an
        entry of Python objects is refused. ``seeds`` may also be a list of ints and None, one
        per world (the form of earlier versions; ``has_seed`` is then not read). Without
        ``has_world`` (a state of an earlier version) every world is taken to have one.

        Every value is copied once; the copy is checked against the family's invariants and is
        what gets written, so a state that normal play cannot reach changes nothing, and
        neither does a caller changing its arrays while this runs.
        The copy is then written all at once (:meth:`_commit_loaded`), also when a
        ``KeyboardInterrupt`` arrives, and every row's observation is observed from it: an
        observation is derived state, so the saved one is never returned.

        Raises:
            InvalidStateError: the state is of another env class, format version or rules (another
                level, or a setting of the rules: the message names both values), a field is
                missing, has the wrong shape or dtype, or holds a value outside its allowed range
                (the message names the field, the env and the range).
        """
        env = self.env
        env.check_open()
        st = env.state
        source = StateSource(state)
        self._check_origin(source)
        arrays: dict[str, np.ndarray] = {}
        for name in st.DYNAMIC:
            dst = getattr(st, name)
            arrays[name] = source.array(name, dst.shape, dst.dtype)
        seeds = self._loaded_seeds(source)
        worlds = self._flags(source, "has_world") if "has_world" in source else None
        max_steps = None
        if "max_steps" in source:
            max_steps = self._checked_max_steps(source.scalar("max_steps", "iu", "an integer"))
        self.check(st.view(source=arrays))
        self._commit_loaded(arrays, seeds, max_steps, worlds)

    def _commit_loaded(self, arrays: Mapping[str, np.ndarray], seeds: list | np.ndarray, max_steps: int | None,
                       worlds: np.ndarray | None):
        """Write a state :meth:`load_state_dict` has checked (its own copies): the fields, seeds, step limit.

        ``worlds`` is the state's ``has_world`` (None: every world has one).

        The values are put into private arrays first; then the env's ``commit`` writes them all,
        with no Python bytecode in between, so a ``KeyboardInterrupt`` leaves the old state or
        the new one, never a mix.
        """
        env = self.env
        st = env.state
        static = st.static_fields()
        writes: list = [(getattr(st, name), np.ascontiguousarray(arrays[name], getattr(st, name).dtype))
                        for name in st.DYNAMIC if name not in static]
        new_seeds = np.empty(len(st.seeds), dtype=object)
        new_seeds[:] = seeds  # an object array takes the list as it is
        writes.append((st.seeds, new_seeds))
        calls: list = [] if max_steps is None else [(setattr, (env.kernel, "max_steps", max_steps))]
        # Observations are derived state: observed from the loaded worlds, never taken from the
        # saved ones (a kernel that keeps a row whose view did not change would return them on).
        observed = None if worlds is None else np.ascontiguousarray(worlds, np.uint8)
        calls += [(env.kernel.sync_outputs, ()), (env.kernel.observe, (observed,))]
        env.commit(writes, calls, worlds=worlds)

    def _check_origin(self, source: StateSource):
        """A state's ``format_version``, ``env_class``, ``num_envs`` and ``rules`` (earlier dicts lack some)."""
        version = None
        if "format_version" in source:
            version = source.scalar("format_version", "iu", "an integer")
            if isinstance(version, bool) or not isinstance(version, numbers.Integral) or \
                    version not in READABLE_VERSIONS:
                raise InvalidStateError(
                    f"state has format_version={version!r}; this version of gridsim reads formats "
                    f"{', '.join(map(str, READABLE_VERSIONS))}", field="format_version",
                )
        env = self.env
        if "env_class" in source:
            name = source.scalar("env_class", "U", "a class name")
            if not isinstance(name, str) or name not in env.state_class_names:
                raise InvalidStateError(
                    f"state is of a {name!r} env; this env is a {type(env).__name__}", field="env_class"
                )
        num_envs = source.scalar("num_envs", "iu", "an integer") if "num_envs" in source else None
        if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral) or num_envs != env.num_envs:
            raise InvalidStateError(
                f"state has num_envs={num_envs!r}, this env has {env.num_envs}", field="num_envs"
            )
        if "rules" in source:
            self._check_rules(decode_rules(source.scalar("rules", "U", "the rules as JSON text")))
        elif version is not None and version >= 2:
            raise InvalidStateError(f"state of format version {version} is missing 'rules' (state_dict() writes them)",
                                    field="rules")

    def _check_rules(self, saved: Mapping[str, str]):
        """The rules a state was saved under are this env's: the same level and settings of the rules."""
        env = self.env
        ours = env.rules_signature()
        differ = [key for key in sorted(saved.keys() | ours.keys()) if saved.get(key) != ours.get(key)]
        if differ:
            def shown(rules: Mapping[str, str], key: str) -> str:
                return f"{key}={brief(rules[key])}" if key in rules else f"no {key}"
            raise InvalidStateError(
                f"state is of other rules than this {type(env).__name__}: "
                + "; ".join(f"{shown(saved, key)}, this env has {shown(ours, key)}" for key in differ),
                field="rules")

    # ------------------------------------------------------------ one world

    @synchronized
    def check(self, view: StateView):
        """Check a view of candidate values against the engine's and the family's invariants."""
        env = self.env
        env.state.check(view, num_event_types=len(env.EVENT_SPECS))

    @synchronized
    def unit_view(self, unit: int, row: int | None = None) -> StateView:
        """A copy of one world's saved fields to change, check and write (``set_state`` of ``row``)."""
        env = self.env
        return env.state.view(units=[unit], labels=env.STATE_LABELS, widen=True, row=unit if row is None else row)

    @synchronized
    def clear_events(self, unit: int):
        """Drop world ``unit``'s events of the last step (a state write or a start begins with none)."""
        st = self.env.state
        if hasattr(st, "event_count"):
            st.event_count[unit] = 0

    @synchronized
    def commit_view(self, view: StateView, unit: int, row: int,
                    after_write: Sequence[tuple[Callable[..., Any], tuple]] = ()) -> np.ndarray:
        """The end of every family's ``set_state``: check one world's changed view, write it, observe.

        The view is checked first (nothing changes if it breaks an invariant). Then, in one
        ``commit`` of the env's (all or nothing, also under ``KeyboardInterrupt``): the view is
        written, the world's pending events are cleared, the ``after_write`` calls run
        (compiled ``(function, args)``: nav redraws a fixed-reward table for a new key),
        every row's observation is rewritten from the state, and the world may step.
        Returns row ``row``'s observation, as ``step`` returns it.
        """
        env = self.env
        st = env.state
        self.check(view)
        writes = st.unit_writes(view)
        if hasattr(st, "event_count"):  # a state write starts from no pending events
            writes.append((st.event_count, np.array([unit], np.intp), np.zeros(1, st.event_count.dtype)))
        worlds = env.has_world
        worlds[unit] = True  # a valid place to step from
        env.commit(writes, [*after_write, (env.kernel.observe, (worlds.view(np.uint8),))], worlds=worlds)
        return env.row_obs(row)

    # ------------------------------------------------------------ loaded values

    def _loaded_seeds(self, source: StateSource) -> list | np.ndarray:
        """A state's seeds, one per world (None: never seeded), from uint64 words and a mask or from a list."""
        env = self.env
        U = env.state.num_units
        if "seeds" not in source:
            raise InvalidStateError("state is missing 'seeds'", field="seeds")
        if not source.from_file:
            value = source.raw("seeds")
            if not (isinstance(value, np.ndarray) and value.ndim == 2):  # a list of ints and None
                return self._checked_seeds(value)
        words = source.array("seeds", (U, 2), np.dtype(np.uint64))
        has_seed = self._flags(source, "has_seed")
        rows = env.num_envs // U
        bad = np.flatnonzero(~has_seed & (words != 0).any(axis=1))
        if len(bad):
            raise InvalidStateError(
                f"state field 'seeds' of env {bad[0] * rows}: {words[bad[0]].tolist()}; allowed: [0, 0] "
                "where has_seed is False", field="seeds", env=int(bad[0]) * rows)
        return decode_seeds(words, has_seed)

    def _flags(self, source: StateSource, name: str) -> np.ndarray:
        """A state's bool (U,) entry ``name``, each byte a real True or False."""
        env = self.env
        flags = source.array(name, (env.state.num_units,), np.dtype(np.bool_))
        bad = np.flatnonzero(flags.view(np.uint8) > 1)
        if len(bad):
            row = int(bad[0]) * (env.num_envs // env.state.num_units)
            raise InvalidStateError(f"state field {name!r} of env {row}: byte {flags.view(np.uint8)[bad[0]]}; "
                                    "allowed: True or False", field=name, env=row)
        return flags

    def _checked_seeds(self, seeds) -> list:
        """A state's ``seeds`` in the form of earlier versions: one per world, each None or an int in 0..2**128 - 1."""
        env = self.env
        U = env.state.num_units
        try:
            # A copy first: what is checked is what gets written, whatever the caller's list does.
            seeds = list(seeds) if isinstance(seeds, list) else list(np.asarray(seeds, dtype=object).reshape(-1))
        except Exception:  # noqa: BLE001 - whatever the value's conversion raises
            seeds = None
        if seeds is None or len(seeds) != U:
            raise InvalidStateError(f"state['seeds'] must be a list of {U} seeds (one per world)", field="seeds")
        # The usual case without a Python loop: every seed a non-negative int below 2**128, or None.
        if set(map(type, seeds)) <= {int, type(None)}:
            given = list(filter(partial(is_not, None), seeds))
            if min(given, default=0) >= 0 and max(given, default=0) < SEED_BOUND:
                return seeds
        for i, s in enumerate(seeds):
            if s is not None and (isinstance(s, (bool, np.bool_)) or not isinstance(s, numbers.Integral)
                                  or not 0 <= int(s) < SEED_BOUND):
                row = i * (env.num_envs // U)
                raise InvalidStateError(
                    f"state field 'seeds' of env {row}: {s!r}; allowed: None or an integer in 0..2**128 - 1",
                    field="seeds", env=row
                )
        return [None if s is None else int(s) for s in seeds]

    def _checked_max_steps(self, value) -> int:
        """A state's ``max_steps`` (the limit of the next episodes): an integer the kernel can hold."""
        value = _scalar(value)
        info = np.iinfo(self.env.state.MAX_STEPS_DTYPE)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or \
                not info.min <= int(value) <= info.max:
            raise InvalidStateError(
                f"state['max_steps'] is {value!r}; allowed: an integer in {info.min}..{info.max} (0 or less: none)",
                field="max_steps",
            )
        return int(value)


def _scalar(value):
    """A 0-d array (what ``numpy.load`` gives for a saved scalar) as its Python value."""
    return value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value
