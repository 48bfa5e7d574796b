"""`nvsim run`'s hours (rebuild, the wait for a replacement, scrub, resync after an unclean
shutdown) are written to three significant digits, as the one-page report and the dashboard write
them: with two decimals a 1.3 s rebuild of a 2 GB namespace read "0.00 h" beside its 1,558 MB/s,
and unclean-shutdown/md-raid6.yaml's resync read "0.05 h" idle and under load where the report
gave 0.0485 h and 0.0518 h."""

from __future__ import annotations

from rich.console import Console

from nvsim.report import print_resilience
from nvsim.units import format_significant

REBUILD = {"rebuild_hours": 0.00035654824291154016, "rebuild_mb_per_s": 1558.14975, "replace_hours": 0.0025,
           "rebuild_limited_by": "rebuild priority normal", "data_loss_probability": 5.6e-16,
           "p_another_failure": 5.0e-19, "p_unrecoverable_read": 5.6e-16, "mttdl_years": 3.2e16,
           "replacement": "replaced after array.replace_hours", "workload": "rr"}
SCRUB = {"protocol": {"reads": "every member", "parity_on": "host", "writes_member": False},
         "idle_hours": 0.01234, "idle_mb_per_s": 2000.0, "idle_limited_by": "drive NAND",
         "workload": "rr", "loaded_hours": 0.01567, "loaded_mb_per_s": 1500.0, "loaded_limited_by": "drive NAND",
         "host_iops_during": 1000.0, "host_iops_optimal": 1200.0}
RESYNC = {"workload_at_crash": "rw", "write_iops_at_crash": 5000.0, "span_bytes": 35791394133.333336,
          "why": "the bitmap's dirty chunks", "idle_hours": 0.04854518518518519, "idle_limited_by": "md speed_limit_max",
          "workload": "rw", "loaded_hours": 0.05178382055898594, "loaded_limited_by": "md speed_limit_min",
          "host_iops_during": 900.0, "host_iops_optimal": 1000.0}


def _text() -> str:
    console = Console(width=200, record=True, color_system=None)
    print_resilience(console, {"if_one_drive_fails": REBUILD, "scrub": SCRUB, "unclean_shutdown": RESYNC})
    return console.export_text()


def test_every_hour_figure_has_three_significant_digits_as_the_report():
    text = _text()
    for value in (REBUILD["rebuild_hours"], REBUILD["replace_hours"], SCRUB["idle_hours"], SCRUB["loaded_hours"],
                  RESYNC["idle_hours"], RESYNC["loaded_hours"]):
        assert f" {format_significant(value, 3)} h" in text, value
    assert "0.00 h" not in text  # no time that is not zero reads as zero
    assert "0.000357 h" in text and "0.0485 h" in text and "0.0518 h" in text
