"""Envs as the tools and the command line name them: a registered id, a level name or a level file.

:func:`env_entry` turns any of the three into the Gymnasium id and keyword arguments that make
it, so ``gridsim eval``, ``render``, ``check`` and ``play`` accept the same names (``gridsim bench``
too, through :func:`gridsim_id`); a name that is neither a registered id nor a level is refused
with :class:`gridsim.LevelNotFoundError`, which suggests the closest ids and level names.

An id may be written without gridsim's namespace, as the project it comes from writes it:
Minigrid's ``MiniGrid-DoorKey-8x8-v0`` names ``gridsim/MiniGrid-DoorKey-8x8-v0``, the env it
plays seed for seed (:func:`gridsim_id`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

from gridsim.errors import ArgumentTypeError
from gridsim.levels.lookup import gridsim_id
from gridsim.registry import LEVEL_ID

__all__ = ["command_line_env", "env_entry", "gridsim_id", "make_single"]


def env_entry(env: str | os.PathLike) -> tuple[str, dict[str, Any]]:
    """The Gymnasium id and keyword arguments that make ``env``.

    Args:
        env: a registered gridsim id (``"gridsim/Nav-four_rooms-v0"``, or without its namespace:
            ``"MiniGrid-DoorKey-8x8-v0"``, see :func:`gridsim_id`), a level name as
            :func:`gridsim.make` takes it (``"nav/four_rooms"``, ``"roboman:LiftRed"``) or a level
            file as a ``pathlib.Path``.

    Returns:
        ``(id, kwargs)``: the id as registered and no arguments, or ``gridsim/Level-v0`` and ``{"level": env}``.
        Whether a level name exists is found when the env is made (a
        :class:`gridsim.LevelNotFoundError`, with the closest ids and names).

    Raises:
        gridsim.ArgumentTypeError: ``env`` is neither a string nor a path, or is the id of an env
            that is not gridsim's.
    """
    if isinstance(env, str):
        env_id = gridsim_id(env)
        if env_id is not None:
            return env_id, {}
        if env in gym.registry:
            raise ArgumentTypeError(f"{env!r} is not a gridsim id: the gridsim tools run gridsim envs "
                                    "(`gridsim list` prints the ids)")
    if not isinstance(env, (str, os.PathLike)):
        raise ArgumentTypeError(f"env must be a registered id, a level name or a level file, got {env!r}")
    return LEVEL_ID, {"level": env}


def make_single(env: str | os.PathLike, **kwargs: Any) -> gym.Env:
    """``gymnasium.make`` of a registered id, a level name or a level file (see :func:`env_entry`)."""
    env_id, extra = env_entry(env)
    return gym.make(env_id, **extra, **kwargs)


def command_line_env(text: str) -> str | Path:
    """An env named on the command line: a registered id, else an existing file as a Path, else a name.

    A gridsim id written without its namespace comes back as registered (``MiniGrid-DoorKey-8x8-v0``:
    ``gridsim/MiniGrid-DoorKey-8x8-v0``, :func:`gridsim_id`), without a note: it names the same env,
    and what the commands print names the id. A registered Gymnasium id always means the id, even
    when the working directory holds a file of that name (a note on stderr says the file is not
    read; ``./<id>`` names the file). Library calls resolve a str only inside the level
    directories; any other file named on the command line is the user's explicit choice, so it is
    loaded from where it is.
    """
    name = gridsim_id(text) or text
    if not os.path.isfile(text):
        return name
    if name in gym.registry:
        print(f"gridsim: {text!r} is a registered id; the file of that name in the working directory is not read "
              f"(write ./{text} for the file)", file=sys.stderr)
        return name
    return Path(text)
