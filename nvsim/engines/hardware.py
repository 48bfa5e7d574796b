"""Hardware RAID card: a RAID-on-chip with its DRAM, on its own PCIe link, from its datasheet.

The card's parts and what loads them (costs from ``nvsim.engines.card``):

* **the card's server** (its ROC: command processor and parity engine, one pipeline the firmware
  drives stripe by stripe): ``command_s`` per member command (``pre_s``); for a RAID5/6 write,
  ``stripe_update_s`` per stripe it updates and ``parity_s_per_kib`` per KiB of member data the
  parity engine moves (``mid_s``, between the reads and the writes); a degraded read's
  reconstruction and a rebuilt row run the same engine;
* **the card's DRAM** (``device_read_bytes`` against the DRAM's bandwidth, where the datasheet gives
  its rate and width): a write lands in the write-back cache (host bytes), each member write is
  read out of it, each member read lands in it, and the parity engine reads its sources and
  writes its result there; reads in the optimal state go straight to the host (no read-ahead
  unless the family documents one);
* **the card's link** (when host data crosses it): host reads up, host writes down.

``array.engine_settings.mode: passthrough`` passes every drive through unRAIDed (JBOD, eHBA):
each host I/O is one member command through the card, nothing else.

Rebuild and degraded operation are the card's own work: a rebuild request reads the survivors
into the card, runs the parity engine and writes the new drive, paced by the family's rebuild
rate (``firmware.rebuild_rate_percent``, or the share its priority mode stands for, or
``array.rebuild.rate_percent``): the share of the busy time of the resource it loads most (the
card's own server included) it keeps while host I/O contends for it; what the host leaves idle it
takes too, up to its idle rate (``RebuildThrottle.takes_idle``: Dell's "percentage of the system
resources dedicated to rebuilding", 0% "the lowest priority", not stopped).
"""

from __future__ import annotations

from functools import cached_property
from types import SimpleNamespace
from typing import Literal

import numpy as np

from ..specs import Cited, RebuildSpec
from ..units import format_bytes_binary
from .base import (PACED_SHARE_MAX, PRIORITY_SCALE, Engine, EngineParameters, EngineServer, EngineSettings, EngineWork,
                   RebuildThrottle, per_host_sum)
from .card import CardCosts, card_costs
from .rebuild_protocol import Reconstruction

PARITY_LEVELS = (5, 6)


class HardwareParameters(EngineParameters):
    """A card's stated costs (models/engines/*.yaml, or its family's ``parameters``); each absent one
    is derived from the card's datasheet (``nvsim.engines.card``)."""

    card_command_us: Cited[float] | None = None
    card_stripe_op_us: Cited[float] | None = None
    card_stripe_op_us_per_kib: Cited[float] | None = None

    def items(self) -> tuple[tuple[str, float], ...]:
        return tuple((name, float(getattr(self, name).value)) for name in type(self).model_fields
                     if getattr(self, name) is not None)

    def values(self) -> SimpleNamespace:
        """The parameters as plain floats, an absent one None."""
        stated = dict(self.items())
        return SimpleNamespace(**{name: stated.get(name) for name in type(self).model_fields})


class HardwareSettings(EngineSettings):
    """What a scenario sets for a card: ``mode`` raid (the default: the array's level on the card)
    or passthrough (each drive passed to the host unRAIDed: JBOD, Broadcom's and Dell's eHBA);
    ``write_policy`` write_back (a write is acknowledged once its data is in the card's protected
    DRAM) or write_through (once its member writes are done); None: the family's documented
    default (``firmware.write_back``), write-through on a card with no cache."""

    mode: Literal["raid", "passthrough"] = "raid"
    write_policy: Literal["write_back", "write_through"] | None = None


class HardwareEngine(Engine):
    Parameters = HardwareParameters
    rebuild_parity_on = "the card's processor (parity engine)"
    Settings = HardwareSettings
    rebuild_fields = frozenset({"priority", "rate_percent", "span_bytes"})  # the firmware's rebuild rate and modes
    coalesces_degraded = True  # the write-back cache gathers a sequential stream into whole stripes, degraded too

    @classmethod
    def rebuild_refusal(cls, name: str, asked: set[str], redundant: bool = True) -> str | None:
        """The base's, and a priority beside a ``rate_percent``: the card's rate is then that
        percentage (``rebuild_share``), so the priority would change nothing."""
        refusal = super().rebuild_refusal(name, asked, redundant)
        if refusal is None and {"priority", "rate_percent"} <= set(asked):
            return ("rebuild.priority: with rate_percent the card rebuilds at that rate, so a priority would change "
                    "nothing; allowed: rate_percent or priority, not both")
        return refusal

    @classmethod
    def copies_refusal(cls, entry, level: int, near_copies: int) -> str | None:
        """A RAID10 (or a RAID1, whose drives are its copies) wider than the mirrors the card's family
        documents (``firmware.raid10_copies``: a MegaRAID's RAID 1 drive group is two drives, so a
        RAID1 of 4 ran as a 4-way mirror the card cannot make)."""
        widths = entry.firmware.raid10_copies if entry.firmware is not None else None
        if level in (1, 10) and widths is not None and near_copies not in widths.value:
            allowed = ", ".join(map(str, widths.value))
            field = "near_copies" if level == 10 else "drives"
            what = "a RAID10 on {0} mirrors sets of" if level == 10 else "a RAID1 on {0} mirrors"
            return (f"{field}: {what.format(entry.name)} {allowed} drives (its family's user guide, {widths.source}); "
                    f"allowed: {allowed}" + (" (more drives: RAID10)" if level == 1 else "") + f", got {near_copies}")
        return None

    @classmethod
    def settings_refusal(cls, level: int, settings: dict) -> str | None:
        """A write policy in pass-through: each drive is passed to the host unRAIDed and no write goes
        through the card's cache (``work`` reads no policy there), so either would change nothing."""
        if settings.get("mode") == "passthrough" and "write_policy" in settings:
            return (f"engine_settings.write_policy: in pass-through each drive is the host's own and no write goes "
                    f"through the card's cache, so {settings['write_policy']!r} would change nothing; allowed: leave "
                    f"it out, or mode: raid")
        return None

    @classmethod
    def entry_refusal(cls, entry, settings: dict) -> str | None:
        """Write-back asked of a card with no cache to hold the writes (``no_cache``)."""
        why = cls.no_cache(entry)
        if settings.get("write_policy") != "write_back" or why is None:
            return None
        return f"write_policy: {entry.name} {why}, so it cannot acknowledge writes from a cache; allowed: write_through"

    @staticmethod
    def no_cache(entry) -> str | None:
        """Why the card ``entry`` has no write-back cache (its datasheet states no ``cache_bytes``, or
        host data never crosses it: SmartRAID 4300); None where it has one."""
        device = entry.device
        if device is None or device.cache_bytes is None:
            return "states no write-back cache (device.cache_bytes)"
        return None if device.data_through_device else "passes no host data through its own DRAM"

    @classmethod
    def settings_label(cls, entry, settings: dict | None) -> str:
        """Pass-through under the family's own name for it (``firmware.passthrough_modes``: MegaRAID
        JBOD, Microchip HBA), which a report names beside the card; "" for the card's RAID mode."""
        if (settings or {}).get("mode") != "passthrough":
            return ""
        modes = entry.firmware.passthrough_modes if entry.firmware is not None else ("JBOD",)
        return f"{' / '.join(modes)} pass-through"

    @classmethod
    def strip_refusal(cls, entry, strip_bytes: int, settings: dict) -> str | None:
        """A strip the card's family does not list (``firmware.strip_sizes_kib``: a MegaRAID virtual
        drive takes 8 KB to 1024 KB, so a 2 MiB strip ran as a volume the card cannot make); none
        in pass-through, which stripes nothing."""
        sizes = entry.firmware.strip_sizes_kib if entry.firmware is not None else None
        if sizes is None or settings.get("mode") == "passthrough" or strip_bytes in {k * 1024 for k in sizes.value}:
            return None
        allowed = ", ".join(f"{k} KiB" for k in sizes.value)
        return (f"strip_bytes: a virtual drive on {entry.name} takes strips of {min(sizes.value)} KiB to "
                f"{max(sizes.value)} KiB, as its family's user guide lists them ({sizes.source}); allowed: {allowed}, "
                f"got {format_bytes_binary(strip_bytes)}")

    @cached_property
    def costs(self) -> CardCosts:
        return card_costs(self.spec.device, self.v)

    @property
    def striped(self) -> bool:  # type: ignore[override]
        return self.striped_with(self.settings)

    @classmethod
    def striped_with(cls, settings) -> bool:
        return settings.mode != "passthrough"

    def own_server(self) -> EngineServer:
        device = self.spec.device
        product = device.product if device else self.spec.product
        roc = f", {device.roc}" if device is not None and device.roc else ""
        return EngineServer(f"RAID card processor and parity engine ({product}{roc})", 1, on_host_cpu=False)

    def derived_costs(self) -> tuple[tuple[str, str, str], ...]:
        """The card's mechanisms as its figures set them (``nvsim.engines.card``), each with its
        basis: a part no figure sets says it is not a limit."""
        costs = self.costs
        dram = f"{costs.dram_bytes_per_s / 1e9:.3g} GB/s" if costs.dram_bytes_per_s else "not a limit"
        return (("command processor, per member command", f"{costs.command_s * 1e6:.4g} us", costs.why("command")),
                ("parity engine, per stripe update", f"{costs.stripe_update_s * 1e6:.4g} us", costs.why("stripe_update")),
                ("parity engine, per KiB of member data", f"{costs.parity_s_per_kib * 1e6:.4g} us", costs.why("parity_kib")),
                ("card DRAM bandwidth", dram, costs.why("dram")))

    def device_bandwidth_bytes_per_s(self) -> float | None:
        """The card DRAM's bandwidth, the limit of what crosses its cache (None: not stated)."""
        return self.costs.dram_bytes_per_s

    def device_bandwidth_label(self) -> str:
        return f"RAID card DRAM ({self.costs.why('dram')})"

    def work(self, plan, is_write, chunks, host_bytes, level) -> EngineWork:
        n = len(is_write)
        out = self.empty_work(plan, n, host_bytes)
        costs = self.costs
        commands = per_host_sum(np.ones(len(plan.host_index)), plan.host_index, n)
        out.pre_s = costs.command_s * commands
        if self.spec.device is None or self.spec.device.data_through_device:
            out.device_down_bytes = np.where(is_write, float(host_bytes), 0.0)
            out.device_up_bytes = np.where(is_write, 0.0, float(host_bytes))
        if not self.striped:
            return out
        if self.write_back:  # acknowledged once in the card's DRAM: its command and the data's DMA
            out.ack_s = np.where(is_write, costs.command_s, 0.0)
        member_bytes = per_host_sum(plan.length_bytes.astype(float), plan.host_index, n)
        parity = level in PARITY_LEVELS
        engine_s = (costs.stripe_update_s * plan.stripes_touched
                    + costs.parity_s_per_kib * self._engine_member_bytes(plan, is_write, member_bytes, n) / 1024.0)
        out.mid_s = np.where(is_write & parity, engine_s, 0.0)
        # card DRAM: a write lands (host bytes), every member byte is read out, and the parity
        # engine reads what it combines (a degraded read's: its ``reconstruction``)
        engine_bytes = np.where(parity, member_bytes, 0.0)
        cache = np.where(is_write, host_bytes + member_bytes + engine_bytes, 0.0)
        out.device_read_bytes = cache if self.write_back else np.where(is_write, 0.0, cache)
        return self.degraded_work(out, plan, is_write, host_bytes, level)

    def _engine_member_bytes(self, plan, is_write, member_bytes, n: int) -> np.ndarray:
        """Member bytes the parity engine moves for each host I/O: its member I/Os', and, for a
        write that reads nothing first while members are missing (whole rows from the host), the
        missing members' too: the engine still combines every data block of the row and computes
        every parity, only the missing members' writes are dropped (counted by what was written,
        one or two members missing made a RAID6 card's sequential writes 14-33% faster)."""
        if not self.missing:
            return member_bytes
        reads = per_host_sum((~plan.is_write).astype(float), plan.host_index, n)
        whole_rows = is_write & (reads == 0)
        return np.where(whole_rows, member_bytes * self.members / max(1, self.members - self.missing), member_bytes)

    def reconstruction(self, level: int) -> Reconstruction:
        """A degraded read's reconstruction on the card: its parity engine (``mid_s``, after the
        survivors are read) at ``stripe_update_s`` per stripe and ``parity_s_per_kib`` per KiB of
        member data, the survivors' bytes landing in its DRAM, read by the engine, the rebuilt
        bytes leaving for the host."""
        costs = self.costs
        return Reconstruction("mid_s", s_per_stripe=costs.stripe_update_s, s_per_kib=costs.parity_s_per_kib,
                              through_memory=True)

    @property
    def write_back(self) -> bool:
        """Whether writes are acknowledged from the card's DRAM: the scenario's ``write_policy``,
        else the family's documented default where the card has a cache (a card with none, as
        MegaRAID's cacheless 9540-8i, writes through)."""
        if self.settings.write_policy is not None:
            return self.settings.write_policy == "write_back"
        default = self.spec.firmware is None or self.spec.firmware.write_back
        return default and self.no_cache(self.spec) is None

    def rebuild_work(self, plan, n, rows_per_step, level) -> EngineWork:
        """A rebuild request: its survivor reads and its write through the command processor, the
        parity engine over every row it rebuilds (RAID5/6; a mirror copies), the bytes through DRAM."""
        out = self.empty_work(plan, n, 0)
        costs = self.costs
        commands = per_host_sum(np.ones(len(plan.host_index)), plan.host_index, n)
        member_bytes = per_host_sum(plan.length_bytes.astype(float), plan.host_index, n)
        out.pre_s = costs.command_s * commands
        if level in PARITY_LEVELS:
            out.mid_s = costs.stripe_update_s * rows_per_step + costs.parity_s_per_kib * member_bytes / 1024.0
            out.device_read_bytes = 2.0 * member_bytes
        else:
            out.device_read_bytes = member_bytes.copy()
        return out

    def rebuild_share(self, priority: str, rate_percent: float | None = None) -> float | None:
        """The card's rebuild rate as a share: the scenario's ``rate_percent``, else the share the
        family's firmware gives the priority mode, else its default rate scaled by the priority."""
        firmware = self.spec.firmware
        if rate_percent is not None:
            return min(PACED_SHARE_MAX, rate_percent / 100.0)
        if firmware is None:
            return super().rebuild_share(priority)
        mode = firmware.rebuild_priorities.get(priority)
        if mode is not None:
            return min(PACED_SHARE_MAX, mode.value / 100.0)
        return min(PACED_SHARE_MAX, firmware.rebuild_rate_percent.value / 100.0 * PRIORITY_SCALE[priority])

    def rebuild_throttle(self, limits: RebuildSpec, loaded: bool) -> RebuildThrottle:
        share = self.rebuild_share(limits.priority, limits.rate_percent)
        if share is None or not loaded:
            return RebuildThrottle()
        return RebuildThrottle(share=share, paced_over="all", takes_idle=True,
                               why=f"{self.priority_label(limits)}: {100 * share:.0f}% of")

    def priority_label(self, limits: RebuildSpec) -> str:
        if limits.rate_percent is not None:
            return f"rebuild rate {limits.rate_percent:g}%"
        firmware = self.spec.firmware
        if firmware is not None and limits.priority in firmware.rebuild_priorities:
            return f"rebuild priority {limits.priority}"
        if firmware is not None:
            return f"rebuild rate {firmware.rebuild_rate_percent.value:g}% (firmware default), priority {limits.priority}"
        return super().priority_label(limits)
