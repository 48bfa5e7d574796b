"""fio's command line as fio parses it (nvsim.fio.argv): both option forms, flags bare, fio's own
options taken, ignored with a note or refused, job files the arguments left over."""

import pytest

from nvsim.errors import InputError
from nvsim.fio.argv import FIO_OWN_OPTIONS, IGNORED, REFUSED, TAKEN, parse_fio_arguments


def test_both_option_forms_give_the_same_job_options():
    spaced = parse_fio_arguments(["--name", "a", "--rw", "randread", "--bs", "4k", "--time_based", "job.fio"])
    joined = parse_fio_arguments(["--name=a", "--rw=randread", "--bs=4k", "--time_based", "job.fio"])
    assert spaced.job_options == joined.job_options == ["--name=a", "--rw=randread", "--bs=4k", "--time_based"]
    assert spaced.files == joined.files == ["job.fio"]


def test_a_flag_takes_no_value_so_the_next_argument_is_a_file():
    args = parse_fio_arguments(["--group_reporting", "job.fio"])
    assert args.job_options == ["--group_reporting"] and args.files == ["job.fio"]


def test_single_dash_long_options_are_long_options_as_getopt_long_only_reads_them():
    assert parse_fio_arguments(["-name=a", "-bs", "8k"]).job_options == ["--name=a", "--bs=8k"]


def test_what_a_wrapper_passes_cdmpy():
    args = parse_fio_arguments(["--ioengine", "posixaio", "--max-jobs=1", "--output-format", "json", "/tmp/x.jobfile"])
    assert args.job_options == ["--ioengine=posixaio"] and args.files == ["/tmp/x.jobfile"]
    assert args.taken == {"output-format": ["json"]} and args.notes and "--max-jobs ignored" in args.notes[0]


def test_every_option_of_fios_own_table_is_taken_ignored_or_refused():
    assert set(FIO_OWN_OPTIONS) == set(TAKEN) | set(IGNORED) | set(REFUSED)
    assert not (set(TAKEN) & set(IGNORED) or set(TAKEN) & set(REFUSED) or set(IGNORED) & set(REFUSED))


def test_sections_repeat():
    assert parse_fio_arguments(["--section", "a", "--section=b", "f"]).taken == {"section": ["a", "b"]}


@pytest.mark.parametrize("argv, message", [
    (["--bogus=1"], r"--bogus: not an option of fio"),
    (["--bs"], r"--bs: needs a value"),
    (["--minimal"], r"--minimal: terse output is not written"),
    (["--client=host"], r"--client: nvsim simulates locally"),
    (["--showcmd", "job.fio"], r"--showcmd: fio prints the job file as a command line and runs nothing"),
    (["--cmdhelp=bs"], r"--cmdhelp: fio prints its option help and runs nothing"),
    (["--enghelp"], r"--enghelp: fio prints an ioengine's help and runs nothing"),
    (["-o", "x"], r"one-letter options are not taken"),
])
def test_bad_command_lines_are_one_line_errors(argv, message):
    with pytest.raises(InputError, match=message):
        parse_fio_arguments(argv)


def test_a_job_option_written_bare_before_another_option_is_a_bare_key():
    assert parse_fio_arguments(["--write_bw_log", "--per_job_logs=0"]).job_options == ["--write_bw_log", "--per_job_logs=0"]
    assert parse_fio_arguments(["--write_bw_log", "name"]).job_options == ["--write_bw_log=name"]


def test_an_options_alias_is_a_long_option_as_fio_gives_it_one():
    """options.c adds each option's alias to the command line's long options: fio runs
    --timeout=1 as --runtime=1 (nvsim refused it as 'not an option of fio')."""
    parsed = parse_fio_arguments(["--name=a", "--timeout=1", "--blocksize", "8k", "--ratemin=10"])
    assert parsed.job_options == ["--name=a", "--timeout=1", "--blocksize=8k", "--ratemin=10"]


@pytest.mark.parametrize("argument, words", [
    ("--inflate-log=job.log.gz", "fio inflates a compressed log to its output and runs nothing"),
    ("--idle-prof=calibrate", "fio calibrates its idleness profiling and runs nothing"),
    ("--idle-prof=all", "incorrect idle-prof option: all"),
])
def test_an_option_after_which_fio_runs_nothing_is_refused_not_simulated(argument, words):
    """fio's init.c exits after --inflate-log (do_exit) and after --idle-prof=calibrate
    (fio_idle_prof_parse_opt returns 1); both were ignored with a note and the jobs simulated."""
    with pytest.raises(InputError, match=words):
        parse_fio_arguments([argument, "job.fio"])


def test_idle_profiling_while_the_jobs_run_is_ignored_with_a_note():
    for value in ("system", "percpu"):
        args = parse_fio_arguments([f"--idle-prof={value}", "job.fio"])
        assert args.files == ["job.fio"] and args.notes == ["--idle-prof ignored: CPU idleness profiling, nothing nvsim simulates"]
