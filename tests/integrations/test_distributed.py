"""gridsim.distributed on a local Ray cluster: equal to gridsim.evaluate, through lost workers and errors.

Skipped without Ray (``pip install "gridsim-vec[ray]"``); ``slow``: Ray's start and its actors take seconds.
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np
import pytest

ray = pytest.importorskip("ray")

from engine.family_cases import FAMILY_IDS  # noqa: E402
from engine.test_evaluate import hash_policy  # noqa: E402

import gridsim  # noqa: E402
from gridsim import distributed  # noqa: E402
from gridsim.cli import main  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

# Any order, with repeats, and more seeds than one shard.
SEEDS = [int(s) for s in np.random.default_rng(3).integers(0, 500, size=300)] + [7, 7, 0]


def assert_same(result: gridsim.EvalResult, local: gridsim.EvalResult):
    assert list(result.columns()) == list(local.columns())
    for name, values in local.columns().items():
        np.testing.assert_array_equal(result[name], values, err_msg=name)
        assert result[name].dtype == values.dtype, name


def live_actors(pool_name: str) -> list[str]:
    return [a["name"] for a in ray.util.list_named_actors(all_namespaces=True) if a["name"].startswith(pool_name)]


@pytest.mark.parametrize("family", list(FAMILY_IDS))
def test_distributed_equals_local_on_every_family(ray_cluster, family, tmp_path):
    env_id = FAMILY_IDS[family][0]
    policy = hash_policy(gym.make(env_id).action_space)  # takes infos: episode_seed / episode_step
    local = gridsim.evaluate(policy, env_id, SEEDS, num_envs=64)
    arrived = []
    result = distributed.evaluate(policy, env_id, SEEDS, num_workers=2, shard_size=41, num_envs_per_worker=16,
                                  csv_path=tmp_path / "rows.csv", on_shard=lambda part: arrived.append(len(part)))
    assert_same(result, local)
    assert sorted(arrived) == sorted([41] * (len(SEEDS) // 41) + [len(SEEDS) % 41])
    local.to_csv(tmp_path / "local.csv")
    assert (tmp_path / "rows.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    assert result.env == env_id and result.num_envs == 32


def test_level_name_env(ray_cluster):
    result = distributed.evaluate("random", "roboman:LiftRed", range(1000), num_workers=2)
    assert_same(result, gridsim.evaluate("random", "roboman:LiftRed", range(1000)))


def test_killed_worker_mid_sweep_gives_the_full_equal_result(ray_cluster):
    env_id = FAMILY_IDS["roboman"][0]
    seeds = list(range(3000))
    local = gridsim.evaluate("random", env_id, seeds)
    killed = []

    with distributed.EvalPool(2) as pool:
        first = pool.actor_names()[0]

        def kill_one(part):
            if not killed:  # the first shard is back: both actors still hold queued shards
                ray.kill(ray.get_actor(first))
                killed.append(first)

        result = pool.evaluate("random", env_id, seeds, shard_size=100, num_envs_per_worker=32, on_shard=kill_one)
        assert first not in pool.actor_names() and len(pool.actor_names()) == 2  # replaced
    assert killed
    assert_same(result, local)


def test_shard_lost_too_often_raises(ray_cluster):
    def die(obs):
        import os

        os._exit(1)  # the worker process dies, every time

    with pytest.raises(gridsim.GridSimError, match="lost"):
        distributed.evaluate(die, "nav/four_rooms", range(10), num_workers=1, max_retries=1)


class Boom(RuntimeError):
    pass


def raising_policy(obs, infos):
    if (np.asarray(infos["episode_seed"]) == 77).any():
        raise Boom("seed 77 is cursed")
    return np.zeros(len(obs), np.int64)


def test_policy_error_comes_back_with_the_worker_traceback(ray_cluster):
    start = time.perf_counter()
    with pytest.raises(Boom) as info:
        distributed.evaluate(raising_policy, "nav/four_rooms", range(200), num_workers=2, shard_size=20)
    text = str(info.value)
    assert "seed 77 is cursed" in text
    assert "test_distributed.py" in text and "in raising_policy" in text  # the worker's frames
    assert time.perf_counter() - start < 60
    assert not live_actors("gridsim-eval-")  # every actor was stopped: nothing hangs on


def test_policy_error_keeps_the_csv_and_leaves_the_finished_rows_in_a_partial_file(ray_cluster, tmp_path):
    out = tmp_path / "rows.csv"
    out.write_bytes(b"seed,return,length,success\n" + b"1,1.0,3,1\n" * 5000)
    before = out.read_bytes()
    with pytest.raises(Boom):
        distributed.evaluate(raising_policy, "nav/four_rooms", range(200), num_workers=2, shard_size=20,
                             csv_path=out)
    assert out.read_bytes() == before
    # The shards before seed 77's that finished first, in order (none: no partial file).
    path = tmp_path / "rows.csv.partial"
    partial = path.read_text().splitlines() if path.exists() else ["seed,return,length,success"]
    assert partial[0] == "seed,return,length,success" and len(partial) - 1 < 77
    assert [int(line.split(",")[0]) for line in partial[1:]] == list(range(len(partial) - 1))


def test_invalid_actions_raise_policy_error(ray_cluster):
    with pytest.raises(gridsim.PolicyError, match="invalid actions"):
        distributed.evaluate(lambda obs: np.full(len(obs), 99), "nav/four_rooms", range(10), num_workers=1)


def test_sweep_table_and_csv(ray_cluster, tmp_path):
    seeds = range(60)
    envs = [FAMILY_IDS["nav"][0], "roboman:LiftRed"]
    policies = {"random": "random", "zeros": lambda obs: np.zeros(len(obs), np.int64)}
    table = distributed.sweep(policies, envs, seeds, num_workers=2, csv_path=tmp_path / "sweep.csv")
    assert [(r["policy"], r["env"]) for r in table.rows] == [(p, e) for p in policies for e in envs]
    for row in table.rows:
        local = gridsim.evaluate(policies[row["policy"]], row["env"], seeds).summary()
        assert row["episodes"] == 60
        assert row["return_mean"] == local["return"]["mean"] and row["return_ci95"] == local["return"]["ci95"]
        assert row["success_mean"] == local["success"]["mean"] and row["success_std"] == local["success"]["std"]
    lines = (tmp_path / "sweep.csv").read_text().splitlines()
    assert lines[0].startswith("policy,env,episodes,return_mean") and len(lines) == 5


def test_cli_eval_ray_sweep(ray_cluster, tmp_path, capsys):
    out = tmp_path / "table.csv"
    nav = FAMILY_IDS["nav"][0]
    assert main(["eval", nav, "nav/four_rooms", "--seeds", "0:40", "--ray", "--workers", "2", "--out", str(out),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "nav/four_rooms" in text and "2 evaluations of 40 episodes" in text
    rows = out.read_text().splitlines()
    assert len(rows) == 3
    local = gridsim.evaluate("random", "nav/four_rooms", range(40)).summary()
    assert rows[2].split(",")[3] == repr(local["return"]["mean"])
    one = tmp_path / "one.csv"
    assert main(["eval", nav, "--seeds", "0:30", "--ray", "--workers", "2", "--out", str(one), "--no-progress"]) == 0
    local_csv = tmp_path / "local.csv"
    gridsim.evaluate("random", nav, range(30)).to_csv(local_csv)
    assert one.read_bytes() == local_csv.read_bytes()


def test_torch_module_and_checkpoint_path(ray_cluster, tmp_path):
    torch = pytest.importorskip("torch")
    env_id = FAMILY_IDS["roboman"][0]
    torch.manual_seed(0)
    space = gym.make(env_id)
    module = torch.nn.Sequential(torch.nn.Linear(space.observation_space.shape[0], int(space.action_space.n)))
    local = gridsim.evaluate(module, env_id, range(200))
    assert_same(distributed.evaluate(module, env_id, range(200), num_workers=2), local)
    path = tmp_path / "policy.pt"
    torch.save(module, path)  # each worker loads the file itself
    # A module saved whole is unpickled only when the caller says so; the workers assume nothing.
    with pytest.raises(gridsim.InvalidArgumentError, match="--trust-pickle"):
        distributed.evaluate(str(path), env_id, range(200), num_workers=2)
    assert_same(distributed.evaluate(str(path), env_id, range(200), num_workers=2, trust_pickle=True), local)
    torch.jit.save(torch.jit.script(module), tmp_path / "script.pt")  # TorchScript needs no opt-in
    assert_same(distributed.evaluate(str(tmp_path / "script.pt"), env_id, range(200), num_workers=2), local)


def test_bench_distributed_prints_json_lines(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "bench" / "bench_distributed.py"
    # Ray's workers put the driver's working directory on sys.path: outside the source folder,
    # they import the installed gridsim (with its kernel).
    proc = subprocess.run([sys.executable, str(script), "--seeds", "600", "--repeats", "1",
                           "--tiny", "4", "--shard-sizes", "300"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["what"] for r in records] == ["evaluate", "per_task", "shard_size"]
    assert records[0]["seeds"] == 600 and records[0]["pool_ratio"] > 0


def test_bad_arguments_raise_before_any_actor_runs(ray_cluster):
    with pytest.raises(gridsim.InvalidArgumentError, match="num_workers"):
        distributed.evaluate("random", "nav/four_rooms", range(5), num_workers=0)
    with distributed.EvalPool(1) as pool:
        with pytest.raises(gridsim.ArgumentTypeError, match="level name"):
            pool.evaluate("random", gym.make_vec(FAMILY_IDS["nav"][0]), range(5))
        with pytest.raises(gridsim.InvalidArgumentError, match="shard_size"):
            pool.evaluate("random", "nav/four_rooms", range(5), shard_size=0)
    with pytest.raises(gridsim.GridSimError, match="closed"):
        pool.evaluate("random", "nav/four_rooms", range(5))


def test_level_file_on_workers_and_in_a_cli_sweep(ray_cluster, tmp_path, capsys):
    from pathlib import Path

    from gridsim.levels.lookup import builtin_root

    level = tmp_path / "mine.txt"
    level.write_text((builtin_root() / "nav" / "four_rooms.txt").read_text())
    result = distributed.evaluate("random", Path(level), range(50), num_workers=2, shard_size=20)
    assert_same(result, gridsim.evaluate("random", Path(level), range(50)))
    assert result.env == str(level)
    out = tmp_path / "table.csv"
    assert main(["eval", str(level), "nav/four_rooms", "--seeds", "0:20", "--ray", "--workers", "2",
                 "--out", str(out), "--no-progress"]) == 0
    assert out.read_text().splitlines()[1].startswith(f"random,{level},20,")
