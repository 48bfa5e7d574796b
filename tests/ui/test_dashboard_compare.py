"""Issue 40 without a browser: choices a set-up refuses (dashboard/choices.py), the Compare view
(dashboard/compare.py) and the customer report's new parts (dashboard/report.py)."""

from __future__ import annotations

import dataclasses

import pytest

from dashboard import choices, compare, core, report
from nvsim import parse_scenario


def setup(**changes):
    return core.default_setup() | changes


def scenario(catalog, **changes):
    return core.scenario_dict(setup(**changes), catalog=catalog)


def options(catalog, control, **changes):
    return {o["value"]: o for o in choices.choice_options(catalog, scenario(catalog, **changes))[control]}


def reason(option) -> str:
    return option["label"].children[1].children


def test_vroc_is_offered_only_where_the_specs_accept_it_with_their_reason(catalog):
    amd = options(catalog, "engine", level=5)
    assert amd["intel-vroc"]["disabled"] and "runs only on Intel CPUs" in reason(amd["intel-vroc"])
    intel = options(catalog, "engine", level=5, platform="dell-poweredge-r750", drives=8)
    assert not intel["intel-vroc"]["disabled"]
    parse_scenario(scenario(catalog, level=5, platform="dell-poweredge-r750", drives=8, engine="intel-vroc"), catalog)  # the same rule


def test_a_cards_drive_limit_and_an_engines_levels_disable_it(catalog):
    engines = options(catalog, "engine", strip_bytes=256 * 1024)  # 24 drives, RAID6, a strip MegaRAID takes
    assert engines["lenovo-thinksystem-raid-940-16i"]["disabled"] and "at most 16 drives" in reason(engines["lenovo-thinksystem-raid-940-16i"])
    assert not engines["broadcom-megaraid-9670w-16i"]["disabled"]
    small = options(catalog, "engine", drives=16)  # the default 4 KiB strip: no MegaRAID virtual drive takes it
    assert small["broadcom-megaraid-9670w-16i"]["disabled"]
    assert "takes strips of 8 KiB to 1024 KiB" in reason(small["broadcom-megaraid-9670w-16i"])
    assert engines["none"]["disabled"] and not engines["linux-md"]["disabled"]
    levels = options(catalog, "level", engine="intel-vroc", platform="dell-poweredge-r750", drives=8, level=5)
    assert levels[6]["disabled"] and not levels[10]["disabled"]


def test_every_disabled_choice_is_exactly_one_the_specs_refuse(catalog):
    base = scenario(catalog, level=5)
    for control, section, where in choices.CONTROLS:
        for option in choices.choice_options(catalog, base)[control]:
            refused = choices.refusal(choices._with(base, where, option["value"]), catalog)
            assert option["disabled"] == (refused is not None), (control, option["value"])


def test_against_an_invalid_set_up_every_choice_stays_open(catalog):
    invalid = scenario(catalog, drives=3)
    assert choices.refusal(invalid, catalog)
    assert not any(o["disabled"] for opts in choices.choice_options(catalog, invalid).values() for o in opts)
    assert choices.invalid_outputs({"errors": {"drives": "x"}})[:2] == (True, True)
    assert choices.invalid_outputs(core.compute(setup(), catalog=catalog))[:2] == (False, False)


def _entries(catalog, engines):
    entries = []
    for engine in engines:
        entries, _ = compare.add_entry(core.compute(setup(engine=engine), catalog=catalog), None, entries, catalog)
    return entries


def test_compare_labels_rows_and_curves(catalog):
    entries = _entries(catalog, ("linux-md", "graid-supremeraid-sr1010"))
    assert entries[0]["label"].startswith("A: 24x KIOXIA CM7-R 3.84 TB RAID6, Linux kernel md (mdadm)")
    table = str(compare.compare_table(entries, catalog))
    for row in ("compare-row-price_usd", "compare-row-power_w", "compare-row-usd_per_usable_tb", "Graid Technology SupremeRAID SR-1010"):
        assert row in table
    drawn, note = compare.curves_of(entries, catalog)
    assert [label for label, _ in drawn] == [e["label"] for e in entries] and note == ""
    assert all(len(curve["points"]) >= 8 for _, curve in drawn)


class FakeRunner:
    def __init__(self):
        self.started = []

    def start(self, key, scenario, **_):
        self.started.append(key)
        return f"job-{len(self.started)}"


def test_simulate_all_runs_each_fluid_set_up_in_turn_and_keeps_the_event_numbers(catalog):
    entries = _entries(catalog, ("linux-md", "xinnor-xiraid"))
    runner = FakeRunner()
    job, text = compare.start_next(entries, -1, None, catalog, runner)
    assert job["index"] == 0 and runner.started == [entries[0]["record"]["key"]] and "set-up A" in text
    event = [dict(w, fidelity="event") for w in entries[0]["record"]["workloads"]]
    done = compare.finished(entries, job, {"workloads": event, "rebuild": None}, catalog)
    assert done[0]["record"]["fidelity"] == "event" and done[0]["label"].endswith("event)") and done[1] == entries[1]
    following, _ = compare.start_next(done, 0, None, catalog, runner)
    assert following["index"] == 1
    assert compare.start_next(done[:1], 0, None, catalog, runner) == (None, "every set-up is in event mode")


def test_the_report_names_products_shows_both_rebuilds_and_escapes_its_fields(catalog):
    record = core.compute(setup(engine="linux-md"), catalog=catalog)
    page = report.report_html(record, catalog, customer="<b>ACME</b>", project="DB", when="2026-12-01")
    assert "&lt;b&gt;ACME&lt;/b&gt;" in page and "<b>ACME</b>" not in page and "2026-12-01" in page
    assert "<h1>24 x KIOXIA CM7-R 3.84 TB, RAID6, Linux kernel md (mdadm)</h1>" in page
    idle, loaded = report.rebuilds(record, catalog)
    assert not idle["under_load"] and loaded["under_load"] and loaded["rebuild_hours"] > idle["rebuild_hours"]
    assert "<svg class='curve'" in page


def test_the_report_lists_only_its_own_engines_misses(catalog):
    record = core.compute(setup(), catalog=catalog)  # SupremeRAID
    rows = report.validation_status("kioxia-cm7-r-3.84tb", "graid-supremeraid-sr1010", "supermicro-as-2125hs-tnr")
    others = [r["id"] for r in rows if r["status"] == "OUT" and "engine" not in r["models"]]
    page = report.validation_html(record, catalog)
    assert page.index("<td>engine</td>") < page.index("<td>drive</td>")
    assert not any(f"<td>{other}</td>" in page for other in others)
    if not others:
        pytest.skip("no other engine's miss shares this drive or platform")


def test_a_part_without_a_price_is_named_as_sold(catalog):
    drive = catalog.drives["kioxia-cd6-r-15.36tb"]  # every shipped part is priced: take one price out of a copy
    unpriced = dataclasses.replace(catalog, drives={**catalog.drives, drive.name: drive.model_copy(
        update={"price_usd": None, "price_date": None, "price_kind": None})})
    record = core.compute(setup(drive=drive.name), catalog=unpriced)
    workload = record["workloads"][0]
    assert workload["cost_power"]["price_missing"]
    assert core.missing_prices(record, workload, unpriced) == "KIOXIA CD6-R 15.36 TB"
    assert "no price for KIOXIA CD6-R 15.36 TB" in report.report_html(record, unpriced)


def test_the_comparisons_html_export_holds_the_curves(catalog):
    from dashboard import app

    entries = _entries(catalog, ("linux-md", "xinnor-xiraid"))
    fig = compare.curves_figure(entries, catalog)
    assert sum(trace.mode == "lines" for trace in fig.data) == 4  # IOPS and latency of each set-up
    page = app.charts_html("nvsim: set-ups compared", [fig], [])
    assert "IOPS and latency against load" in page


def test_compare_cells_are_never_in_e_notation_and_hours_read_as_the_report_writes_them():
    """The Compare table's rebuild time, GB/s and DWPD cells were ``f"{v:.3g}"``: an md rebuild under
    load of 1,490 h (docs/models/rebuild.md) read "1.49e+03", where the report writes 1,490 h."""
    import re
    from nvsim.units import format_significant
    e_notation = re.compile(r"\d[eE][-+]?\d")
    cell = {key: fmt for _, key, fmt in compare.TABLE_ROWS}
    assert cell["rebuild_hours"](1490.2) == format_significant(1490.2, 3) == "1,490"
    assert cell["rebuild_hours"](0.0485) == "0.0485"
    for key, value in (("read_bytes_per_s", 1.234e12), ("write_bytes_per_s", 2.5e12), ("effective_dwpd", 1234.0)):
        assert not e_notation.search(cell[key](value)), key
    assert cell["read_bytes_per_s"](260e9) == "260" and cell["effective_dwpd"](4.935085) == "4.94"


def test_the_compare_table_says_no_writes_where_the_cards_do(catalog):
    # a random read's drive lifetime and write amplification read "n/a" in the table (as a missing
    # price does) where the cards and the report say "no writes"
    record = core.compute(setup(engine="xinnor-xiraid"), catalog=catalog)
    table = compare.compare_table([{"label": "A", "record": record}], catalog)
    cells = {tr.id: tr.children[1].children for tr in table.children[1].children}
    assert cells["compare-row-lifetime_years"] == cells["compare-row-raid_waf"] == cells["compare-row-waf_nand"] == "no writes"
    writes = core.compute(setup(engine="xinnor-xiraid", workload="randwrite-4k"), catalog=catalog)
    table = compare.compare_table([{"label": "B", "record": writes}], catalog)
    cells = {tr.id: tr.children[1].children for tr in table.children[1].children}
    assert cells["compare-row-lifetime_years"].endswith(" years") and cells["compare-row-raid_waf"] != "no writes"
