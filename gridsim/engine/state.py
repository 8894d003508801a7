"""Batch state: every array of a batch, declared once in field tables, struct of arrays, env axis first.

Coordinates are ``(row, col)`` everywhere, row 0 at the top. numpy allocates and owns
every byte; the kernel (``gridsim.<family>._kernel``) binds typed views once and writes in place,
so arrays are never replaced after construction, only written (``np.copyto``).

A family's state class (``gridsim.<family>.state``) subclasses :class:`BatchState` with the
family's field table (``gridsim/<family>/fields.py``) as ``FIELDS``; the fields every family
has are declared in ``gridsim.engine.fields``. Allocation, ``state_dict()`` (the fields
marked ``saved``), the bytes-per-env figure and the kernel's typed views of the fields (generated
at build time) all follow from the tables.
"""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

import gridsim._core as _core
from gridsim.engine.fields import EPISODE_FIELDS, EVENT_FIELDS, OUTPUT_FIELDS, Field
from gridsim.engine.memory import format_bytes, memory_limit
from gridsim.errors import InvalidArgumentError, InvalidStateError

__all__ = ["BatchState", "Field", "StateView", "brief", "episode_limit"]


INT32_MAX = 0x7FFFFFFF
INT64_MAX = 0x7FFFFFFFFFFFFFFF


# Event slots per world and step: far more than a step writes, and the buffers stay allocatable.
MAX_EVENTS_PER_STEP = 4096


def brief(value, width: int = 80) -> str:
    """``repr(value)`` for a message, cut to ``width`` characters.

    An integer too long for Python to print (over 4,300 digits) is shown by its size, in a
    tuple or list too: a message about a bad value must never raise itself.
    """
    if isinstance(value, (tuple, list)) and len(value) <= 8:
        inner = ", ".join(brief(x, width) for x in value)
        text = f"({inner}{',' if len(value) == 1 else ''})" if isinstance(value, tuple) else f"[{inner}]"
    else:
        try:
            text = repr(value)
        except ValueError:  # int's digit limit
            text = f"<an integer of {int(value).bit_length()} bits>" if isinstance(value, numbers.Integral) \
                else f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."


def episode_limit(max_steps: int) -> int:
    """A batch truncation limit as the int32 per-episode limit the kernels store (0 = none).

    Limits that are not positive, or too large for int32 to reach, mean "never".
    """
    m = int(max_steps)
    return m if 0 < m <= 0x7FFFFFFF else 0


class BatchState:
    """Every array of one batch: the family's ``FIELDS`` plus the shared tables above.

    Subclasses declare ``FIELDS`` and call :meth:`allocate` once, after which
    ``DYNAMIC`` (the ``state_dict`` keys) and :meth:`nbytes_per_env` follow from the tables.
    """

    FIELDS: tuple[Field, ...] = ()  # the family's own arrays
    DYNAMIC: tuple[str, ...] = ()  # the saved fields, in table order (set for each subclass)

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> np.ndarray:
            """A field of :meth:`fields`: :meth:`allocate` sets each as an attribute."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.DYNAMIC = tuple(f.name for f in cls.fields() if f.saved)

    @classmethod
    def fields(cls) -> tuple[Field, ...]:
        """Every field of this family's batch state, its own first."""
        outputs = tuple(replace(f, dtype=cls.REWARD_DTYPE) if f.name == "rewards" else f for f in OUTPUT_FIELDS)
        return cls.FIELDS + EPISODE_FIELDS + EVENT_FIELDS + outputs

    def allocate(self, *, units: int, rows: int, obs_shape: tuple[int, ...], obs_dtype, autoreset_mode: int,
                 max_steps: int, events: bool, max_events: int, num_event_fields: int, **dims: int):
        """Allocate every field, once their total size is known to fit in memory.

        Args:
            units: U, the simulated worlds (envs, or kitchens).
            rows: R, the output rows.
            obs_shape: the shape of one row's observation.
            obs_dtype: its dtype.
            autoreset_mode: the kernel's AUTORESET_* code: final observations get rows under
                SAME_STEP only, the one mode whose kernel writes them.
            max_steps: the truncation limit of the first episodes (0 or less: none).
            events: the kernel records events; without them the buffers get one slot per
                world instead of ``max_events`` (a million envs then carry no 160 MB of
                unused event slots).
            max_events: event slots per world and step.
            num_event_fields: the family's largest event payload (at least 1 field is stored).
            **dims: the family's own shape symbols.

        Raises:
            InvalidArgumentError: the arrays would take more memory than this process can be
                given (:func:`gridsim.engine.memory.memory_limit`); nothing is allocated.
        """
        if isinstance(max_events, bool) or not isinstance(max_events, (int, np.integer)) \
                or not 1 <= max_events <= MAX_EVENTS_PER_STEP:
            raise InvalidArgumentError(
                f"max_events_per_step must be an integer in 1..{MAX_EVENTS_PER_STEP}, got {max_events!r}")
        self.num_units = int(units)
        self.events_on = int(bool(events))
        self.max_events = int(max_events) if events else 1
        self.num_event_fields = max(int(num_event_fields), 1)
        final_rows = rows if autoreset_mode == _core.AUTORESET_SAME_STEP else 0
        sizes = dict(dims, U=units, R=rows, R_final=final_rows, E=self.max_events, F=self.num_event_fields,
                     obs=tuple(obs_shape), obs_dtype=np.dtype(obs_dtype))
        layouts = {f.name: f.layout(sizes) for f in self.fields()}
        _check_fits(layouts, rows, tuple(obs_shape), np.dtype(obs_dtype))
        for f in self.fields():
            shape, dtype = layouts[f.name]
            setattr(self, f.name, np.full(shape, f.fill, dtype))
        self.ep_max_steps[:] = episode_limit(max_steps)
        # seeds[i]: the seed world i's key came from (a Python int; None until seeded).
        self.seeds = np.full(self.num_units, None, dtype=object)

    # ---- injected states (set_state, load_state_dict, state properties)

    # Per-world index arrays of the fields stored per something else (nav: "G" -> "grid_index").
    AXIS_INDEX: Mapping[str, str] = {}
    # The field counting the steps of the current episode, and the most it may hold. Every
    # kernel's count saturates at INT32_MAX (an episode without a step limit can run that
    # long), so every value the env produces is accepted here. A count at or past the
    # episode's limit truncates on the next step (the kernels compare with >=, roboman's with
    # == as in the original).
    STEP_FIELD = ""
    STEP_MAX = INT32_MAX
    # The dtype of the kernel's ``max_steps`` (the limit of the next episodes).
    MAX_STEPS_DTYPE: Any = np.int32
    # The rewards' dtype: float32, or float64 for a family whose original's rewards are doubles
    # (its kernel module declares ``ctypedef double reward_t``; gridsim/engine/_skeleton.pxi).
    REWARD_DTYPE: Any = np.float32
    # The attributes that hold the compiled level the kernel plays (its constant tables: a nav
    # map's tiles and its symbols' rewards): a saved state records their digest (rules_digest).
    RULE_TABLES: tuple[str, ...] = ()

    def rules_digest(self) -> str:
        """A digest of :attr:`RULE_TABLES` (each one's dtype, shape and bytes): 16 hex digits.

        Equal for batches whose kernels play the same compiled level, whatever their
        observations, sizes of view or thread counts.
        """
        h = hashlib.sha256()
        for name in self.RULE_TABLES:
            table = np.ascontiguousarray(getattr(self, name))
            h.update(f"{name}:{table.dtype.str}:{table.shape};".encode())
            h.update(table.tobytes())
        return h.hexdigest()[:16]

    def static_fields(self) -> frozenset[str]:
        """Saved fields shared by worlds and never changed by the kernel: checked, never written."""
        return frozenset()

    def view(self, source: Mapping[str, Any] | None = None, units=None, labels: Mapping[str, str] | None = None,
             widen: bool = False, row: int | None = None) -> StateView:
        """A :class:`StateView` of the saved fields of ``units`` (None: every world).

        Args:
            source: arrays of the whole batch to take the values from (a ``state_dict``,
                already checked for shapes and dtypes); None: copies of the current state.
            units: the worlds, as an index array.
            labels: names for messages (``set_state`` names its own keys).
            widen: store integer fields as int64 so that Python values outside a field's
                dtype are checked against its real range (``put_int``); they must fit when written.
            row: the env that messages name (a one-world view of ``set_state``).
        """
        key = slice(None) if units is None else np.asarray(units, np.intp)
        view = StateView({}, np.arange(self.num_units)[key], len(self.obs) // self.num_units, labels, widen, row)
        for f in self.fields():
            if not f.saved:
                continue
            arr = getattr(self, f.name) if source is None else np.asarray(source[f.name])
            axis = f.shape[0]
            if isinstance(axis, str) and axis in self.AXIS_INDEX:  # the rows the worlds use, each once
                index = getattr(self, self.AXIS_INDEX[axis])[key]
                if units is None:
                    ids, inverse = np.arange(len(arr)), index
                else:
                    ids, inverse = np.unique(index, return_inverse=True)
                    arr = arr[ids]
                view.row_ids[f.name], view.row_index[f.name] = ids, inverse.reshape(-1)
                v = arr
            elif axis == "R":
                v = arr.reshape(self.num_units, -1, *arr.shape[1:])[key]
            else:
                v = arr[key]
            if source is None and units is None:  # basic slices: views of the state
                v = v.copy()
            if widen and v.dtype.kind == "i":
                v = v.astype(np.int64)
            view.values[f.name] = v
        return view

    def unit_writes(self, view: StateView) -> list:
        """The writes of a checked view (every saved field but the static ones), for ``gridsim._core.commit``.

        Each is ``(field, rows, values)``: the view's values, in the field's dtype, for rows of
        the field's first axis. Nothing is written here; the commit writes them all at once.
        """
        static = self.static_fields()
        units = np.asarray(view.units, np.intp)
        writes: list = []
        for f in self.fields():
            if not f.saved or f.name in static:
                continue
            arr, v = getattr(self, f.name), view.values[f.name]
            axis = f.shape[0]
            values = np.ascontiguousarray(v, arr.dtype)  # widened integers were checked to fit
            if axis == "R":  # (worlds, rows per world, ...): a view of the field
                writes.append((arr.reshape(self.num_units, -1, *arr.shape[1:]), units, values))
            elif axis in self.AXIS_INDEX:
                writes.append((arr, np.asarray(view.row_ids[f.name], np.intp), values))
            else:
                writes.append((arr, units, values))
        return writes

    def check(self, view: StateView, *, num_event_types: int):
        """Every invariant of the engine's fields, then the family's (:meth:`check_own`).

        Raises:
            InvalidStateError: for the first field and env that breaks one (nothing is written here).
        """
        v = view
        for f in self.fields():
            if f.saved and f.dtype is np.bool_:
                v.bools(f.name)
        v.in_range("episode", 0, INT64_MAX - 1)
        v.finite("ep_return")
        v.in_range("ep_max_steps", 0, INT32_MAX, "(the episode's step limit, 0 = none)")
        v.in_range(self.STEP_FIELD, 0, self.STEP_MAX, "(steps in the episode)")
        v.in_range("event_count", 0, self.max_events)
        v.in_range("event_type", 0, num_event_types, "(0 = unused)")
        recorded = np.arange(self.max_events)[None, :] < v["event_count"][:, None]
        v.require("event_type", ~recorded | (v["event_type"] >= 1),
                  f"an event type 1..{num_event_types} in the first event_count slots")
        v.in_range("event_dropped", 0, INT64_MAX - 1)
        for name in ("rewards", "stat_return"):
            v.finite(name)
        if v["obs"].dtype.kind == "f":
            v.finite("obs")
        v.in_range("stat_length", 0, INT32_MAX)
        self.check_own(v)
        if v.widened:  # a field without a narrower declared range must still fit its dtype
            for f in self.fields():
                dtype = getattr(self, f.name).dtype
                if f.saved and dtype.kind == "i" and v[f.name].dtype != dtype:
                    v.in_range(f.name, np.iinfo(dtype).min, np.iinfo(dtype).max)

    def check_own(self, view: StateView):
        """Family hook: the invariants of the family's own fields."""

    def nbytes_per_env(self) -> float:
        """Bytes of state and output buffers per world (arrays shared by worlds count 1/U each)."""
        return sum(getattr(self, f.name).nbytes for f in self.fields()) / self.num_units


def _check_fits(layouts: Mapping[str, tuple[tuple[int, ...], np.dtype]], rows: int, obs_shape: tuple[int, ...],
                obs_dtype: np.dtype):
    """Raise InvalidArgumentError, before anything is allocated, if the arrays need more than the process can have.

    Args:
        layouts: each field's shape and dtype.
        rows: the batch's output rows (its ``num_envs``).
        obs_shape: one row's observation shape, for the message.
        obs_dtype: its dtype, for the message.
    """
    sizes = {name: math.prod(shape) * dtype.itemsize for name, (shape, dtype) in layouts.items()}
    needed = sum(sizes.values())
    limit = memory_limit()
    if limit is None or needed <= limit.available:
        return
    largest = sorted(sizes, key=sizes.__getitem__, reverse=True)[:3]
    parts = ", ".join(f"{name}: {format_bytes(sizes[name])} as {layouts[name][1]} {layouts[name][0]}"
                      for name in largest)
    raise InvalidArgumentError(
        f"num_envs={rows} with observations of {obs_dtype} {obs_shape} needs {format_bytes(needed)} "
        f"({format_bytes(needed / rows)} per env; {parts}), more than this process can have: "
        f"{format_bytes(limit.available)}, {limit.source}. Use fewer envs or a smaller observation "
        f"(its type, view or tile size)")


# ------------------------------------------------------------------ validation of injected states


class StateView:
    """Candidate values of some worlds' saved fields, checked before any of them is written.

    ``set_state``, ``load_state_dict`` and the state properties build one, change it, have
    :meth:`BatchState.check` verify every invariant on it (vectorised numpy, never the step
    path), and only then write it (:meth:`BatchState.unit_writes`). Every array has the
    checked worlds on its first axis (a row field, ``R``, is reshaped to (worlds, rows per
    world, ...)), except the fields below.

    A field stored per something else than worlds (nav's maps, ``BatchState.AXIS_INDEX``) keeps
    its own rows, each checked once: ``row_index[name]`` gives each world's row of the view and
    ``row_ids[name]`` which rows of the batch's array the view's rows are.

    Attributes:
        values: field name -> candidate array.
        units: the worlds checked, as indices into the batch.
        labels: field name -> the name a message uses for it (``set_state`` uses its own keys).
        widened: integer fields are held as int64 (values from Python, checked against each
            field's dtype before they are written).
        row: the env messages name for a one-world view (the row ``set_state`` was given).
    """

    def __init__(self, values: dict[str, np.ndarray], units: np.ndarray, rows_per_unit: int,
                 labels: Mapping[str, str] | None = None, widened: bool = False, row: int | None = None):
        self.values = values
        self.row = row
        # Fields stored per something else (AXIS_INDEX): their rows are checked once each.
        self.row_index: dict[str, np.ndarray] = {}  # name -> (worlds,) index into the view's rows
        self.row_ids: dict[str, np.ndarray] = {}  # name -> which rows of the state's array they are
        self.widened = widened
        self.units = units
        self.rows_per_unit = rows_per_unit
        self.labels = dict(labels or {})

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[name]

    def label(self, name: str, part: str = "") -> str:
        """The name of field ``name`` (or of its ``part``) in messages."""
        if part and f"{name}.{part}" in self.labels:
            return self.labels[f"{name}.{part}"]
        return self.labels.get(name, name) + (f" ({part})" if part else "")

    def env_of(self, position: int | None) -> int | None:
        """The env (output row) of the ``position``-th checked world: a world's first row."""
        if self.row is not None:
            return self.row
        return None if position is None else int(self.units[position]) * self.rows_per_unit

    def fail(self, name: str, position: int | None, message: str, part: str = ""):
        """Raise InvalidStateError for the ``position``-th checked world (``part``: of the field)."""
        env = self.env_of(position)
        sep = "" if message.startswith(" ") else ": "
        field = self.labels.get(f"{name}.{part}", self.labels.get(name, name))
        of = f" of env {env}" if env is not None else " (a row no env uses)"
        raise InvalidStateError(f"state field {self.label(name, part)!r}{of}{sep}{message}", field=field, env=env)

    def require(self, name: str, ok, allowed: str, shown=None, part: str = ""):
        """Every entry of ``ok`` (worlds first) is True, else InvalidStateError naming the first bad one.

        Args:
            name: the field (its label is named).
            ok: bool array, the checked worlds (or the field's own rows, see above) on axis 0.
            allowed: what the field may hold, for the message.
            shown: the values to quote (default: the field's own), broadcastable to ``ok``.
            part: the part of the field checked (``"agent"`` of roboman's ``record``), for the message.
        """
        ok = np.asarray(ok, np.bool_)
        if ok.all():
            return
        flat = ok.reshape(len(ok), -1)
        first = int(np.flatnonzero(~flat.all(axis=1))[0])
        entry = int(np.flatnonzero(~flat[first])[0])
        values = self.values[name] if shown is None else shown
        values = np.broadcast_to(np.asarray(values), ok.shape).reshape(len(ok), -1)
        where = "" if flat.shape[1] == 1 else f" at {tuple(int(k) for k in np.unravel_index(entry, ok.shape[1:]))}"
        value = values[first, entry]
        value = value.item() if hasattr(value, "item") else value
        position: int | None = first
        if name in self.row_index:  # a row of the field: name the first world that uses it
            users = np.flatnonzero(self.row_index[name] == first)
            position = int(users[0]) if len(users) else None
        self.fail(name, position, f"{where} is {value!r}; allowed: {allowed}", part)

    def in_range(self, name: str, lo, hi, allowed: str = "", values=None, part: str = ""):
        """``lo <= value <= hi`` for every entry (bounds: scalars, or one per checked world).

        ``values`` and ``part``: a part of the field to check instead of all of it.
        """
        v = self.values[name] if values is None else values
        lo_b, hi_b = (_per_world(b, v.ndim) for b in (lo, hi))
        ok = (v >= lo_b) & (v <= hi_b)
        if ok.all():
            return
        position = int(np.flatnonzero(~ok.reshape(len(ok), -1).all(axis=1))[0])
        low = np.broadcast_to(lo_b, ok.shape)[position].min()
        high = np.broadcast_to(hi_b, ok.shape)[position].max()
        span = f"{low}..{high}"
        self.require(name, ok, f"{span}{' ' + allowed if allowed else ''}", shown=v, part=part)

    def bools(self, name: str):
        """A bool field holds only real bools (bytes 0 and 1)."""
        v = self.values[name]
        self.require(name, v.view(np.uint8) <= 1, "True or False", shown=v.view(np.uint8))

    def finite(self, name: str):
        """A float field holds no NaN or infinity."""
        self.require(name, np.isfinite(self.values[name]), "a finite number")

    # ---- writing Python values into a one-world view (set_state)

    def put_int(self, name: str, value, index=(), part: str = ""):
        """Store a Python integer at ``[0, *index]`` of a one-world view (the range is checked later)."""
        arr = self.values[name]
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            self.fail(name, 0, f"must be an integer, got {brief(value)}", part)
        info = np.iinfo(arr.dtype)
        if not info.min <= int(value) <= info.max:
            self.fail(name, 0, f" is {brief(int(value))}; allowed: at most {info.min}..{info.max}", part)
        arr[_at(index)] = int(value)

    def put_float(self, name: str, value, index=()):
        """Store a real number at ``[0, *index]`` of a one-world view (finiteness is checked later)."""
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            self.fail(name, 0, f"must be a number, got {brief(value)}")
        try:
            number = float(value)
        except OverflowError:  # an int (or Fraction) past the float range
            number = None
        if number is None:
            self.fail(name, 0, f"must be a finite number, got one past the float range ({brief(value, 40)})")
        self.values[name][_at(index)] = number

    def put_bool(self, name: str, value, index=()):
        """Store a real bool (``True``/``False``, not ``"False"`` or 0) at ``[0, *index]``."""
        if not isinstance(value, (bool, np.bool_)):
            self.fail(name, 0, f"must be True or False, got {brief(value)}")
        self.values[name][_at(index)] = bool(value)


def _at(index) -> tuple:
    """``[0, *index]``: an entry of a one-world view."""
    return (0, *index) if isinstance(index, tuple) else (0, index)


def _per_world(bound, ndim: int):
    """A bound (scalar, or one per world) broadcastable against a (worlds, ...) array."""
    b = np.asarray(bound)
    return b if b.ndim == 0 else b.reshape(b.shape + (1,) * (ndim - b.ndim))
