"""Packaging metadata: licence, authors, classifiers, changelog, and annotations of the entry points."""

from __future__ import annotations

import importlib.metadata
import inspect
import re
import subprocess
import sys
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


# The package index's "gridsim" is another project; no install line may name it.
OTHER_PROJECT = re.compile(r"pip\s+install\s+(?:-\S+\s+)*[\"']?gridsim(?![-\w])")


def test_the_distribution_has_a_name_of_its_own(project):
    from gridsim._version import DISTRIBUTION, __version__

    assert project["name"] == DISTRIBUTION != "gridsim"
    assert project["version"] == __version__ == gridsim.__version__


def test_built_metadata_names_the_distribution(tmp_path):
    from gridsim._version import DISTRIBUTION

    # setup.py imports the build requirements; an installed wheel's venv may not have them (the
    # installed distribution is checked by the next test).
    pytest.importorskip("Cython")
    # The metadata pip would install from this checkout (setuptools' PEP 517 hook; no compiling).
    code = ("import sys; from setuptools.build_meta import prepare_metadata_for_build_wheel as p; "
            "print(p(sys.argv[1]))")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    dist = importlib.metadata.PathDistribution(tmp_path / run.stdout.split()[-1])
    assert dist.metadata["Name"] == DISTRIBUTION
    assert dist.read_text("top_level.txt").split() == ["gridsim"]  # and it imports as gridsim
    assert "gridsim = gridsim.cli:main" in dist.read_text("entry_points.txt")


def test_an_installed_distribution_is_gridsims():
    from gridsim._version import DISTRIBUTION, installed_version

    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        assert installed_version() == gridsim.__version__  # a source folder on sys.path
        pytest.skip(f"{DISTRIBUTION} is not installed here")
    assert dist.metadata["Name"] == DISTRIBUTION and installed_version() == dist.version


def test_no_install_line_names_the_other_project():
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / ".ci" / "run", *ROOT.glob("*/README.md"),
             *(ROOT / "docs").glob("*.md")]
    files += [p for folder in ("gridsim", "examples", "bench", "tests", "docs", ".ci")
              for p in (ROOT / folder).rglob("*.py")]
    assert ROOT / "docs" / "distributed.md" in files and ROOT / "tests" / "README.md" in files
    bad = [f"{p.relative_to(ROOT)}: {m.group(0)!r}" for p in files for m in OTHER_PROJECT.finditer(p.read_text())]
    assert bad == []
    assert not OTHER_PROJECT.search('pip install "gridsim-vec[ray]"')
    assert OTHER_PROJECT.search('`pip install\n"gridsim[ray]"`') and OTHER_PROJECT.search("pip install -U " "gridsim")


def test_the_test_extra_has_what_the_render_tests_need(project):
    # The README's test command (pip install ".[test]" && pytest) runs the render tests, not skips them.
    names = {re.split(r"[<>=\[ ;]", req, maxsplit=1)[0].lower() for req in project["optional-dependencies"]["test"]}
    assert {"pillow", "imageio", "imageio-ffmpeg", "pygame-ce"} <= names
    readme = (ROOT / "README.md").read_text()
    assert 'pip install ".[test]" && pytest' in readme and 'pip install -e ".[test]"' in readme
