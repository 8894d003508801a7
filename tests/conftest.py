"""Shared test configuration: headless rendering and Hypothesis profiles."""

from __future__ import annotations

import os

# The "human" render mode opens a pygame window; the dummy drivers make it work headless.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import hypothesis  # noqa: E402

# As numpy/conftest.py does: a local profile without deadlines, and a derandomized one
# for CI so that a failure reproduces exactly (loaded when the CI variable is set).
hypothesis.settings.register_profile("dev", deadline=None)
hypothesis.settings.register_profile("ci", deadline=None, derandomize=True, database=None)
hypothesis.settings.load_profile("ci" if os.environ.get("CI") else "dev")
