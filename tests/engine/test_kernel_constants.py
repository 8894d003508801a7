"""Every constant the kernel exports agrees with the Python-side table it mirrors.

The kernel defines its enums once (gridsim/engine/kernel.pxd, gridsim/<family>/_kernel.pyx):
``gridsim._core`` exports the engine's (error and autoreset codes), each family's kernel
module (``gridsim.<family>._kernel``) the family's; Python code keeps its own tables for
names, docs and the pure-Python reference. The engine's constants and what holds for every
family of the family table are checked here; each family's own constants in its test folder
(``tests/<family>/test_<family>_kernel_constants.py``).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import gridsim
import gridsim.engine.vector
from gridsim import _core
from gridsim.engine.codegen import FAMILY_NAMES
from gridsim.families import FAMILIES

# name -> the family's compiled kernel module, gridsim.<name>._kernel
KERNEL_MODULES = {name: importlib.import_module(f"gridsim.{name}._kernel") for name in FAMILIES}


def constants(module) -> set[str]:
    """The upper-case names a compiled module exports (its constants; not those every family's module is generated)."""
    return {n for n in dir(module) if n.isupper() and not n.startswith("_")} - FAMILY_NAMES


def test_event_ids_are_positions_in_the_specs():
    for name, module in KERNEL_MODULES.items():
        specs = FAMILIES[name].vector_env.EVENT_SPECS
        exported = [getattr(module, n) for n in constants(module) if n.endswith("_EVENT_IDS")]
        assert len(exported) == (1 if specs else len(exported)) <= 1, f"{name}: one <FAMILY>_EVENT_IDS table"
        ids = exported[0] if exported else {}
        assert ids == {s.name: k + 1 for k, s in enumerate(specs)}, name


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
    package = Path(gridsim.__file__).parent
    for path in package.rglob("*.py"):
        text = path.read_text()
        for used in re.findall(r"_core\.(ERR_[A-Z_]+|AUTORESET_[A-Z_]+|FLAG_[A-Z_]+|OBS_KIND_[A-Z_]+)", text):
            assert hasattr(_core, used), f"{path.name} uses _core.{used}"
        # A family's modules read its constants from its own kernel module.
        for used in re.findall(r"_kernel\.([A-Z][A-Z_]+)", text):
            kernel = KERNEL_MODULES[path.relative_to(package).parts[0]]
            assert hasattr(kernel, used), f"{path.name} uses _kernel.{used}"


def test_family_constants_live_in_their_family_module():
    for family, module in KERNEL_MODULES.items():
        own = constants(module)
        assert own, family
        for other in (_core, *(m for f, m in KERNEL_MODULES.items() if f != family)):
            assert not own & constants(other), (family, other.__name__, sorted(own & constants(other)))
