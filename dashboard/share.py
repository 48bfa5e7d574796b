"""A link that reopens a set-up: the controls in the page's URL query, read back on load.

The controls are plain query parameters (``?drives=24&level=6&engine=linux-md``: readable, and a
link can be edited by hand); what has no control (an imported scenario's layout, placement and
seed, uploaded workloads, datasheet drives) travels as ``more``, base64url of compact JSON. Reading
a link goes through the same checks as a request (``guard``) and the same validation as the
controls; a bad link is one line, and the page keeps its default set-up.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any
from urllib.parse import parse_qs, urlencode

from nvsim import InputError

from . import guard
from .datasheet import MAX_SHEETS, drive_data, drive_spec

MAX_QUERY_CHARS = 64_000
"""Longest query a link may carry (browsers keep URLs far longer; uploads up to 1 MB do not fit)."""
PARAMS = (("platform", "platform", str), ("drive", "drive", str), ("drives", "drives", int), ("ns", "namespace_mode", str),
          ("ns_value", "namespace_value", str), ("level", "level", int), ("strip", "strip_bytes", int),
          ("engine", "engine", str), ("workload", "workload", str), ("jobs", "numjobs", int), ("qd", "iodepth", int))
"""Query name -> set-up key -> type."""
MAX_PARAM_CHARS = 100
"""Longest value of one control in a link (catalog names are under 40 characters)."""


def to_query(setup: dict[str, Any], extras: dict | None = None, custom: dict | None = None,
             sheets: list[dict] | None = None) -> str:
    """The URL query ("?...") that reopens this set-up; empty values are left out."""
    params = {name: setup.get(key) for name, key, _ in PARAMS if setup.get(key) not in (None, "")}
    more = {k: v for k, v in (("extras", extras), ("custom", custom), ("sheets", sheets)) if v}
    if more:
        raw = json.dumps(more, separators=(",", ":"), sort_keys=True).encode()
        params["more"] = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    text = "?" + urlencode(params)
    if len(text) > MAX_QUERY_CHARS:  # the uploaded workloads are what make it long: leave them out
        return to_query(setup, extras, None, sheets) if custom else text
    return text


def _value(name: str, text: str, kind: type) -> Any:
    if len(text) > MAX_PARAM_CHARS:
        raise InputError(f"link {name}", f"is {len(text):,} characters; at most {MAX_PARAM_CHARS}")
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise InputError(f"link {name}", f"must be a whole number, got {text[:40]!r}") from None
    return text


def _more(text: str) -> dict[str, Any]:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        more = json.loads(raw)
    except (binascii.Error, ValueError, RecursionError):  # RecursionError: JSON nested thousands deep
        raise InputError("link more", "is not base64url JSON") from None
    if not isinstance(more, dict) or set(more) - {"extras", "custom", "sheets"}:
        raise InputError("link more", "must hold only extras, custom and sheets")
    try:
        guard.check_value("extras", "data", more.get("extras"))
        guard.check_value("custom", "data", more.get("custom"))
    except guard.PayloadError as exc:
        raise InputError("link more", str(exc)) from None
    sheets = more.get("sheets") or []
    if not isinstance(sheets, list) or len(sheets) > MAX_SHEETS or not all(isinstance(s, dict) for s in sheets):
        raise InputError("link more", f"sheets: at most {MAX_SHEETS} drives")
    for sheet in sheets:
        if not isinstance(sheet.get("name"), str):
            raise InputError("link more", "sheets: each drive needs its name")
        data = drive_data(sheet)  # every figure within its physical range (datasheet.BOUNDS)
        if sheet["name"] != data["name"]:
            raise InputError("link more", f"sheets: a drive's name is {data['name'][:60]!r}, from its model")
        drive_spec(data)
    return more


def from_query(search: str | None) -> dict[str, Any] | None:
    """{"setup": {...only the keys the link gives}, "extras", "custom", "sheets"}, or None for a
    link without a set-up; an InputError (one line) for a bad one."""
    text = (search or "").lstrip("?")
    if not text:
        return None
    if len(text) > MAX_QUERY_CHARS:
        raise InputError("link", f"is {len(text):,} characters; at most {MAX_QUERY_CHARS:,}")
    try:
        query = parse_qs(text, keep_blank_values=True, max_num_fields=2 * len(PARAMS))
    except ValueError:
        raise InputError("link", f"has too many parameters; at most {2 * len(PARAMS)}") from None
    setup = {}
    for name, key, kind in PARAMS:
        if name in query:
            setup[key] = _value(name, query[name][-1], kind)
    more = _more(query["more"][-1]) if "more" in query else {}
    if not setup and not more:
        return None
    return {"setup": setup, "extras": more.get("extras"), "custom": more.get("custom"), "sheets": more.get("sheets") or []}
