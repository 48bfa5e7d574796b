"""Random array set-ups for the property tests of this layer (bounds that bound, a cache that never
changes an answer): engines, RAID levels, drive models and counts, strips, switch topologies, and
one fio-like workload drawn from the pairs the test gives."""

from __future__ import annotations

from hypothesis import strategies as st

from nvsim.catalog import default_catalog
from nvsim.raid import MIN_DRIVES

CATALOG = default_catalog()
ENGINES = ("linux-md", "graid-supremeraid-sr1010", "xinnor-xiraid", "ideal-raid", "broadcom-megaraid-9560-16i")
DRIVES = ("kioxia-cm7-r-3.84tb", "samsung-pm9a3-3.84tb", "solidigm-d5-p5336-61.44tb")
SWITCH = "broadcom-pex89104"


@st.composite
def array_setups(draw, workloads: tuple[tuple[str, int], ...]):
    """One scenario as a dict (``parse_scenario``'s input); ``workloads``: the (rw, bs) pairs its
    one workload is drawn from. The loader may still refuse it (a card's drives behind a switch)."""
    engine = draw(st.sampled_from(ENGINES))
    level = draw(st.sampled_from([lv for lv in (0, 1, 5, 6, 10) if lv in CATALOG.engines[engine].levels]))
    drives = draw(st.integers(max(MIN_DRIVES[level], 4), 24))
    if level == 10:
        drives -= drives % 2
    topology = draw(st.one_of(st.none(), st.builds(
        lambda count, lanes: {"switches": {"model": SWITCH, "count": count, "uplink_lanes": lanes}},
        st.integers(1, 3), st.sampled_from([4, 8, 16]))))
    rw, bs = draw(st.sampled_from(workloads))
    workload = {"name": "w", "rw": rw, "bs": bs, "numjobs": draw(st.sampled_from([1, 4, 16, 64])),
                "iodepth": draw(st.sampled_from([1, 8, 64]))}
    data = {"name": "p", "platform": "supermicro-as-2125hs-tnr", "workloads": [workload],
            "array": {"level": level, "drive": draw(st.sampled_from(DRIVES)), "drives": drives,
                      "strip_bytes": draw(st.sampled_from(["64KiB", "512KiB"])), "engine": engine}}
    if topology is not None:
        data["topology"] = topology
    return data
