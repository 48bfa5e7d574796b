"""Where published numbers are found (issue 40): a clone's scenarios/ first, else the copy an
installed wheel carries as ``nvsim._scenarios``; one scenario folder may be given on its own; and
finding none is a one-line InputError naming what was looked for and where, never an empty pass."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nvsim import published
from nvsim.errors import InputError
from nvsim.validation import compare_all

ROOT = Path(__file__).resolve().parents[2]


def _copy(directory: str, to: Path) -> Path:
    target = to / directory
    shutil.copytree(ROOT / "scenarios" / directory, target)
    return target


def test_the_installed_package_is_used_when_the_clone_has_no_scenarios(tmp_path, monkeypatch):
    clone, package = tmp_path / "clone-scenarios", tmp_path / "site-packages" / "nvsim" / "_scenarios"
    _copy("kioxia-cm7-namespace", package)
    monkeypatch.setattr(published, "SCENARIO_ROOTS", (clone, package))  # as in a wheel: no clone beside nvsim/
    assert published.scenarios_dir() == package
    assert published.published_files() == [package / "kioxia-cm7-namespace" / "published.yaml"]
    _copy("host-io-paths", clone)  # a clone, when there is one, comes first
    assert published.scenarios_dir() == clone
    assert published.published_files() == [clone / "host-io-paths" / "published.yaml"]


def test_the_default_roots_are_the_clone_then_the_package():
    clone, package = published.SCENARIO_ROOTS
    assert clone == ROOT / "scenarios" and package == ROOT / "nvsim" / "_scenarios"
    assert published.scenarios_dir() == clone and published.SCENARIOS_DIR == clone


def test_one_scenario_folder_may_be_given_on_its_own(tmp_path):
    folder = _copy("kioxia-cm7-namespace", tmp_path)
    assert published.published_files(folder) == [folder / "published.yaml"]
    assert published.published_files(tmp_path) == [folder / "published.yaml"]


def test_none_found_is_one_line_naming_what_and_where(tmp_path, monkeypatch):
    clone, package = tmp_path / "clone", tmp_path / "package"
    monkeypatch.setattr(published, "SCENARIO_ROOTS", (clone, package))
    assert published.published_files() == []
    with pytest.raises(InputError) as caught:
        compare_all(fidelity="fluid")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("published numbers: none found: looked for ")
    assert str(clone / "*" / "published.yaml") in message and str(package / "*" / "published.yaml") in message
    with pytest.raises(InputError, match=r"none found: looked for .*empty"):
        compare_all(root=tmp_path / "empty", fidelity="fluid")
