"""Policy files (``--policy run.pt``): what loading one may run, and the checks before any episode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import gridsim
from gridsim.tools.policies import load_policy

torch = pytest.importorskip("torch")
from gridsim.tools import torch_agent  # noqa: E402 - needs torch
from gridsim.tools.torch_agent import Agent, ObsEncoder  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.jit's notices

GRIDSIM_HOME = str(Path(gridsim.__file__).resolve().parents[1])
SMALL = "gridsim/Nav-room1_small-v0"  # coordinates in 0..5, Discrete(4)


class _WritesMarker:
    """Unpickling it writes a file: what a crafted policy file can do (any code would run the same way)."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('ran')",)


def crafted_policy_file(tmp_path: Path) -> tuple[Path, Path]:
    """A module saved whole whose unpickling writes a marker file; the file and the marker's path."""
    net = torch.nn.Linear(2, 4)
    net.payload = _WritesMarker(tmp_path / "marker")
    path = tmp_path / "crafted.pt"
    torch.save(net, path)
    return path, tmp_path / "marker"


def saved_agent(tmp_path: Path, env_id: str, action_space: gym.Space | None = None, name: str = "agent.pt") -> Path:
    """An untrained agent for ``env_id``'s observations (and ``action_space``, default the env's), saved."""
    envs = gym.make_vec(env_id, num_envs=1, vectorization_mode="vector_entry_point")
    torch.manual_seed(0)
    agent = Agent(ObsEncoder.from_env(envs), action_space or envs.single_action_space, 8)
    envs.close()
    torch_agent.save_agent(tmp_path / name, agent)
    return tmp_path / name


def test_a_policy_file_of_pickled_objects_is_refused_unless_trusted(tmp_path):
    path, marker = crafted_policy_file(tmp_path)
    with pytest.raises(gridsim.InvalidArgumentError) as exc:
        load_policy(str(path))
    message = str(exc.value)
    assert len(message.splitlines()) == 1, message
    assert "--trust-pickle" in message and "GRIDSIM_TRUST_PICKLE=1" in message and "trust_pickle=True" in message
    assert "holds pickled Python objects (torch.nn.modules.linear.Linear)" in message
    assert not marker.exists()
    # Opted in, it is unpickled as before: the payload runs and the module is the policy.
    policy = load_policy(str(path), trust_pickle=True)
    assert marker.read_text() == "ran" and isinstance(policy, torch.nn.Linear)
    with pytest.raises(gridsim.InvalidArgumentError, match="trust_pickle must be True or False"):
        load_policy(str(path), trust_pickle="yes")


def test_torchscript_and_the_agent_checkpoint_need_no_opt_in(tmp_path):
    net = torch.nn.Linear(2, 4)
    torch.jit.save(torch.jit.script(net), tmp_path / "script.pt")
    assert isinstance(load_policy(str(tmp_path / "script.pt")), torch.jit.ScriptModule)
    assert isinstance(load_policy(str(saved_agent(tmp_path, SMALL))), torch_agent.CheckpointPolicy)


def run_gridsim(tmp_path: Path, *args: str, trust_env: bool = False) -> subprocess.CompletedProcess:
    """``gridsim <args>`` in a process of its own (a policy file that runs code runs it there)."""
    env = {k: v for k, v in os.environ.items() if k != "GRIDSIM_TRUST_PICKLE"}
    env["PYTHONPATH"] = GRIDSIM_HOME
    if trust_env:
        env["GRIDSIM_TRUST_PICKLE"] = "1"
    return subprocess.run([sys.executable, "-m", "gridsim.cli", *args], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=300)


def test_gridsim_eval_and_render_unpickle_a_policy_file_only_with_the_flag_and_the_variable(tmp_path):
    path, marker = crafted_policy_file(tmp_path)
    evaluation = ("eval", SMALL, "--policy", str(path), "--seeds", "0:3", "--no-progress")
    refused = [
        (run_gridsim(tmp_path, *evaluation), "--trust-pickle"),
        (run_gridsim(tmp_path, *evaluation, trust_env=True), "--trust-pickle"),
        (run_gridsim(tmp_path, *evaluation, "--trust-pickle"), "GRIDSIM_TRUST_PICKLE=1"),
        (run_gridsim(tmp_path, "render", SMALL, "--policy", str(path), "--out", "x.gif"), "--trust-pickle"),
    ]
    for run, names in refused:
        assert run.returncode == 2, run.stderr
        assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith(f"gridsim {run.args[3]}: error: "), \
            run.stderr
        assert names in run.stderr and "GRIDSIM_TRUST_PICKLE" in run.stderr, run.stderr
        assert not marker.exists()
    trusted = run_gridsim(tmp_path, *evaluation, "--trust-pickle", trust_env=True)
    assert trusted.returncode == 0, trusted.stderr
    assert marker.exists() and trusted.stdout.startswith(f"{SMALL}: policy ")
