"""The one boundary for untrusted input files: bounded, strictly decoded, duplicate-free YAML.

Every file nvsim reads (a scenario, a fio job file, a sweep spec, a catalog entry,
models/bibliography.yaml, a dashboard upload) comes through here. A file is

- bounded in size (``MAX_INPUT_BYTES``, raised with the environment variable
  ``NVSIM_MAX_INPUT_BYTES``): a scenario is kilobytes; a 50 MB file is refused before it is read;
- decoded strictly as UTF-8 (a byte-order mark is dropped): a bad byte is one line naming the
  file and the byte's offset, never a UnicodeDecodeError;
- parsed by libyaml's C loader (``yaml.CSafeLoader``; the pure-Python ``SafeLoader`` only where
  PyYAML was built without libyaml): data only, a duplicate key refused (YAML says keys are
  unique; PyYAML would keep the last one silently);
- bounded in shape: nesting deeper than ``MAX_DEPTH`` or more than ``MAX_NODES`` values (aliases
  and merge keys counted each time they are used, on the parsed document before any value is built,
  so an alias or merge bomb is refused) is one line, never a
  RecursionError or a MemoryError further on.

Every failure is an ``InputError`` naming the file.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import yaml

from pydantic import BaseModel, ValidationError

from .errors import InputError, env_hint, from_validation_error, limit_from_env
from .shipped import carried_hint

MAX_INPUT_BYTES = 4 * 2**20
"""Largest input file read (4 MiB; the largest shipped file is a few kB)."""
MAX_INPUT_BYTES_ENV = "NVSIM_MAX_INPUT_BYTES"
MAX_DEPTH = 32
"""Deepest nesting of mappings and lists a file may have (a scenario needs 4)."""
MAX_NODES = 1_000_000
"""Most values (scalars, mappings, lists) a loaded document may hold, aliases expanded."""

_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class StrictLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """libyaml's safe loader that refuses a mapping with the same key twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:  # an unhashable key: the base class says so
                break
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (each key may appear once)", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def max_input_bytes() -> int:
    """The size bound in force: ``NVSIM_MAX_INPUT_BYTES`` when set (``errors.limit_from_env``)."""
    return limit_from_env(MAX_INPUT_BYTES_ENV, MAX_INPUT_BYTES)


def read_bytes(path: str | Path) -> bytes:
    """A file's bytes, refused (one line) if it cannot be read or is over the size bound."""
    path = Path(path)
    limit = max_input_bytes()
    try:
        if path.is_dir():
            raise InputError("", "is a directory, not a file", source=str(path))
        size = path.stat().st_size
        if size > limit:
            raise InputError("", f"file is {size:,} bytes; input files are bounded at {limit:,} bytes"
                                 f"{env_hint(MAX_INPUT_BYTES_ENV)}", source=str(path))
        with _opened_for_reading(path) as handle:
            raw = handle.read(limit + 1)  # a pipe or a device may not know its size
    except OSError as exc:
        missing = carried_hint(path) if isinstance(exc, FileNotFoundError) else ""
        raise InputError("", f"cannot read file: {exc.strerror or exc}{missing}", source=str(path)) from None
    if len(raw) > limit:
        raise InputError("", f"more than {limit:,} bytes; input files are bounded at {limit:,} bytes"
                             f"{env_hint(MAX_INPUT_BYTES_ENV)}", source=str(path))
    return raw


def _opened_for_reading(path: Path):
    """``path`` opened for reading without waiting for a writer: a named pipe (FIFO) that nothing
    writes to blocked ``open`` forever (a FIFO named like a catalog entry hung ``nvsim catalog``);
    opened non-blocking and then read blocking, it reads what a writer sends, or nothing at once
    when there is none. Pipes a shell hands over (``<(...)``, /dev/stdin) read as before."""
    nonblock = getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, os.O_RDONLY | nonblock)
    if nonblock:
        import fcntl  # POSIX only, as O_NONBLOCK is

        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~nonblock)
    return os.fdopen(fd, "rb")


def decode(raw: bytes, source: str) -> str:
    """Strict UTF-8 (a leading byte-order mark dropped); a bad byte names its offset."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        offset = exc.start + (3 if raw.startswith(b"\xef\xbb\xbf") else 0)
        raise InputError("", f"not UTF-8 text: byte 0x{raw[offset]:02x} at offset {offset} "
                             f"(save the file as UTF-8)", source=source) from None


def read_text(path: str | Path) -> str:
    """A text file (fio job file, trace) through the size bound and strict decoding."""
    return decode(read_bytes(path), str(path))


def load_yaml(path: str | Path) -> Any:
    """A YAML file as data, through every bound of this module; a fio job file (its YAML fails, or
    is no mapping) is named as one, with the command that runs it (``refuse_fio_file``)."""
    text = read_text(path)
    try:
        data = parse_yaml(text, str(path))
    except InputError as exc:
        if "YAML syntax error" in str(exc):
            refuse_fio_file(Path(path), text)
        raise
    if not isinstance(data, dict):
        refuse_fio_file(Path(path), text)
    return data


FIO_SECTION = re.compile(r"\s*\[[^\]\n]+\]\s*")
"""A fio job file's section header ("[global]", "[job1]"), a line of its own."""
FIO_IOLOG = re.compile(r"fio version [23] iolog")
"""The first line of fio's I/O log (``write_iolog``, replayed by ``read_iolog``)."""


def refuse_fio_file(path: Path, text: str) -> None:
    """An InputError naming a fio job file given where a YAML file goes (by its ``.fio`` name, or a
    section header as its first line that is not a comment), with the command that runs it, or a fio
    I/O log (its version line) with the option that replays it; else nothing (it was a YAML syntax
    error at its second line)."""
    lines = [line for line in text[:4096].splitlines() if line.strip() and not line.lstrip().startswith(("#", ";"))]
    if path.suffix == ".fio" or (lines and FIO_SECTION.fullmatch(lines[0])):
        raise InputError("", f"this is a fio job file, not a YAML file; run it on a scenario with "
                             f"`nvsim fio {shlex.quote(str(path))} --system SCENARIO`", source=str(path))
    if lines and FIO_IOLOG.fullmatch(lines[0].strip()):
        raise InputError("", f"this is a fio I/O log (a trace), not a YAML file; replay it with "
                             f"read_iolog={path.name} in a fio job file run by `nvsim fio JOB --system SCENARIO` "
                             f"(docs/fio.md)", source=str(path))


def load_model(path: str | Path, model: type[BaseModel], field: str) -> tuple[Any, Path]:
    """A YAML file validated as ``model`` and the folder it sits in (the base of the paths it
    names); a missing file or a bad value is one line, ``field`` naming the command's argument."""
    path = Path(path)
    if not path.exists():
        raise InputError(field, f"no such file: {path}{carried_hint(path)}")
    data = load_yaml(path)
    required = {name for name, info in model.model_fields.items() if info.is_required()}
    if isinstance(data, dict) and {"platform", "array"} <= set(data) and required and not required & set(data):
        raise InputError(field, f"{path} is a scenario (it names a platform and an array), not the file this "
                                f"command takes; `nvsim run {path}` runs it", source=None)
    try:
        return model.model_validate(data), path.parent
    except ValidationError as exc:
        raise from_validation_error(exc, model, source=str(path)) from None


def parse_yaml(text: str, source: str) -> Any:
    """YAML text (a file's, or an upload's) as data: libyaml, no duplicate keys, bounded shape."""
    if len(text.encode("utf-8", "surrogatepass")) > max_input_bytes():
        raise InputError("", f"more than {max_input_bytes():,} bytes; input is bounded"
                             f"{env_hint(MAX_INPUT_BYTES_ENV)}", source=source)
    try:
        loader = StrictLoader(text)
        try:
            node = loader.get_single_node()
            if node is not None:
                check_node_count(node, source)  # before any value is built: a merge key copies its mapping
            data = None if node is None else loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, source) from None
    except RecursionError:  # the pure-Python composer on deep nesting
        raise InputError("", f"nested deeper than {MAX_DEPTH} levels", source=source) from None
    except ValueError as exc:  # an integer of more digits than Python converts (4,300): no value is that large
        if "digits" not in str(exc):
            raise
        raise InputError("", f"a number of more than {sys.get_int_max_str_digits():,} digits; no value nvsim takes "
                             f"is that long", source=source) from None
    check_shape(data, source)
    return data


def _syntax_error(exc: yaml.YAMLError, source: str) -> InputError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f"line {mark.line + 1}" if mark is not None else ""
    parts = [getattr(exc, "context", None), getattr(exc, "problem", None)]
    problem = " ".join(str(p) for p in parts if p) or str(exc)
    if isinstance(exc, yaml.reader.ReaderError):
        problem = f"character that YAML does not allow at position {exc.position}"
    problem = " ".join(str(problem).split())
    if "maximum nesting depth" in problem:
        problem = f"nested deeper than {MAX_DEPTH} levels"
    return InputError(where, f"YAML syntax error: {problem}", source=source)


def check_node_count(root: yaml.Node, source: str) -> None:
    """Refuse a composed document whose values, aliases and merge keys (``<<: *a``) expanded each
    time they are used, would be more than MAX_NODES, before any of them is built: a merge copies
    the mapping it names into each mapping that uses it, so a 68 kB scenario of 3,000 merges of a
    3,000-key anchor built 9 million entries (412 MB, 19.5 s) before ``check_shape`` could count
    them, and a 1 MB upload would have built a billion. Counted over the node graph once per node
    (an alias's count is its anchor's), without recursion; an alias inside its own anchor is an
    endless document."""
    sizes: dict[int, int] = {}
    visiting: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            visiting.discard(key)
            sizes[key] = min(1 + sum(sizes[id(child)] for child in children), MAX_NODES + 1)
            continue
        if key in sizes:
            continue
        if key in visiting:
            raise InputError("", "an alias inside its own anchor (a value that contains itself); input is bounded",
                             source=source)
        visiting.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    if sizes[id(root)] > MAX_NODES:
        raise InputError("", f"more than {MAX_NODES:,} values (aliases counted each time used); input is bounded",
                         source=source)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return []


def check_shape(data: Any, source: str) -> None:
    """Refuse data nested deeper than MAX_DEPTH or with more than MAX_NODES values, walking it
    without recursion (aliases are walked each time they are used, as a consumer would)."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    nodes = 0
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise InputError("", f"more than {MAX_NODES:,} values (aliases counted each time used); "
                                 f"input is bounded", source=source)
        if isinstance(value, dict):
            children = [*value.keys(), *value.values()]
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth + 1 > MAX_DEPTH:  # this mapping or list is level depth + 1
            raise InputError("", f"nested deeper than {MAX_DEPTH} levels", source=source)
        stack.extend((child, depth + 1) for child in children)
