"""Output that survives any kill: a file appears whole or not at all, files written together are
committed together, and what a killed writer left is cleaned up by the next one.

- One file: written to a hidden temporary file beside it (``.NAME.PID.XXXX.tmp``), flushed to
  disk, renamed over the target (``atomic_path``, ``write_text_atomic``).
- Several files (a sweep's Parquet and CSV): all written to temporaries first; then a journal
  (``.NAME.commit.json``, itself written atomically) records the renames, and is the commit
  point; the old files are removed and the temporaries renamed; the journal goes last. A writer
  killed before the journal leaves the old files untouched; one killed after it leaves a journal
  that the next writer finishes (``recover_commit``), so a new Parquet is never read beside an
  old CSV.
- A temporary whose writer (the PID in its name) is no longer running is removed by the next
  write to the same target (``clean_stale_temps``).
- Output paths are checked before any work starts (``check_output_path``): not a directory, an
  empty path, a path whose folder cannot be created or written, not a device, FIFO or socket (a
  rename over one would replace the node: ``/dev/null`` would become a file).
- A symbolic link is written through: its target is the file replaced (``output_target``), the
  link stays.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import stat
import tempfile
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import InputError


def write_text_atomic(path: str | Path, text: str) -> Path:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(text)
    return Path(path)


def json_ready(value: Any) -> Any:
    """``value`` with every number JSON can hold: NumPy scalars as Python numbers, and a value that
    is undefined or unbounded (NaN, infinity: a WAF with no writes, a rebuild that never ends) as
    null. Python's ``json`` writes NaN and Infinity, which strict JSON readers refuse."""
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        return number if math.isfinite(number) else None
    return value


def json_text(data: Any) -> str:
    """The JSON nvsim writes (``json_ready``; anything else a number ``float`` makes of)."""
    return json.dumps(json_ready(data), indent=2, sort_keys=False, default=float, allow_nan=False) + "\n"


def write_json_atomic(path: str | Path, data: Any) -> Path:
    return write_text_atomic(path, json_text(data))


def _temp_prefix(path: Path) -> str:
    return f".{path.name}."


def _new_temp(path: Path) -> str:
    """A fresh hidden temporary beside ``path``, named with this process's id."""
    handle, tmp = tempfile.mkstemp(prefix=f"{_temp_prefix(path)}{os.getpid()}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    os.chmod(tmp, _new_file_mode())
    return tmp


def _fsync_file(tmp: str | Path) -> None:
    with open(tmp, "rb+") as written:
        os.fsync(written.fileno())


def _fsync_dir(directory: Path) -> None:
    """Make renames in ``directory`` durable (where the platform allows opening a directory)."""
    try:
        handle = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def _new_file_mode() -> int:
    """The mode ``open()`` gives a new file under this process's umask (0644 under umask 022);
    mkstemp makes its files 0600, which would keep outputs from the rest of a team."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def output_target(path: str | Path, field: str = "output") -> Path:
    """The file an output to ``path`` replaces: ``path`` itself, or the file a symbolic link at
    ``path`` names (the link stays a link). One-line InputError for anything but a regular file or
    a name not taken yet: a rename over a device, FIFO or socket would replace the node itself."""
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if target.exists() and not target.is_file():
        kind = "a directory" if target.is_dir() else _node_kind(target)
        via = f" (the link {path} names it)" if target != path else ""
        raise InputError(field, f"{target} is {kind}{via}, not a regular file; give a file path")
    return target


def _node_kind(path: Path) -> str:
    mode = os.stat(path).st_mode
    for test, kind in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


@contextmanager
def atomic_path(path: str | Path):
    """A temporary path beside ``path`` for a writer that wants a file name (Parquet, CSV); renamed
    over ``path`` (the file a link there names: ``output_target``) when the block ends without
    error, removed otherwise. Temporaries of earlier, killed writers of ``path`` are removed first."""
    path = output_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temps(path)
    tmp = _new_temp(path)
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def clean_stale_temps(path: str | Path) -> list[Path]:
    """Remove the hidden temporaries of ``path`` whose writing process has gone (killed mid-write);
    a live writer's are kept. Returns the files removed."""
    path = Path(path)
    removed = []
    if not path.parent.is_dir():
        return removed
    prefix = _temp_prefix(path)
    for candidate in path.parent.glob(f"{prefix}*.tmp"):
        pid_text = candidate.name[len(prefix):].split(".", 1)[0]
        if pid_text.isdigit() and _pid_alive(int(pid_text)):
            continue  # a writer still running (this process included)
        candidate.unlink(missing_ok=True)
        removed.append(candidate)
    return removed


def journal_path(first: str | Path) -> Path:
    """Where the commit journal of a group of files named after ``first`` lives."""
    first = Path(first)
    return first.with_name(f".{first.name}.commit.json")


def commit_together(writers: Sequence[tuple[Path, Any]], remove: Sequence[Path] = ()) -> None:
    """Write several files so that they are replaced together or not at all.

    ``writers``: (target path, function writing to a path it is given). Every file is written to
    a temporary first; the journal is the commit point (see the module docstring). ``remove``:
    files of an older answer that the new one does not have, removed in the same commit."""
    targets = [output_target(target) for target, _ in writers]
    journal = journal_path(targets[0])
    recover_commit(journal)
    temps: list[str] = []
    try:
        for target, (_, write) in zip(targets, writers):
            target.parent.mkdir(parents=True, exist_ok=True)
            clean_stale_temps(target)
            temps.append(_new_temp(target))
            write(temps[-1])
            _fsync_file(temps[-1])
        write_json_atomic(journal, [[tmp, str(target)] for tmp, target in zip(temps, targets)]
                          + [[None, str(path)] for path in remove if output_target(path) not in targets])
    except BaseException:
        for tmp in temps:
            Path(tmp).unlink(missing_ok=True)
        raise
    recover_commit(journal)


def recover_commit(journal: str | Path) -> bool:
    """Finish a commit a killed writer left (its journal exists): remove the old files, rename the
    new ones in, drop the journal. Returns whether there was one."""
    journal = Path(journal)
    if not journal.exists():
        return False
    try:
        pairs = json.loads(journal.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # cannot happen for an atomically written journal; drop it
        journal.unlink(missing_ok=True)
        return False
    for tmp, target in pairs:  # the old files go first: never a new file beside an old one
        if tmp is None or Path(tmp).exists():  # None: a file the new answer does not have
            Path(target).unlink(missing_ok=True)
    for tmp, target in pairs:
        if tmp is not None and Path(tmp).exists():
            os.replace(tmp, target)
    _fsync_dir(journal.parent)
    journal.unlink(missing_ok=True)
    return True


def check_output_path(path: str | Path | None, field: str) -> Path | None:
    """An output path checked before any work starts: not empty, not an existing directory, and
    its folder exists and is writable or can be created. One-line InputError naming ``field``."""
    if path is None:
        return None
    text = str(path)
    if not text.strip() or text in (".", ".."):
        raise InputError(field, f"an output file path is needed, got {text!r}")
    if text == "-":  # a file named '-' was written where standard output was meant
        raise InputError(field, "'-' is not a file here: leave the option out to write to standard output (with --json "
                                "where the command has it), or give a file path")
    try:
        return _checked_output(Path(path), field)
    except OSError as exc:  # a name over the file system's limit (ENAMETOOLONG), a loop of links
        raise InputError(field, f"cannot write the file ({exc.strerror or exc}): {path}") from None


def _checked_output(path: Path, field: str) -> Path:
    """``check_output_path`` of a non-empty path."""
    if path.is_symlink():
        try:
            path.resolve(strict=True)
        except FileNotFoundError:  # a link to a file still to be written
            pass
        except (OSError, RuntimeError):  # a loop of links: Python reads it as RuntimeError or ELOOP
            raise InputError(field, f"{path} is a symbolic link that loops; give a file path") from None
    if path.is_dir():
        raise InputError(field, f"{path} is a directory; give a file path")
    path = output_target(path, field)
    missing: list[Path] = []
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        missing.append(ancestor)
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise InputError(field, f"cannot create {path}: {ancestor} is not a directory")
    try:
        for folder in reversed(missing):  # created to be tried, removed again: the run creates them
            try:
                folder.mkdir()
            except OSError as exc:
                raise InputError(field, f"cannot create the folder {folder}: {exc.strerror or exc}") from None
        _probe_writable(path.parent, path, field)
    finally:
        for folder in missing:
            if folder.is_dir():
                folder.rmdir()
    return path


def _probe_writable(directory: Path, path: Path, field: str) -> None:
    """Create and remove a temporary in ``directory``: the one test that also holds for root and
    read-only file systems."""
    try:
        handle, probe = tempfile.mkstemp(prefix=f"{_temp_prefix(path)}{os.getpid()}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(field, f"cannot write in {directory}: {exc.strerror or exc}") from None
    os.close(handle)
    os.unlink(probe)
