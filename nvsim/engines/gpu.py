"""GPU RAID (SupremeRAID-like): off the data path, parity on the GPU.

* Reads: data moves drive -> host memory directly; the GPU handles each host command
  (``1 / max_read_iops`` of the card's datasheet per host I/O) and the card's advertised read
  bandwidth is a rate limit (``max_read_bytes_per_s``).
* Writes: the host driver issues the member writes (``driver_write_member_us`` of host CPU per
  member page); the GPU does one stripe update per stripe touched: ``gpu_stripe_us`` plus
  ``gpu_parity_block_us`` per parity block (1 for RAID5, 2 for RAID6), after the old data and
  parity are read (read-modify-write) when the stripe is not written whole.
* Written data is not sent over the GPU's own link: seed 000's 134 GB/s of RAID6 writes is about
  ten times what a PCIe 4.0 x8 link carries, so the model charges the GPU per stripe, not per byte
  (docs/models/engines.md).
"""

from __future__ import annotations

import numpy as np

from .base import PAGE_BYTES, Engine, EngineServer, EngineWork, per_host_sum


class GpuEngine(Engine):
    def __post_init__(self) -> None:
        self.server = EngineServer(f"GPU ({self.spec.device.product})" if self.spec.device else "GPU", 1, on_host_cpu=False)

    def work(self, plan, is_write, chunks, host_bytes, level) -> EngineWork:
        n = len(is_write)
        out = self.empty_work(plan, n, host_bytes)
        p = self.parameter
        device = self.spec.device
        command_s = 1.0 / device.max_read_iops.value if device and device.max_read_iops else 0.0
        parities = {5: 1, 6: 2}.get(level, 0)
        write_pages = per_host_sum(np.where(plan.is_write, plan.length_bytes / PAGE_BYTES, 0.0), plan.host_index, n)
        out.submit_cpu_ref_s = np.where(is_write, p("driver_write_member_us") * 1e-6 * write_pages, 0.0)
        out.pre_s = np.full(n, command_s)
        stripe_s = 1e-6 * (p("gpu_stripe_us") + p("gpu_parity_block_us") * parities)
        out.mid_s = np.where(is_write & (parities > 0), stripe_s * plan.stripes_touched, 0.0)
        out.device_read_bytes = np.where(is_write, 0.0, float(host_bytes))
        return out
