"""examples/bc.py runs end to end in its quick mode (a smoke test; the real run is in examples/README.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gridsim

pytest.importorskip("torch")
pytest.importorskip("minari")
pytest.importorskip("h5py")

ROOT = Path(__file__).resolve().parents[2]
GRIDSIM_HOME = Path(gridsim.__file__).resolve().parents[1]  # the build this test imported


def run_bc(*args: str, out: Path) -> list[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, "examples/bc.py", "--quick", "--out", str(out), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.mark.slow  # two runs that each import torch: about 10 s
def test_bc_example_records_trains_and_evaluates(tmp_path):
    lines = run_bc(out=tmp_path)
    assert lines[0].startswith("recorded 64 episodes (")
    result = json.loads(lines[-1])  # the last line is the JSON summary
    assert result["env_id"] == "gridsim/BabyAI-GoToLocal-v0"
    assert result["episodes"] == 64 and result["epochs"] == 1 and result["eval_episodes"] == 20
    assert result["demo_steps"] > 64 and 0.0 <= result["success_rate"] <= 1.0
    assert Path(result["checkpoint"]).is_file()
    dataset = tmp_path / "datasets" / "gridsim" / "BabyAI-GoToLocal-v0" / "bot-64-seed0-v0"
    assert (dataset / "data" / "metadata.json").is_file()
    # A second run reads the same demonstrations again rather than recording them.
    again = run_bc(out=tmp_path)
    assert again[0] == f"reusing {dataset}"
    assert json.loads(again[-1])["demo_steps"] == result["demo_steps"]
