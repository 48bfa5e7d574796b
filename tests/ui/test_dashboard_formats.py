"""The dashboard's and the report's counts, rates and times (dashboard.core.fmt_*): a value that
rounds up to 1,000 of its prefix takes the next one, as the plan's cells (si_text) and nvsim's own
formatters do: 999,700 IOPS read "1,000 K" where `nvsim run` writes 999.7 K IOPS, a latency of
999.7 us "1,000 µs", one of 999,999 us "1,000 ms"."""

from __future__ import annotations

from dashboard.core import fmt_count, fmt_gb_per_s, fmt_us, fmt_years


def test_a_value_that_rounds_to_a_thousand_takes_the_next_prefix():
    assert [fmt_count(v) for v in (999_700, 999.7, 999_400, 1e6)] == ["1.00 M", "1.00 K", "999 K", "1.00 M"]
    assert [fmt_us(v) for v in (999.7, 999_999, 999.4, 50.5)] == ["1.00 ms", "1.00 s", "999 µs", "50.5 µs"]
    assert [fmt_gb_per_s(v) for v in (999.7e6, 999.7e3, 6.46e6)] == ["1.00 GB/s", "1.00 MB/s", "6.46 MB/s"]
    assert fmt_gb_per_s(1.2e12) == "1,200 GB/s" and fmt_count(1.2e12) == "1,200 G"  # past the largest prefix: as before


def test_a_drive_life_takes_three_significant_digits_as_nvsim_run_writes_it():
    # it was two (1.013 years read "1 years") and e-notation below 1e-4 years
    assert [fmt_years(v) for v in (1.013, 12.34, 0.0000123, 250.4, None)] == [
        "1.01 years", "12.3 years", "0.0000123 years", "250 years", "no writes"]


def _card_texts(cards) -> dict[str, tuple[str, str]]:
    return {c.children[1].id: (c.children[1].children, c.children[2].children) for c in cards}


def test_the_rebuild_card_writes_hours_and_speed_as_the_report_does_never_e_notation():
    # an md rebuild under a 4K random read on 24x 61.44 TB drives took 4,093 h at 4.17 MB/s: the card
    # read "4.09e+03 h" (.3g) where the report writes "4,093 h"; its speed 144.5 MB/s where the report has 144 MB/s
    from dashboard import report
    from dashboard.app import rebuild_cards
    rebuild = {"rebuild_hours": 4092.864664745248, "rebuild_mb_per_s": 4.169858537877882, "under_load": True,
               "rebuild_limited_by": "md_do_sync", "data_loss_probability": 0.00352, "mttdl_years": 1470.2}
    texts = _card_texts(rebuild_cards(rebuild))
    cells = report._rebuild_cells(rebuild)
    assert texts["m-rebuild"][0] == cells[0] == "4,093 h"
    assert texts["m-rebuild"][1].startswith(cells[1] + ",") and cells[1] == "4.17 MB/s"
    idle = _card_texts(rebuild_cards({"rebuild_hours": 118.2, "rebuild_mb_per_s": 144.47, "under_load": False}))
    assert idle["m-rebuild"] == ("118 h", "144 MB/s, idle array (Simulate: under load)")


def test_the_dwpd_card_writes_three_significant_digits_never_e_notation():
    from dashboard.app import cards
    workload = {"name": "w", "fidelity": "fluid", "total_iops": 1.0, "read_iops": 0.0, "write_iops": 1.0,
                "total_bytes_per_s": 4096.0, "read_bytes_per_s": 0.0, "write_bytes_per_s": 4096.0,
                "wear": {"effective_dwpd": 0.0000123, "member_dwpd": 0.0000456, "rated_dwpd": 0.58,
                         "lifetime_years": 235_772.0, "warranty_years": 5}}
    record = {"workloads": [workload], "scenario": {"array": {}},
              "capacity": {"usable_bytes": 1e15, "raw_bytes": 1.1e15, "member_bytes": 6e13, "efficiency": 0.9}}
    value, sub = _card_texts(cards(record))["m-dwpd"]
    assert value == "0.0000123" and "0.0000456 drive writes/day" in sub
    workload["wear"] |= {"effective_dwpd": 1234.4, "member_dwpd": 2345.6}
    value, sub = _card_texts(cards(record))["m-dwpd"]
    assert value == "1,234" and "2,346 drive writes/day" in sub


def test_the_reports_model_line_names_the_seed_the_numbers_are_of():
    # the event mode's numbers are those of the scenario's seed; the report's Model line named the
    # mode only ("nvsim 0.1.0, event mode"), so two seeds' reports read alike
    from dashboard.report import fields_html
    line = fields_html("ACME", "DB", "2026-12-01", "event mode", seed=7)
    assert "<b>Model</b>nvsim " in line and ", event mode, seed 7</div>" in line
    from dashboard import core
    from dashboard.report import report_html
    record = core.compute(core.default_setup())
    assert ", fluid mode (mean latency), seed 1</div>" in report_html(record, when="2026-12-01")


def test_the_scrub_card_writes_hours_as_the_report_does_never_e_notation():
    # md's scrub of 24x Solidigm D5-P5336 61.44 TB under a 4K 70/30 mix takes 16,667 h: the card read
    # "1.67e+04 h" (.3g) where the report's section writes "16,667 h"
    from dashboard.app import scrub_cards
    scrub = {"idle_hours": 119.1258, "idle_mb_per_s": 143.3, "idle_limited_by": "md stripe thread (raid5d) at 100%",
             "loaded_hours": 16666.67, "workload": "randrw-70-30-4k", "host_share": 0.99}
    card = _card_texts(scrub_cards(scrub))["m-scrub"]
    assert card[0] == "119 h" and "; 16,667 h under randrw-70-30-4k" in card[1] and "e+" not in card[1]
    assert _card_texts(scrub_cards(dict(scrub, idle_hours=1234.4)))["m-scrub"][0] == "1,234 h"
