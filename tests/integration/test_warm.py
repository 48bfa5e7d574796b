"""`python -m nvsim.warm` (make setup): short runs that leave the kernels compiled in this
source's cache, and say where it is."""

from __future__ import annotations

import io

from nvsim import warm
from nvsim.numba_cache import cache_is_empty, compiled_in_cache
from nvsim.sim import network


def test_the_set_up_leaves_compiled_kernels_in_this_sources_cache(monkeypatch):
    monkeypatch.setattr(warm, "WORKLOADS", 1)
    said = io.StringIO()
    seconds = warm.warm(("latency-tails",), stream=said)
    directory = said.getvalue().split(" into ", 1)[1].split(" (", 1)[0]
    assert not cache_is_empty(directory)
    # the states' queueing network too, which a run's few solves leave to NumPy
    assert compiled_in_cache(network._mva) and network._mva.signatures
    assert seconds > 0 and said.getvalue().rstrip().endswith(f"kernels ready ({seconds:.0f} s)")


def test_the_set_up_writes_nvsims_bytecode_whatever_the_environment_says(tmp_path, monkeypatch):
    """PYTHONDONTWRITEBYTECODE stops the import system writing bytecode, not the set-up: each of
    nvsim's modules gets its cached bytecode, current against its source."""
    import importlib.util
    import shutil
    import sys
    from pathlib import Path

    package = tmp_path / "nvsim"
    shutil.copytree(Path(warm.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(warm, "__file__", str(package / "warm.py"))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert warm.compile_bytecode()
    sources = sorted(package.rglob("*.py"))
    assert len(sources) > 50
    for source in sources:
        cached = Path(importlib.util.cache_from_source(str(source)))
        assert cached.is_file() and cached.stat().st_mtime >= source.stat().st_mtime, source
