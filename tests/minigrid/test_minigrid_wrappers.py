"""Every wrapper of Minigrid 3.2.0 on gridsim's MiniGrid envs, against the same wrapper on Minigrid's.

The wrappers are read from ``minigrid.wrappers`` (every class defined there that derives from
``gymnasium.Wrapper``), so a wrapper Minigrid adds fails here until it has its entries:
its arguments (:data:`ARGUMENTS`) and its batched equivalent (:data:`BATCHED`).

* The single env: ``Wrapper(gym.make("gridsim/..."))`` against ``Wrapper(gym.make("MiniGrid-..."))``
  from the same seeds with the same actions: every output of every reset and step (observations
  to the dtype, reward bits, flags, info) and the env's state, generator included, across
  unseeded resets; compositions too.
* A batch: the equivalent (an ``obs_type``, ``agent_view_size`` or a wrapper of
  ``gridsim.minigrid.wrappers``) against ``SyncVectorEnv`` of the wrapped Minigrid envs (env i seeded
  s + i) in the autoreset modes it takes, with masked resets under ``Disabled``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

import minigrid.wrappers as mw  # noqa: E402
import minigrid_harness as h  # noqa: E402

import gridsim.minigrid.wrappers as gw  # noqa: E402
from gridsim.errors import ArgumentTypeError, InvalidArgumentError  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*A seed has been passed to `ReseedWrapper.reset`")]

MINIGRID_WRAPPERS = {name: cls for name, cls in vars(mw).items()
                     if inspect.isclass(cls) and issubclass(cls, gym.Wrapper) and cls.__module__ == mw.__name__}

# Each wrapper's arguments (besides the env), for Minigrid's wrapper on either env.
ARGUMENTS: dict[str, dict[str, Any]] = {
    "ReseedWrapper": {"seeds": (3, 5, 9), "seed_idx": 1},
    "ActionBonus": {},
    "PositionBonus": {"scale": 0.3},
    "ImgObsWrapper": {},
    "OneHotPartialObsWrapper": {},
    "RGBImgObsWrapper": {"tile_size": 3},
    "RGBImgPartialObsWrapper": {"tile_size": 4},
    "FullyObsWrapper": {},
    "DictObservationSpaceWrapper": {},
    "FlatObsWrapper": {},
    "ViewSizeWrapper": {"agent_view_size": 5},
    "DirectionObsWrapper": {"type": "angle_atan2"},
    "SymbolicObsWrapper": {},
    "StochasticActionWrapper": {"prob": 0.6},
    "NoDeath": {"no_death_types": ("lava", "ball"), "death_cost": -0.5},
}

# Each wrapper's equivalent on a batch: make_vec's keyword arguments, and the batch's wrapper (None:
# the arguments alone do it). The arguments are ARGUMENTS' where the names are the same.
BATCHED: dict[str, tuple[dict[str, Any], Callable[..., gym.vector.VectorEnv] | None]] = {
    "ReseedWrapper": ({}, gw.Reseed),
    "ActionBonus": ({}, gw.ActionBonus),
    "PositionBonus": ({}, gw.PositionBonus),
    "ImgObsWrapper": ({"obs_type": "image"}, None),
    "OneHotPartialObsWrapper": ({}, gw.OneHotPartialObs),
    "RGBImgObsWrapper": ({"obs_type": "rgb_full", "tile_size": 3}, None),
    "RGBImgPartialObsWrapper": ({"obs_type": "rgb", "tile_size": 4}, None),
    "FullyObsWrapper": ({"obs_type": "full"}, None),
    "DictObservationSpaceWrapper": ({}, gw.DictObservationSpace),
    "FlatObsWrapper": ({}, gw.FlatObs),
    "ViewSizeWrapper": ({"agent_view_size": 5}, None),
    "DirectionObsWrapper": ({}, gw.DirectionObs),
    "SymbolicObsWrapper": ({}, gw.SymbolicObs),
    "StochasticActionWrapper": ({}, gw.StochasticActions),
    "NoDeath": ({}, gw.NoDeath),
}
# The batched wrappers that read the world after a step take NextStep and Disabled only.
AFTER_STEP_ONLY = {"ActionBonus", "PositionBonus", "OneHotPartialObsWrapper", "DictObservationSpaceWrapper",
                   "FlatObsWrapper", "DirectionObsWrapper", "SymbolicObsWrapper", "NoDeath"}

# Lava and balls (NoDeath), goals (DirectionObsWrapper), keys and doors; short episodes for many resets.
IDS = ["MiniGrid-LavaCrossingS9N1-v0", "MiniGrid-Dynamic-Obstacles-6x6-v0", "MiniGrid-DoorKey-5x5-v0"]
MAX_STEPS = 25


def _same(ref: Any, ours: Any) -> bool:
    """Equal to the dtype: arrays by dtype, shape and bytes; dicts, lists and tuples item by item; numbers by value."""
    if isinstance(ref, Mapping):
        return isinstance(ours, Mapping) and set(ref) == set(ours) and all(_same(ref[k], ours[k]) for k in ref)
    if isinstance(ref, np.ndarray) or isinstance(ours, np.ndarray):
        ref, ours = np.asarray(ref), np.asarray(ours)
        if ref.dtype == object:  # SameStep's final_obs: an observation or None per env
            return ours.dtype == object and ref.shape == ours.shape and all(map(_same, ref.tolist(), ours.tolist()))
        return ref.dtype == ours.dtype and ref.shape == ours.shape and ref.tobytes() == ours.tobytes()
    if isinstance(ref, (list, tuple)):
        return isinstance(ours, (list, tuple)) and len(ref) == len(ours) and all(map(_same, ref, ours))
    if isinstance(ref, (float, np.floating)) or isinstance(ours, (float, np.floating)):
        return np.float64(ref).tobytes() == np.float64(ours).tobytes()
    if ref is None or ours is None:
        return ref is ours
    return bool(ref == ours)


def _check(ref: Any, ours: Any, where: str):
    if not _same(ref, ours):
        raise h.Mismatch(f"{where} differs\n  minigrid: {ref!r}\n  gridsim:  {ours!r}")


def _wrapped(name: str, build: Callable[[gym.Env], gym.Env]) -> tuple[gym.Env, gym.Env]:
    ref = build(gym.make(name, max_steps=MAX_STEPS))
    ours = build(gym.make("gridsim/" + name, settings={"max_steps": MAX_STEPS}))
    return ref, ours


def _play(ref: gym.Env, ours: gym.Env, seed: int, steps: int, label: str):
    """Reset both with ``seed``, step them alike and compare every output and the state; unseeded resets after ends."""
    rng = np.random.default_rng([seed, 17])
    n = int(ref.action_space.n)
    _check(ref.reset(seed=seed), ours.reset(seed=seed), f"{label} reset")
    h.compare_state(ref, ours.unwrapped.get_state(), f"{label} reset")
    for t in range(steps):
        a = int(rng.integers(n)) if rng.random() < 0.6 else 2
        out_ref, out_ours = ref.step(a), ours.step(a)
        for k, what in enumerate(("observation", "reward", "terminated", "truncated", "info")):
            _check(out_ref[k], out_ours[k], f"{label} step {t} {what}")
        h.compare_state(ref, ours.unwrapped.get_state(), f"{label} step {t}")
        if out_ref[2] or out_ref[3]:
            _check(ref.reset(), ours.reset(), f"{label} step {t} unseeded reset")
            h.compare_state(ref, ours.unwrapped.get_state(), f"{label} step {t} unseeded reset")


def test_every_minigrid_wrapper_has_its_arguments_and_a_batched_equivalent():
    assert len(MINIGRID_WRAPPERS) >= 15, sorted(MINIGRID_WRAPPERS)
    missing = sorted(set(MINIGRID_WRAPPERS) - set(ARGUMENTS))
    assert not missing, f"Minigrid wrappers without arguments in ARGUMENTS (this file): {missing}"
    missing = sorted(set(MINIGRID_WRAPPERS) - set(BATCHED))
    assert not missing, (f"Minigrid wrappers without a batched equivalent in BATCHED (this file), "
                         f"gridsim/minigrid/wrappers.py and docs/minigrid.md's table: {missing}")


def test_docs_table_gives_every_wrapper_its_batched_equivalent():
    text = (Path(__file__).resolve().parents[2] / "docs" / "minigrid.md").read_text()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)[^|]*\| works as is \| ([^|]+)\|", text, re.M)}
    for wrapper, (make_kwargs, batch_wrapper) in BATCHED.items():
        assert wrapper in rows, f"docs/minigrid.md's wrapper table has no row for {wrapper}"
        for key, value in make_kwargs.items():
            assert key == "tile_size" or f"{key}=" in rows[wrapper], (wrapper, key, rows[wrapper])
            assert not isinstance(value, str) or value in rows[wrapper], (wrapper, value, rows[wrapper])
        if batch_wrapper is not None:
            assert f"wrappers.{batch_wrapper.__name__}(" in rows[wrapper], (wrapper, rows[wrapper])


@pytest.mark.parametrize("wrapper", sorted(MINIGRID_WRAPPERS))
def test_minigrids_wrapper_on_the_single_env_matches_minigrid(wrapper):
    cls, kwargs = MINIGRID_WRAPPERS[wrapper], ARGUMENTS.get(wrapper, {})
    for k, name in enumerate(IDS):
        ref, ours = _wrapped(name, lambda env: cls(env, **kwargs))
        _play(ref, ours, 40 + k, 60, f"{wrapper} on {name}")


@pytest.mark.slow
@pytest.mark.parametrize("wrapper", sorted(MINIGRID_WRAPPERS))
def test_minigrids_wrapper_on_the_single_env_matches_minigrid_long(wrapper):
    cls, kwargs = MINIGRID_WRAPPERS[wrapper], ARGUMENTS.get(wrapper, {})
    for seed, name in enumerate([*IDS, "MiniGrid-LavaGapS7-v0", "MiniGrid-Dynamic-Obstacles-Random-6x6-v0",
                                 "MiniGrid-FourRooms-v0"]):
        ref, ours = _wrapped(name, lambda env: cls(env, **kwargs))
        _play(ref, ours, seed, 200, f"{wrapper} on {name}")


COMPOSITIONS: dict[str, Callable[[gym.Env], gym.Env]] = {
    "ImgObsWrapper(RGBImgPartialObsWrapper)": lambda env: mw.ImgObsWrapper(mw.RGBImgPartialObsWrapper(env, 3)),
    "ImgObsWrapper(RGBImgObsWrapper)": lambda env: mw.ImgObsWrapper(mw.RGBImgObsWrapper(env, 2)),
    "FlatObsWrapper(ViewSizeWrapper)": lambda env: mw.FlatObsWrapper(mw.ViewSizeWrapper(env, 5)),
    "ImgObsWrapper(FullyObsWrapper)": lambda env: mw.ImgObsWrapper(mw.FullyObsWrapper(env)),
    "OneHotPartialObsWrapper(ViewSizeWrapper)": lambda env: mw.OneHotPartialObsWrapper(mw.ViewSizeWrapper(env, 3)),
    "NoDeath(StochasticActionWrapper(PositionBonus))": lambda env: mw.NoDeath(
        mw.StochasticActionWrapper(mw.PositionBonus(env), prob=0.5), ("lava",)),
    "DirectionObsWrapper(ActionBonus(ReseedWrapper))": lambda env: mw.DirectionObsWrapper(
        mw.ActionBonus(mw.ReseedWrapper(env, seeds=(1, 2))), type="slope"),
    "SymbolicObsWrapper(StickyAction)": lambda env: mw.SymbolicObsWrapper(gym.wrappers.StickyAction(env, 0.3)),
}


@pytest.mark.parametrize("composition", sorted(COMPOSITIONS))
def test_compositions_of_minigrids_wrappers_match_minigrid(composition):
    ref, ours = _wrapped("MiniGrid-LavaCrossingS9N1-v0", COMPOSITIONS[composition])
    _play(ref, ours, 7, 80, composition)


# --------------------------------------------------------------------------- batches


def _batch_pair(wrapper: str, name: str, mode: str, num_envs: int = 4) -> tuple[gym.vector.VectorEnv, Any]:
    """SyncVectorEnv of Minigrid's wrapped envs, and the gridsim batch with the wrapper's equivalent."""
    cls, kwargs = MINIGRID_WRAPPERS[wrapper], ARGUMENTS[wrapper]
    ref = gym.make_vec(name, num_envs=num_envs, vectorization_mode="sync", max_steps=MAX_STEPS,
                       vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode(mode)},
                       wrappers=[lambda env: cls(env, **kwargs)])
    make_kwargs, batch_wrapper = BATCHED[wrapper]

    def build():
        envs = gym.make_vec("gridsim/" + name, num_envs=num_envs, vectorization_mode="vector_entry_point",
                            autoreset_mode=mode, max_episode_steps=MAX_STEPS, **make_kwargs)
        return envs if batch_wrapper is None else batch_wrapper(envs, **kwargs)

    return ref, build


def _play_batches(ref: gym.vector.VectorEnv, ours: gym.vector.VectorEnv, mode: str, seed: int, steps: int,
                  label: str):
    rng = np.random.default_rng([seed, 23])
    n = int(ref.single_action_space.n)
    out_ref, out_ours = ref.reset(seed=seed), ours.reset(seed=seed)
    _check(out_ref[0], out_ours[0], f"{label} reset observation")
    for t in range(steps):
        actions = np.where(rng.random(ref.num_envs) < 0.5, 2, rng.integers(0, n, ref.num_envs))
        out_ref, out_ours = ref.step(actions), ours.step(actions)
        for k, what in enumerate(("observations", "rewards", "terminations", "truncations")):
            _check(out_ref[k], out_ours[k], f"{label} step {t} {what}")
        if mode == "SameStep":
            _check(out_ref[4].get("final_obs"), out_ours[4].get("final_obs"), f"{label} step {t} final_obs")
        for i in range(ref.num_envs):
            h.compare_state(ref.envs[i], ours.unwrapped.get_state(i), f"{label} step {t} env {i}")
        ended = out_ref[2] | out_ref[3]
        if mode == "Disabled" and ended.any():
            reseed = None if t % 2 else seed + 100 + t
            out_ref = ref.reset(seed=reseed, options={"reset_mask": ended.copy()})
            out_ours = ours.reset(seed=reseed, options={"reset_mask": ended.copy()})
            _check(out_ref[0], out_ours[0], f"{label} step {t} masked reset")


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize("wrapper", sorted(MINIGRID_WRAPPERS))
def test_the_batched_equivalent_matches_sync_vector_env(wrapper, mode):
    name = IDS[sorted(MINIGRID_WRAPPERS).index(wrapper) % 2]  # lava or balls, goals: NoDeath's and DirectionObs's
    ref, build = _batch_pair(wrapper, name, mode)
    if mode == "SameStep" and wrapper in AFTER_STEP_ONLY:
        with pytest.raises(InvalidArgumentError, match="NextStep"):  # gridsim's own line, on every gymnasium
            build()
        return
    _play_batches(ref, build(), mode, 50, 60, f"{wrapper} on a batch of {name} ({mode})")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize("wrapper", sorted(MINIGRID_WRAPPERS))
def test_the_batched_equivalent_matches_sync_vector_env_long(wrapper, mode):
    if mode == "SameStep" and wrapper in AFTER_STEP_ONLY:
        pytest.skip("refused (tested in the fast set)")
    for seed, name in enumerate(IDS):
        ref, build = _batch_pair(wrapper, name, mode, num_envs=5)
        _play_batches(ref, build(), mode, seed, 150, f"{wrapper} on a batch of {name} ({mode})")


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_sticky_actions_on_a_batch_are_gymnasiums_on_each_env(mode):
    name = "MiniGrid-Dynamic-Obstacles-Random-6x6-v0"
    ref = gym.make_vec(name, num_envs=4, vectorization_mode="sync", max_steps=MAX_STEPS,
                       vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode(mode)},
                       wrappers=[lambda env: gym.wrappers.StickyAction(env, 0.4, (1, 3))])
    ours = gw.StickyActions(gym.make_vec("gridsim/" + name, num_envs=4, vectorization_mode="vector_entry_point",
                                         autoreset_mode=mode, max_episode_steps=MAX_STEPS), 0.4, (1, 3))
    _play_batches(ref, ours, mode, 3, 120, f"StickyAction on a batch ({mode})")


def test_a_batched_wrapper_needs_a_minigrid_batch_and_its_observation():
    with pytest.raises(ArgumentTypeError, match="MiniGrid"):
        gw.ActionBonus(gym.make_vec("CartPole-v1", num_envs=2))
    image_only = gym.make_vec("gridsim/MiniGrid-DoorKey-5x5-v0", num_envs=2, vectorization_mode="vector_entry_point",
                              obs_type="image")
    with pytest.raises(InvalidArgumentError, match="dict observation"):
        gw.SymbolicObs(image_only)
    indices = gym.make_vec("gridsim/MiniGrid-DoorKey-5x5-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           mission_format="index")
    with pytest.raises(InvalidArgumentError, match="mission_format"):
        gw.FlatObs(indices)
    with pytest.raises(InvalidArgumentError, match="goal"):
        gw.NoDeath(indices, ("goal",))
