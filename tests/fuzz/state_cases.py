"""Envs of every family and option whose states the state tests inject, and the helpers they share.

Each case is a small batch already played for a few steps, so its state is a real one. The
cases are each family's own (``STATE_CASES`` in ``tests/<family>/cases.py``): nav with
collectibles, per-seed fixed rewards, randomized goals, per-env maps, images and events;
roboman with several tasks, the task one-hot, grid observations and events; kitchen with
agent rows, three agents and events; all three autoreset modes.
"""

from __future__ import annotations

import numpy as np
from engine.family_cases import merged

import gridsim


def make_case(name: str):
    """A fresh env of case ``name``, reset with seed 3 and played 6 random steps."""
    maker = CASES[name]
    envs = maker()
    envs.reset(seed=3)
    envs.action_space.seed(3)
    for _ in range(6):
        envs.step(envs.action_space.sample())
    return envs


# Every family's STATE_CASES (tests/<family>/cases.py), for the families of the family table.
CASES = merged("STATE_CASES")


def states_equal(a: dict, b: dict) -> bool:
    """Two ``state_dict`` results hold the same values (arrays bit for bit)."""
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, np.ndarray):
            if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                return False
        elif x != y:
            return False
    return True


def play(envs, steps: int, seed: int):
    """Step ``steps`` random valid actions, resetting the envs a DISABLED batch says have ended."""
    envs.action_space.seed(seed)
    for _ in range(steps):
        try:
            envs.step(envs.action_space.sample())
        except gridsim.KernelError:  # DISABLED: an ended env must be reset first
            envs.reset(options={"reset_mask": envs.state.needs_reset.repeat(envs.num_envs // envs.state.num_units)})
