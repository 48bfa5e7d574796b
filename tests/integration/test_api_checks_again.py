"""Every function of the Python API that takes a scenario checks a ``ScenarioSpec`` again, as
``Simulation`` and ``capacity`` do (``model_copy`` checks nothing): 30 drives in 24 bays ran through
``rebuild_summary`` and ``run_volumes``, 0 drives was a ZeroDivisionError, a RAID6 of 2 a ValueError;
their other arguments are refused in one ``InputError`` naming the argument (a helper's findings,
2026-12-01)."""

from pathlib import Path

import pytest

import nvsim
from nvsim.errors import InputError
from nvsim.rebuild import scrub_summary, unclean_shutdown_summary

ROOT = Path(__file__).resolve().parents[2]
G6 = ROOT / "scenarios" / "graid-gen5-raid6"


@pytest.fixture(scope="module")
def spec():
    return nvsim.load_scenario(G6)


def _with_drives(spec, drives):
    return spec.model_copy(update={"array": spec.array.model_copy(update={"drives": drives})})


CALLS = {
    "rebuild_summary": lambda s: nvsim.rebuild_summary(s),
    "run_timeline": lambda s: nvsim.run_timeline(s, None),
    "run_volumes": lambda s: nvsim.run_volumes(s),
    "scrub_summary": lambda s: scrub_summary(s),
    "unclean_shutdown_summary": lambda s: unclean_shutdown_summary(s),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("drives, field", [(30, "array.drives"), (0, "array.drives"), (2, "array")])
def test_a_copied_spec_is_checked_again(spec, call, drives, field):
    with pytest.raises(InputError) as error:
        CALLS[call](_with_drives(spec, drives))
    assert field in str(error.value)


def test_a_path_is_taken_where_a_spec_is(spec):
    assert nvsim.run_volumes(G6).runs[0].read_iops == pytest.approx(nvsim.run_volumes(spec).runs[0].read_iops)


@pytest.mark.parametrize("call", [lambda s: nvsim.capacity(s, catalog="x"), lambda s: nvsim.array_bounds(s, catalog="x"),
                                  lambda s: nvsim.run_volumes(s, catalog="x")])
def test_a_catalog_that_is_not_one_is_named(spec, call):
    with pytest.raises(InputError, match="^catalog: a nvsim Catalog"):
        call(spec)


@pytest.mark.parametrize("kwargs, field", [({"horizon_s": -5}, "horizon_s"), ({"horizon_s": float("nan")}, "horizon_s"),
                                           ({"horizon_s": 0}, "horizon_s"), ({"fidelity": "bogus"}, "fidelity")])
def test_a_timeline_s_arguments_are_checked_before_it_runs(spec, kwargs, field):
    """An idle timeline took any fidelity word, and -5 s gave a segment ending before it began."""
    with pytest.raises(InputError, match=f"^{field}:"):
        nvsim.run_timeline(spec, None, **kwargs)
