"""fio's trim jobs (rw=trim, randtrim, trimwrite, randtrimwrite) as NVMe deallocations.

A trim reaches each drive as an NVMe Dataset Management command with the Deallocate attribute
(NVMe Base Specification 2.0, Dataset Management): the controller marks the logical blocks
unmapped in its mapping table; no data crosses the link and no NAND is read or programmed. Its
cost here: the host path's submit and complete (``nvsim.host_io``, as any I/O of the job's
ioengine) plus the drive's fixed command latency for a write that lands in its buffer
(``DriveTiming.write_fixed_s``: the datasheet's write latency less nothing, the acknowledgment of a
command that touches only controller memory). Basis **assumed**: no datasheet lists a deallocate
latency or rate, and no drive-level cap on deallocations is modelled (a trim job is bound by its
closed loop, numjobs x iodepth over that latency, or by its rate cap).

What trims do to the writes that run with them: a block trimmed and not yet rewritten holds no
valid data, so the FTL counts it as spare (``WorkloadSpec.deallocated_fraction``,
nvsim.ftl.load): with trims and writes uniform over one region, the deallocated share in steady
state is ``t / (t + w)`` (trim and write rates, ``steady_deallocated_fraction``), taken at the
writes' rate without trims (one step of the fixed point). ``trimwrite`` trims each block and then
writes it: to the FTL an overwrite, so its writes are simulated as ``write``/``randwrite`` and its
trims reported alongside, one per write.

Which arrays pass trims to their drives (the engine's ``passes_discards``; refused in one line otherwise): drives without RAID and
the ideal engine; Linux md (and VROC, which is md) RAID 0, 1 and 10; md RAID 4/5/6 passes discards
only when the raid456 module's ``devices_handle_discard_safely`` is set (drivers/md/raid5.c: the
drives must read zeroes from discarded blocks), which a scenario does not state, so it is refused;
other engines (GPU, hardware, lockless CPU) are refused as not known to pass discards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..ftl.load import steady_deallocated_fraction
from ..result import Result, Route
from ..sim.model import build
from ..sim.result import SimResult
from ..specs import ScenarioSpec, WorkloadSpec
from ..states import ArrayState

PURE_TRIMS = ("trim", "randtrim")
TRIM_WRITES = ("trimwrite", "randtrimwrite")


@dataclass(frozen=True)
class TrimCost:
    """One trim's latency and the CPU seconds it costs the host."""

    latency_s: float
    cpu_s: float


def check_discards(spec: ScenarioSpec, catalog: Any, job_name: str, source: str = "") -> None:
    """Refuse, in one line, a trim job on an array that does not pass discards to its drives."""
    engine, level = catalog.engine_class(spec.array.engine), spec.array.level
    if engine.passes_discards(level):
        return
    why = engine.discard_refusal(level, catalog.engines[spec.array.engine].name)
    raise InputError("rw", f"job [{job_name}]: trims cannot be simulated on this array: {why}; trims are simulated on "
                           f"drives without RAID and on md RAID 0, 1 and 10", source=source or None)


def trim_cost(model: Any) -> TrimCost:
    """The host path's submit and complete and the drive's command latency (module docstring), on
    the built array ``model`` (``nvsim.sim.model.ArrayModel``)."""
    cpu = model.host_submit_s + model.host_complete_s
    return TrimCost(latency_s=cpu + model.drive.write_fixed_s, cpu_s=cpu)


def pure_trim_result(spec: ScenarioSpec, workload: WorkloadSpec, catalog: Any, cap_iops: float | None, route: Route,
                     state: ArrayState) -> tuple[Result, float, float]:
    """A trim-only job: (a Result with no reads or writes, its trims per second, their mean latency s).

    The closed loop's rate, numjobs x iodepth over one trim's latency, at most what the clones'
    CPUs can submit and complete (each clone one thread: 1 / CPU seconds per trim), under the
    job's rate cap; held back by its CPUs, a trim waits: the latency is then Little's law's. ``route``
    and ``state``: where the orchestrator places the job (``Simulation(spec, workload).route``, ``.state``)."""
    model = build(spec, workload, catalog)
    cost = trim_cost(model)
    in_flight = workload.numjobs * workload.iodepth
    limits = [(in_flight / cost.latency_s, f"the closed loop of {in_flight} trims in flight"),
              (workload.numjobs / cost.cpu_s, f"the CPUs of its {workload.numjobs} clone(s)")]
    if cap_iops is not None:
        limits.append((cap_iops, "the job's rate cap"))
    iops, limited = min(limits)
    latency_s = in_flight / iops if limited.startswith("the CPUs") else cost.latency_s
    record = SimResult(scenario=spec.name, workload=workload.name, fidelity="fluid", read_iops=0.0, write_iops=0.0,
                       read_bytes_per_s=0.0, write_bytes_per_s=0.0,
                       cpu_percent=100.0 * iops * cost.cpu_s / max(1, model.logical_cpus),
                       limited_by=f"deallocations: {limited}")
    return Result(spec.name, workload.name, route, "fluid", state, record, None), iops, latency_s


def trim_direction(iops: float, bs: int, runtime_s: float, share: float, latency_s: float) -> dict:
    """The trim direction of a job's entry, as ``nvsim.fio.run._direction`` writes the others."""
    ios = int(round(iops * runtime_s * share))
    return {"ios": ios, "bytes": ios * bs, "latencies_ns": None, "mean_latency_ns": latency_s * 1e9}


def deallocated_share(trim_bytes_per_s: float, write_bytes_per_s: float) -> float:
    """The steady share of a region deallocated under trims and writes spread uniformly over it."""
    if write_bytes_per_s <= 0:
        return 0.0  # no writes for the trims to help
    return steady_deallocated_fraction(trim_bytes_per_s, write_bytes_per_s)


__all__ = ["TrimCost", "check_discards", "trim_cost", "pure_trim_result", "trim_direction", "deallocated_share",
           "PURE_TRIMS", "TRIM_WRITES"]
