"""Numba's on-disk cache, keyed by a hash of nvsim's own source.

Numba checks a cached kernel against its own file's timestamp only: a jitted function that calls
another imported from a second module keeps running the old callee after that module changes (an
edit of ``stripe/layout.py`` left the planner on the old layout until the cache was cleared). Here
every nvsim process compiles into a cache directory named after a digest of every ``.py`` file of
the package, so any edit of the source starts a fresh cache and no run can use code that no longer
exists. The base directory is ``$NUMBA_CACHE_DIR`` when the user sets one, else
``$XDG_CACHE_HOME/nvsim/numba`` (``~/.cache/nvsim/numba``); directories of older sources stay
there until removed (a few MB each).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
DIGEST_CHARS = 16


def source_digest(package_dir: Path = PACKAGE_DIR) -> str:
    """A digest of every ``.py`` file under ``package_dir``: their paths and their bytes."""
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        digest.update(path.relative_to(package_dir).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:DIGEST_CHARS]


def default_base() -> Path:
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache_home) / "nvsim" / "numba"


def keyed_cache_dir(current: str | None, digest: str) -> str:
    """The cache directory for this source: ``<base>/<digest>``, where ``current`` (the
    environment's NUMBA_CACHE_DIR) is the base unless it already ends in this digest (a worker
    process inherits its parent's setting)."""
    if current and Path(current).name == digest:
        return current
    return str(Path(current) / digest if current else default_base() / digest)


def use_source_keyed_cache() -> str:
    """Point Numba's cache at this source's directory (before Numba loads; or, if something
    imported Numba first, in its loaded configuration) and return it."""
    directory = keyed_cache_dir(os.environ.get("NUMBA_CACHE_DIR"), source_digest())
    os.environ["NUMBA_CACHE_DIR"] = directory
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = directory
    return directory


__all__ = ["source_digest", "keyed_cache_dir", "use_source_keyed_cache"]
