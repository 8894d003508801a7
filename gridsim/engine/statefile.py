"""The saved form of a batch: what ``state_dict()`` returns and ``load_state_dict`` reads.

``GridVectorEnv.state_dict()`` holds numpy arrays and a few scalars, none of them of dtype
object, so ``numpy.savez`` writes it without pickling anything and ``numpy.load`` reads it back
with its default ``allow_pickle=False``. Format version 2 (:data:`FORMAT_VERSION`):

==================  ===============  ==============================================================
key                 dtype, shape     what it holds
==================  ===============  ==============================================================
each saved field    its own          ``BatchState.DYNAMIC``: the family's arrays and the engine's
``seeds``           uint64 (U, 2)    the seed world i's key came from, as two words: the low 64
                                     bits, then the high 64 bits (``seed = lo | hi << 64``; seeds
                                     are below 2**128); (0, 0) where ``has_seed`` is False
``has_seed``        bool (U,)        False for a world that was never seeded (its seed is None)
``has_world``       bool (U,)        False for a world never reset, started or given a state (it
                                     cannot step); earlier versions have none: every world has one
``num_envs``        int              N
``max_steps``       int              the step limit of the next episodes (a written setting)
``format_version``  int              :data:`FORMAT_VERSION`
``env_class``       str              the env's class name (``"NavVectorEnv"``)
``rules``           str              the env's ``rules_signature()`` as a JSON object of strings
                                     (:func:`encode_rules`): the level, its digest and the settings
                                     that change the rules; a state of other rules is refused
==================  ===============  ==============================================================

Version 1 had no ``rules``; its files are still read (:data:`READABLE_VERSIONS`), without the
check of the rules.

:class:`StateSource` reads a state once into arrays gridsim owns. An ``NpzFile`` is never
indexed (indexing unpickles an object entry when the file was opened with
``allow_pickle=True``): each entry's ``.npy`` header is read and checked first, then exactly
the bytes it announces are read, so neither a pickle nor a header claiming a huge array gets
past the check.
"""

from __future__ import annotations

import json
import math
import struct
import zipfile
import zlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.lib import format as npy_format
from numpy.lib.npyio import NpzFile

from gridsim.engine.rng import SEED_BOUND
from gridsim.errors import InvalidStateError

__all__ = ["FORMAT_VERSION", "READABLE_VERSIONS", "StateSource", "decode_rules", "decode_seeds", "encode_rules",
           "encode_seeds"]

FORMAT_VERSION = 2
# The versions this one reads: 1 has no rules (it loads without their check).
READABLE_VERSIONS = (1, 2)
_MASK64 = (1 << 64) - 1
# Scalars in a file: an int64, or a text (a class name, the rules) of at most this many characters.
_MAX_SCALAR_BYTES = 4 * 4096
# Bytes decompressed per read: a large entry never exists twice in memory.
_CHUNK = 1 << 20

# What reading a malformed or truncated zip member can raise (zipfile, zlib, numpy's header parser).
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, TypeError, RuntimeError,
                NotImplementedError, struct.error, SyntaxError, KeyError, OverflowError)


def encode_seeds(seeds) -> tuple[np.ndarray, np.ndarray]:
    """Each world's seed (None or an integer in ``0..2**128 - 1``) as ``(seeds, has_seed)``.

    Args:
        seeds: one entry per world (``BatchState.seeds``, an object array).

    Returns:
        uint64 (U, 2) words, low then high, and the bool (U,) mask of the worlds with a seed.

    Raises:
        InvalidStateError: a seed is negative or not below 2**128.
    """
    seeds = np.asarray(seeds, dtype=object)
    has_seed = np.not_equal(seeds, None)  # type: ignore[call-overload]  # numpy's stubs omit None operands
    words = np.zeros((len(seeds), 2), np.uint64)
    try:
        words[has_seed, 0] = seeds[has_seed].astype(np.uint64)  # seeds below 2**64: one loop in C
    except OverflowError:
        for i in np.flatnonzero(has_seed):
            s = int(seeds[i])
            if not 0 <= s < SEED_BOUND:
                raise InvalidStateError(f"the seed of world {i} is {s}; a saved seed is in 0..2**128 - 1",
                                        field="seeds") from None
            words[i] = (s & _MASK64, s >> 64)
    return words, has_seed


def decode_seeds(words: np.ndarray, has_seed: np.ndarray) -> np.ndarray:
    """The seeds of :func:`encode_seeds`'s words and mask: an object array of Python ints (None without a seed)."""
    out = words[:, 0].astype(object)  # Python ints, in one loop in C
    out[~has_seed] = None
    for i in np.flatnonzero(has_seed & (words[:, 1] != 0)):
        out[i] = int(words[i, 0]) | int(words[i, 1]) << 64
    return out


def encode_rules(signature: Mapping[str, str]) -> str:
    """A ``rules_signature()`` as the text a state holds: a JSON object, its keys sorted."""
    return json.dumps(dict(signature), sort_keys=True)


def decode_rules(text: Any) -> dict[str, str]:
    """The rules a state's ``rules`` entry records (:func:`encode_rules`' text).

    Raises:
        InvalidStateError: it is not a JSON object of strings.
    """
    try:
        rules = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):  # json's errors, a number too long to convert, arrays nested deep
        rules = None
    if not isinstance(rules, dict) or not all(isinstance(v, str) for v in rules.values()):
        raise InvalidStateError(f"state['rules'] must be a JSON object of strings (state_dict() writes one), got "
                                f"{str(text)[:80]!r}", field="rules")
    return rules


def _layout_error(name: str, shape, dtype, expected_shape, expected_dtype, where: str = "") -> InvalidStateError:
    return InvalidStateError(
        f"state[{name!r}]{where} has shape {tuple(shape)} and dtype {dtype}, "
        f"expected {tuple(expected_shape)} and {expected_dtype}", field=name
    )


class StateSource:
    """Reads each entry of a state once, into arrays gridsim owns, checking it before it is copied.

    A state is a Mapping (``state_dict()``, a dict of arrays) or an ``NpzFile`` (what
    ``numpy.load`` returns for an ``.npz`` file, however it was opened).

    - Mapping: each array is copied once, after its shape and dtype are checked on a view
      gridsim made; the copy is what gets checked and written, so a caller (another thread, a
      memory-mapped file rewritten by another process) changing its arrays after the call
      starts cannot get unchecked values in.
    - NpzFile: each entry's ``.npy`` header is read from the zip member and checked (an object
      dtype, which would unpickle, and a shape or dtype other than the expected one are refused)
      before its data is decompressed; then exactly the announced bytes are read. The file's
      own unpickling reader is never used.

    Args:
        state: the state.

    Raises:
        InvalidStateError: ``state`` is neither, or the NpzFile is closed.
    """

    def __init__(self, state: Any):
        self._map: Mapping[str, Any] | None = None
        self._zip: zipfile.ZipFile | None = None
        self._members: dict[str, str] = {}
        if isinstance(state, NpzFile):
            if state.zip is None:
                raise InvalidStateError("the NpzFile is closed: load the state inside its `with` block")
            self._zip = state.zip
            names = self._zip.namelist()
            # As NpzFile finds keys: the member "name" itself, else "name.npy".
            self._members = {n[:-4]: n for n in names if n.endswith(".npy")}
            self._members.update({n: n for n in names})
        elif isinstance(state, Mapping):
            self._map = state
        else:
            raise InvalidStateError(f"a state is a dict of arrays (state_dict()), got {type(state).__name__}")

    @property
    def from_file(self) -> bool:
        """The state is an NpzFile (its entries are stored arrays, never Python objects)."""
        return self._zip is not None

    def __contains__(self, name: str) -> bool:
        if self._map is None:
            return name in self._members
        try:
            return name in self._map
        except Exception as e:  # noqa: BLE001 - any Mapping: its failure is the state's fault
            raise InvalidStateError(f"the state cannot be searched for {name!r}: {e}", field=name) from e

    def raw(self, name: str) -> Any:
        """The Mapping's value as it is (an in-memory form the caller checks and copies)."""
        assert self._map is not None, "an NpzFile entry is read as an array"
        try:
            return self._map[name]
        except Exception as e:  # noqa: BLE001 - any Mapping: its failure is the state's fault
            raise InvalidStateError(f"state[{name!r}] cannot be read: {e}", field=name) from e

    def array(self, name: str, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """A private C-contiguous copy of entry ``name``, which must have exactly ``shape`` and ``dtype``.

        Raises:
            InvalidStateError: the entry is missing, not an array, or of another shape or dtype
                (from a file: said by its header, before any of its data is read).
        """
        if name not in self:
            raise InvalidStateError(f"state is missing {name!r}", field=name)
        dtype = np.dtype(dtype)
        if self._map is None:
            def check(got_shape, got_dtype):
                if got_shape != shape or got_dtype != dtype:
                    raise _layout_error(name, got_shape, got_dtype, shape, dtype, " (the file's header)")
            return self._read_member(name, check)
        value = self.raw(name)
        try:
            # A view of gridsim's own: the caller cannot reshape it between the check and the copy.
            view = np.asarray(value).view(np.ndarray)
        except Exception as e:  # noqa: BLE001 - whatever the value's conversion raises
            raise InvalidStateError(f"state[{name!r}] is not an array: {e}", field=name) from e
        if view.shape != shape or view.dtype != dtype:
            raise _layout_error(name, view.shape, view.dtype, shape, dtype)
        return np.array(view, order="C", copy=True)

    def scalar(self, name: str, kinds: str, what: str) -> Any:
        """Entry ``name`` as a Python value: a Mapping's value (a 0-d array's item), a file's 0-d array.

        Args:
            name: the key.
            kinds: the numpy dtype kinds a file's entry may have (``"iu"``: integers).
            what: what the entry is, for the message.

        Raises:
            InvalidStateError: a file's entry is not a 0-d array of those kinds (checked from its header).
        """
        if self._map is not None:
            value = self.raw(name)
            return value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value

        def check(shape, dtype):
            if shape != () or dtype.kind not in kinds or dtype.itemsize > _MAX_SCALAR_BYTES:
                raise InvalidStateError(
                    f"state[{name!r}] must be {what}; the file holds an array of shape {tuple(shape)} "
                    f"and dtype {dtype}", field=name)
        return self._read_member(name, check).item()

    def _read_member(self, name: str, check: Callable[[tuple, np.dtype], None]) -> np.ndarray:
        """Read a zip member's ``.npy`` header, ``check(shape, dtype)`` it, then read exactly its data."""
        assert self._zip is not None
        try:
            with self._zip.open(self._members[name]) as fp:
                version = npy_format.read_magic(fp)
                if version == (1, 0):
                    shape, fortran, dtype = npy_format.read_array_header_1_0(fp)
                elif version == (2, 0):
                    shape, fortran, dtype = npy_format.read_array_header_2_0(fp)
                else:
                    raise InvalidStateError(f"state[{name!r}] is stored in .npy format {version}; "
                                            "gridsim reads versions 1.0 and 2.0", field=name)
                if dtype.hasobject:
                    raise InvalidStateError(
                        f"state[{name!r}] is stored as Python objects (a pickle, which can run any code), and "
                        "gridsim never unpickles a state; a state_dict() of this version has none. To convert "
                        "a trusted file of an earlier version, see docs/checkpoints.md", field=name)
                check(shape, dtype)
                data = bytearray(math.prod(shape) * dtype.itemsize)
                view = memoryview(data)
                done = 0
                while done < len(data):
                    chunk = fp.read(min(_CHUNK, len(data) - done))
                    if not chunk:
                        raise InvalidStateError(f"state[{name!r}] ends after {done} of its {len(data)} bytes",
                                                field=name)
                    view[done:done + len(chunk)] = chunk
                    done += len(chunk)
                if fp.read(1):  # also makes zipfile check the member's CRC
                    raise InvalidStateError(f"state[{name!r}] holds more bytes than its header says", field=name)
            array = np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C")
            return np.ascontiguousarray(array)
        except InvalidStateError:
            raise
        except _READ_ERRORS as e:
            raise InvalidStateError(f"state[{name!r}] cannot be read from the file: {e}", field=name) from e
