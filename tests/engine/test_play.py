"""Manual play: the session logic, the terminal front end (in a real pty) and the window."""

from __future__ import annotations

import io
import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest

import gridsim
from gridsim.tools.play import PlaySession, play_terminal, play_window, terminal_keys

GRIDSIM_HOME = str(Path(gridsim.__file__).resolve().parents[1])
HOLDING_RED = {
    "agent_pos": (3, 3),
    "objs": [{"x": 3, "y": 3, "obj_above": None, "obj_below": None},
             {"x": 0, "y": 0, "obj_above": None, "obj_below": None},
             {"x": 6, "y": 6, "obj_above": None, "obj_below": None}],
    "lifted_obj_idx": None,
    "timer": 0,
}


def test_terminal_keys_decode_arrows_escape_and_letters():
    keys = list(terminal_keys(io.StringIO("\x1b[A\x1b[B\x1b[C\x1b[Dlp\x1bx").read))
    assert keys == ["up", "down", "right", "left", "l", "p", "escape"]


def test_session_lift_key_solves_lift_red_and_resets():
    session = PlaySession("gridsim/Gridroboman-LiftRed-v0", seed=0)
    session.env.unwrapped.set_state(HOLDING_RED)
    assert session.handle_key("l")
    assert "success" in session.message
    assert session.env.unwrapped.get_state()["timer"] == 0  # reset after the episode ended
    assert not session.handle_key("escape")
    session.close()


def test_session_arrow_moves_the_agent_up():
    session = PlaySession("gridsim/Gridroboman-LiftRed-v0", seed=0)
    session.env.unwrapped.set_state(HOLDING_RED)
    session.handle_key("up")
    assert session.env.unwrapped.get_state()["agent_pos"] == (3, 2)
    session.handle_key("unknown-key")  # ignored
    assert session.env.unwrapped.get_state()["timer"] == 1
    session.close()


def test_session_plays_navigation_levels():
    session = PlaySession("gridsim/PixelWorld-room1_small-v0", seed=0)
    session.handle_key("up")  # from (4, 1)
    assert session.env.unwrapped.get_state()["pos"] == (3, 1)
    session.close()


def test_session_plays_kitchens_one_agent_at_a_time():
    session = PlaySession("gridsim/Kitchen-open-divider_salad-v0", seed=0)
    start = [a["pos"] for a in session.env.unwrapped.get_state()["agents"]]
    assert session.num_agents == 2 and "agent 1 of 2" in session.message
    assert session.action("right") == [4, 0]  # the chosen agent moves, the other waits (noop)
    session.handle_key("right")
    moved = [a["pos"] for a in session.env.unwrapped.get_state()["agents"]]
    assert moved[0] == (start[0][0] + 1, start[0][1]) and moved[1] == start[1]
    session.handle_key("2")  # choose agent 2
    assert session.action("down") == [0, 2] and "agent 2 of 2" in session.message
    session.handle_key("\t")  # Tab goes round to agent 1
    assert session.agent == 0
    session.handle_key("9")  # no agent 9: ignored
    assert session.agent == 0 and session.steps == 1
    session.close()


def terminal_text(level: str, keys: str) -> str:
    """What ``play_terminal`` writes for ``level`` (seed 0) played with the key bytes ``keys``."""
    session = PlaySession(level, seed=0)
    out = io.StringIO()
    try:
        play_terminal(session, stdin=io.StringIO(keys), stdout=out)
    finally:
        session.close()
    return out.getvalue()


def test_play_terminal_plays_a_kitchen():
    text = terminal_text("kitchen/open-divider_salad", "\x1b[B2\x1b[Bq")
    assert "Tab or 1-4 choose it" in text and "step 2" in text and "agent 2 of 2" in text


def test_play_terminal_draws_each_frame_until_escape():
    text = terminal_text("gridsim/Gridroboman-LiftRed-v0", "\x1b[C\x1b[Cnq")
    assert text.count("task LiftRed") == 4  # the first frame and one per key before q
    assert "step 3" in text


def test_play_window_steps_on_key_presses():
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pygame = pytest.importorskip("pygame")
    session = PlaySession("gridsim/Gridroboman-LiftRed-v0", seed=0, render_mode="rgb_array")
    session.env.unwrapped.set_state(HOLDING_RED)
    frame = session.frame()
    assert frame.dtype == np.uint8 and frame.shape == (224, 224, 3)
    pygame.init()
    pygame.display.set_mode((8, 8))
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_UP))
    play_window(session, max_frames=2)
    assert session.env.unwrapped.get_state()["agent_pos"] == (3, 2)
    session.close()


@pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pty")
@pytest.mark.parametrize("how", ["escape", "sigterm", "sigint"])
def test_play_in_a_real_terminal_exits_cleanly(how, tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, PYTHONPATH=GRIDSIM_HOME, TERM="xterm")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    child = pexpect.spawn(sys.executable, ["-m", "gridsim.tools.play", "gridsim/Gridroboman-LiftRed-v0",
                                           "--seed", "1"], env=env, encoding="utf-8", timeout=30,
                          cwd=str(tmp_path))  # not the source folder, which may hold no compiled kernel
    child.expect("task LiftRed")
    child.send("\x1b[A")  # up arrow
    child.expect("step 1")
    if how == "escape":
        child.send("\x1b")  # Esc alone
    elif how == "sigterm":
        child.kill(signal.SIGTERM)
    else:
        child.send("\x03")  # Ctrl-C in raw mode
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before


@pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pty")
def test_gridsim_play_terminal_draws_rows_at_column_zero(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    pyte = pytest.importorskip("pyte")
    env_id = "gridsim/PixelWorld-room1_small-v0"
    expected = PlaySession(env_id, seed=0)
    map_rows = expected.frame().splitlines()
    expected.close()
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    env = dict(os.environ, PYTHONPATH=GRIDSIM_HOME, TERM="xterm")
    child = pexpect.spawn(sys.executable, ["-m", "gridsim.cli", "play", "--terminal", env_id, "--seed", "0"],
                          env=env, encoding="utf-8", timeout=30, dimensions=(24, 80), cwd=str(tmp_path))
    child.expect("R reset, Esc quit")
    stream.feed(child.before + child.after)
    # A terminal in raw mode moves down on "\n" without returning to column 0: each row
    # would start where the one above it ended.
    assert screen.display[:len(map_rows)] == [row.ljust(80) for row in map_rows]
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before


@pytest.mark.parametrize("env", ["no/such-level", "gridsim/Gridroboman-LiftRed-v0"])
def test_play_gives_the_callers_sigterm_handler_back(env, monkeypatch):
    # A process that plays, then forks workers, must not hand them play's handler (an idle worker
    # then ignored terminate()). Whether the session ran or its env was refused.
    from gridsim.tools import play

    def mine(*_):
        pass

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        monkeypatch.setattr(play, "play_terminal", lambda session: 0)  # no keyboard here
        if env.startswith("no/"):
            with pytest.raises(gridsim.LevelNotFoundError):
                play.main([env, "--terminal"])
        else:
            assert play.main([env, "--terminal"]) == 0
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)
