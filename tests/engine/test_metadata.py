"""Packaging metadata: licence, authors, classifiers, changelog, and annotations of the entry points."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import gridsim

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project():
    tomllib = pytest.importorskip("tomllib")
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def test_license_file_and_metadata(project):
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 the gridsim authors" in text
    assert project["license"] == {"text": "MIT"}
    assert "License :: OSI Approved :: MIT License" in project["classifiers"]


def test_authors_keywords_classifiers(project):
    assert project["authors"] == [{"name": "the gridsim authors"}]
    assert "gymnasium" in project["keywords"] and "reinforcement learning" in project["keywords"]
    assert all(" :: " in c for c in project["classifiers"])
    # No invented addresses: [project.urls] only with a real public one.
    for url in project.get("urls", {}).values():
        assert url.startswith("https://")


def test_changelog_has_an_unreleased_section():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "keepachangelog.com" in text and "## [Unreleased]" in text
    assert "num_threads" in text and "gridsim.evaluate" in text and "SB3VecEnv" in text


def test_make_has_a_return_annotation():
    assert inspect.signature(gridsim.make).return_annotation in ("GridVectorEnv", gridsim.GridVectorEnv)
    assert inspect.signature(gridsim.make_vec).return_annotation in ("GridVectorEnv", gridsim.GridVectorEnv)
