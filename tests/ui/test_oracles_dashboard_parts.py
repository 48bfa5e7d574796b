"""Pure parts of the dashboard against arithmetic worked by hand: a datasheet drive's assumed raw
NAND (the power of two at or above 1.07 x its capacity), the report's cost rows (cents where a
figure is under a few dollars) and its utilisation bars (a bar as wide as the resource's busy share)."""

from __future__ import annotations

import re

import pytest

from dashboard import datasheet, report


@pytest.mark.parametrize("capacity_bytes, raw_bytes", [
    (7_680_000_000_000, 2**43),    # 7.68 TB x 1.07 = 8.22e12: the next power of two is 8 TiB (8.80e12)
    (3_840_000_000_000, 2**42),    # 4.11e12 -> 4 TiB (4.40e12)
    (1_000_000_000_000, 2**40),    # 1.07e12 -> 1 TiB (1.0995e12)
    (1_100_000_000_000, 2**41),    # 1.177e12 is past 1 TiB -> 2 TiB
])
def test_a_datasheet_drives_raw_nand_is_the_power_of_two_above_its_capacity_and_spare(capacity_bytes, raw_bytes):
    assert datasheet.raw_nand_bytes(capacity_bytes) == raw_bytes


def test_the_reports_cost_rows_keep_cents_where_a_figure_is_small():
    rows = dict(report.cost_rows({"cost_power": {"price_usd": 123456.4, "power_w": 1234.4, "usd_per_usable_tb": 2345.6,
                                                 "usd_per_kiops": 0.047, "usd_per_gb_per_s": 3456.7},
                                  "wear": {"effective_dwpd": 0.5, "rated_dwpd": 1, "lifetime_years": 10.0}}))
    assert rows["price"] == "$123,456" and rows["power at this load"] == "1,234 W"
    assert rows["per usable TB"] == "$2,346" and rows["per 1K IOPS"] == "$0.05" and rows["per GB/s"] == "$3,457"


def test_the_reports_utilisation_bars_are_as_wide_as_the_busy_share():
    page = report.utilisation_html({"utilisation": {"drive NAND": 0.8, "host cores": 0.25}})
    widths = [float(w) for w in re.findall(r"width:([\d.]+)%", page)]
    assert widths == [80.0, 25.0]  # busiest first
    assert "class='top'" in page and page.count("class='top'") == 1  # the busiest resource marked
