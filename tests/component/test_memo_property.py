"""The one explicit cache (``nvsim.sim.memo``) never changes an answer: over random pairs of
set-ups (engines, levels, drive models and counts, strips, switch topologies, workloads), a set-up
priced right after another one with the same memo gives exactly what it gives with a memo of its
own. A key that leaves out something its value depends on fails here (the stripe cache of the
engine did: a sequential write stream planned write by write for a stripe-cache engine)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nvsim.catalog import default_catalog
from nvsim.errors import InputError
from nvsim.raid import MIN_DRIVES
from nvsim.scenario import parse_scenario
from nvsim.sim.fluid import simulate_fluid
from nvsim.sim.memo import Memo
from nvsim.sim.system import ArraySystem

CATALOG = default_catalog()
ENGINES = ("linux-md", "graid-supremeraid-sr1010", "xinnor-xiraid", "ideal-raid", "broadcom-megaraid-9560-16i")
DRIVES = ("kioxia-cm7-r-3.84tb", "samsung-pm9a3-3.84tb", "solidigm-d5-p5336-61.44tb")
WORKLOADS = (("randread", 4096), ("randwrite", 4096), ("read", 131072), ("write", 131072), ("randrw", 16384))


@st.composite
def setups(draw):
    engine = draw(st.sampled_from(ENGINES))
    level = draw(st.sampled_from([lv for lv in (0, 1, 5, 6, 10) if lv in CATALOG.engines[engine].levels]))
    drives = draw(st.integers(max(MIN_DRIVES[level], 4), 16))
    if level == 10:
        drives -= drives % 2
    rw, bs = draw(st.sampled_from(WORKLOADS))
    workload = {"name": "w", "rw": rw, "bs": bs, "numjobs": draw(st.sampled_from([1, 4, 16])),
                "iodepth": draw(st.sampled_from([1, 8, 64]))}
    data = {"name": "p", "platform": "supermicro-as-2125hs-tnr", "workloads": [workload],
            "array": {"level": level, "drive": draw(st.sampled_from(DRIVES)), "drives": drives,
                      "strip_bytes": draw(st.sampled_from(["64KiB", "512KiB"])), "engine": engine}}
    if draw(st.booleans()):
        data["topology"] = {"switches": {"model": "broadcom-pex89104", "count": draw(st.integers(1, 2)),
                                         "uplink_lanes": draw(st.sampled_from([4, 16]))}}
    return data


@st.composite
def pairs(draw):
    """A set-up and a neighbour of it: one field drawn again (the engine, the drive model, the
    switches, the jobs or the depth), the rest as it was -- what a sweep or the dashboard's
    comparison prices one after another, and what a key that leaves that field out gets wrong."""
    first = draw(setups())
    second = {**first, "array": dict(first["array"]), "workloads": [dict(first["workloads"][0])]}
    field = draw(st.sampled_from(["engine", "drive", "topology", "numjobs", "iodepth"]))
    if field == "engine":
        second["array"]["engine"] = draw(st.sampled_from(ENGINES))
    elif field == "drive":
        second["array"]["drive"] = draw(st.sampled_from(DRIVES))
    elif field == "topology":
        second.pop("topology", None) if "topology" in first else second.update(
            topology={"switches": {"model": "broadcom-pex89104", "count": 1, "uplink_lanes": 4}})
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
