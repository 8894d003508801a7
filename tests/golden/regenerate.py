"""Regenerate the golden trajectories in this folder.

Run from anywhere::

    python tests/golden/regenerate.py

Each file ``nav_<stem>_s<seed>.npz`` pins one rollout of a NavVectorEnv on one of the
seven original PixelWorld maps: the level, alphabet and settings, the actions, and
every output of every step (observations, a SHA-256 digest of each step's image
observations, rewards and both flags). ``tests/test_golden.py`` replays the stored
actions and compares exactly.

Only regenerate when a change of behaviour is intended (for example a new RNG
generator, which needs a new major version), review the diff of the outputs, and
commit the new files together with the change that caused them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("gridsim") is None:  # a source checkout that is not installed
    sys.path.insert(0, str(HERE.parents[1]))

from gridsim.envs import NavVectorEnv  # noqa: E402

FORMAT_VERSION = 1
SEED = 0
NUM_ENVS = 4
STEPS = 200
MAX_EPISODE_STEPS = 100
AUTORESET_MODE = "NextStep"

# The original maps and the alphabet of the PixelWorld id that uses them
# (room1 has no id and uses the default alphabet).
MAPS = {
    "room1": "navigation",
    "room1_small": "navigation",
    "room2_small": "noisy",
    "room3_small": "noisy",
    "room4_small": "noisy",
    "room5_medium": "noisy",
    "room5_medium_walls": "noisy",
}


def golden_path(stem: str, seed: int = SEED) -> Path:
    """Where the golden file of a map lives."""
    return HERE / f"nav_{stem}_s{seed}.npz"


def make_actions(seed: int = SEED, steps: int = STEPS, num_envs: int = NUM_ENVS) -> np.ndarray:
    """The actions of a golden rollout: ``(steps, num_envs) int64`` from ``default_rng(seed)``."""
    return np.random.default_rng(seed).integers(0, 4, size=(steps, num_envs), dtype=np.int64)


def make_env(level: str, alphabet: str, num_envs: int, max_episode_steps: int,
             autoreset_mode: str, obs_type: str) -> NavVectorEnv:
    """The env of a golden rollout."""
    return NavVectorEnv(num_envs, level=level, alphabet=alphabet, obs_type=obs_type,
                        max_episode_steps=max_episode_steps, autoreset_mode=autoreset_mode)


def rollout(level: str, alphabet: str, seed: int, actions: np.ndarray, max_episode_steps: int,
            autoreset_mode: str) -> dict[str, np.ndarray]:
    """Play ``actions`` on a coords env and, in lockstep, an image env; return every output."""
    num_envs = actions.shape[1]
    envs = make_env(level, alphabet, num_envs, max_episode_steps, autoreset_mode, "coords")
    images = make_env(level, alphabet, num_envs, max_episode_steps, autoreset_mode, "image")
    reset_obs, _ = envs.reset(seed=seed)
    reset_image, _ = images.reset(seed=seed)
    obs, digests, rewards, terms, truncs = [], [], [], [], []
    for a in actions:
        o, r, te, tr, _ = envs.step(a)
        img, r2, te2, tr2, _ = images.step(a)
        # Both envs follow the same dynamics; only the observation type differs.
        np.testing.assert_array_equal(r, r2)
        np.testing.assert_array_equal(te, te2)
        np.testing.assert_array_equal(tr, tr2)
        obs.append(o)
        digests.append(np.frombuffer(hashlib.sha256(img.tobytes()).digest(), np.uint8))
        rewards.append(r)
        terms.append(te)
        truncs.append(tr)
    envs.close()
    images.close()
    return {
        "reset_obs": reset_obs,
        "reset_image_sha256": np.frombuffer(hashlib.sha256(reset_image.tobytes()).digest(),
                                            np.uint8),
        "obs": np.stack(obs),
        "image_sha256": np.stack(digests),
        "rewards": np.stack(rewards),
        "terminations": np.stack(terms),
        "truncations": np.stack(truncs),
    }


def generate(stem: str, seed: int = SEED) -> dict[str, np.ndarray]:
    """Everything a golden file holds, freshly computed."""
    level, alphabet = f"nav/{stem}", MAPS[stem]
    actions = make_actions(seed)
    data = {
        "format_version": np.array(FORMAT_VERSION, np.int64),
        "level": np.array(level),
        "alphabet": np.array(alphabet),
        "seed": np.array(seed, np.int64),
        "num_envs": np.array(actions.shape[1], np.int64),
        "max_episode_steps": np.array(MAX_EPISODE_STEPS, np.int64),
        "autoreset_mode": np.array(AUTORESET_MODE),
        "actions": actions,
    }
    data.update(rollout(level, alphabet, seed, actions, MAX_EPISODE_STEPS, AUTORESET_MODE))
    return data


def main() -> None:
    """Write every golden file and print a one-line summary of each."""
    for stem in MAPS:
        data = generate(stem)
        path = golden_path(stem)
        np.savez_compressed(path, **data)
        ends = int((data["terminations"] | data["truncations"]).sum())
        print(f"{path.name}: {path.stat().st_size} bytes, return sum "
              f"{float(data['rewards'].sum()):.6f}, {ends} episode ends")


if __name__ == "__main__":
    main()
