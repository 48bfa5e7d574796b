"""Hunt 5's dashboard findings, held: the fio upload names fio's log options as writing nothing
there (``nvsim fio`` writes the files; the upload runs no job), and refuses a value past the
workload's bounds in one line, as ``nvsim fio`` and a scenario do."""

from __future__ import annotations

import pytest

from dashboard import core
from nvsim import InputError
from nvsim.catalog import default_catalog
from nvsim.fio.logs import LOG_FILE_OPTIONS

JOB = "[a]\nrw=randread\nioengine=libaio\ndirect=1\nruntime=10\ntime_based\n"


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def test_log_options_in_an_upload_are_named_as_writing_nothing(catalog):
    text = JOB + "write_bw_log=bw\nwrite_lat_log=lat\nlog_avg_msec=1000\n"
    upload = core.import_fio(text, "job.fio", None, catalog)
    assert len(upload["workloads"]) == 1
    assert upload["warning"] == ("job.fio: fio log options write nothing on the dashboard (nvsim fio writes the log files): "
                                 "write_bw_log, write_lat_log, log_avg_msec")


@pytest.mark.parametrize("option", LOG_FILE_OPTIONS)
def test_every_log_option_is_named(catalog, option):
    value = {"log_avg_msec": "=1000", "log_hist_msec": "=1000", "per_job_logs": "=0", "log_offset": "=1"}.get(option, "")
    warning = core.import_fio(JOB + f"{option}{value}\n", "up.fio", None, catalog)["warning"]
    assert warning.endswith(f"write nothing on the dashboard (nvsim fio writes the log files): {option}"), warning
    assert "\n" not in warning


def test_the_log_note_joins_the_unmodelled_warning_and_is_absent_without_log_options(catalog):
    assert core.import_fio(JOB, "up.fio", None, catalog)["warning"] == ""
    both = core.import_fio(JOB + "exitall\n[b]\nrw=randread\nioengine=libaio\ndirect=1\nwrite_iops_log\n", "up.fio", None, catalog)
    unmodelled, logs = both["warning"].split("; ")
    assert "not modelled" in unmodelled and "exitall" in unmodelled
    assert logs.endswith("write nothing on the dashboard (nvsim fio writes the log files): write_iops_log")


@pytest.mark.parametrize("line, option", [("thinktime=2h", "thinktime"), ("rate_iops=99999999999999999999999", "rate_iops"),
                                          ("loops=18446744073709551617", "loops"), ("flow=99999999999999999999999", "flow")])
def test_an_upload_past_the_workload_bounds_is_refused_in_one_line(catalog, line, option):
    with pytest.raises(InputError) as refused:
        core.import_fio(JOB + line + "\n", "up.fio", None, catalog)
    message = str(refused.value)
    assert message.startswith(f"up.fio line 7: {option}: ") and "\n" not in message, message


@pytest.mark.parametrize("option", core.FIO_REPORT_OPTIONS)
def test_report_options_in_an_upload_are_named_as_changing_nothing(catalog, option):
    """percentile_list and the percentile switches shape nvsim fio's JSON; the dashboard's cards and
    tables show their own percentiles, so the upload says they change nothing there."""
    value = {"percentile_list": "=50:99", "clat_percentiles": "=1", "lat_percentiles": "=1"}.get(option, "")
    warning = core.import_fio(JOB + f"{option}{value}\n", "up.fio", None, catalog)["warning"]
    assert warning == f"up.fio: fio report options change nothing on the dashboard (they shape nvsim fio's JSON): {option}"
