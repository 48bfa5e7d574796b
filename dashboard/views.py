"""The selling views beside the set-up: curves, the one-page report, a link that reopens the
set-up, and a drive from its datasheet (layout pieces and their callbacks; app.py has the rest).

Every callback that reads a store the browser holds is guarded (``guard.client_data``); the curves
and the report are computed only while their tab is shown.
"""

from __future__ import annotations

import logging

import dash
from dash import Dash, Input, Output, State, dcc, html, no_update

from nvsim import Catalog, InputError, parse_scenario

from . import core, curves, datasheet, guard, report, share
from .figures import drive_figure, empty_figure, load_figure
from .jobs import EventRunner, job_id_of

log = logging.getLogger(__name__)
GRAPH_CONFIG = {"displaylogo": False, "displayModeBar": "hover",
                "toImageButtonOptions": {"format": "png", "scale": 2}}
EVENT_CURVE_HOST_IOS = 10_000
"""Measured host I/Os per load point of the event-mode p99 curve (half a Simulate run's: six points
take about as long as one Simulate of four workloads)."""
SETUP_CONTROLS = ("platform", "drive", "drives", "namespace-mode", "namespace-value", "level", "strip", "engine",
                  "workload", "numjobs", "iodepth")
SETUP_KEYS = ("platform", "drive", "drives", "namespace_mode", "namespace_value", "level", "strip_bytes", "engine",
              "workload", "numjobs", "iodepth")
_DATASHEET_BOXES = (("ds-model", "text", "e.g. PM1743 7.68 TB"), ("ds-vendor", "text", "optional"),
                    ("ds-capacity", "text", "e.g. 7.68 TB"), ("ds-dwpd", "number", "e.g. 1"),
                    ("ds-seq-read", "text", "e.g. 14 GB/s"), ("ds-seq-write", "text", "e.g. 6 GB/s"),
                    ("ds-rand-read", "text", "e.g. 2500K"), ("ds-rand-write", "text", "e.g. 300K"),
                    ("ds-raw", "text", "default: assumed from capacity"),
                    ("ds-price", "text", "optional, e.g. 1,200"), ("ds-price-date", "text", "with a price: YYYY-MM"),
                    ("ds-power-idle", "text", "optional, e.g. 5"), ("ds-power-read", "text", "with idle, e.g. 24"),
                    ("ds-power-write", "text", "with idle, e.g. 25"))
DATASHEET_INPUTS = tuple((key, datasheet.LABELS[key] + (" (optional)" if key in datasheet.OPTIONAL else ""), kind, hint)
                         for key, kind, hint in _DATASHEET_BOXES)
"""(form field, label, input type, placeholder); the labels are the datasheet module's, which its errors start with."""
DATASHEET_FIELDS = tuple(i[0] for i in DATASHEET_INPUTS) + ("ds-pcie", "ds-nand")


def workload_options(custom: dict | None) -> list[dict]:
    options = [{"label": p["label"], "value": key} for key, p in core.PRESETS.items()]
    label = (custom or {}).get("label") or "uploaded file (upload a fio job file or a scenario first)"
    options.append({"label": f"From file: {label}", "value": core.FILE_WORKLOADS})
    return options


def drive_options(catalog: Catalog, sheets: list[dict] | None = None) -> list[dict]:
    """The drive selector: the catalog's drives, then the session's datasheet drives."""
    options = [{"label": core.drive_label(catalog, name), "value": name} for name in sorted(catalog.drives)]
    return options + [{"label": f"{s.get('ds-vendor') or ''} {s.get('ds-model')} (your datasheet)".strip(), "value": s["name"]} for s in sheets or []]


# ---------------------------------------------------------------- layout


def curves_view() -> html.Div:
    return html.Div(className="curves", children=[
        html.Div(className="actions", children=[
            html.Span("Fluid mode: the curves follow the set-up.", className="mode"),
            html.Button("Add p99 (event mode)", id="curve-simulate", n_clicks=0),
            html.Span(id="curve-status", className="sim-status"),
        ]),
        html.Div(id="curve-note", className="field-hint"),
        html.Div(className="graphs", children=[
            dcc.Graph(id="load-graph", config=GRAPH_CONFIG, figure=empty_figure("computing…")),
            dcc.Graph(id="drives-graph", config=GRAPH_CONFIG, figure=empty_figure("computing…")),
        ]),
    ])


def report_view() -> html.Div:
    return html.Div(className="report", children=[
        html.Div(className="actions", children=[
            html.Span("One page: set-up, predictions, bottleneck, rebuild and risk, cost and power, validation.", className="mode"),
            *[dcc.Input(id=f"report-{key}", type="text", placeholder=hint, debounce=True, maxLength=REPORT_FIELD_CHARS,
                        className="text-input report-field") for key, hint in REPORT_FIELDS],
            html.Button("report HTML", id="report-html", n_clicks=0),
            html.Button("report PDF", id="report-pdf", n_clicks=0),
            html.Span(id="report-note", className="export-note"),
        ]),
        html.Iframe(id="report-frame", className="report-frame", srcDoc="", sandbox=""),  # the report: HTML, no script (report.py)
    ])


REPORT_FIELDS = (("customer", "customer"), ("project", "project"), ("date", "date (default today)"))
"""The report's own fields, typed on the Report tab (the ids are ``report-<key>``)."""
REPORT_FIELD_CHARS = report.REPORT_FIELD_CHARS


def report_fields(customer, project, when) -> dict[str, str]:
    """The report's customer, project and date as report_html takes them (text, cut to
    REPORT_FIELD_CHARS); one that is not Unicode is a bad request naming its field (the report's
    PDF could not encode it, and the callback's guard blamed the stores)."""
    cut = [str(v or "")[:REPORT_FIELD_CHARS] for v in (customer, project, when)]
    for (key, _), text in zip(REPORT_FIELDS, cut):
        if (why := guard.not_unicode(text)) is not None:
            raise guard.PayloadError(f"report-{key}.value", why)
    return {"customer": cut[0], "project": cut[1], "when": cut[2].strip() or None}


def _ds_field(key: str, label: str, control) -> html.Div:
    return html.Div(className="field", id=f"{key}-field", children=[
        html.Label(label, className="field-label"), control,
        html.Div(id=f"{key}-error", className="field-error", role="alert")])


def datasheet_panel() -> html.Details:
    """The form that adds the customer's drive from its datasheet (nvsim's datasheet mode)."""
    fields = [_ds_field(key, label, dcc.Input(id=key, type=kind, placeholder=hint, debounce=True, className="text-input"))
              for key, label, kind, hint in DATASHEET_INPUTS]
    fields.append(html.Div(className="field-row", children=[
        _ds_field("ds-pcie", "PCIe", dcc.Dropdown(id="ds-pcie", options=[{"label": f"Gen{g}", "value": g} for g in (3, 4, 5, 6)],
                                                  value=5, clearable=False)),
        _ds_field("ds-nand", "NAND", dcc.RadioItems(id="ds-nand", options=datasheet.nand_types(), value="TLC", inline=True,
                                                    className="radio")),
    ]))
    return html.Details(id="datasheet", className="datasheet", children=[
        html.Summary("Add a drive from its datasheet"),
        html.Div("Random figures are 4 KiB; the rest (latency, IU, MTBF) is assumed and listed in the drive's file. "
                 "Price and power are optional: with them the set-up gets its cost and watts.",
                 className="field-hint"),
        *fields,
        html.Div(className="actions", children=[html.Button("Add drive", id="ds-add", n_clicks=0),
                                                html.Button("drive YAML", id="ds-export", n_clicks=0)]),
        html.Div(id="ds-note", className="field-note", role="status"),
        dcc.Download(id="download-drive"),
    ])


# ---------------------------------------------------------------- logic the callbacks call


def valid(current: dict | None) -> bool:
    return bool(current) and not current.get("errors") and "workloads" in current


def checked_scenario(current: dict, store: str = "current.data") -> dict:
    """The record's scenario, which came back from the browser (in ``store``): it must still match
    its key (a digest the browser could compute itself) and, since it could, fit the work budget
    again (``core.check_work``: a block of 1 TiB planned 19 GB in the server)."""
    scenario = current.get("scenario")
    if not isinstance(scenario, dict) or core.scenario_key(scenario) != current.get("key"):
        raise guard.PayloadError(store, "the scenario does not match its key")
    try:
        core.check_work(scenario)
    except InputError as exc:
        raise guard.PayloadError(store, str(exc)) from None
    return scenario


def _reportable(current: dict, event: dict | None, catalog: Catalog) -> dict | None:
    """The record a report is made of, or None (an invalid set-up). Its scenario came back from the
    browser: it must match its key and fit the work budget (``checked_scenario``) and hold only
    what the dashboard holds (``core.check_held``): a record carrying ``array.unclean_shutdown``, which
    no set-up here makes, had the report run md's resync under this server's own limits."""
    record = core.shown(current, event)
    if record is None:
        return None
    try:
        core.check_held(parse_scenario(checked_scenario(current), catalog), "current.data")
    except InputError as exc:
        raise guard.PayloadError("current.data", str(exc)) from None
    return record


def event_refusal(current: dict, catalog: Catalog) -> str | None:
    """Why an event-mode run of this record is not started, or None: its scenario came back from
    the browser, so it must match its key, validate again and fit the job budget."""
    try:
        core.check_event_budget(parse_scenario(checked_scenario(current), catalog))
    except InputError as exc:
        return f"not simulated: {exc}"
    return None


def curve_figures(current: dict | None, curve_event: dict | None, catalog: Catalog) -> tuple:
    """(load figure, drive-count figure, note) of the current set-up (fluid; event p99 when run)."""
    if not valid(current):
        reason = "fix the set-up first" if current else "computing…"
        return empty_figure(reason), empty_figure(reason), ""
    scenario = checked_scenario(current)
    load, drives = curves.load_curve(scenario, catalog), curves.drive_curve(scenario, catalog)
    event = None
    if curve_event and curve_event.get("key") == current["key"]:
        event = curves.event_points(curve_event.get("workloads") or [])
    notes = list(dict.fromkeys(n for n in (load["note"], drives["note"]) if n))  # a note both curves carry, once
    if drives["skipped"]:
        counts = ", ".join(s.split(":", 1)[0] for s in drives["skipped"])
        notes.append(f"drive counts left out: {counts} ({drives['skipped'][0].split(': ', 1)[1]})")
    return load_figure(load, event), drive_figure(drives), " ".join(notes)


def start_curve(current: dict | None, sheets: list | None, catalog: Catalog, runner: EventRunner,
                replaces: str | None = None) -> tuple[dict | None, str]:
    """Start the event-mode p99 curve (one workload per load point, within the job budget);
    ``replaces``: the page's previous job, which gives way."""
    if not valid(current):
        return None, "fix the set-up first"
    session = datasheet.session_catalog(catalog, sheets)
    scenario = curves.load_workloads(checked_scenario(current), session)
    try:
        core.check_event_budget(parse_scenario(scenario, session))
    except InputError as exc:
        return None, f"not simulated: {exc}"
    try:
        job_id = runner.start(current["key"], scenario, rebuild=False, sheets=sheets, host_ios=EVENT_CURVE_HOST_IOS,
                              replaces=replaces)
    except InputError as exc:
        return None, exc.message
    return {"id": job_id, "key": current["key"], "kind": "curve"}, f"event mode: {len(scenario['workloads'])} load points…"


SCRUB_ON = "on"
"""The scrub checkbox's value when ticked."""


def scrub_sync(trigger: str | None, ticked: list | None, extras: dict | None) -> tuple:
    """The scrub checkbox and ``extras.scrub`` (what ``core.scenario_dict`` puts in ``array.scrub``)
    kept as one: ticking the box sets or clears it; a store set by an import or a link sets the box.
    (extras, box), ``no_update`` where nothing changes."""
    extras = dict(extras or {})
    if trigger == "scrub":
        on = SCRUB_ON in (ticked or [])
        if on == bool(extras.get("scrub")):
            return no_update, no_update
        if on:
            extras["scrub"] = True
        else:
            extras.pop("scrub", None)
        return extras, no_update
    box = [SCRUB_ON] if extras.get("scrub") else []
    return no_update, box if box != list(ticked or []) else no_update


def link_setup(search: str | None, current: dict | None, extras, custom, sheets) -> dict | None:
    """What a link asks the controls to show, or None when it shows that already (or asks nothing)."""
    parsed = share.from_query(search)
    if parsed is None:
        return None
    if valid(current) and current.get("setup") and share.to_query(current["setup"], extras, custom, sheets) == search:
        return None
    return parsed


def add_drive(form: dict, sheets: list | None, catalog: Catalog) -> tuple:
    """(sheets, new drive's name, {field: message}, note) for the Add drive button."""
    try:
        new, name = datasheet.add_sheet(form, sheets, catalog)
    except InputError as exc:
        return no_update, no_update, {exc.field if exc.field in DATASHEET_FIELDS else "ds-model": exc.message}, "not added: see above"
    return new, name, {}, f"added {name}: chosen in 'Drive model and capacity'"


# ---------------------------------------------------------------- callbacks


def register(app: Dash, catalog: Catalog, runner: EventRunner) -> None:
    _curve_callbacks(app, catalog, runner)
    _report_callbacks(app, catalog)
    _link_callbacks(app, catalog)
    _datasheet_callbacks(app, catalog)
    _tab_callbacks(app)

    @app.callback(Output("add-note", "children", allow_duplicate=True), Output("export-note", "children", allow_duplicate=True),
                  Output("sim-status", "children", allow_duplicate=True), Output("report-note", "children", allow_duplicate=True),
                  Output("curve-status", "children", allow_duplicate=True), Input("current", "data"), prevent_initial_call=True)
    def _clear_notes(_current):
        """A changed set-up: notes about the previous one (added, written, finished) go."""
        return "", "", "", "", ""


def _curve_callbacks(app: Dash, catalog: Catalog, runner: EventRunner) -> None:
    @app.callback(Output("load-graph", "figure"), Output("drives-graph", "figure"), Output("curve-note", "children"),
                  Input("current", "data"), Input("tab", "data"), Input("curve-event", "data"), State("sheets", "data"))
    @guard.client_data("current.data/curve-event.data/sheets.data")
    def _curves(current, tab, curve_event, sheets):
        if tab != "curves":
            return no_update, no_update, no_update
        return curve_figures(current, curve_event, datasheet.session_catalog(catalog, sheets))

    @app.callback(Output("job", "data", allow_duplicate=True), Output("poll", "disabled", allow_duplicate=True),
                  Output("curve-simulate", "disabled", allow_duplicate=True), Output("simulate", "disabled", allow_duplicate=True),
                  Output("curve-status", "children", allow_duplicate=True),
                  Input("curve-simulate", "n_clicks"), State("current", "data"), State("sheets", "data"), State("job", "data"),
                  prevent_initial_call=True)
    @guard.client_data("current.data/sheets.data/job.data")
    def _curve_simulate(_clicks, current, sheets, job):
        job, text = start_curve(current, sheets, catalog, runner, replaces=job_id_of(job))
        if job is None:
            return no_update, True, False, False, text
        return job, False, True, True, text


def _report_callbacks(app: Dash, catalog: Catalog) -> None:
    fields = [Input(f"report-{key}", "value") for key, _ in REPORT_FIELDS]

    @app.callback(Output("report-frame", "srcDoc"), Input("current", "data"), Input("event", "data"), Input("tab", "data"),
                  *fields, State("sheets", "data"))
    @guard.client_data("current.data/event.data/sheets.data")
    def _preview(current, event, tab, customer, project, when, sheets):
        if tab != "report":
            return no_update
        record = _reportable(current, event, catalog)
        if record is None:
            return "<p style='font-family:sans-serif'>No report: the set-up is invalid.</p>"
        return report.report_html(record, datasheet.session_catalog(catalog, sheets), **report_fields(customer, project, when))

    @app.callback(Output("download-report", "data"), Output("report-note", "children"),
                  Input("report-html", "n_clicks"), Input("report-pdf", "n_clicks"),
                  State("current", "data"), State("event", "data"), State("sheets", "data"),
                  *[State(f"report-{key}", "value") for key, _ in REPORT_FIELDS], prevent_initial_call=True)
    @guard.client_data("current.data/event.data/sheets.data")
    def _download(_h, _p, current, event, sheets, customer, project, when):
        record = _reportable(current, event, catalog)
        if record is None:
            return no_update, "nothing to report: the set-up is invalid"
        name = f"{record['scenario']['name']}-report"
        fields = report_fields(customer, project, when)
        text = report.report_html(record, datasheet.session_catalog(catalog, sheets), **fields)
        if dash.ctx.triggered_id == "report-html":
            return dcc.send_string(text, f"{name}.html"), f"wrote {name}.html"
        try:
            return dcc.send_bytes(report.report_pdf(text, fields["when"]), f"{name}.pdf"), f"wrote {name}.pdf"
        except InputError as exc:
            return no_update, exc.message


LINK_WAITING, LINK_SETTLED = "waiting", "settled"
"""States of the ``link-state`` store: the page's link not read yet, or read and applied (between
the two it holds the query of the set-up the link asked for, until that set-up's answer is shown)."""


def link_outputs(search: str | None, state: str | None, catalog: Catalog) -> tuple:
    """The controls, stores and note a link sets on page load (16 values), and the link state."""
    keep = (no_update,) * 16
    if state != LINK_WAITING:
        return (*keep, no_update, no_update)
    try:
        parsed = share.from_query(search)
        if parsed is None:
            return (*keep, "", LINK_SETTLED)
        sheets = parsed["sheets"]
        datasheet.session_catalog(catalog, sheets)
    except InputError as exc:
        return (*keep, f"the link was not read: {exc}", LINK_SETTLED)
    setup = core.default_setup(catalog) | parsed["setup"]
    custom, extras = parsed["custom"], parsed["extras"]
    values = [setup[key] for key in SETUP_KEYS]
    strip_at = SETUP_KEYS.index("strip_bytes")
    controls = values[:strip_at] + [core.strip_options(setup["strip_bytes"])] + values[strip_at:SETUP_KEYS.index("workload") + 1] \
        + [workload_options(custom)] + values[SETUP_KEYS.index("workload") + 1:]
    pending = share.to_query(setup, extras, custom, sheets)
    return (*controls, custom, extras, sheets, "", pending)


def url_outputs(current: dict | None, extras, custom, sheets, state: str | None, search: str | None) -> tuple:
    """(url search, link state) after a new answer: the address bar follows the set-up once the
    page's own link has been applied (a stale answer from before it does not overwrite it)."""
    if state == LINK_WAITING or state is None:
        return no_update, no_update
    if not valid(current) or not current.get("setup"):
        return no_update, (LINK_SETTLED if state != LINK_SETTLED else no_update)
    query = share.to_query(current["setup"], extras, custom, sheets)
    if state != LINK_SETTLED and query != state:
        return no_update, no_update  # an answer for the set-up before the link's
    return (query if query != search else no_update), (LINK_SETTLED if state != LINK_SETTLED else no_update)


def _link_callbacks(app: Dash, catalog: Catalog) -> None:
    controls = []
    for control in SETUP_CONTROLS:
        if control == "strip":
            controls.append(Output("strip", "options", allow_duplicate=True))
        controls.append(Output(control, "value", allow_duplicate=True))
        if control == "workload":
            controls.append(Output("workload", "options", allow_duplicate=True))

    @app.callback(*controls, Output("custom", "data", allow_duplicate=True), Output("extras", "data", allow_duplicate=True),
                  Output("sheets", "data", allow_duplicate=True), Output("url-note", "children"),
                  Output("link-state", "data", allow_duplicate=True),
                  Input("url", "search"), State("link-state", "data"), prevent_initial_call="initial_duplicate")
    def _from_link(search, state):
        return link_outputs(search, state, catalog)

    @app.callback(Output("url", "search"), Output("link-state", "data", allow_duplicate=True), Input("current", "data"),
                  State("extras", "data"), State("custom", "data"), State("sheets", "data"), State("link-state", "data"),
                  State("url", "search"), prevent_initial_call=True)
    @guard.client_data("current.data/extras.data/custom.data/sheets.data")
    def _to_link(current, extras, custom, sheets, state, search):
        return url_outputs(current, extras, custom, sheets, state, search)


def _datasheet_callbacks(app: Dash, catalog: Catalog) -> None:
    @app.callback(Output("drive", "options"), Input("sheets", "data"))
    @guard.client_data("sheets.data")
    def _drive_options(sheets):
        return drive_options(catalog, sheets)

    @app.callback(Output("sheets", "data", allow_duplicate=True), Output("drive", "value", allow_duplicate=True),
                  *[Output(f"{key}-error", "children") for key in DATASHEET_FIELDS], Output("ds-note", "children"),
                  Output("ds-note", "className"), Input("ds-add", "n_clicks"), *[State(key, "value") for key in DATASHEET_FIELDS], State("sheets", "data"),
                  prevent_initial_call=True)
    @guard.client_data("sheets.data")
    def _add(_clicks, *values):
        form, sheets = dict(zip(DATASHEET_FIELDS, values[:-1])), values[-1]
        new, name, errors, note = add_drive(form, sheets, catalog)
        return (new, name, *[errors.get(key, "") for key in DATASHEET_FIELDS], note,
                "field-error" if errors else "field-note ok")

    @app.callback(Output("download-drive", "data"), Output("ds-note", "children", allow_duplicate=True),
                  Input("ds-export", "n_clicks"), State("drive", "value"), State("sheets", "data"), prevent_initial_call=True)
    @guard.client_data("sheets.data")
    def _export(_clicks, drive, sheets):
        sheet = next((s for s in sheets or [] if s["name"] == drive), None)
        if sheet is None:
            return no_update, "choose one of your datasheet drives first"
        return dcc.send_string(datasheet.sheet_yaml(sheet), f"{drive}.yaml"), f"wrote {drive}.yaml (for models/drives/)"


def _tab_callbacks(app: Dash, tabs=None) -> None:
    tabs = tabs or app.nvsim_tabs

    @app.callback(*[Output(f"view-{key}", "style") for key, _ in tabs], *[Output(f"tab-{key}", "className") for key, _ in tabs],
                  Output("tab", "data"), *[Input(f"tab-{key}", "n_clicks") for key, _ in tabs], prevent_initial_call=True)
    def _tab(*_clicks):
        chosen = str(dash.ctx.triggered_id).removeprefix("tab-")
        return (*[{} if key == chosen else {"display": "none"} for key, _ in tabs],
                *["tab active" if key == chosen else "tab" for key, _ in tabs], chosen)
