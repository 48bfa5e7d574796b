"""Hunt 3's dashboard findings 2b, 17 and 18, held: text that is not Unicode (a lone surrogate) is
refused naming the control that sent it, not a 500 or a 400 blaming a store; the datasheet form
refuses control and formatting characters in its text, rates its drive's own link cannot carry,
idle power above active power and a price date the calendar lacks or that is still to come."""

import datetime
import json
import logging

import pytest
from dash._utils import to_json

from dashboard import app as dash_app, datasheet, guard, plan_view, share, views
from nvsim import InputError

SURROGATE = "\ud800"
"""A lone UTF-16 surrogate: JSON carries it ("\\ud800"), UTF-8 cannot encode it."""
PLAN = "requirements: {usable_bytes: 20 TB}\n# " + SURROGATE
FORM = {"ds-model": "X1", "ds-vendor": "Acme", "ds-capacity": "3.84 TB", "ds-dwpd": 1, "ds-seq-read": "7 GB/s",
        "ds-seq-write": "6 GB/s", "ds-rand-read": "1500K", "ds-rand-write": "300K", "ds-pcie": 4, "ds-nand": "TLC"}
"""A valid Gen4 drive (its link carries about 7.9 GB/s one way)."""
POWERED = {"ds-power-idle": "5", "ds-power-read": "20", "ds-power-write": "25"}


# ---------------------------------------------------------------- through the page's callback requests


@pytest.fixture(scope="module")
def app_client(catalog):
    app = dash_app.create_app(catalog, warm=False)
    app.nvsim_runner.start = lambda *args, **kwargs: "job-under-test"
    app.nvsim_plans.start = lambda *args, **kwargs: "plan-under-test"
    deps = {d["output"]: d for d in app.server.test_client().get("/_dash-dependencies").get_json()}
    yield app.server.test_client(), deps
    app.nvsim_runner.shutdown()
    app.nvsim_plans.shutdown()


@pytest.fixture(scope="module")
def current(catalog):
    """A results record as the browser holds it (through Dash's JSON)."""
    record = dash_app.on_change(catalog, "supermicro-as-2125hs-tnr", "kioxia-cm7-r-3.84tb", 8, "full", "", 6, 65536,
                                "linux-md", "randread-4k", None, None, None, None)[-1]
    assert record["errors"] == {}
    return json.loads(to_json(record))


def _dep(deps, first_output: str) -> dict:
    return next(d for out, d in deps.items() if out.strip(".").split("...")[0].split("@")[0] == first_output)


def _add_drive(deps) -> dict:
    """The Add-drive button's callback (its first output, the sheets store, is shared with others)."""
    return next(d for d in deps.values() if any(i["id"] == "ds-add" for i in d["inputs"]))


def _post(client, dep: dict, values: dict, changed: tuple[str, ...] = ()) -> tuple[int, str]:
    """The callback request a browser sends, each input and state from ``values`` ("id.property");
    JSON escapes a lone surrogate as "\\ud800", as a browser's JSON.stringify does."""
    outputs = [o.split("@")[0] for o in dep["output"].strip(".").split("...")]
    listed = {key: [dict(i, value=values.get(f"{i['id']}.{i['property']}")) for i in dep[key]] for key in ("inputs", "state")}
    body = {"output": dep["output"], "outputs": [{"id": o.rsplit(".", 1)[0], "property": o.rsplit(".", 1)[1]} for o in outputs],
            "inputs": listed["inputs"], "state": listed["state"], "changedPropIds": list(changed)}
    if not dep["output"].startswith(".."):
        body["outputs"] = body["outputs"][0]
    response = client.post("/_dash-update-component", data=json.dumps(body), content_type="application/json")
    return response.status_code, response.get_data(as_text=True)


def _refused(status: int, text: str, field: str) -> str:
    """The one-line 400 naming ``field``."""
    assert status == 400, text[:300]
    message = json.loads(text)["error"]
    assert message.startswith(f"{field}: must be Unicode text, got the lone surrogate U+D800"), message
    assert "\n" not in message and len(message) <= guard.MESSAGE_CHARS and SURROGATE not in message
    return message


def test_a_lone_surrogate_in_the_plan_text_is_a_400_naming_it(app_client, caplog):
    """It was a 500: writing the text to the plan's file raised UnicodeEncodeError."""
    client, deps = app_client
    with caplog.at_level(logging.WARNING):
        status, text = _post(client, _dep(deps, "plan-job.data"), {"plan-run.n_clicks": 1, "plan-text.value": PLAN},
                             ("plan-run.n_clicks",))
    _refused(status, text, "plan-text.value")
    assert not any(r.exc_info for r in caplog.records)


@pytest.mark.parametrize("output, values, changed", [
    ("download-report.data", {"report-pdf.n_clicks": 1}, ("report-pdf.n_clicks",)),
    ("download-report.data", {"report-html.n_clicks": 1}, ("report-html.n_clicks",)),
    ("report-frame.srcDoc", {"tab.data": "report"}, ("report-customer.value",)),
], ids=["pdf", "html", "preview"])
@pytest.mark.parametrize("field", ["customer", "project", "date"])
def test_a_lone_surrogate_in_a_report_field_names_that_field_not_the_stores(app_client, current, output, values, changed, field):
    client, deps = app_client
    form = {"current.data": current, f"report-{field}.value": f"Acme {SURROGATE}", **values}
    changed = tuple(c.replace("customer", field) for c in changed)
    _refused(*_post(client, _dep(deps, output), form, changed), f"report-{field}.value")


def test_a_lone_surrogate_in_a_datasheet_box_or_a_store_names_it(app_client, current):
    client, deps = app_client
    form = {"ds-add.n_clicks": 1, **{f"{k}.value": v for k, v in FORM.items()}, "ds-model.value": "X" + SURROGATE}
    _refused(*_post(client, _add_drive(deps), form, ("ds-add.n_clicks",)), "ds-model.value")
    compare = [{"label": "A " + SURROGATE, "record": current}]
    message = _refused(*_post(client, _dep(deps, "compare-table.children"), {"compare.data": compare}, ("compare.data",)),
                       "compare.data")
    assert message.endswith(" at 0.label")


def test_a_datasheet_model_with_a_control_character_is_refused_under_its_box(app_client):
    """Through the Add-drive button: the field's own one-line error, and no sheet to share."""
    client, deps = app_client
    form = {"ds-add.n_clicks": 1, **{f"{k}.value": v for k, v in FORM.items()}, "ds-model.value": "X\u202e1"}
    status, text = _post(client, _add_drive(deps), form, ("ds-add.n_clicks",))
    assert status == 200, text[:300]
    response = json.loads(text)["response"]
    assert "sheets" not in response
    assert response["ds-model-error"]["children"] == "Model: must be printable text, got the control or formatting character U+202E"


# ---------------------------------------------------------------- the shared check and where text enters


def test_the_unicode_check_names_the_character_and_where_it_lies():
    assert guard.not_unicode("PM1743 7.68 TB, ünïcödé, 日本, \U0001F600") is None
    assert guard.not_unicode("a\udfffb") == "must be Unicode text, got the lone surrogate U+DFFF (half of a UTF-16 pair)"
    assert guard.not_unicode_at({"a": [1, "ok", {"b": "x" + SURROGATE}]}).endswith("U+D800 (half of a UTF-16 pair) at a.2.b")
    assert guard.not_unicode_at({SURROGATE: 1}) is not None  # a key is text the client sent too
    assert guard.not_unicode_at({"a": [1.5, None, True, "fine"]}) is None
    with pytest.raises(guard.PayloadError, match=r"^report-customer\.value: must be Unicode text"):
        guard.check_value("report-customer", "value", SURROGATE)
    guard.check_value("report-customer", "value", "Acme GmbH")


def test_a_refusal_that_repeats_a_surrogate_can_be_logged_and_sent():
    message = str(guard.PayloadError("extras.data", f"no field {SURROGATE}"))
    assert message == "extras.data: no field \\ud800"
    message.encode("utf-8")


def test_the_plan_view_refuses_a_surrogate_in_one_line_naming_the_requirements():
    """check_text and plan_from_text are the view's entry points (the runner's worker too): they
    raised UnicodeEncodeError."""
    said = plan_view.check_text(PLAN)
    assert said == "requirements: must be Unicode text, got the lone surrogate U+D800 (half of a UTF-16 pair)"
    assert plan_view.plan_from_text(PLAN) == {"error": said}


def test_the_report_fields_refuse_a_surrogate_naming_the_field():
    with pytest.raises(guard.PayloadError, match=r"^report-project\.value: must be Unicode text"):
        views.report_fields("Acme", SURROGATE, "")
    assert views.report_fields("Acme", "P1", " ") == {"customer": "Acme", "project": "P1", "when": None}


# ---------------------------------------------------------------- 17: control characters in the datasheet's text


def _errors(catalog, changes: dict) -> dict:
    """The form's field errors with ``changes`` (none: the drive is added)."""
    form = dict(FORM, **changes)
    _sheets, _name, errors, _note = views.add_drive(form, [], catalog)
    assert all("\n" not in message for message in errors.values())
    return errors


@pytest.mark.parametrize("character", ["\x1b", "\u202e", "\n", "\x00", "\t", "\u2028", "\u2029", "\u200b"],
                         ids=["ESC", "RLO", "newline", "NUL", "tab", "Zl", "Zp", "ZWSP"])
@pytest.mark.parametrize("key, label", [("ds-model", "Model"), ("ds-vendor", "Vendor")])
def test_a_control_or_format_character_in_the_model_or_vendor_is_refused(catalog, key, label, character):
    errors = _errors(catalog, {key: f"A{character}B"})
    assert errors == {key: f"{label}: must be printable text, got the control or formatting character U+{ord(character):04X}"}


def test_a_trailing_newline_is_refused_too(catalog):
    """The sheet keeps the text as typed (the drive selector shows it, the link carries it)."""
    assert set(_errors(catalog, {"ds-model": "X1\n"})) == {"ds-model"}


def test_a_shared_link_carrying_such_a_sheet_is_refused(catalog):
    sheet = {"name": "datasheet-x-1", **FORM, "ds-model": "X\u202e1"}
    link = share.to_query({"drive": "datasheet-x-1"}, sheets=[sheet])
    with pytest.raises(InputError) as refused:
        share.from_query("?" + link)
    assert refused.value.field == "ds-model" and "U+202E" in str(refused.value)


def test_printable_names_are_still_taken(catalog):
    assert _errors(catalog, {"ds-model": "PM1743 7.68 TB (Gen4)", "ds-vendor": "Samsung Électronique 三星"}) == {}


# ---------------------------------------------------------------- 18: figures that contradict each other


@pytest.mark.parametrize("changes, key, words", [
    ({"ds-seq-read": "100 GB/s"}, "ds-seq-read", "Sequential read: 100.00 GB/s; its PCIe Gen4 x4 link carries at most 7.88 GB/s"),
    ({"ds-seq-write": "9 GB/s"}, "ds-seq-write", "Sequential write: 9.00 GB/s; its PCIe Gen4 x4 link"),
    ({"ds-rand-read": "2500K"}, "ds-rand-read", "4K random read IOPS: 10.24 GB/s; its PCIe Gen4 x4 link"),
    ({"ds-pcie": 3}, "ds-seq-read", "Sequential read: 7.00 GB/s; its PCIe Gen3 x4 link carries at most 3.94 GB/s"),
    ({"ds-pcie": 1}, "ds-pcie", "PCIe: generation 1 has no link constants in the catalog; allowed: 3, 4, 5, 6"),
    ({**POWERED, "ds-power-idle": "70", "ds-power-read": "5", "ds-power-write": "5"}, "ds-power-idle",
     "Idle power (W): 70 W is above Active read power (W) (5 W)"),
    ({**POWERED, "ds-power-idle": "21"}, "ds-power-idle", "Idle power (W): 21 W is above Active read power (W) (20 W)"),
    ({"ds-price": "1200", "ds-price-date": "2024-13"}, "ds-price-date", "Price date: '2024-13' is not a date of the calendar"),
    ({"ds-price": "1200", "ds-price-date": "2024-00"}, "ds-price-date", "Price date: '2024-00' is not a date of the calendar"),
    ({"ds-price": "1200", "ds-price-date": "2023-02-29"}, "ds-price-date", "Price date: '2023-02-29' is not a date of the calendar"),
    ({"ds-price": "1200", "ds-price-date": "2999-12"}, "ds-price-date", "Price date: '2999-12' is after today"),
], ids=["seq-read-past-gen4", "seq-write-past-gen4", "iops-past-gen4", "gen3-at-7GBs", "gen1", "idle-above-active",
        "idle-above-read", "month-13", "month-0", "feb-29-2023", "future"])
def test_a_contradicting_figure_is_one_line_under_its_field(catalog, changes, key, words):
    errors = _errors(catalog, changes)
    assert list(errors) == [key] and errors[key].startswith(words), errors


def test_agreeing_figures_are_still_taken(catalog):
    """Each link's own figures up to its rate, idle equal to active, this month, a leap day, and
    a Gen6 drive (its link runs at its bay's generation: held to the fastest link only)."""
    today = datetime.date.today()
    for changes in ({"ds-seq-read": "7.8 GB/s", "ds-rand-read": "1900K"}, {"ds-pcie": 5, "ds-seq-read": "14.5 GB/s"},
                    {"ds-pcie": 3, "ds-seq-read": "3.5 GB/s", "ds-seq-write": "3 GB/s", "ds-rand-read": "900K"},
                    {"ds-pcie": 6, "ds-seq-read": "28 GB/s"}, {**POWERED, "ds-power-idle": "20"},
                    {"ds-price": "1200", "ds-price-date": today.strftime("%Y-%m")},
                    {"ds-price": "1200", "ds-price-date": today.isoformat()}, {"ds-price": "1200", "ds-price-date": "2024-02-29"}):
        assert _errors(catalog, changes) == {}, changes


def test_a_shared_link_with_a_contradicting_sheet_is_refused(catalog):
    sheet = {"name": "datasheet-x1", **FORM, "ds-seq-read": "100 GB/s"}
    with pytest.raises(InputError) as refused:
        share.from_query("?" + share.to_query({"drive": "datasheet-x1"}, sheets=[sheet]))
    assert refused.value.field == "ds-seq-read" and "link carries at most" in str(refused.value)
    assert datasheet.LABELS["ds-seq-read"] == "Sequential read"
