"""What a dashboard client may make the server read: the files it uploaded, and the examples that
ship with nvsim -- nothing else of the server's disk.

A fio job file's ``read_iolog=`` and a Plan requirement's ``fio:`` name files. On the command line
they are the user's own (``nvsim.fio.local_file``: fio's path, or beside the job file). In the
dashboard the job file comes from a client, so ``ClientFiles`` stands in for the disk: a name is
an uploaded file's name, or a path into the shipped example folders (``EXAMPLE_FOLDERS``, named
as in a clone and found where this copy keeps them: ``nvsim.shipped.shipped_folder``, the package's
nvsim._scenarios and nvsim._plans in an installed one, which carries no tests' data),
normalised and checked to lie inside one of them before anything is opened, and
again after ``Path.resolve`` (a symbolic link out of them is refused). A name must be a plain
relative path (``plain_relative``): an absolute one, even of a shipped example, would tell a client
whether it guessed the server's install path. Any other name is refused in one line that reads
the same whether or not such a file exists on the server, and is never opened, so no error can
quote it. The environment is kept out the same way
(``nvsim.fio.expand.NO_ENVIRONMENT``).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath

from nvsim.errors import InputError
from nvsim.loader import max_input_bytes
from nvsim.shipped import shipped_folder

EXAMPLE_FOLDERS = ("scenarios", "plans", "tests/data/fio")
"""The shipped examples a client may name (scenarios' job files, plan files, the fio traces), by
their paths in a clone."""


def shipped_examples(folders: tuple[str, ...] = EXAMPLE_FOLDERS) -> dict[str, Path]:
    """Each of ``folders`` this copy of nvsim carries (its name -> where it lies)."""
    found = {name: shipped_folder(name) for name in folders}
    return {name: path for name, path in found.items() if path is not None}


def plain_relative(name: str) -> bool:
    """Whether ``name`` is a plain relative path: not absolute, no ``..`` or ``~`` segment, no
    drive letter, backslash or NUL. Only such a name is looked up among the examples, so an answer
    never depends on where the server keeps them."""
    if not name or "\\" in name or "\0" in name or PureWindowsPath(name).drive:
        return False
    path = PurePosixPath(name)
    return not path.is_absolute() and not any(part == ".." or part.startswith("~") for part in path.parts)


class ClientFiles:
    """An ``nvsim.fio.FileOpener`` for a client: ``uploaded`` (name -> bytes) first, then the
    shipped examples (``shipped_examples``; ``root`` and ``folders`` name others, a test's tree); a
    found example is named by its path in a clone, never the server's absolute path."""

    def __init__(self, uploaded: Mapping[str, bytes] | None = None, root: Path | None = None,
                 folders: tuple[str, ...] = EXAMPLE_FOLDERS):
        self.uploaded = dict(uploaded or {})
        where = shipped_examples(folders) if root is None else {name: Path(root) / name for name in folders}
        self.folders = {PurePosixPath(posixpath.normpath(name)): Path(os.path.normpath(path)) for name, path in where.items()}

    def __call__(self, name: str, naming_path: str) -> tuple[str, bytes]:
        for key in (name, Path(name).name):  # a browser sends a file's name without its folder
            if key in self.uploaded:
                return key, self.uploaded[key]
        for path in self._candidates(name, naming_path) if plain_relative(name) else ():
            if self._inside(path) and self._inside(path.resolve()):
                if path.is_file():
                    return self._shown(path), self._read(path)
        uploaded = "a file uploaded with it or " if self.uploaded else ""
        folders = ", ".join(f"{name.as_posix()}/" for name in self.folders)
        raise InputError("", f"{name[:80]!r} is not {uploaded}a shipped example (a relative path under {folders}); "
                             f"the dashboard opens no other file of its server")

    def _candidates(self, name: str, naming_path: str) -> list[Path]:
        """Where ``name`` may point, normalised without touching the disk: beside the naming file
        when that is a shipped example named by a plain relative path, and from the examples' top."""
        out = []
        naming = self._located(naming_path) if naming_path not in self.uploaded and plain_relative(naming_path) else None
        if naming is not None and self._inside(naming):
            out.append(Path(os.path.normpath(naming.parent / name)))
        top = self._located(name)
        return out + ([top] if top is not None else [])

    def _located(self, shown: str) -> Path | None:
        """Where the example named ``shown`` (its path in a clone) would lie, or None outside them."""
        parts = PurePosixPath(posixpath.normpath(shown)).parts
        for name, folder in self.folders.items():
            if parts[:len(name.parts)] == name.parts:
                return Path(os.path.normpath(folder.joinpath(*parts[len(name.parts):])))
        return None

    def _inside(self, path: Path) -> bool:
        return any(path == folder or folder in path.parents for folder in self.folders.values())

    def _shown(self, path: Path) -> str:
        name, folder = next((name, folder) for name, folder in self.folders.items()
                            if path == folder or folder in path.parents)
        return (name / path.relative_to(folder)).as_posix()

    def _read(self, path: Path) -> bytes:
        limit = max_input_bytes()
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
        if len(raw) > limit:
            raise InputError("", f"{self._shown(path)}: more than {limit:,} bytes")
        return raw


def shipped_only() -> ClientFiles:
    """The opener of a request that uploaded nothing (the Plan view): the shipped examples."""
    return ClientFiles()


__all__ = ["ClientFiles", "plain_relative", "shipped_only", "shipped_examples", "EXAMPLE_FOLDERS"]
