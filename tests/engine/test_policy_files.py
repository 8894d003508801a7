"""Policy files (``--policy run.pt``): what loading one may run, and the checks before any episode."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import gridsim
from gridsim.cli import main
from gridsim.tools.policies import load_policy

torch = pytest.importorskip("torch")
from gridsim.tools import torch_agent  # noqa: E402 - needs torch
from gridsim.tools.torch_agent import Agent, ObsEncoder  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.jit's notices

GRIDSIM_HOME = str(Path(gridsim.__file__).resolve().parents[1])
SMALL = "gridsim/Nav-room1_small-v0"  # coordinates in 0..5, Discrete(4)
LARGE = "gridsim/Nav-four_rooms-v0"  # coordinates in 0..12, Discrete(4)


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
# --------------------------------------------------------------------------- what a checkpoint was trained on


def assert_refused_before_any_episode(path: Path, env_id: str, match: str, capsys) -> None:
    """``gridsim.evaluate`` and ``gridsim eval`` (greedy and sampled) refuse the checkpoint on ``env_id``."""
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
    envs.reset(seed=5)
    before = envs.unwrapped.state_dict()
    agent = torch_agent.load_agent(path)
    for policy in (load_policy(str(path)), load_policy(str(path)).sampled(0), agent.greedy,
                   torch_agent.SampledPolicy(agent)):
        with pytest.raises(gridsim.InvalidArgumentError, match=re.escape(match)) as exc:
            gridsim.evaluate(policy, envs, range(4))
        assert len(str(exc.value).splitlines()) == 1
    after = envs.unwrapped.state_dict()
    assert all(np.array_equal(before[k], after[k]) for k in before)  # never reset nor stepped
    envs.close()
    for extra in ([], ["--sample"]):
        out = path.with_suffix(".csv")
        assert main(["eval", env_id, "--policy", str(path), "--seeds", "0:4", "--out", str(out), *extra]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and err.startswith("gridsim eval: error: ") and match in err, err
        assert not out.exists()


@pytest.mark.parametrize("n", [2, 7])
def test_a_checkpoint_of_other_actions_is_refused(tmp_path, capsys, n):
    path = saved_agent(tmp_path, SMALL, gym.spaces.Discrete(n))
    assert_refused_before_any_episode(path, SMALL, f"trained on actions Discrete({n}); this env's are Discrete(4)",
                                      capsys)


def test_a_checkpoint_whose_observations_the_env_leaves_is_refused(tmp_path, capsys):
    small = saved_agent(tmp_path, SMALL, name="small.pt")
    assert_refused_before_any_episode(small, LARGE, "trained on observations with values in [0, 5]; this env's "
                                      "are in [0, 12]", capsys)
    # The other way round every observation is one the network encodes: it runs.
    large = saved_agent(tmp_path, LARGE, name="large.pt")
    assert len(gridsim.evaluate(load_policy(str(large)), SMALL, range(3))) == 3


def test_a_checkpoint_with_non_finite_weights_is_refused(tmp_path, capsys):
    envs = gym.make_vec(SMALL, num_envs=1, vectorization_mode="vector_entry_point")
    agent = Agent(ObsEncoder.from_env(envs), envs.single_action_space, 8)
    envs.close()
    for value in (float("nan"), float("inf")):
        with torch.no_grad():
            agent.actor[0].weight[0, 0] = value
        path = tmp_path / f"diverged-{value}.pt"
        torch_agent.save_agent(path, agent)
        with pytest.raises(gridsim.InvalidStateError, match=r"non-finite weights \(NaN or infinity\) in "
                                                            r"actor\.0\.weight") as exc:
            load_policy(str(path))
        assert len(str(exc.value).splitlines()) == 1 and exc.value.field == "state_dict"
        with pytest.raises(gridsim.InvalidStateError, match="non-finite"):
            torch_agent.load_agent(path)
        for extra in ([], ["--sample"]):
            assert main(["eval", SMALL, "--policy", str(path), "--seeds", "0:2", *extra]) == 2
            err = capsys.readouterr().err
            assert len(err.splitlines()) == 1 and "non-finite weights" in err, err
