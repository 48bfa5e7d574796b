"""fio's log files (nvsim.fio.logs) against fio's rules worked by hand: an entry every log_avg_msec
and a last one flushed at the end of a run that is not a whole number of windows; bandwidth in KiB/s
(1,024 bytes); the histogram log's windows together hold every I/O of the run once; logs past
``MAX_LOG_BYTES`` are refused in one line before any file is written."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.errors import InputError
from nvsim.fio import logs
from nvsim.fio.logs import LogEntry, log_files

READS = {"ios": 10_000, "bytes": 10_000 * 4096, "mean_latency_ns": 80_000.0,
         "latencies_ns": np.full(1000, 80_000.0)}


def _entry(**options) -> LogEntry:
    return LogEntry("j", {k: str(v) for k, v in options.items()}, 1, 1.0, {"read": READS})


def test_logs_have_an_entry_per_window_and_a_last_flush_at_the_end():
    files = log_files(_entry(write_bw_log="j", write_iops_log="j", log_avg_msec=300))
    bw = [[int(x) for x in line.split(", ")] for line in files["j_bw.1.log"]]
    assert [r[0] for r in bw] == [300, 600, 900, 1000]  # 1 s in 300 ms windows: three, then the flush at 1,000 ms
    assert {r[1] for r in bw} == {10_000 * 4096 // 1024}  # 40,000 KiB/s
    iops = [[int(x) for x in line.split(", ")] for line in files["j_iops.1.log"]]
    assert [r[0] for r in iops] == [300, 600, 900, 1000] and {r[1] for r in iops} == {10_000}
    whole = log_files(_entry(write_bw_log="j", log_avg_msec=250))["j_bw.1.log"]
    assert [int(line.split(", ")[0]) for line in whole] == [250, 500, 750, 1000]  # no second entry at the end


def test_log_offset_adds_fios_offset_column_before_the_priority():
    """fio 3.33's flush_samples: ``time, value, ddir, bs, prio`` and with log_offset=1 ``time, value,
    ddir, bs, offset, prio``; nvsim wrote five columns either way (fiologparser and other readers of
    a log_offset file then took the priority column for the offset)."""
    plain = log_files(_entry(write_bw_log="j", write_lat_log="j", log_avg_msec=500))
    assert plain["j_bw.1.log"] == ["500, 40000, 0, 0, 0", "1000, 40000, 0, 0, 0"]
    offsets = log_files(_entry(write_bw_log="j", write_lat_log="j", log_avg_msec=500, log_offset=1))
    assert offsets["j_bw.1.log"] == ["500, 40000, 0, 0, 0, 0", "1000, 40000, 0, 0, 0, 0"]
    assert offsets["j_clat.1.log"][0] == "500, 80000, 0, 0, 0, 0"
    assert log_files(_entry(write_bw_log="j", log_avg_msec=500, log_offset=0))["j_bw.1.log"] == plain["j_bw.1.log"]
    with pytest.raises(InputError, match=r"^log_offset: must be 0 or 1, got 'yes'$"):
        log_files(_entry(write_bw_log="j", log_offset="yes"))


def test_the_histogram_logs_windows_hold_every_io_once():
    files = log_files(_entry(write_hist_log="j", log_hist_msec=300))
    rows = [[int(x) for x in line.split(", ")] for line in files["j_clat_hist.1.log"]]
    assert [r[0] for r in rows] == [300, 600, 900, 1000]
    assert [sum(r[3:]) for r in rows] == [3000, 3000, 3000, 1000]  # the I/Os of each window's share of the second


@settings(max_examples=60, deadline=None)
@given(runtime_ms=st.integers(0, 5_000), window_ms=st.integers(1, 700), writes=st.booleans(),
       hist=st.booleans())
def test_the_planned_line_counts_are_the_lines_written(runtime_ms, window_ms, writes, hist):
    """The size check counts each log's lines without making them; the count is the lines made."""
    directions = {"read": READS, **({"write": READS} if writes else {})}
    options = {"write_hist_log": "j", "log_hist_msec": str(window_ms)} if hist else \
        {"write_bw_log": "j", "write_lat_log": "j", "log_avg_msec": str(window_ms)}
    entry = LogEntry("j", options, 1, runtime_ms / 1000, directions)
    planned = logs._log_plan(entry)
    assert {name: log.lines for name, log in planned.items()} == \
        {name: len(lines) for name, lines in log_files(entry).items()}


def test_logs_past_the_bound_are_refused_in_one_line_before_any_is_written(tmp_path):
    """fio's 1 ms windows over 10 hours: 36 million lines a log (about 1.2 GB each)."""
    entry = LogEntry("j", {"write_bw_log": str(tmp_path / "bw"), "log_avg_msec": "1"}, 1, 36_000.0, {"read": READS})
    with pytest.raises(InputError, match=r"^log_avg_msec: the logs would be about 1\.2 GB .*36,000,000 lines"):
        logs.write_log_files([entry], tmp_path)
    assert list(tmp_path.iterdir()) == []
    small = LogEntry("j", {"write_bw_log": str(tmp_path / "bw"), "log_avg_msec": "1000"}, 1, 36_000.0, {"read": READS})
    assert [p.name for p in logs.write_log_files([small], tmp_path)] == ["bw_bw.1.log"]
    assert len((tmp_path / "bw_bw.1.log").read_text().splitlines()) == 36_000
