"""The examples in the docstrings, the README and the guides run as written, without warnings."""

import doctest
import os
import re
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import pytest

import gridsim
import gridsim.engine.settings
import gridsim.kitchen.env
import gridsim.make
import gridsim.minigrid.env
import gridsim.nav.env
import gridsim.nav.sampler
import gridsim.registry
import gridsim.roboman.env
import gridsim.tools.evaluate
import gridsim.tools.policies
import gridsim.tools.record

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

ROOT = Path(__file__).resolve().parents[2]
# The documents a new user copies from (absent when the tests run from an installed wheel's sdist).
DOCUMENTS = [ROOT / "README.md", ROOT / "examples" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ID = re.compile(r"\bgridsim/[A-Za-z][\w.-]*-v\d+\b")
MAKES_REGISTERED_ENV = re.compile(r"gym\.make(_vec)?\(\"gridsim/")


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S) if path.is_file() else []


def documented_ids() -> list[str]:
    """Every gridsim id the documents name, but the older names they mention as such."""
    ids = {m for path in DOCUMENTS if path.is_file() for m in ID.findall(path.read_text())}
    return sorted(ids - set(gridsim.registry.ALIASES))


@pytest.mark.parametrize("module", [gridsim, gridsim.nav.env, gridsim.roboman.env, gridsim.kitchen.env,
                                    gridsim.minigrid.env,
                                    gridsim.nav.sampler, gridsim.engine.settings, gridsim.registry,
                                    gridsim.tools.record, gridsim.tools.evaluate, gridsim.tools.policies,
                                    # the module: the package's `make` attribute is the function
                                    sys.modules["gridsim.make"]], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if module is not gridsim:
        assert result.attempted > 0


def test_readme_python_blocks_run_without_warnings(tmp_path, monkeypatch):
    readme = ROOT / "README.md"
    if not readme.is_file():
        pytest.skip("README.md is not next to the tests")
    monkeypatch.chdir(tmp_path)  # the checkpoint example writes a file
    blocks = python_blocks(readme)
    assert blocks
    namespace: dict = {}
    for block in blocks:
        if "stable_baselines3" in block:  # trains for minutes; tests/integrations/test_sb3.py runs the same calls
            continue
        if "gridsim import distributed" in block:  # needs Ray: tests/integrations/test_distributed.py
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # Gymnasium's notices ("out of date" ids) included
            exec(compile(block, str(readme), "exec"), namespace)  # noqa: S102 - the README's own examples


def test_readme_evaluate_example_prints_what_the_readme_shows(capsys):
    # A python block followed by "prints" and a text block: running the block prints exactly that text.
    readme = ROOT / "README.md"
    if not readme.is_file():
        pytest.skip("README.md is not next to the tests")
    shown = re.findall(r"```python\n((?:(?!```).)*)```\n\nprints\n\n```text\n(.*?)```", readme.read_text(), re.S)
    assert any("gridsim.evaluate(" in code for code, _ in shown)
    for code, text in shown:
        exec(compile("import numpy as np\nimport gridsim\n" + code, str(readme), "exec"), {})  # noqa: S102
        assert capsys.readouterr().out == text


@pytest.mark.parametrize("path", [p for p in DOCUMENTS[1:] if any(map(MAKES_REGISTERED_ENV.search, python_blocks(p)))],
                         ids=lambda p: p.name)
def test_guide_blocks_that_make_registered_envs_run_without_warnings(path):
    for block in python_blocks(path):
        if MAKES_REGISTERED_ENV.search(block):  # these stand alone; others need files the guide describes
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                exec(compile(block, str(path), "exec"), {})  # noqa: S102 - the guide's own example


@pytest.mark.parametrize("env_id", documented_ids())
def test_documented_ids_make_envs_without_warnings(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make(env_id)
        env.reset(seed=0)
        env.step(env.action_space.sample())
        env.close()
        envs = gym.make_vec(env_id, num_envs=2)
        envs.reset(seed=0)
        envs.step(envs.action_space.sample())
        envs.close()
