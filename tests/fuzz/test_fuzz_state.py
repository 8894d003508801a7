"""Injected states never reach the kernel unchecked.

Real states of every family (``state_cases.CASES``) are mutated in one or several fields
(dtype extremes, -1, 2**31 - 1, -2**31, NaN, raw bool bytes, wrong types and shapes, strings)
and injected through ``load_state_dict``, ``set_state`` and the state properties. Each is
either refused with :class:`gridsim.InvalidStateError` and nothing changed, or accepted,
after which reading the state, stepping random valid actions and both reset paths (the
kernel's autoreset and ``reset`` with a mask) raise nothing but gridsim's own errors.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from engine.state_digest import digest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from state_cases import CASES, make_case, play, states_equal

import gridsim
from gridsim import InvalidStateError
from gridsim.lab2d.specs import PropertyValueError

EXAMPLES = int(os.environ.get("GRIDSIM_FUZZ_EXAMPLES", "200"))  # per test and case: ~20 s in all
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))

# Python values that probe every range check and every conversion.
ADVERSARIAL = [0, 1, -1, 2, 3, 6, 7, 100000, 2**15 - 1, -(2**15), 2**31 - 1, -(2**31), 2**31, 2**63 - 1,
               -(2**63), 2**64 - 1, 2**64, 2**70, 1.5, math.nan, math.inf, -math.inf, True, False, None,
               "False", "1", "", (1,), (1, 2, 3), [0, 0], {}, object(), np.array(5), np.array([1, 2]),
               np.int64(-1), np.uint64(2**64 - 1), np.float32("nan")]
VALUE = st.sampled_from(ADVERSARIAL) | st.integers(-(2**33), 2**33)


def element(dtype: np.dtype):
    """A value of ``dtype`` at or near its extremes (raw bytes for bools)."""
    if dtype == np.bool_:
        return st.integers(0, 255)
    if dtype.kind == "f":
        return st.sampled_from([math.nan, math.inf, -math.inf, 1e30, -1e30, -0.0, 0.5, 7.0])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = [info.min, info.max, 0, 1, -1, 2, 6, 7, 50, 2**15 - 1, -(2**15), 2**31 - 1, -(2**31)]
        return st.sampled_from([e for e in edges if info.min <= e <= info.max]) | st.integers(
            max(info.min, -(2**20)), min(info.max, 2**20))
    return st.just(None)


@st.composite
def mutated_dicts(draw, base: dict):
    """``base`` (a state_dict) with one to three fields changed."""
    state = {k: (v.copy() if isinstance(v, np.ndarray) else list(v) if isinstance(v, list) else v)
             for k, v in base.items()}
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(sorted(state)))
        value = state[name]
        how = draw(st.sampled_from(["entry"] * 6 + ["all", "dtype", "shape", "junk", "missing"]))
        if isinstance(value, np.ndarray) and value.size and how in ("entry", "all"):
            dtype = value.dtype
            raw = value.view(np.uint8) if dtype == np.bool_ else value
            x = draw(element(dtype))
            if how == "all":
                raw[...] = x
            else:
                raw.reshape(-1)[draw(st.integers(0, value.size - 1))] = x
        elif isinstance(value, list) and value and how in ("entry", "all"):
            value[draw(st.integers(0, len(value) - 1))] = draw(VALUE)
        elif isinstance(value, np.ndarray) and how == "dtype":
            with np.errstate(invalid="ignore"):  # NaN has no integer
                state[name] = value.astype(np.float64 if value.dtype.kind != "f" else np.int64)
        elif isinstance(value, np.ndarray) and how == "shape":
            state[name] = value.reshape(-1)[:-1]
        elif how == "missing":
            del state[name]
        else:
            state[name] = draw(VALUE)
    return state


def assert_plays(envs, seed: int):
    """Read, step, autoreset and reset an env holding an accepted state: only gridsim errors may occur."""
    for i in range(envs.num_envs):
        envs.set_state(envs.get_state(i), index=i)  # what it reads back is accepted again
        envs.render_text(i)
    play(envs, 8, seed)
    mask = np.zeros(envs.num_envs, np.bool_)
    mask[seed % envs.num_envs] = True
    if envs.state.num_units != envs.num_envs:  # rows of one kitchen reset together
        mask[:] = True
    envs.reset(options={"reset_mask": mask})
    play(envs, 4, seed + 1)
    envs.state_dict()


def inject(envs, write, before: dict, seed: int):
    """Apply ``write``; a refusal must leave the batch as it was, an acceptance must play."""
    try:
        write()
    except (InvalidStateError, PropertyValueError) as e:
        assert isinstance(e, gridsim.GridSimError) or "cannot write" in str(e)
        assert states_equal(envs.state_dict(), before), f"refused ({e}) but the state changed"
        return False
    assert_plays(envs, seed)
    return True


@pytest.mark.parametrize("case", sorted(CASES))
@FUZZ
@given(data=st.data())
def test_load_state_dict_is_all_or_nothing_and_safe(case, data):
    envs = make_case(case)
    before = envs.state_dict()
    state = data.draw(mutated_dicts(before), label="state")
    inject(envs, lambda: envs.load_state_dict(state), before, data.draw(st.integers(0, 99), label="seed"))
    envs.close()


def mutate_snapshot(draw, snap):
    """A get_state dict with one value, or one nested value, replaced."""
    if not snap:
        return snap
    key = draw(st.sampled_from(sorted(snap)))
    value = snap[key]
    if isinstance(value, list) and value and draw(st.booleans()):
        j = draw(st.integers(0, len(value) - 1))
        if isinstance(value[j], dict) and value[j]:
            inner = draw(st.sampled_from(sorted(value[j])))
            value[j][inner] = draw(VALUE)
        else:
            value[j] = draw(VALUE | st.text(max_size=3))
    elif isinstance(value, dict) and value and draw(st.booleans()):
        inner = draw(st.sampled_from(sorted(value, key=repr)))
        value[inner] = draw(VALUE | st.just(["Plate"]) | st.just("Plate"))
    elif isinstance(value, tuple) and value and draw(st.booleans()):
        items = list(value)
        items[draw(st.integers(0, len(items) - 1))] = draw(VALUE)
        snap[key] = tuple(items)
    else:
        snap[key] = draw(VALUE)
    return snap


@pytest.mark.parametrize("case", sorted(CASES))
@FUZZ
@given(data=st.data())
def test_set_state_is_all_or_nothing_and_safe(case, data):
    envs = make_case(case)
    row = data.draw(st.integers(0, envs.num_envs - 1), label="row")
    snap = envs.get_state(row)
    for _ in range(data.draw(st.integers(1, 2))):
        snap = mutate_snapshot(data.draw, snap)
    before, before_row = envs.state_dict(), envs.get_state(row)
    if not inject(envs, lambda: envs.set_state(snap, index=row), before, data.draw(st.integers(0, 99))):
        assert digest(envs.get_state(row)) == digest(before_row)  # arrays (grids) by their bytes
    envs.close()


@pytest.mark.parametrize("case", sorted(CASES))
@FUZZ
@given(data=st.data())
def test_state_properties_are_all_or_nothing_and_safe(case, data):
    envs = make_case(case)
    keys = sorted(k for k, p in envs.properties.entries.items() if p.set is not None and k.startswith("state."))
    if not keys:
        return
    key = data.draw(st.sampled_from(keys), label="key")
    text = data.draw(st.sampled_from(["0,0", "6,6", "-1,0", "0,-1", "99,1", "2147483647,0", "-2147483648,1",
                                      "none", "red", "blue", "9", "-1", "2147483647", "1e3", "nan", "", "a,b"])
                     | st.text(max_size=6), label="text")
    row = data.draw(st.integers(0, envs.num_envs - 1), label="row")
    inject(envs, lambda: envs.write_property(key, text, index=row), envs.state_dict(), data.draw(st.integers(0, 99)))
    envs.close()
