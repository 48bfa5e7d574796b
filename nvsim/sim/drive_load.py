"""The drive model of an array under one workload's FTL load (hotness, trims, fresh or steady).

``sim/model.build`` takes a drive model shared by every workload (``sim/drive.drive_timing``,
remembered per catalog, drive, namespace and platform); a workload whose writes are skewed
(``random_distribution``), partly deallocated (``deallocated_fraction``) or land on fresh drives
(``drive_state: fresh``) gets its own copy whose SSD model carries that load
(``nvsim.ftl.load.FtlLoad``). The default workload gets the shared model itself: the same bits.
"""

from __future__ import annotations

from ..ftl.load import FtlLoad
from ..ftl.skew import write_classes
from ..specs import WorkloadSpec
from .drive import DriveTiming


def ftl_load(workload: WorkloadSpec, region_bytes: float) -> FtlLoad:
    """The FTL load of ``workload``'s writes over a region of ``region_bytes`` (random writes only:
    a sequential stream rewrites whole blocks in order whatever its distribution)."""
    classes = write_classes(workload.random_distribution, region_bytes, workload.bs) if workload.is_random else ()
    return FtlLoad(write_classes=classes, deallocated_fraction=workload.deallocated_fraction,
                   fresh=workload.drive_state == "fresh")


def loaded_timing(drive: DriveTiming, workload: WorkloadSpec, device_bytes: float) -> DriveTiming:
    """``drive`` under ``workload``'s FTL load: itself for the default load, else a copy (its link
    and fixed latencies kept: a topology may have lengthened them)."""
    if (workload.random_distribution == "random" and workload.deallocated_fraction == 0.0
            and workload.drive_state == "steady"):
        return drive
    load = ftl_load(workload, workload.size or device_bytes)
    if load.is_default:
        return drive
    timing = DriveTiming(drive.ssd.with_load(load), drive.link)
    timing.read_fixed_s, timing.write_fixed_s = drive.read_fixed_s, drive.write_fixed_s
    return timing


__all__ = ["ftl_load", "loaded_timing"]
