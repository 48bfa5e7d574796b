"""The dashboard's Plan view without a browser: the form prefilled from a set-up and the plan file it
makes, requirements in, the ranked set-ups (with what Open and Add to compare take), the rejected
families and the Pareto figure out; bad requirements are one line naming the field; plans run in
a bounded pool of worker processes with progress; the view is on the page with its callbacks."""

from __future__ import annotations

import dataclasses

import time

import pytest
import yaml

from dashboard import core, guard, plan_view
from dashboard.app import create_app
from dashboard.jobs import PlanRunner
from nvsim.plan.spec import PlanSpec

SMALL = {
    "requirements": {"usable_bytes": "20 TB", "max_data_loss_probability": 1e-4,
                     "workloads": [{"name": "oltp", "profile": "randrw-8k-70", "numjobs": 16, "iodepth": 8, "min_iops": "500k"}]},
    "search": {"platforms": ["supermicro-as-2125hs-tnr"], "priced_only": True, "drive_counts": [8, 12], "levels": [0, 6],
               "strips_bytes": ["64KiB"], "drives": ["kioxia-cm7-r-3.84tb", "kioxia-cm7-r-7.68tb"],
               "engines": ["linux-md", "graid-supremeraid-sr1010"]},
    "objective": "usd_per_usable_tb", "top": 10, "confirm": 0, "event_host_ios": 4000,
}


def _setup_record(catalog, **changes) -> dict:
    setup = core.default_setup(catalog) | changes
    record = core.compute(setup, catalog=catalog)
    record["setup"] = setup
    return record


def test_a_plan_in_the_view_gives_its_ranking_families_and_front():
    status, rows, figure, families = plan_view.on_plan(yaml.safe_dump(SMALL))
    assert status.startswith("16 candidates:") and "distinct set-ups" in status
    assert len(rows) >= 1 and rows[0][0].children == "1"
    assert "graid-supremeraid-sr1010" in rows[0][1].children
    assert [c.children for c in rows[0][-1].children] == ["Open", "Add to compare"]
    set_ups = [r[1].children.split(" 64K")[0] for r in rows]
    assert len(set(set_ups)) == len(set_ups)  # one row per drive, count, level, engine and server
    assert {t.name for t in figure.data} == {"ranked", "Pareto front"} and len(figure.data[1].x) >= 1
    why = {r.children[0].children: r.children[2].children for r in families.children[1].children}
    assert "over" in why["linux-md RAID0 kioxia-cm7-r-3.84tb"]  # RAID0 cannot meet P(data loss)


def test_bad_requirements_are_one_line_naming_the_field():
    status, rows, _, families = plan_view.on_plan("requirements: {usable_bytes: -1}\n")
    assert status.startswith("error: requirements") and "usable_bytes" in status and "\n" not in status
    assert rows == [] and families is None
    assert plan_view.on_plan("x" * (plan_view.MAX_TEXT_CHARS + 1))[0].startswith("error: requirements:")
    values = plan_view.prefill(None, core.default_catalog())
    assert "search.drive_counts" in plan_view.check_text(plan_view.form_yaml(dict(values, counts="8, twelve")))
    assert "requirements.workloads[0].min_iops" in plan_view.check_text(plan_view.form_yaml(dict(values, **{"min-iops": "lots"})))
    assert plan_view.check_text(plan_view.form_yaml(values)) is None


def test_a_served_plan_searches_at_most_the_default_candidates():
    """Two plans of max_candidates 50,000,000 took the server's workers to 16 GB; on the command
    line the file may still raise it."""
    values = plan_view.prefill(None, core.default_catalog())
    text = plan_view.form_yaml(values)
    assert plan_view.check_text(text + "max_candidates: 5000000\n") is None
    error = plan_view.check_text(text + "max_candidates: 50000000\n")
    assert error.startswith("max_candidates: a plan served to a client searches at most 5,000,000 candidates")
    assert "got 50,000,000" in error and "\n" not in error


def test_the_form_is_prefilled_from_the_set_up_on_screen_and_makes_a_plan(catalog):
    record = _setup_record(catalog, drives=16, level=5, engine="xinnor-xiraid", drive="kioxia-cm7-r-7.68tb", workload="read-1m")
    values = plan_view.prefill(record, catalog)
    assert values["drives"] == ["kioxia-cm7-r-7.68tb"] and values["engines"] == ["xinnor-xiraid"]
    assert values["platforms"] == ["supermicro-as-2125hs-tnr"] and values["strips"] == [4096]
    assert values["counts"] == "8, 12, 16" and 5 in values["levels"] and values["profile"] == "read-1m"
    assert values["min-iops"] == "" and values["min-bw"].endswith("GB/s")  # a sequential workload: a throughput target
    usable = record["capacity"]["usable_bytes"]
    plan = PlanSpec.model_validate(yaml.safe_load(plan_view.form_yaml(values)))
    assert 0.9 * usable <= plan.requirements.usable_bytes <= usable  # what the set-up has, two digits
    rate = record["workloads"][0]["total_bytes_per_s"]
    assert 0.7 * rate <= plan.requirements.workloads[0].min_bytes_per_s <= plan_view.TARGET_SHARE * rate
    assert plan.search.drive_counts == (8, 12, 16) and plan.search.hot_spares == (0, 1)
    assert plan.objective == "usd_per_usable_tb"  # the drive, server and engine all have prices
    drive = catalog.drives["intel-d7-p5500-7.68tb"]  # every shipped drive is priced: take one price out of a copy
    without = dataclasses.replace(catalog, drives={**catalog.drives, drive.name: drive.model_copy(
        update={"price_usd": None, "price_date": None, "price_kind": None})})
    unpriced = plan_view.prefill(_setup_record(without, drive=drive.name), without)
    assert unpriced["objective"] == "drives"
    blank = plan_view.form_plan(dict(values, **{"max-price": "", "p99": "1500", "priced": ["priced"], "engines": []}))
    assert "max_price_usd" not in blank["requirements"] and "engines" not in blank["search"]
    assert blank["requirements"]["workloads"][0]["max_latency_us"] == {"p99": 1500} and blank["search"]["priced_only"] is True


def test_a_ranked_row_opens_in_the_controls_and_adds_to_the_comparison(catalog):
    row = {"rank": 2, "platform": "supermicro-as-2125hs-tnr", "drive": "kioxia-cm7-r-7.68tb", "drives": 12, "level": 6,
           "strip_bytes": 65536, "engine": "xinnor-xiraid", "overprovisioning": 0.1, "hot_spares": 1}
    setup = plan_view.row_setup(row, {"workload": "randread-4k", "numjobs": 32, "iodepth": None})
    assert setup["namespace_mode"] == "op" and setup["namespace_value"] == "10" and setup["drives"] == 12
    entry, note = plan_view.compare_entry(row, setup, [], None, catalog)
    assert entry["label"].startswith("A: plan #2 12x RAID6 Xinnor xiRAID Classic 4.0 +1 spare (randread-4k") and "added" in note
    direct = core.compute(setup, catalog=catalog)
    assert entry["record"]["workloads"][0]["total_iops"] == direct["workloads"][0]["total_iops"]
    assert entry["record"]["scenario"]["array"]["namespace_bytes"] < 7.68e12 * 0.91
    guard.check_value("compare", "data", [entry])  # the comparison's own shape
    full, why = plan_view.compare_entry(row, setup, [entry] * guard.MAX_COMPARE_ENTRIES, None, catalog)
    assert full is None and "clear the comparison" in why
    bad, why = plan_view.compare_entry(row, dict(setup, drives=1), [], None, catalog)
    assert bad is None and "cannot be added" in why


def test_the_guard_takes_the_forms_choices_and_refuses_other_shapes():
    guard.check_value("plan-levels", "value", [5, 6])
    guard.check_value("plan-drives", "value", ["kioxia-cm7-r-3.84tb"])
    guard.check_value("plan-rows", "data", [{"rank": 1, "platform": "p", "drive": "d", "drives": 8, "level": 6,
                                             "strip_bytes": 65536, "engine": "e", "overprovisioning": 0.0, "hot_spares": 0}])
    for component, prop, value in (("plan-levels", "value", ["five"]), ("plan-drives", "value", {"a": 1}),
                                   ("plan-rows", "data", [{"rank": "first"}]), ("plan-job", "data", {"id": 1}),
                                   ("plan-usable", "value", ["100 TB"])):
        with pytest.raises(guard.PayloadError):
            guard.check_value(component, prop, value)


def test_plans_run_in_a_bounded_pool_with_progress():
    runner = PlanRunner(workers=1)
    try:
        first = runner.start(yaml.safe_dump(SMALL))
        assert first is not None and runner.start(yaml.safe_dump(SMALL)) is None  # one at a time in a pool of one
        seen = []
        deadline = time.monotonic() + 120
        while (status := runner.poll(first))["state"] == "running" and time.monotonic() < deadline:
            seen.append(plan_view.progress_text(status)[0])
            time.sleep(0.2)
        assert status["state"] == "done" and status["answer"]["result"]["set_ups_ranked"] >= 1
        assert status["stages"]["fluid"][0] >= 1 and seen and all(s.startswith("planning: ") for s in seen)
        assert runner.poll("nope") == {"state": "unknown"}
        again = runner.start("requirements: {usable_bytes: -1}\n")
        while (status := runner.poll(again))["state"] == "running":
            time.sleep(0.2)
        assert status["answer"]["error"].startswith("requirements")
    finally:
        runner.shutdown()
    assert not runner.worker_pids()


def test_the_view_is_on_the_page_with_its_callbacks(catalog):
    app = create_app(catalog, warm=False)
    ids = set()

    def walk(node):
        ids.add(getattr(node, "id", None))
        children = getattr(node, "children", None) or []
        for child in children if isinstance(children, (list, tuple)) else [children]:
            if not isinstance(child, str):
                walk(child)
    walk(app.layout)
    form = {f"plan-{f}" for f in plan_view.FORM}
    assert {"plan-view", "plan-text", "plan-advanced", "plan-run", "plan-progress", "plan-status", "plan-ranked-table",
            "plan-pareto", "plan-families", "plan-open-1", f"plan-add-{plan_view.ROWS}"} | form <= ids
    assert any("plan-row-1.children" in key for key in app.callback_map)
    assert any("compare.data" in key for key in app.callback_map if "plan-note" in key)
    app.nvsim_runner.shutdown()
    app.nvsim_plans.shutdown()


def test_the_status_carries_the_plan_s_fio_warnings_and_notes():
    """`nvsim plan` prints the fio reader's not-modelled warnings and notes; the dashboard's plan view
    showed none of them (a helper's note): its status line carries them."""
    out = plan_view.plan_from_text(yaml.safe_dump(SMALL))
    assert "fio options" not in plan_view.answer_outputs(out)[0]
    out["result"] = dict(out["result"], warnings=["job.fio: fio options not modelled (nvsim ignores them): fsync"],
                         notes=["a note"])
    status = plan_view.answer_outputs(out)[0]
    assert "fio options not modelled (nvsim ignores them): fsync" in status and status.endswith("a note")


def test_the_best_plan_opened_as_a_set_up_shows_the_numbers_the_plan_promised(catalog):
    # Open and Add to compare took the workload on screen, not the plan's: a plan of 4K random reads
    # at 128 jobs x QD16 promised 18.06M IOPS and 872 W for 24x Solidigm D5-P5336 61.44 TB on xiRAID,
    # and the opened set-up (the boxes blank: 192 jobs x QD32) showed 24.1M IOPS and 1,026 W
    plan = {"requirements": {"usable_bytes": "1.3 PB", "workloads": [
                {"name": "workload", "profile": "randread-4k", "numjobs": 128, "iodepth": 16, "min_iops": "10M"}]},
            "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["solidigm-d5-p5336-61.44tb"], "levels": [6],
                       "engines": ["xinnor-xiraid", "graid-supremeraid-sr1010"], "drive_counts": [24], "strips_bytes": [4096],
                       "hot_spares": [0]},
            "objective": "usd_per_usable_tb", "top": 10, "confirm": 0}
    out = plan_view.plan_from_text(yaml.safe_dump(plan))
    best, store = out["result"]["ranked"][0], plan_view.answer_outputs(out, catalog)[-1]
    guard.check_value("plan-rows", "data", store)  # the store's own shape, as the browser sends it back
    on_screen = {"workload": "randrw-70-30-4k", "numjobs": None, "iodepth": None}
    setup = plan_view.row_setup(store[0], on_screen)
    assert (setup["workload"], setup["numjobs"], setup["iodepth"]) == ("randread-4k", 128, 16)
    promised, shown = best["workloads"]["workload"], core.compute(setup, catalog=catalog)["workloads"][0]
    assert shown["total_iops"] == pytest.approx(promised["iops"], rel=1e-9)
    assert shown["cost_power"]["power_w"] == pytest.approx(promised["power_w"], rel=1e-9)
    entry, _ = plan_view.compare_entry(store[0], setup, [], None, catalog)
    assert entry["record"]["workloads"][0]["total_iops"] == pytest.approx(promised["iops"], rel=1e-9)
    fio = dict(store[0], workload=None)  # a plan's workload that is no preset (a fio job file): the one on screen
    assert plan_view.row_setup(fio, on_screen)["workload"] == "randrw-70-30-4k"
