"""The three examples of "Your own task" run end to end: a variant, a Python class, a compiled generator."""

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


def run_example(name: str, *args: str) -> list[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, name, "--num-envs", "16", "--steps", "20", "--seeds", "2", *args],
                          cwd=ROOT / "examples", env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_the_variant_example_runs():
    lines = run_example("task_variant.py", "--size", "10")
    assert lines[0] == "same as DoorKeyEnv(size=10): 2 resets, 400 steps"
    assert lines[1].startswith("DoorKey-10x10: 16 envs, ")


def test_the_python_task_example_runs():
    lines = run_example("python_task.py")
    assert lines[0] == "same as Minigrid: 2 resets, 400 steps, 0 episodes"
    assert lines[1].startswith("MyTasks/TwoKeysTwoDoors-v0: 16 envs, ")


def test_the_compiled_task_example_runs():
    pytest.importorskip("numba")
    lines = run_example("compiled_task.py")
    assert lines[0].startswith("compiled in ")
    assert lines[1] == "same as the class: 2 resets, 400 steps"
    assert lines[2].startswith("compiled: ") and lines[3].startswith("python: ")
