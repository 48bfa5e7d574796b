"""GPU RAID (SupremeRAID-like): off the data path, parity on the GPU.

* Reads: data moves drive -> host memory directly; the GPU handles each host command
  (``1 / max_read_iops`` of the card's datasheet per host I/O) and the card's advertised read
  bandwidth is a rate limit (``max_read_bytes_per_s``).
* Writes: the host driver issues the member I/Os of a host write -- the reads of old data and
  parity (read-modify-write, or the survivors when degraded) as well as the writes --
  (``driver_member_page_us`` of host CPU per member page they move); the GPU does one stripe
  update per stripe touched: ``gpu_stripe_us`` plus
  ``gpu_parity_block_us`` per parity block (1 for RAID5, 2 for RAID6), after the old data and
  parity are read (read-modify-write) when the stripe is not written whole.
* Written data is not sent over the GPU's own link: seed 000's 134 GB/s of RAID6 writes is about
  ten times what a PCIe 4.0 x8 link carries, so the model charges the GPU per stripe, not per byte
  (docs/models/engines.md).
* Degraded reads that need the missing member: one GPU reconstruction per stripe touched
  (``gpu_stripe_us`` + ``gpu_parity_block_us``) after the survivors are read.
* Rebuild: the card reads the survivors and writes the new member itself, ``rebuild_io_kib`` per
  request, ``gpu_parity_block_us`` per stripe row reconstructed (rows are batched: no per-stripe
  set-up). While host I/O runs it paces the rebuild to ``rebuild_share`` of the busy time of the
  drive the rebuild loads most (the vendor's rebuild priority scales the share: low 0.5x, high 2x),
  as a RAID card's "rebuild rate" percentage does; with no host I/O it keeps ``rebuild_inflight``
  requests in flight. Pacing, not a fixed depth, is what the MySQL brief shows: its RAID10 and
  RAID6 rebuilds run at similar speeds (880 and 700 MB/s) though RAID6 reads six survivors per
  byte and RAID10 one, and at 512 users they cost the users 27-31% of their transactions rather
  than yield to them (docs/models/rebuild.md).
"""

from __future__ import annotations

import numpy as np

from ..constants import PAGE_BYTES
from ..raid import parity_members
from ..specs import Cited
from .base import Engine, EngineParameters, EngineServer, EngineWork, per_host_sum


class GpuParameters(EngineParameters):
    """A GPU RAID card's costs (models/engines/graid-*.yaml); host CPU costs at ``reference_clock_ghz``."""

    reference_clock_ghz: Cited[float]
    driver_member_page_us: Cited[float]
    gpu_stripe_us: Cited[float]
    gpu_parity_block_us: Cited[float]
    rebuild_io_kib: Cited[float]
    rebuild_inflight: Cited[float]
    rebuild_share: Cited[float]


class GpuEngine(Engine):
    Parameters = GpuParameters

    def own_server(self) -> EngineServer:
        return EngineServer(f"GPU ({self.spec.device.product})" if self.spec.device else "GPU", 1, on_host_cpu=False)

    def work(self, plan, is_write, chunks, host_bytes, level) -> EngineWork:
        n = len(is_write)
        out = self.empty_work(plan, n, host_bytes)
        p = self.v
        device = self.spec.device
        command_s = 1.0 / device.max_read_iops.value if device and device.max_read_iops else 0.0
        parities = parity_members(level)
        # a host write's member pages, read (RMW, reconstruction) or written: seed 000's sequential
        # RAID6 writes, which read nothing, cost the host half what a cost per page written predicts
        member_pages = per_host_sum(plan.length_bytes / PAGE_BYTES, plan.host_index, n)
        out.submit_cpu_ref_s = np.where(is_write, p.driver_member_page_us * 1e-6 * member_pages, 0.0)
        out.pre_s = np.full(n, command_s)
        stripe_s = 1e-6 * (p.gpu_stripe_us + p.gpu_parity_block_us * parities)
        out.mid_s = np.where(is_write & (parities > 0), stripe_s * plan.stripes_touched, 0.0)
        out.device_read_bytes = np.where(is_write, 0.0, float(host_bytes))
        if self.degraded and parities > 0:
            rebuilt = (plan.mode == 1) & ~is_write  # DEGRADED_READ
            out.mid_s = np.where(rebuilt, stripe_s * plan.stripes_touched, out.mid_s)
        return out

    def rebuild_work(self, plan, n, rows_per_step, level) -> EngineWork:
        out = self.empty_work(plan, n, 0)
        p = self.v
        out.mid_s = np.full(n, p.gpu_parity_block_us * 1e-6 * rows_per_step if level in (5, 6) else 0.0)
        return out
