"""The examples in the docstrings run as written."""

import doctest
import os

import pytest

import gridsim
import gridsim.envs.kitchen
import gridsim.envs.nav
import gridsim.envs.roboman
import gridsim.nav.sampler

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.mark.parametrize("module", [gridsim, gridsim.envs.nav, gridsim.envs.roboman, gridsim.envs.kitchen,
                                    gridsim.nav.sampler], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if module is not gridsim:
        assert result.attempted > 0
