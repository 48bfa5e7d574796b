"""Atomic output: a file appears whole or not at all (temp file in the same folder + rename)."""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def write_text_atomic(path: str | Path, text: str) -> Path:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(text)
    return Path(path)


def write_json_atomic(path: str | Path, data: Any) -> Path:
    return write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False, default=float) + "\n")


def _new_file_mode() -> int:
    """The mode ``open()`` gives a new file under this process's umask (0644 under umask 022);
    mkstemp makes its files 0600, which would keep outputs from the rest of a team."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic_path(path: str | Path):
    """A temporary path beside ``path`` for a writer that wants a file name (Parquet, CSV); renamed
    over ``path`` when the block ends without error, removed otherwise."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    os.chmod(tmp, _new_file_mode())
    try:
        yield tmp
        with open(tmp, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
