"""Every id of the minigrid family against Farama Minigrid 3.2.0, single env, step by step.

``minigrid_harness.run_single`` plays ``gym.make("MiniGrid-...")`` and
``gym.make("gridsim/MiniGrid-...")`` from the same seed with the same actions and compares
observation, reward bits, flags, info and the whole state (generator included) after every
reset and step, with unseeded resets between episodes. The fast set runs three seeds of
about 150 steps per id, short episodes (``max_steps``) for many resets, the other
observation types against Minigrid's wrappers, and index missions; ``slow`` runs more seeds
and longer. Also: the ids' constants against Minigrid's envs, seeds at the word boundaries,
Dynamic-Obstacles' out-of-space actions, gymnasium's ``check_env`` and observation-space
conformance.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

import minigrid_harness as h  # noqa: E402

from gridsim.errors import InvalidArgumentError  # noqa: E402
from gridsim.minigrid import MINIGRID_IDS  # noqa: E402
from gridsim.minigrid.interop import state_of, task_of  # noqa: E402
from gridsim.minigrid.tasks import TASK_OF  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

IDS = h.IDS
LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE, DONE = range(7)
# One id of each generator, for the checks that need not run on every id in the fast set.
ONE_PER_GENERATOR = [
    "MiniGrid-Empty-Random-6x6-v0", "MiniGrid-DoorKey-8x8-v0", "MiniGrid-FourRooms-v0", "MiniGrid-LavaGapS7-v0",
    "MiniGrid-LavaCrossingS9N2-v0", "MiniGrid-SimpleCrossingS11N5-v0", "MiniGrid-MultiRoom-N2-S4-v0",
    "MiniGrid-DistShift1-v0", "MiniGrid-Dynamic-Obstacles-Random-6x6-v0", "MiniGrid-MemoryS13Random-v0",
    "MiniGrid-GoToDoor-8x8-v0", "MiniGrid-Unlock-v0", "MiniGrid-BlockedUnlockPickup-v0", "MiniGrid-KeyCorridorS4R3-v0",
    "MiniGrid-ObstructedMaze-1Dlhb-v0", "MiniGrid-ObstructedMaze-2Q-v1", "MiniGrid-LockedRoom-v0",
    "MiniGrid-Fetch-8x8-N3-v0", "MiniGrid-GoToObject-8x8-N2-v0", "MiniGrid-PutNear-8x8-N3-v0",
    "MiniGrid-RedBlueDoors-8x8-v0", "MiniGrid-Playground-v0",
]
DOORKEY = [n for n in IDS if "DoorKey" in n]
DYNAMIC = [n for n in IDS if "Dynamic-Obstacles" in n]
# Spec 6.6-6.10: tasks with a success rule (Playground has none); all but LockedRoom end unrewarded too.
TASKS = [n for n in IDS if any(k in n for k in ("LockedRoom", "Fetch", "GoToObject", "PutNear", "RedBlueDoors"))]


def test_every_generator_has_an_id_in_the_fast_set():
    # BabyAI's generators: every id in tests/minigrid/test_babyai_diff.py; Python tasks' (no id):
    # tests/minigrid/test_python_tasks.py.
    minigrid = {name for name, task in TASK_OF.items() if task.rule != "follow_instructions" and task.ids}
    missing = sorted(minigrid - {MINIGRID_IDS[name].generator for name in ONE_PER_GENERATOR})
    assert not missing, (f"tasks without an id in ONE_PER_GENERATOR (tests/minigrid/test_minigrid_diff.py): {missing}; "
                         "add one id of each")


def test_every_id_is_a_minigrid_id_with_minigrids_constants():
    for name in IDS:
        spec = MINIGRID_IDS[name]
        ref = gym.make(name).unwrapped
        ours = gym.make("gridsim/" + name)
        assert (ref.width, ref.height) == (spec.width, spec.height), name
        assert ref.max_steps == spec.max_steps, name
        assert ref.see_through_walls == spec.see_through_walls, name
        assert ref.agent_view_size == 7, name
        assert ours.action_space == ref.action_space, name
        assert ours.observation_space["image"] == ref.observation_space["image"], name
        # No TimeLimit on either side: both truncate by themselves at max_steps.
        assert gym.spec(name).max_episode_steps is None and gym.spec("gridsim/" + name).max_episode_steps is None
        ours.close()


@pytest.mark.parametrize("name", IDS)
def test_missions_of_minigrid_are_the_ids_missions(name):
    ref = gym.make(name)
    missions = MINIGRID_IDS[name].missions
    for seed in range(8):
        obs, _ = ref.reset(seed=seed)
        assert obs["mission"] in missions


@pytest.mark.parametrize(("seed", "policy"), [(0, "random"), (1, "seek"), (2, "seek")])
@pytest.mark.parametrize("name", IDS)
def test_single_env_matches_minigrid(name, seed, policy):
    h.run_single(name, seed, 150, policy)


@pytest.mark.parametrize("name", IDS)
def test_short_episodes_restart_the_stream_as_minigrid_does(name):
    # Minigrid's max_steps kwarg is gridsim's max_episode_steps: truncation and the reward's denominator.
    stats = h.run_single(name, 3, 70, "seek", max_steps=7)
    assert stats.episodes >= 10


@pytest.mark.parametrize("name", ["MiniGrid-DoorKey-5x5-v0", "MiniGrid-FourRooms-v0", "MiniGrid-MemoryS7-v0"])
def test_gymnasiums_time_limit_wraps_both_alike(name):
    # gym.make's max_episode_steps truncates through TimeLimit; the rewards keep the id's max_steps.
    stats = h.run_single(name, 8, 120, "random", time_limit=9)
    assert stats.truncated >= 3


@pytest.mark.parametrize("name", DOORKEY)
def test_doorkey_episodes_open_the_locked_door_and_reach_the_goal(name):
    stats = h.run_single(name, 4, 400, "seek")
    assert stats.doors_opened >= 1 and stats.successes >= 1, stats
    assert stats.episodes >= 1


@pytest.mark.parametrize("name", TASKS)
def test_object_and_door_tasks_reach_their_success(name):
    # Fetch: the target picked up; GoToObject: done next to it; PutNear: the object dropped next to
    # the target; RedBlueDoors: red then blue; LockedRoom: key, locked door, goal.
    stats = h.run_single(name, 4, 200, "seek")
    assert stats.successes >= 1, stats
    if "LockedRoom" in name:
        assert stats.doors_opened >= 1, stats


@pytest.mark.parametrize("name", [n for n in TASKS if "LockedRoom" not in n])
def test_wrong_objects_doors_and_places_end_unrewarded(name):
    # A wrong pickup (Fetch, PutNear), a drop away from the target, done away from it or a toggle
    # (GoToObject), the blue door first (RedBlueDoors: seek opens the nearer door first).
    policy = "seek" if "RedBlueDoors" in name else "random"
    assert sum(h.run_single(name, seed, 200, policy).failures for seed in (4, 5, 6)) >= 1


def _imported_pair(name: str, seed: int):
    """Minigrid's env reset with ``seed`` and a gridsim env (``unwrapped``) to import its states into."""
    ref = gym.make(name)
    ref.reset(seed=seed)
    return ref, gym.make("gridsim/" + name).unwrapped


def _step_both(ref, ours, actions, where: str) -> list[tuple[float, bool]]:
    out = []
    for k, a in enumerate(actions):
        step = ref.step(a)
        h.compare_step(step, ours.step(a), f"{where} action {k}")
        h.compare_state(ref, ours.get_state(), f"{where} action {k}")
        out.append((float(step[1]), bool(step[2])))
    return out


def test_red_blue_doors_after_the_end_as_minigrid():
    # Both doors open, the agent facing the blue one: closing it ends the episode unrewarded (the
    # red door open, the blue one open before); opening it again rewards, and so does every later
    # step while both stay open (nothing is latched).
    name = "MiniGrid-RedBlueDoors-6x6-v0"
    ref, ours = _imported_pair(name, 0)
    u = ref.unwrapped
    u.red_door.is_open = u.blue_door.is_open = True
    bx, by = task_of(ref)[2:]
    u.agent_pos, u.agent_dir = (bx - 1, by), 0
    ours.set_state(state_of(ref))
    out = _step_both(ref, ours, [TOGGLE, TOGGLE, LEFT, RIGHT, TOGGLE], name)
    assert out[0] == (0.0, True) and out[4] == (0.0, True)
    assert all(reward > 0 and term for reward, term in out[1:4])


def test_put_near_a_drop_that_fails_ends_unrewarded():
    # Holding the object to move next to the target and facing it: the drop fails (the cell is
    # taken) and ends the episode, reward 0; turned to an empty cell next to the target, it rewards.
    name = "MiniGrid-PutNear-8x8-N3-v0"
    for seed in range(20):
        ref, ours = _imported_pair(name, seed)
        u = ref.unwrapped
        tx, ty = (int(v) for v in u.target_pos)
        # Facing the target from (tx - dx, ty - dy); a left turn faces (tx - dx + dy, ty - dy - dx).
        free = [d for d, (dx, dy) in enumerate(h.DIR_VEC)
                if u.grid.get(tx - dx, ty - dy) is None and u.grid.get(tx - dx + dy, ty - dy - dx) is None]
        if not free:
            continue
        d = free[0]
        ax, ay = tx - h.DIR_VEC[d][0], ty - h.DIR_VEC[d][1]
        held = next(o for o in u.grid.grid if o is not None and (o.type, o.color) == (u.move_type, u.moveColor))
        u.grid.grid[u.grid.grid.index(held)] = None
        u.carrying, u.agent_pos, u.agent_dir = held, (ax, ay), d
        ours.set_state(state_of(ref))
        out = _step_both(ref, ours, [DROP, LEFT, DROP], f"{name} seed {seed}")
        assert out[0] == (0.0, True) and out[2][0] > 0 and out[2][1]
        return
    raise AssertionError("no seed put a free cell on both sides")


def test_fetch_a_wrong_object_ends_unrewarded_and_goes_on_ending():
    # Carrying anything ends the episode at every step, rewarded only for the target's type and colour.
    name = "MiniGrid-Fetch-8x8-N3-v0"
    for seed in range(20):
        ref, ours = _imported_pair(name, seed)
        u = ref.unwrapped
        wrong = [o for o in u.grid.grid if o is not None and o.type in ("key", "ball")
                 and (o.type, o.color) != (u.targetType, u.targetColor)]
        if wrong:
            break
    else:
        raise AssertionError("no seed has a wrong object")
    u.grid.grid[u.grid.grid.index(wrong[0])] = None
    u.carrying = wrong[0]
    ours.set_state(state_of(ref))
    assert _step_both(ref, ours, [LEFT, DONE], name) == [(0.0, True), (0.0, True)]


def test_go_to_door_facing_out_of_an_outer_door_steps_on_where_minigrid_raises():
    # GoToDoor's doors are in the outer wall: opened (the episode ends; single envs step on) and
    # walked into, they leave the agent facing out of the grid. Minigrid's step then raises for
    # every action; gridsim takes the outside for a wall (docs/minigrid.md, "Differences found").
    name = "MiniGrid-GoToDoor-5x5-v0"  # the room is the whole grid: every door is in its border
    ref, ours = _imported_pair(name, 0)
    u = ref.unwrapped
    x = next(x for x in range(u.width) if u.grid.get(x, 0) is not None and u.grid.get(x, 0).type == "door")
    u.agent_pos, u.agent_dir = (x, 1), 3  # under the door in the top wall, facing it
    ours.set_state(state_of(ref))
    assert _step_both(ref, ours, [TOGGLE, FORWARD], name) == [(0.0, True), (0.0, False)]
    assert ours.get_state()["agent_pos"] == (x, 0)
    for a in range(7):
        with pytest.raises(AssertionError):
            ref.step(a)
    u.step_count -= 7  # each refused step was counted before Minigrid's grid.get raised
    expected = {LEFT: (2, False), RIGHT: (0, False), FORWARD: (3, False), PICKUP: (3, False), DROP: (3, False),
                TOGGLE: (3, True), DONE: (3, True)}
    for a, (direction, ended) in expected.items():
        before = ours.get_state()
        obs, reward, terminated, truncated, _ = ours.step(a)
        after = ours.get_state()
        assert (after["agent_pos"], after["agent_dir"], reward, terminated) == ((x, 0), direction, 0.0, ended), a
        assert np.array_equal(after["grid"], before["grid"]) and after["carrying"] is None
        u.agent_dir, u.step_count = direction, u.step_count + 1  # what Minigrid would show from there
        h.compare_obs(u.gen_obs(), obs, f"{name} facing {direction} in the door, action {a}")
        h.compare_state(ref, after, f"{name} facing {direction} in the door, action {a}")
        u.agent_dir = 3  # facing out again, for the next action
        ours.set_state({"agent_dir": 3})
    differences = (Path(__file__).parents[2] / "docs" / "minigrid.md").read_text().split("## Differences found")[1]
    assert "GoToDoor" in differences.split("What differs on purpose")[0]


@pytest.mark.parametrize("obs_type", ["image", "full", "full_image"])
@pytest.mark.parametrize("name", ONE_PER_GENERATOR)
def test_observation_types_match_minigrids_wrappers(name, obs_type):
    # image: ImgObsWrapper; full: FullyObsWrapper; full_image: ImgObsWrapper(FullyObsWrapper).
    h.run_single(name, 5, 80, "seek", obs_type=obs_type)


@pytest.mark.parametrize("name", ONE_PER_GENERATOR)
def test_index_missions_name_minigrids_mission(name):
    h.run_single(name, 6, 60, "seek", mission_format="index")


@pytest.mark.parametrize("name", DYNAMIC)
def test_dynamic_obstacles_takes_actions_3_to_6_as_left(name):
    # Minigrid's step maps them to 0 (the space is Discrete(3)); gridsim accepts them as it does.
    h.run_single(name, 7, 150, "random", num_actions=7)


@pytest.mark.parametrize("seed", [2**31, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 2**64, 2**96 + 5, 2**128 - 1])
def test_seeds_at_the_word_boundaries(seed):
    h.run_single("MiniGrid-DoorKey-8x8-v0", seed, 40, "seek")
    h.run_single("MiniGrid-Empty-Random-5x5-v0", seed, 40, "seek")


def test_seeds_of_2_128_and_more_are_refused():
    env = gym.make("gridsim/MiniGrid-DoorKey-5x5-v0")
    with pytest.raises(InvalidArgumentError):
        env.reset(seed=2**128)
    with pytest.raises((InvalidArgumentError, ValueError)):
        env.reset(seed=-1)


def test_reseeding_mid_stream_starts_afresh():
    name = "MiniGrid-DoorKey-6x6-v0"
    ref, ours = h.make_pair(name)
    ref.reset(seed=1)
    ours.reset(seed=1)
    for a in (2, 2, 1, 3, 2):
        h.compare_step(ref.step(a), ours.step(a), f"{name} step")
    for seed in (1, 2, 1):
        out_ref, out_ours = ref.reset(seed=seed), ours.reset(seed=seed)
        h.compare_obs(out_ref[0], out_ours[0], f"{name} reseed {seed}")
        h.compare_state(ref, ours.unwrapped.get_state(), f"{name} reseed {seed}")


def test_the_harness_sees_a_one_draw_difference():
    name = "MiniGrid-DoorKey-5x5-v0"
    ref, ours = h.make_pair(name)
    ref.reset(seed=0)
    ours.reset(seed=0)
    s = ours.unwrapped.get_state()
    h.compare_state(ref, s, "start")
    # Consume one cached half word more in gridsim only: the next reset lays out another world.
    bitgen = dict(s["bit_generator"], has_uint32=0, uinteger=0)
    ours.unwrapped.set_state({"bit_generator": bitgen})
    with pytest.raises(h.Mismatch, match="generator"):
        h.compare_state(ref, ours.unwrapped.get_state(), "one draw")
    ours.unwrapped.set_state({"bit_generator": s["bit_generator"], "step_count": s["step_count"] + 1})
    with pytest.raises(h.Mismatch, match="step_count"):
        h.compare_state(ref, ours.unwrapped.get_state(), "one step")
    grid = s["grid"].copy()
    grid[2, 2] = (6, 2, 0)
    ours.unwrapped.set_state({"grid": grid, "step_count": s["step_count"]})
    with pytest.raises(h.Mismatch, match="grid"):
        h.compare_state(ref, ours.unwrapped.get_state(), "one cell")


# --------------------------------------------------------------------------- Gymnasium's checks


def test_check_env_passes_on_the_single_env():
    from gymnasium.utils.env_checker import check_env

    env = gym.make("gridsim/MiniGrid-DoorKey-5x5-v0").unwrapped
    check_env(env, skip_render_check=True)
    env.close()


def test_check_env_renders_in_every_render_mode():
    # check_env renders a new env in each of metadata["render_modes"]; frames come from gridsim.minigrid.render.
    pytest.importorskip("gridsim.minigrid.render")
    from gymnasium.utils.env_checker import check_env

    env = gym.make("gridsim/MiniGrid-DoorKey-5x5-v0").unwrapped
    check_env(env)
    env.close()


@pytest.mark.parametrize("mission_format", ["str", "index"])
@pytest.mark.parametrize("obs_type", ["dict", "image", "full", "full_image"])
@pytest.mark.parametrize("name", ["MiniGrid-DoorKey-8x8-v0", "MiniGrid-Empty-Random-6x6-v0",
                                  "MiniGrid-GoToDoor-6x6-v0", "MiniGrid-DistShift2-v0"])
def test_observations_are_in_the_observation_space(name, obs_type, mission_format):
    env = gym.make("gridsim/" + name, obs_type=obs_type, mission_format=mission_format)
    envs = gym.make_vec("gridsim/" + name, num_envs=3, vectorization_mode="vector_entry_point", obs_type=obs_type,
                        mission_format=mission_format, max_episode_steps=9)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    batch, _ = envs.reset(seed=0)
    assert env.observation_space.contains(obs) and envs.observation_space.contains(batch)
    if obs_type in ("full", "full_image"):
        shape = (MINIGRID_IDS[name].width, MINIGRID_IDS[name].height, 3)
        assert (obs["image"] if obs_type == "full" else obs).shape == shape
    if obs_type in ("dict", "full"):
        assert list(obs) == ["image", "direction", "mission"]  # Minigrid's order
        if mission_format == "index":
            assert env.observation_space["mission"] == gym.spaces.Discrete(len(MINIGRID_IDS[name].missions))
            assert isinstance(obs["mission"], int)
        else:
            assert isinstance(obs["mission"], str) and isinstance(batch["mission"], tuple)
    for _ in range(30):
        out = env.step(int(rng.integers(env.action_space.n)))
        assert env.observation_space.contains(out[0])
        if out[2] or out[3]:
            obs, _ = env.reset()
            assert env.observation_space.contains(obs)
        batch = envs.step(rng.integers(envs.single_action_space.n, size=3))[0]
        assert envs.observation_space.contains(batch)
    env.close()
    envs.close()


def test_the_wfc_ids_are_left_out_as_minigrid_320_cannot_reset_them():
    # docs/minigrid.md ("The WFC ids"): the release lacks their template images. Should a
    # minigrid release reset them, this fails and they can be ported against it. Without
    # networkx (minigrid's "wfc" extra, which torch brings) the ids fail earlier, at make.
    pytest.importorskip("networkx")
    wfc = [k for k in gym.registry if k.startswith("MiniGrid-WFC-")]
    assert len(wfc) == 6
    assert not any("WFC" in name for name in MINIGRID_IDS)
    with pytest.raises(FileNotFoundError, match="patterns"):
        gym.make(wfc[0]).reset(seed=0)


@pytest.mark.parametrize("page", ["minigrid", "babyai"])
def test_the_docs_table_lists_every_id_with_its_limit(page):
    text = (Path(__file__).resolve().parents[2] / "docs" / f"{page}.md").read_text()
    table = text[text.index("## Every id"):]
    rows = {line.split(" | ")[0].strip("|` "): line for line in table.splitlines() if line.startswith("| `")}
    ids = {name: spec for name, spec in MINIGRID_IDS.items() if spec.babyai == (page == "babyai")}
    where = f"docs/{page}.md's table 'Every id' (one row per id of gridsim/minigrid/tasks.py)"
    assert not set(ids) - set(rows), f"{where} lacks {sorted(set(ids) - set(rows))}"
    assert not set(rows) - set(ids), f"{where} has ids gridsim lacks: {sorted(set(rows) - set(ids))}"
    for name, spec in ids.items():
        task = spec.description[:spec.description.rindex(" (")]
        expected = f"| {task} | {spec.width}x{spec.height} | {spec.max_steps or 'the episode' + chr(39) + 's'} |"
        assert expected in rows[name], f"{where}: the row of {name} should have {expected!r}"


# --------------------------------------------------------------------------- slow: more seeds, longer


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["random", "seek"])
@pytest.mark.parametrize("name", IDS)
def test_single_env_matches_minigrid_more_seeds(name, policy):
    for seed in range(10, 15):
        h.run_single(name, seed, 250, policy)


@pytest.mark.slow
@pytest.mark.parametrize("name", IDS)
def test_short_episodes_more_seeds(name):
    for seed in range(30, 35):
        h.run_single(name, seed, 150, "seek", max_steps=[5, 13, 40][seed % 3])


@pytest.mark.slow
@pytest.mark.parametrize("obs_type", ["image", "full", "full_image"])
@pytest.mark.parametrize("name", IDS)
def test_observation_types_match_minigrids_wrappers_every_id(name, obs_type):
    for seed in (50, 51):
        h.run_single(name, seed, 100, "seek", obs_type=obs_type)

