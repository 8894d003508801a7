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


# --------------------------------------------------------------------------- links and modes


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _write_whole(path, text: str):
    with atomic_write(path, encoding="utf-8") as f:
        f.write(text)


def _write_partial(path, text: str):
    with partial_write(path, encoding="utf-8") as f:
        f.write(text)


WRITERS = [pytest.param(_write_whole, id="atomic_write"), pytest.param(_write_partial, id="partial_write")]


@pytest.mark.parametrize("write", WRITERS)
def test_a_write_through_a_symbolic_link_updates_its_target_and_keeps_the_link(tmp_path, write):
    (tmp_path / "runs").mkdir()
    target = tmp_path / "runs" / "latest.csv"
    target.write_text("old\n")
    link = tmp_path / "current.csv"
    link.symlink_to(os.path.join("runs", "latest.csv"))  # relative, as links usually are
    write(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == os.path.join("runs", "latest.csv")
    assert target.read_text() == "new\n"
    assert sorted(os.listdir(tmp_path)) == ["current.csv", "runs"] and os.listdir(tmp_path / "runs") == ["latest.csv"]


@pytest.mark.parametrize("write", WRITERS)
def test_a_write_through_a_dangling_link_creates_its_target(tmp_path, write):
    link = tmp_path / "out.csv"
    link.symlink_to(tmp_path / "made.csv")
    write(link, "new\n")
    assert link.is_symlink() and (tmp_path / "made.csv").read_text() == "new\n"


@pytest.mark.parametrize("write", WRITERS)
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604, 0o444], ids=oct)
def test_a_replaced_file_keeps_its_mode(tmp_path, write, mode):
    path = tmp_path / "secret.csv"
    path.write_text("old\n")
    os.chmod(path, mode)
    old = os.umask(0o022)
    try:
        write(path, "new\n")
    finally:
        os.umask(old)
    assert path.read_text() == "new\n"
    assert _mode(path) == mode


@pytest.mark.parametrize("write", WRITERS)
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664), (0o027, 0o640)])
def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path, write, umask, mode):
    old = os.umask(umask)
    try:
        write(tmp_path / "new.csv", "x\n")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new.csv") == mode
