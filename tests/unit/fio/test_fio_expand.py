"""fio's expansions in job files (nvsim.fio.expand): ${VAR} from the environment, fio's $keywords
($ncpus, $mb_memory, $pagesize, the simulated platform's) and fio's integer arithmetic."""

import pytest
from hypothesis import given, settings, strategies as st

from nvsim.errors import InputError
from nvsim.fio import parse_fio_jobfile
from nvsim.fio.expand import expand_value, platform_keywords

KEYWORDS = {"ncpus": 128, "mb_memory": 524288, "pagesize": 4096}


def parse(text: str, **kwargs):
    return parse_fio_jobfile(text, "job.fio", **kwargs)


def test_variables_keywords_and_arithmetic_expand_as_fio_does():
    env = {"FIO_BS": "8k", "DEPTH": "16"}
    job = parse("[a]\nrw=randread\nbs=${FIO_BS}\niodepth=${DEPTH}\nnumjobs=$ncpus/4\nsize=5*1024*1024*$mb_memory/8\n",
                keywords=KEYWORDS, environ=env).jobs[0]
    w = job.workload
    assert (w.bs, w.iodepth, w.numjobs, w.size) == (8192, 16, 32, 5 * 1024 * 1024 * 524288 // 8)
    assert parse("[a]\nbs=$pagesize\n", keywords=KEYWORDS).jobs[0].workload.bs == 4096
    assert parse("[a]\nbs=(2^3)*512\n").jobs[0].workload.bs == 4096  # fio's '^' is a power


def test_an_option_nvsim_does_not_read_keeps_unset_variables_and_other_keywords():
    job = parse("[a]\nrw=read\nfilename_format=$jobnum.${NVSIM_TEST_UNSET}\n").jobs[0]
    assert job.options["filename_format"] == "$jobnum.${NVSIM_TEST_UNSET}"


def test_platform_keywords_are_the_simulated_platforms(catalog):
    platform = next(iter(catalog.platforms.values()))
    words = platform_keywords(platform)
    assert words["ncpus"] == platform.total_cores * platform.cpu.threads_per_core.value
    assert words["mb_memory"] == int(platform.memory_bytes.value) // 2**20 and words["pagesize"] == 4096


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 10**4), st.integers(0, 10**4), st.sampled_from(["+", "*", "-", "/", "%"]))
def test_arithmetic_is_fios_integer_result(a, b, c, op):
    text = f"({a}{op}{b})+{c}"
    exact = {"+": a + b, "*": a * b, "-": a - b, "/": a / b, "%": a % b}[op] + c
    if exact < 0:
        with pytest.raises(InputError, match="negative"):
            expand_value("size", text, None)
    else:
        assert expand_value("size", text, None) == str(int(exact))


@pytest.mark.parametrize("text, words", [
    ("1/0", "a division by zero"), ("4/(2-2)", "a division by zero"), ("5%0", "a division by zero"),
    ("0^-1", "a division by zero"), ("5/0.0", "a division by zero"), ("1+", "invalid syntax"),
    ("1/2-1", "negative (-0.5)"), ("1/3-1", "negative (-2/3)"),
])
def test_arithmetic_errors_read_as_plain_numbers_naming_the_option(text, words):
    with pytest.raises(InputError) as error:
        parse(f"[a]\nrw=read\nsize={text}\n")
    message = str(error.value)
    assert "size" in message and words in message and "\n" not in message
    assert "Fraction" not in message and "<unknown>" not in message
