"""What ``render()`` shows of a vector env: every row's frame or text, or a window of row 0.

:class:`Renderer` is the part of every :class:`gridsim.GridVectorEnv` behind ``env.render()``.
The pictures themselves are the family's (``env.render_frame(i)``, ``env.render_text(i)``);
the renderer chooses by ``render_mode`` and owns the window of ``render_mode="human"``.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import numpy as np

from gridsim.engine.locking import synchronized
from gridsim.engine.parts import Part

__all__ = ["Renderer", "init_pygame"]


def init_pygame() -> None:
    """``pygame.init()`` without SDL's signal handlers.

    SDL takes SIGTERM (and SIGINT where Python has left it at its default) on initialisation
    and turns it into a quit event that no one reads: the process, and every child it forks
    later, would no longer end on SIGTERM, even after the window closes. Its
    ``SDL_NO_SIGNAL_HANDLERS`` hint keeps them the process's own (unless the environment sets
    the hint already).
    """
    import pygame

    os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")
    pygame.init()


class Renderer(Part[Any]):
    """The rendering of a vector env (``env.renderer``): ``render()`` after the env's ``render_mode``.

    It uses the env's public interface: ``check_open``, ``render_mode``, ``num_envs``,
    ``metadata``, ``render_frame`` and ``render_text``.
    """

    def __init__(self, env: Any, lock: Any):
        super().__init__(env, lock)
        self._window: Any = None  # the pygame window of render_mode="human", once opened
        self._clock: Any = None

    @synchronized
    def render(self) -> tuple[Any, ...] | None:
        """``rgb_array``: a tuple of N uint8 frames; ``ansi``: a tuple of N strings; ``human``: a window of env 0."""
        env = self.env
        env.check_open()
        if env.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode= at construction")
            return None
        if env.render_mode == "rgb_array":
            return tuple(env.render_frame(i) for i in range(env.num_envs))
        if env.render_mode == "ansi":
            return tuple(env.render_text(i) for i in range(env.num_envs))
        self._show(env.render_frame(0))
        return None

    def _show(self, frame: np.ndarray):
        """Draw ``frame`` in the window (opened on first use), at most ``render_fps`` times a second."""
        try:
            import pygame
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise gym.error.DependencyNotInstalled(
                'render_mode="human" needs pygame: pip install "gridsim-vec[render]"'
            ) from e
        env = self.env
        if self._window is None:
            init_pygame()
            pygame.display.set_caption(type(env).__name__)
            self._window = pygame.display.set_mode(frame.shape[1::-1])
            self._clock = pygame.time.Clock()
        surface = pygame.surfarray.make_surface(frame.swapaxes(0, 1))
        self._window.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(env.metadata["render_fps"])

    @synchronized
    def close(self) -> None:
        """Close the window, if one is open (the env closes it with itself)."""
        if self._window is not None:
            import pygame

            pygame.display.quit()
            self._window = None
