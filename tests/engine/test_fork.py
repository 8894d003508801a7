"""A fork while another thread is in a call on an env: the child never hangs, and that env refuses.

The child of a fork has only the thread that forked. An env another thread was in a call on
(a step held inside its lock, here at a hook in the kernel call) must raise
``gridsim.ForkedEnvError`` for every later call in the child, instead of waiting forever for a
lock nobody will release or running on a half-written state; an env nobody was in a call on
works in the child as in the parent, and the parent goes on as before. Every family, through
its first registered id; ``os.fork`` and ``multiprocessing``'s "fork" context (DataLoader
workers). Each scenario runs in a subprocess with a timeout, and each child under an alarm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest
from engine.family_cases import FAMILY_IDS

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")

# Not the source folder: it shadows the installed gridsim where that one is not built in place.
NEUTRAL_DIR = tempfile.gettempdir()

FIRST_IDS = [pytest.param(ids[0], id=name) for name, ids in FAMILY_IDS.items()]

# Run as `python -c SCRIPT ENV_ID HOW`, HOW one of "os.fork", "multiprocessing" (a step held inside the lock)
# and "stepping" (a thread stepping a large batch, three children). Exit status 0: every check held.
SCRIPT = textwrap.dedent('''
    import multiprocessing, os, pickle, signal, sys, threading, traceback, warnings
    import gymnasium as gym
    import numpy as np
    import gridsim
    from gridsim.engine.vector import batch_action_masks

    warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12+ warns of forking with threads
    env_id, how = sys.argv[1], sys.argv[2]


    def make(**kwargs):
        envs = gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point", **kwargs).unwrapped
        envs.reset(seed=0)
        return envs


    busy, idle, twin = make(render_mode="rgb_array"), make(), make()
    single = gym.make(env_id).unwrapped  # a single env whose vector env is in a call too
    single.reset(seed=0)
    saved = busy.state_dict()
    twin.action_space.seed(1)
    actions = np.asarray(twin.action_space.sample())
    single_action = single.action_space.sample()
    expected = [np.asarray(x).tobytes() for x in twin.step(actions)[1:4]]  # rewards, terminated, truncated
    inside, release = threading.Event(), threading.Event()


    def held_inside(vector):
        """The kernel call of the next step on ``vector`` waits inside the env's lock until release."""
        table = vector._step_by_dtype
        for dtype, step in list(table.items()):
            def waiting(a, step=step):
                inside.set()
                release.wait()
                return step(a)
            table[dtype] = waiting


    def child():
        """Every check of the child; returns the failures."""
        signal.alarm(20)  # a hang kills the child, which the parent reports
        failures = []
        refused = {
            "step": lambda: busy.step(actions), "reset": lambda: busy.reset(seed=0), "state_dict": busy.state_dict,
            "load_state_dict": lambda: busy.load_state_dict(saved), "get_state": lambda: busy.get_state(0),
            "set_state": lambda: busy.set_state({}, 0), "render": busy.render, "render_frame": busy.render_frame,
            "read_property": lambda: busy.read_property("settings.max_steps"),
            "write_property": lambda: busy.write_property("settings.max_steps", "3"),
            "observation": lambda: busy.observation("WORLD.TEXT"), "status": busy.status,
            "start": lambda: busy.start(seed=0), "advance": busy.advance, "events_batch": busy.events_batch,
            "action_masks": lambda: batch_action_masks(busy), "num_threads": lambda: setattr(busy, "num_threads", 1),
            "pickle": lambda: pickle.dumps(busy), "single step": lambda: single.step(single_action),
            "single reset": lambda: single.reset(seed=0),
        }
        for name, call in refused.items():
            try:
                call()
                failures.append(f"{name}: no error")
            except gridsim.ForkedEnvError as e:
                if "was in a call on another thread when the process forked" not in str(e):
                    failures.append(f"{name}: message {e}")
            except Exception as e:
                failures.append(f"{name}: {type(e).__name__}: {e}")
        got = [np.asarray(x).tobytes() for x in idle.step(actions)[1:4]]
        if got != expected:
            failures.append("an env nobody was in a call on stepped otherwise than in the parent")
        idle.reset(seed=3)
        busy.close()
        try:
            busy.step(actions)
            failures.append("step after close: no error")
        except gridsim.ClosedEnvError:
            pass
        return failures


    def run_child(queue=None):
        try:
            failures = child()
        except BaseException:
            failures = [traceback.format_exc()]
        if queue is not None:
            queue.put(failures)
        else:
            sys.stderr.write("".join(f"child: {f}\\n" for f in failures))
            sys.stderr.flush()
            os._exit(1 if failures else 0)


    if how == "stepping":  # a thread steps a large batch on the kernel's threads, GIL released, while we fork
        big = gym.make_vec(env_id, num_envs=2048, vectorization_mode="vector_entry_point").unwrapped
        big.reset(seed=0)
        if gridsim.threads_available():
            big.num_threads, big.kernel.thread_min_units = 2, 1
        big_actions = np.asarray(big.action_space.sample())
        stop = threading.Event()

        def keep_stepping():
            while not stop.is_set():
                big.step(big_actions)

        stepper = threading.Thread(target=keep_stepping)
        stepper.start()
        statuses = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                signal.alarm(20)
                try:
                    big.step(big_actions)
                except gridsim.ForkedEnvError:
                    pass  # it was in a call: refused
                got = [np.asarray(x).tobytes() for x in idle.step(actions)[1:4]]
                os._exit(0 if got == expected else 1)
            statuses.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        stop.set()
        stepper.join()
        print(f"children exit statuses {statuses}", file=sys.stderr)
        sys.exit(0 if statuses == [0, 0, 0] else 1)
    held_inside(busy)
    held_inside(single.unwrapped_vector)
    threads = [threading.Thread(target=busy.step, args=(actions,)),
               threading.Thread(target=single.step, args=(single_action,))]
    for t in threads:
        inside.clear()
        t.start()
        inside.wait()
    if how == "os.fork":
        pid = os.fork()
        if pid == 0:
            run_child()
        _, status = os.waitpid(pid, 0)
        ok = os.waitstatus_to_exitcode(status) == 0
        if not ok:
            print(f"child exit status {os.waitstatus_to_exitcode(status)}", file=sys.stderr)
    else:
        queue = multiprocessing.get_context("fork").SimpleQueue()
        worker = multiprocessing.get_context("fork").Process(target=run_child, args=(queue,))
        worker.start()
        worker.join(30)
        failures = queue.get() if worker.exitcode == 0 else [f"worker exit code {worker.exitcode}"]
        for f in failures:
            print(f"child: {f}", file=sys.stderr)
        ok = not failures
    release.set()
    for t in threads:
        t.join()
    busy.step(actions)  # the parent goes on: its envs are its own
    single.step(single_action)
    sys.exit(0 if ok else 1)
''')


def run_scenario(env_id: str, how: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT, env_id, how], capture_output=True, text=True, timeout=120,
                          cwd=NEUTRAL_DIR)


@pytest.mark.parametrize("env_id", FIRST_IDS)
def test_a_child_forked_mid_call_refuses_that_env_and_runs_the_others(env_id):
    done = run_scenario(env_id, "os.fork")
    assert done.returncode == 0, done.stderr[-4000:]


def test_a_multiprocessing_fork_worker_forked_mid_call_does_not_hang():
    done = run_scenario(FAMILY_IDS["nav"][0], "multiprocessing")
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.parametrize("env_id", FIRST_IDS)
def test_children_forked_while_a_thread_steps_a_large_batch_never_hang(env_id):
    done = run_scenario(env_id, "stepping")
    assert done.returncode == 0, done.stderr[-4000:]


def test_the_fork_handler_sees_the_envs_alive_and_only_those():
    env_id = json.dumps(FAMILY_IDS["nav"][0])
    code = textwrap.dedent(f'''
        import gc, gymnasium as gym, gridsim
        from gridsim.engine import locking
        envs = [gym.make_vec({env_id}, num_envs=2, vectorization_mode="vector_entry_point").unwrapped for _ in range(3)]
        assert set(envs) <= set(locking._OWNERS)
        del envs
        gc.collect()
        assert not list(locking._OWNERS), list(locking._OWNERS)
    ''')
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, cwd=NEUTRAL_DIR)
