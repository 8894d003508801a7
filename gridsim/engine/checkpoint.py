"""Checkpoint files: a batch's ``state_dict()`` in an ``.npz`` file that loads without unpickling.

:func:`save_checkpoint` writes ``envs.state_dict()`` (the format of ``gridsim.engine.statefile``:
plain numpy arrays, the seeds as uint64 words, the format version, the env's class, its
``num_envs`` and its rules) with ``numpy.savez_compressed``, atomically (``gridsim.engine.files``): an
interrupted save leaves the previous file as it was. :func:`load_checkpoint` reads it back
through ``load_state_dict``, which never unpickles: each entry's header is checked before its
data is read. A checkpoint of another env class, ``num_envs``, format version or rules (another
level, or a setting of the rules) is refused with :class:`gridsim.InvalidStateError` naming the
difference, and nothing changes.
"""

from __future__ import annotations

import os
import struct
import zipfile
from typing import Any

import numpy as np
from numpy.lib.npyio import NpzFile

from gridsim.engine.files import atomic_write
from gridsim.engine.single import SingleEnvView
from gridsim.engine.vector import GridVectorEnv
from gridsim.errors import ArgumentTypeError, InvalidStateError

__all__ = ["load_checkpoint", "save_checkpoint"]

# The entries that make an .npz file a checkpoint rather than any saved dict.
_HEADER_KEYS = ("format_version", "env_class", "num_envs")


def _batch(envs: Any, caller: str) -> GridVectorEnv:
    """The gridsim vector env under ``envs``: itself, under Gymnasium wrappers, or under a single env."""
    env = getattr(envs, "unwrapped", envs)
    if isinstance(env, SingleEnvView):
        env = env.unwrapped_vector
    if not isinstance(env, GridVectorEnv):
        raise ArgumentTypeError(f"{caller} takes a gridsim env (a GridVectorEnv or a gym.make env of a gridsim id), "
                                f"got {type(envs).__name__}")
    return env


def save_checkpoint(envs: Any, path: str | os.PathLike, *, compress: bool = True) -> None:
    """Write ``envs.state_dict()`` to ``path`` as an ``.npz`` file, atomically.

    The file holds no pickled objects, so :func:`load_checkpoint` (or ``load_state_dict`` of
    ``numpy.load(path)``) reads it without running anything it contains. It is written to a
    temporary file beside ``path`` and renamed into place once complete.

    Args:
        envs: a gridsim vector env (or a Gymnasium env whose ``unwrapped`` is one, or a
            single gridsim env, whose one-row batch is saved).
        path: the file to write, exactly this name (no ``.npz`` is added).
        compress: compress the entries (``numpy.savez_compressed``); False writes them as
            they are (``numpy.savez``): larger, faster.

    Raises:
        ArgumentTypeError: ``envs`` is not a gridsim env.
        ClosedEnvError: the env is closed.
    """
    env = _batch(envs, "save_checkpoint")
    state = env.state_dict()
    with atomic_write(path, "wb") as f:
        (np.savez_compressed if compress else np.savez)(f, allow_pickle=False, **state)


def load_checkpoint(envs: Any, path: str | os.PathLike) -> None:
    """Restore a checkpoint written by :func:`save_checkpoint` into ``envs``; stepping then continues bit-identically.

    ``envs`` must be built with the same arguments as the env that was saved (the same class,
    ``num_envs``, level and settings of the rules: ``envs.rules_signature()``). Nothing in the
    file is unpickled: each entry's ``.npy`` header is checked (dtype, shape) before its data is
    read, and an entry of Python objects is refused.

    Args:
        envs: the gridsim env to load into (as for :func:`save_checkpoint`).
        path: the checkpoint file.

    Raises:
        InvalidStateError: the file is not a gridsim checkpoint (not an ``.npz`` file, or one
            without the format version, env class and ``num_envs``), is of another format
            version, env class, ``num_envs`` or rules, is damaged, or holds a state that breaks
            the family's invariants; the env is then unchanged.
        ArgumentTypeError: ``envs`` is not a gridsim env.
        OSError: ``path`` cannot be opened (``FileNotFoundError``, ``PermissionError``).
    """
    env = _batch(envs, "load_checkpoint")
    with open(path, "rb") as f:
        try:
            npz = NpzFile(f)  # reads the zip's directory, none of its entries
        except (zipfile.BadZipFile, ValueError, OSError, EOFError, struct.error) as e:
            raise InvalidStateError(f"{os.fspath(path)!s} is not a gridsim checkpoint (not an .npz file): {e}") from e
        with npz:
            missing = [key for key in _HEADER_KEYS if key not in npz.files]
            if missing:
                raise InvalidStateError(
                    f"{os.fspath(path)!s} is not a gridsim checkpoint: it has no {', '.join(map(repr, missing))} "
                    "(save_checkpoint writes them)", field=missing[0])
            env.load_state_dict(npz)
