"""Hunt 6's dashboard findings, held: a control change's solving is bounded in time; a failure the
page reports names its type and nothing of its text; a trim job's IOPS count its trims as `nvsim
run` does; a zipf skew over a region of one or two blocks answers instead of failing."""

from __future__ import annotations

import json

import pytest

from dashboard import app as dashboard_app
from dashboard import core
from nvsim.catalog import default_catalog
from nvsim.scenario import parse_scenario
from nvsim.simulation import Simulation

TWO_JOBS = "[a]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=4\n[b]\nrw=randwrite\nbs=4k\nioengine=libaio\niodepth=4\n"


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def _setup() -> dict:
    return dict(core.default_setup(), engine="linux-md", strip_bytes=65536)


def test_the_workloads_past_the_solving_budget_are_refused_in_one_line(catalog, monkeypatch):
    setup = _setup()
    current = core.compute(setup, catalog=catalog)
    custom = core.import_fio(TWO_JOBS, "two.fio", current["scenario"], catalog)
    answered = core.compute(dict(setup, workload="file"), custom, catalog=catalog)
    assert not answered["errors"] and len(answered["workloads"]) == 2
    monkeypatch.setattr(core, "WORKLOADS_BUDGET_S", 0.0)
    refused = core.compute(dict(setup, workload="file"), custom, catalog=catalog)
    message = refused["errors"]["workload"]
    assert message.startswith("workloads: not solved: the dashboard stops after 0 s") and "\n" not in message
    assert "0 of 2 answered" in message and "nvsim fio" in message


def test_an_internal_failure_names_its_type_and_not_its_text(catalog, monkeypatch):
    """The text of an exception may hold a server path: the page gets the type, the log the rest."""
    from dashboard.app import create_app

    def broken(*_args):
        raise FileNotFoundError("/srv/private/secret-file.yaml")

    monkeypatch.setattr(dashboard_app, "on_change", broken)
    app = create_app(catalog, warm=False)
    try:
        deps = app.server.test_client().get("/_dash-dependencies").get_json()
        dep = next(d for d in deps if d["output"].startswith("..platform-error.children"))
        outputs = [o.split("@")[0] for o in dep["output"].strip(".").split("...")]
        body = {"output": dep["output"],
                "outputs": [{"id": o.rsplit(".", 1)[0], "property": o.rsplit(".", 1)[1]} for o in outputs],
                "inputs": [dict(i, value=None) for i in dep["inputs"]], "state": [], "changedPropIds": []}
        response = app.server.test_client().post("/_dash-update-component", data=json.dumps(body),
                                                  content_type="application/json")
        text = response.get_data(as_text=True)
        assert response.status_code == 200
        assert "internal error (see the server log): FileNotFoundError" in text and "secret-file" not in text
    finally:
        app.nvsim_runner.shutdown()


def test_a_trim_jobs_iops_count_its_trims_as_nvsim_run_does(catalog):
    data = {"name": "trims", "platform": "asus-rs520a-e12-rs24u",
            "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 4, "strip_bytes": "64KiB", "engine": "linux-md"},
            "workloads": [{"name": "tw", "rw": "randtrimwrite", "bs": "4k", "numjobs": 4, "iodepth": 4, "ioengine": "libaio"}]}
    spec = parse_scenario(data, catalog)
    result = Simulation(spec, spec.workloads[0], catalog=catalog).run("fluid")
    record = core.workload_record(spec, spec.workloads[0], catalog, "fluid", result=result)
    assert result.trim_iops > 0 and record["trim_iops"] == result.trim_iops
    assert record["total_iops"] == pytest.approx(result.metrics()["total_iops"]) == pytest.approx(result.total_iops)
    assert record["total_iops"] == pytest.approx(result.write_iops + result.trim_iops)


@pytest.mark.parametrize("size", [4096, 8192])
def test_a_zipf_skew_over_one_or_two_blocks_answers(catalog, size):
    setup = _setup()
    current = core.compute(setup, catalog=catalog)
    job = f"[z]\nrw=randwrite\nbs=4k\nioengine=libaio\nsize={size}\nrandom_distribution=zipf:1.2\n"
    custom = core.import_fio(job, "z.fio", current["scenario"], catalog)
    answered = core.compute(dict(setup, workload="file"), custom, catalog=catalog)
    assert not answered["errors"] and answered["workloads"][0]["write_iops"] > 0


SECRET_PATH = "/srv/private/secret-file.yaml"


def _broken(*_args, **_kwargs):
    raise FileNotFoundError(SECRET_PATH)


def test_a_workers_internal_failure_names_its_type_and_not_its_text(catalog, monkeypatch):
    """The event-mode worker (a workload, the rebuild under load) and the plan worker sent the page
    ``f"{type}: {text}"`` of any exception, its text free to name the server's files (the rule the
    control change's failure follows since hunt 6); now the type, the traceback to the log. An
    InputError is the client's own set-up refused: its line still comes back whole."""
    from dashboard import jobs, plan_view

    scenario = core.compute(_setup(), catalog=catalog)["scenario"]
    monkeypatch.setattr(jobs, "workload_record", _broken)
    monkeypatch.setattr(jobs, "rebuild_info", _broken)
    monkeypatch.setattr(plan_view, "plan_from_text", _broken)
    answers = [jobs.run_workload(scenario, 0, 2_000)["error"], jobs.run_rebuild(scenario)["na"],
               jobs.run_plan_job("j", plan_view.EXAMPLE)["error"]]
    for answer in answers:
        assert answer == "internal error (see the server log): FileNotFoundError", answer
    refused = jobs.run_workload(dict(scenario, platform="no-such-server"), 0, 2_000)["error"]
    assert refused.startswith("InputError: ") and "no-such-server" in refused, refused


def test_a_png_exports_failure_names_its_type_and_not_its_text(catalog, monkeypatch):
    """kaleido's exceptions carry its page's and Chromium's paths; the export note said them whole."""
    from dashboard.app import create_app

    monkeypatch.setattr(dashboard_app, "charts_png_zip", _broken)
    app = create_app(catalog, warm=False)
    try:
        client = app.server.test_client()
        dep = next(d for d in client.get("/_dash-dependencies").get_json() if d["output"].startswith("..download.data"))
        outputs = [o.split("@")[0] for o in dep["output"].strip(".").split("...")]
        current = core.compute(_setup(), catalog=catalog)
        body = {"output": dep["output"], "outputs": [{"id": o.rsplit(".", 1)[0], "property": o.rsplit(".", 1)[1]} for o in outputs],
                "inputs": [dict(i, value=v) for i, v in zip(dep["inputs"], [0, 0, 0, 1])],
                "state": [dict(s, value=v) for s, v in zip(dep["state"], [current, None])], "changedPropIds": ["export-png.n_clicks"]}
        response = client.post("/_dash-update-component", data=json.dumps(body), content_type="application/json")
        text = response.get_data(as_text=True)
        assert response.status_code == 200, text[:300]
        assert "FileNotFoundError" in text and "secret-file" not in text, text[:300]
    finally:
        app.nvsim_runner.shutdown()
