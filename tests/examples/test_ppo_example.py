"""examples/ppo.py runs end to end on a tiny budget (a smoke test; the real runs are in examples/README.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gridsim

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
GRIDSIM_HOME = Path(gridsim.__file__).resolve().parents[1]  # the build this test imported


def run_ppo(*args: str, tmp_path: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "examples/ppo.py", "--num-envs", "8", "--num-steps", "16", "--total-timesteps", "512",
         "--eval-seeds", "20", "--checkpoint", str(tmp_path / "model.pt"), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])  # the last line is the JSON summary
    assert {"env_id", "success_rate", "mean_return", "sps", "env_share"} <= result.keys()
    assert 0.0 <= result["success_rate"] <= 1.0 and result["eval_episodes"] == 20
    assert (tmp_path / "model.pt").exists()
    return result


@pytest.mark.parametrize("args", [
    ["--env-id", "gridsim/Nav-four_rooms-v0", "--random-starts"],                    # one-hot coordinates
    ["--level", "roboman:LiftRed"],                                                   # masked actions
    ["--env-id", "gridsim/Kitchen-open-divider_salad-v0", "--shaping", "item_chopped=0.5"],  # MultiDiscrete
    ["--env-id", "gridsim/Kitchen-open-divider_salad-v0", "--env-kwargs", '{"agent_rows": true}'],
], ids=["nav", "roboman", "kitchen-joint", "kitchen-agent-rows"])
def test_ppo_example_trains_and_evaluates(args, tmp_path):
    result = run_ppo(*args, tmp_path=tmp_path)
    assert result["env_id"] == args[1]
