"""The navigation ids are registered from the maps' file names, without reading the maps."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import gridsim
from gridsim.levels import builtin_level_names, read_level
from gridsim.nav.env import BUILTIN_META, DEFAULT_MAX_STEPS, LEVEL_META_SETTINGS, NavVectorEnv, level_defaults

GRIDSIM_HOME = str(Path(gridsim.__file__).resolve().parents[1])


def test_import_gridsim_reads_no_level():
    code = ("import gridsim, gymnasium as gym; from gridsim.levels import lookup; "
            "assert 'gridsim/Nav-four_rooms-v0' in gym.registry; print(lookup._read_file.cache_info().currsize)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=GRIDSIM_HOME), cwd=Path(GRIDSIM_HOME).anchor)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0"


def test_the_listing_is_the_map_files_meta():
    # The one test that reads the maps for it: the others take the listing as the maps' word.
    files = {}
    for name in builtin_level_names("nav"):
        meta = {k: v for k, v in read_level(name).meta.items() if k in LEVEL_META_SETTINGS}
        if meta:
            files[name.split("/", 1)[1]] = meta
    assert BUILTIN_META == files, (
        "the built-in maps' [meta] env defaults changed: set BUILTIN_META in gridsim/nav/env.py to "
        f"{files!r}")


@pytest.mark.parametrize("name", builtin_level_names("nav"))
def test_each_map_id_has_the_settings_of_its_meta_table(name):
    # The step limit (the map's own, else 100) and its other [meta] env defaults as arguments.
    stem = name.split("/", 1)[1]
    spec = gym.spec(f"gridsim/Nav-{stem}-v0")
    defaults = level_defaults(BUILTIN_META.get(stem, {}))
    assert spec.max_episode_steps == int(defaults.pop("max_steps", DEFAULT_MAX_STEPS))
    expected = {NavVectorEnv.SETTINGS[k].kwarg or k: NavVectorEnv.SETTINGS[k].parse(k, v) for k, v in defaults.items()}
    assert spec.kwargs == {"level": name, **expected}
