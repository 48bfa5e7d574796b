"""One-line input errors: the field, what is wrong, what is allowed.

Everything a user typed (scenario YAML, catalog names, CLI options) is checked before time starts;
a failure is an ``InputError`` whose message is a single line naming the field. The CLI prints it
and exits with status 2, without a traceback.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel, ValidationError

EXIT_INPUT_ERROR = 2


SHOWN_DIGITS = 40
"""Digits of one number an error message repeats; a longer run is cut, with its length said (a
value of thousands of digits made a 'one line' message of kilobytes)."""
_LONG_DIGITS = re.compile(r"\d{%d,}" % (SHOWN_DIGITS + 1))
SHOWN_CHARS = 80
"""Characters of a value an error message repeats (``shown``)."""
SHOWN_WORD_CHARS = 200
"""Longest run without a space an error message repeats whole (a name or path of kilobytes is cut)."""
_LONG_WORD = re.compile(r"\S{%d,}" % (SHOWN_WORD_CHARS + 1))
_CUT_HEAD_CHARS = 24  # what a cut value keeps: fewer digits than SHOWN_DIGITS, so it is not cut twice


NOT_PRINTABLE = ("Cc", "Cf", "Zl", "Zp")
"""Unicode categories that would rewrite a table, CSV, HTML or terminal a text is printed into:
controls (newline, NUL, escape), formats (the bidirectional overrides such as U+202E) and line or
paragraph separators. A name may hold none (``nvsim.specs.base.Label``); an error message shows
each as its code (``\\u202e``)."""


def unprintable(text: str) -> str | None:
    """The first character of ``text`` in ``NOT_PRINTABLE`` (None: all printable)."""
    return next((c for c in text if unicodedata.category(c) in NOT_PRINTABLE), None)


def not_printable(text: str) -> str | None:
    """Why ``text`` may not be printed as it is (its first ``NOT_PRINTABLE`` character), or None:
    the phrase every refusal of such a text uses."""
    bad = unprintable(text)
    return None if bad is None else f"must be printable text, got the control or formatting character U+{ord(bad):04X}"


def escaped(text: str) -> str:
    """``text`` with each control or formatting character (``NOT_PRINTABLE``) written as its code
    (``\\x1b``, ``\\u202e``): safe to print into a terminal, a table or a one-line message."""
    if unprintable(text) is None:
        return text
    return "".join(c.encode("unicode_escape").decode("ascii") if unicodedata.category(c) in NOT_PRINTABLE else c
                   for c in text)


def _cut(match: re.Match) -> str:
    text = match.group(0)
    unit = "digits" if text.isdigit() else "characters"
    return f"{text[:_CUT_HEAD_CHARS]}...({len(text)} {unit})"


def shown(value: Any) -> str:
    """``repr(value)`` as an error message repeats it: at most ``SHOWN_CHARS`` characters."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else f"{text[:_CUT_HEAD_CHARS]}...({len(text)} characters)"


class InputError(ValueError):
    """Bad input; ``str(error)`` is the one line shown to the user: any number it repeats is cut
    past ``SHOWN_DIGITS`` digits, any other word past ``SHOWN_WORD_CHARS`` characters."""

    def __init__(self, field: str, message: str, *, source: str | None = None):
        message = _LONG_WORD.sub(_cut, _LONG_DIGITS.sub(_cut, message))
        self.field = field
        self.message = message
        self.source = source
        prefix = f"{source}: " if source else ""
        where = f"{field}: " if field else ""
        super().__init__(escaped(f"{prefix}{where}{message}".replace("\n", " ")))


ENV_LIMIT_MAX = 2**62
"""Largest bound an environment variable may set (an index a read or an allocation can still take)."""


_CLIENT_INPUT: ContextVar[bool] = ContextVar("nvsim_client_input", default=False)
"""Whether the input being read came from a client of a server (``client_input``)."""


@contextmanager
def client_input() -> Iterator[None]:
    """Read a server's client's input inside: every bound an environment variable can set
    (``limit_from_env``: input bytes, fio job sections, trace records) is its default, the server's
    environment neither read nor named (``env_hint``), as ``nvsim.budget.Limits.served`` does for the
    work limits. A client's refusal named ``NVSIM_MAX_FIO_JOB_ENTRIES``, and quoted its value where
    the server had it set (a bad value, ``hunter2``, came back whole)."""
    token = _CLIENT_INPUT.set(True)
    try:
        yield
    finally:
        _CLIENT_INPUT.reset(token)


def env_hint(env: str) -> str:
    """`` (set ENV to raise it)``, or "" while a client's input is read (``client_input``)."""
    return "" if _CLIENT_INPUT.get() else f" (set {env} to raise it)"


def limit_from_env(env: str, default: int) -> int:
    """``default``, or the bound the environment variable ``env`` sets: a whole number from 1 to
    ``ENV_LIMIT_MAX``. A value set but not such a number is refused (one line naming the variable),
    not passed over for the default. While a client's input is read (``client_input``): ``default``,
    the environment not read."""
    if _CLIENT_INPUT.get():
        return default
    raw = os.environ.get(env, "")
    if raw == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if not 1 <= value <= ENV_LIMIT_MAX:
        raise InputError(env, f"must be a whole number from 1 to 2^62 (unset: {default:,}), got {shown(raw)}")
    return value


def require_extra(module: str, extra: str, field: str, what: str) -> None:
    """An InputError naming the extra to install when the optional package ``module`` (of
    ``pip install 'nvsim[extra]'``) that ``what`` needs is missing, before any work starts."""
    if importlib.util.find_spec(module) is None:
        raise InputError(field, f"{what} needs the optional package {module}: pip install 'nvsim[{extra}]'")


def close_matches(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Candidates that look like ``word`` (case-insensitive), best first."""
    pool = list(candidates)
    lowered = {c.lower(): c for c in pool}
    found = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=0.5)
    if not found:  # substring matches help with short names like "cm7"
        found = [c for c in lowered if word.lower() in c][:n]
    return [lowered[f] for f in found]


def suggestion_text(word: str, candidates: Iterable[str]) -> str:
    matches = close_matches(word, candidates)
    return f"; did you mean {' or '.join(repr(m) for m in matches)}?" if matches else ""


def suggestion_then(word: str, candidates: Iterable[str]) -> str:
    """``suggestion_text`` and the separator before the line's next words (``allowed: ...``):
    "; did you mean 'x'? " where a name is near, else "; "."""
    hint = suggestion_text(word, candidates)
    return f"{hint} " if hint else "; "


def format_loc(loc: Sequence[Any]) -> str:
    """('workloads', 0, 'iodepth') -> 'workloads[0].iodepth'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _model_at(model: type[BaseModel], loc: Sequence[Any]) -> type[BaseModel] | None:
    """The model class that owns the last element of ``loc`` (to list its allowed keys)."""
    return _model_of(model, loc[:-1])


def _model_of(model: type[BaseModel], loc: Sequence[Any]) -> type[BaseModel] | None:
    """The model class of the value at ``loc`` itself (its fields are the keys it takes)."""
    current: Any = model
    for part in loc:
        if isinstance(part, int) or current is None:
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            return None
        current = _inner_model(field.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


BOUND_ERRORS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")
"""pydantic's error types of a numeric bound (``Field(gt=..., le=...)``)."""


def _bound_unit(model: type[BaseModel], loc: Sequence[Any]) -> str:
    """The unit a field's bounds are in, where the field declares one (``json_schema_extra``'s
    ``bound_unit``: a field read in other units than it holds, fio's times), else ""."""
    owner = _model_at(model, loc)
    field = getattr(owner, "model_fields", {}).get(loc[-1]) if owner is not None and loc else None
    extra = field.json_schema_extra if field is not None and isinstance(field.json_schema_extra, dict) else {}
    return str(extra.get("bound_unit", ""))


NUMBER_TYPE_ERRORS = ("int_type", "int_parsing", "int_parsing_size", "int_from_float", "float_type", "float_parsing",
                      "finite_number")
"""pydantic's error types of a value that is no number of the field's kind (text, nothing, NaN, 1e300 for
a whole number): their words name the type, not the range a bounded field allows."""


def _bounds_text(model: type[BaseModel], loc: Sequence[Any]) -> str:
    """What a bounded number field allows (``Field(ge=..., le=...)``), as an error's last words
    (``allowed: a whole number from 17 to 32768``); "" where the field has no bounds."""
    owner = _model_at(model, loc)
    field = getattr(owner, "model_fields", {}).get(loc[-1]) if owner is not None and loc else None
    if field is None:
        return ""
    found = {name: getattr(item, name) for item in field.metadata for name in ("gt", "ge", "lt", "le") if hasattr(item, name)}
    words = {"ge": "at least", "gt": "above", "le": "at most", "lt": "below"}
    said = [f"{words[name]} {_bound(found[name])}" for name in ("ge", "gt", "le", "lt") if name in found]
    if not said:
        return ""
    span = f"from {_bound(found['ge'])} to {_bound(found['le'])}" if {"ge", "le"} <= found.keys() else " and ".join(said)
    whole = "a whole number" if _whole_numbers(field.annotation) else "a number"
    unit = _bound_unit(model, loc)
    return f"allowed: {whole} {span}{' ' + unit if unit else ''}"


def _bound(value: float) -> str:
    """A bound as pydantic's own words write it (32768, 0.001, 18446744073709551616)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _whole_numbers(annotation: Any) -> bool:
    """Whether a field's type takes whole numbers only (``int``, ``Annotated[int, ...]``, ``int | None``)."""
    if annotation is int:
        return True
    return any(_whole_numbers(arg) for arg in (getattr(annotation, "__origin__", None), *getattr(annotation, "__args__", ()))
               if arg is not None and arg is not annotation)


def _inner_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _number_for_text(error: dict) -> bool:
    """A number given where only versions are allowed, as text (an unquoted version, ``kernel: 6.10``);
    not where the allowed values are words (``bitmap: 0``), which no quoting would make right."""
    value, expected = error.get("input"), str((error.get("ctx") or {}).get("expected", ""))
    allowed = re.findall(r"'([^']*)'", expected)
    return (error["type"] == "literal_error" and isinstance(value, (int, float)) and not isinstance(value, bool)
            and bool(allowed) and all(re.fullmatch(r"[0-9]+(\.[0-9]+)+", text) for text in allowed))


SHAPE_WORDS = {"model_type": "must be a mapping of its fields", "dict_type": "must be a mapping",
               "tuple_type": "must be a list", "list_type": "must be a list"}
"""What a value of the wrong shape should have been, in the file's words (YAML: a mapping, a list)."""


def _shape_of(value: Any) -> str:
    """A value's shape as the file wrote it: nothing, a list, a mapping, or the value itself."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a mapping"
    return shown(value)


def from_validation_error(error: ValidationError, model: type[BaseModel], *, prefix: str = "", source: str | None = None) -> InputError:
    """The first problem of a pydantic ValidationError as one InputError line."""
    first = error.errors(include_url=False)[0]
    loc = [p for p in first["loc"] if not (isinstance(p, str) and ("[" in p and p.startswith("function")
                                                                  or p.startswith("<") and p.endswith(">")))]  # a union's <tag>
    field = format_loc(([prefix] if prefix else []) + list(loc))
    kind = first["type"]
    if kind == "extra_forbidden":
        owner = _model_at(model, loc)
        allowed = sorted(owner.model_fields) if owner else []
        key = str(loc[-1]) if loc else "?"
        if not allowed:  # e.g. the engine_settings of an engine that takes none
            return InputError(field, "unknown key: this takes no keys (nothing may be set here); leave it out",
                              source=source)
        hint = suggestion_text(key, allowed)
        return InputError(field, f"unknown key{hint}{' ' if hint else '; '}allowed keys: {', '.join(allowed)}",
                          source=source)
    if kind == "missing":
        return InputError(field, "required field is missing", source=source)
    if kind in SHAPE_WORDS:  # pydantic's words name its classes ("a valid dictionary or instance of ArraySpec")
        shaped = _model_of(model, loc) if kind == "model_type" else None
        keys = f" ({', '.join(sorted(shaped.model_fields))})" if shaped is not None and shaped.model_fields else ""
        got = first.get("input")
        return InputError(field or "the file", f"{SHAPE_WORDS[kind]}{keys}, got {_shape_of(got)}", source=source)
    message = first["msg"]
    for lead in ("Value error, ", "Assertion failed, "):
        if message.startswith(lead):
            message = message[len(lead):]
    unit = _bound_unit(model, loc) if kind in BOUND_ERRORS else ""
    if unit:
        message = f"{message} {unit}"
    if "input" in first and kind not in ("value_error",) and not isinstance(first["input"], (dict, list)):
        message = f"{message} (got {shown(first['input'])})"
        if _number_for_text(first):
            message += "; a version is text: quote it (YAML reads 6.10 as the number 6.1)"
    allowed = _bounds_text(model, loc) if kind in NUMBER_TYPE_ERRORS else ""
    if allowed:
        message = f"{message}; {allowed}"
    return InputError(field, message, source=source)
