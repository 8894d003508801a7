"""Files written whole or not at all.

Every file gridsim writes (results tables, renders, checkpoints, benchmark output) goes to a
temporary file in the destination's folder and is renamed into place once complete, as
``pip`` and ``conda`` write their metadata: an error, a full disk or a Ctrl-C midway leaves
the previous file as it was, never a file cut short. The rename is atomic on POSIX and on
Windows (``os.replace``) because the temporary file is on the same filesystem.

A write replaces the file as ``open(path, "w")`` would have rewritten it: a symbolic link is
followed (the temporary file is made beside the link's target, which is replaced; the link
stays), a file that exists keeps its permission bits, and a new file gets those ``open()``
gives (``0o666`` less the umask).

A file written as results come in (a distributed evaluation's CSV) goes through
:func:`partial_write`: it grows in ``<path>.partial`` beside the destination and is renamed
onto it when complete; a run that fails leaves what it wrote there, and the previous file
as it was.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["PARTIAL_SUFFIX", "add_note", "atomic_path", "atomic_write", "partial_path", "partial_write"]

# The suffix of the file a streamed write leaves behind when it fails.
PARTIAL_SUFFIX = ".partial"


def _umask() -> int:
    # os.umask can only be read by setting it; put it straight back.
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _destination(path: str | os.PathLike) -> str:
    """The file a write to ``path`` replaces: ``path`` with its symbolic links followed, as ``open()`` follows them."""
    return os.path.realpath(path)


def _replacing_mode(target: str) -> int:
    """The permission bits the file written onto ``target`` gets: the existing file's, else a new file's."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """A temporary path beside ``path`` to write; renamed onto ``path`` if the block completes.

    For writers that take a file name (image and video libraries choose a format from its
    suffix, so the temporary name keeps ``path``'s suffix). If the block raises, including
    ``KeyboardInterrupt``, the temporary file is removed and ``path`` is unchanged. A symbolic
    link is followed (as ``open()`` follows it): its target is what gets replaced. The file keeps
    the mode of the one it replaces, or gets the one ``open()`` gives a new file.

    Yields:
        str: the temporary file's path (it exists, empty, when the block starts).
    """
    target = _destination(path)
    folder, name = os.path.split(target)
    suffix = os.path.splitext(os.fspath(path))[1]  # the writer reads the name it was given
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.splitext(name)[0]}.", suffix=f".tmp{suffix}", dir=folder)
    os.close(fd)
    try:
        yield tmp
        # mkstemp creates the file 0600: give it the mode of the file it replaces, or open()'s.
        os.chmod(tmp, _replacing_mode(target))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **open_kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success it is flushed, synced and renamed onto ``path``.

    Args:
        path: the destination.
        mode: ``"w"`` (text) or ``"wb"`` (binary).
        **open_kwargs: passed to :func:`open` (``encoding``, ``newline``, ...).

    Yields:
        the open temporary file. If the block raises, ``path`` keeps its previous content.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes a whole file: mode 'w' or 'wb', got {mode!r}")
    with atomic_path(path) as tmp, open(tmp, mode, **open_kwargs) as f:
        yield f
        f.flush()
        os.fsync(f.fileno())


def partial_path(path: str | os.PathLike) -> str:
    """``<path>.partial``, beside the file a write to ``path`` replaces: where :func:`partial_write` writes."""
    return _destination(path) + PARTIAL_SUFFIX


def add_note(error: BaseException, text: str) -> None:
    """``error.add_note(text)`` where Python has it (3.11+): the traceback shows the note."""
    note = getattr(error, "add_note", None)
    if note is not None:
        note(text)


@contextlib.contextmanager
def partial_write(path: str | os.PathLike, mode: str = "w", **open_kwargs: Any) -> Iterator[IO[Any]]:
    """Write ``path`` piece by piece in ``<path>.partial``; renamed onto ``path`` once the block completes.

    For a file that grows while a long run goes on (rows flushed as they come in): a run that
    completes leaves ``path`` and no partial file. A run that raises (an error, a
    ``KeyboardInterrupt``) leaves ``path`` as it was and what was written in
    ``<path>.partial`` (removed if nothing was), and the exception gets a note that says so.
    A partial file of an earlier run is replaced when the next run starts. As with
    :func:`atomic_path`, a symbolic link is followed and the file keeps the mode of the one it
    replaces.

    Args:
        path: the destination.
        mode: ``"w"`` (text) or ``"wb"`` (binary).
        **open_kwargs: passed to :func:`open` (``encoding``, ``newline``, ...).

    Yields:
        the open partial file.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"partial_write writes a whole file: mode 'w' or 'wb', got {mode!r}")
    path = os.fspath(path)
    target = _destination(path)
    partial = partial_path(path)
    f = open(partial, mode, **open_kwargs)  # noqa: SIM115 - closed below, on every path
    try:
        yield f
        f.flush()
        os.fsync(f.fileno())
    except BaseException as e:
        with contextlib.suppress(OSError):
            f.close()  # flushes what the block wrote
        with contextlib.suppress(OSError):
            if os.path.getsize(partial) == 0:
                os.unlink(partial)
        if os.path.exists(partial):
            add_note(e, f"the part written so far is in {partial}; {path} is unchanged")
        else:
            add_note(e, f"nothing was written; {path} is unchanged")
        raise
    f.close()
    os.chmod(partial, _replacing_mode(target))
    os.replace(partial, target)
