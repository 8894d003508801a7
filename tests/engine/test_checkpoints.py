"""Checkpoint files and loaded states: nothing is unpickled, nothing unchecked is written.

``save_checkpoint`` / ``load_checkpoint`` and ``numpy.savez(path, **envs.state_dict())`` with
``load_state_dict(numpy.load(path))`` continue bit-identically for every family. A crafted
file (pickled seeds whose unpickling has a side effect, a header claiming a huge array, bytes
flipped anywhere) is refused with ``InvalidStateError`` before anything runs, is allocated or
changes; ``load_state_dict`` writes the copy it checked, whatever the caller's arrays do meanwhile.
"""

from __future__ import annotations

import copy
import io
import json
import os
import pathlib
import pickle
import time
import tracemalloc
import zipfile

import gymnasium as gym
import numpy as np
import pytest
from engine.family_cases import merged, obs_array
from fuzz.state_cases import CASES as STATE_CASES
from fuzz.state_cases import make_case, play, states_equal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gridsim
from gridsim import InvalidStateError, load_checkpoint, save_checkpoint
from gridsim.kitchen.env import KitchenVectorEnv
from gridsim.minigrid.env import MinigridVectorEnv
from gridsim.nav.env import NavVectorEnv
from gridsim.roboman.env import RobomanVectorEnv

# name -> (vector env class, single env class, keywords): every family's COPY_CASES (tests/<family>/cases.py).
COPY_CASES = merged("COPY_CASES")
FAMILIES = list(COPY_CASES)
PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def make_vec(family: str, num_envs: int = 3, **extra):
    cls, _, kwargs = COPY_CASES[family]
    return cls(num_envs=num_envs, events=True, **kwargs, **extra)


def played(family: str, seed=(3, 2**70, 2**128 - 1), steps: int = 6):
    """An env of ``family`` reset with ``seed`` (beyond 64 bits too) and stepped ``steps`` random actions."""
    envs = make_vec(family)
    envs.reset(seed=list(seed))
    envs.action_space.seed(1)
    for _ in range(steps):
        envs.step(envs.action_space.sample())
    return envs


def rollout(envs, steps: int = 10) -> list:
    envs.action_space.seed(2)
    out = []
    for _ in range(steps):
        obs, rew, term, trunc, _ = envs.step(envs.action_space.sample())
        out.append((obs_array(obs), rew.copy(), term.copy(), trunc.copy(), envs.events_batch()))
    return out


def assert_same_rollouts(a: list, b: list):
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x[:4], y[:4], strict=True):
            assert u.dtype == v.dtype
            np.testing.assert_array_equal(u, v)
        assert x[4].keys() == y[4].keys()
        for k in x[4]:
            np.testing.assert_array_equal(x[4][k], y[4][k])


def write_npz(path, entries: dict, raw: dict | None = None):
    """An uncompressed .npz of ``entries`` (objects pickled, as numpy.savez does), plus ``raw`` member bytes."""
    with zipfile.ZipFile(path, "w") as zf:
        for key, value in entries.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asanyarray(value), allow_pickle=True)
            zf.writestr(key + ".npy", buf.getvalue())
        for name, data in (raw or {}).items():
            zf.writestr(name, data)


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("family", FAMILIES)
def test_save_and_load_checkpoint_continue_bit_identically(family, tmp_path):
    envs = played(family)
    path = tmp_path / "run.ckpt"  # written under exactly this name
    save_checkpoint(envs, path)
    assert os.listdir(tmp_path) == ["run.ckpt"]
    fresh = make_vec(family)
    load_checkpoint(fresh, path)
    assert fresh.state.seeds.tolist() == [3, 2**70, 2**128 - 1]
    assert states_equal(fresh.state_dict(), envs.state_dict())
    assert_same_rollouts(rollout(fresh), rollout(envs))


@pytest.mark.parametrize("family", FAMILIES)
def test_the_readme_recipe_needs_no_allow_pickle(family, tmp_path):
    envs = played(family)
    path = tmp_path / "checkpoint.npz"
    np.savez(path, **envs.state_dict())
    fresh = make_vec(family)
    with np.load(path) as saved:  # allow_pickle=False: there are no objects to unpickle
        assert all(saved[k].dtype != object for k in saved.files)
        fresh.load_state_dict(saved)
    assert_same_rollouts(rollout(fresh), rollout(envs))


def test_seeds_are_two_words_and_a_mask_none_included():
    envs = make_vec("nav")  # never reset: no env has a seed yet
    saved = envs.state_dict()
    assert saved["seeds"].dtype == np.uint64 and saved["seeds"].shape == (3, 2)
    assert not saved["has_seed"].any() and not saved["seeds"].any()
    envs.reset(seed=[2**128 - 1, 5, 2**64])
    saved = envs.state_dict()
    np.testing.assert_array_equal(saved["seeds"], np.array([[2**64 - 1] * 2, [5, 0], [0, 1]], np.uint64))
    fresh = make_vec("nav")
    fresh.load_state_dict(saved)
    assert fresh.state.seeds.tolist() == [2**128 - 1, 5, 2**64]
    assert all(type(s) is int for s in fresh.state.seeds)
    saved["has_seed"][1] = False
    fresh.load_state_dict({**saved, "seeds": np.where(saved["has_seed"][:, None], saved["seeds"], 0)})
    assert fresh.state.seeds.tolist() == [2**128 - 1, None, 2**64]


def test_the_worlds_never_given_one_stay_so_through_checkpoints_copies_and_earlier_states(tmp_path):
    envs = make_vec("nav")
    envs.reset(seed=1, options={"reset_mask": np.array([True, False, True])})  # env 1 has no world
    saved = envs.state_dict()
    assert saved["has_world"].tolist() == [True, False, True]
    save_checkpoint(envs, tmp_path / "c.npz")
    copies = [copy.deepcopy(envs), pickle.loads(pickle.dumps(envs)), make_vec("nav"), make_vec("nav")]
    copies[2].load_state_dict(saved)
    load_checkpoint(copies[3], tmp_path / "c.npz")
    actions = np.zeros(3, np.int64)
    for c in copies:
        assert c.has_world.tolist() == [True, False, True]
        with pytest.raises(gym.error.ResetNeeded, match=r"\(envs 1\)"):
            c.step(actions)
    earlier = {k: v for k, v in saved.items() if k != "has_world"}  # a state of an earlier version
    copies[2].load_state_dict(earlier)
    assert copies[2].has_world.all()
    copies[2].step(actions)


def test_a_fortran_order_entry_loads_like_a_c_order_one(tmp_path):
    envs = played("nav")
    state = envs.state_dict()
    path = tmp_path / "f.npz"
    np.savez(path, **{k: np.asfortranarray(v) if isinstance(v, np.ndarray) else v for k, v in state.items()})
    fresh = make_vec("nav")
    with np.load(path) as saved:
        fresh.load_state_dict(saved)
    assert states_equal(fresh.state_dict(), state)


def test_save_checkpoint_takes_single_envs_and_wrapped_ones(tmp_path):
    import gymnasium as gym

    single = gym.make("gridsim/Gridroboman-LiftRed-v0")
    single.reset(seed=4)
    save_checkpoint(single, tmp_path / "one")
    other = gym.make("gridsim/Gridroboman-LiftRed-v0")
    load_checkpoint(other, tmp_path / "one")
    assert other.unwrapped.get_state() == single.unwrapped.get_state()
    with pytest.raises(gridsim.ArgumentTypeError, match="gridsim env"):
        save_checkpoint(object(), tmp_path / "x")
    assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------- refusals


def test_pickled_seeds_never_run(tmp_path):
    marker = tmp_path / "ran"

    class Exploit:
        def __reduce__(self):  # unpickling creates the marker file
            return pathlib.Path.touch, (marker,)

    envs = played("nav")
    before = envs.state_dict()
    path = tmp_path / "evil.npz"
    seeds = np.empty(envs.state.num_units, object)
    seeds[:] = [Exploit() for _ in seeds]
    np.savez(path, **{**before, "seeds": seeds})
    with np.load(path, allow_pickle=True) as saved, pytest.raises(InvalidStateError, match="never unpickles") as e:
        envs.load_state_dict(saved)
    assert e.value.field == "seeds"
    with pytest.raises(InvalidStateError, match="never unpickles"):
        load_checkpoint(envs, path)
    assert not marker.exists()
    assert states_equal(envs.state_dict(), before)


def test_a_header_claiming_a_huge_array_is_refused_before_allocating(tmp_path):
    envs = played("nav")
    state = envs.state_dict()
    name = envs.state.DYNAMIC[0]
    dtype = state[name].dtype
    huge = (2**31 // dtype.itemsize + 1,)  # 2 GiB, as a small compressed file would claim
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                  "fortran_order": False, "shape": huge})
    path = tmp_path / "bomb.npz"
    rest = {k: v for k, v in state.items() if k != name}
    write_npz(path, rest, raw={name + ".npy": header.getvalue() + bytes(1 << 16)})
    for load in (lambda: envs.load_state_dict(np.load(path, allow_pickle=True)), lambda: load_checkpoint(envs, path)):
        tracemalloc.start()
        start = time.perf_counter()
        try:
            with pytest.raises(InvalidStateError, match=r"the file's header\) has shape") as e:
                load()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert e.value.field == name
        assert peak < 32 << 20, f"{peak} bytes allocated before the refusal"
        assert time.perf_counter() - start < 5


@pytest.mark.parametrize("change, field", [
    ({"env_class": "SomeOtherVectorEnv"}, "env_class"), ({"format_version": 3}, "format_version"),
    ({"num_envs": 4}, "num_envs"), ({"has_seed": np.array([1, 2, 0], np.uint8).view(np.bool_)}, "has_seed"),
    ({"has_seed": np.zeros(3, np.bool_)}, "seeds"),  # words without a seed must be zero
    ({"has_world": np.array([1, 0, 9], np.uint8).view(np.bool_)}, "has_world"),
    ({"has_world": np.ones(4, np.bool_)}, "has_world"),
    ({"max_steps": np.float64(3)}, "max_steps"), ({"env_class": np.array(["NavVectorEnv"] * 2)}, "env_class"),
])
def test_a_checkpoint_that_does_not_fit_is_refused_and_changes_nothing(change, field, tmp_path):
    envs = played("nav")
    before = envs.state_dict()
    path = tmp_path / "c.npz"
    np.savez(path, **{**before, **change})
    with pytest.raises(InvalidStateError) as e:
        load_checkpoint(envs, path)
    assert e.value.field == field
    assert states_equal(envs.state_dict(), before)


def test_a_checkpoint_of_another_family_names_both_classes(tmp_path):
    path = tmp_path / "roboman.ckpt"
    save_checkpoint(played("roboman"), path)
    envs = played("nav")
    before = envs.state_dict()
    with pytest.raises(InvalidStateError, match="'RobomanVectorEnv' env; this env is a NavVectorEnv"):
        load_checkpoint(envs, path)
    with pytest.raises(InvalidStateError, match="'RobomanVectorEnv' env"):
        envs.load_state_dict(np.load(path))
    assert states_equal(envs.state_dict(), before)


def test_files_that_are_no_checkpoint_are_refused(tmp_path):
    envs = played("nav")
    (tmp_path / "text").write_text("not a zip")
    np.save(tmp_path / "array.npy", np.zeros(3))
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    for name, text in [("text", "not an .npz"), ("array.npy", "not an .npz"), ("other.npz", "no 'format_version'")]:
        with pytest.raises(InvalidStateError, match=text):
            load_checkpoint(envs, tmp_path / name)
    with pytest.raises(FileNotFoundError):
        load_checkpoint(envs, tmp_path / "missing")
    saved = np.load(tmp_path / "other.npz")
    saved.close()
    with pytest.raises(InvalidStateError, match="closed"):
        envs.load_state_dict(saved)


def test_an_interrupted_save_keeps_the_previous_file(tmp_path, monkeypatch):
    envs = played("nav")
    path = tmp_path / "run.ckpt"
    save_checkpoint(envs, path)
    before = path.read_bytes()

    def fail(f, **kwargs):
        f.write(b"half a file")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", fail)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(envs, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["run.ckpt"]


# ---------------------------------------------------------------- the rules a state plays by

MAP_A = "#####\n#S 0#\n# # #\n#####"
MAP_B = "#####\n#S  #\n# #0#\n#####"  # the same size and symbols, the goal elsewhere
# name -> (the env saved, an env of other rules, what the refusal names of each)
OTHER_RULES = {
    "minigrid-id": (lambda: MinigridVectorEnv(3, env_name="MiniGrid-DoorKey-8x8-v0"),
                    lambda: MinigridVectorEnv(3, env_name="MiniGrid-Empty-8x8-v0"),
                    "level='MiniGrid-DoorKey-8x8-v0', this env has level='MiniGrid-Empty-8x8-v0'"),
    "minigrid-dynamic": (lambda: MinigridVectorEnv(3, env_name="MiniGrid-Dynamic-Obstacles-8x8-v0"),
                         lambda: MinigridVectorEnv(3, env_name="MiniGrid-Empty-8x8-v0"),
                         "level='MiniGrid-Dynamic-Obstacles-8x8-v0', this env has level='MiniGrid-Empty-8x8-v0'"),
    "nav-map": (lambda: NavVectorEnv(3, world_map=MAP_A), lambda: NavVectorEnv(3, world_map=MAP_B),
                "level_digest="),
    "nav-level": (lambda: gridsim.make("nav/room1_small", 3), lambda: gridsim.make("nav/room2_small", 3),
                  "level='room1_small', this env has level='room2_small'"),
    "nav-actions": (lambda: NavVectorEnv(3, world_map=MAP_A, actions="1d_horizontal"),
                    lambda: NavVectorEnv(3, world_map=MAP_A, actions="1d_vertical"),
                    "actions='1d_horizontal', this env has actions='1d_vertical'"),
    "nav-goals": (lambda: NavVectorEnv(3, world_map=MAP_A, randomize_goals=True),
                  lambda: NavVectorEnv(3, world_map=MAP_A), "randomize_goals='true', this env has randomize_goals"),
    "roboman-task": (lambda: RobomanVectorEnv(3, task="LiftRed"), lambda: RobomanVectorEnv(3, task="LiftBlue"),
                     "level='LiftRed', this env has level='LiftBlue'"),
    "roboman-tasks": (lambda: RobomanVectorEnv(3, tasks=["LiftRed", "LiftBlue"]),
                      lambda: RobomanVectorEnv(3, tasks=["LiftBlue", "LiftRed"]),
                      "level='LiftRed,LiftBlue', this env has level='LiftBlue,LiftRed'"),
    "kitchen-level": (lambda: KitchenVectorEnv(3, level="kitchen/open-divider_tomato"),
                      lambda: KitchenVectorEnv(3, level="kitchen/open-divider_salad"),
                      "level='open-divider_tomato', this env has level='open-divider_salad'"),
    "kitchen-agents": (lambda: KitchenVectorEnv(3, level="kitchen/open-divider_salad", num_agents=3),
                       lambda: KitchenVectorEnv(3, level="kitchen/open-divider_salad"),
                       "num_agents='3', this env has num_agents='2'"),
}


def played_env(make):
    envs = make()
    envs.reset(seed=[4, 5, 6])
    play(envs, 5, seed=1)
    return envs


@pytest.mark.parametrize("case", OTHER_RULES)
def test_a_state_of_other_rules_is_refused_naming_both(case, tmp_path):
    saved_env, other_env, named = OTHER_RULES[case]
    state = played_env(saved_env).state_dict()
    envs = played_env(other_env)
    before = envs.state_dict()
    path = tmp_path / "other.npz"
    np.savez(path, **state)
    for load in (lambda: envs.load_state_dict(state), lambda: load_checkpoint(envs, path),
                 lambda: envs.load_state_dict(np.load(path))):
        with pytest.raises(InvalidStateError, match="state is of other rules") as e:
            load()
        assert e.value.field == "rules"
        assert named in str(e.value)
        assert states_equal(envs.state_dict(), before)


def test_the_rules_travel_in_every_saved_form(tmp_path):
    envs = played_env(OTHER_RULES["nav-actions"][0])
    expected = envs.rules_signature()
    assert expected["actions"] == "1d_horizontal" and expected["level_digest"]
    save_checkpoint(envs, tmp_path / "a.ckpt")
    np.savez(tmp_path / "b.npz", **envs.state_dict())
    for path in (tmp_path / "a.ckpt", tmp_path / "b.npz"):
        with np.load(path) as saved:
            assert json.loads(str(saved["rules"])) == expected
    copy = pickle.loads(pickle.dumps(envs))
    assert copy.rules_signature() == expected
    assert_same_rollouts(rollout(copy), rollout(envs))


@pytest.mark.parametrize("family", FAMILIES)
def test_the_rules_are_the_level_and_the_settings_declared_rules(family):
    envs = make_vec(family)
    signature = envs.rules_signature()
    rules = [key for key, setting in envs.SETTINGS.items() if setting.rules]
    assert list(signature) == ["level", *(["level_digest"] if envs.state.RULE_TABLES else []), *rules]
    assert all(isinstance(v, str) for v in signature.values())
    # Settings of what is shown are not rules: the state of one observation loads into another.
    assert not {"obs_type", "render_mode", "num_threads", "copy", "max_steps"} & set(rules)


def test_an_alias_of_a_setting_is_the_same_rule():
    a = NavVectorEnv(2, world_map=MAP_A, actions="2d_discrete")
    b = NavVectorEnv(2, world_map=MAP_A, actions="1d_discrete")
    a.reset(seed=1)
    b.load_state_dict(a.state_dict())


def test_a_state_of_version_1_loads_without_rules_and_one_of_version_2_needs_them(tmp_path):
    envs = played("minigrid")
    state = envs.state_dict()
    older = {k: v for k, v in state.items() if k != "rules"}
    np.savez(tmp_path / "v1.npz", **{**older, "format_version": 1})
    fresh = make_vec("minigrid")
    load_checkpoint(fresh, tmp_path / "v1.npz")  # written before the rules were recorded
    assert states_equal(fresh.state_dict(), state)
    np.savez(tmp_path / "v2.npz", **older)
    with pytest.raises(InvalidStateError, match="format version 2 is missing 'rules'") as e:
        load_checkpoint(fresh, tmp_path / "v2.npz")
    assert e.value.field == "rules"


@pytest.mark.parametrize("rules", ["not json", "[1, 2]", '{"level": 3}', "[" * 10000, "1" * 5000, 7,
                                   np.array(["a", "b"])])
def test_rules_that_do_not_read_are_refused(rules):
    envs = played("nav")
    before = envs.state_dict()
    with pytest.raises(InvalidStateError) as e:
        envs.load_state_dict({**before, "rules": rules})
    assert e.value.field == "rules"
    assert states_equal(envs.state_dict(), before)


# ---------------------------------------------------------------- the private copy


@pytest.mark.parametrize("source", ["dict", "memmap"])
def test_load_state_dict_writes_the_copy_it_checked(source, tmp_path):
    envs = played("nav")
    state = envs.state_dict()
    if source == "memmap":  # a file another process could rewrite
        for name in envs.state.DYNAMIC:
            np.save(tmp_path / f"{name}.npy", state[name])
            state[name] = np.load(tmp_path / f"{name}.npy", mmap_mode="r+")
    expected = np.array(state["ep_return"])
    check = envs.state_io.check

    def check_then_change(view):
        check(view)
        state["ep_return"][:] = 12345.0  # the caller's array changes after the check
        state["agent_cell"][:] = 0  # ... even to a value the check refuses (a wall)

    envs.state_io.check = check_then_change
    envs.load_state_dict(state)
    np.testing.assert_array_equal(envs.state.ep_return, expected)
    assert (envs.state.agent_cell != 0).all()
    envs.step(envs.action_space.sample())


# ---------------------------------------------------------------- observations are derived


def garbage_like(obs: np.ndarray) -> np.ndarray:
    """Observations no state gives: 200 everywhere (MiniGrid has 11 object ids, nav's coordinates are small)."""
    return np.full_like(obs, 200)


@pytest.mark.parametrize("case", sorted(STATE_CASES))
def test_a_loaded_state_observes_its_world_not_the_saved_observations(case):
    envs = make_case(case)
    saved = envs.state_dict()
    crafted = {**saved, "obs": garbage_like(saved["obs"])}
    other = STATE_CASES[case]()
    other.load_state_dict(crafted)
    # What a fresh observe of the same state gives: the observations of the env that was saved.
    np.testing.assert_array_equal(other.state_dict()["obs"], saved["obs"])
    for row in range(envs.num_envs):
        np.testing.assert_array_equal(obs_array(other.row_obs(row)), obs_array(envs.row_obs(row)))
    # And they stay so as both play on (a view a step leaves as it is keeps the observed one).
    play(envs, 8, seed=11)
    play(other, 8, seed=11)
    assert states_equal(other.state_dict(), envs.state_dict())


@pytest.mark.parametrize("family", FAMILIES)
def test_a_checkpoint_with_crafted_observations_loads_the_observations_of_its_world(family, tmp_path):
    envs = played(family)
    saved = envs.state_dict()
    path = tmp_path / "crafted.npz"
    np.savez(path, **{**saved, "obs": garbage_like(saved["obs"])})
    fresh = make_vec(family)
    load_checkpoint(fresh, path)
    assert states_equal(fresh.state_dict(), saved)
    assert_same_rollouts(rollout(fresh), rollout(envs))


# ---------------------------------------------------------------- properties


@pytest.fixture(scope="module")
def saved_file(tmp_path_factory):
    """An uncompressed checkpoint of a played nav batch, and its state."""
    envs = played("nav")
    path = tmp_path_factory.mktemp("ckpt") / "base.ckpt"
    save_checkpoint(envs, path, compress=False)
    return path.read_bytes(), envs.state_dict()


def assert_refused_or_plays(envs, load, before: dict):
    try:
        load()
    except InvalidStateError:
        assert states_equal(envs.state_dict(), before)
        return
    for _ in range(3):
        envs.step(envs.action_space.sample())


@PROPERTY
@given(data=st.data())
def test_a_damaged_file_raises_only_invalid_state_error(saved_file, tmp_path_factory, data):
    raw, before = saved_file
    blob = bytearray(raw)
    how = data.draw(st.sampled_from(["flip", "flip", "truncate"]), label="how")
    if how == "truncate":
        blob = blob[: data.draw(st.integers(0, len(blob) - 1), label="length")]
    else:
        for _ in range(data.draw(st.integers(1, 4), label="flips")):
            blob[data.draw(st.integers(0, len(blob) - 1), label="at")] ^= data.draw(st.integers(1, 255), label="bits")
    path = tmp_path_factory.mktemp("damaged") / "c.ckpt"
    path.write_bytes(bytes(blob))
    envs = make_vec("nav")
    envs.load_state_dict(before)
    assert_refused_or_plays(envs, lambda: load_checkpoint(envs, path), before)


ODD_ARRAYS = st.sampled_from([
    np.zeros((), np.int64), np.zeros(3, np.int16), np.zeros((3, 2), np.uint64), np.zeros((2, 3), np.uint64),
    np.zeros((3, 2), ">u8"), np.array(["x", "yy"]), np.array([None, 1, 2], object), np.zeros(0, np.uint8),
    np.zeros((3,), [("a", np.int32), ("b", object)]), np.array(7), np.array(2**63 - 1), np.array(-1),
    np.array(True), np.array("NavVectorEnv"), np.array(3.5), np.zeros((3, 1 << 10), np.bool_),
])


@PROPERTY
@given(data=st.data())
def test_any_entry_of_a_file_raises_only_invalid_state_error(saved_file, tmp_path_factory, data):
    _, before = saved_file
    entries = dict(before)
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        name = data.draw(st.sampled_from(sorted(entries)), label="name")
        if data.draw(st.booleans(), label="delete"):
            del entries[name]
        else:
            entries[name] = data.draw(ODD_ARRAYS, label="value")
    path = tmp_path_factory.mktemp("odd") / "c.npz"
    write_npz(path, entries)
    envs = make_vec("nav")
    envs.load_state_dict(before)
    with np.load(path, allow_pickle=True) as saved:
        assert_refused_or_plays(envs, lambda: envs.load_state_dict(saved), before)
