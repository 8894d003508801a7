"""Smoke test of an installed gridsim wheel: import, make and step each family, bench a tiny run.

Run from outside the source folder, so that the installed package is the one imported.
"""

import subprocess
import sys

import gymnasium as gym
import numpy as np

import gridsim
import gridsim._core as core
from gridsim.families import FAMILIES

assert "site-packages" in gridsim.__file__, f"not the installed wheel: {gridsim.__file__}"
assert core.THREADS, "the wheel's kernel was built without threads"
print(f"gridsim {gridsim.__version__} from {gridsim.__file__}, kernel threads available")

ids = gridsim.registered_ids()
for fam in FAMILIES.values():
    env_id = next(i for i in ids if gym.spec(i).vector_entry_point.endswith(fam.vector_env.__name__))
    envs = gym.make_vec(env_id, num_envs=4096, num_threads=2)  # large enough to run on both threads
    envs.reset(seed=0)
    for _ in range(3):
        obs, rewards, terminations, truncations, infos = envs.step(envs.action_space.sample())
    assert rewards.shape == (4096,) and np.isfinite(rewards).all()
    envs.close()
    env = gym.make(env_id)
    env.reset(seed=0)
    env.step(env.action_space.sample())
    env.close()
    print(f"ok  {fam.name:<8} {env_id}")

subprocess.run([sys.executable, "-m", "gridsim.cli", "bench", "--num-envs", "256", "--steps", "10", "--repeats", "1",
                "--obs", "coords"], check=True)
