"""The one explicit cache (``nvsim.sim.memo``) never changes an answer: over random pairs of
set-ups (engines, levels, drive models and counts, strips, switch topologies, workloads), a set-up
priced right after another one with the same memo gives exactly what it gives with a memo of its
own. A key that leaves out something its value depends on fails here (the stripe cache of the
engine did: a sequential write stream planned write by write for a stripe-cache engine)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from array_setups import CATALOG, DRIVES, ENGINES, SWITCH, array_setups
from nvsim.errors import InputError
from nvsim.scenario import parse_scenario
from nvsim.sim.fluid import simulate_fluid
from nvsim.sim.memo import Memo
from nvsim.sim.system import ArraySystem

WORKLOADS = (("randread", 4096), ("randwrite", 4096), ("read", 131072), ("write", 131072), ("randrw", 16384))


@st.composite
def pairs(draw):
    """A set-up and a neighbour of it: one field drawn again (the engine, the drive model, the
    switches, the jobs or the depth), the rest as it was -- what a sweep or the dashboard's
    comparison prices one after another, and what a key that leaves that field out gets wrong."""
    first = draw(array_setups(WORKLOADS))
    second = {**first, "array": dict(first["array"]), "workloads": [dict(first["workloads"][0])]}
    field = draw(st.sampled_from(["engine", "drive", "topology", "numjobs", "iodepth"]))
    if field == "engine":
        second["array"]["engine"] = draw(st.sampled_from(ENGINES))
    elif field == "drive":
        second["array"]["drive"] = draw(st.sampled_from(DRIVES))
    elif field == "topology":  # the switches: taken away, or one x4 uplink added
        if "topology" in first:
            del second["topology"]
        else:
            second["topology"] = {"switches": {"model": SWITCH, "count": 1, "uplink_lanes": 4}}
    else:
        second["workloads"][0][field] = draw(st.sampled_from([1, 8, 64]))
    return first, second


def _fluid(data: dict, memo: Memo) -> dict | None:
    try:
        spec = parse_scenario(data, CATALOG)
    except InputError:  # a set-up the loader refuses
        return None
    return simulate_fluid(ArraySystem(spec, spec.workloads[0], CATALOG, memo=memo)).metrics()


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(pair=pairs())
def test_a_shared_memo_gives_what_a_memo_of_its_own_gives(pair):
    first, second = pair
    shared = Memo()
    _fluid(first, shared)
    assert _fluid(second, shared) == _fluid(second, Memo())
