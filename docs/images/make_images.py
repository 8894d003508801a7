"""Draw the pictures in docs/images: ``python docs/images/make_images.py`` from the repository root.

Needs the render extra (``pip install "gridsim-vec[render]"``). The kitchen is played by the
planner of the tests (``tests/kitchen_solver.py``), gridroboman by a short script of moves,
the navigation maze by the random policy of ``gridsim render``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium as gym

import gridsim  # noqa: F401  (registers the ids)
from gridsim.tools.record import record_episode, write_frames

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests"))

from kitchen_solver import solve  # noqa: E402


def play(env, actions, px: int) -> list:
    """The frames of the reset state and of each step of ``actions``."""
    vec = env.unwrapped.unwrapped_vector
    frames = [vec.render_frame(0, px)]
    for a in actions:
        env.step(a)
        frames.append(vec.render_frame(0, px))
    return frames


def kitchen() -> None:
    """The salad kitchen solved by the planner: kitchen.gif and one frame of it, kitchen.png."""
    env = gym.make("gridsim/Kitchen-open-divider_salad-v0", render_mode="rgb_array")
    env.reset(seed=0)
    frames = play(env, solve(env.unwrapped.unwrapped_vector.level, 2), 48)
    write_frames(HERE / "kitchen.gif", frames, fps=4)
    write_frames(HERE / "kitchen.png", frames, frame=KITCHEN_FRAME)


def walk(src, dst) -> list[int]:
    """Gridroboman moves from (x, y) src to dst: x first, then y."""
    (x0, y0), (x1, y1) = src, dst
    return [4 if x1 > x0 else 3] * abs(x1 - x0) + [2 if y1 > y0 else 1] * abs(y1 - y0)


def roboman() -> None:
    """Blue put on green, then red lifted and carried to them: roboman.gif and roboman.png."""
    env = gym.make("gridsim/Gridroboman-StackRedOnGreen-v0", render_mode="rgb_array")
    env.reset(seed=0)
    s = env.unwrapped.get_state()
    red, green, blue = ((o["x"], o["y"]) for o in s["objs"])
    # Blue onto green, then red lifted and carried towards them (a picture of a stack and the gripper).
    actions = walk(s["agent_pos"], blue) + [5] + walk(blue, green) + [6] + walk(green, red) + [5]
    actions += walk(red, (green[0], green[1] - 1)) + [2, 6]
    frames = play(env, actions, 48)
    write_frames(HERE / "roboman.gif", frames, fps=4)
    write_frames(HERE / "roboman.png", frames, frame=-3)


def nav() -> None:
    """four_rooms after 40 random steps: nav.png."""
    episode = record_episode("random", "gridsim/Nav-four_rooms-v0", 0, max_steps=40, cell_px=20)
    write_frames(HERE / "nav.png", episode.frames, frame=-1)


KITCHEN_FRAME = 38  # the first tomato chopped and plated, the lettuce chopped and carried to it

if __name__ == "__main__":
    kitchen()
    roboman()
    nav()
