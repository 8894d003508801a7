"""What a family plugs into the engine: one :class:`Family` row of ``gridsim.families``.

A family is a folder (``gridsim/<name>/``) holding its rules and data, its level
compiler, its state fields, its env classes, its kernel module (``_kernel.pyx``)
and its renderers. Everything outside the folder that needs to know about a family
(the registry, the CLI, :func:`gridsim.make`, the level API, the benchmarks) reads
its row instead of naming it. What the tools alone read (``gridsim bench``, ``bench/``,
``gridsim play``) sits apart from the plug-in, in the row's :class:`FamilyTools`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from gridsim.engine.grammar import LevelGrammar

if TYPE_CHECKING:
    from gridsim.engine.single import SingleEnvView
    from gridsim.engine.vector import GridVectorEnv

__all__ = ["Family", "FamilyTools", "Register"]


class Register(Protocol):
    """Registers one Gymnasium id of the family's env classes.

    ``alias_of`` names the id gridsim leads with when ``env_id`` is an older name of the
    same env, kept for code ported from the original: it is made as ever, and
    :func:`gridsim.registered_ids` (``gridsim list``, ``gridsim check``) leaves it out.
    """

    def __call__(self, env_id: str, max_episode_steps: int | None, kwargs: dict[str, Any],
                 alias_of: str | None = None) -> None:
        """Register ``env_id`` with these constructor ``kwargs`` and spec-level step limit."""


def _no_description(env_id: str) -> str | None:
    return None


def _no_defaults(meta: Mapping[str, str]) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class FamilyTools:
    """What the tools read of a family: the benchmarks' batch and the keys of ``gridsim play``.

    Attributes:
        bench_level: the level ``bench/bench_step.py`` times by default (its ``--level``).
        bench_level_format: turns a ``--level`` into a :func:`gridsim.make` name (roboman: a task).
        bench_kwargs: keyword arguments of a benchmark batch of a level by name (``gridsim bench
            --level <level>``, ``bench/``); a registered id is timed with its own.
        bench_obs_types: the observation types ``gridsim bench`` times by default (None: the level's).
        agents_per_env: agents acting in one row of the batch, for agent-steps per second.
        eval_id: the Gymnasium id ``bench/bench_eval.py`` evaluates ("": the family is not timed there).
        play_keys: key name -> action of ``gridsim play`` (None: no manual play). With a joint
            ``MultiDiscrete`` action of several agents the keys act for one agent at a time.
        play_help: the keys' one-line help (``gridsim play --help`` lists every family's).
        play_idle_action: the action of the agents the keys do not move, with several agents.
    """

    bench_level: str = ""
    bench_level_format: str = "{}"
    bench_kwargs: Mapping[str, Any] = field(default_factory=dict)
    bench_obs_types: tuple[str | None, ...] = (None,)
    agents_per_env: int = 1
    eval_id: str = ""
    play_keys: Mapping[str, int] | None = None
    play_help: str = ""
    play_idle_action: int = 0

    def bench_name(self, level: str | None = None) -> str:
        """The :func:`gridsim.make` name of a benchmark ``--level`` (None: :attr:`bench_level`)."""
        return self.bench_level_format.format(self.bench_level if level is None else level)


@dataclass(frozen=True)
class Family:
    """One family's row in the family table.

    Attributes:
        name: the family's name (its folder, and the first part of its built-in level names).
        vector_env: the :class:`gridsim.GridVectorEnv` subclass.
        single_env: its one-env ``gymnasium.Env`` view.
        register_ids: registers the family's Gymnasium ids with the ``register`` it is given.
        takes_map: a :class:`gridsim.Level` map text is passed to the env as ``level="=" + map``.
        level_defaults: the env defaults a text level's ``[meta]`` table sets (``max_steps`` etc.).
        level_grammar: the ``[meta]`` keys and ``[legend]`` properties of the family's text levels
            (None: it reads none of its own; such levels are read with the default family's).
        exports: names of the family package's public objects (``gridsim.<name>.<export>``) that the
            top-level ``gridsim`` namespace holds too, besides the two env classes (``"TaskSampler"``).
        tools: what ``gridsim bench``, ``bench/`` and ``gridsim play`` read (:class:`FamilyTools`).
        describe: one line on the task of one of the family's ids (``gridsim list``), or None.
    """

    name: str
    vector_env: type[GridVectorEnv]
    single_env: type[SingleEnvView]
    register_ids: Callable[[Register], None]
    takes_map: bool = True
    level_defaults: Callable[[Mapping[str, str]], dict[str, Any]] = _no_defaults
    level_grammar: LevelGrammar | None = None
    exports: tuple[str, ...] = ()
    tools: FamilyTools = field(default_factory=FamilyTools)
    describe: Callable[[str], str | None] = _no_description

    @property
    def env_classes(self) -> dict[str, type]:
        """The vector env class and its single-env view by name (``gridsim.envs`` holds them)."""
        return {cls.__name__: cls for cls in (self.vector_env, self.single_env)}

    @property
    def public_names(self) -> dict[str, Any]:
        """Name -> object of everything the family adds to the top-level ``gridsim`` namespace."""
        package = importlib.import_module(f"gridsim.{self.name}")
        return {**self.env_classes, **{name: getattr(package, name) for name in self.exports}}
