"""The choices of the server, RAID level and engine controls: product names, and a choice that
would make the set-up invalid offered disabled, its reason beside it (VROC on an AMD server, RAID6
on an engine without it, more drives than a card takes).

No rule is written here: a choice is tried by validating the set-up with it (``parse_scenario``:
the specs' rules, the topology, the engines' platform requirements), and the reason is the first
line that validation gives, with product names for the catalog's names.
"""

from __future__ import annotations

import re
from typing import Any

from dash import Dash, Input, Output, State, html, no_update

from nvsim import Catalog, InputError, parse_scenario
from nvsim.names import product_name

from . import core, guard
from .datasheet import session_catalog

CONTROLS = (("platform", "platforms", ("platform",)), ("level", None, ("array", "level")), ("engine", "engines", ("array", "engine")))
"""The controls whose choices are checked: (control id, catalog section, where the scenario holds it)."""
FIELD_LEAD = re.compile(r"^(array: )?[a-z_]+(\.[a-z_]+)*: ")
"""The field a validation message starts with ("array.engine: "): the option beside it says which."""


def _with(scenario: dict[str, Any], where: tuple[str, ...], value: Any) -> dict[str, Any]:
    if len(where) == 1:
        return dict(scenario, **{where[0]: value})
    return dict(scenario, array=dict(scenario["array"], **{where[1]: value}))


def _get(scenario: dict[str, Any], where: tuple[str, ...]) -> Any:
    return scenario.get(where[0]) if len(where) == 1 else scenario["array"].get(where[1])


def refusal(scenario: dict[str, Any], catalog: Catalog) -> str | None:
    """Why the scenario is refused (its first line, catalog names as product names), or None."""
    try:
        parse_scenario(scenario, catalog)
    except (InputError, ValueError) as exc:
        text = str(exc).splitlines()[0]
        for section in ("engines", "platforms", "drives"):
            for name in getattr(catalog, section):
                if name in text:
                    text = text.replace(name, product_name(catalog, section, name))
        return FIELD_LEAD.sub("", text).split("; allowed")[0]
    return None


def _label(text: str, reason: str | None):
    if reason is None:
        return text
    return html.Span([text, html.Span(f" (not with this set-up: {reason})", className="option-reason")])


def choice_options(catalog: Catalog, scenario: dict[str, Any] | None) -> dict[str, list[dict]]:
    """Each checked control's options. Against a valid set-up, a choice that would make it invalid
    is disabled with its reason; against an invalid one (or none yet) every choice stays open, so
    that the way out is never closed."""
    check = isinstance(scenario, dict) and isinstance(scenario.get("array"), dict) and refusal(scenario, catalog) is None
    out = {}
    for control, section, where in CONTROLS:
        values = sorted(getattr(catalog, section)) if section else list(core.LEVELS)
        current = _get(scenario, where) if check else None
        options = []
        for value in values:
            reason = refusal(_with(scenario, where, value), catalog) if check and value != current else None
            text = product_name(catalog, section, value) if section else f"RAID{value}"
            if reason is not None:  # the choice's own name is beside the reason already
                reason = reason.replace(text, "this server" if control == "platform" else "it")
            options.append({"label": _label(text, reason) if control != "platform" else
                            text + ("" if reason is None else f" (not with this set-up: {reason})"),
                            "value": value, "disabled": reason is not None})
        out[control] = options
    return out


def initial_options(catalog: Catalog) -> dict[str, list[dict]]:
    """The options of the first page (the default set-up's)."""
    return choice_options(catalog, core.scenario_dict(core.default_setup(catalog), catalog=catalog))


def invalid_outputs(current: dict | None) -> tuple[bool, bool, str]:
    """(Simulate disabled, Add disabled, their title): both stay off while the set-up is invalid;
    the reason is beside the control that made it so."""
    valid = bool(current) and not current.get("errors") and "workloads" in current
    title = "" if valid else "the set-up is invalid: the reason is beside the control that made it so"
    return not valid, not valid, title


def attach(app: Dash, catalog: Catalog) -> None:
    @app.callback(Output("platform", "options"), Output("level", "options"), Output("engine", "options"),
                  Output("simulate", "disabled", allow_duplicate=True), Output("add-compare", "disabled"),
                  Output("simulate", "title"), Input("current", "data"), State("sheets", "data"), prevent_initial_call=True)
    @guard.client_data("current.data/sheets.data")
    def _choices(current, sheets):
        if current is None:
            return (no_update,) * 6
        try:
            session = session_catalog(catalog, sheets)
        except InputError:
            session = catalog
        options = choice_options(session, current.get("scenario"))
        return (options["platform"], options["level"], options["engine"], *invalid_outputs(current))

