"""gridsim's errors form one hierarchy: each is a GridSimError and the builtin users already catch."""

import pytest

import gridsim
from gridsim import errors


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (gridsim.LevelError, ValueError),
        (gridsim.LevelNotFoundError, FileNotFoundError),
        (gridsim.InvalidActionError, ValueError),
        (gridsim.InvalidActionError, AssertionError),
        (gridsim.PolicyError, ValueError),
        (gridsim.InvalidStateError, ValueError),
        (gridsim.ClosedEnvError, RuntimeError),
        (gridsim.ForkedEnvError, gridsim.ClosedEnvError),
        (gridsim.KernelError, RuntimeError),
    ],
)
def test_every_error_is_a_gridsim_error_and_its_builtin(error, builtin):
    assert issubclass(error, gridsim.GridSimError)
    assert issubclass(error, builtin)


def test_every_exported_error_derives_from_gridsim_error():
    exported = [getattr(errors, name) for name in errors.__all__]
    classes = [e for e in exported if isinstance(e, type) and issubclass(e, BaseException)]
    assert len(classes) >= 8
    assert all(issubclass(e, gridsim.GridSimError) for e in classes)


def test_stepping_an_ended_env_without_autoreset_is_a_kernel_error():
    envs = gridsim.NavVectorEnv(num_envs=2, level="nav/room1_small", autoreset_mode="Disabled", max_episode_steps=1)
    envs.reset(seed=0)
    envs.step([0, 0])
    with pytest.raises(gridsim.KernelError, match="autoreset_mode is DISABLED") as info:
        envs.step([0, 0])
    assert info.value.env == 0


def test_bad_kitchen_rules_raise_gridsim_errors():
    from gridsim.kitchen.rules import DEFAULT_RULES

    with pytest.raises(gridsim.InvalidArgumentError, match="lower-case letter"):
        DEFAULT_RULES.with_food("Cucumber", char="C")
    with pytest.raises(gridsim.GridSimError, match="unknown food"):
        DEFAULT_RULES.with_recipe("Soup", ["Carrot"])
