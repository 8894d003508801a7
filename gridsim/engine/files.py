"""Files written whole or not at all.

Every file gridsim writes (results tables, renders, checkpoints, benchmark output) goes to a
temporary file in the destination's folder and is renamed into place once complete, as
``pip`` and ``conda`` write their metadata: an error, a full disk or a Ctrl-C midway leaves
the previous file as it was, never a file cut short. The rename is atomic on POSIX and on
Windows (``os.replace``) because the temporary file is on the same filesystem.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["atomic_path", "atomic_write"]


def _umask() -> int:
    # os.umask can only be read by setting it; put it straight back.
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """A temporary path beside ``path`` to write; renamed onto ``path`` if the block completes.

    For writers that take a file name (image and video libraries choose a format from its
    suffix, so the temporary name keeps ``path``'s suffix). If the block raises, including
    ``KeyboardInterrupt``, the temporary file is removed and ``path`` is unchanged.

    Yields:
        str: the temporary file's path (it exists, empty, when the block starts).
    """
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    stem, suffix = os.path.splitext(name)
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=f".tmp{suffix}", dir=folder)
    os.close(fd)
    try:
        yield tmp
        # mkstemp creates the file 0600; give it the mode a plain open() would have.
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
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
