"""Shared fixtures and helpers for every layer of tests/ (see tests/README.md), and the layer
markers: a test under tests/<layer>/ is marked <layer>, so `pytest -m component` runs one layer."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline: a property test asserts a law, not a speed (speed is measured in
# benchmarks/), and on a loaded 2-core machine an example's first call (a kernel loaded from the
# cache) can pass hypothesis's 200 ms default and fail a law that held.
settings.register_profile("nvsim", deadline=None)
settings.load_profile("nvsim")

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
LAYERS = ("unit", "component", "integration", "validation", "ui", "robustness")
"""The folders of tests/, one per layer, each registered as a marker in pyproject.toml."""


def layer_of(path: Path) -> str | None:
    """The layer a test file belongs to: the folder under tests/ it sits in (None at tests/ itself)."""
    try:
        parts = Path(path).resolve().relative_to(TESTS).parts
    except ValueError:
        return None
    return parts[0] if len(parts) > 1 and parts[0] in LAYERS else None


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    """Mark every test with its layer, taken from its path."""
    for item in items:
        layer = layer_of(item.path)
        if layer is not None:
            item.add_marker(getattr(pytest.mark, layer))


@pytest.fixture(scope="session")
def catalog():
    from nvsim.catalog import default_catalog
    return default_catalog()


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run the real `nvsim` entry point in a subprocess (exit codes and stderr as a user sees them)."""
    env = dict(os.environ, COLUMNS="160")
    return subprocess.run([sys.executable, "-m", "nvsim.cli", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def cli():
    return run_cli


def run_fio(text: str, scenario, catalog, fidelity: str = "fluid"):
    """A job file's text through `nvsim fio`'s run on ``scenario``: (the job runs, fio's JSON at timestamp 0)."""
    import nvsim
    from nvsim.fio import parse_fio_jobfile
    from nvsim.fio.run import fio_report, simulate_jobs
    parsed = parse_fio_jobfile(text, "job.fio", catalog=catalog)
    runs = simulate_jobs(parsed, nvsim.load_scenario(scenario, catalog), catalog, fidelity)
    return runs, fio_report(parsed, runs, catalog, timestamp=0)
