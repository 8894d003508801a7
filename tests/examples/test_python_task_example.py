"""examples/python_task.py runs end to end: its task checked against Minigrid, registered, stepped in a batch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import gridsim

pytest.importorskip("minigrid")

ROOT = Path(__file__).resolve().parents[2]
GRIDSIM_HOME = Path(gridsim.__file__).resolve().parents[1]  # the build this test imported


def test_the_python_task_example_runs():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, "examples/python_task.py", "--num-envs", "16", "--steps", "20",
                           "--seeds", "2"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "same as Minigrid: 2 resets, 400 steps, 0 episodes"
    assert lines[1].startswith("MyTasks/TwoKeysTwoDoors-v0: 16 envs, ")
