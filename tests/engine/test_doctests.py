"""The examples in the docstrings run as written."""

import doctest
import os
import re
import sys
from pathlib import Path

import pytest

import gridsim
import gridsim.api.settings
import gridsim.kitchen.env
import gridsim.level
import gridsim.nav.env
import gridsim.nav.sampler
import gridsim.record
import gridsim.registry
import gridsim.roboman.env

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.mark.parametrize("module", [gridsim, gridsim.nav.env, gridsim.roboman.env, gridsim.kitchen.env,
                                    gridsim.nav.sampler, gridsim.level, gridsim.api.settings,
                                    gridsim.registry, gridsim.record,
                                    # the module: the package's `evaluate` attribute is the function
                                    sys.modules["gridsim.evaluate"]], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if module is not gridsim:
        assert result.attempted > 0


def test_readme_python_blocks_run():
    readme = Path(__file__).resolve().parents[2] / "README.md"
    if not readme.is_file():
        pytest.skip("README.md is not next to the tests")
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(), re.S)
    assert blocks
    namespace: dict = {}
    for block in blocks:
        if "stable_baselines3" in block:  # trains for minutes; tests/integrations/test_sb3.py runs the same calls
            continue
        exec(compile(block, str(readme), "exec"), namespace)  # noqa: S102 - the README's own examples
