"""Names on the command line: registered ids, ids without ``gridsim/`` (Minigrid's own), typos.

Every command that takes an env (``bench --level``, ``eval``, ``render``, ``check``, ``play``)
takes the same names, and every name it suggests for a typo it also accepts. ``gridsim list``
takes a family or the start of an id.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import gymnasium as gym
import pytest
from engine.command_line import one_line_error, sigterm_handler_kept  # noqa: F401 - an autouse fixture
from engine.family_cases import FAMILY_IDS, ids_by_family

import gridsim
from gridsim.cli import main
from gridsim.families import FAMILIES
from gridsim.tools.env_names import env_entry, gridsim_id

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ["bench", "eval", "render", "check", "play"]
FIRST_IDS = {family: ids[0] for family, ids in FAMILY_IDS.items()}


@pytest.fixture
def run(tmp_path, monkeypatch):
    """``run(command, name)``: the exit status of ``gridsim <command>`` on ``name``, with the least work.

    A one-step benchmark, one episode, the reset frame, the checks, a game quit at once.
    """
    monkeypatch.chdir(tmp_path)

    def run_command(command: str, name: str) -> int:
        argv = {
            "bench": ["bench", "--level", name, "--num-envs", "2", "--steps", "1", "--repeats", "1"],
            "eval": ["eval", name, "--seeds", "0:1", "--no-progress"],
            "render": ["render", name, "--out", str(tmp_path / "frame.png")],
            "check": ["check", name],
            "play": ["play", name, "--terminal"],
        }[command]
        monkeypatch.setattr("sys.stdin", io.StringIO("q"))  # play quits at its first key
        return main(argv)

    return run_command


def short_name(env_id: str) -> str:
    """The id as the project it comes from writes it: without gridsim's namespace."""
    assert env_id.startswith("gridsim/")
    return env_id.removeprefix("gridsim/")


def suggestions(line: str) -> list[str]:
    """The names an error line suggests (``did you mean 'a' or 'b'?``), best first."""
    found = re.search(r"; did you mean (.*)\?", line)
    return re.findall(r"'([^']*)'", found.group(1)) if found else []


# --------------------------------------------------------------------------- registered ids


@pytest.mark.parametrize("family", FIRST_IDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_a_registered_id_whole_and_without_gridsim(command, family, run, capsys):
    env_id = FIRST_IDS[family]
    for name in (env_id, short_name(env_id)):
        assert run(command, name) == 0, (name, capsys.readouterr().err)
        captured = capsys.readouterr()
        assert captured.err == ""  # the short name resolves silently
        if command != "play":  # what ran is named as registered
            assert env_id in captured.out, (name, captured.out)


def test_gridsim_id_names_the_registered_id_or_none():
    assert gridsim_id("gridsim/MiniGrid-DoorKey-8x8-v0") == gridsim_id("MiniGrid-DoorKey-8x8-v0") == \
        "gridsim/MiniGrid-DoorKey-8x8-v0"
    assert gridsim_id("Nav-four_rooms-v0") == "gridsim/Nav-four_rooms-v0"
    for name in ["nav/four_rooms", "minigrid:DoorKey-8x8-v0", "CartPole-v1", "MiniGrid-DoorKey-8x8-v9",
                 "other/MiniGrid-DoorKey-8x8-v0"]:
        assert gridsim_id(name) is None, name
    env_id = "mine/Maze21-v0"  # an id of gridsim's in another namespace names itself
    gridsim.register_level(env_id, "examples/maze:21")
    try:
        assert gridsim_id(env_id) == env_id and gridsim_id("Maze21-v0") is None
    finally:
        del gym.registry[env_id]


def test_bench_names_an_id_in_its_header(run, capsys):
    assert run("bench", "MiniGrid-DoorKey-8x8-v0") == 0
    assert ", id gridsim/MiniGrid-DoorKey-8x8-v0, 2 envs," in capsys.readouterr().out.splitlines()[0]
    assert run("bench", "minigrid:MiniGrid-DoorKey-8x8-v0") == 0
    assert ", level minigrid:MiniGrid-DoorKey-8x8-v0, 2 envs," in capsys.readouterr().out.splitlines()[0]


@pytest.mark.parametrize("env_id", list(FIRST_IDS.values()) + ["gridsim/Nav-four_rooms-v0"])
def test_bench_times_an_ids_env_with_its_registered_arguments_and_step_limit(env_id, run, monkeypatch):
    from gridsim.tools import benchmark

    timed = []

    def measure(envs, *args, **kwargs):
        timed.append((envs.spec.id, envs.max_episode_steps, envs.unwrapped.spec.kwargs))
        return real_measure(envs, *args, **kwargs)

    real_measure = benchmark.measure
    monkeypatch.setattr(benchmark, "measure", measure)
    assert run("bench", env_id) == 0
    registered = gym.make_vec(env_id, num_envs=1, vectorization_mode="vector_entry_point")
    for id_timed, limit, kwargs in timed:
        assert id_timed == env_id and limit == registered.max_episode_steps
        assert {k: v for k, v in kwargs.items() if k in gym.spec(env_id).kwargs} == gym.spec(env_id).kwargs
    registered.close()
    assert timed  # one batch per observation type


def test_bench_of_a_level_keeps_the_familys_benchmark_episodes(run, monkeypatch):
    # The level behind gridsim/Nav-four_rooms-v0 (200 steps) is timed in episodes of 100, as ever.
    from gridsim.tools import benchmark

    limits = []
    real_measure = benchmark.measure
    monkeypatch.setattr(benchmark, "measure",
                        lambda envs, *a, **k: limits.append(envs.max_episode_steps) or real_measure(envs, *a, **k))
    assert run("bench", "nav/four_rooms") == 0
    assert limits and set(limits) == {FAMILIES["nav"].tools.bench_kwargs["max_episode_steps"]} != {200}


def test_the_readmes_minigrid_line_times_the_id_it_names(run, capsys):
    readme = ROOT / "README.md"
    if not readme.is_file():
        pytest.skip("README.md is not next to the tests")
    text = " ".join(readme.read_text().split("## Usage", 1)[0].split())  # the quickstart, lines joined
    assert "pip install . && gridsim bench" in text
    (name,) = re.findall(r"`gridsim bench --level (MiniGrid-\S+)`", text)
    assert f'Minigrid\'s `gym.make("{name}")`' in text
    assert run("bench", name) == 0
    assert f", id gridsim/{name}, " in capsys.readouterr().out.splitlines()[0]


def test_minigrids_own_id_names_gridsims_where_the_minigrid_package_registered_it(run, capsys):
    pytest.importorskip("minigrid")
    import minigrid  # noqa: F401 - registers Minigrid's own MiniGrid-* ids

    assert "gridsim" not in str(gym.spec("MiniGrid-DoorKey-8x8-v0").entry_point)
    assert env_entry("MiniGrid-DoorKey-8x8-v0") == ("gridsim/MiniGrid-DoorKey-8x8-v0", {})
    assert run("eval", "MiniGrid-DoorKey-8x8-v0") == 0
    assert capsys.readouterr().out.startswith("gridsim/MiniGrid-DoorKey-8x8-v0: policy random")
    # An id of no gridsim env is still refused, with or without its package.
    assert run("eval", "CartPole-v1") == 2
    assert "'CartPole-v1' is not a gridsim id" in one_line_error(capsys, "eval")


def test_a_short_id_wins_over_a_file_of_that_name_with_a_note(run, capsys, tmp_path):
    (tmp_path / "MiniGrid-Empty-5x5-v0").write_text("not a level")
    assert run("eval", "MiniGrid-Empty-5x5-v0") == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("gridsim/MiniGrid-Empty-5x5-v0: policy random")
    assert "is a registered id; the file of that name in the working directory is not read" in captured.err


# --------------------------------------------------------------------------- typos


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("name", "expected"), [
    ("gridsim/MiniGrid-DoorKey-8x8-v9", "gridsim/MiniGrid-DoorKey-8x8-v0"),
    ("MiniGrid-DoorKey-8x8-v9", "gridsim/MiniGrid-DoorKey-8x8-v0"),
    ("MiniGrid-DorKey-8x8-v0", "gridsim/MiniGrid-DoorKey-8x8-v0"),
    ("Nav-four_romos-v0", "gridsim/Nav-four_rooms-v0"),
])
def test_a_misspelt_id_is_one_line_naming_the_id(command, name, expected, run, capsys):
    assert run(command, name) == 2
    assert suggestions(one_line_error(capsys, command))[0] == expected


def near_misses(name: str) -> list[str]:
    """Two typos of ``name``, in its last part (after the last ``/`` or ``:``): two letters swapped, one doubled."""
    head, tail = re.match(r"(.*[/:])?(.*)", name).groups()
    head = head or ""
    i = len(tail) // 2
    while tail[i] == tail[i + 1]:  # a swap of two equal letters would change nothing
        i += 1
    return [head + tail[:i] + tail[i + 1] + tail[i] + tail[i + 2:], head + tail[:i] + tail[i] + tail[i:]]


@pytest.fixture(scope="module")
def accepted() -> dict:
    """(command, name) -> exit status, shared by the tests of one module: each name is run once per command."""
    return {}


@pytest.mark.parametrize("family", FIRST_IDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_suggestion_is_a_name_the_command_accepts(command, family, run, capsys, accepted):
    env_id = FIRST_IDS[family]
    names = {"level": FAMILIES[family].tools.bench_name(), "id": env_id, "short id": short_name(env_id)}
    for kind, name in names.items():
        for typo in near_misses(name):
            assert run(command, typo) == 2, typo
            suggested = suggestions(one_line_error(capsys, command))
            if kind != "level":  # a level's module may refuse its argument without a suggestion
                assert suggested, typo
            for suggestion in suggested:
                if (command, suggestion) not in accepted:
                    accepted[command, suggestion] = run(command, suggestion)
                    capsys.readouterr()
                assert accepted[command, suggestion] == 0, f"{typo!r} suggests {suggestion!r}, which {command} refuses"


# --------------------------------------------------------------------------- gridsim list


def listed(capsys, *argv: str) -> dict[str, str]:
    """id -> the line ``gridsim list ARGV`` prints for it."""
    assert main(["list", *argv]) == 0
    return {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}


@pytest.mark.parametrize("family", FAMILIES)
def test_list_a_family_prints_its_ids_as_the_whole_list_does(family, capsys):
    every = {env_id: line.split(maxsplit=1)[1] for env_id, line in listed(capsys).items()}
    ids = listed(capsys, family)
    assert set(ids_by_family()[family]) <= set(ids)
    # Beyond the family's own: ids that start with its name ("nav": gridsim/Nav-*), all of the family too.
    assert all(env_id in ids_by_family()[family] or short_name(env_id).lower().startswith(family) for env_id in ids)
    assert {env_id: line.split(maxsplit=1)[1] for env_id, line in ids.items()} == {i: every[i] for i in ids}


def test_list_minigrid_is_minigrids_ids_and_nothing_else(capsys):
    assert list(listed(capsys, "minigrid")) == sorted(ids_by_family()["minigrid"])


@pytest.mark.parametrize("prefix", ["MiniGrid-Door", "gridsim/MiniGrid-Door", "minigrid-door",
                                    "MiniGrid-DoorKey-8x8-v0"])
def test_list_a_prefix_prints_the_ids_that_start_with_it(prefix, capsys):
    start = ("gridsim/" + prefix.removeprefix("gridsim/")).lower()
    expected = [env_id for env_id in gridsim.registered_ids() if env_id.lower().startswith(start)]
    assert expected and list(listed(capsys, prefix)) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("minigird", "minigrid"), ("kitchn", "kitchen"), ("MiniGrid-Dor", "MiniGrid-DoorKey"),
    ("gridsim/Gridroboman-Lft", "gridsim/Gridroboman-LiftRed"), ("Kitchen-opne", "Kitchen-open"),
    ("MiniGrid-DoorKey-8x8-v9", "MiniGrid-DoorKey-8x8-v0"),
])
def test_list_a_filter_that_matches_nothing_is_one_line_whose_suggestions_match(text, expected, capsys):
    assert main(["list", text]) == 2
    line = one_line_error(capsys, "list")
    assert f"no id matches {text!r}" in line
    assert expected in suggestions(line)
    for suggestion in suggestions(line):
        assert listed(capsys, suggestion), suggestion


def test_list_a_filter_like_nothing_suggests_nothing(capsys):
    assert main(["list", "zzzz"]) == 2
    line = one_line_error(capsys, "list")
    assert "name a family (nav, roboman, kitchen, minigrid)" in line and suggestions(line) == []


def test_list_settings_of_one_family(capsys):
    assert main(["list", "--settings", "minigrid"]) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if line.startswith("## ")] == [
        "## minigrid (MinigridVectorEnv)"]
    assert main(["list", "--settings", "minigird"]) == 2
    assert suggestions(one_line_error(capsys, "list")) == ["minigrid"]
