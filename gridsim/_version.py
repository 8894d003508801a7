"""gridsim's version and the name it is installed under (``pip install gridsim-vec``; ``import gridsim``).

The package index's ``gridsim`` is another project, so gridsim's distribution has a name of its
own; ``pyproject.toml`` declares the same name and version. Importing this module imports no
compiled module.
"""

from __future__ import annotations

__all__ = ["DISTRIBUTION", "__version__", "installed_version"]

# The name pip installs gridsim under, [project] name in pyproject.toml.
DISTRIBUTION = "gridsim-vec"
__version__ = "0.1.0"


def installed_version() -> str:
    """The installed distribution's version, else (a source folder on ``sys.path``) the package's."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return __version__
