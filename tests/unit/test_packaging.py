"""What `pip install .` ships: every package of the tree, the catalog and the scenarios (their published
numbers with them) inside the wheel, and a core that needs none of the optional extras (dashboard, Dask,
Parquet, docs)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from nvsim.errors import InputError, require_extra

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
OPTIONAL = ("dash", "plotly", "kaleido", "dask", "pyarrow", "mkdocs", "selenium")


def test_every_package_of_the_tree_is_shipped_and_the_catalog_with_it():
    tree = {".".join(p.parent.relative_to(ROOT).parts) for top in ("nvsim", "dashboard")
            for p in (ROOT / top).rglob("__init__.py")}
    shipped = set(PYPROJECT["tool"]["setuptools"]["packages"])
    data_folders = {"nvsim._models"} | {f"nvsim._models.{d.name}" for d in (ROOT / "models").iterdir() if d.is_dir()} \
        | {"nvsim._scenarios"} | {f"nvsim._scenarios.{d.name}" for d in (ROOT / "scenarios").iterdir() if d.is_dir()} \
        | {"nvsim._plans", "dashboard.assets"}  # data only, listed so that setuptools ships them without a warning
    assert shipped == tree | data_folders
    assert PYPROJECT["tool"]["setuptools"]["package-dir"]["nvsim._models"] == "models"
    package_data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for path in (ROOT / "models").rglob("*.yaml"):
        folder = ".".join(("nvsim._models",) + path.parent.relative_to(ROOT / "models").parts)
        assert any(path.match(pattern) for pattern in package_data[folder]), path


def test_the_scenarios_and_their_published_numbers_are_shipped():
    """Issue 40: `nvsim validate` in an installed wheel re-runs every published number, so every file
    of scenarios/ (the scenario YAML, published.yaml, job.fio) travels as nvsim._scenarios."""
    assert PYPROJECT["tool"]["setuptools"]["package-dir"]["nvsim._scenarios"] == "scenarios"
    package_data = PYPROJECT["tool"]["setuptools"]["package-data"]
    files = [path for path in (ROOT / "scenarios").rglob("*") if path.is_file()]
    assert any(path.name == "published.yaml" for path in files) and any(path.suffix == ".fio" for path in files)
    for path in files:
        folder = ".".join(("nvsim._scenarios",) + path.parent.relative_to(ROOT / "scenarios").parts)
        assert any(path.match(pattern) for pattern in package_data.get(folder, ())), path


def test_the_plan_examples_are_shipped():
    """plans/ travels as nvsim._plans: the examples README names (nvsim plan plans/example.yaml) and
    the dashboard's Plan view may open (nvsim.shipped)."""
    assert PYPROJECT["tool"]["setuptools"]["package-dir"]["nvsim._plans"] == "plans"
    files = [path for path in (ROOT / "plans").rglob("*") if path.is_file()]
    assert files and all(path.parent == ROOT / "plans" for path in files)
    assert all(any(path.match(pattern) for pattern in PYPROJECT["tool"]["setuptools"]["package-data"]["nvsim._plans"])
               for path in files)


def test_the_core_needs_no_optional_extra():
    core = " ".join(PYPROJECT["project"]["dependencies"]).lower()
    assert not [name for name in OPTIONAL if name in core]
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {"dashboard", "dask", "parquet", "docs", "test"} <= set(extras)
    assert PYPROJECT["project"]["license"] == "Apache-2.0"  # an SPDX expression, not a table
    assert all((ROOT / name).is_file() for name in PYPROJECT["project"]["license-files"])


def test_a_missing_extra_is_one_line_naming_what_to_install():
    require_extra("numpy", "core", "--x", "anything")  # present: nothing happens
    with pytest.raises(InputError, match=r"^--output: the table needs the optional package no_such_pkg_x: "
                                         r"pip install 'nvsim\[parquet\]'$"):
        require_extra("no_such_pkg_x", "parquet", "--output", "the table")
