"""Every file gridsim writes is whole or absent: a failure or a Ctrl-C midway keeps the previous file.

Results tables (``EvalResult.to_csv``, ``SweepResult.to_csv``), ``gridsim eval --out`` and
``gridsim render --out`` (GIF, PNG, MP4), and the partial file of a sweep that fails. The
media writers are stand-ins that write part of a file and then fail, so these tests need
neither imageio nor pillow.
"""

from __future__ import annotations

import os
import stat
import sys
import types

import numpy as np
import pytest

import gridsim
from gridsim.cli import main
from gridsim.tools.record import write_frames
from gridsim.tools.results import EvalResult, SweepResult

OLD = b"seed,return,length,success\n" + b"".join(b"%d,1.0,3,1\n" % i for i in range(1000))
NAV = "gridsim/Nav-room2_small-v0"


def known_result() -> EvalResult:
    return EvalResult(seeds=np.array([4, 2, 9]), returns=np.array([1.5, -2.0, 0.25]), lengths=np.array([10, 3, 7]),
                      successes=np.array([True, False, True]), env="x", policy="p")


def interrupt(*args, **kwargs):
    raise KeyboardInterrupt


# --------------------------------------------------------------------------- CSV tables


@pytest.mark.parametrize("error", [KeyboardInterrupt, MemoryError])
def test_eval_result_to_csv_interrupted_keeps_the_previous_file(tmp_path, monkeypatch, error):
    path = tmp_path / "rows.csv"
    path.write_bytes(OLD)

    def fail(self):
        raise error

    monkeypatch.setattr(EvalResult, "csv_rows", fail)  # after the header, before the rows
    with pytest.raises(error):
        known_result().to_csv(path)
    assert path.read_bytes() == OLD
    assert os.listdir(tmp_path) == ["rows.csv"]


def test_sweep_to_csv_failing_midway_keeps_the_previous_file(tmp_path, monkeypatch):
    table = SweepResult()
    for name in ("a", "b", "c"):
        table.add(name, NAV, known_result())
    path = tmp_path / "sweep.csv"
    path.write_bytes(OLD)
    import gridsim.tools.results as results

    calls = []
    real = results._csv_cell

    def cell(value):
        calls.append(value)
        if len(calls) > 12:  # the second row
            raise KeyboardInterrupt
        return real(value)

    monkeypatch.setattr(results, "_csv_cell", cell)
    with pytest.raises(KeyboardInterrupt):
        table.to_csv(path)
    assert path.read_bytes() == OLD
    assert os.listdir(tmp_path) == ["sweep.csv"]


def test_sweep_that_fails_leaves_its_finished_rows_in_a_partial_file(tmp_path):
    path = tmp_path / "sweep.csv"
    path.write_bytes(OLD)
    table = SweepResult()
    with pytest.raises(RuntimeError) as info, table.csv_when_done(path):
        table.add("a", NAV, known_result())
        raise RuntimeError("the second evaluation failed")
    assert path.read_bytes() == OLD
    partial = tmp_path / "sweep.csv.partial"
    assert partial.read_text().splitlines()[1].startswith(f"a,{NAV},3,")
    if sys.version_info >= (3, 11):
        assert f"{partial}" in "\n".join(info.value.__notes__)
    # The next run that completes writes the table and leaves no partial file.
    with table.csv_when_done(path):
        pass
    assert os.listdir(tmp_path) == ["sweep.csv"]
    assert path.read_text().splitlines()[1].startswith(f"a,{NAV},3,")


# --------------------------------------------------------------------------- gridsim eval --out


def test_cli_eval_out_interrupted_while_writing_keeps_the_previous_file(tmp_path, monkeypatch):
    out = tmp_path / "rows.csv"
    out.write_bytes(OLD)
    monkeypatch.setattr(EvalResult, "csv_rows", interrupt)
    with pytest.raises(KeyboardInterrupt):
        main(["eval", NAV, "--seeds", "0:5", "--out", str(out), "--no-progress"])
    assert out.read_bytes() == OLD
    assert os.listdir(tmp_path) == ["rows.csv"]


def test_cli_eval_out_writes_what_to_csv_writes(tmp_path, capsys):
    out = tmp_path / "rows.csv"
    out.write_bytes(OLD)
    assert main(["eval", NAV, "--seeds", "0:5", "--out", str(out), "--no-progress"]) == 0
    gridsim.evaluate("random", NAV, range(5)).to_csv(tmp_path / "local.csv")
    assert out.read_bytes() == (tmp_path / "local.csv").read_bytes()
    assert f"wrote {out}" in capsys.readouterr().out


def test_cli_sweep_that_fails_keeps_the_file_and_says_where_the_partial_is(tmp_path, monkeypatch, capsys):
    out = tmp_path / "table.csv"
    out.write_bytes(OLD)
    real = gridsim.evaluate
    calls = []

    def evaluate(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(gridsim, "evaluate", evaluate)
    with pytest.raises(KeyboardInterrupt):
        main(["eval", NAV, "roboman:LiftRed", "--seeds", "0:4", "--out", str(out), "--no-progress"])
    assert out.read_bytes() == OLD
    assert f"{out}.partial" in capsys.readouterr().err
    assert len((tmp_path / "table.csv.partial").read_text().splitlines()) == 2  # header, the first row


# --------------------------------------------------------------------------- renders


@pytest.fixture
def failing_media(monkeypatch):
    """Stand-ins for pillow, imageio and imageio-ffmpeg that write half a file, then fail."""
    def half(path):
        with open(path, "wb") as f:
            f.write(b"half a file")

    class Image:
        def save(self, path):
            half(path)
            raise OSError("No space left on device")

    def imwrite(path, frames, **kwargs):
        half(path)
        raise KeyboardInterrupt

    class Writer:
        def __init__(self, path, **kwargs):
            self.path = path

        def __enter__(self):
            half(self.path)
            return self

        def __exit__(self, *exc):
            return False

        def append_data(self, frame):
            raise RuntimeError("the encoder stopped")

    pil = types.ModuleType("PIL")
    pil_image = types.ModuleType("PIL.Image")
    pil_image.fromarray = lambda array: Image()
    imageio = types.ModuleType("imageio")
    v3 = types.ModuleType("imageio.v3")
    v3.imwrite = imwrite
    v2 = types.ModuleType("imageio.v2")
    v2.get_writer = Writer
    for name, module in {"PIL": pil, "PIL.Image": pil_image, "imageio": imageio, "imageio.v3": v3,
                         "imageio.v2": v2, "imageio_ffmpeg": types.ModuleType("imageio_ffmpeg")}.items():
        monkeypatch.setitem(sys.modules, name, module)


@pytest.mark.parametrize(("suffix", "error"), [(".png", OSError), (".gif", KeyboardInterrupt),
                                               (".mp4", RuntimeError)])
def test_write_frames_failing_midway_keeps_the_previous_file(tmp_path, failing_media, suffix, error):
    path = tmp_path / f"episode{suffix}"
    path.write_bytes(b"the good render")
    frames = [np.zeros((4, 4, 3), np.uint8)] * 3
    with pytest.raises(error):
        write_frames(path, frames)
    assert path.read_bytes() == b"the good render"
    assert os.listdir(tmp_path) == [path.name]


def test_cli_render_that_fails_keeps_the_good_gif(tmp_path, failing_media):
    out = tmp_path / "episode.gif"
    out.write_bytes(b"the good render")
    with pytest.raises(KeyboardInterrupt):
        main(["render", NAV, "--max-steps", "3", "--out", str(out)])
    assert out.read_bytes() == b"the good render"
    assert os.listdir(tmp_path) == ["episode.gif"]


# --------------------------------------------------------------------------- links and modes


def _save_checkpoint(path):
    envs = gridsim.make("nav/room2_small", 2)
    envs.reset(seed=0)
    gridsim.save_checkpoint(envs, path)


def _save_agent(path):
    torch_agent = pytest.importorskip("gridsim.tools.torch_agent")
    envs = gridsim.make("nav/room2_small", 2)
    agent = torch_agent.Agent(torch_agent.ObsEncoder.from_env(envs), envs.single_action_space, 4)
    torch_agent.save_agent(path, agent)


def _write_png(path):
    pytest.importorskip("PIL")
    write_frames(path, [np.zeros((4, 4, 3), np.uint8)])


def _sweep_when_done(path):
    table = SweepResult()
    with table.csv_when_done(path):  # streamed through a partial file
        table.add("a", NAV, known_result())


FILE_WRITERS = {
    "checkpoint": (".ckpt", _save_checkpoint),
    "eval_csv": (".csv", lambda path: known_result().to_csv(path)),
    "sweep_csv": (".csv", _sweep_when_done),
    "agent": (".pt", _save_agent),
    "png": (".png", _write_png),
}


@pytest.mark.parametrize("writer", FILE_WRITERS)
def test_every_writer_follows_a_symbolic_link_and_keeps_the_files_mode(tmp_path, writer):
    suffix, write = FILE_WRITERS[writer]
    (tmp_path / "store").mkdir()
    target = tmp_path / "store" / f"kept{suffix}"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    link = tmp_path / f"latest{suffix}"
    link.symlink_to(target)
    write(link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() != b"old"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    assert sorted(os.listdir(tmp_path)) == sorted([link.name, "store"])
    assert os.listdir(tmp_path / "store") == [target.name]
