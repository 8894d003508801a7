"""Sphinx configuration of gridsim's documentation: the guides (docs/*.md) and the API reference (docs/api/).

From a checkout: ``pip install -e ".[docs]" && python -m sphinx -W -b html docs docs/_build/html``.
"""

from __future__ import annotations

import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "_ext"))

import gridsim  # noqa: E402 - the installed (built) package, or the source folder on PYTHONPATH

project = "gridsim"
author = "the gridsim authors"
copyright = "the gridsim authors"
release = gridsim.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "gridsim_api",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]

# The guides link to each other's headings as GitHub does: [x](levels.md#trust).
myst_heading_anchors = 4

# Docstrings are Google style ("Args:", "Returns:", "Raises:", "Example:").
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# "Attributes:" as fields of the class, not as entries of their own beside autodoc's.
napoleon_use_ivar = True

autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_class_signature = "mixed"
# The optional integrations' libraries, where they are not installed: gridsim's own modules are
# always imported for real (the compiled ones too: build gridsim first).
autodoc_mock_imports = [
    name for name in ("ray", "torch", "stable_baselines3", "sb3_contrib") if importlib.util.find_spec(name) is None
]

html_theme = "furo"
html_title = f"gridsim {release}"

# Files outside docs/ that the site has as pages (docs/examples.md includes examples/README.md): the
# guides' links to them ([x](../examples/README.md)) go to the page; a link to any other file outside
# docs/ is a warning. The included file's relative links start with "." (./curves/x.png,
# ../docs/x.md), which the include's `relative-docs: .` rewrites.
gridsim_included_files = {"examples/README.md": "examples"}
