"""What a dashboard client may make the server read: the files it uploaded, and the examples that
ship with nvsim -- nothing else of the server's disk.

A fio job file's ``read_iolog=`` and a Plan requirement's ``fio:`` name files. On the command line
they are the user's own (``nvsim.fio.local_file``: fio's path, or beside the job file). In the
dashboard the job file comes from a client, so ``ClientFiles`` stands in for the disk: a name is
an uploaded file's name, or a path into the shipped example folders (``EXAMPLE_FOLDERS`` of the
source tree), normalised and checked to lie inside one of them before anything is opened, and
again after ``Path.resolve`` (a symbolic link out of them is refused). A name must be a plain
relative path (``plain_relative``): an absolute one, even of a shipped example, would tell a client
whether it guessed the server's install path. Any other name is refused in one line that reads
the same whether or not such a file exists on the server, and is never opened, so no error can
quote it. The environment is kept out the same way
(``nvsim.fio.expand.NO_ENVIRONMENT``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath

from nvsim.errors import InputError
from nvsim.loader import max_input_bytes

SOURCE_TREE = Path(__file__).resolve().parent.parent
"""The folder holding ``dashboard/`` and the shipped examples."""
EXAMPLE_FOLDERS = ("scenarios", "plans", "tests/data/fio")
"""The shipped examples a client may name (scenarios' job files, plan files, the fio traces)."""


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
    shipped examples; a found example is named by its path in the source tree, never the server's
    absolute path."""

    def __init__(self, uploaded: Mapping[str, bytes] | None = None, root: Path = SOURCE_TREE,
                 folders: tuple[str, ...] = EXAMPLE_FOLDERS):
        self.uploaded = dict(uploaded or {})
        self.root = Path(os.path.normpath(root))
        self.folders = tuple(Path(os.path.normpath(self.root / f)) for f in folders)

    def __call__(self, name: str, naming_path: str) -> tuple[str, bytes]:
        for key in (name, Path(name).name):  # a browser sends a file's name without its folder
            if key in self.uploaded:
                return key, self.uploaded[key]
        for path in self._candidates(name, naming_path) if plain_relative(name) else ():
            if self._inside(path) and self._inside(path.resolve()):
                if path.is_file():
                    return self._shown(path), self._read(path)
        uploaded = "a file uploaded with it or " if self.uploaded else ""
        folders = ", ".join(f"{f.relative_to(self.root).as_posix()}/" for f in self.folders)
        raise InputError("", f"{name[:80]!r} is not {uploaded}a shipped example (a relative path under {folders}); "
                             f"the dashboard opens no other file of its server")

    def _candidates(self, name: str, naming_path: str) -> list[Path]:
        """Where ``name`` may point, normalised without touching the disk: beside the naming file
        when that is a shipped example named by a plain relative path, and from the source tree's top."""
        out = []
        naming = Path(os.path.normpath(self.root / naming_path))
        if naming_path not in self.uploaded and plain_relative(naming_path) and self._inside(naming):
            out.append(Path(os.path.normpath(naming.parent / name)))
        out.append(Path(os.path.normpath(self.root / name)))
        return out

    def _inside(self, path: Path) -> bool:
        return any(path == folder or folder in path.parents for folder in self.folders)

    def _shown(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

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


__all__ = ["ClientFiles", "plain_relative", "shipped_only", "EXAMPLE_FOLDERS", "SOURCE_TREE"]
