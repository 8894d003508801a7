"""Misspelt keyword arguments, ids and level names: the errors name the closest valid names."""

from __future__ import annotations

import gymnasium as gym
import pytest

import gridsim
from gridsim.families import FAMILIES
from gridsim.levels.lookup import level_names


@pytest.mark.parametrize("make", [
    lambda: gridsim.make("nav/four_rooms", 4, obs_typ="view"),
    lambda: gym.make_vec("gridsim/Nav-four_rooms-v0", num_envs=4, obs_typ="view"),
    lambda: gym.make("gridsim/Nav-four_rooms-v0", obs_typ="view"),
    lambda: gridsim.NavVectorEnv(2, level="nav/four_rooms", obs_typ="view"),
], ids=["gridsim.make", "gym.make_vec", "gym.make", "class"])
def test_misspelt_keyword_names_the_closest_and_lists_the_valid(make):
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'obs_typ'; did you mean 'obs_type'") as exc:
        make()
    message = str(exc.value)
    # The family's own arguments and those it forwards to GridVectorEnv.
    for name in ("obs_type", "view_size", "num_threads", "autoreset_mode", "settings"):
        assert name in message.split("keyword arguments are", 1)[1]


@pytest.mark.parametrize("level", [pytest.param(row.tools.bench_name(), id=row.name) for row in FAMILIES.values()])
def test_misspelt_keyword_in_every_family(level):
    with pytest.raises(TypeError, match=r"'num_thread'; did you mean 'num_threads'"):
        gridsim.make(level, 2, num_thread=2)


def test_valid_keywords_still_pass():
    envs = gridsim.make("nav/four_rooms", 2, obs_type="view", num_threads=1, settings={"view_size": "5"})
    assert envs.read_property("settings.obs_type") == "view"
    envs.close()


def test_misspelt_level_names_the_closest_levels():
    with pytest.raises(gridsim.LevelNotFoundError, match=r"did you mean 'nav/four_rooms'") as exc:
        gridsim.make("nav/four_romos", 2)
    assert exc.value.suggestions[0] == "nav/four_rooms"
    with pytest.raises(gridsim.LevelNotFoundError, match=r"did you mean 'nav/four_rooms'"):
        gridsim.find_level("nav/four_romos")


def test_misspelt_level_in_a_level_directory(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "corridor.txt").write_text("#####\n")
    assert "mine/corridor" in level_names(tmp_path)
    with pytest.raises(gridsim.LevelNotFoundError, match=r"did you mean 'mine/corridor'"):
        gridsim.make("mine/coridor", 2, level_directory=tmp_path)


def test_misspelt_id_names_the_closest_ids():
    with pytest.raises(gridsim.LevelNotFoundError, match=r"did you mean 'gridsim/Nav-four_rooms-v0'"):
        gridsim.evaluate("random", "gridsim/Nav-four_romos-v0", range(2))


def test_no_suggestion_for_a_name_like_nothing():
    with pytest.raises(gridsim.LevelNotFoundError) as exc:
        gridsim.make("zzzzqqqq/xxxx", 2)
    assert exc.value.suggestions == [] and "did you mean" not in str(exc.value)


def test_misspelt_id_without_gridsims_namespace_names_the_closest_ids():
    with pytest.raises(gridsim.LevelNotFoundError) as exc:
        gridsim.evaluate("random", "MiniGrid-DoorKey-8x8-v9", range(2))
    assert exc.value.suggestions[0] == "gridsim/MiniGrid-DoorKey-8x8-v0"
    assert all(s.startswith("gridsim/MiniGrid-DoorKey-") for s in exc.value.suggestions)


def test_a_level_name_in_a_folder_suggests_levels_only():
    with pytest.raises(gridsim.LevelNotFoundError) as exc:
        gridsim.make("nav/four_romos", 2)
    assert exc.value.suggestions and not any(s.startswith("gridsim/") for s in exc.value.suggestions)


def _first_ids():
    from engine.family_cases import FAMILY_IDS

    return [ids[0] for ids in FAMILY_IDS.values()]


@pytest.mark.parametrize("env_id", _first_ids())
def test_make_takes_a_registered_id_as_registered(env_id):
    # gridsim.make(id) is the id's env as gymnasium.make_vec makes it: its arguments and step limit.
    ours, theirs = gridsim.make(env_id, 3), gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point")
    assert type(ours) is type(theirs) and ours.num_envs == 3
    assert ours.max_episode_steps == theirs.max_episode_steps
    assert ours.init_args == theirs.init_args
    ours.close()
    theirs.close()
    with pytest.raises(gridsim.ArgumentTypeError, match="registered id: it takes no level_directory"):
        gridsim.make(env_id, 2, level_directory=".")


def test_make_takes_minigrids_own_ids():
    envs = gridsim.make("MiniGrid-DoorKey-8x8-v0", 2)
    assert envs.env_name == "MiniGrid-DoorKey-8x8-v0" and envs.max_episode_steps == 640


def _family_first_ids():
    from engine.family_cases import FAMILY_IDS

    return [pytest.param(family, ids[0], id=family) for family, ids in FAMILY_IDS.items()]


@pytest.mark.parametrize("family, env_id", _family_first_ids())
def test_every_name_make_suggests_is_one_make_takes(family, env_id):
    # A misspelt level name or id suggests names; gridsim.make takes each of them.
    name, colon, argument = FAMILIES[family].tools.bench_name().partition(":")
    for typo in (env_id[:-1] + "9", env_id.removeprefix("gridsim/")[:-1] + "9", name + "x" + colon + argument):
        with pytest.raises(gridsim.LevelNotFoundError) as info:
            gridsim.make(typo, 1)
        assert info.value.suggestions, typo
        for name in info.value.suggestions:
            gridsim.make(name, 1).close()
