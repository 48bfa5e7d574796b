"""Lockless CPU RAID (xiRAID-like): no shared lock and no stripe thread on the data path.

Each I/O is handled on the core that submits it (``request_cpu_us`` per host I/O plus
``member_io_us`` per member I/O, at ``reference_clock_ghz``), parity computed there with vector
instructions at ``parity_gen_gb_per_s`` per core over the bytes the stripe update touches.
Throughput then scales with cores until drives or links bind. No stripe cache: a sequential
stream's writes are not merged into whole stripes (seed 001, Figures 4-5).
"""

from __future__ import annotations

from ..specs import Cited
from .base import Engine, EngineParameters, EngineWork, per_host_sum


class LocklessParameters(EngineParameters):
    """A lockless CPU RAID's costs on the submitting core, at ``reference_clock_ghz``."""

    reference_clock_ghz: Cited[float]
    request_cpu_us: Cited[float]
    member_io_us: Cited[float]
    parity_gen_gb_per_s: Cited[float]


class LocklessCpuEngine(Engine):
    Parameters = LocklessParameters

    stripe_cache = False  # each write is handled as it comes: seed 001's 128 KiB writes on a 128 KiB
    # strip read-modify-write their stripe every time ("the checksum strip ... updated four times")

    def work(self, plan, is_write, chunks, host_bytes, level) -> EngineWork:
        n = len(is_write)
        out = self.empty_work(plan, n, host_bytes)
        p = self.v
        members = per_host_sum(plan.length_bytes * 0 + 1.0, plan.host_index, n)
        touched = per_host_sum(plan.length_bytes.astype(float), plan.host_index, n)
        parity = touched / (p.parity_gen_gb_per_s * 1e9) if level in (5, 6) else 0.0
        out.submit_cpu_ref_s = 1e-6 * (p.request_cpu_us + p.member_io_us * members) + parity * is_write
        return out
