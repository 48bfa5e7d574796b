"""The dashboard's logic without a browser: set-up -> scenario, validation messages per control,
uploads (size limit, data only), exports that `nvsim run` reads unchanged, the wear formula, and
the rebuild fallback. tests/ui/test_dashboard_browser.py drives the real page."""

import base64
import contextlib
import csv
import io
import json
import sys
import tempfile
import zipfile

import pytest
import yaml

from dashboard import app as dash_app, core
from nvsim import InputError, Simulation, capacity, load_scenario, parse_scenario
from nvsim.simulation import HOST_IOS_MAX
from nvsim.wear import drive_wear


def setup(**changes):
    return core.default_setup() | changes


SLOW = "randwrite-4k"
"""A set-up whose event-mode run at ``HOST_IOS_MAX`` takes longer than the time-out tests wait
(10^7 RAID6 small writes, each a read-modify-write of its members), within the work budget that
``Simulation.run`` checks (1 MiB writes at 10^7 host I/Os plan 3 x 10^9 member pages: refused)."""


def data_url(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


def test_default_setup_is_the_reference_array_and_its_numbers_are_the_simulators(catalog):
    record = core.compute(setup(), catalog=catalog)
    assert record["errors"] == {}
    spec = parse_scenario(record["scenario"], catalog)
    assert (spec.array.drives, spec.array.level, spec.array.engine) == (24, 6, "graid-supremeraid-sr1010")
    assert record["capacity"]["usable_bytes"] == 84_480_000_000_000
    fluid = Simulation(spec, spec.workloads[0], catalog=catalog).run("fluid")
    shown = record["workloads"][0]
    assert shown["total_iops"] == pytest.approx(fluid.total_iops, rel=1e-12)
    assert shown["bottleneck"] == fluid.bottleneck
    assert set(shown["utilisation"]) == {u.resource for u in fluid.utilisation}
    assert [b["metric"] for b in record["bounds"]] == ["4K random read", "4K random write", "128K sequential read", "128K sequential write"]


def test_drive_count_changes_capacity_and_the_key(catalog):
    a = core.compute(setup(drives=24), catalog=catalog)
    b = core.compute(setup(drives=12), catalog=catalog)
    assert b["capacity"]["usable_bytes"] == 10 * 3_840_000_000_000
    assert a["key"] != b["key"]


@pytest.mark.parametrize("changes, control, words", [
    ({"drives": 3}, "drives", "RAID6 needs at least 4 drives, got 3"),
    ({"namespace_mode": "size", "namespace_value": "10 TB"}, "namespace", "larger than the drive"),
    ({"namespace_mode": "size", "namespace_value": "lots"}, "namespace", "namespace_bytes"),
    ({"namespace_mode": "op", "namespace_value": "120"}, "namespace", "over-provisioning must be 0 to under 100"),
    ({"numjobs": 2.5}, "numjobs", "jobs must be a whole number"),
    ({"iodepth": 0}, "iodepth", "iodepth"),
    ({"drives": None}, "drives", "enter the number of drives"),
    ({"engine": "none", "level": 6}, "engine", "supports RAID levels [0]"),
    ({"workload": core.FILE_WORKLOADS}, "workload", "upload a fio job file"),
])
def test_invalid_input_is_one_line_routed_to_its_control(catalog, changes, control, words):
    record = core.compute(setup(**changes), catalog=catalog)
    assert list(record["errors"]) == [control]
    message = record["errors"][control]
    assert words in message and "\n" not in message


def test_over_provisioning_shrinks_the_namespace_and_stretches_the_drives_life(catalog):
    full = core.compute(setup(workload="randwrite-4k"), catalog=catalog)
    op = core.compute(setup(workload="randwrite-4k", namespace_mode="op", namespace_value="20"), catalog=catalog)
    member = int(3_840_000_000_000 * 0.8) // 4096 * 4096
    assert op["scenario"]["array"]["namespace_bytes"] == member
    assert op["capacity"]["usable_bytes"] == capacity(parse_scenario(op["scenario"], catalog), catalog).usable_bytes
    assert op["workloads"][0]["waf_nand"] < full["workloads"][0]["waf_nand"]
    assert op["workloads"][0]["wear"]["lifetime_years"] > full["workloads"][0]["wear"]["lifetime_years"]


def test_wear_formula(catalog):
    drive = catalog.drives["kioxia-cm7-r-3.84tb"]
    from nvsim.ssd.derive import derive_ssd_parameters
    rated_waf = derive_ssd_parameters(drive).waf_at_capacity
    w = drive_wear(catalog, drive.name, drives=24, host_write_bytes_per_s=2.4e9, raid_waf=3.0, waf_nand=2.0)
    # worked by hand: 2.4 GB/s x RAID WAF 3 over 24 drives = 300 MB/s per member = 25.92 TB a day
    # = 6.75 drive writes a day of a 3.84 TB drive; NAND writes twice that, against a rating of
    # 1 DWPD for 5 years at the drive's own WAF
    assert w["member_write_bytes_per_s"] == pytest.approx(300e6)
    assert w["member_dwpd"] == pytest.approx(6.75)
    assert w["effective_dwpd"] == pytest.approx(13.5 / rated_waf)
    assert w["lifetime_years"] == pytest.approx(5.0 * rated_waf / 13.5)
    idle = drive_wear(catalog, drive.name, drives=24, host_write_bytes_per_s=0.0, raid_waf=None, waf_nand=None)
    assert idle["effective_dwpd"] == 0 and idle["lifetime_years"] is None


def test_exported_scenario_runs_unchanged_in_nvsim_run_with_the_same_prediction(cli, catalog, tmp_path):
    record = core.compute(setup(engine="linux-md", strip_bytes=65536, workload="randrw-70-30-4k",
                                namespace_mode="size", namespace_value="3.2 TB", numjobs=64, iodepth=8), catalog=catalog)
    path = tmp_path / "setup.yaml"
    path.write_text(core.scenario_yaml(record["scenario"]))
    result = cli("run", str(path), "--fidelity", "fluid", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["capacity"]["usable_bytes"] == record["capacity"]["usable_bytes"]
    predicted = out["predictions"]["randrw-70-30-4k"]
    assert predicted["total_iops"] == pytest.approx(record["workloads"][0]["total_iops"], rel=1e-9)
    assert predicted["limited_by"] == record["workloads"][0]["bottleneck"]


def test_scenario_import_round_trips_through_the_controls(catalog):
    text = open("scenarios/graid-gen5-raid6/md-raid6-4k.yaml").read()
    loaded = core.import_scenario(text, "md-raid6-4k.yaml", catalog)
    assert loaded["setup"]["engine"] == "linux-md" and loaded["setup"]["workload"] == core.FILE_WORKLOADS
    data = core.scenario_dict(loaded["setup"], loaded["custom"], loaded["extras"], catalog)
    again = parse_scenario(data, catalog)
    original = load_scenario("scenarios/graid-gen5-raid6/md-raid6-4k.yaml", catalog)
    assert again.array == original.array and again.workloads == original.workloads and again.seed == original.seed
    ns = core.import_scenario(yaml.safe_dump(dict(data, array=dict(data["array"], namespace_bytes=3_200_000_000_000))), "x.yaml", catalog)
    assert ns["setup"]["namespace_mode"] == "size" and ns["setup"]["namespace_value"] == "3.2 TB"


def test_uploads_are_size_limited_text_and_data_only(catalog):
    big = data_url("#" * (core.UPLOAD_LIMIT_BYTES + 1))
    with pytest.raises(InputError, match="limit is 1,000,000 bytes"):
        core.decode_upload(big, "big.yaml")
    with pytest.raises(InputError, match="not UTF-8"):
        core.decode_upload(data_url(b"\xff\xfe\x00bad"), "bin.yaml")
    hostile = "!!python/object/apply:os.system ['touch /tmp/nvsim-dashboard-pwned']\n"
    with pytest.raises(InputError, match="YAML syntax error"):
        core.import_scenario(core.decode_upload(data_url(hostile), "evil.yaml"), "evil.yaml", catalog)
    with pytest.raises(InputError, match="a scenario must be a YAML mapping"):
        core.import_scenario("- just\n- a list\n", "list.yaml", catalog)


def test_fio_upload_gives_workloads_and_a_broken_one_names_the_line(catalog):
    scenario = core.compute(setup(), catalog=catalog)["scenario"]
    text = open("scenarios/graid-gen5-raid6/job.fio").read()
    custom = core.import_fio(text, "job.fio", scenario, catalog)
    assert [w["name"] for w in custom["workloads"]][:2] == ["randread-b4k-j192-d32", "write-b1m-j192-d16"]
    assert custom["warning"] == ""  # every option of the reference job file is understood
    record = core.compute(setup(workload=core.FILE_WORKLOADS), custom, catalog=catalog)
    assert record["errors"] == {} and len(record["workloads"]) == 5
    percent = core.import_fio("[j]\nioengine=libaio\nrw=randread\nbs=4k\nsize=50%\nexitall\n", "half.fio", scenario, catalog)
    assert percent["workloads"][0]["size"] == 84_480_000_000_000 // 2 // 4096 * 4096
    assert "not modelled" in percent["warning"] and "exitall" in percent["warning"]
    with pytest.raises(InputError) as broken:
        core.import_fio("[job]\nioengine=libaio\nrw=randread\nbs=4q\n", "broken.fio", scenario, catalog)
    assert "broken.fio" in str(broken.value) and "bs" in str(broken.value)


def test_results_csv_has_units_in_the_columns_and_the_numbers(catalog):
    record = core.compute(setup(workload="write-1m"), catalog=catalog)
    rows = list(csv.DictReader(io.StringIO(core.rows_csv(core.result_rows(record, "A")))))
    assert len(rows) == 1
    row = rows[0]
    assert float(row["total_iops"]) == pytest.approx(record["workloads"][0]["total_iops"])
    assert float(row["write_bytes_per_s"]) > 1e9 and row["latency_p99_us"] == ""  # fluid mode: no percentiles
    assert {"usable_bytes", "lifetime_years", "rebuild_hours", "latency_p99_9_us"} <= set(row)


def test_rebuild_runs_idle_or_under_load_and_a_bug_is_not_hidden(catalog, monkeypatch):
    spec = parse_scenario(core.compute(setup(), catalog=catalog)["scenario"], catalog)

    def summary(scenario, catalog):
        return {"rebuild_hours": 2.5, "rebuild_mb_per_s": 426.7, "data_loss_probability": 1e-9, "mttdl_years": 1e6,
                "seen_workloads": len(scenario.workloads)}
    monkeypatch.setattr(core, "rebuild_summary", summary)
    idle = core.rebuild_info(spec, catalog)
    assert idle["rebuild_hours"] == 2.5 and idle["seen_workloads"] == 0 and not idle["under_load"]
    loaded = core.rebuild_info(spec, catalog, under_load=True)
    assert loaded["seen_workloads"] == 1 and loaded["under_load"]

    def broken(scenario, catalog):
        raise RuntimeError("a bug in the rebuild model")
    monkeypatch.setattr(core, "rebuild_summary", broken)
    with pytest.raises(RuntimeError):  # only a set-up without a rebuild is 'n/a'; a bug is not hidden
        core.rebuild_info(spec, catalog)


def test_rebuild_is_na_with_a_reason_without_redundancy(catalog):
    spec = parse_scenario(core.compute(setup(level=0), catalog=catalog)["scenario"], catalog)
    info = core.rebuild_info(spec, catalog)
    assert "no redundancy" in info["na"] and info["rebuild_hours"] is None


def test_single_drive_uses_the_drive_model(catalog):
    record = core.compute(setup(drives=1, level=0, engine="none", workload="randwrite-4k"), catalog=catalog)
    assert record["errors"] == {}
    workload = record["workloads"][0]
    assert workload["fidelity"] == "drive model" and workload["utilisation"] == {}
    drive = catalog.drives["kioxia-cm7-r-3.84tb"]  # at full capacity a lone drive writes at its steady-state datasheet rate
    assert workload["total_iops"] == pytest.approx(drive.rand_write_iops.value, rel=1e-6)
    dwpd = drive.rand_write_iops.value * 4096 * 86_400 / drive.capacity_bytes.value  # drive writes per day
    assert workload["wear"]["lifetime_years"] == pytest.approx(drive.dwpd.value * drive.warranty_years.value / dwpd, rel=1e-6)


def test_chart_exports_are_self_contained(catalog):
    from dashboard.app import _main_figures, charts_html, charts_png_zip

    record = core.compute(setup(), catalog=catalog)
    figures = _main_figures(record)
    page = charts_html("t", list(figures.values()), core.result_rows(record))
    assert page.count("<script src=") == 0 and "cdn.plot.ly" not in page.split("</script>")[-1]
    assert "Plotly.newPlot" in page and "GPU (NVIDIA" in page
    archive = zipfile.ZipFile(io.BytesIO(charts_png_zip(figures)))
    assert sorted(archive.namelist()) == ["bounds.png", "utilisation.png"]
    assert all(archive.read(name)[:8] == b"\x89PNG\r\n\x1a\n" for name in archive.namelist())


def test_cli_dashboard_refuses_a_bad_port_in_one_line(cli):
    import socket

    result = cli("dashboard", "--port", "70000")
    assert result.returncode == 2 and result.stderr.strip() == "error: --port: must be 1 to 65535, got 70000"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = cli("dashboard", "--port", str(port))
    assert busy.returncode == 2 and busy.stderr.startswith(f"error: --port: cannot listen on 127.0.0.1:{port}")
    assert "Traceback" not in busy.stderr and len(busy.stderr.strip().splitlines()) == 1


def test_cli_dashboard_serves_the_page_with_local_scripts_only(tmp_path):
    import re
    import socket
    import subprocess
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "nvsim.cli", "dashboard", "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, page = time.monotonic() + 60, None
        while page is None and time.monotonic() < deadline and server.poll() is None:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
            except OSError:
                time.sleep(0.3)
        assert page is not None, server.stdout.read() if server.poll() is not None else "no answer in 60 s"
        scripts = re.findall(r'<script[^>]*src="([^"]+)"', page)
        assert scripts and all(s.startswith("/") for s in scripts), scripts
        assert not re.findall(r'<link[^>]*href="(https?:[^"]+)"', page)
        first = urllib.request.urlopen(f"http://127.0.0.1:{port}{scripts[0]}", timeout=5)
        assert first.status == 200
    finally:
        server.terminate()
        server.wait(20)



def test_the_record_carries_cost_and_power_and_the_cards_show_them(catalog):
    """The dashboard's record of a workload holds nvsim.cost's figures; the Power and Cost cards
    show the watts at the predicted load and the set-up's price (docs/cost-power.md)."""
    record = core.compute(setup(), catalog=catalog)
    cost = record["workloads"][0]["cost_power"]
    assert cost["price_usd"] > 0 and cost["power_w"] > cost["power_platform_w"] > 0
    assert cost["usd_per_usable_tb"] == pytest.approx(cost["price_usd"] / 84.48)
    text = str(dash_app.cards(record))
    assert f"{cost['power_w']:,.0f} W" in text and f"${cost['price_usd']:,.0f}" in text


# ---------------------------------------------------------------- untrusted requests (issue 24)

import logging  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dashboard import guard  # noqa: E402
from dashboard.jobs import EventRunner  # noqa: E402


@pytest.fixture(scope="module")
def app_client(catalog):
    from dashboard.app import create_app

    app = create_app(catalog, warm=False)
    started = []
    app.nvsim_runner.start = lambda key, scenario, rebuild=True, sheets=None, host_ios=None, replaces=None: started.append(scenario) or "job-under-test"
    deps = {d["output"]: d for d in app.server.test_client().get("/_dash-dependencies").get_json()}
    yield app.server.test_client(), deps, started
    app.nvsim_runner.shutdown()


def callback(deps, first_output: str) -> dict:
    return next(d for out, d in deps.items() if out.startswith(f"..{first_output}.") or out == first_output)


def request_body(dep: dict, inputs, state=()) -> dict:
    outputs = [o.split("@")[0] for o in dep["output"].strip(".").split("...")]
    return {"output": dep["output"], "outputs": [{"id": o.rsplit(".", 1)[0], "property": o.rsplit(".", 1)[1]} for o in outputs],
            "inputs": [dict(i, value=v) for i, v in zip(dep["inputs"], inputs)],
            "state": [dict(s, value=v) for s, v in zip(dep["state"], state)], "changedPropIds": []}


def post(client, body) -> tuple[int, str]:
    data = body if isinstance(body, bytes) else json.dumps(body)
    response = client.post("/_dash-update-component", data=data, content_type="application/json")
    return response.status_code, response.get_data(as_text=True)


def assert_refused(status: int, text: str, words: str) -> None:
    assert status == 400, text
    message = json.loads(text)["error"]
    assert words in message and "\n" not in message and len(message) <= guard.MESSAGE_CHARS


@pytest.mark.parametrize("body, words", [
    (b"", "must be a JSON object"), (b"{not json", "not JSON"), (b"[1, 2]", "must be a JSON object"),
    (b"[" * 100_000, "not JSON"), (b"{}", "names no callback"), ({"output": "nothing.here"}, "names no callback"),
])
def test_malformed_callback_requests_are_400_with_one_line(app_client, caplog, body, words):
    client, _deps, _started = app_client
    with caplog.at_level(logging.WARNING):
        assert_refused(*post(client, body), words)
    assert not any(r.exc_info for r in caplog.records)  # no traceback in the server log


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("fill, words", [
    ([[] for _ in range(150_000)], "more than 100,000 values"),  # 1.33 M of them: 2 GB and 10 s of pydantic's errors
    (_nested(600), "nested more than 32 levels deep"),  # core.scenario_key recursed past Python's limit: a 500
])
def test_a_request_too_large_or_too_deep_is_refused_before_its_values_are_read(app_client, caplog, fill, words):
    client, deps, _started = app_client
    dep = callback(deps, "cards")
    body = request_body(dep, [None] * len(dep["inputs"]), [None] * len(dep["state"]))
    body["inputs"][0]["value"] = {"key": "x", "workloads": fill}
    with caplog.at_level(logging.WARNING):
        assert_refused(*post(client, body), f"request: {words}")
    assert not any(r.exc_info for r in caplog.records)


def test_the_largest_request_the_page_sends_is_within_the_bounds():
    """26 compared set-ups with their results: about 13,000 values, under 10 deep."""
    record = {"scenario": {"array": {"level": 6, "drives": 24}, "workloads": [{"name": f"w{i}", "bs": 4096} for i in range(8)]},
              "results": [{"metrics": {f"m{j}": 1.0 for j in range(40)}, "latency": list(range(40))} for _ in range(8)]}
    guard.check_size({"inputs": [{"value": [{"label": "A", "record": record} for _ in range(26)]}]})


@pytest.mark.parametrize("path", ["/_dash-component-suites/../../etc/passwd", "/_dash-component-suites/dash/deps/../../../../etc/passwd",
                                  "/_dash-component-suites/dash/%2e%2e/%2e%2e/x.js", "/_dash-component-suites/nope/x.js"])
def test_a_component_path_dash_did_not_register_is_a_plain_404(app_client, path, caplog):
    """Dash raised on these (a 500, with a traceback listing every registered file in the log)."""
    client, _deps, _started = app_client
    with caplog.at_level(logging.WARNING):
        response = client.get(path)
    assert response.status_code == 404 and b"root:" not in response.get_data()
    assert json.loads(response.get_data())["error"].startswith("Not Found")
    assert not any(r.exc_info for r in caplog.records)
    assert client.get("/_dash-component-suites/dash/dcc/dash_core_components.js").status_code == 200


def test_callback_values_are_checked_against_their_controls(app_client, catalog, caplog):
    client, deps, _started = app_client
    simulate, render = callback(deps, "job.data"), callback(deps, "cards.children")
    record = core.compute(setup(), catalog=catalog)
    body = request_body(simulate, [1], [record, None, None])
    assert_refused(*post(client, dict(body, outputs=[])), "outputs")
    assert_refused(*post(client, dict(body, inputs=[])), "expected 1 items")
    assert_refused(*post(client, dict(body, state=[{"id": "drives", "property": "value", "value": 3}, *body["state"][1:]])),
                   "expected current.data")
    assert_refused(*post(client, request_body(simulate, ["many"], [record, None, None])), "simulate.n_clicks")
    assert_refused(*post(client, request_body(simulate, [-1], [record, None, None])), "simulate.n_clicks")
    assert_refused(*post(client, request_body(render, ["text", None])), "current.data")
    # outputs and changedPropIds that are not this callback's: Dash's own 500s, with a traceback in the log
    wrong = [dict(o, id="x") for o in body["outputs"]]
    assert_refused(*post(client, dict(body, outputs=wrong)), "outputs: expected job.data")
    assert_refused(*post(client, dict(body, changedPropIds=["{bad.n_clicks"])), "changedPropIds: must name this callback's inputs")
    assert_refused(*post(client, dict(body, changedPropIds=["drives.value"])), "changedPropIds")
    broken = dict(record, workloads=[{"name": "no numbers"}])
    with caplog.at_level(logging.WARNING):
        assert_refused(*post(client, request_body(render, [broken, None])), "cannot be read")
    assert not any(r.exc_info for r in caplog.records)
    assert post(client, request_body(render, [record, None]))[0] == 200


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                           max_leaves=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_callback_payload_gets_a_500(app_client, data):
    """Random JSON in every input and state of every callback: a 200 or a 400, never a server error."""
    client, deps, _started = app_client
    dep = data.draw(st.sampled_from(sorted(deps.values(), key=lambda d: d["output"])))
    inputs = [data.draw(JSON_VALUES) for _ in dep["inputs"]]
    state = [data.draw(JSON_VALUES) for _ in dep["state"]]
    status, text = post(client, request_body(dep, inputs, state))
    assert status in (200, 204, 400), text
    if status == 400:
        assert "\n" not in json.loads(text)["error"]


def test_a_crafted_simulate_request_is_refused_before_work_starts(app_client, catalog):
    client, deps, started = app_client
    simulate = callback(deps, "job.data")
    record = core.compute(setup(), catalog=catalog)
    huge = json.loads(json.dumps(record))
    huge["scenario"]["workloads"][0].update(iodepth=65536, numjobs=65536)
    assert_refused(*post(client, request_body(simulate, [1], [huge, None, None])), "does not match its key")
    huge["key"] = core.scenario_key(huge["scenario"])  # a consistent forgery: the budget refuses it
    status, text = post(client, request_body(simulate, [1], [huge, None, None]))
    assert status == 200 and started == []
    assert "4,294,967,296 I\\u002fOs in flight" in text and "at most 65,536" in text
    invalid = json.loads(json.dumps(record))
    invalid["scenario"]["array"]["drives"] = 3
    invalid["key"] = core.scenario_key(invalid["scenario"])
    status, text = post(client, request_body(simulate, [1], [invalid, None, None]))
    assert status == 200 and started == [] and "needs at least 4 drives" in text
    assert post(client, request_body(simulate, [1], [record, None, None]))[0] == 200 and len(started) == 1


def test_event_budget_estimates_before_allocating(catalog):
    within = parse_scenario(core.compute(setup(numjobs=256, iodepth=256), catalog=catalog)["scenario"], catalog)
    assert core.check_event_budget(within) == core.EVENT_BASE_BYTES + 65_536 * core.EVENT_BYTES_PER_OUTSTANDING_IO
    over = parse_scenario(core.compute(setup(numjobs=257, iodepth=256), catalog=catalog)["scenario"], catalog)
    with pytest.raises(InputError, match=r"workloads\[0\]\.iodepth: .*65,792 I/Os in flight"):
        core.check_event_budget(over)


def test_a_control_change_to_1024_drives_is_refused_inline_without_a_traceback(catalog, caplog):
    from dashboard.app import on_change

    with caplog.at_level(logging.DEBUG):
        for engine in ("linux-md", "none", "graid-supremeraid-sr1010"):
            values = setup(drives=1024, engine=engine, level=0)
            out = on_change(catalog, *(values[k] for k in ("platform", "drive", "drives", "namespace_mode", "namespace_value",
                                                             "level", "strip_bytes", "engine", "workload", "numjobs", "iodepth")),
                            None, None)
            errors = dict(zip([*core.CONTROLS, "general"], out[:-1]))
            assert errors["drives"] and "\n" not in errors["drives"], errors
    assert not any(r.exc_info for r in caplog.records)
    assert "1 to 256 drives, got 1024" in core.compute(setup(drives=1024, engine="linux-md"), catalog=catalog)["errors"]["drives"]
    # 256 drives pass the array's limit but not the platform's 24 bays (issue 20: placement checked at load)
    errors = core.compute(setup(drives=256, engine="linux-md", level=0), catalog=catalog)["errors"]
    assert "array.drives: 256 drives do not fit the 24 bays" in errors["general"]
    assert core.compute(setup(drives=24, engine="linux-md", level=0), catalog=catalog)["errors"] == {}


@pytest.mark.parametrize("text, words", [
    ("name: a\nname: b\n", "line 2: YAML syntax error: duplicate key 'name'"),
    ("array: {drives: 4, drives: 8}\n", "duplicate key 'drives'"),
    ("a: " + "[" * 100 + "]" * 100 + "\n", "nested deeper than 32 levels"),
    ("a: " + "[" * 50_000 + "]" * 50_000 + "\n", "YAML"),
])
def test_uploaded_yaml_refuses_duplicate_keys_and_deep_nesting(catalog, text, words):
    """An upload goes through the CLI's own input boundary (nvsim.loader), with its messages."""
    with pytest.raises(InputError) as refused:
        core.import_scenario(text, "up.yaml", catalog)
    assert words in str(refused.value) and "up.yaml" in str(refused.value) and "\n" not in str(refused.value)


def test_yaml_merge_keys_still_override():
    assert core.load_yaml("base: &b {x: 1}\nmine:\n  <<: *b\n  x: 2\n", "m.yaml")["mine"] == {"x": 2}


def _running_children(pid: int) -> set[int]:
    children = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                children.add(int(entry))
    return children


def test_a_job_over_its_time_out_is_stopped_and_reported(catalog):
    runner = EventRunner(host_ios=HOST_IOS_MAX, timeout_s=4.0)
    try:
        record = core.compute(setup(workload=SLOW), catalog=catalog)
        job = runner.start(record["key"], record["scenario"], rebuild=False)
        deadline = time.monotonic() + 60
        while (status := runner.poll(job))["state"] == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status["state"] == "done" and status["elapsed_s"] < 30
        assert status["stopped"].startswith("stopped: still running after the time-out of 4 s")
        assert status["workloads"][0]["error"] == status["stopped"]
        assert _running_children(os.getpid()) & runner.worker_pids() == set()
    finally:
        runner.shutdown()


def test_a_job_no_page_polls_is_stopped_at_its_time_out_all_the_same(catalog):
    """The time-out was looked at only when a page polled: a page that started a job and went away
    left the worker running to the end (256 workloads: many minutes of a core)."""
    runner = EventRunner(host_ios=HOST_IOS_MAX, timeout_s=3.0)
    try:
        record = core.compute(setup(workload=SLOW), catalog=catalog)
        first = runner.start(record["key"], record["scenario"], rebuild=False)
        job = runner.start(record["key"], record["scenario"], rebuild=False, replaces=first)  # the page's next: cancels the first
        assert list(runner._timers) == [job] and first != job  # one timer per running job, never one per request
        time.sleep(1.0)
        busy = runner.worker_pids()
        assert busy and _running_children(os.getpid()) & busy  # the job runs in its worker
        deadline = time.monotonic() + 30
        while _running_children(os.getpid()) & busy and time.monotonic() < deadline:
            time.sleep(0.2)  # no poll in this loop
        assert not _running_children(os.getpid()) & busy
        status = runner.poll(job)
        assert status["state"] == "done" and status["stopped"].startswith("stopped: still running after the time-out of 3 s")
    finally:
        runner.shutdown()


def test_two_pages_jobs_queue_behind_each_other_and_a_page_replaces_only_its_own(catalog):
    """A second page's Simulate used to cancel the first page's run (one job per server): now each
    page's job queues on the worker, a page's next job cancels only its own previous one, and past
    MAX_EVENT_JOBS unfinished jobs one more is refused in one line."""
    from dashboard.jobs import MAX_EVENT_JOBS
    runner = EventRunner(host_ios=2_000)
    try:
        record = core.compute(setup(), catalog=catalog)
        page_a = runner.start(record["key"], record["scenario"], rebuild=False)
        page_b = runner.start(record["key"], record["scenario"], rebuild=False)
        page_a2 = runner.start(record["key"], record["scenario"], rebuild=False, replaces=page_a)
        assert runner.poll(page_a)["state"] == "unknown"  # given way to page A's next
        deadline = time.monotonic() + 120
        while any(runner.poll(j)["state"] == "running" for j in (page_b, page_a2)) and time.monotonic() < deadline:
            time.sleep(0.2)
        for job in (page_b, page_a2):
            status = runner.poll(job)
            assert status["state"] == "done" and status["stopped"] is None
            assert "error" not in status["workloads"][0] and status["workloads"][0]["read_iops"] > 0
        busy = EventRunner(host_ios=HOST_IOS_MAX)
        try:
            for _ in range(MAX_EVENT_JOBS):
                busy.start(record["key"], record["scenario"], rebuild=False)
            with pytest.raises(InputError, match=f"running {MAX_EVENT_JOBS} event-mode jobs") as refused:
                busy.start(record["key"], record["scenario"], rebuild=False)
            assert "\n" not in str(refused.value)
        finally:
            busy.shutdown()
    finally:
        runner.shutdown()


def test_a_job_stopped_at_its_time_out_does_not_take_another_pages_job_with_it(catalog):
    """Stopping an overdue job kills the worker; the other page's job queued behind it is submitted
    again to the fresh worker and finishes."""
    runner = EventRunner(host_ios=HOST_IOS_MAX, timeout_s=8.0)
    try:
        slow = core.compute(setup(workload=SLOW), catalog=catalog)
        overdue = runner.start(slow["key"], slow["scenario"], rebuild=False)
        queued = runner.start(slow["key"], slow["scenario"], rebuild=False, host_ios=2_000)
        deadline = time.monotonic() + 90
        while runner.poll(queued)["state"] == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert runner.poll(overdue)["stopped"].startswith("stopped: still running after the time-out of 8 s")
        status = runner.poll(queued)
        assert status["state"] == "done" and status["stopped"] is None and "error" not in status["workloads"][0], status
    finally:
        runner.shutdown()


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads child processes from /proc")
def test_sigterm_stops_the_server_and_its_busy_worker(catalog):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "nvsim.cli", "dashboard", "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline, deps = time.monotonic() + 90, None
        while deps is None and time.monotonic() < deadline and server.poll() is None:
            try:
                deps = json.loads(urllib.request.urlopen(url + "_dash-dependencies", timeout=5).read())
            except OSError:
                time.sleep(0.3)
        assert deps is not None, "the server did not answer"
        simulate = callback({d["output"]: d for d in deps}, "job.data")
        record = core.compute(setup(engine="linux-md", workload="randwrite-4k", numjobs=256, iodepth=256),
                              catalog=catalog)  # about 9 s of work in the worker (measured)
        request = urllib.request.Request(url + "_dash-update-component", json.dumps(request_body(simulate, [1], [record, None, None])).encode(),
                                         {"Content-Type": "application/json"})
        assert urllib.request.urlopen(request, timeout=30).status == 200
        bad = urllib.request.Request(url + "_dash-update-component", b"{", {"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(bad, timeout=10)
        assert refused.value.code == 400
        children = _running_children(server.pid)
        assert children, "the event-mode worker should be running"
        signalled = time.monotonic()
        server.send_signal(signal.SIGTERM)
        assert server.wait(30) == 0
        assert time.monotonic() - signalled < 6  # the busy worker (about 9 s of work) was stopped, not waited for
        time.sleep(0.5)
        assert not any(os.path.exists(f"/proc/{pid}") and pid in _running_children(1) | _running_children(server.pid)
                       for pid in children)
        output = server.stdout.read()
        assert "Traceback" not in output, output
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)


def test_a_job_over_the_worker_memory_cap_ends_with_an_error(catalog):
    """The worker's address space is capped: a run that needs more (here: a cap of 0.7 GB under a
    job at the in-flight budget's limit, which maps about 0.8 GB since the catalog loads from its
    disk cache and md-style layouts are planned per place) ends with an error line instead of
    growing; a worker that cannot even load under the cap is reported as broken, not waited for."""
    runner = EventRunner(host_ios=core.EVENT_HOST_IOS, address_space_bytes=700_000_000)
    try:
        record = core.compute(setup(numjobs=256, iodepth=256), catalog=catalog)
        job = runner.start(record["key"], record["scenario"], rebuild=False)
        deadline = time.monotonic() + 90
        while (status := runner.poll(job))["state"] == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status["state"] == "done"
        assert status["workloads"][0]["error"].startswith(("MemoryError", "BrokenProcessPool"))
    finally:
        runner.shutdown()


# ---------------------------------------------------------------- issue 23: the selling views

from pathlib import Path  # noqa: E402

from dashboard import curves, datasheet, report, share, views  # noqa: E402
from dashboard.core import host_cores_percent  # noqa: E402
from dashboard.figures import COMPARE_METRICS, bounds_figure, compare_figure  # noqa: E402
from nvsim.published import load_published, published_files  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
E_NOTATION = re.compile(r"\d[eE][-+]?\d")
DATASHEET_FORM = {"ds-model": "PM1743 7.68 TB", "ds-vendor": "Samsung", "ds-capacity": "7.68 TB", "ds-dwpd": 1,
                  "ds-seq-read": "14 GB/s", "ds-seq-write": "6 GB/s", "ds-rand-read": "2500K", "ds-rand-write": "300K",
                  "ds-pcie": 5, "ds-nand": "TLC"}


@pytest.mark.parametrize("workload", ["randread-4k", "randrw-70-30-4k"])
def test_load_curve_obeys_littles_law_and_passes_through_the_set_up(catalog, workload):
    """A closed loop keeps N I/Os in flight: mean latency = N / IOPS at every point (Little's law),
    IOPS never falls as the load grows, and the set-up's own load is a point of the curve. A mix's
    mean is over its I/Os, as the card's (it was the worse direction's: 2,127 us against 1,393)."""
    record = core.compute(setup(engine="xinnor-xiraid", workload=workload), catalog=catalog)
    curve = curves.load_curve(record["scenario"], catalog)
    points = curve["points"]
    assert 8 <= len(points) <= curves.CURVE_POINTS + 1 and curve["skipped"] == [] and curve["note"] == ""
    for p in points:
        assert p["mean_us"] == pytest.approx(p["x"] / p["iops"] * 1e6, rel=1e-6)
    iops = [p["iops"] for p in points]
    assert iops == sorted(iops) and iops[0] < iops[-1] / 100
    own = next(p for p in points if p["x"] == curve["current"])
    assert curve["current"] == 192 * 32 and own["iops"] == pytest.approx(record["workloads"][0]["total_iops"], rel=1e-12)


def test_drive_curve_grows_until_another_resource_limits_and_skips_what_the_engine_refuses(catalog):
    record = core.compute(setup(), catalog=catalog)  # the GPU engine (and the server's bays) refuse the largest counts
    curve = curves.drive_curve(record["scenario"], catalog)
    xs = [p["x"] for p in curve["points"]]
    assert xs[0] == 4 and 24 in xs and xs == sorted(xs)
    skipped = [int(s.split(":")[0]) for s in curve["skipped"]]
    assert skipped and min(skipped) > max(xs) and max(skipped) == 48  # what is refused is said, not drawn
    for count in skipped:
        assert core.compute(setup(drives=count), catalog=catalog)["errors"]  # the set-up itself refuses it too
    own = next(p for p in curve["points"] if p["x"] == 24)
    assert own["iops"] == pytest.approx(record["workloads"][0]["total_iops"], rel=1e-12)
    assert curve["points"][0]["iops"] < own["iops"] and "drive NAND" in curve["points"][0]["bottleneck"]


def test_event_curve_workloads_fit_the_job_budget_and_read_back_as_points(catalog):
    record = core.compute(setup(), catalog=catalog)
    scenario = curves.load_workloads(record["scenario"], catalog)
    assert len(scenario["workloads"]) <= curves.EVENT_CURVE_POINTS
    core.check_event_budget(parse_scenario(scenario, catalog))  # within the budget: no InputError
    fake = [{"name": w["name"], "total_iops": 1.0, "read_latency_us": {"p99": 10.0 * i, "mean": 5.0}}
            for i, w in enumerate(scenario["workloads"])]
    points = curves.event_points(fake + [{"name": "x", "error": "boom"}])
    assert [p["x"] for p in points] == sorted(p["x"] for p in points) and len(points) == len(scenario["workloads"])
    assert 192 * 32 in [p["x"] for p in points]


SETUP_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)


@settings(max_examples=60, deadline=None)
@given(drives=st.integers(1, 256), level=st.sampled_from(core.LEVELS), ns=SETUP_TEXT, engine=SETUP_TEXT,
       jobs=st.none() | st.integers(1, 65536), seed=st.none() | st.integers(0, 2**31))
def test_a_link_reads_back_as_the_same_set_up(drives, level, ns, engine, jobs, seed):
    chosen = setup(drives=drives, level=level, namespace_mode="size", namespace_value=ns, engine=engine, numjobs=jobs)
    extras = {"seed": seed} if seed is not None else None
    sheets = [dict(DATASHEET_FORM, name="datasheet-pm1743-7.68-tb")]
    back = share.from_query(share.to_query(chosen, extras, None, sheets))
    expected = {k: v for k, v in chosen.items() if v not in (None, "")}
    assert back["setup"] == expected and back["extras"] == extras and back["sheets"] == sheets


@pytest.mark.parametrize("query, words", [
    ("?drives=many", "link drives: must be a whole number"),
    ("?more=%%%", "link more: is not base64url JSON"),
    ("?more=" + base64.urlsafe_b64encode(b'{"evil": 1}').decode(), "must hold only extras, custom and sheets"),
    ("?more=" + base64.urlsafe_b64encode(b'{"extras": {"seed": "x"}}').decode(), "extras.data"),
    ("?" + "&".join(f"a{i}=1" for i in range(40)), "too many parameters"),
    ("?drives=" + "1" * 70_000, "characters; at most"),
])
def test_a_bad_link_is_one_line(query, words):
    with pytest.raises(InputError) as refused:
        share.from_query(query)
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_the_address_bar_waits_for_the_links_own_answer():
    """A stale answer (for the default set-up) must not overwrite the link the page was opened with."""
    link = share.to_query(setup(drives=12))
    stale = {"key": "k", "errors": {}, "workloads": [{}], "setup": setup()}
    fresh = dict(stale, setup=setup(drives=12))
    assert views.url_outputs(stale, None, None, [], views.LINK_WAITING, link) == (dash_app.no_update, dash_app.no_update)
    assert views.url_outputs(stale, None, None, [], link, link) == (dash_app.no_update, dash_app.no_update)
    assert views.url_outputs(fresh, None, None, [], link, link) == (dash_app.no_update, views.LINK_SETTLED)
    changed = dict(fresh, setup=setup(drives=16))
    assert views.url_outputs(changed, None, None, [], views.LINK_SETTLED, link)[0] == share.to_query(setup(drives=16))


def test_a_datasheet_drive_is_derived_by_nvsim_and_usable_in_a_set_up(catalog):
    sheets, name = datasheet.add_sheet(DATASHEET_FORM, [], catalog)
    session = datasheet.session_catalog(catalog, sheets)
    assert name in session.drives and name not in catalog.drives and len(session.drives) == len(catalog.drives) + 1
    drive = session.drives[name]
    assert drive.rand_write_iops.value == 300_000 and drive.raw_nand_bytes.value == 2**43  # 8 TiB over 7.68 TB
    assert drive.raw_nand_bytes.basis == "assumed" and drive.capacity_bytes.basis == "datasheet"
    record = core.compute(setup(drive=name, workload="randwrite-4k"), catalog=session)
    assert record["errors"] == {} and record["capacity"]["member_bytes"] == 7_680_000_000_000
    assert record["workloads"][0]["total_iops"] > 0
    assert core.compute(setup(drive=name), catalog=catalog)["errors"]  # not in the shipped catalog
    again, _ = datasheet.add_sheet(dict(DATASHEET_FORM, **{"ds-rand-write": "320K"}), sheets, catalog)
    assert len(again) == 1 and again[0]["ds-rand-write"] == "320K"  # the same model replaces its sheet
    exported = yaml.safe_load(datasheet.sheet_yaml(again[0]))
    assert exported["name"] == name and exported["rand_write_iops"]["value"] == "320K"


@pytest.mark.parametrize("changes, field, words", [
    ({"ds-capacity": "lots"}, "ds-capacity", "not a size"),
    ({"ds-dwpd": -1}, "ds-dwpd", "allowed above 0 up to 100"),
    ({"ds-seq-read": ""}, "ds-seq-read", "Sequential read: enter the figure from the datasheet"),
    ({"ds-pcie": 9}, "ds-pcie", "PCIe: generation 9 does not exist"),
    ({"ds-raw": "1 TB"}, "ds-raw", "Raw NAND: 1,000,000,000,000 bytes; allowed: more than Capacity"),
    ({"ds-model": ""}, "ds-model", "enter the drive's model"),
])
def test_a_bad_datasheet_figure_is_one_line_beside_its_field(catalog, changes, field, words):
    sheets, name, errors, note = views.add_drive(dict(DATASHEET_FORM, **changes), [], catalog)
    assert sheets is dash_app.no_update and list(errors) == [field]
    assert words in errors[field] and "\n" not in errors[field] and note.startswith("not added")


def _published_using(drive: str, engine: str, platform: str) -> int:
    count = 0
    for path in published_files():
        for number in load_published(path).numbers:
            spec = load_scenario(path.parent / number.scenario)
            count += drive == spec.array.drive or engine == spec.array.engine or platform == spec.platform
    return count


def test_the_report_holds_every_section_and_the_validation_of_the_models_it_uses(catalog):
    record = report.scenario_record(ROOT / "scenarios/graid-gen5-raid6", catalog)
    page = report.report_html(record, catalog)
    for words in ("Set-up", "Predictions", "Limited by", "Rebuild and risk", "Cost and power", "Validation status",
                  "randwrite-b4k-j192-d16", "1 in ", "per usable TB"):
        assert words in page
    assert not E_NOTATION.search(re.sub(r"<style>.*?</style>", "", page, flags=re.S))
    first = record["workloads"][0]["name"]  # the load the price, power and endurance are at, named
    assert f"<h2>Cost and power at {first}</h2>" in page
    rows = report.validation_status("kioxia-cm7-r-3.84tb", "graid-supremeraid-sr1010", "supermicro-as-2125hs-tnr")
    assert len(rows) == _published_using("kioxia-cm7-r-3.84tb", "graid-supremeraid-sr1010", "supermicro-as-2125hs-tnr") > 0
    assert {r["status"] for r in rows} <= {"ok", "OUT", "event mode only", "not modelled yet"}
    drive_rows = [r for r in rows if "drive" in r["models"]]
    assert f"{len(drive_rows)} published numbers" in page


def test_the_report_of_an_idle_scenario_says_it_has_no_workload_and_gives_its_one_rebuild(catalog):
    """A scenario with no workload (a rebuild with no host I/O, scenarios/rebuild-measured) has a
    report: no load curve (``load_curve`` refuses naming ``workloads``; the report says why under
    its heading, which had stood over nothing), no utilisation, and one rebuild column, the idle one."""
    from dashboard import curves
    path = ROOT / "scenarios/rebuild-measured/md-10x-idle.yaml"
    record = report.scenario_record(path, catalog)
    page = report.report_html(record, catalog)
    assert page.count(report.NO_WORKLOAD_NOTE) == 2 and "<th>idle array</th>" in page and "<th>under " not in page
    assert report.curve_svg(record, catalog) == "<p>curve: n/a (a curve needs a workload, and the scenario has none)</p>"
    with pytest.raises(InputError, match="workloads: a curve needs a workload"):
        curves.load_curve(record["scenario"], catalog)


@pytest.mark.skipif(report.pdf_missing() is not None, reason="no Chromium to print with")
def test_the_report_prints_as_a_one_page_pdf(catalog):
    record = core.compute(setup(), catalog=catalog)
    pdf = report.report_pdf(report.report_html(record, catalog))
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1


def test_without_chromium_the_pdf_is_one_line(monkeypatch):
    monkeypatch.setattr(report, "CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(InputError, match="the PDF needs Chromium") as refused:
        report.report_pdf("<p>x</p>")
    assert "\n" not in str(refused.value)


def test_chromium_prints_with_a_temporary_home_and_a_bounded_number_at_once(tmp_path, monkeypatch):
    """The print's browser gets the temporary folder as $HOME (Chromium writes its crash-report
    settings and dconf cache there, not in the server user's home), and a server prints at most
    ``BROWSER_PRINTS_AT_ONCE`` at once: one more is refused in one line."""
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\nfor a in \"$@\"; do case $a in --print-to-pdf=*) echo \"%PDF $HOME\" > ${a#--print-to-pdf=};; esac; done\n")
    fake.chmod(0o755)
    monkeypatch.setattr(report, "CHROMIUM", str(fake))
    printed = report.report_pdf("<p>x</p>").decode()
    home = printed.split()[1]
    assert printed.startswith("%PDF") and home.startswith(tempfile.gettempdir()) and os.environ.get("HOME") != home
    with contextlib.ExitStack() as held:
        for _ in range(report.BROWSER_PRINTS_AT_ONCE):
            held.enter_context(report.browser_slot("pdf"))
        with pytest.raises(InputError, match="exports are being printed on this server") as refused:
            report.report_pdf("<p>x</p>")
        assert "\n" not in str(refused.value)
    assert report.report_pdf("<p>x</p>").startswith(b"%PDF")  # the slots are given back


def test_nvsim_report_writes_html_and_refuses_other_names(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", "report", "scenarios/graid-gen5-raid6", "--out", str(out),
                           "--fidelity", "fluid"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Validation status" in out.read_text() and oct(out.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    bad = subprocess.run([sys.executable, "-m", "nvsim.cli", "report", "scenarios/graid-gen5-raid6", "--out", str(tmp_path / "r.txt")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.strip() == "error: --out: must end in .html or .pdf, got 'r.txt'"


def test_nvsim_report_refuses_a_workload_over_the_work_budget_as_run_does(tmp_path, cli):
    """It wrote a page whose predictions held the refusal, headed 'an idle array', and exited 0."""
    data = yaml.safe_load((ROOT / "scenarios/graid-gen5-raid6/scenario.yaml").read_text())
    data["workloads"] = [{"name": "w", "rw": "randread", "bs": "4k", "iodepth": 65536, "numjobs": 5, "size": "100G"}]
    scenario = tmp_path / "over.yaml"
    scenario.write_text(yaml.safe_dump(data))
    out = tmp_path / "r.html"
    refused = cli("report", str(scenario), "-o", str(out))
    ran = cli("run", str(scenario))
    assert refused.returncode == ran.returncode == 2 and refused.stderr == ran.stderr
    assert "workloads[0].iodepth: iodepth x numjobs = 327,680 I/Os in flight" in refused.stderr and not out.exists()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_compare_charts_show_what_their_titles_say(catalog):
    fluid = core.compute(setup(engine="xinnor-xiraid"), catalog=catalog)
    entries = [{"label": f"{letter}: x", "record": fluid} for letter in "ABCDE"]  # more than three
    fig = compare_figure(entries)
    titles = [m[0] for m in COMPARE_METRICS]
    p99 = [t for i, t in enumerate(fig.data) if i % len(titles) == titles.index("latency p99 (µs, event mode)")]
    assert all(t.text == ("n/a",) and t.y == (0,) for t in p99)  # fluid mode has no p99: not its mean
    cores = [t for i, t in enumerate(fig.data) if i % len(titles) == titles.index("host cores busy (%)")]
    workload = fluid["workloads"][0]
    assert cores[0].y[0] == pytest.approx(100.0) == host_cores_percent(workload)
    assert workload["bottleneck"].startswith("host cores") and "at 100%" in workload["bottleneck"]
    assert len(fig.data) == 5 * len(titles)


def test_bounds_labels_are_readable_and_risk_reads_in_words(catalog):
    record = core.compute(setup(), catalog=catalog)
    fig = bounds_figure(record["bounds"], record["workloads"][0])
    bound_bars = [t for t in fig.data if t.name == "bound"]
    assert all(t.orientation == "h" and t.textfont.size >= 11 and t.constraintext == "none" for t in bound_bars)
    assert "SupremeRAID SR-1010 card limit" in bound_bars[0].text[0]
    assert core.fmt_probability(5.26e-12) == "1 in 190 billion" and core.fmt_large(1.18e12) == "1.18 trillion"
    risk = next(c for c in dash_app.cards(record) if c.children[1].id == "m-risk")
    assert not E_NOTATION.search(risk.children[1].children + risk.children[2].children)


def test_a_poll_of_a_curve_job_fills_the_curve_store_not_the_cards():
    done = {"state": "done", "done": 2, "total": 2, "key": "k", "elapsed_s": 1.0, "workloads": [], "rebuild": None}
    curve = dash_app.poll_outputs(done, "curve")
    assert curve[0] is dash_app.no_update and curve[1]["key"] == "k" and curve[6].startswith("event mode finished")
    cards = dash_app.poll_outputs(done, "setup")
    assert cards[1] is dash_app.no_update and cards[0]["key"] == "k" and cards[5].startswith("event mode finished")


def test_the_event_worker_simulates_a_datasheet_drive_it_is_given(catalog):
    from dashboard.jobs import run_workload

    sheets, name = datasheet.add_sheet(DATASHEET_FORM, [], catalog)
    scenario = core.compute(setup(drive=name, numjobs=8, iodepth=4), catalog=datasheet.session_catalog(catalog, sheets))["scenario"]
    done = run_workload(scenario, 0, 2_000, sheets)
    assert "error" not in done and done["fidelity"] == "event" and done["total_iops"] > 0
    refused = run_workload(scenario, 0, 2_000, None)  # without the session's drives the worker cannot know it
    assert name in refused["error"] and "\n" not in refused["error"]


def test_an_upload_note_and_file_name_repeat_no_client_text_of_any_length():
    """A job file's option of 100,000 characters came back whole in the fio note; a file name of a
    million characters in the import note."""
    from dashboard import app as dashboard_app

    long_note = dashboard_app._note("job.fio line 2: " + "a" * 100_000 + ": not an option of fio 3.42")
    assert len(long_note) <= dashboard_app.NOTE_CHARS and long_note.endswith("...(100,043 characters)")
    assert dashboard_app._note("loaded job.fio") == "loaded job.fio"
    with pytest.raises(guard.PayloadError, match=r"scenario-upload\.filename: at most 255 characters, got 1,000,000"):
        guard.check_value("scenario-upload", "filename", "a" * 1_000_000)
    guard.check_value("fio-upload", "filename", "a" * 255)


@pytest.mark.parametrize("field, value, control", [
    ("level", 1e308, "level"), ("strip_bytes", 1e308, "strip"), ("drive", "x" * 300, "drive"),
    ("platform", "\u0000", "platform"), ("drive", "\u200b", "drive"),
])
def test_a_bad_control_value_is_refused_under_its_own_control(catalog, field, value, control):
    """The dashboard writes the set-up's name and description from the controls: a level of 1e308
    was refused as 'name: String should have at most 200 characters', in the general line."""
    setup = {"platform": "supermicro-as-2125hs-tnr", "drive": "kioxia-cm7-r-3.84tb", "drives": 24, "namespace_mode": "full",
             "namespace_value": "", "level": 6, "strip_bytes": 4096, "engine": "graid-supremeraid-sr1010",
             "workload": "randrw-70-30-4k", field: value}
    errors = core.validate(setup, None, None, catalog)[2]
    assert list(errors) == [control] and not errors[control].startswith(("name:", "description:")), errors


def test_a_curve_of_a_job_that_runs_with_others_says_it_is_drawn_alone(catalog):
    """The curve draws the first workload alone; where its phase runs others with it, its rate is not
    the set-up's (138K against 27K IOPS beside a second job; a helper's finding): the note says so."""
    scenario = {"name": "x", "platform": "supermicro-as-2125hs-tnr",
                "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB", "engine": "linux-md"},
                "workloads": [{"name": "wa", "rw": "randwrite", "bs": "4k", "numjobs": 8, "iodepth": 16, "phase": "p"},
                              {"name": "wb", "rw": "randwrite", "bs": "64k", "numjobs": 4, "iodepth": 8, "phase": "p"}]}
    assert "wa drawn alone: wb of its phase" in curves.load_curve(scenario, catalog)["note"]
    alone = dict(scenario, workloads=[dict(scenario["workloads"][0], phase=None)])
    assert curves.load_curve(alone, catalog)["note"] == ""
