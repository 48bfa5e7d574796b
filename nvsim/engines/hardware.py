"""Hardware RAID card: every byte crosses the card's own PCIe link and its processor.

* The card processor issues every member command (``card_command_us`` each).
* A stripe update (RAID5/6 write) costs ``card_stripe_op_us`` plus ``card_stripe_op_us_per_kib``
  per KiB of member data it moves through its XOR engine and DRAM.
* Host data crosses the card's link once (reads up to the host, writes down to the card).
* The write-back cache acknowledges writes once staged; in steady state its flush rate is that of
  the stripe updates above, which is what the model charges.
"""

from __future__ import annotations

import numpy as np

from ..specs import Cited
from .base import Engine, EngineParameters, EngineServer, EngineWork, per_host_sum


class HardwareParameters(EngineParameters):
    """A RAID card's processor costs (models/engines/*.yaml with engine_kind hardware)."""

    card_command_us: Cited[float]
    card_stripe_op_us: Cited[float]
    card_stripe_op_us_per_kib: Cited[float]


class HardwareEngine(Engine):
    Parameters = HardwareParameters

    def own_server(self) -> EngineServer:
        product = self.spec.device.product if self.spec.device else self.spec.product
        return EngineServer(f"RAID card processor ({product})", 1, on_host_cpu=False)

    def work(self, plan, is_write, chunks, host_bytes, level) -> EngineWork:
        n = len(is_write)
        out = self.empty_work(plan, n, host_bytes)
        p = self.v
        commands = per_host_sum(np.ones(len(plan.host_index)), plan.host_index, n)
        out.pre_s = p.card_command_us * 1e-6 * commands
        member_kib = per_host_sum(plan.length_bytes / 1024.0, plan.host_index, n)
        stripe_op = 1e-6 * (p.card_stripe_op_us * plan.stripes_touched + p.card_stripe_op_us_per_kib * member_kib)
        out.mid_s = np.where(is_write & (level in (5, 6)), stripe_op, 0.0)
        out.device_down_bytes = np.where(is_write, float(host_bytes), 0.0)
        out.device_up_bytes = np.where(is_write, 0.0, float(host_bytes))
        return out
