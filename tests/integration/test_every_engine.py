"""Every public command works on every engine of the catalog: `nvsim report` (HTML and PDF), `run`,
`fio`, `sweep` and `plan` over a set-up of each file in models/engines/ (a new engine is covered
by adding its file). `nvsim report` failed with KeyError: 'engine' on every Linux md set-up: the
report's tests only ever used the GPU scenario, and md is the default engine, so a scenario that
names no engine (or names md) lost its engine on the way into the report.

Each set-up leaves every array field it can at its default (the engine when it is the default one,
the strip): a command that drops defaults on the way fails here. Fluid mode where the command
allows; the plan confirms its one candidate in the event mode at the smallest window it takes.
The commands run in this process (``nvsim.cli.main``), so the report's validation figures are
computed once for all engines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from dashboard import report as one_page
from nvsim import InputError, default_catalog, parse_scenario
from nvsim.cli import main
from nvsim.names import engine_label, product_name
from nvsim.specs import ArraySpec

ENGINES = sorted(p.stem for p in (ROOT / "models" / "engines").glob("*.yaml"))
DRIVE = "kioxia-cm7-r-3.84tb"
DRIVES = 4
WORKLOADS = [{"name": "randread", "rw": "randread", "bs": "4k", "iodepth": 8, "numjobs": 4, "runtime": 10},
             {"name": "randwrite", "rw": "randwrite", "bs": "4k", "iodepth": 8, "numjobs": 4, "runtime": 10}]
FIO_JOB = "[global]\nioengine=libaio\ndirect=1\nruntime=10\ntime_based=1\n[rr]\nrw=randread\nbs=4k\niodepth=8\nnumjobs=2\n"


def test_the_catalog_has_the_engines_this_file_was_written_for():
    """A renamed or lost engine file shows here, not as a silently shorter parametrisation."""
    assert set(ENGINES) >= {"linux-md", "intel-vroc", "xinnor-xiraid", "graid-supremeraid-sr1010",
                            "broadcom-megaraid-9560-16i", "ideal-raid", "none"}
    assert set(ENGINES) == set(default_catalog().engines)


def set_up(engine: str) -> dict:
    """A scenario of ``engine``: the first platform (by name) that takes it, RAID5 where the engine
    has it (else its first level), four drives, the default strip; the engine is named only when
    it is not the default one."""
    catalog = default_catalog()
    levels = catalog.engines[engine].levels
    level = 5 if 5 in levels else levels[0]
    refusals = []
    for platform in sorted(catalog.platforms):
        array = {"level": level, "drive": DRIVE, "drives": DRIVES}
        if engine != ArraySpec.model_fields["engine"].default:
            array["engine"] = engine
        data = {"name": f"every-engine-{engine}", "platform": platform, "array": array, "workloads": WORKLOADS}
        try:
            parse_scenario(data, catalog)
        except InputError as exc:
            refusals.append(f"{platform}: {exc}")
            continue
        return data
    raise AssertionError(f"no platform of the catalog takes {engine}: {refusals}")


def nvsim(capsys, *argv: str) -> tuple[str, str]:
    """``nvsim ARGV`` in this process: (stdout, stderr); fails unless it succeeds."""
    try:
        main([str(a) for a in argv])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert code in (0, None), f"nvsim {' '.join(map(str, argv))}: exit {code}: {err}"
    assert "Traceback" not in err, err
    return out, err


@pytest.fixture(params=ENGINES)
def engine_scenario(request, tmp_path, monkeypatch) -> tuple[str, dict, Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "160")
    data = set_up(request.param)
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return request.param, data, path


def test_report_html_and_pdf(engine_scenario, capsys):
    engine, data, path = engine_scenario
    nvsim(capsys, "report", path, "-o", "report.html", "--fidelity", "fluid")
    page = Path("report.html").read_text()
    name = product_name(default_catalog(), "engines", engine)
    assert name in page.split("</h1>")[0] and "Validation status" in page and "Predictions" in page
    assert re.search(rf"<td>engine</td><td>{re.escape(name)}</td>", page)
    assert all(w["name"] in page for w in WORKLOADS)
    if one_page.pdf_missing() is not None:
        pytest.skip(f"no Chromium to print the PDF with ({one_page.pdf_missing()})")
    nvsim(capsys, "report", path, "-o", "report.pdf", "--fidelity", "fluid")
    pdf = Path("report.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1


def test_run(engine_scenario, capsys):
    engine, data, path = engine_scenario
    out, _ = nvsim(capsys, "run", path, "--fidelity", "fluid", "-o", "run.json")
    name = engine_label(default_catalog(), engine, data["array"].get("engine_settings"))  # a GPU card with its driver
    assert f"engine {name}," in " ".join(out.split())  # rich folds long names at the console's width
    predictions = json.loads(Path("run.json").read_text())["predictions"]
    assert set(predictions) == {w["name"] for w in WORKLOADS}
    assert all(p["total_iops"] > 0 for p in predictions.values()), predictions


def test_fio(engine_scenario, capsys):
    engine, data, path = engine_scenario
    Path("job.fio").write_text(FIO_JOB)
    nvsim(capsys, "fio", "job.fio", "--system", path, "--fidelity", "fluid", "-o", "fio.json")
    jobs = json.loads(Path("fio.json").read_text())["jobs"]
    assert [j["jobname"] for j in jobs] == ["rr", "rr"] and all(j["read"]["iops"] > 0 for j in jobs)


def test_sweep(engine_scenario, capsys):
    engine, data, path = engine_scenario
    Path("sweep.yaml").write_text(yaml.safe_dump({"base": str(path), "workloads": ["randread"], "fidelity": "fluid",
                                                  "grid": {"array.drives": [DRIVES, DRIVES + 2]}}))
    nvsim(capsys, "sweep", "sweep.yaml", "-o", "out", "--workers", "1")
    import pyarrow.parquet as pq

    rows = pq.read_table("out.parquet").to_pylist()
    assert len(rows) == 2 and all(r["status"] == "ok" and r["read_iops"] > 0 for r in rows), rows


def test_plan(engine_scenario, capsys):
    engine, data, path = engine_scenario
    array = data["array"]
    plan = {"requirements": {"usable_bytes": "1 TB", "workloads": [{"name": "rr", "profile": "randread-4k", "numjobs": 4,
                                                                    "iodepth": 8, "min_iops": 1000}]},
            "search": {"platforms": [data["platform"]], "drives": [DRIVE], "engines": [engine], "drive_counts": [DRIVES],
                       "levels": [array["level"]], "strips_bytes": ["512KiB"]},
            "objective": "drives", "top": 1, "confirm": 1, "event_host_ios": 2000}
    Path("plan.yaml").write_text(yaml.safe_dump(plan))
    nvsim(capsys, "plan", "plan.yaml", "-o", "out", "--workers", "1")
    answer = json.loads(Path("out/plan.json").read_text())
    assert answer["ranked_count"] == 1, answer["pruned"]
    (best,) = answer["ranked"]
    assert best["engine"] == engine and best["event"] == "confirmed", best
    scenario = yaml.safe_load(Path("out/scenarios/rank-01.yaml").read_text())
    assert parse_scenario(scenario, default_catalog()).array.engine == engine


PARITY_ENGINES = [e for e in ENGINES if 6 in default_catalog().engines[e].levels]


@pytest.mark.parametrize("engine", PARITY_ENGINES)
@pytest.mark.parametrize("workload", [{"name": "seq", "rw": "read", "bs": "1m", "iodepth": 16, "numjobs": 8},
                                      {"name": "rand", "rw": "randread", "bs": "64k", "iodepth": 16, "numjobs": 8}])
def test_a_raid6_read_never_speeds_up_as_a_second_member_goes(engine, workload):
    """RAID6 reads with two members missing are no faster than with one: each row rebuilds two
    blocks, solving the Q syndrome over the survivors. With the per-byte work charged once, the
    fewer survivors read made 1 MiB reads 11% faster with a second member gone (md 4,214 -> 4,678
    IOPS, a MegaRAID 9670W 7,072 -> 7,865, xiRAID 56,991 -> 61,533)."""
    from nvsim import Simulation
    from nvsim.states import ArrayState

    data = dict(set_up(engine), workloads=[workload])
    data["array"] = dict(data["array"], level=6, drives=8, strip_bytes="64KiB")
    scenario = parse_scenario(data, default_catalog())
    rates = [Simulation(scenario, workload["name"], state=ArrayState(tuple(range(k)))).run("fluid").total_iops for k in (0, 1, 2)]
    assert rates[0] >= rates[1] * (1 - 1e-9) and rates[1] >= rates[2] * (1 - 1e-9), rates
