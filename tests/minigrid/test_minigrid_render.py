"""The MiniGrid family's pictures against Farama Minigrid 3.2.0, pixel for pixel.

Every tile of the atlas against ``Grid.render_tile``; ``render()`` and ``get_frame`` against
gridsim's frames, and the kernel's RGB observations against ``RGBImgPartialObsWrapper``,
``RGBImgObsWrapper`` and ``ImgObsWrapper`` of them, over seeded episodes stepped side by side
in both (autoresets included). Along the way both worlds are changed alike (the agent moved
and turned, doors opened, closed and locked, a key, ball or box put in the agent's hands,
objects dropped around), so every state a frame can show is met.
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest

minigrid = pytest.importorskip("minigrid")

from minigrid.core.constants import IDX_TO_COLOR, OBJECT_TO_IDX  # noqa: E402
from minigrid.core.grid import Grid  # noqa: E402
from minigrid.core.world_object import Ball, Box, Door, Goal, Key, WorldObj  # noqa: E402
from minigrid.wrappers import ImgObsWrapper, RGBImgObsWrapper, RGBImgPartialObsWrapper  # noqa: E402

import gridsim  # noqa: E402, F401 - registers the gridsim/ ids
from gridsim.errors import InvalidArgumentError  # noqa: E402
from gridsim.minigrid.env import MinigridVectorEnv  # noqa: E402
from gridsim.minigrid.interop import state_of  # noqa: E402
from gridsim.minigrid.render import (  # noqa: E402
    DRAWINGS,
    TILE_OF,
    _Canvas,
    render_full,
    render_pov,
    tile_atlas,
)

slow = pytest.mark.slow


def reference_object(obj: int, colour: int, state: int) -> WorldObj | None:
    """Minigrid's object of an encoding (WorldObj.decode makes every goal green)."""
    if obj == OBJECT_TO_IDX["empty"]:
        return None
    if obj == OBJECT_TO_IDX["goal"]:
        return Goal(IDX_TO_COLOR[colour])
    return WorldObj.decode(obj, colour, state)


# --------------------------------------------------------------------------- tiles


@pytest.mark.parametrize("tile_size", [4, 8, pytest.param(16, marks=slow), pytest.param(32, marks=slow)])
def test_atlas_is_render_tile_for_every_drawing_agent_and_highlight(tile_size):
    tiles = tile_atlas(tile_size).tiles
    assert tiles.shape == (len(DRAWINGS), 5, 2, tile_size, tile_size, 3) and tiles.dtype == np.uint8
    for k, key in enumerate(DRAWINGS):
        obj = reference_object(*key)
        for slot in range(5):
            for lit in (False, True):
                ref = Grid.render_tile(obj, None if slot == 0 else slot - 1, lit, tile_size)
                np.testing.assert_array_equal(tiles[k, slot, int(lit)], ref.astype(np.uint8),
                                              err_msg=f"{key} agent slot {slot} highlight {lit}")


def test_every_minigrid_encoding_has_its_own_drawing():
    encodings = {(1, 0, 0), (9, 0, 0)}
    for c in range(6):
        color = IDX_TO_COLOR[c]
        encodings |= {o.encode() for o in (Key(color), Ball(color), Box(color), Goal(color),
                                           WorldObj.decode(2, c, 0), WorldObj.decode(3, c, 0))}
        encodings |= {Door(color, is_open=o, is_locked=lk).encode() for o in (False, True) for lk in (False, True)}
    assert len(encodings) == len(DRAWINGS) == 56
    for e in encodings:
        assert DRAWINGS[TILE_OF[e]] == (e if e[0] != 1 else (1, 0, 0))
    assert TILE_OF[0, 3, 2] == TILE_OF[1, 0, 0] == TILE_OF[15, 7, 3] == 0  # unseen, empty, no object
    assert DRAWINGS[TILE_OF[9, 4, 1]] == (9, 0, 0) and DRAWINGS[TILE_OF[5, 2, 2]] == (5, 2, 0)


@pytest.mark.parametrize("sizes", [range(1, 65), pytest.param(range(65, 257), marks=slow)])
def test_no_pixel_centre_lies_within_rounding_of_a_triangle_or_line(sizes):
    # Minigrid's per-pixel dot products go through BLAS, which may fuse a multiply-add that
    # the rasteriser rounds twice: a pixel can only differ within a few 1e-16 of a boundary.
    for ts in sizes:
        cv = _Canvas(ts)
        for d in range(4):
            u, v = cv.agent_coords(d)
            assert min(np.abs(u).min(), np.abs(v).min(), np.abs(u + v - 1).min()) > 1e-12, (ts, d)
        for i in range(3):
            lo, hi = 0.3 + 0.2 * i, 0.4 + 0.2 * i
            for seg in ((0.1, lo, 0.3, hi), (0.3, hi, 0.5, lo), (0.5, lo, 0.7, hi), (0.7, hi, 0.9, lo)):
                box, dist = cv.line_distance(*seg, 0.03)
                assert not box.any() or np.abs(dist - 0.03)[box].min() > 1e-12, (ts, seg)


def test_atlas_is_kept_and_read_only():
    a = tile_atlas(8)
    assert tile_atlas(8) is a and not a.tiles.flags.writeable and a.tiles.flags.c_contiguous
    np.testing.assert_array_equal(a.tile((5, 4, 0), 2, True), a.tiles[TILE_OF[5, 4, 0], 3, 1])
    np.testing.assert_array_equal(a.tile(None), a.tiles[0, 0, 0])


# --------------------------------------------------------------------------- episodes side by side


def shake(u, rng: np.random.Generator):
    """Change a Minigrid env's world at random: doors, what the agent holds, objects around, where it stands."""
    W, H = u.grid.width, u.grid.height
    for k, cell in enumerate(u.grid.grid):
        if isinstance(cell, Door) and (k % W, k // W) != tuple(u.agent_pos) and rng.random() < 0.7:
            s = int(rng.integers(3))
            cell.is_open, cell.is_locked = s == 0, s == 2
    color = IDX_TO_COLOR[int(rng.integers(6))]
    held = rng.integers(5)
    u.carrying = [None, Key(color), Ball(color), Box(color), u.carrying][held]
    free = [(x, y) for x in range(W) for y in range(H)
            if u.grid.get(x, y) is None or u.grid.get(x, y).can_overlap()]
    for _ in range(int(rng.integers(3))):  # objects on free cells, so a view holds them too
        x, y = free[int(rng.integers(len(free)))]
        if u.grid.get(x, y) is None and (x, y) != tuple(u.agent_pos):
            color = IDX_TO_COLOR[int(rng.integers(6))]
            u.grid.set(x, y, [Key, Ball, Box, Goal][int(rng.integers(4))](color))
    if rng.random() < 0.6:
        free = [(x, y) for x in range(W) for y in range(H)
                if u.grid.get(x, y) is None or u.grid.get(x, y).can_overlap()]
        u.agent_pos = np.array(free[int(rng.integers(len(free)))])
        u.agent_dir = int(rng.integers(4))


class SideBySide:
    """One Minigrid env and gridsim envs of the same id, seeded alike, stepped and changed alike."""

    def __init__(self, name: str, seed: int, sizes=(8, 5), view: int = 7):
        self.env = gym.make(name, render_mode="rgb_array", agent_view_size=view)
        self.u = self.env.unwrapped
        self.wrappers = {}
        self.ours = {}
        for ts in sizes:
            for obs_type, wrap in (("rgb", RGBImgPartialObsWrapper), ("rgb_full", RGBImgObsWrapper)):
                self.wrappers[obs_type, ts] = wrap(self.env, tile_size=ts)
                self.ours[obs_type, ts] = MinigridVectorEnv(1, env_name=name, obs_type=obs_type, tile_size=ts,
                                                            agent_view_size=view, render_mode="rgb_array")
        self.env.reset(seed=seed)
        self.obs = {k: e.reset(seed=seed)[0] for k, e in self.ours.items()}
        self.view = view

    def step(self, action: int):
        _, _, term, trunc, _ = self.env.step(action)
        self.obs = {k: e.step(np.array([action]))[0] for k, e in self.ours.items()}
        if term or trunc:  # gridsim resets on its next step (NEXT_STEP), whatever the action
            self.env.reset()
            self.obs = {k: e.step(np.array([0]))[0] for k, e in self.ours.items()}

    def shake(self, rng):
        shake(self.u, rng)
        s = state_of(self.u)
        self.obs = {k: e.set_state(s)[0] for k, e in self.ours.items()}
        self.obs = {k: {kk: v if kk == "mission" else np.asarray(v)[None] for kk, v in o.items()}
                    for k, o in self.obs.items()}

    def check(self, frames: bool = True):
        reference = self.u.gen_obs()
        for (obs_type, ts), wrapper in self.wrappers.items():
            want = wrapper.observation(reference)
            got = self.obs[obs_type, ts]
            np.testing.assert_array_equal(got["image"][0], want["image"], err_msg=f"{obs_type} tile {ts}")
            assert int(got["direction"][0]) == int(want["direction"])
        if frames:
            s = state_of(self.u)
            see = self.u.see_through_walls
            env = next(iter(self.ours.values()))
            np.testing.assert_array_equal(env.render()[0], self.env.render(), err_msg="render()")
            np.testing.assert_array_equal(render_full(s, 8, self.view, see), self.u.get_frame(True, 8))
            np.testing.assert_array_equal(render_full(s, 8, self.view, see, highlight=False),
                                          self.u.get_frame(False, 8))
            np.testing.assert_array_equal(render_pov(s, 6, self.view, see), self.u.get_pov_render(6))

    def close(self):
        for e in self.ours.values():
            e.close()
        self.env.close()


def play(name: str, seed: int, steps: int, sizes=(8, 5), view: int = 7, shake_p: float = 0.15, frames_every: int = 3):
    rng = np.random.default_rng(seed)
    # Mostly forward, pickup and toggle: the agent reaches keys and doors often.
    p = np.array([0.15, 0.15, 0.35, 0.1, 0.05, 0.15, 0.05])
    game = SideBySide(name, seed, sizes, view)
    try:
        game.check()
        for t in range(steps):
            if rng.random() < shake_p:
                game.shake(rng)
            else:
                game.step(int(rng.choice(7, p=p)))
            game.check(frames=t % frames_every == 0)
    finally:
        game.close()


@pytest.mark.parametrize(("name", "seed"), [("MiniGrid-DoorKey-5x5-v0", 0), ("MiniGrid-DoorKey-5x5-v0", 1),
                                            ("MiniGrid-DoorKey-8x8-v0", 2), ("MiniGrid-Empty-Random-6x6-v0", 3)])
def test_rgb_observations_and_frames_match_minigrid(name, seed):
    play(name, seed, steps=40)


def test_rgb_observations_of_another_view_size_match_minigrid():
    play("MiniGrid-DoorKey-8x8-v0", 4, steps=15, sizes=(3,), view=5, frames_every=5)


@slow
@pytest.mark.parametrize("name", ["MiniGrid-DoorKey-5x5-v0", "MiniGrid-DoorKey-8x8-v0", "MiniGrid-DoorKey-16x16-v0",
                                  "MiniGrid-Empty-Random-6x6-v0", "MiniGrid-Empty-8x8-v0"])
@pytest.mark.parametrize("seed", [10, 11, 12])
def test_long_episodes_match_minigrid(name, seed):
    play(name, seed, steps=300, sizes=(8, 32, 1), frames_every=7)


def test_a_key_carried_through_the_door_is_drawn_in_the_view():
    env = gym.make("MiniGrid-DoorKey-5x5-v0", render_mode="rgb_array")
    u = env.unwrapped
    env.reset(seed=5)
    ours = MinigridVectorEnv(1, env_name="MiniGrid-DoorKey-5x5-v0", obs_type="rgb", tile_size=8)
    ours.reset(seed=5)
    u.carrying = Key("yellow")
    obs, _ = ours.set_state(state_of(u))
    want = RGBImgPartialObsWrapper(env).observation(u.gen_obs())["image"]
    np.testing.assert_array_equal(obs["image"], want)
    bottom = obs["image"][6 * 8:, 3 * 8:4 * 8]  # the agent's own cell: the key under the triangle
    assert (bottom == tile_atlas(8).tile((5, 4, 0), 3, True)).all()


# --------------------------------------------------------------------------- spaces, the engine and settings


WRAPPERS = {
    "rgb": lambda e: RGBImgPartialObsWrapper(e, 6),
    "rgb_image": lambda e: ImgObsWrapper(RGBImgPartialObsWrapper(e, 6)),
    "rgb_full": lambda e: RGBImgObsWrapper(e, 6),
    "rgb_full_image": lambda e: ImgObsWrapper(RGBImgObsWrapper(e, 6)),
}


@pytest.mark.parametrize("obs_type", list(WRAPPERS))
def test_spaces_and_image_only_observations_are_the_wrappers(obs_type):
    name = "MiniGrid-DoorKey-6x6-v0"
    ref = WRAPPERS[obs_type](gym.make(name))
    envs = MinigridVectorEnv(2, env_name=name, obs_type=obs_type, tile_size=6)
    alone = obs_type.endswith("_image")

    def image(obs):
        return obs if alone else obs["image"]

    if alone:
        assert envs.single_observation_space == ref.observation_space
    else:
        assert envs.single_observation_space["image"] == ref.observation_space["image"]
        assert list(envs.single_observation_space) == list(ref.observation_space)
    obs, _ = envs.reset(seed=7)
    want, _ = ref.reset(seed=7)
    np.testing.assert_array_equal(image(obs)[0], image(want))
    assert envs.observation_space.contains(obs)
    for a in (2, 1, 2, 5, 3):
        obs, *_ = envs.step(np.array([a, a]))
        want, *_ = ref.step(a)
        np.testing.assert_array_equal(image(obs)[0], image(want))


def test_render_through_make_vec_and_make_is_minigrids():
    name = "MiniGrid-DoorKey-8x8-v0"
    envs = gym.make_vec("gridsim/" + name, num_envs=2, vectorization_mode="vector_entry_point",
                        render_mode="rgb_array")
    refs = [gym.make(name, render_mode="rgb_array") for _ in range(2)]
    envs.reset(seed=3)
    for i, r in enumerate(refs):
        r.reset(seed=3 + i)
    for a in (2, 1, 2, 2, 0):
        frames = envs.render()
        assert isinstance(frames, tuple) and len(frames) == 2
        for f, r in zip(frames, refs, strict=True):
            np.testing.assert_array_equal(f, r.render())
        envs.step(np.array([a, a]))
        for r in refs:
            r.step(a)
    one = gym.make("gridsim/" + name, render_mode="rgb_array")
    one.reset(seed=9)
    refs[0].reset(seed=9)
    np.testing.assert_array_equal(one.render(), refs[0].render())
    envs.close()
    one.close()


def test_render_frame_takes_any_cell_size():
    envs = MinigridVectorEnv(1, env_name="MiniGrid-DoorKey-5x5-v0")
    envs.reset(seed=1)
    s = envs.get_state(0)
    assert envs.render_frame(0, 3).shape == (15, 15, 3)
    np.testing.assert_array_equal(envs.render_frame(0, 7), render_full(s, 7, 7, False))
    with pytest.raises(InvalidArgumentError):
        envs.render_frame(0, 0)


@slow
def test_frames_beyond_the_kept_atlases_match_minigrid():
    env = gym.make("MiniGrid-DoorKey-5x5-v0")
    env.reset(seed=2)
    u = env.unwrapped
    u.carrying = Key("yellow")
    np.testing.assert_array_equal(render_full(state_of(u), 80, 7, False), u.get_frame(True, 80))


@pytest.mark.parametrize("bad", [0, 65, True, 2.5, "8"])
def test_tile_size_out_of_range_is_refused(bad):
    with pytest.raises(InvalidArgumentError, match="tile_size"):
        MinigridVectorEnv(1, env_name="MiniGrid-Empty-5x5-v0", obs_type="rgb", tile_size=bad)


def test_tile_size_bounds_and_defaults():
    envs = MinigridVectorEnv(2, env_name="MiniGrid-Empty-5x5-v0", obs_type="rgb_full")
    assert envs.tile_size == 8 and envs.single_observation_space["image"].shape == (40, 40, 3)
    one = MinigridVectorEnv(1, env_name="MiniGrid-Empty-5x5-v0", obs_type="rgb", tile_size=1)
    assert one.single_observation_space["image"].shape == (7, 7, 3)
    plain = MinigridVectorEnv(1, env_name="MiniGrid-Empty-5x5-v0")  # the default obs draws no atlas
    assert plain.single_observation_space["image"].shape == (7, 7, 3) and not hasattr(plain.state, "atlas")


def test_rgb_env_copies_continue_alike():
    envs = MinigridVectorEnv(3, env_name="MiniGrid-DoorKey-5x5-v0", obs_type="rgb", tile_size=4)
    envs.reset(seed=0)
    for a in (2, 2, 1):
        envs.step(np.full(3, a))
    twin = copy.deepcopy(envs)
    assert twin.tile_size == 4
    for a in (2, 5, 2, 3):
        a_obs, *_ = envs.step(np.full(3, a))
        b_obs, *_ = twin.step(np.full(3, a))
        np.testing.assert_array_equal(a_obs["image"], b_obs["image"])


def test_threads_write_the_same_pictures():
    obs = []
    for threads in (1, 2):
        envs = MinigridVectorEnv(64, env_name="MiniGrid-DoorKey-8x8-v0", obs_type="rgb_full", tile_size=4,
                                 num_threads=threads)
        envs.kernel.thread_min_units = 1
        envs.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(10):
            o, *_ = envs.step(rng.integers(0, 7, 64))
        obs.append(o["image"].copy())
    np.testing.assert_array_equal(obs[0], obs[1])


def test_kernel_refuses_a_bad_atlas():
    from gridsim.minigrid import _kernel

    envs = MinigridVectorEnv(1, env_name="MiniGrid-Empty-5x5-v0", obs_type="rgb", tile_size=2)
    atlas = np.asarray(envs.state.atlas)
    with pytest.raises(ValueError, match="atlas"):
        envs.kernel.bind_tiles(atlas[:-1], envs.state.tile_of, 2)
    with pytest.raises(ValueError, match="tile_of"):
        envs.kernel.bind_tiles(atlas, np.full(512, len(DRAWINGS), np.int16), 2)
    with pytest.raises(ValueError, match="observation rows"):
        envs.kernel.bind_obs(np.zeros((1, 7, 7, 3), np.uint8))
    assert _kernel.MINIGRID_OBS_RGB != _kernel.MINIGRID_OBS_RGB_FULL
