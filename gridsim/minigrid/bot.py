"""The BabyAI bot for every env of a batch, in the kernel: ``BabyAIBot``.

Minigrid's ``minigrid.utils.baby_ai_bot.BabyAIBot`` (3.2.0) is a planner over an env's privileged
state: a stack of subgoals made from the instructions, the cells it has seen, breadth-first
searches that prefer going straight. ``BabyAIBot(env).replan(actions_taken)`` here is that
bot's ``replan(action_taken)`` for every env of a BabyAI batch in one call, action for action
(docs/babyai_bot.md), on the kernel's threads without the GIL. Its state is part of the env's
(``MinigridState.bot``): ``get_state``, ``set_state`` and checkpoints carry it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gridsim.minigrid._kernel as _kernel
from gridsim.errors import InvalidArgumentError

__all__ = ["FAILURES", "BabyAIBot", "check_state"]

_AT = _kernel.MINIGRID_BOT_LAYOUT

# Why an env's bot failed (MinigridState.bot[:, 1]): failure code -> what happened.
FAILURES = _kernel.MINIGRID_BOT_FAILURES


class BabyAIBot:
    """The BabyAI bot, batched: one suggested action per env and call.

    Call :meth:`replan` once after every reset and every step, as upstream's bot is called once
    per step: each call also replans for the action the env took. An env's bot starts afresh at
    its first call after each reset (autoresets included), and fails for good, until its next
    reset, where upstream's would raise; a failed env's action is -1 and :attr:`failure` says why.

    Given a single env (``gym.make("gridsim/BabyAI-...")``), :meth:`replan` takes and returns one
    action, as upstream's does.

    Args:
        env: a ``MinigridVectorEnv`` of a BabyAI id, a single env of one, or a wrapper of either.

    Example:
        >>> import gridsim
        >>> env = gridsim.make("BabyAI-GoToLocal-v0", num_envs=4)
        >>> obs, info = env.reset(seed=0)
        >>> bot = BabyAIBot(env)
        >>> actions = bot.replan()
        >>> obs, reward, terminated, truncated, info = env.step(actions)
        >>> actions = bot.replan(actions)
    """

    def __init__(self, env: Any):
        base = getattr(env, "unwrapped", env)
        self.single = hasattr(base, "unwrapped_vector")
        if self.single:
            base = base.unwrapped_vector
        if not getattr(base, "is_babyai", False):
            of = f" of {base.spec_row.name}" if hasattr(base, "spec_row") else ""
            raise InvalidArgumentError(f"BabyAIBot plays a batch of a BabyAI id, got {type(base).__name__}{of}")
        self.env = base
        self.num_envs = base.num_envs
        self._out = np.empty(self.num_envs, np.int64)
        self._fresh = np.zeros(self.num_envs, np.uint8)
        self._none = np.full(self.num_envs, -1, np.int64)

    def replan(self, actions_taken: Any = None) -> Any:
        """The bot's suggested action for every env, after replanning for the actions taken.

        Args:
            actions_taken: (N,) the actions the envs took at the last step, or None: each took
                the action suggested (upstream's ``replan(None)``). An entry of -1 is None for
                that env. Ignored for an env whose bot starts afresh (after a reset).

        Returns:
            (N,) int64 actions 0..6 (6: done, the bot thinks the mission is accomplished), -1
            where the env's bot has failed (see :attr:`failure`); for a single env, one int.
        """
        if self.single:
            if actions_taken is not None:
                actions_taken = np.asarray([actions_taken]).reshape(-1)
            return int(self._replan(actions_taken)[0])
        return self._replan(actions_taken)

    def _replan(self, actions_taken: Any) -> np.ndarray:
        if actions_taken is None:
            taken = self._none
        else:
            taken = np.asarray(actions_taken)
            if taken.shape != (self.num_envs,) or not np.issubdtype(taken.dtype, np.integer):
                raise InvalidArgumentError(f"actions_taken must be None or ({self.num_envs},) integers, got "
                                           f"{taken.dtype} {taken.shape}")
            if ((taken < -1) | (taken > 6)).any():
                bad = int(np.flatnonzero((taken < -1) | (taken > 6))[0])
                raise InvalidArgumentError(f"actions_taken must be -1 (None) or an action 0..6, got "
                                           f"{int(taken[bad])} for env {bad}")
            taken = np.ascontiguousarray(taken, np.int64)
        with self.env._lock:  # the env's calls one after another (gridsim.engine.locking)
            self.env.check_open()
            self.env.kernel.bot_replan(taken, self._out, self._fresh)
            return self._out.copy()

    @property
    def failed(self) -> np.ndarray:
        """(N,) bool: the envs whose bot has failed in this episode."""
        return self.env.state.bot[:, _AT["live"]] == _AT["failed"]

    @property
    def failure(self) -> np.ndarray:
        """(N,) int16: why each env's bot failed (0: it has not; else a key of ``FAILURES``)."""
        return np.where(self.failed, self.env.state.bot[:, _AT["failure"]], 0).astype(np.int16)

    @property
    def started(self) -> np.ndarray:
        """(N,) bool: the envs whose bot started afresh at the last call (a new episode)."""
        return self._fresh.astype(bool)


def check_state(v: Any) -> None:
    """The bot's slots of a BabyAI state to inject (``StateView`` ``v``): its header in range.

    The kernel checks the rest of a bot's slots at each call, and fails an env whose plan it
    cannot follow (reason 5) rather than read outside its arrays.
    """
    bot = v["bot"].astype(np.int64)
    v.in_range("bot", 0, _AT["failed"], "(fresh 0, planning 1, failed 2)", values=bot[:, _AT["live"]], part="live")
    v.in_range("bot", 0, _AT["last_failure"], "(a failure reason, 0: none)", values=bot[:, _AT["failure"]],
               part="failure")
    v.in_range("bot", 0, _AT["max_depth"], "(the plan's depth)", values=bot[:, _AT["depth"]], part="depth")
