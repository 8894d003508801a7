"""The ``gridsim`` command line: version, help, argument order and errors (no timings)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from engine.command_line import one_line_error, sigterm_handler_kept  # noqa: F401 - an autouse fixture
from engine.family_cases import FAMILY_IDS, merged

import gridsim
from gridsim.cli import main
from gridsim.families import FAMILIES
from gridsim.levels.lookup import builtin_root

GRIDSIM_HOME = str(Path(gridsim.__file__).resolve().parents[1])

def level_name_param(family: str) -> pytest.param:
    """The family's level name (its benchmark level)."""
    return pytest.param(FAMILIES[family].tools.bench_name(), id=family)


LEVEL_NAMES = [level_name_param(family) for family in FAMILY_IDS]


def test_version_prints_the_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"gridsim {gridsim.__version__}"


def test_list_describes_every_id(capsys):
    # One line on the task of every id but the older names, each family's from its describe hook.
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if len(line.split(maxsplit=1)) < 2] == []  # an id without its line
    described = dict(line.split(maxsplit=1) for line in lines)
    assert list(described) == gridsim.registered_ids()
    for env_id, text in merged("LIST_DESCRIPTIONS").items():  # each family's, pinned in its cases.py
        assert described[env_id] == text, env_id
    assert described["gridsim/Level-v0"].startswith("any level by name")


def test_list_leads_with_descriptive_ids(capsys):
    assert main(["list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert "gridsim/PixelWorld-room1_small-v0" in listed
    assert "gridsim/PixelWorld-v0" not in listed  # the original's name, kept as an alias
    assert listed == gridsim.registered_ids()


def test_check_passes_every_id_without_gymnasium_notices(tmp_path):
    # A fresh interpreter with Python's default warning filters, as a user's shell runs it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    run = subprocess.run([sys.executable, "-m", "gridsim.cli", "check"], capture_output=True, text=True,
                         cwd=tmp_path, env=dict(env, PYTHONPATH=GRIDSIM_HOME), timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.split() == [word for env_id in gridsim.registered_ids() for word in ("ok", env_id)]
    assert "out of date" not in run.stdout + run.stderr
    assert run.stderr == ""


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_play_help_before_the_id(flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["play", flag])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: gridsim play") and "--terminal" in out


def test_play_help_lists_every_familys_keys(capsys):
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = capsys.readouterr().out
    keys = out.split("keys:", 1)[1]
    for fam in FAMILIES.values():
        assert f"  {fam.name}  " in keys.replace(" " * 3, "  ") and fam.tools.play_help in keys
    assert "R reset, Esc or Q quit" in keys
    assert "[id]" in out.splitlines()[0]


def test_play_without_an_id_says_to_name_one(capsys):
    assert main(["play", "--terminal"]) == 2
    line = one_line_error(capsys, "play")
    assert "name the env to play" in line and "gridsim list" in line


def test_play_without_an_id_from_python_m_is_one_line(tmp_path):
    env = dict(os.environ, PYTHONPATH=GRIDSIM_HOME)
    run = subprocess.run([sys.executable, "-m", "gridsim.tools.play", "--terminal"], capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=120, stdin=subprocess.DEVNULL)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("gridsim play: error: name the env to play") and run.stderr.count("\n") == 1


def test_play_refuses_an_action_type_it_has_no_keys_for_in_one_line(capsys, tmp_path, monkeypatch):
    (tmp_path / "sideways.txt").write_text("%gridsim 1\n[meta]\nfamily = nav\nactions = 1d_horizontal\n"
                                           "[map]\n#####\n#S 0#\n#####\n")
    monkeypatch.chdir(tmp_path)
    assert main(["play", "--terminal", "sideways.txt"]) == 2
    assert "manual play supports the 4-action type only" in one_line_error(capsys, "play")


def test_play_options_before_the_id(monkeypatch):
    import gridsim.tools.play as play

    seen = {}

    class Session:
        def __init__(self, env_id, seed, render_mode):
            seen.update(env_id=env_id, seed=seed, render_mode=render_mode)

        def close(self):
            pass

    monkeypatch.setattr(play, "PlaySession", Session)
    monkeypatch.setattr(play, "play_terminal", lambda session: 0)
    monkeypatch.setattr(play.signal, "signal", lambda *a: None)
    assert main(["play", "--terminal", "--seed", "3", "gridsim/Gridroboman-LiftRed-v0"]) == 0
    assert seen == {"env_id": "gridsim/Gridroboman-LiftRed-v0", "seed": 3, "render_mode": "ansi"}


def test_bench_help_describes_every_option(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one line per option
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    out = capsys.readouterr().out
    # One entry per option; a long option's help starts on the next line.
    entries = [" ".join(e.split("\n")).strip() for e in ("\n" + out.split("options:", 1)[1]).split("\n  -")[1:]]
    entries = ["-" + e for e in entries]
    names = {entry.split()[0].rstrip(",") for entry in entries}
    assert {"--level", "--level-directory", "--num-envs", "--steps", "--repeats", "--seed", "--obs",
            "--threads", "--json"} <= names
    # argparse prints an option without help as its bare name (and metavar).
    assert all("  " in entry and entry.split("  ", 1)[1].strip() for entry in entries), entries
    assert "before the built-in levels" in out


def test_bench_level_directory(tmp_path, capsys):
    (tmp_path / "nav").mkdir()
    (tmp_path / "nav" / "mine.txt").write_text((builtin_root() / "nav" / "room1_small.txt").read_text())
    tiny = ["--steps", "2", "--repeats", "1", "--num-envs", "4", "--obs", "coords"]
    assert main(["bench", "--level-directory", str(tmp_path), "--level", "nav/mine", *tiny]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "level nav/mine" in rows[0] and rows[3].split()[0] == "coords"


def test_bench_a_family_without_an_obs_type_setting(monkeypatch, capsys):
    # A family with one observation declares no obs_type: the table names the env's obs_type.
    from dataclasses import replace

    class OneObservation(gridsim.NavVectorEnv):
        SETTINGS = {k: v for k, v in gridsim.NavVectorEnv.SETTINGS.items() if k != "obs_type"}

    row = FAMILIES["nav"]
    monkeypatch.setitem(FAMILIES, "nav", replace(row, vector_env=OneObservation,
                                                 tools=replace(row.tools, bench_obs_types=(None,))))
    assert main(["bench", "--level", "nav/room1_small", "--steps", "2", "--repeats", "1", "--num-envs", "4"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 4 + 3 and rows[3].split()[0] == "coords"  # header, one row, the legend
    assert gridsim.GridVectorEnv.obs_type == "default"


def test_level_files_named_on_the_command_line_load_from_where_they_are(tmp_path, capsys, monkeypatch):

    (tmp_path / "mine.txt").write_text((builtin_root() / "nav" / "four_rooms.txt").read_text())
    monkeypatch.chdir(tmp_path)
    tiny = ["--steps", "2", "--repeats", "1", "--num-envs", "4", "--obs", "coords"]
    for name in ["mine.txt", str(tmp_path / "mine.txt")]:  # relative and absolute
        assert main(["bench", "--level", name, *tiny]) == 0
        assert capsys.readouterr().out.splitlines()[3].split()[0] == "coords"
    assert main(["eval", "mine.txt", "--seeds", "0:3"]) == 0
    assert capsys.readouterr().out.startswith("mine.txt: policy random")


def test_bench_unknown_level_is_one_line_before_the_header(capsys):
    assert main(["bench", "--level", "nav/four_romos", "--steps", "2", "--repeats", "1", "--num-envs", "4"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no table header
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "gridsim bench: error: level 'nav/four_romos' not found; did you mean 'nav/four_rooms'")
    assert lines[0].endswith("?")


class FakeBar:
    """Records what gridsim bench does with a tqdm bar."""

    made: list[FakeBar] = []

    def __init__(self, total, **kwargs):
        self.total, self.kwargs, self.n, self.closed = total, kwargs, 0, False
        FakeBar.made.append(self)

    def update(self, n=1):
        self.n += n

    def close(self):
        self.closed = True


@pytest.fixture
def fake_tqdm(monkeypatch):
    import sys
    import types

    FakeBar.made = []
    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeBar))
    return FakeBar.made


TINY = ["--steps", "2", "--repeats", "3", "--num-envs", "4", "--obs", "coords", "view"]


def test_bench_progress_bar_on_stderr_counts_every_repeat(fake_tqdm, capsys):
    import sys

    assert main(["bench", "--progress", *TINY]) == 0
    (bar,) = fake_tqdm
    assert bar.total == bar.n == 2 * 3 and bar.closed  # two observation types, three repeats each
    assert bar.kwargs["file"] is sys.stderr and bar.kwargs["delay"] > 0  # only on runs of a few seconds
    rows = capsys.readouterr().out.splitlines()
    assert [r.split()[0] for r in rows[3:5]] == ["coords", "view"] and rows[5].startswith("kernel call, step():")


def test_bench_progress_bar_off_by_default_off_a_terminal(fake_tqdm, capsys):
    assert main(["bench", *TINY]) == 0  # capsys: stderr is not a terminal
    assert main(["bench", "--progress", "--no-progress", *TINY]) == 0
    assert fake_tqdm == []


@pytest.mark.skipif(not gridsim.threads_available(), reason="a build without threads")
def test_bench_progress_bar_with_thread_counts(fake_tqdm):
    assert main(["bench", "--progress", "--threads", "1", "2", *TINY]) == 0
    (bar,) = fake_tqdm
    assert bar.total == bar.n == 2 * 2 * 3  # observation types, modes (kernel call, step()), repeats


def test_bench_progress_without_tqdm(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    assert main(["bench", "--progress", *TINY]) == 0
    assert capsys.readouterr().out.splitlines()[4].split()[0] == "view"


def test_measure_calls_progress_after_each_repeat():
    import gridsim
    from gridsim.tools.benchmark import make_actions, measure

    envs = gridsim.make("nav/four_rooms", 4)
    envs.reset(seed=0)
    calls = []
    measure(envs, make_actions(envs.single_action_space, 2, 4, 0), repeats=4, progress=lambda: calls.append(1))
    assert len(calls) == 4
    envs.close()


TINY_BENCH = ["--steps", "2", "--repeats", "1", "--num-envs", "4"]


@pytest.mark.parametrize(("argv", "expected"), [
    (["eval", "gridsim/Nav-four_romos-v0", "--seeds", "0:2"], "did you mean 'gridsim/Nav-four_rooms-v0'"),
    (["eval", "nav/four_romos", "--seeds", "0:2"], "did you mean 'nav/four_rooms'"),
    (["eval", "gridsim/Nav-four_rooms-v0", "--seeds", "0:2", "--num-envs", "0"], "--num-envs must be a positive"),
    (["eval", "gridsim/Nav-four_rooms-v0", "--seeds", "0:2", "--max-episode-steps", "0"], "--max-episode-steps"),
    (["eval", "CartPole-v1", "--seeds", "0:2"], "not a gridsim id"),
    (["check", "gridsim/Nav-four_romos-v0"], "did you mean 'gridsim/Nav-four_rooms-v0'"),
    (["check", "nav/four_romos"], "did you mean 'nav/four_rooms'"),
    (["play", "gridsim/Nav-four_romos-v0", "--terminal"], "did you mean 'gridsim/Nav-four_rooms-v0'"),
    (["play", "nav/four_romos", "--terminal"], "did you mean 'nav/four_rooms'"),
    (["render", "nav/four_romos", "--out", "x.gif"], "did you mean 'nav/four_rooms'"),
    (["bench", "--obs", "rgb", *TINY_BENCH], "--obs 'rgb': the nav family's observation types are coords"),
    (["bench", "--obs", "imag", *TINY_BENCH], "did you mean 'image'?"),
    (["bench", "--num-envs", "0"], "--num-envs must be a positive integer, got 0"),
    (["bench", "--steps", "0"], "--steps must be a positive integer"),
    (["bench", "--repeats", "0"], "--repeats must be a positive integer"),
    (["bench", "--seed", "-1", *TINY_BENCH], "--seed must be non-negative"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_typos_and_bad_numbers_are_one_line_errors(argv, expected, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    line = one_line_error(capsys, argv[0])
    assert expected in line
    assert not line.endswith("; tried:")


def test_eval_max_episode_steps_runs_a_level_without_a_step_limit(capsys, tmp_path, monkeypatch):
    # A kitchen file: no step limit of its own, and no registered id whose limit it could take.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kitchen").mkdir()
    (tmp_path / "kitchen" / "mine.txt").write_text((builtin_root() / "kitchen" / "open-divider_salad.txt").read_text())
    assert main(["eval", "kitchen/mine.txt", "--seeds", "0:2"]) == 2
    assert "--max-episode-steps 100" in one_line_error(capsys, "eval")
    assert main(["eval", "kitchen/mine.txt", "--seeds", "0:3", "--max-episode-steps", "7"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kitchen/mine.txt: policy random")
    length = next(line for line in out.splitlines() if line.startswith("length"))
    assert float(length.split()[1]) == 7.0  # every random episode truncated at 7 steps


def test_eval_gives_a_built_in_level_by_name_the_step_limit_of_its_id(capsys):
    # The kitchen has no step limit of its own; gridsim/Kitchen-open-divider_salad-v0 has 100 steps.
    assert main(["eval", "kitchen/open-divider_salad", "--seeds", "0:3", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kitchen/open-divider_salad: policy random")
    length = next(line for line in out.splitlines() if line.startswith("length"))
    assert float(length.split()[1]) == 100.0  # random cooks deliver nothing: every episode truncated
    assert main(["eval", "kitchen/open-divider_salad", "--seeds", "0:3", "--max-episode-steps", "7"]) == 0
    assert "length                 7.0000" in capsys.readouterr().out  # a limit given wins


def test_check_takes_level_names_and_files(capsys, tmp_path, monkeypatch):

    (tmp_path / "mine.txt").write_text((builtin_root() / "nav" / "four_rooms.txt").read_text())
    monkeypatch.chdir(tmp_path)
    assert main(["check", "nav/four_rooms", "roboman:LiftRed", "mine.txt"]) == 0
    assert capsys.readouterr().out.split() == ["ok", "nav/four_rooms", "ok", "roboman:LiftRed", "ok", "mine.txt"]


@pytest.mark.parametrize("name", LEVEL_NAMES)
def test_check_takes_every_familys_level_names(name, capsys):
    assert main(["check", name]) == 0
    assert capsys.readouterr().out.split() == ["ok", name]


@pytest.mark.parametrize("name", LEVEL_NAMES)
def test_play_takes_level_names(name, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("q"))
    assert main(["play", name, "--terminal"]) == 0
    assert "Esc quit" in capsys.readouterr().out


def test_bench_legend_says_what_each_column_is(capsys):
    assert main(["bench", *TINY]) == 0
    rows = capsys.readouterr().out.splitlines()
    header = rows[1].split()
    assert header[-1] == "ns/env-step" and "speed-up" not in rows[1]  # one thread count: nothing to compare
    assert all(not r.endswith("x") for r in rows[3:5])
    legend = rows[5:]
    assert [line.split(":")[0] for line in legend] == ["kernel call, step()", "step/kernel", "ns/env-step"]
    assert "above 100%" in legend[1] and "timing noise" in legend[1]
    assert "best of 3 repeats of 2 steps of 4 envs" in legend[0]


@pytest.mark.skipif(not gridsim.threads_available(), reason="a build without threads")
def test_bench_speed_up_column_with_several_thread_counts(capsys):
    assert main(["bench", "--threads", "1", "2", *TINY]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[1].split()[-1] == "speed-up"
    assert [r.split()[1] for r in rows[3:7]] == ["1", "2", "1", "2"] and rows[3].endswith("1.00x")
    assert rows[-1] == "speed-up: step()'s rate over its rate on 1 thread"


def test_bench_times_each_resolved_thread_count_once(capsys, monkeypatch):
    # "auto" is the count it stands for: named beside that count, it is timed once.
    from gridsim.engine import vector

    monkeypatch.setattr(vector, "usable_cpus", lambda: 2 if gridsim.threads_available() else 1)
    auto = vector.parse_num_threads("auto")
    assert main(["bench", "--threads", "1", str(auto), "auto", "1", *TINY]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.endswith("kernel threads " + " ".join(dict.fromkeys(["1", str(auto)])))


@pytest.mark.parametrize("args", [["list"], ["list", "--settings"]])
def test_a_reader_that_stops_early_gets_no_traceback(args):
    # gridsim list | head: the reader closes the pipe after a line; the writer ends quietly.
    proc = subprocess.Popen([sys.executable, "-m", "gridsim.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=Path(GRIDSIM_HOME).anchor,
                            env=dict(os.environ, PYTHONPATH=GRIDSIM_HOME))
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
