"""The kernel contract (gridsim/engine/kernel.pxd): every family's kernel is a Kernel, and a
kernel that does not implement the entry hooks fails with an internal error, never a crash."""

import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS, make_vec

import gridsim
from gridsim import _core
from gridsim.engine.kernel import Kernel


class Incomplete(Kernel):
    """A kernel of no family: nothing binds its entry hooks (the skeleton's bind_kernel does), so it has the base's."""


def kernel_class(env_id: str) -> type:
    envs = make_vec(env_id, 1)
    cls = type(envs.kernel)
    envs.close()
    return cls


@pytest.mark.parametrize("cls", [pytest.param(kernel_class(ids[0]), id=name) for name, ids in FAMILY_IDS.items()])
def test_every_family_kernel_is_a_kernel(cls):
    assert issubclass(cls, Kernel)
    assert cls.__module__ == f"gridsim.{cls.__name__[:-len('Kernel')].lower()}._kernel"


@pytest.mark.parametrize("cls", [Kernel, Incomplete])
def test_reset_and_observe_without_hooks_raise_kernel_error(cls):
    k = cls()
    with pytest.raises(gridsim.KernelError, match="does not implement") as info:
        k.reset(np.zeros(0, np.uint8))
    assert info.value.code == _core.ERR_INTERNAL and k.err_code == _core.ERR_INTERNAL
    with pytest.raises(gridsim.KernelError, match="does not implement") as info:
        k.observe()
    assert info.value.code == _core.ERR_INTERNAL
    with pytest.raises(ValueError, match="reset mask has length 3"):
        k.reset(np.zeros(3, np.uint8))


@pytest.mark.parametrize("cls", [Kernel, Incomplete])
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_step_without_hooks_reports_internal_error(cls, dtype):
    k = cls()
    step = k.step_i64 if dtype == np.int64 else k.step_i32
    assert k.err_code == _core.ERR_OK
    assert step(np.zeros(0, dtype)) == -1
    assert k.err_code == _core.ERR_INTERNAL and k.err_env == -1
    # Even with actions (of a batch it knows nothing about), and with the GIL released.
    assert step(np.zeros(1 << 15, dtype)) == -1
    assert k.err_code == _core.ERR_INTERNAL


def test_env_reports_a_kernel_without_hooks_as_kernel_error():
    envs = gridsim.NavVectorEnv(num_envs=2, level="nav/room1_small")
    envs.reset(seed=0)
    k = Incomplete()
    assert k.step_i64(np.zeros(2, np.int64)) == -1
    envs.kernel = k
    err = envs._kernel_error(np.zeros(2, np.int64))
    assert isinstance(err, gridsim.KernelError) and err.code == _core.ERR_INTERNAL


def test_bind_obs_is_part_of_the_contract():
    with pytest.raises(NotImplementedError):
        Incomplete().bind_obs(np.zeros((1, 2), np.int32))


def test_sync_outputs_and_max_steps_of_an_unbound_kernel():
    k = Kernel()
    k.sync_outputs()  # no rows: nothing to do
    k.max_steps = 2**40  # int64: the limit of new episodes
    assert k.max_steps == 2**40


@pytest.mark.parametrize("make", [
    lambda: gridsim.NavVectorEnv(num_envs=3, level="nav/room1_small", max_episode_steps=5),
    lambda: gridsim.RobomanVectorEnv(num_envs=3, max_episode_steps=5),
    lambda: gridsim.KitchenVectorEnv(num_envs=3, max_episode_steps=5),
    *[lambda env_id=ids[0]: make_vec(env_id, 3, max_episode_steps=5) for ids in FAMILY_IDS.values()],
])
def test_the_engine_sets_every_familys_episode_limit(make):
    # One conversion for every family: 1..2**31 - 1 is the limit; 0 or less, or larger, is none.
    envs = make()
    envs.reset(seed=1)
    assert (envs.state.ep_max_steps == 5).all()
    mask = np.zeros(envs.num_envs, bool)
    for value, expected in ((7, 7), (0, 0), (-3, 0), (2**31 - 1, 2**31 - 1), (2**31, 0), (2**40, 0)):
        envs.kernel.max_steps = value
        mask[:] = False
        mask[0] = True
        envs.reset(options={"reset_mask": mask})
        assert envs.state.ep_max_steps[0] == expected, value
    envs.close()
