"""What the tests of the ``gridsim`` command share: its one-line errors, and the SIGTERM handler kept.

A test module that runs ``gridsim play`` imports :func:`sigterm_handler_kept` (an autouse fixture).
"""

from __future__ import annotations

import signal

import pytest


@pytest.fixture(autouse=True)
def sigterm_handler_kept():
    """gridsim play leaves its SIGTERM handler set: the process's own comes back after each test.

    (Kept, it would reach the workers a later test forks, which SIGTERM then no longer ends at once.)
    """
    before = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, before)


def one_line_error(capsys, command: str) -> str:
    """The one line a refused command wrote to stderr (nothing on stdout, no traceback)."""
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"gridsim {command}: error: ") and "Traceback" not in captured.err
    assert captured.out == ""
    return lines[0]
