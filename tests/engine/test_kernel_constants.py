"""Every constant the kernel exports agrees with the Python-side table it mirrors.

The kernel defines its enums once (gridsim/engine/kernel.pxd, gridsim/<family>/_kernel.pyx):
``gridsim._core`` exports the engine's (error and autoreset codes), each family's kernel
module (``gridsim.<family>._kernel``) the family's; Python code keeps its own tables for
names, docs and the pure-Python reference. Each exported constant is checked against that
table, family by family.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import gridsim.engine.vector
from gridsim import _core
from gridsim.envs import RobomanVectorEnv
from gridsim.kitchen import _kernel as kitchen_kernel
from gridsim.kitchen import rules
from gridsim.kitchen.api import KITCHEN_EVENTS
from gridsim.nav import _kernel as nav_kernel
from gridsim.nav import alphabet
from gridsim.nav import state as nav_state
from gridsim.nav.api import NAV_EVENTS
from gridsim.roboman import _kernel as roboman_kernel
from gridsim.roboman.api import ROBOMAN_EVENTS
from gridsim.roboman.tasks import TASK_KINDS


def test_nav_flags_match_the_alphabet():
    names = ["WALKABLE", "TERMINAL", "INITIAL", "STOCHASTIC", "COLLECTIBLE"]
    for name in names:
        assert getattr(nav_kernel, f"FLAG_{name}") == getattr(alphabet, f"F_{name}"), name
    assert sorted(n[5:] for n in dir(nav_kernel) if n.startswith("FLAG_")) == sorted(names)


def test_nav_obs_kinds_match_state():
    for name in ("COORDS", "IMAGE", "VIEW"):
        assert getattr(nav_kernel, f"OBS_KIND_{name}") == getattr(nav_state, f"OBS_{name}"), name
    assert sorted(n for n in dir(nav_kernel) if n.startswith("OBS_KIND_")) == [
        "OBS_KIND_COORDS", "OBS_KIND_IMAGE", "OBS_KIND_VIEW"]


def test_roboman_goal_kinds_follow_task_kinds():
    assert roboman_kernel.ROBOMAN_GOAL_KINDS == {name: k for k, name in enumerate(TASK_KINDS)}


def test_roboman_obs_kinds():
    assert (roboman_kernel.ROBOMAN_OBS_VECTOR, roboman_kernel.ROBOMAN_OBS_GRID) == (0, 1)
    envs = RobomanVectorEnv(1, obs_type="vector")
    assert envs.kernel.obs_kind == roboman_kernel.ROBOMAN_OBS_VECTOR
    envs.close()
    envs = RobomanVectorEnv(1, obs_type="grid")
    assert envs.kernel.obs_kind == roboman_kernel.ROBOMAN_OBS_GRID
    envs.close()


def test_roboman_record_layout_matches_the_state_views():
    envs = RobomanVectorEnv(2)
    st = envs.state
    layout = roboman_kernel.ROBOMAN_RECORD
    assert st.record.shape[1] == layout["SIZE"]
    base = st.record.ctypes.data

    def offset(view):
        return view.ctypes.data - base

    assert offset(st.agent[:, 0]) == layout["AX"]
    assert offset(st.agent[:, 1]) == layout["AY"]
    assert offset(st.obj_pos) == layout["OBJ"] and st.obj_pos.shape[1:] == (3, 2)
    assert offset(st.above) == layout["ABOVE"] and st.above.shape[1] == 3
    assert offset(st.below) == layout["BELOW"] and st.below.shape[1] == 3
    assert offset(st.held) == layout["HELD"]
    assert offset(st.task) == layout["TASK"]
    # Every byte of a record has exactly one name.
    covered = np.zeros(layout["SIZE"], int)
    for view, width in ((st.agent, 2), (st.obj_pos, 6), (st.above, 3), (st.below, 3), (st.held, 1), (st.task, 1)):
        covered[offset(view):offset(view) + width] += 1
    assert (covered == 1).all()
    envs.close()


def test_kitchen_tile_kinds_follow_rules():
    assert kitchen_kernel.KITCHEN_TILE_KINDS == {t.name: k for k, t in enumerate(rules.TILES)}
    assert (kitchen_kernel.KITCHEN_TILE_KINDS["floor"], kitchen_kernel.KITCHEN_TILE_KINDS["counter"],
            kitchen_kernel.KITCHEN_TILE_KINDS["cutboard"], kitchen_kernel.KITCHEN_TILE_KINDS["delivery"]) == (
        rules.FLOOR, rules.COUNTER, rules.CUTBOARD, rules.DELIVERY)


def test_event_ids_are_positions_in_the_specs():
    for ids, specs in ((nav_kernel.NAV_EVENT_IDS, NAV_EVENTS),
                       (roboman_kernel.ROBOMAN_EVENT_IDS, ROBOMAN_EVENTS),
                       (kitchen_kernel.KITCHEN_EVENT_IDS, KITCHEN_EVENTS)):
        assert ids == {s.name: k + 1 for k, s in enumerate(specs)}


def test_autoreset_codes_match_vector():
    codes = gridsim.engine.vector.AUTORESET_CODES
    assert {mode.name: code for mode, code in codes.items()} == {
        "NEXT_STEP": _core.AUTORESET_NEXT_STEP,
        "SAME_STEP": _core.AUTORESET_SAME_STEP,
        "DISABLED": _core.AUTORESET_DISABLED,
    }
    all_codes = [_core.AUTORESET_NEXT_STEP, _core.AUTORESET_SAME_STEP, _core.AUTORESET_DISABLED,
                 _core.AUTORESET_CONTINUE]
    assert len(set(all_codes)) == 4


def test_error_codes_used_by_python_exist_and_differ():
    names = {n for n in dir(_core) if n.startswith("ERR_")}
    assert names == {"ERR_OK", "ERR_BAD_ACTION", "ERR_NAN_ACTION", "ERR_NEEDS_RESET", "ERR_BAD_SHAPE",
                     "ERR_INTERNAL"}
    assert _core.ERR_OK == 0
    assert len({getattr(_core, n) for n in names}) == len(names)
    package = Path(gridsim.engine.vector.__file__).parent
    family_kernels = {"nav": nav_kernel, "roboman": roboman_kernel, "kitchen": kitchen_kernel}
    for path in package.rglob("*.py"):
        text = path.read_text()
        for used in re.findall(r"_core\.(ERR_[A-Z_]+|AUTORESET_[A-Z_]+|FLAG_[A-Z_]+|OBS_KIND_[A-Z_]+)", text):
            assert hasattr(_core, used), f"{path.name} uses _core.{used}"
        # A family's modules read its constants from its own kernel module.
        for used in re.findall(r"_kernel\.([A-Z][A-Z_]+)", text):
            kernel = family_kernels[path.relative_to(package).parts[0]]
            assert hasattr(kernel, used), f"{path.name} uses _kernel.{used}"


def test_family_constants_live_in_their_family_module():
    names = {"nav": {"FLAG_", "OBS_KIND_", "NAV_"}, "roboman": {"ROBOMAN_"}, "kitchen": {"KITCHEN_"}}
    modules = {"nav": nav_kernel, "roboman": roboman_kernel, "kitchen": kitchen_kernel}
    for family, prefixes in names.items():
        assert any(n.startswith(p) for n in dir(modules[family]) for p in prefixes), family
        for other in (_core, *(m for f, m in modules.items() if f != family)):
            assert not [n for n in dir(other) if n.startswith(tuple(prefixes))], (family, other.__name__)
