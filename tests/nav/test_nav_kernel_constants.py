"""The navigation kernel's exported constants agree with the Python tables they mirror."""

from __future__ import annotations

from gridsim.nav import _kernel as nav_kernel
from gridsim.nav import alphabet
from gridsim.nav import state as nav_state


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
