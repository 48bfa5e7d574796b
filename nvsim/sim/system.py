"""The array as a run sees it: its resources, and what each host I/O asks of them.

Resources (each a server with a count and a service time per visit; their kinds, labels, server
counts and which demands load them are declared once, in ``nvsim.fabric``):
  * job cores: one logical CPU per job (fio's ``cpus_allowed_policy=split``); two jobs on the
    sibling threads of one core each run at ``smt_throughput_gain / 2`` of a core;
  * the engine's serialised section (a spinlock: a waiting core spins, busy) and its own server
    (md's stripe thread, the GPU, the card processor), its bandwidth limit and its PCIe link;
  * each drive: the NAND die pool (``nand_dies`` servers; die time per I/O from nvsim.ssd) and its
    PCIe link per direction (wire bytes from nvsim.pcie), plus the controller's fixed latency;
  * DRAM of the job sockets.
``HostIoBatch`` holds, per host I/O, the service it asks of each: the event simulator books them,
the fluid solver sums them. One set of numbers, two fidelities.

The array is built once, frozen (``nvsim.sim.model.build`` -> ``ArrayModel``), and its demands are
pure functions over it (``nvsim.sim.demand``). ``ArraySystem`` is a run's view of a model: the
model's fields, read through, and the one thing a run learns as it goes -- the share of NAND time
the drives spend programming, from the first batch it prices, which every later batch's reads pay
program suspend with.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .demand import HostIoBatch, host_io_batch, host_io_batches, interleave, phase_runs, prices_alone, rebuild_batch
from .drive import NAND_SERVICE_CV, DriveTiming, distinct_sizes, drive_timing
from .memo import MEMO, Memo
from .model import ArrayModel, build, strips_spanned
from .workload import job_region


GOLDEN_FRACTION = 0.6180339887498949
"""The golden ratio's fractional part: k times it, modulo 1, spreads points evenly for any count."""
EDGE_POINTS = 256
"""Points of a step at which a fluid sample's share of I/Os in the rebuilt part is averaged."""


class ArraySystem:
    """One scenario's array on its platform, with its engine, as one run uses it: builds host
    I/O batches. Every field of its ``ArrayModel`` reads through (``system.engine``, ...)."""

    def __init__(self, scenario, workload, catalog=None, failed_members: tuple[int, ...] = (), memo: Memo = MEMO,
                 rebuilding: int | None = None, rebuilt_fraction: float = 0.0, rebuilt_step: float = 0.0,
                 writes: bool | None = None):
        """``failed_members``: members that are missing (failed, pulled, or being rebuilt and not
        yet readable): host I/Os are planned degraded around them, as md does. ``rebuilding``
        (one of them) is being rebuilt from its start and ``rebuilt_fraction`` of it is done, or
        anywhere within ``rebuilt_step`` about that (a timeline's step: each I/O meets the rebuild's
        edge at its own point of the step): host I/Os in that part read and write it (``batch``).
        ``writes``: whether the load writes (``model.build``; default: whether ``workload`` does)."""
        model = build(scenario, workload, catalog, failed_members, memo, writes=writes)
        self.__dict__.update(vars(model))  # the model's fields, read at a plain attribute's speed
        self.model: ArrayModel = model
        self.memo = memo
        self.write_share: float | None = None  # set by the first batch priced (see ``batch``)
        self.rebuilt_fraction = rebuilt_fraction if rebuilding is not None else 0.0
        self.rebuilt_step = rebuilt_step if self.rebuilt_fraction > 0 else 0.0
        self.rebuilt_model: ArrayModel | None = None
        if self.rebuilt_fraction > 0:
            whole = tuple(m for m in model.failed_members if m != rebuilding)
            self.rebuilt_model = build(scenario, workload, catalog, whole, memo, degraded=True, writes=writes)

    # the model's methods and properties, reading the model's fields copied here
    resources = ArrayModel.resources
    chunk_requests_per_io = ArrayModel.chunk_requests_per_io
    sync_update = ArrayModel.sync_update
    describe = ArrayModel.describe
    engine_server_label = ArrayModel.engine_server_label
    engine_servers = ArrayModel.engine_servers
    engine_on_host_cpu = ArrayModel.engine_on_host_cpu
    rebuild_thread_cpus = ArrayModel.rebuild_thread_cpus
    sample_size = ArrayModel.sample_size

    def __getattr__(self, name: str):
        """Anything else the model has."""
        if name == "model":  # not built (yet): no read-through
            raise AttributeError(name)
        return getattr(self.model, name)

    def batch(self, job: int, offsets: np.ndarray, is_write: np.ndarray,
              rng: np.random.Generator | None = None, frame_bytes: float | None = None) -> HostIoBatch:
        """Service demands of host I/Os of ``job`` at ``offsets`` (``nvsim.sim.demand.host_io_batch``),
        priced with the write share of the first batch this run priced.

        With part of a member rebuilt (``rebuilt_fraction``), the I/Os in that part are planned with
        the member there: a rebuild runs from the member's start, and the engines read and write the
        rows it has passed (md: ``recovery_offset``, raid5.c's ``analyse_stripe`` counts a device in
        sync for a stripe below it, raid1/raid10's ``read_balance`` reads it there), while the array
        is still degraded (md's reads still go through its stripe cache). Which I/Os: on the device
        (``frame_bytes`` None, the event mode's streams), those below that share of it; in a sample
        drawn over a ``frame_bytes`` stand-in for the device (the fluid mode's), the job's share of
        I/Os in the part (``rebuilt_share``): that many of the sample's first I/Os."""
        if self.rebuilt_model is None:
            return self._priced(self.model, job, offsets, is_write, rng)
        if frame_bytes is None:
            done = offsets < self.rebuilt_edges(len(offsets)) * self.device_bytes
        else:  # the sample's first I/Os, in order: a sequential run stays whole in its part
            done = np.arange(len(offsets)) < round(len(offsets) * self.rebuilt_share)
        if self.write_share is None:  # one share for both parts, the two models' in proportion, whatever part comes first
            share = float(done.mean()) if len(done) else 0.0
            shares = [host_io_batch(m, job, offsets, is_write, None, None, self.memo).nand_write_share
                      for m in (self.model, self.rebuilt_model)]
            self.write_share = (1.0 - share) * shares[0] + share * shares[1]
        if done.all() or not done.any():
            return self._priced(self.rebuilt_model if done.all() else self.model, job, offsets, is_write, rng)
        rest = ~done
        first = self._priced(self.model, job, offsets[rest], is_write[rest], rng)
        second = self._priced(self.rebuilt_model, job, offsets[done], is_write[done], rng)
        return interleave(first, np.flatnonzero(rest), second, np.flatnonzero(done))

    def batches_together(self) -> bool:
        """Whether ``batches`` prices several jobs' batches as one: after the first batch (which
        sets the write share), with no part of a member rebuilt, where each host I/O is priced from
        itself alone (``demand.prices_alone``)."""
        return self.write_share is not None and self.rebuilt_model is None and prices_alone(self.model)

    def batches(self, jobs: list[int], offsets: list[np.ndarray], is_write: list[np.ndarray],
                rngs: list[np.random.Generator]) -> list[HostIoBatch]:
        """``batch`` of each job's host I/Os, priced as one batch where ``batches_together`` holds
        (``demand.host_io_batches``: the same numbers), else one by one."""
        together = host_io_batches(self.model, jobs, offsets, is_write, rngs, self.write_share, self.memo) \
            if self.batches_together() else None
        if together is not None:
            return together
        return [self.batch(job, o, w, rng=rng) for job, o, w, rng in zip(jobs, offsets, is_write, rngs)]

    def _priced(self, model: ArrayModel, job: int, offsets: np.ndarray, is_write: np.ndarray,
                rng: np.random.Generator | None) -> HostIoBatch:
        batch = host_io_batch(model, job, offsets, is_write, rng, self.write_share, self.memo)
        if self.write_share is None:
            self.write_share = batch.nand_write_share
        return batch

    def rebuilt_edges(self, count: int) -> np.ndarray:
        """Where the rebuild's edge is (a share of the device) for each of ``count`` I/Os: the state's
        ``rebuilt_fraction``, or within its ``rebuilt_step`` points spread evenly over the step (a
        golden-ratio sequence: the same for every batch of a run, no random draw)."""
        spread = (np.arange(count) * GOLDEN_FRACTION + 0.5) % 1.0 - 0.5
        return np.clip(self.rebuilt_fraction + self.rebuilt_step * spread, 0.0, 1.0)

    @cached_property
    def rebuilt_share(self) -> float:
        """The share of the job's I/Os in the part of the member rebuilt: each clone's region (fio's
        offset, size, offset_increment) against the device's first part, the rebuild's edge taken
        over its step (``rebuilt_edges``), over the clones (a job's I/Os spread evenly over its
        region, a sequential one over time). A job on the device's first tenth is all rebuilt once
        the edge has passed it, half way through a step of a quarter."""
        w, device = self.workload, float(self.device_bytes)
        edges = self.rebuilt_edges(EDGE_POINTS) * device
        shares = []
        for clone in range(w.numjobs if w.offset_increment else 1):
            start, length = job_region(w, clone, device)
            covered = np.clip(np.minimum(start + length, edges) - start, 0.0, None)
            shares.append(float(np.mean(covered)) / length if length > 0 else 0.0)
        return float(np.mean(shares))

    def rebuild_batch(self, target: int, member_offsets: np.ndarray, step_bytes: int, protocol=None) -> HostIoBatch:
        """Demands of rebuild requests of member ``target`` (``nvsim.sim.demand.rebuild_batch``;
        ``protocol``: another of the engine's, a ``check``; default the array's recovery)."""
        return rebuild_batch(self.model, target, member_offsets, step_bytes, protocol)


__all__ = ["ArraySystem", "ArrayModel", "build", "HostIoBatch", "DriveTiming", "drive_timing", "strips_spanned",
           "phase_runs", "distinct_sizes", "NAND_SERVICE_CV"]
