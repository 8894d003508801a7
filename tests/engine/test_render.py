"""Frames and episode files: ``gridsim render``, the families' ``rgb_array`` pictures, RecordVideo."""

import importlib.util
import sys

import gymnasium as gym
import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS

import gridsim
from gridsim.cli import main
from gridsim.kitchen.render import AGENT_COLORS, FOOD_COLORS, PLATE_COLOR, TILE_COLORS
from gridsim.kitchen.rules import COUNTER
from gridsim.roboman.render import AGENT_CELL, BACKGROUND, OBJECT_COLORS, slab_box
from gridsim.tools.record import record_episode, write_frames

# One id per family, the first.
IDS = [pytest.param(ids[0], id=name) for name, ids in FAMILY_IDS.items()]
NAV_ROOM = "gridsim/Nav-room2_small-v0"  # the overlay's picture: 11 x 6 cells
ROBOMAN_ID = "gridsim/Gridroboman-LiftRed-v0"  # 7 x 7 cells of 32 pixels
needs_imageio = pytest.mark.skipif(importlib.util.find_spec("imageio") is None or
                                   importlib.util.find_spec("PIL") is None, reason="imageio and pillow not installed")
needs_pillow = pytest.mark.skipif(importlib.util.find_spec("PIL") is None, reason="pillow is not installed")
needs_ffmpeg = pytest.mark.skipif(importlib.util.find_spec("imageio_ffmpeg") is None or
                                  importlib.util.find_spec("imageio") is None, reason="imageio-ffmpeg not installed")
needs_moviepy = pytest.mark.skipif(importlib.util.find_spec("moviepy") is None, reason="moviepy is not installed")


def _single(env_id):
    env = gym.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    return env


# --------------------------------------------------------------------------- gridsim render


@needs_imageio
@pytest.mark.parametrize("env_id", IDS)
def test_render_gif_plays_every_state_of_the_episode(tmp_path, env_id, capsys):
    from PIL import Image

    out = tmp_path / "episode.gif"
    assert main(["render", env_id, "--seed", "3", "--max-steps", "30", "--fps", "20", "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    episode = record_episode("random", env_id, 3, max_steps=30)
    with Image.open(out) as gif:
        assert gif.size == episode.frames[0].shape[1::-1]
        durations = []
        for i in range(gif.n_frames):
            gif.seek(i)
            durations.append(gif.info["duration"])
        # Identical neighbouring frames are merged into one longer frame: the playing time counts them all.
        assert sum(durations) == pytest.approx(len(episode.frames) * 50, abs=len(durations))
        gif.seek(0)
        np.testing.assert_array_equal(np.asarray(gif.convert("RGB")), episode.frames[0])
        gif.seek(gif.n_frames - 1)
        np.testing.assert_array_equal(np.asarray(gif.convert("RGB")), episode.frames[-1])


@pytest.mark.parametrize("env_id", IDS)
def test_recorded_episode_is_the_one_evaluate_scores(env_id):
    episode = record_episode("random", env_id, 5)
    result = gridsim.evaluate("random", env_id, [5])
    assert episode.length == result["length"][0] and len(episode.frames) == episode.length + 1
    assert episode.rewards.sum() == pytest.approx(result["return"][0])
    assert episode.terminated or episode.truncated


@needs_pillow
@pytest.mark.parametrize("env_id", IDS)
def test_render_png_holds_the_requested_frame(tmp_path, env_id):
    from PIL import Image

    out = tmp_path / "frame.png"
    assert main(["render", env_id, "--seed", "1", "--frame", "4", "--cell-px", "20", "--out", str(out)]) == 0
    want = record_episode("random", env_id, 1, max_steps=4, cell_px=20).frames[4]
    with Image.open(out) as png:
        got = np.asarray(png.convert("RGB"))
    np.testing.assert_array_equal(got, want)
    assert got.shape[0] % 20 == 0 and got.shape[1] % 20 == 0


@needs_ffmpeg
def test_render_mp4_has_one_frame_per_state(tmp_path):
    import imageio.v2 as iio

    out = tmp_path / "episode.mp4"
    assert main(["render", ROBOMAN_ID, "--seed", "2", "--max-steps", "9", "--out", str(out)]) == 0
    with iio.get_reader(out, format="FFMPEG") as reader:
        frames = [f for f in reader]
    assert len(frames) == 10 and frames[0].shape == (7 * 32, 7 * 32, 3)


@pytest.mark.parametrize(("module", "suffix", "package"),
                         [("imageio", ".gif", "imageio"), ("PIL", ".png", "pillow"), ("imageio_ffmpeg", ".mp4",
                                                                                        "imageio-ffmpeg")])
def test_missing_package_is_one_line_naming_the_extra(tmp_path, monkeypatch, capsys, module, suffix, package):
    if suffix == ".mp4" and importlib.util.find_spec("imageio") is None:
        pytest.skip("imageio, checked before imageio-ffmpeg, is not installed")
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")] + [module]:
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    assert main(["render", NAV_ROOM, "--max-steps", "2", "--out", str(tmp_path / f"x{suffix}")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("gridsim render: error:") and package in err and 'pip install "gridsim-vec[render]"' in err


@pytest.mark.parametrize("args", [["--out", "episode.avi"], ["--out", "x.png", "--frame", "500"],
                                  ["--out", "x.gif", "--cell-px", "0"], ["--out", "x.gif", "--policy", "nope"],
                                  ["--out", "no-such-folder/x.gif"], ["--out", "x.gif", "--fps", "0"]])
def test_bad_arguments_are_one_line_errors(tmp_path, monkeypatch, capsys, args):
    pytest.importorskip("PIL")
    pytest.importorskip("imageio")
    monkeypatch.chdir(tmp_path)
    assert main(["render", NAV_ROOM, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gridsim render: error:") and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_level_without_step_limit_asks_for_max_steps(tmp_path, capsys, monkeypatch):
    from gridsim.levels.lookup import builtin_root

    # A kitchen file: no step limit of its own, and no registered id whose limit it could take.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kitchen").mkdir()
    (tmp_path / "kitchen" / "mine.txt").write_text((builtin_root() / "kitchen" / "open-divider_salad.txt").read_text())
    assert main(["render", "kitchen/mine.txt", "--out", str(tmp_path / "k.gif")]) == 2
    assert "--max-steps" in capsys.readouterr().err


@needs_imageio
def test_level_names_render(tmp_path):
    assert main(["render", "roboman:StackRedOnGreen", "--max-steps", "3", "--out", str(tmp_path / "r.gif")]) == 0
    assert (tmp_path / "r.gif").stat().st_size > 0


@needs_pillow
def test_render_overlay_writes_the_step_and_reward_above_the_frame(tmp_path, capsys):
    from PIL import Image

    out = tmp_path / "frame.png"
    assert main(["render", NAV_ROOM, "--seed", "1", "--frame", "4", "--overlay", "--out", str(out)]) == 0
    plain = record_episode("random", NAV_ROOM, 1, max_steps=4)
    shown = record_episode("random", NAV_ROOM, 1, max_steps=4, overlay=True)
    with Image.open(out) as png:
        np.testing.assert_array_equal(np.asarray(png.convert("RGB")), shown.frames[4])
    assert "176x107 pixels" in capsys.readouterr().out  # 11 x 6 cells of 16 pixels, under an 11-pixel band
    band = shown.frames[4].shape[0] - plain.frames[4].shape[0]
    for with_text, without in zip(shown.frames, plain.frames, strict=True):
        np.testing.assert_array_equal(with_text[band:], without)  # the cells stay whole
    assert (shown.frames[4][:band] == 255).any()  # white text on the band
    assert not np.array_equal(shown.frames[0][:band], shown.frames[1][:band])  # "step 0" / "step 1  reward ..."


def test_overlay_text_and_band():
    from gridsim.engine.draw import GLYPH_H, OVERLAY_BACKGROUND, step_text, with_overlay

    assert step_text(0, None) == ("step 0", "")
    assert step_text(12, -0.98234) == ("step 12", "reward -0.982") and step_text(3, 1.0)[1] == "reward 1"
    wide, narrow = np.zeros((32, 320, 3), np.uint8), np.zeros((32, 60, 3), np.uint8)
    one_line = with_overlay(wide, step_text(10, -1.5))
    assert one_line.shape[0] - 32 == (GLYPH_H * 2 + 4) + 4  # one line at scale 2, with its padding
    two_lines = with_overlay(narrow, step_text(10, -1.5))
    assert two_lines.shape[0] - 32 == 2 * (GLYPH_H + 2) + 2  # a line each at scale 1, cut at the edge
    # The band's height does not depend on the text: a reset frame's band is a step's.
    assert with_overlay(narrow, step_text(0, None)).shape == two_lines.shape
    assert (two_lines[0, 0] == OVERLAY_BACKGROUND).all() and (two_lines[32:] == 0).all()


def test_draw_text_cuts_text_at_the_frame_edge():
    from gridsim.engine.draw import draw_text

    frame = np.zeros((10, 14, 3), np.uint8)
    draw_text(frame, "-1.5 +2", 1, 1, 1, (9, 9, 9))  # glyphs past the right edge are left out
    assert (frame[4, 1:6] == 9).all()  # the minus sign


@pytest.mark.parametrize("env_id", IDS)
def test_frames_are_the_same_without_overlay(env_id):
    # The overlay is off by default: record_episode's frames are the env's own render_frame pictures.
    episode = record_episode("random", env_id, 0, max_steps=2)
    env = _single(env_id)
    np.testing.assert_array_equal(episode.frames[0], env.unwrapped.unwrapped_vector.render_frame(0))


def test_write_frames_rejects_other_suffixes(tmp_path):
    with pytest.raises(ValueError, match=r"\.gif, \.mp4, \.png"):
        write_frames(tmp_path / "x.jpg", [np.zeros((4, 4, 3), np.uint8)])


# --------------------------------------------------------------------------- the pictures


@pytest.mark.parametrize("env_id", IDS)
def test_render_frame_takes_a_cell_size(env_id):
    env = _single(env_id)
    vec = env.unwrapped.unwrapped_vector
    rows, cols, _ = vec.render_frame(0, cell_px=1).shape
    big = vec.render_frame(0, cell_px=40)
    assert big.dtype == np.uint8 and big.shape == (rows * 40, cols * 40, 3)
    assert env.render().shape == vec.render_frame(0).shape


def _kitchen(px=32):
    env = _single("gridsim/Kitchen-open-divider_salad-v0")
    return env, env.unwrapped.get_state(), px


def _kitchen_frame(env, state, px):
    env.unwrapped.set_state(state)
    return env.unwrapped.unwrapped_vector.render_frame(0, cell_px=px)


def _centre(frame, xy, px, dy=0.0, dx=0.0):
    x, y = xy
    return frame[int((y + 0.5 + dy) * px), int((x + 0.5 + dx) * px)]


def test_kitchen_held_item_is_drawn_in_the_agents_cell():
    env, state, px = _kitchen()
    pos = state["agents"][0]["pos"]
    empty = _kitchen_frame(env, state, px)
    state["agents"][0]["held"] = "FreshTomato"
    holding = _kitchen_frame(env, state, px)
    assert tuple(_centre(holding, pos, px)) == FOOD_COLORS["Tomato"]
    assert tuple(_centre(empty, pos, px)) != FOOD_COLORS["Tomato"]
    # The frame in the agent's colour: agent 1 blue, agent 2 magenta.
    for k, agent in enumerate(state["agents"]):
        x, y = agent["pos"]
        assert tuple(holding[y * px + 1, x * px + px // 2]) == tuple(AGENT_COLORS[k])


def test_kitchen_chopped_food_is_cut_and_fresh_food_whole():
    env, state, px = _kitchen()
    xy = next(xy for xy, item in state["items"].items() if item == "FreshTomato")
    fresh = _kitchen_frame(env, state, px)
    state["items"][xy] = "ChoppedTomato"
    chopped = _kitchen_frame(env, state, px)
    tomato = FOOD_COLORS["Tomato"]
    assert tuple(_centre(fresh, xy, px)) == tomato
    # Chopped: the cross through the middle shows the counter beneath; the quarters are tomato.
    assert tuple(_centre(chopped, xy, px)) == tuple(TILE_COLORS[COUNTER])
    assert tuple(_centre(chopped, xy, px, 0.2, 0.2)) == tomato
    assert tuple(_centre(chopped, xy, px, -0.2, 0.2)) == tomato


def test_kitchen_plated_and_merged_items_show_their_parts():
    env, state, px = _kitchen(48)
    xy = next(xy for xy, item in state["items"].items() if item == "Plate")
    plain = _kitchen_frame(env, state, px)
    state["items"][xy] = "ChoppedLettuce-Plate-ChoppedTomato"
    dish = _kitchen_frame(env, state, px)
    assert tuple(_centre(plain, xy, px, 0.3)) == PLATE_COLOR
    assert tuple(_centre(dish, xy, px, 0.3)) == PLATE_COLOR
    # Two foods side by side on the plate, each cut in four, in the foods' order: tomato, lettuce.
    assert tuple(_centre(dish, xy, px, 0.08, -0.25)) == FOOD_COLORS["Tomato"]
    assert tuple(_centre(dish, xy, px, 0.08, 0.25)) == FOOD_COLORS["Lettuce"]
    assert tuple(_centre(plain, xy, px, 0.08, 0.25)) == PLATE_COLOR


def _roboman(state_changes, px=32):
    env = _single("gridsim/Gridroboman-StackRedOnGreen-v0")
    state = env.unwrapped.get_state()
    state.update(state_changes)
    env.unwrapped.set_state(state)
    return env.unwrapped.unwrapped_vector.render_frame(0, cell_px=px)


def _slab_pixel(frame, x, y, px, level):
    y0, x0, y1, x1 = slab_box(y, x, px, level)
    return tuple(frame[int(y0 + 0.75 * (y1 - y0)), int(x0) + 2])


def test_roboman_stack_shows_which_object_is_on_which():
    objs = [{"x": 3, "y": 3, "obj_above": None, "obj_below": 1}, {"x": 3, "y": 3, "obj_above": 0, "obj_below": None},
            {"x": 5, "y": 5, "obj_above": None, "obj_below": None}]
    frame = _roboman({"agent_pos": (0, 0), "objs": objs, "lifted_obj_idx": None})
    assert _slab_pixel(frame, 3, 3, 32, 0) == OBJECT_COLORS[1]  # green at the bottom
    assert _slab_pixel(frame, 3, 3, 32, 1) == OBJECT_COLORS[0]  # red on it
    assert _slab_pixel(frame, 5, 5, 32, 0) == OBJECT_COLORS[2]
    assert _slab_pixel(frame, 5, 5, 32, 1) == BACKGROUND  # nothing on blue


def test_roboman_gripper_shows_the_held_object():
    objs = [{"x": 2, "y": 4, "obj_above": None, "obj_below": None}, {"x": 0, "y": 6, "obj_above": None,
                                                                     "obj_below": None},
            {"x": 6, "y": 0, "obj_above": None, "obj_below": None}]
    holding = _roboman({"agent_pos": (2, 4), "objs": objs, "lifted_obj_idx": 0})
    standing = _roboman({"agent_pos": (2, 4), "objs": objs, "lifted_obj_idx": None})
    assert _slab_pixel(holding, 2, 4, 32, None) == OBJECT_COLORS[0]  # red in the gripper
    assert _slab_pixel(holding, 2, 4, 32, 0) == AGENT_CELL  # ... not on the floor
    assert _slab_pixel(standing, 2, 4, 32, None) == AGENT_CELL
    assert _slab_pixel(standing, 2, 4, 32, 0) == OBJECT_COLORS[0]


# --------------------------------------------------------------------------- Gymnasium's wrappers


@needs_moviepy
@pytest.mark.parametrize("env_id", IDS)
def test_record_video_records_single_env_episodes(tmp_path, env_id):
    from gymnasium.wrappers import RecordVideo

    folder = tmp_path / "videos"
    env = RecordVideo(gym.make(env_id, render_mode="rgb_array"), str(folder), episode_trigger=lambda e: True,
                      disable_logger=True)
    env.reset(seed=0)
    for _ in range(5):
        env.step(env.action_space.sample())
    env.close()
    videos = list(folder.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 0
    if importlib.util.find_spec("imageio_ffmpeg") is not None:
        import imageio.v2 as iio

        with iio.get_reader(videos[0], format="FFMPEG") as reader:
            assert sum(1 for _ in reader) == 6


@pytest.mark.parametrize("env_id", IDS)
def test_render_collection_gathers_one_frame_per_state(env_id):
    # The frames RecordVideo writes are the ones render() returns after each reset and step.
    from gymnasium.wrappers import RenderCollection

    env = RenderCollection(gym.make(env_id, render_mode="rgb_array"))
    env.reset(seed=0)
    for _ in range(3):
        env.step(env.action_space.sample())
    frames = env.render()
    assert len(frames) == 4
    assert all(f.dtype == np.uint8 and f.shape == frames[0].shape and f.shape[2] == 3 for f in frames)
    np.testing.assert_array_equal(frames[-1], env.unwrapped.unwrapped_vector.render_frame(0))
    env.close()


@pytest.mark.skipif(importlib.util.find_spec("pygame") is None, reason="pygame is not installed")
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_human_window_leaves_sigterm_to_the_process(tmp_path):
    # SDL takes SIGTERM when pygame starts, and ignores it once the window is closed: the
    # process and every child it forks later would outlive SIGTERM (a multiprocessing pool's
    # terminate() waited for them for ever). After a window, SIGTERM still ends a process.
    import os
    import signal
    import subprocess
    from pathlib import Path

    script = (
        "import os, signal, gridsim\n"
        "envs = gridsim.make('nav/room1_small', 2, render_mode='human')\n"
        "envs.reset(seed=0)\n"
        "envs.render()\n"
        "envs.close()\n"
        "caught = int([l for l in open('/proc/self/status') if l.startswith('SigCgt')][0].split()[1], 16)\n"
        "print('caught' if caught >> (signal.SIGTERM - 1) & 1 else 'default', flush=True)\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "print('still running', flush=True)\n"
    )
    home = str(Path(gridsim.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (home, os.environ.get("PYTHONPATH")) if p),
               SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env.pop("SDL_NO_SIGNAL_HANDLERS", None)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path)
    assert proc.stdout.split() == ["default"], proc.stdout + proc.stderr
    assert proc.returncode == -signal.SIGTERM
