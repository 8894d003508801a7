"""The kernels' typed views are generated from the field tables (gridsim/engine/codegen.py).

The build writes them; these tests check that what is installed was generated from the tables
that are installed, that the generator states each field's C type once from its dtype, and that
it refuses what it cannot generate with a message naming the file to edit.
"""

import importlib
import shutil
from pathlib import Path

import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS

import gridsim.engine.kernel as engine_kernel
from gridsim.engine import codegen, fields
from gridsim.engine.fields import SHARED_FIELDS, SUCCESS_FIELD, Field

PACKAGE = Path(codegen.__file__).parents[1]


@pytest.mark.parametrize("family", sorted(FAMILY_IDS))
def test_each_kernel_was_generated_from_its_installed_table(family):
    table = importlib.import_module(f"gridsim.{family}.fields").FIELDS
    kernel = importlib.import_module(f"gridsim.{family}._kernel")
    assert kernel.FIELDS_DIGEST == codegen.digest(table), (
        f"gridsim/{family}/fields.py changed since gridsim.{family}._kernel was built: rebuild "
        "(pip install -e . or python setup.py build_ext --inplace)")


@pytest.mark.parametrize("family", sorted(FAMILY_IDS))
def test_each_kernel_module_has_the_generated_names(family):
    kernel = importlib.import_module(f"gridsim.{family}._kernel")
    assert codegen.FAMILY_NAMES <= set(dir(kernel))
    assert issubclass(kernel.FieldViews, engine_kernel.Kernel)


def test_the_contract_was_generated_from_the_installed_shared_table():
    assert engine_kernel.SHARED_FIELDS_DIGEST == codegen.digest(SHARED_FIELDS)


@pytest.mark.parametrize("family", sorted(FAMILY_IDS))
def test_a_family_state_allocates_exactly_its_table(family):
    state_module = importlib.import_module(f"gridsim.{family}.state")
    table = importlib.import_module(f"gridsim.{family}.fields").FIELDS
    states = [cls for cls in vars(state_module).values()
              if isinstance(cls, type) and cls.__module__ == state_module.__name__ and hasattr(cls, "FIELDS")]
    assert [cls.FIELDS for cls in states] == [table]


def test_views_follow_the_dtype_and_rank():
    assert codegen.declaration(Field("cells", np.uint8, ("U", "H", "W", 4), "cells")) == \
        "cdef uint8_t[:, :, :, ::1] cells  # (U, H, W, 4) cells"
    assert codegen.declaration(Field("count", np.int32, ("U",), "steps")) == "cdef int32_t[::1] count  # (U,) steps"
    assert codegen.declaration(Field("r", np.float64, ("R",), "r")).startswith("cdef double[::1] r")
    # numpy's bools are bytes: the kernel views them as uint8.
    flag = Field("done", np.bool_, ("U",), "ended")
    assert codegen.declaration(flag).startswith("cdef uint8_t[::1] done")
    assert codegen.binding(flag) == "self.done = state.done.view(_np.uint8)"
    assert codegen.binding(Field("count", np.int32, ("U",), "")) == "self.count = state.count"


def test_a_family_file_leaves_out_shared_python_only_and_observation_fields():
    table = (
        Field("cells", np.uint8, ("U", 4), "cells"),
        Field("note", np.int64, ("U",), "read by Python only", kernel=False),
        Field("view", "obs", ("R", "obs"), "an observation buffer of the batch's dtype"),
        SUCCESS_FIELD,
    )
    text = codegen.family_pxi(table, SHARED_FIELDS, "gridsim/maze/fields.py")
    assert "cdef class FieldViews(Kernel):" in text
    assert "cdef uint8_t[:, ::1] cells" in text and "self.cells = state.cells" in text
    for name in ("note", "view", "stat_success"):
        assert f" {name} " not in text and f"self.{name}" not in text
    assert f'FIELDS_DIGEST = "{codegen.digest(table)}"' in text
    assert "edit the table, not" in text


def test_a_family_without_kernel_fields_binds_nothing():
    text = codegen.family_pxi((SUCCESS_FIELD,), SHARED_FIELDS, "gridsim/maze/fields.py")
    assert "    cdef bind_fields(self, state):" in text and text.rstrip().endswith("pass")


def test_the_shared_success_field_is_bound_only_where_a_state_has_it():
    decl, impl = codegen.kernel_fields_pxi(SHARED_FIELDS, {SUCCESS_FIELD.name}, "gridsim/engine/fields.py")
    assert "cdef uint8_t[::1] stat_success" in decl
    assert 'if hasattr(state, "stat_success"):\n            self.stat_success' in impl
    assert "        self.episode = state.episode\n" in impl
    # The rewards (the family's dtype) and the observations are the kernel's own to bind.
    for name in ("rewards", "obs", "final_obs", "seeded"):
        assert f"self.{name} =" not in impl


def test_the_digest_changes_with_what_the_views_depend_on():
    base = (Field("a", np.int32, ("U",), "x"),)
    same = (Field("a", np.int32, ("N",), "another meaning, another symbol", fill=3),)
    assert codegen.digest(base) == codegen.digest(same)
    for other in ((Field("a", np.int64, ("U",), "x"),), (Field("a", np.int32, ("U", 2), "x"),),
                  (Field("b", np.int32, ("U",), "x"),), (Field("a", np.int32, ("U",), "x", kernel=False),)):
        assert codegen.digest(other) != codegen.digest(base)


def copy_tables(tmp_path: Path) -> Path:
    """The field tables of the installed package (with the modules they import), in a source-like folder."""
    root = tmp_path / "gridsim"
    (root / "engine").mkdir(parents=True)
    shutil.copy(fields.__file__, root / "engine" / "fields.py")
    for family in FAMILY_IDS:
        (root / family).mkdir()
        for module in (PACKAGE / family).glob("*.py"):
            shutil.copy(module, root / family / module.name)
    return root


def test_generate_writes_every_file_and_rewrites_none_that_is_unchanged(tmp_path):
    root = copy_tables(tmp_path)
    written = codegen.generate(root)
    extra = {root / family / name for family in FAMILY_IDS
             for name in getattr(importlib.import_module(f"gridsim.{family}.fields"), "SOURCES", {})}
    expected = {root / family / codegen.FAMILY_PXI for family in FAMILY_IDS} | extra
    expected |= {root / "engine" / codegen.KERNEL_FIELDS_PXI, root / "engine" / codegen.KERNEL_FIELDS_IMPL_PXI}
    assert set(written) == expected
    stamps = {path: path.stat().st_mtime_ns for path in expected}
    assert codegen.generate(root) == []  # an unchanged table recompiles nothing
    assert {path: path.stat().st_mtime_ns for path in expected} == stamps
    assert not list(root.rglob("*.tmp"))


def test_generate_leaves_the_imported_package_as_it_was(tmp_path):
    import sys

    before = {name: module for name, module in sys.modules.items() if name.startswith("gridsim")}
    codegen.generate(copy_tables(tmp_path))
    assert {name: module for name, module in sys.modules.items() if name.startswith("gridsim")} == before


def test_a_kernel_without_a_table_is_refused_naming_the_file(tmp_path):
    root = copy_tables(tmp_path)
    (root / "maze").mkdir()
    (root / "maze" / "_kernel.pyx").write_text("")
    with pytest.raises(RuntimeError, match=r"declare the family's FIELDS in .*maze/fields\.py"):
        codegen.generate(root)


def test_a_dtype_no_kernel_can_view_is_refused_naming_the_field(tmp_path):
    root = copy_tables(tmp_path)
    (root / "maze").mkdir()
    (root / "maze" / "fields.py").write_text(
        "import numpy as np\nfrom gridsim.engine.fields import Field\n"
        "FIELDS = (Field('when', np.dtype('datetime64[s]'), ('U',), 'a time'),)\n")
    with pytest.raises(RuntimeError, match=r"gridsim/maze/fields\.py: field 'when' has dtype"):
        codegen.generate(root)
