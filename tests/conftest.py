import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


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
