"""Numba's on-disk cache, keyed by a hash of nvsim's own source.

Numba checks a cached kernel against its own file's timestamp only: a jitted function that calls
another imported from a second module keeps running the old callee after that module changes (an
edit of ``stripe/layout.py`` left the planner on the old layout until the cache was cleared). Here
every nvsim process compiles into a cache directory named after a digest of every ``.py`` file of
the package, so any edit of the source starts a fresh cache and no run can use code that no longer
exists. The base directory is ``$NUMBA_CACHE_DIR`` when the user sets one, else
``$XDG_CACHE_HOME/nvsim/numba`` (``~/.cache/nvsim/numba``); directories of older sources stay
there until removed (a few MB each).

A process whose cache directory holds no compiled kernel yet (a new install, a new version, an
edited source) compiles them on its first simulation; ``compile_notice`` says so once, on a
terminal only.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from .shipped import PACKAGE_DIR

DIGEST_CHARS = 16

INNER = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
"""Options of a compiled function that only other compiled functions call (``@njit(..., **INNER)``):
Numba builds it no wrapper callable from Python or C, about a fifth of the event kernel's compile
time (docs/performance.md, nineteenth pass). A test calls one through a compiled caller."""


OPT_LEVEL = "2"
"""LLVM's optimisation level for nvsim's kernels (``NUMBA_OPT``) unless the environment names one:
2 rather than Numba's default 3 compiles a first ``nvsim run`` 7% faster (a median of 14.5 s against
15.2 over 4 pairs; 12.6-13.3 s against 14.1-14.3 in two quieter ones), with no kernel measurably
slower (event mode, parity, FTL, plans; the planner alone 4%) and the same bits (docs/performance.md,
twenty-first pass)."""


def source_digest(package_dir: Path = PACKAGE_DIR, pattern: str = "*.py") -> str:
    """A digest of every ``pattern`` file under ``package_dir`` (default: nvsim's source): their
    paths and their bytes (folders matching ``pattern`` are walked, not read).
    ``nvsim.workers.worker_identity`` takes the catalog's with ``*.yaml``; ``nvsim.catalog.catalog_digest``
    every file of a catalog with ``*``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in package_dir.rglob(pattern) if p.is_file()):
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


def opt_level() -> str:
    """LLVM's optimisation level Numba compiles with in this process: its loaded configuration's
    if something imported Numba already, else ``$NUMBA_OPT`` (``OPT_LEVEL`` when unset)."""
    numba = sys.modules.get("numba")
    if numba is not None:
        level = numba.config.OPT
        return str(getattr(level, "_raw_value", level))
    return os.environ.get("NUMBA_OPT", OPT_LEVEL)


def cache_key() -> str:
    """The name of this source's cache directory: the source's digest and the optimisation level
    (Numba's own index keys on neither, so code built at one level is never loaded at another)."""
    return f"{source_digest()}-o{opt_level()}"


def use_source_keyed_cache() -> str:
    """Point Numba's cache at this source's directory (before Numba loads; or, if something
    imported Numba first, in its loaded configuration) and return it. Before Numba loads, also
    ask it for ``OPT_LEVEL`` unless the environment names a level."""
    if "numba" not in sys.modules:
        os.environ.setdefault("NUMBA_OPT", OPT_LEVEL)
    directory = keyed_cache_dir(os.environ.get("NUMBA_CACHE_DIR"), cache_key())
    os.environ["NUMBA_CACHE_DIR"] = directory
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = directory
    return directory


COMPILE_NOTICE = ("nvsim: compiling the simulator's kernels for this version "
                  "(first run only; under a minute on 2 cores, then cached)")
"""Said once on stderr (a terminal only) before a process's first simulation with an empty cache.
Measured on a quiet 2-core machine (2026-11-30): a first event-mode ``nvsim run`` of graid-gen5-raid6
took 8.7-9.8 s, its event kernel compiled beside the rest (``nvsim.sim.event.beside``); earlier
machines and versions took up to a minute."""
NOTICE_SHOWN_ENV = "NVSIM_COMPILE_NOTICE_SHOWN"
"""Set once the notice is shown: worker processes (they inherit it) do not say it again."""


def cache_is_empty(directory: str | None = None) -> bool:
    """True when this source's cache directory (default: Numba's, as set by
    ``use_source_keyed_cache``) holds no compiled kernel index (``*.nbi``) yet."""
    directory = directory or os.environ.get("NUMBA_CACHE_DIR") or keyed_cache_dir(None, cache_key())
    root = Path(directory)
    return not root.is_dir() or next(root.rglob("*.nbi"), None) is None


def compiled_in_cache(dispatcher) -> bool:
    """Whether Numba's cache holds an index for ``dispatcher`` (a ``cache=True`` kernel that some
    process of this source has compiled); False where that cannot be told (Numba's cache
    internals moved)."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return False


_checked = False
"""Whether this process has looked already (it looks once: at its first simulation)."""


def compile_notice(stream=None) -> bool:
    """Say once per process (and its workers) that the kernels compile now, when the cache is
    empty and ``stream`` (default stderr) is a terminal; True when it was said. Tests and CI
    capture stderr, so they never see it."""
    global _checked
    if _checked or os.environ.get(NOTICE_SHOWN_ENV):
        return False
    _checked = True
    stream = stream or sys.stderr
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        terminal = False
    if not terminal or not cache_is_empty():
        return False
    os.environ[NOTICE_SHOWN_ENV] = "1"
    stream.write(COMPILE_NOTICE + "\n")
    stream.flush()
    return True


__all__ = ["INNER", "OPT_LEVEL", "opt_level", "cache_key", "source_digest", "keyed_cache_dir", "use_source_keyed_cache", "cache_is_empty", "compiled_in_cache",
           "compile_notice", "COMPILE_NOTICE"]
