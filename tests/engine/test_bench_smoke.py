"""Smoke test of bench/: the scripts run with tiny arguments and print JSON lines (no timings)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gridsim
from gridsim.families import FAMILIES

ROOT = Path(__file__).resolve().parents[2]
# The folder this test imported gridsim from (site-packages when installed): the scripts
# must use the same build, not the source folder, which may hold no compiled kernel.
GRIDSIM_HOME = Path(gridsim.__file__).resolve().parents[1]

MACHINE_KEYS = {"cpu_model", "cores", "python", "numpy", "cython", "gymnasium", "gridsim"}
RUN_KEYS = {
    "bench", "family", "level", "obs_type", "actions", "mode", "num_envs", "steps", "threads",
    "bytes_per_env",
} | MACHINE_KEYS
REPEAT_KEYS = RUN_KEYS | {"repeat", "seconds", "env_steps_per_s", "ns_per_env_step"}
SUMMARY_KEYS = RUN_KEYS | {
    "repeats", "raw_env_steps_per_s", "step_env_steps_per_s", "reference_env_steps_per_s",
    "step_over_raw", "step_over_reference",
}


def _run(*args: str) -> list[dict]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines, proc.stderr
    records = [json.loads(line) for line in lines]
    for rec in records:
        expected = SUMMARY_KEYS if rec["mode"] == "summary" else REPEAT_KEYS
        assert expected <= rec.keys(), sorted(expected - rec.keys())
        assert rec["bench"] == "bench_step"
    return records


def test_bench_scripts_print_json_lines():
    tiny = ["--num-envs", "8", "--steps", "3", "--repeats", "2", "--warmup", "1",
            "--reference-envs", "2", "--reference-steps", "3"]
    records = _run("bench/bench_step.py", "--mode", "all", "--obs-type", "view", *tiny)
    assert [r["mode"] for r in records] == (
        ["raw", "step", "step", "raw"] + ["reference"] * 2 + ["summary"]
    )
    assert records[-1]["step_over_raw"] is not None

    records = _run("bench/bench_step.py", "--mode", "raw", "--actions", "2d_continuous", *tiny)
    assert [r["mode"] for r in records] == ["raw", "raw"]

    records = _run("bench/bench_step.py", "--family", "roboman", "--mode", "all", *tiny)
    assert records[-1]["level"] == "StackRedOnGreen" and records[-1]["obs_type"] == "vector"

    records = _run("bench/sweep.py", "--quick")
    modes = {r["mode"] for r in records}
    assert modes == {"raw", "step", "reference", "summary"}
    summaries = [r for r in records if r["mode"] == "summary"]
    assert {(r["num_envs"], r["obs_type"]) for r in summaries} >= {(64, "coords"), (64, "view")}


def test_sweep_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    records = _run("bench/sweep.py", "--quick", "--family", "kitchen", "--plot", str(tmp_path / "sweep.png"))
    assert {r["num_envs"] for r in records if r["mode"] == "summary"} == {64, 256}
    assert (tmp_path / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_threads_sweep_writes_a_table(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    threads = ["1", "2"] if gridsim.threads_available() else ["1"]
    proc = subprocess.run(
        [sys.executable, "bench/threads.py", "--quick", "--family", "nav", "kitchen", "--threads", *threads,
         "--outdir", str(tmp_path), "--no-plot"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert RUN_KEYS | {"speedup"} <= records[0].keys()
    assert {(r["family"], r["num_envs"], r["threads"]) for r in records} == {
        (f, n, int(t)) for f in ("nav", "kitchen") for n in (64, 300) for t in threads}
    assert all(r["speedup"] == 1.0 for r in records if r["threads"] == 1)
    (table,) = tmp_path.glob("threads-*cores-step.md")
    text = table.read_text()
    assert "| kitchen | 300 |" in text and text.count("M/s") == 4 * len(threads)


def test_bench_events_prints_json_lines():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "bench/bench_events.py", "--num-envs", "8", "--steps", "3", "--repeats", "2",
         "--warmup", "1"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    summaries = [r for r in records if r["mode"] == "summary"]
    assert [r["family"] for r in summaries] == list(FAMILIES)
    for r in summaries:
        assert MACHINE_KEYS <= r.keys()
        assert set(r["best_env_steps_per_s"]) == {f"{v}/{m}" for v in ("off", "on", "read") for m in ("raw", "step")}
        assert r["on_over_off_step"] > 0
    timed = [r for r in records if r["mode"] != "summary"]
    assert len(timed) == len(FAMILIES) * 6 * 2 and all(r["env_steps_per_s"] > 0 for r in timed)


def test_bench_eval_prints_json_lines():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "bench/bench_eval.py", "--seeds", "20", "--num-envs", "8", "--repeats", "1"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["family"], r["policy"]) for r in records] == [
        (f, p) for f in FAMILIES if FAMILIES[f].tools.eval_id for p in ("obs", "random")]
    for r in records:
        assert MACHINE_KEYS <= r.keys()
        assert r["bench"] == "bench_eval" and r["seeds"] == 20 and r["num_envs"] == 8
        assert r["eval_s"] > 0 and r["step_s"] > 0 and r["ratio"] > 0 and 0 < r["row_use"] <= 1


def test_gridsim_bench_times_any_level_by_name(capsys):
    from gridsim.cli import main

    tiny = ["--steps", "3", "--repeats", "1", "--num-envs", "8"]
    assert main(["bench", "--level", "roboman:LiftRed", *tiny]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "level roboman:LiftRed" in rows[0] and rows[3].split()[0] == "vector"
    assert main(["bench", "--level", "examples/maze:9", "--obs", "view", *tiny]) == 0
    assert capsys.readouterr().out.splitlines()[3].split()[0] == "view"


def test_bench_state_prints_json_lines():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, "bench/bench_state.py", "--num-envs", "8", "--repeats", "1"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["family"] for r in records] == list(FAMILIES)
    for r in records:
        assert MACHINE_KEYS <= r.keys()
        assert r["bench"] == "bench_state" and r["num_envs"] == 8
        assert r["load_state_dict_s"] > 0 and r["set_state_s"] > 0


def test_bench_load_prints_json_lines():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    cases = ["kitchen/open-divider_salad", "nav/four_rooms"]
    proc = subprocess.run([sys.executable, "bench/bench_load.py", "--case", *cases, "--repeats", "1"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["case"] for r in records] == cases
    for r in records:
        assert MACHINE_KEYS <= r.keys()
        assert r["bench"] == "bench_load" and not r["timed_out"] and r["seconds"] > 0


def test_bench_minigrid_prints_one_line_per_round_and_a_summary():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    # Only gridsim and the Minigrid reference (envpool and navix are not test dependencies).
    systems = ["gridsim", "minigrid"] if importlib.util.find_spec("minigrid") else ["gridsim"]
    proc = subprocess.run(
        [sys.executable, "bench/bench_minigrid.py", "--systems", *systems, "--num-envs", "8",
         "--minigrid-envs", "2", "--steps", "3", "--rounds", "2"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    rounds = [r for r in records if r["system"] != "summary"]
    assert sorted((r["system"], r["round"]) for r in rounds) == sorted((s, k) for s in systems for k in range(2))
    assert all(r["env_steps_per_s"] > 0 and r["env"] == "MiniGrid-DoorKey-8x8-v0" for r in rounds)
    summary = records[-1]
    assert summary["system"] == "summary" and set(summary["best_env_steps_per_s"]) == set(systems)


def test_bench_minigrid_resets_prints_microseconds_per_env_reset():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    systems = ["gridsim", "minigrid"] if importlib.util.find_spec("minigrid") else ["gridsim"]
    env_id = "MiniGrid-KeyCorridorS3R1-v0"
    proc = subprocess.run(
        [sys.executable, "bench/bench_minigrid.py", "--resets", "--seeded", "--env", env_id,
         "--systems", *systems, "--num-envs", "8", "--minigrid-envs", "2", "--steps", "3", "--rounds", "2"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    labels = [s + v for s in systems for v in ("", "_seeded")]
    rounds = [r for r in records if r["system"] != "summary"]
    assert sorted((r["system"], r["round"]) for r in rounds) == sorted((s, k) for s in labels for k in range(2))
    assert all(r["mode"] == "resets" and r["env"] == env_id for r in rounds)
    assert all(r["us_per_env_reset"] > 0 and r["env_resets_per_s"] > 0 for r in rounds)
    summary = records[-1]
    assert summary["system"] == "summary" and set(summary["best_us_per_env_reset"]) == set(labels)
    assert set(summary["gridsim_over"]) == set(labels) - {"gridsim"}
    assert set(summary["gridsim_seeded_over"]) == set(labels) - {"gridsim_seeded"}


C_COMPILER = os.environ.get("CC", "gcc")


@pytest.mark.skipif(shutil.which(C_COMPILER) is None, reason="the plain C loop needs a C compiler")
def test_bench_limit_checks_the_c_loop_against_the_kernel_then_times_both():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    # 150 calls: every episode reaches its limit of 100 steps, so the resets and statistics are compared too.
    proc = subprocess.run([sys.executable, "bench/bench_limit.py", "--num-envs", "64", "--steps", "150",
                           "--rounds", "1"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (record,) = [json.loads(line) for line in proc.stdout.splitlines()]
    assert MACHINE_KEYS - {"gridsim"} <= record.keys()
    assert record["bench"] == "bench_limit" and record["num_envs"] == 64
    assert record["c_env_steps_per_s"] > 0 and record["kernel_env_steps_per_s"] > 0


@pytest.mark.skipif(shutil.which(C_COMPILER) is None, reason="the plain C loop needs a C compiler")
def test_bench_limit_notices_a_c_loop_that_does_other_work(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_limit", ROOT / "bench" / "bench_limit.py")
    bench_limit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_limit)
    dll = bench_limit.build(str(tmp_path))
    envs = gridsim.make("nav/room5_medium", 16, max_episode_steps=100)
    envs.reset(seed=0)
    limit = bench_limit.Limit(dll, envs)
    limit.arrays["table"][:] += 1.0  # other rewards
    rows = list(bench_limit.make_actions(envs.single_action_space, 3, 16).astype(np.int64))
    with pytest.raises(RuntimeError, match="differ at call 0"):
        bench_limit.check_same_work(limit, envs, rows)
