"""Numba's cache follows nvsim's source: an edit anywhere in the package gives a new cache
directory, so a kernel can never run against a callee that has since changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nvsim.numba_cache import keyed_cache_dir, source_digest

ROOT = Path(__file__).resolve().parents[2]


def test_an_edit_of_any_module_changes_the_digest(tmp_path):
    package = tmp_path / "pkg"
    (package / "stripe").mkdir(parents=True)
    (package / "stripe" / "layout.py").write_text("ROWS = 1\n")
    (package / "planner.py").write_text("from .stripe.layout import ROWS\n")
    before = source_digest(package)
    assert source_digest(package) == before  # stable
    (package / "stripe" / "layout.py").write_text("ROWS = 2\n")  # only the callee's module changes
    assert source_digest(package) != before


def test_the_directory_is_the_base_and_the_digest_once():
    assert keyed_cache_dir("/c", "abc") == os.path.join("/c", "abc")
    assert keyed_cache_dir("/c/abc", "abc") == "/c/abc"  # a worker inherits its parent's setting
    assert keyed_cache_dir(None, "abc").endswith(os.path.join("nvsim", "numba", "abc"))


def test_nvsims_kernels_compile_into_the_directory_of_this_source(tmp_path):
    code = ("import numba, os, nvsim.stripe.planner; from nvsim.numba_cache import source_digest; "
            "print(numba.config.CACHE_DIR); print(source_digest())")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    cache_dir, digest = out.stdout.split()
    assert cache_dir == str(tmp_path / digest)


def test_editing_the_real_layout_module_moves_the_planner_to_a_fresh_cache(tmp_path):
    """Issue 24 item 9: a copy of nvsim whose stripe/layout.py differs by one line compiles into
    another directory under the same user-given root, so the planner cannot load kernels compiled
    against the old layout."""
    import shutil

    copy = tmp_path / "nvsim"
    shutil.copytree(ROOT / "nvsim", copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert source_digest(copy) == source_digest(ROOT / "nvsim")  # the digest is of the source, not the path
    root = str(tmp_path / "user-root")
    before = keyed_cache_dir(root, source_digest(copy))
    with open(copy / "stripe" / "layout.py", "a") as layout:
        layout.write("\n# an edit\n")
    after = keyed_cache_dir(root, source_digest(copy))
    assert before != after and os.path.dirname(before) == os.path.dirname(after) == root
