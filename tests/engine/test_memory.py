"""A batch's memory is counted before it is allocated, and only what its autoreset mode uses is.

A batch bigger than the process can be given (``gridsim.engine.memory.memory_limit``: the
memory available, a cgroup's limit, ``RLIMIT_AS``) is refused with ``InvalidArgumentError``
naming ``num_envs``, the observation and the size, before any array exists: it was numpy's bare
``MemoryError`` (293 GiB of ``rgb_full`` observations) or, in a container, the kernel's OOM
killer. The refusals run in a subprocess under ``RLIMIT_AS``, so that a regression fails with a
``MemoryError`` there instead of taking the machine's memory. Final observations are written
under SAME_STEP only, so the other modes allocate none; the kernel refuses to switch to SAME_STEP
without them (it would write past the buffer).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS, make_vec, sample_actions
from gymnasium.vector import AutoresetMode

import gridsim._core as _core
from gridsim.engine.memory import format_bytes, memory_limit
from gridsim.minigrid.env import MinigridVectorEnv

FIRST_IDS = [pytest.param(ids[0], id=name) for name, ids in FAMILY_IDS.items()]
RGB_FULL_64 = dict(env_name="MiniGrid-Empty-16x16-v0", obs_type="rgb_full", tile_size=64)  # 3 MiB an env


def run_limited(script: str, room: int, tmp_path) -> subprocess.CompletedProcess:
    """Run ``script`` in a fresh Python whose address space may grow by ``room`` bytes past its size after imports."""
    prelude = textwrap.dedent(f"""
        import os, resource
        import gridsim
        from gridsim.errors import InvalidArgumentError
        from gridsim.minigrid.env import MinigridVectorEnv
        size = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (size + {room}, resource.getrlimit(resource.RLIMIT_AS)[1]))
        RGB_FULL_64 = {RGB_FULL_64!r}
    """)
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(script)], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)


needs_rlimit = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc/self/statm")


@needs_rlimit
def test_a_batch_bigger_than_the_address_space_left_is_refused_before_allocating(tmp_path):
    out = run_limited("""
        for n in (100_000, 1_000):  # 293 GiB, 2.9 GiB: both past the 1 GiB left
            try:
                MinigridVectorEnv(n, **RGB_FULL_64)
            except InvalidArgumentError as e:
                print("refused", e)
        envs = MinigridVectorEnv(16, **RGB_FULL_64)  # 48 MiB: fits
        envs.reset(seed=0)
        envs.step(envs.action_space.sample())
        print("stepped", envs.state.obs.shape)
    """, 1 << 30, tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert len(lines) == 3, out.stdout
    assert lines[0].startswith("refused num_envs=100000 with observations of uint8 (1024, 1024, 3) needs 293.1 GiB")
    assert lines[1].startswith("refused num_envs=1000 with observations of uint8 (1024, 1024, 3) needs 2.9 GiB")
    for line in lines[:2]:
        assert "3.0 MiB per env" in line and "obs: " in line and "under RLIMIT_AS" in line
    assert lines[2] == "stepped (16, 1024, 1024, 3)"


@needs_rlimit
def test_a_batch_bigger_than_its_cgroup_allows_is_refused(tmp_path):
    (tmp_path / "memory.max").write_text(f"{2 << 30}\n")  # a container of 2 GiB, half a GiB of it in use
    (tmp_path / "memory.current").write_text(f"{1 << 29}\n")
    out = run_limited(f"""
        from gridsim.engine import memory
        memory.CGROUP_FILES = (({str(tmp_path / "memory.max")!r}, {str(tmp_path / "memory.current")!r}),)
        print(memory.memory_limit())
        try:
            MinigridVectorEnv(1_000, **RGB_FULL_64)  # 2.9 GiB
        except InvalidArgumentError as e:
            print("refused", e)
    """, 4 << 30, tmp_path)  # a regression would fail with MemoryError, not take the machine's memory
    assert out.returncode == 0, out.stderr[-3000:]
    limit, refused = out.stdout.splitlines()
    assert limit == f"MemoryLimit(available={3 << 29}, source=\"the room left under the cgroup's memory limit\")"
    assert refused.startswith("refused num_envs=1000 ") and "1.5 GiB, the room left under the cgroup's" in refused


def test_memory_limit_is_known_here_and_formatted_for_people():
    limit = memory_limit()
    assert limit is not None and limit.available > 0
    assert [format_bytes(n) for n in (512, 12 << 10, 3 << 20, 293 << 30, 2 << 40)] == [
        "512 bytes", "12.0 KiB", "3.0 MiB", "293.0 GiB", "2.0 TiB"]


@pytest.mark.parametrize("env_id", FIRST_IDS)
def test_final_observations_have_rows_only_under_same_step(env_id):
    sizes = {}
    for mode in AutoresetMode:
        envs = make_vec(env_id, 4, autoreset_mode=mode)
        final_rows = envs.num_envs if mode is AutoresetMode.SAME_STEP else 0
        assert envs.state.final_obs.shape == (final_rows, *envs.state.obs.shape[1:]), mode
        assert envs.kernel.final_rows == final_rows
        sizes[mode] = envs.state.nbytes_per_env()
        envs.close()
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED):
        assert sizes[mode] < sizes[AutoresetMode.SAME_STEP]


def test_a_next_step_rgb_batch_allocates_no_final_observations():
    next_step = MinigridVectorEnv(8, env_name="MiniGrid-DoorKey-8x8-v0", obs_type="rgb")
    same_step = MinigridVectorEnv(8, env_name="MiniGrid-DoorKey-8x8-v0", obs_type="rgb", autoreset_mode="SameStep")
    image = 7 * 8 * 7 * 8 * 3  # the 7x7 view, 8 pixels a cell
    assert same_step.state.nbytes_per_env() - next_step.state.nbytes_per_env() == image
    assert next_step.state.nbytes_per_env() < 0.55 * same_step.state.nbytes_per_env()


CHANGE_MODE = """
import numpy as np
import gymnasium as gym
import gridsim._core as core
from gridsim.errors import InvalidArgumentError
envs = gym.make_vec({env_id!r}, num_envs=4, vectorization_mode="vector_entry_point",
                    max_episode_steps=3).unwrapped
envs.reset(seed=0)
for mode in (core.AUTORESET_SAME_STEP, 7, -1):
    try:
        envs.kernel.autoreset_mode = mode
    except InvalidArgumentError as e:
        print("refused", mode)
assert envs.kernel.autoreset_mode == core.AUTORESET_NEXT_STEP
envs.action_space.seed(0)
for _ in range(12):  # episodes end on every third step; nothing writes final observations
    envs.step(envs.action_space.sample())
envs.kernel.autoreset_mode = core.AUTORESET_DISABLED  # what advance() does, and back
envs.kernel.autoreset_mode = core.AUTORESET_NEXT_STEP
print("stepped")
"""


@pytest.mark.parametrize("env_id", FIRST_IDS)
def test_the_kernel_refuses_same_step_without_rows_for_final_observations(env_id, tmp_path):
    # In a subprocess: without the check, the kernel would write final observations past the buffer.
    out = subprocess.run([sys.executable, "-c", CHANGE_MODE.format(env_id=env_id)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["refused", str(_core.AUTORESET_SAME_STEP), "refused", "7", "refused", "-1",
                                  "stepped"]


@pytest.mark.parametrize("env_id", FIRST_IDS)
def test_same_step_writes_final_observations_into_its_rows(env_id):
    envs = make_vec(env_id, 4, autoreset_mode="SameStep", max_episode_steps=2)
    envs.reset(seed=1)
    ended_any = False
    for actions in sample_actions(envs, 4, seed=2):
        _, _, terminated, truncated, infos = envs.step(actions)
        ended = terminated | truncated
        if ended.any():
            ended_any = True
            assert infos["_final_obs"].tolist() == ended.tolist()
            assert all(infos["final_obs"][i] is not None for i in np.flatnonzero(ended))
    assert ended_any
    assert envs.kernel.autoreset_mode == _core.AUTORESET_SAME_STEP
