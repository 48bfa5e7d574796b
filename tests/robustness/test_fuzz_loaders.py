"""Hypothesis fuzzing of the two loaders a user feeds most: scenario files and fio job files.

The law: whatever the bytes, loading returns a validated object or raises ``InputError`` whose
message is one line; never another exception (no traceback), and never a run over its bound (an
accepted workload either passes the work budget or is refused by it with an ``InputError``).

Examples per test: ``NVSIM_FUZZ_EXAMPLES`` (default 10,000: the issue's count, on every run of the
suite, about 30 s per test on 2 cores; ``NVSIM_FUZZ_EXAMPLES=300`` for a quick local run).
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus import BASE_SCENARIO, GOOD_FIO_JOB
from nvsim.budget import check_workload
from nvsim.catalog import default_catalog
from nvsim.errors import InputError
from nvsim.fio import KEPT_OPTIONS, MODELLED_OPTIONS, load_fio_jobfile
from nvsim.scenario import load_scenario
from nvsim.specs import ScenarioSpec

EXAMPLES = int(os.environ.get("NVSIM_FUZZ_EXAMPLES", "10000"))
DERANDOMIZE = os.environ.get("NVSIM_FUZZ_RANDOM", "") == ""
"""The suite draws the same 10,000 documents each run (a red CI run is a real regression, and can
be replayed); ``NVSIM_FUZZ_RANDOM=1`` draws new ones, to look for new kinds of bad input."""
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=DERANDOMIZE,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
WORK = Path(tempfile.mkdtemp(prefix="nvsim-fuzz-"))


@pytest.fixture(scope="module", autouse=True)
def _remove_work_folder():
    """The examples' files live in one folder (hypothesis reuses it across examples); removed after."""
    yield
    shutil.rmtree(WORK, ignore_errors=True)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20), st.sampled_from(["4k", "1TiB", "-1", "0", "64KiB", "48KiB", "1e400", "nan", "inf", ".nan", "7.68 TB",
                                           "randread", "linux-md", "kioxia-cm7-r-3.84tb", "65536", "300s", "-5m", "oltp"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=12), inner, max_size=4)),
                      max_leaves=12)
FIELD_PATHS = [("name",), ("description",), ("platform",), ("seed",), ("array",), ("array", "level"), ("array", "drives"),
               ("array", "strip_bytes"), ("array", "namespace_bytes"), ("array", "drive"), ("array", "engine"),
               ("array", "layout"), ("array", "near_copies"), ("array", "hot_spares"), ("array", "rebuild"),
               ("array", "engine_settings"), ("workloads",), ("faults",), ("placement",)] + [
               ("workloads", 0, key) for key in ("name", "rw", "bs", "iodepth", "numjobs", "rwmixread", "size",
                                                 "offset_increment", "runtime", "ramp_time", "ioengine", "hipri", "users",
                                                 "oltp", "iodepth_batch_submit", "time_based")]


def _check_outcome(load) -> object | None:
    """Run ``load``; an InputError must be one line; anything else escapes and fails the test."""
    try:
        return load()
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc).strip(), repr(str(exc))
        return None


def _write(name: str, data: bytes) -> Path:
    path = WORK / name
    path.write_bytes(data)
    return path


def _within_budget(workloads, fidelity: str = "event") -> None:
    for workload in workloads:
        _check_outcome(lambda w=workload: check_workload(w, fidelity))


@st.composite
def scenario_documents(draw) -> bytes:
    """A scenario with 1-3 fields replaced by random values, a random document, or random bytes."""
    kind = draw(st.sampled_from(["mutated", "mutated", "mutated", "document", "text", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=400))
    if kind == "text":
        return draw(st.text(max_size=400)).encode("utf-8", "surrogatepass")
    if kind == "document":
        return yaml.safe_dump(draw(values)).encode()
    data = copy.deepcopy(BASE_SCENARIO)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(FIELD_PATHS))
        node = data
        for part in path[:-1]:
            node = node[part] if isinstance(node, dict) and part in node or isinstance(node, list) and part < len(node) else None
            if not isinstance(node, (dict, list)):
                break
        else:
            if isinstance(node, dict) or isinstance(node, list) and isinstance(path[-1], int) and path[-1] < len(node):
                node[path[-1]] = draw(values)
    return yaml.safe_dump(data, sort_keys=False).encode()


@FUZZ
@given(scenario_documents())
def test_any_scenario_file_loads_or_is_refused_in_one_line(document: bytes):
    path = _write("scenario.yaml", document)
    catalog = default_catalog()
    scenario = _check_outcome(lambda: load_scenario(path, catalog))
    if scenario is not None:
        assert isinstance(scenario, ScenarioSpec)
        _within_budget(scenario.workloads)


FIO_KEYS = sorted(MODELLED_OPTIONS) + sorted(KEPT_OPTIONS) + ["blocksize", "readwrite", "include", "direct", "zonesize"]
fio_values = st.one_of(st.sampled_from(["", "0", "1", "-1", "4k", "1t", "4k,8k", "4k,8k,16k,32k", "randread", "randrw", "trim",
                                        "libaio", "io_uring", "psync", "65536", "99999999999999999999", "10%", "1.5", "abc",
                                        "30s", "5m", "-5", "${VAR}"]),
                       st.integers(-10**6, 10**12).map(str), st.text(max_size=12))


@st.composite
def fio_job_files(draw) -> bytes:
    """A job file of random sections and options (known ones and junk), random text, or random bytes."""
    kind = draw(st.sampled_from(["jobs", "jobs", "jobs", "mutated", "text", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "text":
        return draw(st.text(max_size=300)).encode("utf-8", "surrogatepass")
    lines = [] if kind == "jobs" else GOOD_FIO_JOB.splitlines()
    for _ in range(draw(st.integers(1, 4))):
        lines.append(f"[{draw(st.sampled_from(['global', 'job', 'a b', '', 'x]']))}]")
        for _ in range(draw(st.integers(0, 6))):
            key = draw(st.one_of(st.sampled_from(FIO_KEYS), st.text(max_size=8)))
            lines.append(f"{key}={draw(fio_values)}" if draw(st.booleans()) else key)
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


@FUZZ
@given(fio_job_files())
def test_any_fio_job_file_loads_or_is_refused_in_one_line(text: bytes):
    path = _write("job.fio", text)
    parsed = _check_outcome(lambda: load_fio_jobfile(path, catalog=default_catalog()))
    if parsed is not None:
        _within_budget([job.workload for job in parsed.jobs])
