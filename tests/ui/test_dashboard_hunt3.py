"""Hunt 3's dashboard findings, held: a shipped example named by the server's absolute path is
refused like any other name (no probe of the install path); a store number that overflows is a
400, not a 500, and nvsim's formatters are total; a scenario upload with a field the dashboard
cannot hold (faults, hot spares, a topology, volumes) is refused in one line, not loaded without it."""

import base64
import json
import logging
import math

import pytest
import yaml
from dash._utils import to_json

from dashboard import app as dash_app, core, guard, plan_view
from dashboard.client_files import ClientFiles, plain_relative
from nvsim import InputError, parse_scenario
from nvsim.shipped import SOURCE_TREE
from nvsim.units import (format_bytes_binary, format_bytes_decimal, format_count, format_exact, format_large,
                         format_probability, format_rate_decimal, format_significant, format_value)

EXAMPLE = "scenarios/graid-gen5-raid6/job.fio"
MISSING = "scenarios/graid-gen5-raid6/nope.fio"


# ---------------------------------------------------------------- 1: absolute names are refused alike


def _refusal(files: ClientFiles, name: str, naming: str = "plan.yaml") -> str:
    with pytest.raises(InputError) as refused:
        files(name, naming)
    message = str(refused.value)
    assert "\n" not in message
    return message


def test_an_absolute_path_to_a_shipped_example_is_refused_like_one_to_nothing():
    files = ClientFiles()
    real, missing = str(SOURCE_TREE / EXAMPLE), str(SOURCE_TREE / MISSING)
    assert (SOURCE_TREE / EXAMPLE).is_file() and not (SOURCE_TREE / MISSING).exists()
    said = {name: _refusal(files, name).replace(repr(name), "NAME")
            for name in (real, missing, "/opt/nvsim/" + EXAMPLE, "/" + EXAMPLE)}
    assert len(set(said.values())) == 1, said  # the same line, whether or not a file is there
    assert "is not a shipped example" in said[real] and str(SOURCE_TREE) not in said[real].replace("NAME", "")
    assert files(EXAMPLE, "plan.yaml")[0] == EXAMPLE  # the relative name still opens it


def test_a_job_file_named_by_an_absolute_path_does_not_reach_its_folder():
    """A client-named job file's folder (``naming_path``) is used only when it is a plain relative
    path: an absolute one would answer whether the install path was guessed."""
    files = ClientFiles()
    beside_real = _refusal(files, "job.fio", str(SOURCE_TREE / "scenarios/graid-gen5-raid6/up.fio"))
    beside_none = _refusal(files, "job.fio", "/opt/nvsim/scenarios/graid-gen5-raid6/up.fio")
    assert beside_real == beside_none
    assert files("job.fio", "scenarios/graid-gen5-raid6/up.fio")[0] == EXAMPLE


@pytest.mark.parametrize("name", [
    "/etc/passwd", "../" + EXAMPLE, "scenarios/../" + EXAMPLE, "~/" + EXAMPLE, "~root/x", "C:/nvsim/" + EXAMPLE,
    "C:" + EXAMPLE, EXAMPLE.replace("/", "\\"), EXAMPLE + "\0", "",
])
def test_names_that_are_not_plain_relative_paths_are_refused_unopened(name):
    assert not plain_relative(name)
    assert "is not a shipped example" in _refusal(ClientFiles(), name)


def test_the_plan_view_refuses_an_absolute_fio_path_alike():
    text = ("requirements:\n  usable_bytes: 20 TB\n  workloads:\n    - {name: rr, fio: %s, job: randread-b4k-j192-d32, min_iops: 1M}\n"
            "search: {platforms: [supermicro-as-2125hs-tnr], drives: [kioxia-cm7-r-3.84tb], engines: [linux-md], "
            "drive_counts: [8], levels: [6], strips_bytes: [64KiB]}\nconfirm: 0\n")
    real, missing = str(SOURCE_TREE / EXAMPLE), str(SOURCE_TREE / MISSING)
    said = [plan_view.check_text(text % name).replace(name, "NAME") for name in (real, missing)]
    assert said[0] == said[1] and said[0].startswith("requirements.workloads[0].fio: 'NAME' is not a shipped example")
    assert plan_view.check_text(text % EXAMPLE) is None


def test_a_fio_upload_replaying_an_absolute_trace_path_is_refused_alike(catalog):
    scenario = core.compute(core.default_setup(catalog), catalog=catalog)["scenario"]
    trace = "tests/data/fio/traces/fio-v3.iolog"
    said = []
    for name in (str(SOURCE_TREE / trace), str(SOURCE_TREE / "tests/data/fio/traces/nope.iolog")):
        with pytest.raises(InputError) as refused:
            core.import_fio(f"[j]\nrw=read\nbs=1m\nread_iolog={name}\n", "up.fio", scenario, catalog)
        said.append(str(refused.value).replace(name, "NAME"))
    assert said[0] == said[1] and "\n" not in said[0]
    assert core.import_fio(f"[j]\nrw=read\nbs=1m\nread_iolog={trace}\n", "up.fio", scenario, catalog)["workloads"]


# ---------------------------------------------------------------- 2: overflowing store numbers are 400s


@pytest.fixture(scope="module")
def app_client(catalog):
    from dashboard.app import create_app

    app = create_app(catalog, warm=False)
    app.nvsim_runner.start = lambda *args, **kwargs: "job-under-test"
    deps = {d["output"]: d for d in app.server.test_client().get("/_dash-dependencies").get_json()}
    yield app.server.test_client(), deps
    app.nvsim_runner.shutdown()


def _dep(deps, first_output: str) -> dict:
    return next(d for out, d in deps.items() if out.startswith(f"..{first_output}.") or out == first_output)


def _post(client, dep: dict, values: dict, changed: tuple[str, ...] = ()) -> tuple[int, str]:
    """The callback request a browser sends, each input and state from ``values`` ("id.property")."""
    outputs = [o.split("@")[0] for o in dep["output"].strip(".").split("...")]
    listed = {key: [dict(i, value=values.get(f"{i['id']}.{i['property']}")) for i in dep[key]] for key in ("inputs", "state")}
    body = {"output": dep["output"], "outputs": [{"id": o.rsplit(".", 1)[0], "property": o.rsplit(".", 1)[1]} for o in outputs],
            **{"inputs": listed["inputs"], "state": listed["state"]}, "changedPropIds": list(changed)}
    if not dep["output"].startswith(".."):
        body["outputs"] = body["outputs"][0]
    response = client.post("/_dash-update-component", data=json.dumps(body, allow_nan=True), content_type="application/json")
    return response.status_code, response.get_data(as_text=True)


@pytest.fixture(scope="module")
def current(catalog):
    """A results record as the browser holds it (through Dash's JSON)."""
    record = dash_app.on_change(catalog, "supermicro-as-2125hs-tnr", "kioxia-cm7-r-3.84tb", 8, "full", "", 6, 65536,
                                "linux-md", "randread-4k", None, None, None, None)[-1]
    assert record["errors"] == {} and record["rebuild"]["mttdl_years"] > 0
    return json.loads(to_json(record))


def _changed(record: dict, path: tuple[str, ...], value) -> dict:
    out = json.loads(json.dumps(record))
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


CALLBACKS = (("report-frame.srcDoc", lambda r: {"current.data": r, "tab.data": "report"}),
             ("cards.children", lambda r: {"current.data": r}),
             ("compare-table.children", lambda r: {"compare.data": [{"label": "A", "record": r}]}),
             ("download-report.data", lambda r: {"current.data": r, "report-html.n_clicks": 1}))
"""Callbacks that read a results record (the report preview, the main cards, the comparison table,
the report download): (first output, the request's values)."""
CHANGED = {"download-report.data": ("report-html.n_clicks",)}


@pytest.mark.parametrize("path, value", [
    (("rebuild", "mttdl_years"), math.inf), (("rebuild", "data_loss_probability"), math.nan),
    (("scenario", "array", "strip_bytes"), math.inf), (("scenario", "array", "strip_bytes"), -math.inf),
    (("rebuild", "rebuild_hours"), 10**400),
], ids=["mttdl-inf", "risk-nan", "strip-inf", "strip-minus-inf", "hours-400-digits"])
@pytest.mark.parametrize("output, values", CALLBACKS, ids=[c[0] for c in CALLBACKS])
def test_a_store_number_that_is_not_finite_is_a_400_in_one_line(app_client, current, caplog, path, value, output, values):
    client, deps = app_client
    with caplog.at_level(logging.WARNING):
        status, text = _post(client, _dep(deps, output), values(_changed(current, path, value)), CHANGED.get(output, ()))
    assert status == 400, text[:300]
    message = json.loads(text)["error"]
    assert ".".join(path) in message and "not finite" in message and "\n" not in message
    assert len(message) <= guard.MESSAGE_CHARS
    assert not any(r.exc_info for r in caplog.records)


def test_the_event_store_is_checked_alike(app_client, current):
    client, deps = app_client
    event = {"key": current["key"], "workloads": current["workloads"], "rebuild": dict(current["rebuild"], mttdl_years=math.inf)}
    status, text = _post(client, _dep(deps, "cards.children"), {"current.data": current, "event.data": event})
    assert status == 400 and "event.data" in json.loads(text)["error"]


@pytest.mark.parametrize("output, values", CALLBACKS, ids=[c[0] for c in CALLBACKS])
def test_a_tiny_risk_whose_odds_pass_any_float_is_answered(app_client, current, output, values):
    """data_loss_probability 1e-320 is a plain JSON number; 1/p is infinite (it was a 500)."""
    client, deps = app_client
    record = _changed(current, ("rebuild", "data_loss_probability"), 1e-320)
    status, text = _post(client, _dep(deps, output), values(record), CHANGED.get(output, ()))
    assert status == 200, text[:300]
    if output != "download-report.data":
        assert "1 in 1.0×10³²⁰" in json.dumps(json.loads(text), ensure_ascii=False)


@pytest.mark.parametrize("error", [OverflowError("cannot convert float infinity to integer"),
                                   ZeroDivisionError("float division by zero"), ArithmeticError("x")])
def test_the_guard_answers_arithmetic_errors_as_bad_requests(error):
    def reads(_record):
        raise error

    with pytest.raises(guard.PayloadError) as refused:
        guard.client_data("current.data")(reads)({})
    assert str(refused.value).startswith("current.data: cannot be read") and "\n" not in str(refused.value)


def test_the_store_check_names_where_the_number_is_and_passes_finite_ones(current):
    guard.check_value("current", "data", current)
    assert guard.not_finite_at({"a": [1, 2.5, {"b": 1e308}], "c": -1e-320, "d": True}) is None
    assert guard.not_finite_at({"a": [0, {"b": math.nan}]}) == "a.1.b"
    assert guard.not_finite_at(math.inf) == "the value"
    with pytest.raises(guard.PayloadError, match=r"^extras\.data: .* at seed$"):
        guard.check_value("extras", "data", {"seed": 10**400})
    with pytest.raises(guard.PayloadError) as refused:
        guard.check_value("compare", "data", [{"label": "A", "record": {"capacity": {"line\nbreak": math.inf}}}])
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 1e-320, 5e-324, 1e308, -1e308, 1.7976931348623157e308, 10**400],
                         ids=["inf", "-inf", "nan", "1e-320", "5e-324", "1e308", "-1e308", "max", "400-digits"])
@pytest.mark.parametrize("formatter", [
    format_large, format_probability, format_significant, format_count, format_bytes_decimal, format_bytes_binary,
    format_rate_decimal, format_exact, lambda v: format_value(v, "B/s"), lambda v: format_value(v, "IOPS"),
    lambda v: format_value(v, "percent"), lambda v: format_value(v, "bytes"), lambda v: format_value(v, "years"),
    core.fmt_large, core.fmt_probability, core.fmt_bytes,
])
def test_the_number_formatters_are_total(formatter, value):
    text = formatter(value)
    assert isinstance(text, str) and text and "\n" not in text and "inf" not in text.lower() and "nan" not in text.lower()


def test_non_finite_numbers_read_as_words_and_tiny_risks_as_odds():
    assert [format_large(v) for v in (math.inf, -math.inf, math.nan)] == ["never", "-", "-"]
    assert [format_significant(v) for v in (math.inf, -math.inf, math.nan)] == ["never", "-", "-"]  # as before
    assert [format_probability(v) for v in (math.inf, math.nan, 1e308)] == ["-", "-", "-"]
    assert format_probability(1e-320) == "1 in 1.0×10³²⁰" and format_probability(3e-320) == "1 in 3.3×10³¹⁹"
    assert format_probability(2e-10) == "1 in 5.00 billion" and format_probability(0.025) == "2.50%"  # as before
    assert format_large(1e308) == "1.0×10³⁰⁸" and format_large(3.13e11) == "313 billion"
    assert format_large(10**400) == "1.0×10⁴⁰⁰" and format_bytes_decimal(10**400) == "1.0×10⁴⁰⁰ B"
    assert format_rate_decimal(math.inf) == "never" and format_bytes_decimal(math.nan) == "-"


# ---------------------------------------------------------------- 10: what an upload cannot carry is refused


BASE = {"name": "import-drops", "platform": "supermicro-as-2125hs-tnr",
        "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB", "engine": "linux-md"},
        "workloads": [{"name": "randread", "rw": "randread", "bs": "4k", "iodepth": 32, "numjobs": 8, "runtime": 60}]}


def _with(**changes) -> dict:
    data = json.loads(json.dumps(BASE))
    for key, value in changes.items():
        if key.startswith("array_"):
            data["array"][key[len("array_"):]] = value
        else:
            data[key] = value
    return data


def _import(data: dict, catalog) -> dict:
    return core.import_scenario(yaml.safe_dump(data, sort_keys=False), "up.yaml", catalog)


@pytest.mark.parametrize("changes, field, words", [
    ({"array_hot_spares": 2}, "array.hot_spares", "no hot spares"),
    ({"array_unclean_shutdown": True}, "array.unclean_shutdown", "no resync after a power loss"),
    ({"faults": [{"at_s": 0, "drive": 0, "action": "fail"}]}, "faults", "as built, without a failure"),
    ({"topology": {"switches": {"model": "broadcom-pex89104", "count": 1, "uplink_lanes": 8}}}, "topology", "platform's own bays"),
    ({"volumes": [{"name": "v1", "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 2, "engine": "linux-md"},
                   "workload": "randread"}]}, "volumes", "one array"),
])
def test_a_field_the_dashboard_cannot_hold_refuses_the_upload_in_one_line(catalog, changes, field, words):
    data = _with(**changes)
    parse_scenario(data, catalog)  # `nvsim run` takes it
    with pytest.raises(InputError) as refused:
        _import(data, catalog)
    message = str(refused.value)
    assert message.startswith(f"up.yaml: {field}: ") and words in message and "nvsim run" in message
    assert "\n" not in message


def test_the_hunts_file_is_refused_at_its_first_unheld_field(catalog):
    with pytest.raises(InputError, match=r"^dash-import-dropped\.yaml: array\.hot_spares: .*run this file with nvsim run"):
        core.import_scenario(yaml.safe_dump(_with(array_hot_spares=2, faults=[{"at_s": 0, "drive": 0, "action": "fail"}],
                                                  topology={"switches": {"model": "broadcom-pex89104"}})),
                             "dash-import-dropped.yaml", catalog)


@pytest.mark.parametrize("changes", [
    {"array_hot_spares": 0}, {"faults": []}, {"volumes": []}, {"topology": {}}, {"array_rebuild": {}},
    {"description": "words", "source": "seed-000"},
])
def test_a_field_at_its_default_or_empty_still_loads(catalog, changes):
    loaded = _import(_with(**changes), catalog)
    assert loaded["setup"]["drives"] == 8 and "rebuild" not in loaded["extras"]


def test_an_imported_rebuild_throttle_is_carried_while_its_engine_is_chosen(catalog):
    """The rebuild throttle paces the rebuild and scrub the dashboard shows: carried, not dropped."""
    limits = {"speed_limit_min_kib_per_s": 50000, "speed_limit_max_kib_per_s": 100000}
    loaded = _import(_with(array_rebuild=limits), catalog)
    assert loaded["extras"]["rebuild"] == {"engine": "linux-md", "values": {k: float(v) for k, v in limits.items()}}
    guard.check_value("extras", "data", json.loads(to_json(loaded["extras"])))
    data = core.scenario_dict(loaded["setup"], loaded["custom"], loaded["extras"], catalog)
    assert parse_scenario(data, catalog).array == parse_scenario(_with(array_rebuild=limits), catalog).array
    other = core.scenario_dict(dict(loaded["setup"], engine="graid-supremeraid-sr1010"), loaded["custom"], loaded["extras"], catalog)
    assert "rebuild" not in other["array"]  # md's limits are not another engine's
    raid0 = core.scenario_dict(dict(loaded["setup"], level=0), loaded["custom"], loaded["extras"], catalog)
    assert "rebuild" not in raid0["array"]  # RAID0 rebuilds nothing: its limits would be refused
    parse_scenario(raid0, catalog)


@pytest.mark.parametrize("path", ["scenarios/graid-gen5-raid6/md-raid6-4k.yaml", "scenarios/scrub/md-raid5-fast.yaml"])
def test_the_shipped_scenarios_the_dashboard_tests_import_still_load_whole(catalog, path):
    text = (SOURCE_TREE / path).read_text()
    loaded = core.import_scenario(text, path.rsplit("/", 1)[1], catalog)
    data = core.scenario_dict(loaded["setup"], loaded["custom"], loaded["extras"], catalog)
    again, original = parse_scenario(data, catalog), parse_scenario(yaml.safe_load(text), catalog)
    assert again.array == original.array and again.workloads == original.workloads and again.placement == original.placement


def test_the_upload_callback_shows_the_refusal_beside_the_button(app_client):
    client, deps = app_client
    dep = _dep(deps, "platform.value")
    text = yaml.safe_dump(_with(faults=[{"at_s": 0, "drive": 0, "action": "fail"}]))
    contents = "data:application/x-yaml;base64," + base64.b64encode(text.encode()).decode()
    status, answer = _post(client, dep, {"scenario-upload.contents": contents, "scenario-upload.filename": "up.yaml",
                                         "workload.value": "randread-4k"})
    assert status == 200, answer[:300]
    note = json.loads(answer)["response"]["import-note"]["children"]
    assert note.startswith("up.yaml: faults: the dashboard simulates the array as built") and "\n" not in note


# ---------------------------------------------------------------- a phase is solved once

def test_the_results_of_a_phase_come_from_one_solve_of_it(monkeypatch):
    """Flow-weighted jobs of one phase (an uploaded fio file's) each ran the whole phase on the
    request thread (256 of them: minutes); the record is made from one solve, each job's numbers
    what its own run gives."""
    from nvsim import Simulation, default_catalog
    from nvsim.workload import compose

    catalog = default_catalog()
    data = core.scenario_dict(core.default_setup(), catalog=catalog)
    base = data["workloads"][0]
    data["workloads"] = [dict(base, name=f"j{i}", phase="p", flow=i + 1, numjobs=2, iodepth=2) for i in range(4)]
    spec = parse_scenario(data, catalog)
    solves = []
    real = compose.ROWS["phase"]
    monkeypatch.setitem(compose.ROWS, "phase", lambda job: solves.append(job.workload.name) or real(job))
    record = core.evaluate(data, spec, catalog, rebuild=False)
    assert solves == ["p"] and [w["name"] for w in record["workloads"]] == ["j0", "j1", "j2", "j3"]
    for workload, row in zip(spec.workloads, record["workloads"]):
        own = Simulation(spec, workload, catalog=catalog).run("fluid")
        assert row["total_iops"] == own.read_iops + own.write_iops, workload.name


def test_a_value_of_any_other_unit_is_written_without_e_notation():
    assert format_value(1234567.0, "furlongs") == "1,234,567" and format_value(12.3456, "ms") == "12.35"
    assert format_value(math.nan, "IOPS") == "-" and format_value(math.inf, "years") == "never"
