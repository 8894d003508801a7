"""Fixtures of the integration tests: one local Ray cluster per module (`ray.init(num_cpus=2)`)."""

from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray cluster whose workers import what this process does (the test modules, by name)."""
    import ray

    path = os.pathsep.join(p for p in sys.path if p)
    ray.init(num_cpus=2, include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": path}},
             log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
