"""The dashboard's boundary for untrusted requests: every callback payload is checked before use.

A Dash callback request is JSON the browser sends (``POST /_dash-update-component``): anyone can
craft one. Here, before any callback runs, the request's envelope is checked against the callback
it names (the output, its inputs and states, in order), and every value against the type its
property can take (a number box a number or text, a click count a whole number, a store the shape
the server itself writes, every number in it finite, every text in any value Unicode: no lone
surrogate). A malformed request is answered ``400`` with one short line, never a ``500`` page or a
traceback; the server log gets one line too. Stores the server writes (``current``, ``event``,
``compare``) travel through the browser, so a callback that reads one is also guarded: a record
that passes the shape check but still cannot be read is a bad request, not a server error.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, Literal

from dash.exceptions import DependencyException
from flask import Flask, Response, request
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from werkzeug.exceptions import HTTPException

from nvsim import InputError

log = logging.getLogger(__name__)
UPDATE_ROUTE = "_dash-update-component"
MESSAGE_CHARS = 300
"""Longest message a refusal carries (the field and what is allowed, not the whole payload)."""


class PayloadError(Exception):
    """A callback request or value that the dashboard does not accept (HTTP 400)."""

    def __init__(self, field: str, message: str):
        line = " ".join(f"{field}: {message}".splitlines())[:MESSAGE_CHARS]  # a key may hold a newline
        super().__init__(line.encode("utf-8", "backslashreplace").decode("utf-8"))  # or a lone surrogate: logged, sent
        self.field = field


class _Shape(BaseModel):
    """Stores the server writes: the keys callbacks read must have these types (others pass)."""

    model_config = ConfigDict(extra="allow", strict=False)


class Custom(_Shape):
    label: str = ""
    workloads: list[dict[str, Any]]
    warning: str = ""


class EngineSettings(_Shape):
    """An imported scenario's engine settings or rebuild throttle (``core.scenario_dict`` applies
    them while that engine is chosen): the engine's name and its sysfs-like knobs, each a plain value."""

    engine: str = Field(max_length=200)
    values: dict[str, str | int | float | bool | None] = Field(max_length=64)


class Extras(_Shape):
    seed: int | None = None
    layout: str | None = None
    near_copies: int | None = None
    scrub: bool | None = None
    placement: dict[str, Any] | None = None
    engine_settings: EngineSettings | None = None
    rebuild: EngineSettings | None = None


class Job(_Shape):
    id: str
    key: str


class CompareJob(Job):
    index: int = Field(ge=0, lt=26)  # which set-up (A to Z: MAX_COMPARE_ENTRIES) the Compare view's run simulates


class Record(_Shape):
    """A results record (``core.compute``) or its error form."""

    key: str | None = None
    scenario: dict[str, Any] | None = None
    errors: dict[str, str] | None = None
    workloads: list[dict[str, Any]] | None = None
    capacity: dict[str, float] | None = None
    bounds: list[dict[str, Any]] | None = None
    rebuild: dict[str, Any] | None = None
    scrub: dict[str, Any] | None = None


class EventRecord(_Shape):
    key: str
    workloads: list[dict[str, Any]]
    rebuild: dict[str, Any] | None = None


class CompareEntry(_Shape):
    label: str
    record: Record


class PlanWorkload(_Shape):
    """The plan's workload controls a ranked row opens with (``plan_view.plan_workload``)."""

    workload: str
    numjobs: int
    iodepth: int


class PlanRow(_Shape):
    """A ranked set-up the Plan view keeps for Open and Add to compare (``plan_view.row_store``)."""

    rank: int
    platform: str
    drive: str
    drives: int
    level: int
    strip_bytes: int
    engine: str
    overprovisioning: float
    hot_spares: int
    workload: PlanWorkload | None = None


_NUMBER_BOX = int | float | str | None
_CLICKS = TypeAdapter(int | None, config=ConfigDict(strict=True))
_TEXT = TypeAdapter(str | None, config=ConfigDict(strict=True))
_BOX = TypeAdapter(_NUMBER_BOX, config=ConfigDict(strict=True))
_STORES: dict[str, TypeAdapter] = {
    "custom": TypeAdapter(Custom | None), "extras": TypeAdapter(Extras | None), "job": TypeAdapter(Job | None),
    "current": TypeAdapter(Record | None), "event": TypeAdapter(EventRecord | None),
    "compare": TypeAdapter(list[CompareEntry] | None), "tab": TypeAdapter(str | None), "link-state": TypeAdapter(str | None),
    "sheets": TypeAdapter(list[dict[str, Any]] | None), "curve-event": TypeAdapter(EventRecord | None),
    "plan-job": TypeAdapter(str | None), "plan-rows": TypeAdapter(list[PlanRow] | None),
    "compare-job": TypeAdapter(CompareJob | None),
}
MAX_CHOICES = 1000
"""Most values a multiple-choice control sends (a whole catalog is some hundreds)."""
_CHOICES = {"plan-platforms": TypeAdapter(list[str] | None, config=ConfigDict(strict=True)),
            "plan-drives": TypeAdapter(list[str] | None, config=ConfigDict(strict=True)),
            "plan-engines": TypeAdapter(list[str] | None, config=ConfigDict(strict=True)),
            "plan-priced": TypeAdapter(list[str] | None, config=ConfigDict(strict=True)),
            "plan-levels": TypeAdapter(list[int] | None, config=ConfigDict(strict=True)),
            "plan-strips": TypeAdapter(list[int] | None, config=ConfigDict(strict=True)),
            "plan-spares": TypeAdapter(list[int] | None, config=ConfigDict(strict=True)),
            "scrub": TypeAdapter(list[Literal["on"]] | None, config=ConfigDict(strict=True))}
"""Multiple-choice controls (the Plan view's search; the set-up's scrub box, ticked or not): lists of
names or of whole numbers."""
_NUMBER_CONTROLS = {"drives", "numjobs", "iodepth", "level", "strip", "namespace-value", "ds-dwpd", "ds-pcie"}
MAX_SHEETS = 8
"""Datasheet drives a session keeps (dashboard.datasheet.MAX_SHEETS reads this)."""
MAX_COMPARE_ENTRIES = 26
"""Set-ups a comparison holds (A to Z)."""
PLAN_BOX_CHARS = 1000
"""Longest text a Plan form box sends (a list of drive counts, a capacity, a rate); the Plan text
itself is bounded where it is read. An 800 kB box of counts took 9.5 s of a request thread."""
MAX_CLICKS = 2**53
"""Largest click count a browser can send exactly (a JavaScript number)."""
FILENAME_CHARS = 255
"""Longest upload file name (a file system's name limit): a name of a million characters came back
whole in the upload's note."""


def _adapter(component: str, prop: str) -> TypeAdapter:
    if prop == "data":
        if component not in _STORES:
            raise PayloadError(component, "not a store of this page")
        return _STORES[component]
    if prop in ("n_clicks", "n_intervals"):
        return _CLICKS
    if prop == "value" and component in _NUMBER_CONTROLS:
        return _BOX
    if prop == "value" and component in _CHOICES:
        return _CHOICES[component]
    return _TEXT  # dropdowns, radio items, upload contents and file names


def _walk(value: Any) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every item of ``value`` with where it lies (``("rebuild", "mttdl_years")``), a dict's keys
    too (where their dict lies), in order. Walked without recursion: a store may nest."""
    stack: list[tuple[tuple[str, ...], Any]] = [((), value)]
    while stack:
        where, item = stack.pop()
        yield where, item
        if isinstance(item, dict):
            yield from ((where, key) for key in item)
            stack.extend(((*where, str(k)), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend(((*where, str(i)), v) for i, v in reversed(list(enumerate(item))))


def not_finite_at(value: Any) -> str | None:
    """Where in ``value`` (``rebuild.mttdl_years``) the first number lies that is not finite or is
    past any float, or None. The server writes none (Dash sends NaN and infinity as null), but
    Python's JSON reads ``Infinity``, ``NaN`` and a 400-digit integer from a client; a formatter or
    ``int()`` of one overflowed deep inside a callback."""
    return next((".".join(where) or "the value" for where, item in _walk(value)
                 if isinstance(item, (int, float)) and not isinstance(item, bool) and not abs(item) <= sys.float_info.max), None)


def not_unicode(text: str) -> str | None:
    """Why ``text`` is not Unicode text (one phrase naming its character), or None. JSON carries a
    lone UTF-16 surrogate (``"\\ud800"``) and Python reads it into a str that UTF-8 cannot encode:
    writing the Plan text to its file or the report to a PDF raised UnicodeEncodeError deep inside a
    callback (a 500, or a 400 that blamed a store). Every text a client sends is checked with this."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"must be Unicode text, got the lone surrogate U+{ord(text[exc.start]):04X} (half of a UTF-16 pair)"
    return None


def not_unicode_at(value: Any) -> str | None:
    """``not_unicode`` of the first text in ``value`` (a text, a store) that is not Unicode, with
    where it lies, or None."""
    for where, item in _walk(value):
        if isinstance(item, str) and (why := not_unicode(item)) is not None:
            return f"{why}{' at ' + '.'.join(where) if where else ''}"
    return None


def check_value(component: str, prop: str, value: Any) -> None:
    """Raise PayloadError unless ``value`` is what ``component.prop`` can hold."""
    try:
        _adapter(component, prop).validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"] if not str(p).startswith(("function-", "nullable", "union")))
        raise PayloadError(f"{component}.{prop}", f"{first['msg']}{' at ' + where if where else ''}") from None
    if (why := not_unicode_at(value)) is not None:
        raise PayloadError(f"{component}.{prop}", why)
    if prop == "data" and (where := not_finite_at(value)) is not None:
        raise PayloadError(f"{component}.data", f"a number that is not finite (Infinity, NaN) or past ~1.8e308 at {where}")
    if prop in ("n_clicks", "n_intervals") and value is not None and not 0 <= value <= MAX_CLICKS:
        raise PayloadError(f"{component}.{prop}", f"must be 0 to {MAX_CLICKS}, got {value}")
    if component == "sheets" and value is not None and len(value) > MAX_SHEETS:
        raise PayloadError("sheets.data", f"at most {MAX_SHEETS} datasheet drives, got {len(value)}")
    if component in _CHOICES and value is not None and len(value) > MAX_CHOICES:
        raise PayloadError(f"{component}.value", f"at most {MAX_CHOICES} choices, got {len(value)}")
    if component.startswith("plan-") and component != "plan-text" and prop == "value" and isinstance(value, str) \
            and len(value) > PLAN_BOX_CHARS:
        raise PayloadError(f"{component}.value", f"at most {PLAN_BOX_CHARS:,} characters, got {len(value):,}")
    if prop == "filename" and isinstance(value, str) and len(value) > FILENAME_CHARS:
        raise PayloadError(f"{component}.filename", f"at most {FILENAME_CHARS} characters, got {len(value):,}")
    if component == "plan-rows" and value is not None and len(value) > 1000:
        raise PayloadError("plan-rows.data", f"at most 1000 rows, got {len(value)}")
    if component == "compare" and value is not None and len(value) > MAX_COMPARE_ENTRIES:
        raise PayloadError("compare.data", f"at most {MAX_COMPARE_ENTRIES} entries, got {len(value)}")


def _items(body: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = body.get(key, [])
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise PayloadError(key, "must be a list of {id, property, value} objects")
    return items


def _check_listed(items: list[dict[str, Any]], expected: list[dict[str, Any]], key: str) -> None:
    """The request's inputs (or states) are the callback's, in order, with values of their type."""
    if len(items) != len(expected):
        raise PayloadError(key, f"expected {len(expected)} items, got {len(items)}")
    for item, want in zip(items, expected):
        if item.get("id") != want["id"] or item.get("property") != want["property"]:
            raise PayloadError(key, f"expected {want['id']}.{want['property']}, got {item.get('id')!r}.{item.get('property')!r}")
        check_value(want["id"], want["property"], item.get("value"))


MAX_REQUEST_ITEMS = 100_000
"""Values (each dict, list, key and scalar) one callback request may carry: the largest the page
sends, 26 compared set-ups with their results, is about 13,000; 1.33 million empty lists in a 4 MB
body had pydantic build as many errors (2 GB of the server's memory and 10 s, for one request)."""
MAX_REQUEST_DEPTH = 32
"""Nesting one callback request may have: the page's deepest is under 10; a list 600 deep made
the record's fingerprint (``core.scenario_key``) recurse past Python's limit (a 500)."""


def check_size(body: Any) -> None:
    """Refuse a request of more than ``MAX_REQUEST_ITEMS`` values or nested deeper than
    ``MAX_REQUEST_DEPTH``, walked without recursion and stopped at the first excess, before any
    value is validated or read."""
    stack, seen = [(body, 0)], 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if depth > MAX_REQUEST_DEPTH:
            raise PayloadError("request", f"nested more than {MAX_REQUEST_DEPTH} levels deep")
        if isinstance(item, dict):
            seen += len(item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        if seen > MAX_REQUEST_ITEMS:
            raise PayloadError("request", f"more than {MAX_REQUEST_ITEMS:,} values; the page sends far fewer")


def check_update_request(body: Any, callbacks: dict[str, dict[str, Any]]) -> None:
    """The whole envelope of a callback request against the app's callback map."""
    if not isinstance(body, dict):
        raise PayloadError("request", "must be a JSON object")
    check_size(body)
    output = body.get("output")
    if not isinstance(output, str) or output not in callbacks:
        raise PayloadError("output", "names no callback of this page")
    spec = callbacks[output]
    outputs = body.get("outputs")
    if not output.startswith("..") and not isinstance(outputs, dict):  # one output: Dash reads a list as several
        raise PayloadError("outputs", "expected one output object")
    wanted = spec["output"] if isinstance(spec["output"], list) else [spec["output"]]
    count = len(wanted)
    if not (isinstance(outputs, list) and len(outputs) == count and all(isinstance(o, dict) for o in outputs)
            or count == 1 and isinstance(outputs, dict)):
        raise PayloadError("outputs", f"expected {count} output object(s)")
    for item, want in zip(outputs if isinstance(outputs, list) else [outputs], wanted):  # Dash refuses others with a 500
        prop = item.get("property")
        prop = prop.split("@", 1)[0] if isinstance(prop, str) else prop  # "data@<hash>": an output allow_duplicate
        if item.get("id") != want.component_id or prop != want.component_property:
            raise PayloadError("outputs", f"expected {want.component_id}.{want.component_property}")
    _check_listed(_items(body, "inputs"), spec["inputs"], "inputs")
    _check_listed(_items(body, "state"), spec["state"], "state")
    changed = body.get("changedPropIds", [])
    if not isinstance(changed, list) or not all(isinstance(c, str) for c in changed):
        raise PayloadError("changedPropIds", "must be a list of strings")
    inputs = {f"{i['id']}.{i['property']}" for i in spec["inputs"]}
    if any(c not in inputs for c in changed):  # Dash reads an id that starts with "{" as JSON (a 500 if it is not)
        raise PayloadError("changedPropIds", "must name this callback's inputs")


def _refuse(status: int, message: str) -> Response:
    return Response(json.dumps({"error": message}), status=status, mimetype="application/json")


_PYTHON_VERSION = re.compile(r'"python_version":"(?:[^"\\]|\\.)*",?')
"""The server's Python build in the page's ``_dash-config`` (Dash's front end shows it in its
debug tools, which the dashboard does not turn on)."""


def without_server_build(page: str) -> str:
    """``page`` with the server's Python version taken out of Dash's page config."""
    return _PYTHON_VERSION.sub("", page)


def install(server: Flask, callbacks: dict[str, dict[str, Any]], prefix: str) -> None:
    """Check every callback request before Dash sees it; answer refusals and errors in one line.
    Pages go out without the server's Python build (``without_server_build``)."""
    route = f"{prefix}{UPDATE_ROUTE}"

    @server.after_request
    def _page(response: Response) -> Response:
        if response.mimetype == "text/html" and not response.direct_passthrough:
            page = response.get_data(as_text=True)
            if '"python_version"' in page:
                response.set_data(without_server_build(page))
        return response

    @server.before_request
    def _check() -> Response | None:
        if request.path != route:
            return None
        if request.method != "POST":
            return _refuse(405, "callbacks take POST")
        try:
            body = json.loads(request.get_data(cache=True) or b"null")
        except (ValueError, RecursionError):
            return _refuse(400, "request: not JSON")
        try:
            check_update_request(body, callbacks)
        except PayloadError as exc:
            log.warning("refused a callback request: %s", exc)
            return _refuse(400, str(exc))
        return None

    @server.errorhandler(PayloadError)
    def _payload(exc: PayloadError) -> Response:
        log.warning("refused a callback request: %s", exc)
        return _refuse(400, str(exc))

    @server.errorhandler(DependencyException)
    def _not_a_dependency(_exc: DependencyException) -> Response:
        """A component-suite path Dash did not register (``..`` segments, a made-up file): Dash
        raised, which answered 500 and logged a traceback listing every registered path."""
        return _refuse(404, "Not Found: no such component file")

    @server.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        return _refuse(exc.code or 400, f"{exc.name}: {exc.description}"[:MESSAGE_CHARS])


def client_data(what: str) -> Callable:
    """Guard a callback that reads data held by the browser: an error reading it is a bad request.

    Shapes are checked before the callback runs (``install``); a record whose contents still cannot
    be read (a key missing deep inside, a number that is text, a number whose arithmetic overflows
    or divides by zero) raises here as PayloadError (400)."""
    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def guarded(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError, InputError) as exc:
                raise PayloadError(what, f"cannot be read ({type(exc).__name__}: {exc})") from None
        return guarded
    return wrap
