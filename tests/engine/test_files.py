"""Files are written whole or not at all (gridsim.engine.files)."""

import os
import stat

import pytest

from gridsim.engine.files import atomic_path, atomic_write, partial_path, partial_write


def test_atomic_write_replaces_the_file_when_the_block_completes(tmp_path):
    path = tmp_path / "out.csv"
    path.write_text("old\n")
    with atomic_write(path, encoding="utf-8") as f:
        f.write("new\n")
        assert path.read_text() == "old\n"  # nothing visible until the rename
    assert path.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["out.csv"]


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_an_error_midway_keeps_the_previous_file_and_leaves_no_temporary(tmp_path, error):
    path = tmp_path / "out.csv"
    path.write_text("header\n" + "row\n" * 1000)
    before = path.read_text()
    with pytest.raises(error), atomic_write(path) as f:
        f.write("header\n")
        raise error()
    assert path.read_text() == before
    assert os.listdir(tmp_path) == ["out.csv"]


def test_a_new_file_gets_the_mode_open_would_give(tmp_path):
    old = os.umask(0o022)
    try:
        with atomic_write(tmp_path / "a.bin", "wb") as f:
            f.write(b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a.bin").st_mode) == 0o644


def test_atomic_path_keeps_the_suffix_for_writers_that_read_it(tmp_path):
    with atomic_path(tmp_path / "movie.gif") as tmp:
        assert tmp.endswith(".gif") and os.path.dirname(tmp) == str(tmp_path)
        with open(tmp, "wb") as f:
            f.write(b"GIF89a")
    assert (tmp_path / "movie.gif").read_bytes() == b"GIF89a"


def test_only_whole_file_modes():
    with pytest.raises(ValueError), atomic_write("x", "a"):
        pass


# --------------------------------------------------------------------------- partial_write


def test_partial_write_renames_onto_the_file_and_leaves_no_partial(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("old\n")
    with partial_write(path, encoding="utf-8") as f:
        f.write("a\n")
        f.flush()
        assert (tmp_path / "rows.csv.partial").read_text() == "a\n"  # readable while it grows
        assert path.read_text() == "old\n"
    assert path.read_text() == "a\n"
    assert os.listdir(tmp_path) == ["rows.csv"]


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_partial_write_that_fails_keeps_the_file_and_leaves_what_it_wrote(tmp_path, error):
    path = tmp_path / "rows.csv"
    path.write_bytes(b"header\n" + b"row\n" * 1000)
    before = path.read_bytes()
    with pytest.raises(error) as info, partial_write(path, encoding="utf-8") as f:
        f.write("header\nrow 1\n")
        raise error()
    assert path.read_bytes() == before
    assert (tmp_path / "rows.csv.partial").read_text() == "header\nrow 1\n"
    assert any(f"{path}.partial" in note for note in getattr(info.value, "__notes__", [f"{path}.partial"]))


def test_partial_write_that_wrote_nothing_leaves_no_partial(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), partial_write(path):
        raise RuntimeError
    assert os.listdir(tmp_path) == ["rows.csv"] and path.read_text() == "old\n"


def test_partial_write_replaces_the_partial_of_an_earlier_run(tmp_path):
    path = tmp_path / "rows.csv"
    (tmp_path / "rows.csv.partial").write_text("stale\n")
    with partial_write(path) as f:
        f.write("new\n")
    assert os.listdir(tmp_path) == ["rows.csv"] and path.read_text() == "new\n"
    assert partial_path(path) == f"{path}.partial"
