"""A test-only RAID engine: proof that an engine takes one module and one catalog YAML.

A DPU (a SmartNIC-like card with Arm cores) does the RAID work off the host:

* every host I/O's data crosses the DPU's own PCIe link once (reads up to the host, writes down to
  the card), and the DPU's cores move each KiB of member data (``dpu_us_per_kib``);
* each stripe update of a parity write (RAID5/6) costs ``dpu_stripe_us`` on the DPU's cores,
  after the old data and parity are read (read-modify-write) -- the cores are ``dpu_cores`` servers;
* the host's driver costs ``driver_cpu_us`` per host I/O on the submitting core.

Nothing in nvsim names it: the module registers its mechanism under the kind ``dpu_offload`` and
``dpu-offload.yaml`` (next to this file) is its catalog entry (tests/integration/test_engine_plugin.py
copies models/ and adds it).
"""

from __future__ import annotations

import numpy as np

from nvsim.engines import Engine, EngineParameters, EngineServer, EngineWork, register
from nvsim.engines.base import per_host_sum
from nvsim.raid import parity_members
from nvsim.specs import Cited

KIND = "dpu_offload"


class DpuParameters(EngineParameters):
    """The DPU's costs: its cores per stripe update and per KiB moved, the host driver per I/O."""

    dpu_cores: Cited[float]
    dpu_stripe_us: Cited[float]
    dpu_us_per_kib: Cited[float]
    driver_cpu_us: Cited[float]


class DpuEngine(Engine):
    Parameters = DpuParameters

    def own_server(self) -> EngineServer:
        product = self.spec.device.product if self.spec.device else self.spec.product
        return EngineServer(f"DPU Arm cores ({product})", int(self.v.dpu_cores), on_host_cpu=False)

    def work(self, plan, is_write, chunks, host_bytes, level) -> EngineWork:
        n = len(is_write)
        out = self.empty_work(plan, n, host_bytes)
        p = self.v
        out.submit_cpu_ref_s = np.full(n, p.driver_cpu_us * 1e-6)
        member_kib = per_host_sum(plan.length_bytes / 1024.0, plan.host_index, n)
        out.pre_s = p.dpu_us_per_kib * 1e-6 * member_kib
        parity_write = is_write & (parity_members(level) > 0)
        out.mid_s = np.where(parity_write, p.dpu_stripe_us * 1e-6 * plan.stripes_touched, 0.0)
        out.device_down_bytes = np.where(is_write, float(host_bytes), 0.0)
        out.device_up_bytes = np.where(is_write, 0.0, float(host_bytes))
        return out


register(DpuEngine, KIND)
