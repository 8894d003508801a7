"""The ``gridsim`` command line: version, help, argument order and errors (no timings)."""

from __future__ import annotations

import pytest

import gridsim
from gridsim.cli import main


def test_version_prints_the_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"gridsim {gridsim.__version__}"


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_play_help_before_the_id(flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["play", flag])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: gridsim play") and "--terminal" in out


def test_play_options_before_the_id(monkeypatch):
    import gridsim.play as play

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
    from gridsim.lookup import builtin_root

    (tmp_path / "nav").mkdir()
    (tmp_path / "nav" / "mine.txt").write_text((builtin_root() / "nav" / "room1_small.txt").read_text())
    tiny = ["--steps", "2", "--repeats", "1", "--num-envs", "4", "--obs", "coords"]
    assert main(["bench", "--level-directory", str(tmp_path), "--level", "nav/mine", *tiny]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "level nav/mine" in rows[0] and rows[3].split()[0] == "coords"


def test_bench_unknown_level_is_one_line_before_the_header(capsys):
    assert main(["bench", "--level", "nav/four_romos", "--steps", "2", "--repeats", "1", "--num-envs", "4"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no table header
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gridsim bench: error: level 'nav/four_romos' not found")
