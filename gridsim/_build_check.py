"""Refuse, with a clear message, a gridsim whose compiled modules are not built (an unbuilt source folder).

``import gridsim`` run in a source checkout, or with one on ``sys.path``, imports the checkout's
``gridsim/`` folder ahead of an installed gridsim; without ``python setup.py build_ext
--inplace`` it has no compiled kernel, and the first import of one would fail with a bare
``ModuleNotFoundError: gridsim._core``.
"""

from __future__ import annotations

import os
from importlib.machinery import PathFinder

# The compiled module imported first; the others are built with it.
_CORE = "gridsim._core"


def not_built_message(package_dir: str) -> str:
    """What to do when ``package_dir`` (a ``gridsim/`` folder) has no compiled modules."""
    checkout = os.path.dirname(package_dir)
    return (f"gridsim's compiled modules are not built in {package_dir} (no {_CORE}). That folder is gridsim's "
            f"source, and it shadows an installed gridsim whenever Python starts in {checkout} or has it on "
            f"sys.path. Either build the modules in place (cd {checkout} && python setup.py build_ext --inplace, "
            "or pip install -e .), or run from another folder so that the installed gridsim is imported "
            "(pip install . installs it).")


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# Looked for in this folder only: an import hook of another gridsim (an editable install of
# another checkout) would otherwise lend this folder its compiled modules, which do not match.
if PathFinder.find_spec(_CORE, [_PACKAGE_DIR]) is None:
    raise ImportError(not_built_message(_PACKAGE_DIR), name=_CORE)
