"""Episodes as pictures: play one episode with a policy and write its frames (``gridsim render``).

:func:`record_episode` plays the episode that :func:`gridsim.evaluate` plays for the same
seed and policy, and keeps the ``rgb_array`` frame of every state, the first after the
reset and the last after the step that ends the episode. :func:`write_frames` writes them
as a GIF or an MP4 (imageio; MP4 also needs imageio-ffmpeg) or one frame as a PNG
(pillow). These packages are the ``render`` extra: ``pip install "gridsim-vec[render]"``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gridsim.engine.draw import step_text, with_overlay
from gridsim.engine.files import atomic_path
from gridsim.errors import ArgumentTypeError, InvalidActionError, InvalidArgumentError, PolicyError
from gridsim.tools.evaluate import _open_env, _read_only, has_step_limit
from gridsim.tools.policies import _PolicyCaller

__all__ = ["Episode", "MEDIA_SUFFIXES", "record_episode", "write_frames"]

MEDIA_SUFFIXES = (".gif", ".mp4", ".png")
EXTRA = 'pip install "gridsim-vec[render]"'


@dataclass(eq=False)
class Episode:
    """The frames of one episode and how it went.

    Attributes:
        frames: uint8 (H, W, 3) frames, one per state: ``len(frames) == length + 1``.
        rewards: float64 (length,) the reward of each step (a kitchen's team reward).
        terminated: whether the last step ended the episode by termination.
        truncated: whether it ended by the env's step limit (False when ``max_steps`` cut it short).
    """

    frames: list[np.ndarray]
    rewards: np.ndarray
    terminated: bool
    truncated: bool

    @property
    def length(self) -> int:
        """The steps played."""
        return len(self.rewards)


def record_episode(policy, env, seed: int, *, max_steps: int | None = None, cell_px: int | None = None,
                   env_kwargs: Mapping[str, Any] | None = None, overlay: bool = False) -> Episode:
    """Play one episode and keep a frame of every state.

    Args:
        policy: as :func:`gridsim.evaluate` takes it: ``"random"``, ``policy(obs)``,
            ``policy(obs, infos)`` or a ``torch.nn.Module``, called on a batch of one.
        env: a registered id, a level name or a level file (a :class:`~pathlib.Path`), as
            :func:`gridsim.evaluate` takes it.
        seed: the episode's seed (``reset(seed=seed)``).
        max_steps: stop after this many steps even if the episode goes on (None: play to its end).
        cell_px: pixels per cell (None: the env's own size).
        env_kwargs: more keyword arguments of the env.
        overlay: write "step K  reward R" (the step's reward) in a band above each frame
            (:func:`gridsim.engine.draw.with_overlay`); the frames are then that much higher.

    Returns:
        An :class:`Episode`.

    Raises:
        TypeError: ``env`` is not a string or a path.
        ValueError: ``max_steps`` below 0, or an env without a step limit and no ``max_steps``.
        gridsim.PolicyError: the policy returned invalid actions.

    Example:
        >>> episode = record_episode("random", "gridsim/Nav-room1_small-v0", seed=0, max_steps=3)
        >>> len(episode.frames), episode.frames[0].shape, episode.length
        (4, (96, 96, 3), 3)
        >>> record_episode("random", "gridsim/Nav-room1_small-v0", seed=0, max_steps=3, overlay=True).frames[0].shape
        (116, 96, 3)
    """
    if not isinstance(env, (str, os.PathLike)):
        raise ArgumentTypeError(f"env must be a registered id, a level name or a level file, got {env!r}")
    if max_steps is not None and max_steps < 0:
        raise InvalidArgumentError(f"max_steps must be >= 0 or None, got {max_steps}")
    caller = _PolicyCaller(policy)
    envs, _, env_name = _open_env(env, 1, None, 1, {**(env_kwargs or {}), "render_mode": "rgb_array"})
    try:
        base = envs.unwrapped
        if max_steps is None and not has_step_limit(base):
            raise InvalidArgumentError(f"{env_name}: its episodes have no step limit; give max_steps (--max-steps)")
        caller.bind(base)
        rows = base.num_envs  # 1, or a kitchen's agents in the agent-rows view
        obs, infos = envs.reset(seed=[seed] * rows)

        def frame(reward: float | None) -> np.ndarray:
            picture = base.render_frame(0, cell_px)
            return with_overlay(picture, step_text(len(rewards), reward)) if overlay else picture

        rewards: list[float] = []
        frames = [frame(None)]
        terminated = truncated = False
        episode_seed = _read_only(np.full(rows, seed % (1 << 64), np.uint64))
        while max_steps is None or len(rewards) < max_steps:
            if caller.wants_infos:
                infos = {**infos, "episode_seed": episode_seed, "episode_step": np.full(rows, len(rewards))}
            actions = caller(_read_only(obs), infos)
            try:
                obs, reward, term, trunc, infos = envs.step(actions)
            except InvalidActionError as e:
                raise PolicyError(f"policy {caller.name} returned invalid actions for {env_name}: {e}") from e
            rewards.append(float(reward[0]))
            frames.append(frame(rewards[-1]))
            terminated, truncated = bool(term[0]), bool(trunc[0])
            if terminated or truncated:
                break
    finally:
        envs.close()
    return Episode(frames, np.array(rewards, np.float64), terminated, truncated)


def _need(module: str, suffix: str):
    """Import ``module``; a missing package is an ImportError naming it and the extra."""
    import importlib

    top = module.split(".")[0]
    try:
        importlib.import_module(top)
        return importlib.import_module(module)
    except ImportError:
        package = {"PIL": "pillow", "imageio_ffmpeg": "imageio-ffmpeg"}.get(top, top)
        raise ImportError(f"writing {suffix} files needs {package}: {EXTRA}") from None


def write_frames(path: str | os.PathLike, frames: Sequence[np.ndarray], *, fps: float = 10.0,
                 frame: int = 0) -> None:
    """Write frames by the file's suffix: ``.gif`` or ``.mp4`` all of them, ``.png`` frame ``frame``.

    The file is written whole or not at all (:func:`gridsim.engine.files.atomic_path`): a
    writer that fails or a Ctrl-C midway leaves the previous file as it was.

    Args:
        path: the file to write (replaced if it exists).
        frames: uint8 (H, W, 3) frames of equal shape.
        fps: frames per second of a GIF or an MP4.
        frame: the index of the frame a PNG holds (negative counts from the end).

    Raises:
        ValueError: another suffix, no frames, ``frame`` out of range or ``fps`` not positive.
        ImportError: the package the format needs is not installed (the message names the extra).
    """
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in MEDIA_SUFFIXES:
        raise InvalidArgumentError(f"{os.fspath(path)!r}: the file must end in {', '.join(MEDIA_SUFFIXES)}")
    if not frames:
        raise InvalidArgumentError("no frames to write")
    if not fps > 0:
        raise InvalidArgumentError(f"fps must be positive, got {fps}")
    if suffix == ".png":
        if not -len(frames) <= frame < len(frames):
            raise InvalidArgumentError(f"frame {frame} is out of range: the episode has {len(frames)} frames "
                             f"(0 to {len(frames) - 1})")
        image = _need("PIL.Image", suffix)
        with atomic_path(path) as tmp:
            image.fromarray(np.ascontiguousarray(frames[frame])).save(tmp)
        return
    iio = _need("imageio.v3", suffix)
    if suffix == ".gif":
        _need("PIL", suffix)  # imageio writes GIFs with pillow
        with atomic_path(path) as tmp:
            # loop=0: the GIF repeats; the duration of each frame is in milliseconds.
            iio.imwrite(tmp, np.stack(frames), extension=".gif", duration=1000.0 / fps, loop=0)
        return
    _need("imageio_ffmpeg", suffix)
    v2 = _need("imageio.v2", suffix)
    with atomic_path(path) as tmp:
        # macro_block_size=2: H.264 needs even sides; 2 pads odd ones instead of rescaling every frame.
        with v2.get_writer(tmp, format="FFMPEG", mode="I", fps=fps, macro_block_size=2) as writer:
            for f in frames:
                writer.append_data(np.ascontiguousarray(f))
