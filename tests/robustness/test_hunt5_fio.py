"""Hunt 5's `nvsim fio` findings, held (each is one line, exit 2, no traceback, nothing written):

* a log prefix in a folder that exists but cannot be written (/proc) is refused before anything
  runs, in the job file and in fio's command-line form; the logs are written all or none;
* a bare ``write_*_log`` takes the job's name as its prefix: its folder is checked as a prefix
  given as a value is, and none is created;
* the job entries a report (and its logs) hold are bounded, ``NVSIM_MAX_FIO_JOB_ENTRIES`` raises it;
* every value the reader sets on a job's ``WorkloadSpec`` (think time, loops, io_size, the rate
  cap, flow) is held to the spec's bounds, as a scenario's workload is.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nvsim.catalog import default_catalog
from nvsim.errors import EXIT_INPUT_ERROR, InputError
from nvsim.fio import parse_fio_jobfile
from nvsim.fio.logs import LogEntry, check_log_directories, write_log_files
from nvsim.fio.run import MAX_JOB_ENTRIES, MAX_JOB_ENTRIES_ENV, check_entries, job_entry_count
from nvsim.specs import WorkloadSpec

ROOT = Path(__file__).resolve().parents[2]
SYSTEM = str(ROOT / "scenarios/graid-gen5-raid6")
UNWRITABLE = "/proc"  # a folder that exists and in which no file can be made, root or not
needs_proc = pytest.mark.skipif(not Path(UNWRITABLE).is_dir(), reason="needs Linux's /proc")


def _fio(tmp_path: Path, *args: str, text: str | None = None, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`python -m nvsim.cli fio` in ``tmp_path`` (the job file ``job.fio`` when ``text`` is given)."""
    if text is not None:
        (tmp_path / "job.fio").write_text(text, encoding="utf-8")
    environ = {key: value for key, value in os.environ.items() if key != MAX_JOB_ENTRIES_ENV}
    environ.update({"PYTHONPATH": str(ROOT), **(env or {})})
    command = [sys.executable, "-m", "nvsim.cli", "fio", *(["job.fio"] if text is not None else []), *args,
               "--system", SYSTEM, "--fidelity", "fluid", "-o", "out.json"]
    done = subprocess.run(command, cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


def _refused(tmp_path: Path, result: tuple[int, str, str], *needles: str) -> str:
    """Exit 2, one line on stderr holding every needle, no traceback, and nothing left but the job file."""
    code, out, err = result
    lines = err.strip().splitlines()
    assert code == EXIT_INPUT_ERROR, err
    assert "Traceback" not in err and len(lines) == 1, err
    assert lines[0].startswith("error: ")
    for needle in needles:
        assert needle in lines[0], lines[0]
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert left in ([], ["job.fio"]), left  # no out.json, no log, no temporary, no folder
    return lines[0]


# ---------------------------------------------------------------- 4: a log folder nobody can write to


@needs_proc
def test_a_log_prefix_in_an_unwritable_folder_is_refused_before_any_log_is_written(tmp_path):
    text = ("[global]\nioengine=libaio\ndirect=1\nruntime=2\ntime_based\nlog_avg_msec=1000\n"
            "[a]\nrw=randread\nbs=4k\nwrite_bw_log=a\n"
            f"[b]\nrw=randread\nbs=4k\nwrite_bw_log={UNWRITABLE}/b\n")
    _refused(tmp_path, _fio(tmp_path, text=text), "write_bw_log", f"'{UNWRITABLE}/b'", "cannot write in the folder", "job [b]")


@needs_proc
def test_the_command_line_form_of_an_unwritable_log_prefix_is_refused_alike(tmp_path):
    _refused(tmp_path, _fio(tmp_path, f"--write_bw_log={UNWRITABLE}/xx", "--log_avg_msec=1000", "--name=a", "--rw=randread",
                            "--ioengine=libaio", "--direct=1", "--runtime=2", "--time_based", "--name=b", "--rw=randread"),
             "write_bw_log", f"'{UNWRITABLE}/xx'", "cannot write in the folder")


def _entry(options: dict, index: int, name: str = "a") -> LogEntry:
    return LogEntry(name, {"log_avg_msec": "1000", **options}, index, 3.0,
                    {"read": {"ios": 3000, "bytes": 3000 * 4096, "mean_latency_ns": 1e5, "latencies_ns": None}})


@needs_proc
def test_log_files_are_written_all_or_none(tmp_path):
    """A file that cannot be written after the check (its folder gone): one line naming its
    option, and neither the logs before it nor any temporary is left."""
    entries = [_entry({"write_bw_log": "first"}, 1), _entry({"write_lat_log": "second"}, 2),
               _entry({"write_iops_log": f"{UNWRITABLE}/third"}, 3)]
    with pytest.raises(InputError) as refused:
        write_log_files(entries, tmp_path)
    assert str(refused.value).startswith("write_iops_log: cannot write the log") and "no log was written" in str(refused.value)
    assert list(tmp_path.iterdir()) == []
    written = write_log_files(entries[:2], tmp_path)  # and when every file can be written, all are
    assert sorted(p.name for p in written) == sorted(p.name for p in tmp_path.iterdir()) == [
        "first_bw.1.log", "second_clat.2.log", "second_lat.2.log", "second_slat.2.log"]
    assert (tmp_path / "first_bw.1.log").read_text().splitlines() == ["1000, 4000, 0, 0, 0", "2000, 4000, 0, 0, 0",
                                                                      "3000, 4000, 0, 0, 0"]


# ---------------------------------------------------------------- 5: a bare write_*_log takes the job's name


@pytest.mark.parametrize("name", ["nosuchdir/deeper/a", "../hunt5-no-such-folder/x"])
def test_a_job_name_prefix_in_a_missing_folder_is_refused_and_no_folder_is_made(tmp_path, name):
    here = tmp_path / "run"
    here.mkdir()
    text = f"[{name}]\nrw=randread\nbs=4k\nioengine=libaio\ndirect=1\nruntime=2\ntime_based\nlog_avg_msec=1000\nwrite_bw_log\n"
    _refused(here, _fio(here, text=text), "write_bw_log", f"the job's name {name!r}", "no folder", "fio creates none")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # nothing made beside the run's folder either


def test_a_job_name_prefix_is_checked_as_the_same_prefix_given_as_a_value(tmp_path):
    """One rule for both forms; the bare form in a folder that exists still writes there."""
    job = "[sub/a]\nrw=randread\nbs=4k\nioengine=libaio\nruntime=2\ntime_based\nlog_avg_msec=1000\n"
    parsed = {form: parse_fio_jobfile(job + form, "job.fio").jobs for form in ("write_bw_log\n", "write_bw_log=sub/a\n")}
    for jobs in parsed.values():
        with pytest.raises(InputError, match=r"^job.fio line 8: write_bw_log: .*no folder .*sub' to write the log in \(fio creates none\)"):
            check_log_directories(jobs, tmp_path)
    (tmp_path / "sub").mkdir()
    code, _, err = _fio(tmp_path, text=job + "write_bw_log\n")
    assert code == 0, err
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == ["job.fio", "out.json", "sub", "sub/a_bw.1.log"]


def test_a_log_name_taken_by_a_directory_is_refused_before_anything_runs(tmp_path):
    (tmp_path / "a_bw.1.log").mkdir()
    jobs = parse_fio_jobfile("[a]\nrw=randread\nwrite_bw_log\nlog_avg_msec=1000\n", "job.fio").jobs
    with pytest.raises(InputError, match=r"^job.fio line 3: write_bw_log: the job's name 'a' .*is a directory"):
        check_log_directories(jobs, tmp_path)


# ---------------------------------------------------------------- 6: the report's job entries are bounded


def test_numjobs_past_the_entry_bound_is_refused_before_anything_runs(tmp_path):
    text = "[a]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=1\nnumjobs=65536\n"
    line = _refused(tmp_path, _fio(tmp_path, text=text), "[a].numjobs", "65,536 job entries", f"at most {MAX_JOB_ENTRIES:,}",
                    MAX_JOB_ENTRIES_ENV)
    assert "without group_reporting" in line


def _parsed(text: str):
    return parse_fio_jobfile(text, "job.fio")


def test_the_entries_count_clones_of_every_section_groups_with_group_reporting_and_clones_with_logs(monkeypatch):
    sections = "".join(f"[s{i}]\nrw=randread\nnumjobs=3\n" for i in range(4))
    assert job_entry_count(_parsed(sections)) == (12, 0)
    assert job_entry_count(_parsed("[global]\ngroup_reporting\n" + sections)) == (1, 0)
    assert job_entry_count(_parsed("[global]\ngroup_reporting\n" + sections.replace("[s2]", "[s2]\nstonewall"))) == (2, 0)
    assert job_entry_count(_parsed("[global]\ngroup_reporting\nwrite_bw_log\n" + sections)) == (1, 12)
    monkeypatch.setenv(MAX_JOB_ENTRIES_ENV, "12")
    check_entries(_parsed(sections), "job.fio")  # at the bound: taken
    monkeypatch.setenv(MAX_JOB_ENTRIES_ENV, "11")
    with pytest.raises(InputError, match=r"^job\.fio: \[s0\]\.numjobs: the report would hold 12 job entries .*at most 11"):
        check_entries(_parsed(sections), "job.fio")
    check_entries(_parsed("[global]\ngroup_reporting\n" + sections), "job.fio")
    with pytest.raises(InputError, match=r"numjobs: the logs would be written for 12 job entries .*at most 11"):
        check_entries(_parsed("[global]\ngroup_reporting\nwrite_bw_log\n" + sections), "job.fio")
    monkeypatch.setenv(MAX_JOB_ENTRIES_ENV, "lots")
    with pytest.raises(InputError, match=rf"^{MAX_JOB_ENTRIES_ENV}: must be a whole number"):
        check_entries(_parsed(sections), "job.fio")


def test_the_entry_bound_is_raised_by_its_environment_variable(tmp_path):
    text = "[a]\nrw=randread\nbs=4k\nioengine=libaio\nruntime=1\ntime_based\nnumjobs=3\n"
    _refused(tmp_path, _fio(tmp_path, text=text, env={MAX_JOB_ENTRIES_ENV: "2"}), "numjobs", "3 job entries", "at most 2")
    code, _, err = _fio(tmp_path, text=text, env={MAX_JOB_ENTRIES_ENV: "3"})
    assert code == 0, err
    assert (tmp_path / "out.json").read_text().count('"jobname": "a"') == 3


# ---------------------------------------------------------------- 10: the reader holds the spec's bounds


BEYOND = [  # (option line, the option the line names, the spec's field)
    ("thinktime=2h", "thinktime", "thinktime"),
    ("loops=18446744073709551617", "loops", "loops"),
    ("io_size=99999999999999999999", "io_size", "io_size"),
    ("rate_iops=99999999999999999999999", "rate_iops", "rate_iops"),
    ("rate=99999999999999999999999", "rate", "rate_iops"),
    ("flow=99999999999999999999999", "flow", "flow"),
    ("flow=1\nflow_id=9999999999999", "flow_id", "flow_id"),
    ("iodepth=4\nlatency_target=2h", "latency_target", "latency_target"),
    ("iodepth=4\nlatency_target=1ms\nlatency_window=2h", "latency_window", "latency_window"),
]


@pytest.mark.parametrize("line, option, field", BEYOND, ids=[b[0].replace("\n", " ") for b in BEYOND])
def test_a_value_past_the_workload_bounds_is_refused_as_in_a_scenario(line, option, field):
    text = f"[j]\nrw=randread\nbs=4k\nioengine=libaio\n{line}\n"
    with pytest.raises(InputError) as refused:
        parse_fio_jobfile(text, "job.fio", catalog=default_catalog())
    message = str(refused.value)
    assert message.startswith(f"job.fio line {5 + line.count(chr(10))}: {option}: ") and "(job [j])" in message, message
    assert "\n" not in message


@pytest.mark.parametrize("line, field, value", [("thinktime=2h", "thinktime", "2h"), ("loops=2147483649", "loops", 2**31 + 1),
                                                ("flow=2147483649", "flow", 2**31 + 1)])
def test_the_scenario_refuses_what_the_reader_refuses(line, field, value):
    with pytest.raises(InputError):
        parse_fio_jobfile(f"[j]\nrw=randread\n{line}\n", "job.fio")
    with pytest.raises(ValueError):
        WorkloadSpec.model_validate({"name": "j", "rw": "randread", field: value})


def test_values_at_the_bounds_are_taken_unchanged():
    text = ("[j]\nrw=randread\nbs=4k\nioengine=libaio\nthinktime=3600s\nloops=2147483648\nio_size=16p\n"
            "rate_iops=1000000000\nrate_process=poisson\nflow=2147483648\nflow_id=2147483648\n")
    workload = parse_fio_jobfile(text, "job.fio", catalog=default_catalog()).jobs[0].workload
    assert (workload.thinktime, workload.loops, workload.io_size, workload.rate_iops, workload.flow, workload.flow_id) == (
        3600.0, 2**31, 16 * 2**50, 1e9, 2**31, 2**31)
    assert WorkloadSpec.model_validate(workload.model_dump()) == workload


def test_the_bounds_hold_on_the_command_line_with_nothing_written(tmp_path):
    _refused(tmp_path, _fio(tmp_path, "--name=a", "--rw=randread", "--ioengine=libaio", "--thinktime=2h"),
             "thinktime: Input should be less than or equal to 3600", "(job [a])")
