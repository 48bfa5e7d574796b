"""Where a job's region must lie (``WorkloadSpec.region_error`` through ``nvsim.budget`` and
``Simulation.run``): on the array, or, on drives used directly, on each drive for the clones it
takes. Every shipped scenario passes the check ``nvsim run`` makes."""

from pathlib import Path

import pytest

import nvsim
from nvsim.budget import check_scenario_regions

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (ROOT / "scenarios").rglob("*.yaml") if p.name != "published.yaml" and "sweeps" not in p.parts)


def test_every_shipped_scenario_is_on_its_array(catalog):
    """``nvsim run`` refused seed 004's no-RAID scenario (128 clones 50 GiB apart, 16 drives used
    directly: 8 clones on each 3.84 TB drive) as past the end of one drive."""
    checked = 0
    for path in SHIPPED:
        try:
            scenario = nvsim.load_scenario(path, catalog)
        except nvsim.InputError:
            continue  # not a scenario (a sweep's or a plan's file)
        simulation = nvsim.Simulation(scenario, catalog=catalog)
        check_scenario_regions(scenario, lambda: simulation.device_extent, source=str(path))
        checked += 1
    assert checked > 50


def _no_raid(catalog, **job):
    data = {"name": "jbod", "platform": "asus-rs520a-e12-rs24u",
            "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 16, "engine": "none"},
            "workloads": [{"name": "seq", "rw": "read", "bs": "128k", "iodepth": 8, "size": "50G", **job}]}
    return nvsim.parse_scenario(data, catalog)


def test_clones_on_drives_used_directly_count_per_drive(catalog):
    fits = _no_raid(catalog, numjobs=128, offset_increment="50G")  # 8 clones a drive: the last at 350 GiB
    assert nvsim.Simulation(fits, catalog=catalog).job_devices == 16
    nvsim.Simulation(fits, fits.workloads[0], catalog=catalog).run("fluid")
    past = _no_raid(catalog, numjobs=16 * 80, offset_increment="50G")  # 80 a drive: the last at 79 x 50 GiB
    with pytest.raises(nvsim.InputError) as info:
        nvsim.Simulation(past, past.workloads[0], catalog=catalog).run("fluid")
    assert info.value.field == "workload 'seq'.offset_increment" and "80 clones on each of 16" in str(info.value)
