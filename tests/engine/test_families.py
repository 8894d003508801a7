"""The family table: every row is complete, and each family's parameters are declared once."""

import importlib
import inspect
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.envs.registration import load_env_creator

import gridsim
import gridsim.envs
from gridsim.cli import main
from gridsim.engine.single import SingleEnvView
from gridsim.families import FAMILIES, family_of, family_row

ROWS = list(FAMILIES.values())


@pytest.mark.parametrize("fam", ROWS, ids=lambda f: f.name)
def test_row_names_its_folder_and_env_classes(fam):
    assert fam.vector_env.__module__ == f"gridsim.{fam.name}.env"
    assert issubclass(fam.vector_env, gridsim.GridVectorEnv)
    assert issubclass(fam.single_env, SingleEnvView) and fam.single_env.vector_class is fam.vector_env
    assert family_row(fam.name) is fam


@pytest.mark.parametrize("fam", ROWS, ids=lambda f: f.name)
def test_registered_ids_build_the_family_env(fam):
    # The entry points name the module that defines the class.
    ids = [i for i in gridsim.registered_ids()
           if gym.spec(i).vector_entry_point == f"gridsim.{fam.name}.env:{fam.vector_env.__name__}"]
    assert ids, f"the {fam.name} family registers no id"
    assert all(gym.spec(i).entry_point == f"gridsim.{fam.name}.env:{fam.single_env.__name__}" for i in ids)
    envs = gym.make_vec(ids[0], num_envs=2, vectorization_mode="vector_entry_point")
    assert family_of(envs) is fam
    envs.close()


@pytest.mark.parametrize("fam", ROWS, ids=lambda f: f.name)
def test_env_classes_and_exports_keep_their_documented_paths(fam):
    for cls in (fam.vector_env, fam.single_env):
        assert getattr(gridsim.envs, cls.__name__) is cls and getattr(gridsim, cls.__name__) is cls
        assert cls.__name__ in gridsim.envs.__all__ and cls.__name__ in gridsim.__all__
        # The old entry points (gridsim.envs:<class>) still load the class.
        assert load_env_creator(f"gridsim.envs:{cls.__name__}") is cls
    package = importlib.import_module(f"gridsim.{fam.name}")
    for name in fam.exports:
        assert getattr(gridsim, name) is getattr(package, name) and name in gridsim.__all__


def test_top_level_names_of_the_families():
    names = {n for fam in ROWS for n in fam.public_names}
    assert {"NavVectorEnv", "NavEnv", "RobomanVectorEnv", "RobomanEnv", "KitchenVectorEnv", "KitchenEnv",
            "TaskSampler", "LevelParseError"} <= names
    assert gridsim.TaskSampler is gridsim.nav.TaskSampler
    assert gridsim.LevelParseError is gridsim.kitchen.LevelParseError
    assert len(gridsim.__all__) == len(set(gridsim.__all__))


@pytest.mark.parametrize("fam", ROWS, ids=lambda f: f.name)
def test_settings_and_signature_agree(fam):
    params = inspect.signature(fam.vector_env.__init__).parameters
    # The common keyword arguments reach GridVectorEnv through the family's **common.
    common = inspect.signature(gridsim.GridVectorEnv.__init__).parameters
    kwargs = {decl.kwarg or key for key, decl in fam.vector_env.SETTINGS.items()}
    accepted = set(params) | set(common)
    assert kwargs <= accepted, f"settings without a keyword argument: {sorted(kwargs - accepted)}"
    doc = fam.vector_env.__doc__
    arguments = doc[doc.index("## Arguments"):doc.index("## Version History")]
    for name, p in params.items():
        if name in ("self", "settings") or name.startswith("_") or p.kind is p.VAR_KEYWORD:
            continue
        # Every other parameter is a setting (in the generated table) or described in the prose.
        assert f"``{name}``" in arguments, f"{fam.vector_env.__name__}({name}=) is not documented"


def test_unknown_family_lists_the_families():
    with pytest.raises(ValueError, match="gridsim has"):
        family_row("maze")


def test_list_settings_prints_every_familys_table(capsys):
    assert main(["list", "--settings"]) == 0
    out = capsys.readouterr().out
    for fam in ROWS:
        assert f"## {fam.name} ({fam.vector_env.__name__})" in out
        for key in fam.vector_env.SETTINGS:
            assert f"| `{key}` |" in out  # markdown's code spans
    assert "``" not in out  # reStructuredText's literals stay in the docstrings
    assert "| ``max_steps`` | ``max_episode_steps`` |" in gridsim.NavVectorEnv.__doc__


def test_make_vec_is_make():
    assert gridsim.make_vec is gridsim.make
    assert {"make", "make_vec"} <= set(gridsim.__all__)


def test_the_layer_contract_lists_every_family_of_the_table():
    # pyproject.toml's import-linter layers keep the families independent of each other and
    # above the engine: the one line of configuration a new family adds, checked here.
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and newer
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("pyproject.toml is not next to the tests")
    contracts = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    family_layers = [set(layer.split(" | ")) for layer in layers if f"gridsim.{next(iter(FAMILIES))}" in layer]
    assert family_layers == [{f"gridsim.{name}" for name in FAMILIES}]
