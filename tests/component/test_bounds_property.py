"""Bounds that bound (issue 20): over random set-ups (drive models and counts, RAID levels, engines,
switch topologies, job counts and depths), no simulated rate of a headline workload exceeds the
bound ``array_bounds`` prints for it; the fluid mode over many set-ups, the event mode over a few."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from array_setups import CATALOG, array_setups
from nvsim.bounds import CANONICAL, array_bounds
from nvsim.errors import InputError
from nvsim.scenario import parse_scenario
from nvsim.sim.event import simulate_event
from nvsim.sim.fluid import simulate_fluid
from nvsim.sim.system import ArraySystem

FIELD = {"randread": "read_iops", "randwrite": "write_iops", "read": "read_bytes_per_s", "write": "write_bytes_per_s"}
METRIC = {rw: (metric, bs) for metric, (rw, bs) in CANONICAL.items()}
TOLERANCE = 1e-9
EVENT_HOST_IOS = 8_000
EVENT_TOLERANCE = 1e-3
"""The event mode counts the host I/Os completed in its measurement window: one in service on the
binding server when the window opens adds up to one host I/O's service to the window's busy time
(1/8,000 of it here), so a saturated run may read that much above its capacity."""


def _checked(data, simulate, tolerance: float = TOLERANCE) -> None:
    try:
        spec = parse_scenario(data, CATALOG)
    except InputError:  # a set-up the loader refuses (a card's drives behind a switch, too many lanes)
        return
    workload = spec.workloads[0]
    metric = METRIC[workload.rw][0]
    bound = next(b for b in array_bounds(spec, CATALOG).bounds if b.metric == metric)
    value = simulate(ArraySystem(spec, workload, CATALOG)).metrics()[FIELD[workload.rw]]
    assert value <= bound.value * (1 + tolerance), (
        f"{FIELD[workload.rw]} {value:.4g} above the bound {bound.value:.4g} ({bound.limited_by})")


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(data=array_setups(tuple((rw, METRIC[rw][1]) for rw in sorted(FIELD))))
def test_no_fluid_rate_exceeds_its_bound(data):
    _checked(data, simulate_fluid)


@pytest.mark.parametrize("data", [
    {"name": "e1", "platform": "supermicro-as-2125hs-tnr",
     "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "512KiB", "engine": "linux-md"},
     "topology": {"switches": {"model": "broadcom-pex89104", "count": 1, "uplink_lanes": 4}},
     "workloads": [{"name": "w", "rw": "read", "bs": "128k", "numjobs": 8, "iodepth": 16, "runtime": 1}]},
    {"name": "e2", "platform": "supermicro-as-2125hs-tnr",
     "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 6, "strip_bytes": "64KiB",
               "engine": "graid-supremeraid-sr1010"},
     "workloads": [{"name": "w", "rw": "randwrite", "bs": "4k", "numjobs": 8, "iodepth": 16, "runtime": 1}]},
], ids=["md-raid0-behind-a-x4-uplink", "gpu-raid5-randwrite"])
def test_no_event_rate_exceeds_its_bound(data):
    _checked(data, lambda system: simulate_event(system, host_ios=EVENT_HOST_IOS), EVENT_TOLERANCE)
