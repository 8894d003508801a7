"""Files are written whole or not at all (gridsim.engine.files)."""

import os
import stat

import pytest

from gridsim.engine.files import atomic_path, atomic_write


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
