"""Golden trajectories: replay the stored actions and compare every output exactly.

The files ``tests/golden/nav_<stem>_s<seed>.npz`` are written by
``tests/golden/regenerate.py`` (run it as ``python tests/golden/regenerate.py``). They
pin the RNG (keys, episode and table streams), the reward tables, the dynamics and
the image rendering. A failure here means behaviour changed: if that is intended,
review the change, rerun the script and commit the new files with it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from gridsim.engine.rng import derive_keys
from gridsim.nav.level import load_nav_level
from gridsim.reference.nav import draw_reward_table, nav_reset, nav_step

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
SCRIPT = GOLDEN_DIR / "regenerate.py"
MAX_FILE_BYTES = 50_000


def _load_script():
    spec = importlib.util.spec_from_file_location("gridsim_golden_regenerate", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regen = _load_script()
STEMS = sorted(regen.MAPS)

HOW_TO_FIX = (
    "If this change of behaviour is intended, review it, then run "
    "`python tests/golden/regenerate.py` and commit the regenerated files with the change."
)


def load_golden(stem: str) -> dict[str, np.ndarray]:
    path = regen.golden_path(stem)
    assert path.is_file(), f"missing golden file {path}. {HOW_TO_FIX}"
    with np.load(path, allow_pickle=False) as f:
        data = {k: f[k] for k in f.files}
    assert int(data["format_version"]) == regen.FORMAT_VERSION, (
        f"{path.name} has format_version {int(data['format_version'])}, the script writes "
        f"{regen.FORMAT_VERSION}. {HOW_TO_FIX}"
    )
    return data


def assert_same(path_name: str, key: str, stored: np.ndarray, now: np.ndarray):
    """Exact equality with dtype and shape, and a message that points at the first difference."""
    where = f"golden trajectory {path_name}, field {key!r}"
    assert stored.dtype == now.dtype, f"{where}: dtype {stored.dtype} now {now.dtype}. {HOW_TO_FIX}"
    assert stored.shape == now.shape, f"{where}: shape {stored.shape} now {now.shape}. {HOW_TO_FIX}"
    if key == "rewards":  # bit-exact, so -0.0 and 0.0 differ and NaN equals NaN
        differ = stored.view(np.uint32) != now.view(np.uint32)
    else:
        differ = stored != now
    if differ.any():
        idx = tuple(int(v) for v in np.argwhere(differ)[0])
        first = {"step": idx[0], "env": idx[1]} if stored.ndim >= 2 else {"index": idx}
        raise AssertionError(
            f"{where} changed at {first} ({int(differ.sum())} values differ): stored "
            f"{stored[idx[:2]]!r}, now {now[idx[:2]]!r}. {HOW_TO_FIX}"
        )


def test_golden_files_exist_for_every_original_map_and_are_small():
    expected = {regen.golden_path(stem).name for stem in STEMS}
    present = {p.name for p in GOLDEN_DIR.glob("nav_*.npz")}
    assert expected <= present, f"missing golden files {sorted(expected - present)}. {HOW_TO_FIX}"
    assert len(STEMS) == 7
    for name in expected:
        size = (GOLDEN_DIR / name).stat().st_size
        assert size < MAX_FILE_BYTES, f"{name} is {size} bytes"


@pytest.mark.parametrize("stem", STEMS)
def test_golden_file_header_matches_the_script(stem):
    data = load_golden(stem)
    assert str(data["level"]) == f"nav/{stem}"
    assert str(data["alphabet"]) == regen.MAPS[stem]
    assert int(data["seed"]) == regen.SEED
    assert int(data["num_envs"]) == regen.NUM_ENVS
    assert int(data["max_episode_steps"]) == regen.MAX_EPISODE_STEPS
    assert str(data["autoreset_mode"]) == regen.AUTORESET_MODE
    actions = data["actions"]
    assert actions.dtype == np.int64 and actions.shape == (regen.STEPS, regen.NUM_ENVS)
    assert data["obs"].dtype == np.int32 and data["obs"].shape == (regen.STEPS, regen.NUM_ENVS, 2)
    assert data["rewards"].dtype == np.float32
    assert data["terminations"].dtype == np.bool_ and data["truncations"].dtype == np.bool_
    assert data["image_sha256"].dtype == np.uint8 and data["image_sha256"].shape == (regen.STEPS, 32)


@pytest.mark.parametrize("stem", STEMS)
def test_golden_trajectory_replays_exactly(stem):
    data = load_golden(stem)
    now = regen.rollout(str(data["level"]), str(data["alphabet"]), int(data["seed"]),
                        data["actions"], int(data["max_episode_steps"]),
                        str(data["autoreset_mode"]))
    name = regen.golden_path(stem).name
    for key in ("reset_obs", "reset_image_sha256", "obs", "image_sha256", "rewards",
                "terminations", "truncations"):
        assert_same(name, key, data[key], now[key])


@pytest.mark.parametrize("stem", STEMS)
def test_golden_trajectory_agrees_with_the_reference_stepper(stem):
    """The stored outputs are also what the pure-Python reference computes (NEXT_STEP)."""
    data = load_golden(stem)
    level = load_nav_level(str(data["level"]), alphabet=str(data["alphabet"]))
    seed, n = int(data["seed"]), int(data["num_envs"])
    max_steps = int(data["max_episode_steps"])
    keys = derive_keys([seed + i for i in range(n)])
    envs = []
    for i in range(n):
        env = {"key": (int(keys[i, 0]), int(keys[i, 1])), "episode": 0}
        env["table"] = draw_reward_table(level, env["key"])
        envs.append(nav_reset(level, env))
    np.testing.assert_array_equal(data["reset_obs"], [list(e["pos"]) for e in envs])
    for t, actions in enumerate(data["actions"]):
        for i, env in enumerate(envs):
            if env["needs_reset"]:
                env["episode"] += 1
                nav_reset(level, env)
                reward, term, trunc = np.float32(0.0), False, False
            else:
                reward, term, trunc = nav_step(level, env, actions[i], max_steps=max_steps)
                env["needs_reset"] = term or trunc
            where = f"{stem}: step {t}, env {i}"
            assert tuple(data["obs"][t, i]) == env["pos"], where
            assert data["rewards"][t, i] == reward, where
            assert data["terminations"][t, i] == term, where
            assert data["truncations"][t, i] == trunc, where
