"""The registered ids of every family, read from the family table, and each family's cases.

Nothing here names a family: a family that has its row in ``gridsim.families.FAMILIES``
and registers Gymnasium ids gets the engine-wide contract tests (``test_family_contracts.py``)
for every one of its ids (``EVERY_ID_CASES``). The tests that cost more per id take its
representative ids (``FAMILY_IDS``, ``CASES``): its first ``PER_FAMILY`` ids, or the ids its
``cases.py`` names in ``REPRESENTATIVE_IDS`` (where its first ids say little: levels that draw
nothing, say); tests that take one id per family take the first. The vector env of an id is
the one its spec's ``vector_entry_point`` names.

What the engine-wide tests cannot derive from the table, each family gives in
``tests/<family>/cases.py``: the names of ``REQUIRED_CASES``. A test that reads one of them leaves
out the families whose file lacks it, and ``test_family_contracts.py`` fails for each such family,
naming what is missing.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

import gymnasium as gym
import numpy as np
import pytest

import gridsim
from gridsim.families import FAMILIES
from gridsim.lab2d import PropertyAttribute

PER_FAMILY = 2

# What every family's tests/<family>/cases.py defines, and what it is.
REQUIRED_CASES: dict[str, str] = {
    "ID_COUNT": "the number of Gymnasium ids the family registers, pinned (the registry-size test sums them)",
    "STATE_CASES": "name -> a function making a small batch whose state the state tests and fuzzers inject, "
                   "together using every field of the family",
    "COPY_CASES": "name -> (vector env class, single env class, constructor keywords): batches the copy, pickle "
                  "and checkpoint tests copy (short episodes, so that copies cross resets)",
    "no_goal_envs": "no_goal_envs(n, limit, mode): a batch of n envs with the step limit limit (None: the "
                    "family's default) and the autoreset mode mode that never terminates under the action "
                    "returned with it (the per-episode step-limit tests)",
    "EVENTS": "the family's events, pinned: (name, payload field names) of each event type, in type order (the "
              "kernel's type ids count from 1); () for a family without events",
    "BATCH_VARIANTS": "name -> factory(n, **keywords) of a batch of n worlds (envs, or kitchens of one row per "
                      "agent) in each observation type, action kind and option that the family's ids leave at "
                      "their default, built with the common keywords given (num_threads, events, "
                      "max_episode_steps...): the thread tests compare each on 1 to 8 threads, the event and "
                      "kernel-safety tests check its buffers",
    "changed_state": "changed_state(envs): a valid get_state() snapshot for env 1 of envs (4 envs of the family's "
                     "first id, played 3 steps) that differs from env 1's own: the interrupted set_state test",
    "out_of_range_states": "out_of_range_states(envs, v): set_state() states for env 0 of envs (2 envs of the "
                           "first id, reset), each with the integer v, past every range, in one of the family's "
                           "numbers (every one of them): each must be refused with an InvalidStateError",
    "PROPERTY_WRITES": "[(key, value, index)]: a write of each of the family's own writable properties (the "
                       "common settings are the engine's) that changes 4 played envs of its first id: the "
                       "atomic-write tests interrupt each; [] for a family without any",
    "BAD_FIELD_VALUES": "state case -> field -> (index of an entry within world 1's block, a value the state "
                        "validator refuses there): load_state_dict must refuse each, naming the field and the env; "
                        "a saved field left out, for which every value of its dtype is valid, gets a wrong dtype",
    "BAD_SET_STATES": "[(state case, {snapshot key: bad value}, the field the error names)]: changes of a "
                      "get_state() snapshot that set_state must refuse, changing nothing (\"objs.x\": key x of "
                      "the list objs' first entry, \"a.b\": key b of the dict a)",
    "CRASHED_STATES": "[(level name, keywords, field, value)]: states that once crashed the family's kernel "
                      "(entry 0 of a saved field set to value in a batch of 2 of gridsim.make(level, **keywords)): "
                      "each must be refused; [] where none did",
    "LIST_DESCRIPTIONS": "id -> its line in `gridsim list` (the row's describe hook), pinned for a few of the "
                         "family's ids",
}

# What a family's cases.py may define, and what it is.
OPTIONAL_CASES: dict[str, str] = {
    "REPRESENTATIVE_IDS": "registered ids of the family for the contract tests (default: its first PER_FAMILY ids)",
    "ARRAY_OBS_KWARGS": "the keywords that make every part of its observation an array, for the libraries that "
                        "take nothing else (Stable-Baselines3); default: none, its observations are arrays",
}


def cases_path(name: str) -> Path:
    """Where family ``name``'s cases for the engine-wide tests live."""
    return Path(__file__).parents[1] / name / "cases.py"


def family_tests(name: str) -> ModuleType:
    """The family's own cases for the engine-wide tests: ``tests/<name>/cases.py`` (``REQUIRED_CASES``).

    A family without the file gets an empty module: every required name is then missing.
    """
    # Loaded by path under a name of its own: a family may share its name with an installed
    # package (tests/minigrid and the reference package minigrid).
    module_name = f"_family_cases_{name}"
    if module_name not in sys.modules:
        path = cases_path(name)
        if not path.is_file():
            return ModuleType(module_name)
        spec = importlib.util.spec_from_file_location(module_name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


def missing_cases(name: str) -> list[str]:
    """The names of ``REQUIRED_CASES`` that family ``name``'s ``cases.py`` does not define."""
    module = family_tests(name)
    return [attribute for attribute in REQUIRED_CASES if not hasattr(module, attribute)]


def cases_by_family(attribute: str) -> dict:
    """Family name -> its ``cases.<attribute>``, in the family table's order, for the families that define it."""
    assert attribute in REQUIRED_CASES or attribute in OPTIONAL_CASES, f"{attribute} is declared in neither table"
    return {name: getattr(family_tests(name), attribute) for name in FAMILIES
            if hasattr(family_tests(name), attribute)}


def array_obs_kwargs(name: str) -> dict:
    """Family ``name``'s keywords for observations of arrays only (none where they are already)."""
    return dict(getattr(family_tests(name), "ARRAY_OBS_KWARGS", {}))


def merged(attribute: str) -> dict:
    """One mapping of every family's ``cases.<attribute>`` (a mapping of case names), in the family table's order."""
    out: dict = {}
    owner: dict = {}
    for name, cases in cases_by_family(attribute).items():
        for key, value in cases.items():
            assert key not in out, f"{attribute} case {key!r} is both {owner[key]}'s and {name}'s: rename one"
            out[key], owner[key] = value, name
    return out


def family_of_id(env_id: str) -> str | None:
    """The family whose vector env the id's ``vector_entry_point`` names (None: none does)."""
    entry = gym.spec(env_id).vector_entry_point
    if not isinstance(entry, str):
        return None
    for name, row in FAMILIES.items():
        if entry.rsplit(":", 1)[-1] == row.vector_env.__name__:
            return name
    return None


def ids_by_family() -> dict[str, list[str]]:
    """Every family's registered ids, in ``gridsim.registered_ids()`` order."""
    out: dict[str, list[str]] = {name: [] for name in FAMILIES}
    for env_id in gridsim.registered_ids():
        name = family_of_id(env_id)
        if name is not None:
            out[name].append(env_id)
    return out


def representative_ids(name: str, ids: list[str]) -> list[str]:
    """The ids of family ``name`` (registered: ``ids``) that the contract tests run."""
    chosen = getattr(family_tests(name), "REPRESENTATIVE_IDS", None)
    if chosen is None:
        return ids[:PER_FAMILY]
    strays = [env_id for env_id in chosen if env_id not in ids]
    assert chosen and not strays, f"{name}: REPRESENTATIVE_IDS {strays or chosen} are not registered ids of the family"
    return list(chosen)


def id_cases(ids_of: dict[str, list[str]]) -> list:
    """One pytest case per (family, id), with readable test ids such as "nav-Nav-four_rooms-v0"."""
    return [pytest.param(name, env_id, id=f"{name}-{env_id.split('/', 1)[-1]}")
            for name, ids in ids_of.items() for env_id in ids]


def contract_ids(name: str, ids: list[str]) -> list[str]:
    """The ids of family ``name`` the per-id contract tests run: every one, unless its cases.py's
    ``CONTRACT_IDS(ids)`` keeps fewer (ids that differ only in parameters of one generator)."""
    keep = getattr(family_tests(name), "CONTRACT_IDS", None)
    return ids if keep is None else list(keep(ids))


FAMILY_IDS: dict[str, list[str]] = {name: representative_ids(name, ids) for name, ids in ids_by_family().items()}
CASES = id_cases(FAMILY_IDS)
EVERY_ID_CASES = id_cases({name: contract_ids(name, ids) for name, ids in ids_by_family().items()})


def thread_min_units(env_id: str) -> int:
    """The smallest batch of ``env_id``'s family that runs on threads (its kernel's figure)."""
    envs = gym.make_vec(env_id, num_envs=1)
    try:
        return envs.kernel.thread_min_units
    finally:
        envs.close()


def make_vec(env_id: str, num_envs: int, **kwargs):
    """The id's native vector env (its ``vector_entry_point``), unwrapped."""
    envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    return envs.unwrapped


def variants_and_first_ids() -> dict:
    """name -> factory(n, **keywords) of a batch of n worlds: every family's first id (the case is named after the
    family), then every family's ``BATCH_VARIANTS``."""
    out: dict = {name: functools.partial(make_vec, ids[0]) for name, ids in FAMILY_IDS.items()}
    for name, factory in merged("BATCH_VARIANTS").items():
        assert name not in out, f"BATCH_VARIANTS case {name!r} is named as a family: rename it"
        out[name] = factory
    return out


def walk_properties(envs, key: str = "") -> list:
    """Every property key under ``key`` and its ``PropertyAttribute``, depth first."""
    out = []
    for child, attr in envs.list_property(key):
        out.append((child, attr))
        if attr & PropertyAttribute.LISTABLE:
            out.extend(walk_properties(envs, child))
    return out


def sample_actions(envs, steps: int, seed: int) -> np.ndarray:
    """``steps`` valid batched actions drawn from ``envs.action_space`` seeded with ``seed``."""
    envs.action_space.seed(seed)
    return np.stack([np.asarray(envs.action_space.sample()) for _ in range(steps)])


def obs_array(obs) -> np.ndarray:
    """An observation, or a batch of them, as one fresh array to stack, index by row and compare.

    An array is copied as it is. A dict (a Gymnasium ``Dict`` observation) becomes a structured
    array with one field per key, in sorted order as the ``Dict`` space keeps them, of the
    batch's shape ((N,), or () for one observation): the single env's and the vector env's
    dicts then compare whatever their key order. Strings are kept as objects, so that batches
    of strings of different lengths still stack.
    """
    if not isinstance(obs, Mapping):
        return np.array(obs, copy=True)
    values = {}
    for key in sorted(obs):
        v = np.asarray(obs[key])
        values[key] = v.astype(object) if v.dtype.kind in "US" else v
    # The batch's shape: what the values' shapes have in common (a row's own shape follows it).
    shapes = [v.shape for v in values.values()]
    lead = 0
    while all(len(s) > lead and s[lead] == shapes[0][lead] for s in shapes):
        lead += 1
    shape = shapes[0][:lead]
    out = np.empty(shape, [(key, v.dtype, v.shape[lead:]) for key, v in values.items()])
    for key, v in values.items():
        out[key] = v
    return out


def batch_of_one(obs):
    """A single env's observation as the batch of one a vector env returns: arrays with a leading
    axis of 1; a dict part by part (a string in a tuple of one)."""
    if isinstance(obs, Mapping):
        return {k: (v,) if isinstance(v, str) else np.asarray(v)[None] for k, v in obs.items()}
    return np.asarray(obs)[None]


def assert_obs_batch_conforms(envs, obs):
    """A batch of observations in ``observation_space``, each part of the shape and dtype of its space.

    An array has the batch's shape (N, *single shape); a ``Dict`` observation is checked key by
    key: parts of a space of fixed shape (``Box``, ``Discrete``) as such arrays of the space's
    dtype, the others (strings) as a tuple of N members of their space.
    """
    n = envs.num_envs
    space = envs.single_observation_space
    assert envs.observation_space.contains(obs), "obs outside observation_space"
    if not isinstance(space, gym.spaces.Dict):
        assert obs.shape == (n, *space.shape)
        return
    assert isinstance(obs, dict) and set(obs) == set(space.spaces), f"obs keys {list(obs)}"
    for key, part in space.spaces.items():
        value = obs[key]
        if part.shape is not None:
            assert isinstance(value, np.ndarray), f"obs[{key!r}] is a {type(value).__name__}"
            assert value.shape == (n, *part.shape) and value.dtype == part.dtype, \
                f"obs[{key!r}]: {value.shape} {value.dtype}, its space {part}"
        else:
            assert isinstance(value, tuple) and len(value) == n, f"obs[{key!r}] is not a tuple of {n}"
            assert all(part.contains(v) for v in value), f"obs[{key!r}] outside {part}"


def rollout(envs, actions: np.ndarray, seed) -> dict[str, np.ndarray]:
    """Reset with ``seed`` (None: continue as it stands) and play ``actions``; stack every output.

    Observations are stacked as :func:`obs_array` gives them.
    """
    obs0 = obs_array(envs.reset(seed=seed)[0]) if seed is not None else None
    out = {"obs": [], "rewards": [], "terminations": [], "truncations": []}
    for a in actions:
        obs, rew, term, trunc, _ = envs.step(a)
        out["obs"].append(obs_array(obs))
        for k, v in zip(("rewards", "terminations", "truncations"), (rew, term, trunc), strict=True):
            out[k].append(np.array(v, copy=True))
    result = {k: np.stack(v) for k, v in out.items()}
    result["reset_obs"] = obs0
    return result


def assert_rollouts_equal(a: dict, b: dict, rows_a=slice(None), rows_b=slice(None), msg: str = ""):
    """Bit-identical outputs (values and dtypes) on the selected rows."""
    for k in ("obs", "rewards", "terminations", "truncations"):
        x, y = a[k][:, rows_a], b[k][:, rows_b]
        assert x.dtype == y.dtype, f"{msg}{k}: dtype {x.dtype} != {y.dtype}"
        np.testing.assert_array_equal(x, y, err_msg=f"{msg}{k}")
    if a["reset_obs"] is not None and b["reset_obs"] is not None:
        np.testing.assert_array_equal(a["reset_obs"][rows_a], b["reset_obs"][rows_b], err_msg=f"{msg}reset_obs")
