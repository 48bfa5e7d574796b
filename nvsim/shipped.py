"""Where the data nvsim ships is read from, for a clone and an installed copy alike: the catalog
(models/), the scenarios with their published numbers and job files (scenarios/), the plan
examples (plans/), and in a clone the tests' fio data.

A clone (or an editable install) reads the repository's own folders (``SOURCE_TREE``). An installed
wheel carries each shipped folder inside the package as ``nvsim._<name>`` (pyproject.toml's
package-dir, ``PACKAGED``); the folder above such a package is site-packages, never searched, where
any other wheel's top-level models/ or scenarios/ may lie. ``nvsim.catalog``, ``nvsim.published``
and the dashboard's examples (``dashboard.client_files``) all ask ``shipped_folder``.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
"""The folder of the nvsim package itself."""
PACKAGED = {"models": "_models", "scenarios": "_scenarios", "plans": "_plans"}
"""The repository's folders an installed wheel carries, and the package each travels as (``nvsim._<name>``)."""


def _source_tree() -> Path | None:
    """The repository nvsim runs from (a clone or an editable install: the folder above the package
    holds nvsim's own pyproject.toml), else None: an installed copy, whose parent is site-packages."""
    root = PACKAGE_DIR.parent
    try:
        project = (root / "pyproject.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return root if re.search(r'^name\s*=\s*"nvsim"', project, re.M) else None


SOURCE_TREE = _source_tree()
"""The repository's root when nvsim runs from one, else None (``_source_tree``)."""


def packaged_folder(name: str) -> Path:
    """The copy of the repository's folder ``name`` (a key of ``PACKAGED``) inside the package."""
    return PACKAGE_DIR / PACKAGED[name]


def shipped_folder(name: str) -> Path | None:
    """Where this copy of nvsim reads the repository's folder ``name`` (``models``, ``scenarios``,
    ``plans``, ``tests/data/fio``): the repository's own in a clone; in an installed copy the
    package's (``packaged_folder``), or None for a folder a wheel does not carry."""
    if SOURCE_TREE is not None:
        return SOURCE_TREE / name
    return packaged_folder(name) if name in PACKAGED else None


def carried_hint(path: str | Path) -> str:
    """Words to end a 'no such file' line with when an installed copy is given a relative ``path``
    that names one of its shipped examples as a clone holds it (``scenarios/graid-gen5-raid6``,
    README's and docs/' commands): the path of the package's copy. Nothing in a clone, for any
    other path, or when the package carries no such file."""
    path = Path(path)
    if SOURCE_TREE is not None or path.is_absolute() or not path.parts or path.parts[0] not in PACKAGED:
        return ""
    carried = packaged_folder(path.parts[0]).joinpath(*path.parts[1:])
    return f"; this installed nvsim carries it as {carried}" if carried.exists() else ""


__all__ = ["PACKAGED", "PACKAGE_DIR", "SOURCE_TREE", "carried_hint", "packaged_folder", "shipped_folder"]
