"""What the level and settings fuzzers share: the budget, the seeds and the one assertion.

Every fuzzer feeds gridsim bad input and checks one promise: a call either succeeds, and
then the env it built resets and steps, or raises a ``gridsim.GridSimError``. Any other
exception (``OverflowError``, ``UnicodeDecodeError``, a numpy ``TypeError``, ...) fails the test.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings

import gridsim
from gridsim.levels import builtin_root

# A fixed budget, the same examples on every run (also under the AddressSanitizer build in CI).
FUZZ = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# Integers that break sizes and int32/int64 fields, and text that breaks parsers.
NASTY_INTS = [-(2**63), -(2**31), -1, 0, 1, 2, 3, 5, 2**15 - 1, 2**15, 2**31 - 1, 2**31, 2**63, 2**64]
NASTY_TEXT = ["", " ", "none", "None", "true", "false", "nan", "inf", "-inf", "1e9", "0x10", "²", "١٢",
              "-0", "+3", "3.5", "1_000", "9" * 30, "\x00", "\udcff", "é", "a,b", "{}", "[]", "..", "/"]
NASTY_VALUES = [*NASTY_INTS, *NASTY_TEXT, None, True, False, 2.5, float("nan"), float("inf"), b"3", [1, 2],
                {"a": 1}, (), object(), np.int64(2), np.float32(1.5), np.array([1, 2])]

_unique = itertools.count()


def seed_texts(family: str, limit: int = 4) -> list[str]:
    """The smallest built-in text levels of a family, as mutation seeds."""
    paths = sorted((builtin_root() / family).glob("*.txt"), key=lambda p: p.stat().st_size)
    return [p.read_text(encoding="utf-8") for p in paths[:limit]]


def fresh_file(folder: Path, family: str, data: bytes) -> str:
    """Write ``data`` to a new file under ``folder/family`` and return its level name.

    A new name each time, so the level caches (keyed on path, mtime and size) never see a stale file.
    """
    name = f"{family}/fuzz{next(_unique)}"
    path = folder / f"{name}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return name


def run_briefly(envs) -> None:
    """Reset and step a built env with valid actions, then close it."""
    try:
        envs.reset(seed=0)
        space = envs.action_space
        envs.step(np.zeros(space.shape, space.dtype))
        envs.step(np.zeros(space.shape, space.dtype))
    finally:
        envs.close()


def only_gridsim_errors(build: Callable[[], object], run: bool = True):
    """Call ``build``: a GridSimError is fine; any other exception fails. A built env must run.

    Returns:
        The exception raised, or None when ``build`` succeeded.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LevelWarning for unreachable goals, gymnasium's checks
        try:
            envs = build()
        except gridsim.GridSimError as e:
            assert str(e), "a gridsim error says what was wrong"
            return e
        if run and envs is not None:
            run_briefly(envs)
    return None
