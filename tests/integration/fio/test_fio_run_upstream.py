"""fio's own job files (examples/, t/jobs/, t/client_server/ of fio's repository, copied in
tests/data/fio/upstream/): each is parsed and its jobs simulated (fluid mode) and reported as fio's
JSON, or refused in one line that names the ioengine or the option that cannot be simulated.

The share that simulates is measured and printed (pytest -s); docs/fio.md records it.
"""

import re
from collections import Counter
from pathlib import Path

import pytest

import nvsim
from nvsim.errors import InputError
from nvsim.fio import REFUSED_OPTIONS, UNSIMULATED_IOENGINES, load_fio_jobfile, platform_keywords
from nvsim.fio.run import fio_report, simulate_jobs

ROOT = Path(__file__).resolve().parents[3]
UPSTREAM = ROOT / "tests" / "data" / "fio" / "upstream"
FILES = sorted(UPSTREAM.rglob("*.fio"))
REFUSAL = re.compile(r"^(?P<file>\S+) line \d+: (?P<option>[A-Za-z_]+): (?P<why>.+)$")
OPTION_REASONS = ("cannot be simulated", "is not modelled", "not modelled", "not found", "must be a positive multiple")
ENVIRONMENT = {"FIO_BS": "4096", "FIO_RW": "read", "FIO_IODEPTH": "16"}
"""The variables the files' own usage lines set (sprandom.fio, xnvme-fdp.fio: ``FIO_BS=... FIO_RW=read fio ...``)."""


@pytest.fixture(scope="module")
def outcomes(catalog):
    spec = nvsim.load_scenario(ROOT / "scenarios" / "graid-gen5-raid6", catalog)
    done = {}
    keywords = platform_keywords(catalog.platforms[spec.platform])
    for path in FILES:
        try:
            parsed = load_fio_jobfile(path, catalog=catalog, keywords=keywords, environ=ENVIRONMENT)
            report = fio_report(parsed, simulate_jobs(parsed, spec, catalog, "fluid"), catalog, timestamp=0)
            done[path] = report
        except InputError as exc:
            done[path] = str(exc)
    return done


def test_all_of_fios_job_files_are_here():
    assert len(FILES) == 157
    assert {p.parent.name for p in FILES} == {"examples", "jobs", "client_server"}


def test_every_file_simulates_or_is_refused_in_one_line_naming_an_engine_or_option(outcomes):
    for path, outcome in outcomes.items():
        if isinstance(outcome, dict):
            assert outcome["jobs"] and all(job["read"]["io_bytes"] + job["write"]["io_bytes"] > 0 for job in outcome["jobs"]), path
            continue
        assert "\n" not in outcome
        match = REFUSAL.match(outcome)
        assert match, outcome
        option, why = match["option"], match["why"]
        if option == "ioengine":
            engine = why.split("'")[1]
            assert engine in UNSIMULATED_IOENGINES and "nvsim simulates the block engines psync, sync" in why, outcome
        else:
            assert option in REFUSED_OPTIONS or any(reason in why for reason in OPTION_REASONS), outcome


def test_share_of_fios_job_files_that_simulate(outcomes):
    """Measured: all files, and the files whose jobs use a block engine (the rest use network, null,
    file-operation or other engines that cannot be simulated)."""
    simulated = sum(isinstance(o, dict) for o in outcomes.values())
    engine_refused = sum(isinstance(o, str) and ": ioengine: " in o for o in outcomes.values())
    block = len(outcomes) - engine_refused
    print(f"\nfio's job files: {simulated} of {len(outcomes)} simulate ({simulated / len(outcomes):.0%}); "
          f"{simulated} of the {block} with block engines ({simulated / block:.0%})")
    reasons = Counter(REFUSAL.match(o)["option"] for o in outcomes.values() if isinstance(o, str) and ": ioengine: " not in o)
    print(f"refused for an option: {dict(sorted(reasons.items()))}")
    assert simulated >= 61 and block >= 63  # the counts measured at fio commit f5344384 (docs/fio.md)
