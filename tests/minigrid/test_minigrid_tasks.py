"""The task table (gridsim/minigrid/tasks.py): every MiniGrid table follows from it, and a change says what to edit.

A task is one row: its generator, its rule, its description and its ids. The kernel's
numbering and dispatch are generated from it at build time; the ids, their descriptions and
the pinned counts here are read from it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium as gym
import pytest

import gridsim.minigrid._kernel as _kernel
from gridsim.minigrid import tasks
from gridsim.minigrid.ids import BABYAI_IDS, MINIGRID_IDS, REFERENCE_IDS

MINIGRID_REFERENCE_IDS = [name for name in REFERENCE_IDS if name not in BABYAI_IDS]

CASES = Path(__file__).with_name("cases.py")


def pinned():
    spec = importlib.util.spec_from_file_location("_minigrid_cases_pins", CASES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_kernel_was_generated_from_the_installed_table():
    assert _kernel.MINIGRID_TASKS_DIGEST == tasks.digest(), (
        "gridsim/minigrid/tasks.py changed since gridsim.minigrid._kernel was built: rebuild "
        "(pip install -e . or python setup.py build_ext --inplace)")


def test_generators_and_rules_are_numbered_by_their_rows():
    assert _kernel.MINIGRID_GENERATORS == {t.name: k for k, t in enumerate(tasks.TASKS)}
    assert _kernel.MINIGRID_RULES == {r.name: k for k, r in enumerate(tasks.RULES)}


def test_every_task_has_a_known_rule_and_ids_and_every_rule_a_task():
    names = [r.name for r in tasks.RULES]
    for task in tasks.TASKS:
        assert task.rule in names, f"gridsim/minigrid/tasks.py: task {task.name!r} has rule {task.rule!r}, not in RULES"
        # Only the rows of tasks of your own have no id (gridsim.minigrid.python_tasks and .compiled).
        assert task.ids or task.name in ("python", "compiled"), \
            f"gridsim/minigrid/tasks.py: task {task.name!r} declares no ids"
        assert all(spec.generator == task.name for spec in task.ids)
    unused = set(names) - {t.rule for t in tasks.TASKS}
    assert not unused, f"rules no task applies (gridsim/minigrid/tasks.py): {sorted(unused)}"


def test_a_rule_missing_from_the_vocabulary_is_refused_at_build(monkeypatch):
    bad = tasks.Task("twokeys", "open_two_doors", "", "", ())
    monkeypatch.setattr(tasks, "TASKS", (*tasks.TASKS, bad))
    with pytest.raises(ValueError, match=r"gridsim/minigrid/tasks\.py: tasks with a rule not in RULES: "
                                         r"\[\('twokeys', 'open_two_doors'\)\]"):
        tasks.kernel_source()


def test_the_generated_dispatch_calls_each_tasks_generator():
    source = tasks.kernel_source()
    for k, task in enumerate(tasks.TASKS):
        assert f"    GEN_{task.name.upper()} = {k}" in source
        assert f"    if cfg.gen == GEN_{task.name.upper()}:\n        return gen_{task.name}(w, cfg)" in source
    assert f"    NUM_GENS = {len(tasks.TASKS)}" in source


def test_ids_are_unique_and_each_has_a_description():
    names = [spec.name for task in tasks.TASKS for spec in task.ids]
    assert len(names) == len(set(names)) == len(MINIGRID_IDS)
    for spec in MINIGRID_IDS.values():
        assert spec.description.endswith(f" ({spec.width}x{spec.height})") and len(spec.description) > 12


def test_the_id_counts_are_pinned_apart():
    pins = pinned()
    own = [name for name, spec in MINIGRID_IDS.items() if not spec.reference]
    assert len(BABYAI_IDS) == pins.BABYAI_ID_COUNT, (
        f"gridsim/minigrid/tasks.py declares {len(BABYAI_IDS)} BabyAI ids; tests/minigrid/cases.py pins "
        f"BABYAI_ID_COUNT = {pins.BABYAI_ID_COUNT}: change the pin if that is meant, and docs/babyai.md")
    assert len(MINIGRID_REFERENCE_IDS) == pins.REFERENCE_ID_COUNT, (
        f"gridsim/minigrid/tasks.py declares {len(MINIGRID_REFERENCE_IDS)} MiniGrid ids of Minigrid 3.2.0 "
        "(MinigridSpec.reference); "
        f"tests/minigrid/cases.py pins REFERENCE_ID_COUNT = {pins.REFERENCE_ID_COUNT}: change the pin if that is "
        "meant, and the id's row in docs/minigrid.md ('Every id')")
    assert len(own) == pins.OWN_ID_COUNT, (
        f"gridsim/minigrid/tasks.py declares {len(own)} ids of gridsim's own ({own}); tests/minigrid/cases.py pins "
        f"OWN_ID_COUNT = {pins.OWN_ID_COUNT}: change the pin if that is meant")


@pytest.mark.parametrize("reference", [True, False])
def test_reference_ids_are_minigrids_and_the_others_are_not(reference):
    pytest.importorskip("minigrid")
    import minigrid  # noqa: F401 - registers Minigrid's ids

    registered = {name for name in gym.registry if name.startswith("MiniGrid-")}
    if reference:
        # Every Minigrid id but the six WFC ones it cannot reset (docs/minigrid.md, "The WFC ids").
        unplayed = sorted(registered - set(MINIGRID_REFERENCE_IDS))
        assert len(unplayed) == 6 and all("WFC" in name for name in unplayed), (
            f"Minigrid ids gridsim/minigrid/tasks.py does not declare: {unplayed}")
        assert set(MINIGRID_REFERENCE_IDS) <= registered
        babyai = {name for name in gym.registry if name.startswith("BabyAI-")}
        assert babyai == set(BABYAI_IDS), (
            f"BabyAI ids not declared: {sorted(babyai - set(BABYAI_IDS))}, not Minigrid's: "
            f"{sorted(set(BABYAI_IDS) - babyai)}")
    else:
        clash = sorted(name for name, spec in MINIGRID_IDS.items() if not spec.reference and name in registered)
        assert not clash, f"ids of gridsim's own named as Minigrid's (gridsim/minigrid/tasks.py): {clash}"
