"""The drive model of an array under one workload's FTL load (region, hotness, trims, fresh or steady).

``sim/model.build`` takes a drive model shared by every workload (``sim/drive.drive_timing``,
remembered per catalog, drive, namespace and platform); a workload whose random writes reach only
part of the device (``size``, ``offset``), are skewed (``random_distribution``), partly deallocated
(``deallocated_fraction``) or land on fresh drives (``drive_state: fresh``) gets its own copy whose
SSD model carries that load (``nvsim.ftl.load.FtlLoad``). The default workload gets the shared
model itself: the same bits.

An array's device is its usable space (a JBOD's: one member); a region of a share of it is taken
to cover the same share of each member drive's data (a striped or mirrored layout spreads any long
range of logical blocks evenly over the members).
"""

from __future__ import annotations

from ..ftl.load import FtlLoad
from ..ftl.skew import write_classes
from ..specs import WorkloadSpec
from .drive import DriveTiming
from .workload import job_region


def job_region_bytes(workload: WorkloadSpec, device_bytes: float) -> float:
    """One clone's region as fio (and ``HostStream.for_job``) takes it (``workload.job_region`` of
    job 0): ``size`` (default: the device) from ``offset``, cut at the device's end."""
    return max(0.0, job_region(workload, 0, device_bytes)[1])


def written_region_bytes(workload: WorkloadSpec, device_bytes: float) -> float:
    """Bytes of the device the job's clones write: the union of clone j's regions, each ``size``
    (default: to the device's end) from ``offset + j * offset_increment``, cut at the device's end."""
    if not workload.offset_increment or workload.numjobs == 1:
        return job_region_bytes(workload, device_bytes)
    spans = []
    for job in range(workload.numjobs):
        start, length = job_region(workload, job, device_bytes)
        spans.append((start, start + length))
    covered, end = 0.0, 0.0
    for lo, hi in sorted(spans):
        if hi > end:
            covered += hi - max(lo, end)
            end = hi
    return covered


def ftl_load(workload: WorkloadSpec, device_bytes: float) -> FtlLoad:
    """The FTL load of ``workload``'s writes on a device of ``device_bytes`` (random writes only: a
    sequential stream rewrites whole blocks in order whatever its region or distribution): the
    share of the device its clones write (the active range), the classes of its distribution
    over one clone's region."""
    random = workload.is_random
    classes = write_classes(workload.random_distribution, job_region_bytes(workload, device_bytes),
                            workload.bs) if random else ()
    active = min(1.0, written_region_bytes(workload, device_bytes) / device_bytes) if random else 1.0
    return FtlLoad(write_classes=classes, deallocated_fraction=workload.deallocated_fraction, active_fraction=active,
                   fresh=workload.drive_state == "fresh")


def loaded_timing(drive: DriveTiming, workload: WorkloadSpec, device_bytes: float) -> DriveTiming:
    """``drive`` under ``workload``'s FTL load: itself for the default load, else a copy (its link
    and fixed latencies kept: a topology may have lengthened them)."""
    if (workload.random_distribution == "random" and workload.deallocated_fraction == 0.0
            and workload.drive_state == "steady" and workload.size is None and workload.offset == 0):
        return drive
    load = ftl_load(workload, device_bytes)
    if load.is_default:
        return drive
    timing = DriveTiming(drive.ssd.with_load(load), drive.link)
    timing.read_fixed_s, timing.write_fixed_s = drive.read_fixed_s, drive.write_fixed_s
    return timing


__all__ = ["ftl_load", "loaded_timing", "job_region_bytes", "written_region_bytes"]
