"""The CSV of a distributed evaluation: renamed into place when complete, a partial file when not.

The shards run in this process (``EvalPool._run_shards`` is replaced), so these tests are
fast and need no Ray cluster; where Ray is not installed a stand-in module is imported in
its place. ``test_distributed.py`` runs the same on real actors.
"""

from __future__ import annotations

import importlib
import os
import sys
import types

import pytest

import gridsim

ENV = "gridsim/Nav-room2_small-v0"
SEEDS = list(range(40))
OLD = b"seed,return,length,success\n" + b"".join(b"%d,1.0,3,1\n" % i for i in range(5000))


class Boom(Exception):
    pass


@pytest.fixture
def distributed(monkeypatch):
    """``gridsim.tools.distributed``, imported over a stand-in ``ray`` where Ray is not installed."""
    try:
        import ray.exceptions  # noqa: F401
        have_ray = True
    except ImportError:
        have_ray = False
    if not have_ray:
        fake = types.ModuleType("ray")
        exceptions = types.ModuleType("ray.exceptions")
        exceptions.RayActorError = type("RayActorError", (Exception,), {})
        exceptions.WorkerCrashedError = type("WorkerCrashedError", (Exception,), {})
        fake.exceptions = exceptions
        monkeypatch.setitem(sys.modules, "ray", fake)
        monkeypatch.setitem(sys.modules, "ray.exceptions", exceptions)
        monkeypatch.delitem(sys.modules, "gridsim.tools.distributed", raising=False)
    module = importlib.import_module("gridsim.tools.distributed")
    monkeypatch.setattr(module.ray, "put", lambda value: value, raising=False)
    yield module
    if not have_ray:  # not left imported over the stand-in
        sys.modules.pop("gridsim.tools.distributed", None)


def local_pool(distributed, monkeypatch, fail_at: int | None = None, error=Boom):
    """An EvalPool whose shards run here, in order; shard ``fail_at`` raises ``error``."""
    def run_shards(self, shards, policy_box, env, env_kwargs, num_envs, trust_pickle):
        for k, seeds in enumerate(shards):
            if k == fail_at:
                raise error("shard failed")
            yield k, gridsim.evaluate(policy_box[1], env, seeds, num_envs=num_envs)

    monkeypatch.setattr(distributed.EvalPool, "_run_shards", run_shards)
    pool = distributed.EvalPool.__new__(distributed.EvalPool)
    pool.actors, pool.num_workers, pool.num_threads = [object()], 1, 1
    return pool


def test_complete_run_writes_the_file_and_leaves_no_partial(tmp_path, distributed, monkeypatch):
    out = tmp_path / "rows.csv"
    out.write_bytes(OLD)
    local_pool(distributed, monkeypatch).evaluate("random", ENV, SEEDS, shard_size=7, csv_path=out)
    gridsim.evaluate("random", ENV, SEEDS).to_csv(tmp_path / "local.csv")
    assert out.read_bytes() == (tmp_path / "local.csv").read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["local.csv", "rows.csv"]


@pytest.mark.parametrize("error", [Boom, KeyboardInterrupt])
def test_failed_run_keeps_the_file_and_leaves_its_rows_in_a_partial_file(tmp_path, distributed, monkeypatch, error):
    out = tmp_path / "rows.csv"
    out.write_bytes(OLD)
    with pytest.raises(error) as info:
        local_pool(distributed, monkeypatch, fail_at=3, error=error).evaluate(
            "random", ENV, SEEDS, shard_size=7, csv_path=out)
    assert out.read_bytes() == OLD  # byte for byte
    partial = tmp_path / "rows.csv.partial"
    gridsim.evaluate("random", ENV, SEEDS[:21]).to_csv(tmp_path / "first.csv")
    assert partial.read_bytes() == (tmp_path / "first.csv").read_bytes()  # the three shards finished
    if sys.version_info >= (3, 11):
        assert str(partial) in "\n".join(info.value.__notes__)
    # The next run replaces the partial file and, once complete, leaves none.
    local_pool(distributed, monkeypatch).evaluate("random", ENV, SEEDS, shard_size=7, csv_path=out)
    assert not partial.exists()


def test_bad_arguments_touch_no_file(tmp_path, distributed, monkeypatch):
    out = tmp_path / "rows.csv"
    out.write_bytes(OLD)
    with pytest.raises(gridsim.ArgumentTypeError):
        local_pool(distributed, monkeypatch).evaluate(3, ENV, SEEDS, csv_path=out)
    assert out.read_bytes() == OLD and os.listdir(tmp_path) == ["rows.csv"]


def test_a_worker_unpickles_a_policy_file_only_when_the_caller_opts_in(tmp_path, distributed, monkeypatch):
    torch = pytest.importorskip("torch")
    from engine.test_policy_files import crafted_policy_file

    from gridsim.tools.policies import load_policy

    # The shards run here on a worker object, as an actor runs them: it loads the path itself.
    worker = distributed._Worker(1)
    monkeypatch.setattr(distributed.ray, "get", lambda ref: ref, raising=False)

    def run_shards(self, shards, policy_box, env, env_kwargs, num_envs, trust_pickle):
        for k, seeds in enumerate(shards):
            yield k, worker.run(policy_box, env, env_kwargs, num_envs, seeds, trust_pickle)

    monkeypatch.setattr(distributed.EvalPool, "_run_shards", run_shards)
    pool = distributed.EvalPool.__new__(distributed.EvalPool)
    pool.actors, pool.num_workers, pool.num_threads = [object()], 1, 1
    path, marker = crafted_policy_file(tmp_path)
    with pytest.raises(gridsim.InvalidArgumentError, match="--trust-pickle"):
        pool.evaluate(str(path), ENV, SEEDS, shard_size=7)
    assert not marker.exists()
    with pytest.raises(gridsim.InvalidArgumentError, match="trust_pickle must be True or False"):
        pool.evaluate(str(path), ENV, SEEDS, shard_size=7, trust_pickle="yes")
    result = pool.evaluate(str(path), ENV, SEEDS, shard_size=7, trust_pickle=True)
    assert marker.exists()
    module = load_policy(str(path), trust_pickle=True)
    assert isinstance(module, torch.nn.Module)
    expected = gridsim.evaluate(module, ENV, SEEDS)
    assert result.returns.tolist() == expected.returns.tolist() and result.lengths.tolist() == expected.lengths.tolist()
