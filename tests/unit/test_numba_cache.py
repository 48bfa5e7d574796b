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
    code = ("import nvsim.stripe.planner, numba; from nvsim.numba_cache import source_digest; "
            "print(numba.config.CACHE_DIR); print(source_digest()); print(int(numba.config.OPT))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    cache_dir, digest, level = out.stdout.split()
    assert cache_dir == str(tmp_path / f"{digest}-o2") and level == "2"  # nvsim's level unless the user names one


def test_a_level_the_user_names_is_kept_and_keys_its_own_directory(tmp_path):
    """Numba's cache index keys on neither the source nor LLVM's level: code built at one level
    must not load at another, so the directory names both."""
    code = "import nvsim, numba; print(numba.config.CACHE_DIR); print(int(numba.config.OPT))"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), NUMBA_OPT="3")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    cache_dir, level = out.stdout.split()
    assert cache_dir.endswith("-o3") and level == "3"
    code = "import numba, nvsim; print(numba.config.CACHE_DIR)"  # numba loaded first, at its own default
    env.pop("NUMBA_OPT")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("-o3")


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


# ---------------------------------------------------------------- the first run's notice (issue 40)

import io  # noqa: E402

import pytest  # noqa: E402

from nvsim import numba_cache  # noqa: E402


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def fresh_process(monkeypatch):
    """As a new process: not looked yet, nothing said by a parent."""
    monkeypatch.setattr(numba_cache, "_checked", False)
    monkeypatch.delenv(numba_cache.NOTICE_SHOWN_ENV, raising=False)


def test_the_cache_is_empty_until_a_kernel_index_is_written(tmp_path):
    assert numba_cache.cache_is_empty(str(tmp_path / "absent"))
    assert numba_cache.cache_is_empty(str(tmp_path))
    (tmp_path / "sim_abc").mkdir()
    (tmp_path / "sim_abc" / "drive.kernel-115.py311.nbi").write_bytes(b"")
    assert not numba_cache.cache_is_empty(str(tmp_path))


def test_the_notice_is_said_once_on_a_terminal_with_an_empty_cache(fresh_process, monkeypatch):
    monkeypatch.setattr(numba_cache, "cache_is_empty", lambda directory=None: True)
    stream = Terminal()
    assert numba_cache.compile_notice(stream) is True
    assert numba_cache.compile_notice(stream) is False  # once
    assert stream.getvalue() == numba_cache.COMPILE_NOTICE + "\n"
    assert "compiling" in stream.getvalue() and "first run only" in stream.getvalue()
    import os
    assert os.environ[numba_cache.NOTICE_SHOWN_ENV] == "1"  # spawned workers inherit it and stay quiet


def test_no_notice_when_stderr_is_not_a_terminal(fresh_process, monkeypatch):
    monkeypatch.setattr(numba_cache, "cache_is_empty", lambda directory=None: True)
    stream = io.StringIO()  # isatty() is False: tests and CI capture stderr
    assert numba_cache.compile_notice(stream) is False and stream.getvalue() == ""


def test_no_notice_when_the_cache_holds_kernels(fresh_process, monkeypatch):
    monkeypatch.setattr(numba_cache, "cache_is_empty", lambda directory=None: False)
    stream = Terminal()
    assert numba_cache.compile_notice(stream) is False and stream.getvalue() == ""


def test_no_notice_in_a_worker_whose_parent_said_it(fresh_process, monkeypatch):
    monkeypatch.setattr(numba_cache, "cache_is_empty", lambda directory=None: True)
    monkeypatch.setenv(numba_cache.NOTICE_SHOWN_ENV, "1")
    stream = Terminal()
    assert numba_cache.compile_notice(stream) is False and stream.getvalue() == ""


def test_a_simulation_asks_for_the_notice_before_it_runs(monkeypatch):
    import nvsim.simulation

    class Asked(Exception):
        pass

    def ask():
        raise Asked

    monkeypatch.setattr(nvsim.simulation, "compile_notice", ask)
    with pytest.raises(Asked):
        nvsim.simulation.Simulation(ROOT / "scenarios" / "graid-gen5-raid6", "randread-b4k-j192-d32").run("fluid")
