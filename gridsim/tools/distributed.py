"""Evaluation past one machine: :func:`evaluate` and :func:`sweep` on a Ray cluster.

Needs ``pip install "gridsim-vec[ray]"``. The seeds are cut into shards (consecutive runs of the
seed list); Ray actors, each holding one gridsim vector env, take the shards in turn and run
:func:`gridsim.evaluate` on them. Every episode depends only on its seed and the policy, so the
rows put back together in the order of the seeds are the local ``gridsim.evaluate``'s, bit for
bit. An actor that dies (killed, out of memory, its node lost) has its unfinished shards run
again by a replacement; a shard's rows are kept once, from the run that finished it.

Without an ``address``, Ray is started on this machine (``ray.init()``) unless it runs already;
``address="auto"`` joins the cluster of ``ray start`` on this node. See docs/distributed.md.
"""

from __future__ import annotations

import collections
import contextlib
import math
import numbers
import os
import time
import uuid
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import ray
from ray.exceptions import RayActorError, WorkerCrashedError

from gridsim.engine.files import partial_write
from gridsim.engine.settings import as_flag
from gridsim.errors import ArgumentTypeError, GridSimError, InvalidArgumentError
from gridsim.tools.evaluate import DEFAULT_MAX_ENVS, _open_env, _progress_bar, _seed_list, sweep_items
from gridsim.tools.evaluate import evaluate as local_evaluate
from gridsim.tools.policies import load_policy, policy_name
from gridsim.tools.results import EvalResult, SweepResult

__all__ = ["EvalPool", "SweepResult", "evaluate", "sweep"]

# Shards each actor has queued or running: the next one waits on the actor, so it never idles
# between shards for the round trip to the caller.
IN_FLIGHT_PER_WORKER = 2
# Default shards per worker: enough that a slow shard or a lost actor delays the end little.
SHARDS_PER_WORKER = 8
# The smallest default shard: below it Ray's per-task cost shows (bench/README.md).
MIN_SHARD = 256

# Ray's errors of a lost actor or process (not of the code it ran): their shards run again.
_LOST: tuple[type[BaseException], ...] = (RayActorError, WorkerCrashedError)
try:
    from ray.exceptions import OutOfMemoryError

    _LOST = (*_LOST, OutOfMemoryError)
except ImportError:  # older Ray
    pass


def _ensure_ray(address: str | None) -> None:
    """Connect to Ray: reuse a running session, else join ``address``, else start a local one."""
    if ray.is_initialized():
        return
    if address is None:
        ray.init(include_dashboard=False)
    else:
        ray.init(address=address)


class _Worker:
    """A Ray actor: one gridsim vector env, reused across shards, and the policies it was sent."""

    def __init__(self, num_threads: int | str):
        self.num_threads = num_threads
        self.policies: dict[str, Any] = {}
        self.env_key: tuple | None = None
        self.envs = None

    def run(self, policy_box: list, env: str | os.PathLike, env_kwargs: dict, num_envs: int,
            seeds: list[int], trust_pickle: bool = False) -> EvalResult:
        """``gridsim.evaluate`` on one shard of seeds.

        Args:
            policy_box: ``[key, ObjectRef]``: in a list so that Ray does not fetch the policy for
                every shard; it is fetched (and loaded, for a checkpoint or ``module:attr``) once.
            env: the id or level name.
            env_kwargs: the env's keyword arguments.
            num_envs: rows of this actor's env.
            seeds: the shard's seeds.
            trust_pickle: the caller's opt-in to unpickling a policy file
                (:func:`gridsim.tools.policies.load_policy`); the worker never assumes it.

        Returns:
            The shard's :class:`EvalResult`.
        """
        key, ref = policy_box
        policy = self.policies.get(key)
        if policy is None:
            policy = ray.get(ref)
            if isinstance(policy, str) and policy != "random":
                policy = load_policy(policy, trust_pickle=trust_pickle)
            self.policies = {key: policy}  # one policy at a time: a sweep sends them in turn
        env_key = (env, repr(sorted(env_kwargs.items())), num_envs)
        if env_key != self.env_key:
            self.close()
            self.envs = _open_env(env, num_envs, num_envs, self.num_threads, env_kwargs)[0]
            self.env_key = env_key
        return local_evaluate(policy, self.envs, seeds)

    def close(self) -> None:
        """Close the env (before another replaces it)."""
        if self.envs is not None:
            self.envs.close()
            self.envs, self.env_key = None, None


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InvalidArgumentError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


class _CsvStream:
    """Writes an evaluation's CSV as shards finish, in the order of the seeds, to an open file.

    A shard's rows are written once every earlier shard's are, so the finished file is
    byte-identical to ``EvalResult.to_csv`` of the whole result.
    """

    def __init__(self, file, n_shards: int):
        self.file = file
        self.waiting: dict[int, EvalResult] = {}
        self.next = 0
        self.n_shards = n_shards

    def add(self, k: int, shard: EvalResult) -> None:
        self.waiting[k] = shard
        while self.next in self.waiting:
            part = self.waiting.pop(self.next)
            if self.next == 0:
                self.file.write(part.csv_header())
            self.file.write(part.csv_rows())
            self.next += 1
        self.file.flush()


class EvalPool:
    """Ray actors that evaluate shards of seeds; reuse one for several evaluations or a sweep.

    Each actor holds one gridsim vector env (kept while the env, its arguments and its size
    stay the same) and the last policy it was sent. :func:`evaluate` and :func:`sweep` make a
    pool and close it; a pool of your own saves the actors' start-up (about a second each)
    between calls::

        with gridsim.distributed.EvalPool(num_workers=4) as pool:
            a = pool.evaluate(policy_a, "gridsim/Gridroboman-LiftRed-v0", range(100_000))
            b = pool.evaluate(policy_b, "gridsim/Gridroboman-LiftRed-v0", range(100_000))

    Args:
        num_workers: actors to start.
        num_threads_per_worker: the kernel threads of each actor's env, and the CPUs each actor
            reserves from Ray.
        address: the Ray cluster to join (``"auto"``: the one ``ray start`` made on this node,
            or ``"ray://host:10001"``); None starts Ray on this machine. An initialised Ray
            session is used as it is, whatever the address.
        max_retries: how many times one shard may be run again after its actor died.

    Raises:
        gridsim.InvalidArgumentError: ``num_workers``, ``num_threads_per_worker`` or ``max_retries``
            is not a positive integer (``max_retries`` may be 0).
    """

    def __init__(self, num_workers: int, *, num_threads_per_worker: int = 1, address: str | None = None,
                 max_retries: int = 3):
        self.num_workers = _positive_int("num_workers", num_workers)
        self.num_threads = _positive_int("num_threads_per_worker", num_threads_per_worker)
        if isinstance(max_retries, bool) or not isinstance(max_retries, numbers.Integral) or max_retries < 0:
            raise InvalidArgumentError(f"max_retries must be a non-negative integer, got {max_retries!r}")
        self.max_retries: int = int(max_retries)
        _ensure_ray(address)
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < self.num_workers * self.num_threads:
            # Ray would wait for CPUs that may never come (an autoscaling cluster adds nodes).
            warnings.warn(f"the Ray cluster has {cpus:g} CPUs and {self.num_workers} workers of "
                          f"{self.num_threads} CPUs each were asked for: some wait until CPUs are free",
                          RuntimeWarning, stacklevel=2)
        self._actor_class: Any = ray.remote(num_cpus=self.num_threads, max_restarts=0)(_Worker)
        # Actors are named so that they can be found (ray.get_actor) for inspection or tests.
        self.name: str = f"gridsim-eval-{uuid.uuid4().hex[:8]}"
        self._started: int = 0
        self._names: dict[Any, str] = {}
        self.actors: list[Any] = [self._start_actor() for _ in range(self.num_workers)]

    def _start_actor(self):
        name = f"{self.name}-{self._started}"
        self._started += 1
        actor = self._actor_class.options(name=name).remote(self.num_threads)
        self._names[actor] = name
        return actor

    def __enter__(self) -> EvalPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop the actors (Ray itself keeps running)."""
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors = []

    def actor_names(self) -> list[str]:
        """The Ray names of the live actors (``ray.get_actor(name)`` finds each)."""
        return [self._names[a] for a in self.actors]

    def evaluate(self, policy, env: str | os.PathLike, seeds, *, num_envs_per_worker: int | None = None,
                 shard_size: int | None = None, env_kwargs: Mapping[str, Any] | None = None,
                 progress: bool = False, csv_path: str | os.PathLike | None = None,
                 on_shard: Callable[[EvalResult], None] | None = None, trust_pickle: bool = False) -> EvalResult:
        """What :func:`gridsim.distributed.evaluate` computes, on this pool's actors.

        The arguments are :func:`gridsim.distributed.evaluate`'s (without those of the pool).
        """
        if not self.actors:
            raise GridSimError("this EvalPool is closed")
        if not isinstance(env, (str, os.PathLike)):
            raise ArgumentTypeError(f"env must be a gridsim id, a level name or a level file (each worker makes its "
                                    f"own env), got {env!r}")
        seed_list = _seed_list(seeds)
        n = len(seed_list)
        if shard_size is None:
            shard_size = max(MIN_SHARD, math.ceil(n / (self.num_workers * SHARDS_PER_WORKER)))
        shard_size = _positive_int("shard_size", shard_size)
        if num_envs_per_worker is None:
            num_envs_per_worker = min(shard_size, n, DEFAULT_MAX_ENVS)
        num_envs = _positive_int("num_envs_per_worker", num_envs_per_worker)
        kwargs = dict(env_kwargs or {})
        trust_pickle = as_flag(trust_pickle, "trust_pickle")
        # Fail here, not on every worker, for what the caller can check: the env's arguments and
        # a policy that cannot be named or called.
        local_envs = _open_env(env, 1, 1, 1, kwargs)[0]
        local_envs.close()
        if not isinstance(policy, str) and not callable(policy):
            raise ArgumentTypeError(f"policy must be a callable, a torch module, 'random', module:attr or a checkpoint "
                            f"path, got {policy!r}")
        starts = range(0, n, shard_size)
        shards = [seed_list[s:s + shard_size] for s in starts]
        policy_box = [uuid.uuid4().hex, ray.put(policy)]
        parts: list[EvalResult | None] = [None] * len(shards)
        start = time.perf_counter()
        with contextlib.ExitStack() as stack:
            # The rows grow in <csv_path>.partial, renamed onto csv_path when every shard is in: a
            # run that fails leaves csv_path as it was and its finished rows in the partial file.
            stream = None
            if csv_path is not None:
                file = stack.enter_context(partial_write(csv_path, "w", encoding="utf-8", newline=""))
                stream = _CsvStream(file, len(shards))
            bar = _progress_bar(progress, n, os.fspath(env))
            if bar is not None:
                stack.callback(bar.close)
            for k, part in self._run_shards(shards, policy_box, env, kwargs, num_envs, trust_pickle):
                parts[k] = part
                if stream is not None:
                    stream.add(k, part)
                if bar is not None:
                    bar.update(len(part))
                if on_shard is not None:
                    on_shard(part)
        seconds = time.perf_counter() - start
        done = [p for p in parts if p is not None]
        assert len(done) == len(parts)
        return _concatenate(done, seed_list, env=os.fspath(env), policy=policy_name(policy),
                            num_envs=num_envs * self.num_workers, seconds=seconds)

    def _run_shards(self, shards: list[list[int]], policy_box, env, env_kwargs, num_envs, trust_pickle: bool):
        """Yield ``(k, result)`` for every shard once, as they finish; rerun those of lost actors."""
        queue = collections.deque(range(len(shards)))
        retries = [0] * len(shards)
        pending: dict[Any, tuple[int, Any]] = {}  # future -> (shard, actor)
        load: dict[Any, int] = {a: 0 for a in self.actors}
        try:
            while queue or pending:
                for actor in self.actors:
                    while queue and load[actor] < IN_FLIGHT_PER_WORKER:
                        k = queue.popleft()
                        future = actor.run.remote(policy_box, env, env_kwargs, num_envs, shards[k], trust_pickle)
                        pending[future] = (k, actor)
                        load[actor] += 1
                ready, _ = ray.wait(list(pending), num_returns=1)
                future = ready[0]
                k, actor = pending.pop(future)
                load[actor] -= 1
                try:
                    part = ray.get(future)
                except _LOST as e:
                    retries[k] += 1
                    if retries[k] > self.max_retries:
                        raise GridSimError(f"shard {k} ({len(shards[k])} seeds from {shards[k][0]}) was lost "
                                           f"{retries[k]} times: its workers died") from e
                    queue.appendleft(k)
                    if actor in load and actor in self.actors:
                        self.actors.remove(actor)
                        replacement = self._start_actor()
                        self.actors.append(replacement)
                        load[replacement] = 0
                    continue
                yield k, part
        except BaseException:
            # An error (the policy's, on a worker) or an interrupt: the other shards are not
            # waited for; the actors are stopped so that nothing keeps running.
            for future in pending:
                ray.cancel(future, force=False)
            self.close()
            raise


def _concatenate(parts: Sequence[EvalResult], seed_list: list[int], **meta) -> EvalResult:
    """One result from the shards' results, in the order of the seeds."""
    extras = {name: np.concatenate([p.extras[name] for p in parts]) for name in parts[0].extras}
    seeds = np.array(seed_list, dtype=np.int64 if max(seed_list) < 1 << 63 else object)
    return EvalResult(seeds=seeds, returns=np.concatenate([p.returns for p in parts]),
                      lengths=np.concatenate([p.lengths for p in parts]),
                      successes=np.concatenate([p.successes for p in parts]), extras=extras,
                      batch_steps=sum(p.batch_steps for p in parts), **meta)


def evaluate(policy, env: str | os.PathLike, seeds, *, num_workers: int, num_envs_per_worker: int | None = None,
             num_threads_per_worker: int = 1, address: str | None = None, progress: bool = False,
             shard_size: int | None = None, env_kwargs: Mapping[str, Any] | None = None,
             csv_path: str | os.PathLike | None = None, on_shard: Callable[[EvalResult], None] | None = None,
             max_retries: int = 3, trust_pickle: bool = False) -> EvalResult:
    """:func:`gridsim.evaluate` on Ray actors: the same rows, in the same order, bit for bit.

    The seeds are cut into shards of ``shard_size`` consecutive seeds; ``num_workers`` actors,
    each with one env of ``num_envs_per_worker`` rows, run them in turn, two queued per actor.
    Results come back as shards finish: ``progress`` counts them, ``on_shard`` sees each, and
    ``csv_path`` is written as soon as every earlier shard is in (the finished file equals
    ``result.to_csv(csv_path)``). An actor that dies has its unfinished shards run again on a new
    actor, up to ``max_retries`` times a shard; no seed is lost or counted twice. An error of the
    policy on a worker (an exception, or a ``gridsim.PolicyError`` for invalid actions) stops
    every actor and is raised here with the worker's traceback in its message.

    Args:
        policy: what :func:`gridsim.evaluate` takes (a callable, a torch module, ``"random"``),
            or a string each worker loads as ``gridsim eval --policy`` does: a ``.pt``
            checkpoint path (a path every worker can read) or ``module:attr`` (a module every
            worker can import). It is pickled (cloudpickle) and sent once to each actor.
        env: a registered id, a level name, or a level file as a ``pathlib.Path`` (a path every
            worker can read); each worker makes its own env.
        seeds: the episodes' seeds, non-negative ints, in any order, with repeats.
        num_workers: Ray actors to start (each reserves ``num_threads_per_worker`` CPUs).
        num_envs_per_worker: rows of each actor's env. Default: the shard size, up to 1024.
        num_threads_per_worker: kernel threads of each actor's env.
        address: the cluster to join (``"auto"``, ``"ray://head:10001"``); None: Ray on this
            machine, started here unless it runs. An initialised Ray session is used as it is.
        progress: a tqdm bar of finished episodes (when tqdm is installed).
        shard_size: seeds per task. Default: an eighth of each worker's share, at least 256.
        env_kwargs: the env's keyword arguments, as :func:`gridsim.evaluate` takes them.
        csv_path: write one CSV row per seed here, in the order of the seeds. The rows go to
            ``<csv_path>.partial`` as shards finish, and that file is renamed onto
            ``csv_path`` when the last one is in. A run that fails or is interrupted leaves
            ``csv_path`` as it was and the rows finished so far in ``<csv_path>.partial``
            (the exception's note names it); a partial file of an earlier run is replaced.
        on_shard: called in this process with each shard's :class:`EvalResult` as it arrives
            (in the order they finish, not the order of the seeds).
        max_retries: how many times one shard may be run again after its actor died.
        trust_pickle: let the workers unpickle a ``.pt`` policy path that
            ``torch.load(weights_only=True)`` refuses (a module saved whole), which runs any code
            the file names: as :func:`gridsim.tools.policies.load_policy` takes it. Without it
            such a file is refused on the workers (``gridsim.InvalidArgumentError``).

    Returns:
        An :class:`EvalResult` with one entry per seed, in the order of ``seeds``; ``num_envs``
        counts the rows of all the workers, ``batch_steps`` the step calls of all the shards.

    Raises:
        ValueError, TypeError: as :func:`gridsim.evaluate`, checked here before any actor runs
            (``gridsim.InvalidArgumentError`` for a bad count or size).
        gridsim.GridSimError: a shard was lost more than ``max_retries`` times.
        ray.exceptions.RayTaskError: the policy raised on a worker; it is also an instance of
            the policy's exception class (e.g. ``gridsim.PolicyError``).
    """
    with EvalPool(num_workers, num_threads_per_worker=num_threads_per_worker, address=address,
                  max_retries=max_retries) as pool:
        return pool.evaluate(policy, env, seeds, num_envs_per_worker=num_envs_per_worker, shard_size=shard_size,
                             env_kwargs=env_kwargs, progress=progress, csv_path=csv_path, on_shard=on_shard,
                             trust_pickle=trust_pickle)


# --------------------------------------------------------------------------- sweep

def sweep(policies, envs, seeds, *, num_workers: int, csv_path: str | os.PathLike | None = None,
          num_envs_per_worker: int | None = None, num_threads_per_worker: int = 1, address: str | None = None,
          progress: bool = False, shard_size: int | None = None, env_kwargs: Mapping[str, Any] | None = None,
          max_retries: int = 3, trust_pickle: bool = False) -> SweepResult:
    """Every policy on every env over the same seeds, on one pool of Ray actors: one table.

    Args:
        policies: a mapping name -> policy, or a sequence of policies (named as error messages
            name them, e.g. ``"random"`` or a ``module:attr`` spec); each as :func:`evaluate` takes it.
        envs: ids or level names.
        seeds: the seeds every (policy, env) pair runs.
        num_workers: Ray actors to start.
        csv_path: write the table here when the sweep is done (whole or not at all). A sweep
            that fails or is interrupted leaves ``csv_path`` as it was and the rows of the
            evaluations finished so far in ``<csv_path>.partial``.
        num_envs_per_worker: as :func:`evaluate` takes it.
        num_threads_per_worker: as :func:`evaluate` takes it.
        address: as :func:`evaluate` takes it.
        progress: a tqdm bar of each evaluation's episodes.
        shard_size: as :func:`evaluate` takes it.
        env_kwargs: as :func:`evaluate` takes it, for every env.
        max_retries: as :func:`evaluate` takes it.
        trust_pickle: as :func:`evaluate` takes it, for every policy path.

    Returns:
        A :class:`gridsim.SweepResult`: one row per (policy, env), policies in the outer order,
        with each pair's full :class:`EvalResult` in ``results``.

    Raises:
        ValueError: no policies or no envs, or two policies of the same name.
    """
    named, env_list = sweep_items(policies, envs)
    table = SweepResult()
    with table.csv_when_done(csv_path), EvalPool(num_workers, num_threads_per_worker=num_threads_per_worker,
                                                 address=address, max_retries=max_retries) as pool:
        for name, policy in named:
            for env in env_list:
                result = pool.evaluate(policy, env, seeds, num_envs_per_worker=num_envs_per_worker,
                                       shard_size=shard_size, env_kwargs=env_kwargs, progress=progress,
                                       trust_pickle=trust_pickle)
                table.add(name, env, result)
    return table

