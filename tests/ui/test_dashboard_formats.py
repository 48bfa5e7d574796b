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
