"""``import gridsim`` from a source folder whose compiled modules are not built says what to do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import gridsim

PACKAGE = Path(gridsim.__file__).resolve().parent


def test_import_of_an_unbuilt_source_folder_explains_the_fix(tmp_path):
    # A copy of the package without its compiled modules, first on the path, as a checkout is
    # when Python starts in it.
    shutil.copytree(PACKAGE, tmp_path / "gridsim", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", "import gridsim"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: gridsim's compiled modules are not built in ")
    assert str(tmp_path / "gridsim") in last and "shadows an installed gridsim" in last
    assert "python setup.py build_ext --inplace" in last and "run from another folder" in last
    assert "ModuleNotFoundError" not in run.stderr  # the bare error is not chained


def test_the_built_package_imports():
    from gridsim._build_check import not_built_message

    assert gridsim._core is not None
    assert "pip install -e ." in not_built_message(str(PACKAGE))
