"""The kernel's worker pool: safe to fork, bounded, alive when threads cannot start, not held up by a busy CPU.

The bits of threaded results against one thread are ``test_threads.py``'s; here every threaded
result is compared with one thread's too, in the situations where a pool of threads used to
fail: after ``fork()`` (a ``multiprocessing`` pool forked from a process that ran threaded
calls hung in its first threaded call), beside a process that keeps a CPU busy, with more
threads asked than the machine can give, and where the operating system refuses new threads.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from engine.family_cases import thread_min_units
from engine.state_digest import digest

import gridsim
import gridsim._core as _core
from gridsim.engine import kernel as kernel_module
from gridsim.engine.vector import max_threads, parse_num_threads, usable_cpus
from gridsim.errors import InvalidArgumentError
from gridsim.families import FAMILIES

needs_threads = pytest.mark.skipif(not gridsim.threads_available(), reason="gridsim was built without threads")
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")

N = 1031  # not a multiple of any thread count
LEVELS = [row.tools.bench_name() for row in FAMILIES.values()]  # a level of each family
TIMEOUT = 120.0  # seconds a child may take before it counts as hung


@pytest.fixture(autouse=True)
def every_call_on_threads():
    """No call falls back to one thread after a slow one (the pool's adaptive mode), unless a test asks."""
    before = kernel_module.pool_adaptive(False)
    yield
    kernel_module.pool_adaptive(before)


def threaded(level: str, n: int, threads: int, **kwargs):
    """A batch whose every call runs on the pool (its threshold lowered to 1)."""
    envs = gridsim.make(level, n, num_threads=threads, **kwargs)
    envs.kernel.thread_min_units = 1
    return envs


def run_digest(envs, steps: int, seed: int = 0) -> str:
    """A hash of every output of ``steps`` random steps and of the state after them."""
    rng = np.random.default_rng(seed)
    space = envs.single_action_space
    high = space.nvec if hasattr(space, "nvec") else space.n
    h = hashlib.sha256()
    for _ in range(steps):
        obs, rew, term, trunc, _ = envs.step(rng.integers(0, high, size=envs.action_space.shape))
        h.update(digest((obs, rew, term, trunc)).encode())
    for key, value in sorted(envs.state_dict().items()):
        if isinstance(value, np.ndarray) and value.dtype != object:
            h.update(key.encode())
            h.update(value.tobytes())
    return h.hexdigest()


def wait_child(pid: int, read_fd: int, timeout: float = TIMEOUT) -> str:
    """What a forked child wrote to its pipe, or a failure when it hangs or fails."""
    ready, _, _ = select.select([read_fd], [], [], timeout)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail(f"the forked child did not finish within {timeout:.0f} s (hung in a threaded call)")
    data = b""
    while chunk := os.read(read_fd, 4096):
        data += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, data
    return data.decode()


# --------------------------------------------------------------------------- fork


@needs_threads
@needs_fork
@pytest.mark.parametrize("level", LEVELS)
def test_a_child_forked_after_threaded_calls_runs_threaded_calls(level):
    envs = threaded(level, N, 2)
    envs.reset(seed=3)
    run_digest(envs, 5)  # the pool has workers now
    assert kernel_module.pool_workers() >= 1
    snapshot = envs.state_dict()
    serial = threaded(level, N, 1)
    serial.load_state_dict(snapshot)
    expected = run_digest(serial, 20, seed=9)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the same steps on 2 threads, its digest to the pipe
        try:
            os.close(read_fd)
            workers_before = kernel_module.pool_workers()
            digest = run_digest(envs, 20, seed=9)
            os.write(write_fd, f"{workers_before} {kernel_module.pool_workers()} {digest}".encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    try:
        before, after, digest = wait_child(pid, read_fd).split()
    finally:
        os.close(read_fd)
    assert before == "0"  # the child started without the parent's workers ...
    assert int(after) >= 1  # ... and started its own
    assert digest == expected
    assert run_digest(envs, 20, seed=9) == expected  # the parent's pool still works too


def _evaluate_in_child(seeds: list[int]) -> dict:
    result = gridsim.evaluate("random", "gridsim/PixelWorld-room1_small-v0", seeds, num_envs=len(seeds),
                              num_threads=2)
    return {col: np.asarray(result[col]).tolist() for col in result.columns()}


@needs_threads
@needs_fork
def test_a_fork_multiprocessing_pool_evaluates_on_threads_after_threaded_calls():
    # A batch of nav's thread_min_units: the children's kernels run on threads.
    seeds = list(range(thread_min_units("gridsim/PixelWorld-room1_small-v0")))
    parent = _evaluate_in_child(seeds)  # threaded calls in the parent first
    assert kernel_module.pool_workers() >= 1
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(2)
    try:
        results = pool.map_async(_evaluate_in_child, [seeds, seeds]).get(timeout=TIMEOUT)
        pool.close()  # the workers end on the pool's own sentinels, not on SIGTERM (terminate)
    except BaseException:
        for worker in pool._pool:  # a hung child: killed, so that the test fails rather than waits
            worker.kill()
        pool.terminate()
        raise
    pool.join()
    assert results == [parent, parent]


# --------------------------------------------------------------------------- contention


@needs_threads
@pytest.mark.parametrize("level", LEVELS)
def test_threaded_calls_complete_beside_a_busy_process(level):
    # No timing is asserted: the calls finish, and give one thread's bits.
    kernel_module.pool_adaptive(True)  # as by default: calls that lose to one thread may run on one
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        envs = threaded(level, N, 2)
        serial = threaded(level, N, 1)
        envs.reset(seed=5)
        serial.reset(seed=5)
        assert run_digest(envs, 30, seed=2) == run_digest(serial, 30, seed=2)
    finally:
        busy.kill()
        busy.wait()


@needs_threads
def test_two_python_threads_call_threaded_kernels_at_once():
    # One pool per process: a caller that finds it busy runs its chunks on its own thread meanwhile.
    expected = {}
    for level in LEVELS:
        serial = threaded(level, N, 1)
        serial.reset(seed=1)
        expected[level] = run_digest(serial, 40, seed=4)
    got: dict[str, str] = {}

    def run(level):
        envs = threaded(level, N, 3)
        envs.reset(seed=1)
        got[level] = run_digest(envs, 40, seed=4)

    workers = [threading.Thread(target=run, args=(level,)) for level in LEVELS]
    for w in workers:
        w.start()
    for w in workers:
        w.join(TIMEOUT)
    assert got == expected


def test_the_adaptive_mode_is_a_switch():
    assert kernel_module.pool_adaptive() is False  # the fixture's
    assert kernel_module.pool_adaptive(True) is gridsim.threads_available()  # no pool, no mode
    assert kernel_module.pool_adaptive(False) is False


# --------------------------------------------------------------------------- bounds


def test_num_threads_is_bounded_by_the_cpus():
    bound = max_threads()
    assert bound == max(8, 4 * usable_cpus())
    assert 1 <= parse_num_threads("auto") <= usable_cpus()
    for bad in (bound + 1, 32768, 2**40):
        with pytest.raises(InvalidArgumentError, match="more than this machine can run"):
            parse_num_threads(bad)
        with pytest.raises(InvalidArgumentError, match="num_threads"):
            gridsim.make("nav/room5_medium", 4, num_threads=bad)
    envs = gridsim.make("nav/room5_medium", 4)
    with pytest.raises(InvalidArgumentError):
        envs.num_threads = 32768
    assert envs.num_threads == 1  # a refused count changes nothing


@needs_threads
def test_the_bound_itself_is_accepted_and_runs():
    envs = threaded("nav/room5_medium", 64, max_threads())
    serial = threaded("nav/room5_medium", 64, 1)
    envs.reset(seed=0)
    serial.reset(seed=0)
    assert run_digest(envs, 5) == run_digest(serial, 5)


def test_usable_cpus_reads_a_cgroup_quota(monkeypatch):
    from gridsim.engine import vector

    monkeypatch.setattr(vector, "_cgroup_cpu_limit", lambda: 1)
    assert usable_cpus() == 1
    monkeypatch.setattr(vector, "_cgroup_cpu_limit", lambda: None)
    assert usable_cpus() >= 1


# --------------------------------------------------------------------------- no threads to be had

_NO_THREADS_SCRIPT = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import gridsim
    from gridsim.engine import kernel as kernel_module

    envs = gridsim.make("nav/room5_medium", 1031, num_threads=1)
    envs.kernel.thread_min_units = 1
    envs.reset(seed=2)
    snapshot = envs.state_dict()
    actions = np.random.default_rng(0).integers(0, 4, size=(20, 1031)).astype(np.int64)
    for a in actions:
        envs.kernel.step_i64(a)
    expected = envs.state_dict()
    envs.load_state_dict(snapshot)
    envs.num_threads = 8
    # No address space left for a thread's stack: every pthread_create fails.
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize:")) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (vm + (4 << 20), resource.getrlimit(resource.RLIMIT_AS)[1]))
    for a in actions:
        envs.kernel.step_i64(a)
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    got = envs.state_dict()
    for key, value in expected.items():
        if isinstance(value, np.ndarray) and value.dtype != object:
            assert np.array_equal(value, got[key]), key
    print("workers", kernel_module.pool_workers())
""")


@needs_threads
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and limits the address space")
@pytest.mark.skipif(_core.SANITIZE_BUILD, reason="AddressSanitizer needs more address space than the limit leaves")
def test_threaded_calls_run_when_no_thread_can_start(tmp_path):
    # libgomp printed "Thread creation failed" and ended the process; the pool runs on what it has.
    t0 = time.monotonic()
    # Outside the source folder, so the child imports the installed gridsim (with its kernel).
    proc = subprocess.run([sys.executable, "-c", _NO_THREADS_SCRIPT], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    workers = int(proc.stdout.split()[-1])
    assert workers < 7, proc.stdout  # not all 7 workers could start
    assert time.monotonic() - t0 < TIMEOUT


# --------------------------------------------------------------------------- the pool alone

HARNESS = Path(__file__).with_name("pool_harness.c")
# The harness is a program of its own, built and run without the runtimes a sanitizer run of
# the suite preloads into Python (.ci/run): ThreadSanitizer refuses to run beside ASan.
HARNESS_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def _build_harness(tmp_path: Path) -> tuple[Path, bool]:
    """The pool's C stress harness, under ThreadSanitizer where the compiler has it."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler")
    exe = tmp_path / "pool_harness"
    base = [cc, "-O1", "-g", "-pthread", "-o", str(exe), str(HARNESS)]
    for flags, tsan in ((["-fsanitize=thread"], True), ([], False)):
        if subprocess.run([*base[:1], *flags, *base[1:]], capture_output=True, env=HARNESS_ENV).returncode == 0:
            return exe, tsan
    pytest.skip("the harness does not build here")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the harness is POSIX C")
def test_every_unit_runs_once_on_the_pool_alone(tmp_path):
    # Random thread counts, sizes and chunks from two callers at once, some with a worker held in
    # a chunk or no spin at all: every unit of every call runs exactly once, inside the call (each
    # thread's lane from its front, the others' leftovers from their backs), with no data race
    # where ThreadSanitizer is available.
    exe, tsan = _build_harness(tmp_path)
    env = {**HARNESS_ENV, "TSAN_OPTIONS": "halt_on_error=1 exitcode=66"}
    proc = subprocess.run([str(exe), "400" if tsan else "2000", "7"], capture_output=True, text=True,
                          timeout=TIMEOUT, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.split() == ["ok", "400" if tsan else "2000"]
    assert "ThreadSanitizer" not in proc.stderr
