"""The debug build (``GRIDSIM_CYTHON_DEBUG=1``) really checks bounds."""

import sys

import pytest

import gridsim
from gridsim import _core


@pytest.mark.skipif(not _core.DEBUG_BUILD, reason="bounds checks are on only in the debug build")
def test_debug_build_checks_bounds(monkeypatch):
    # A held item id far past the item tables: the kernel reads comp_bits[held] while
    # observing. The release build would read past the array; the debug build must stop
    # there with an IndexError. The kernel's per-env functions run without the GIL and
    # cannot propagate exceptions, so Cython reports it through sys.unraisablehook.
    env = gridsim.KitchenVectorEnv(num_envs=2)
    env.reset(seed=0)
    env.state.held[1, 0] = 1000
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda report: seen.append(report.exc_type))
    try:
        env.kernel.observe()
    except IndexError:
        seen.append(IndexError)
    assert IndexError in seen
