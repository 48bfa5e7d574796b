"""Lockless CPU RAID (xiRAID-like): no shared lock and no stripe thread on the data path.

Each I/O is handled on the core that submits it (``request_cpu_us`` per host I/O plus
``member_io_us`` per member I/O, at ``reference_clock_ghz``), parity computed there with vector
instructions at ``parity_gen_gb_per_s`` per core over the bytes the stripe update touches.
Throughput then scales with cores until drives or links bind. No stripe cache: a sequential
stream's writes are not merged into whole stripes (seed 001, Figures 4-5).

Reconstruction (xiRAID Classic's ``recon``; docs/models/rebuild.md, "xiRAID"):

* stripe-wise: a request rebuilds one stripe row of the replaced member -- it reads the row's
  strip from every surviving member, computes the missing strip, writes it (one strip per member:
  ``strip_bytes``, the array's strip, ``xicli raid create --strip_size``);
* on host cores, like the data path: ``recon_threads`` threads (a setting; default the catalog's
  ``rebuild_threads``), each keeping ``recon_rows_per_thread`` stripe rows in flight (default
  ``rebuild_rows_per_thread``); each row costs its thread ``request_cpu_us``, ``member_io_us`` per
  member I/O and the parity over the survivors' bytes at ``parity_gen_gb_per_s`` (the same
  per-core AVX rate as a host write's parity). The threads run on the host's CPUs, the
  application's too: the solvers give them only the CPUs the application's threads leave
  (``nvsim.sim.foreground.FioLoad.servers``, ``nvsim.sim.oltp_load``), and a database's threads
  lose what they take;
* its rows in flight wait in the survivors' queues beside the host's reads: nothing raises them
  to hold a share under load, so a host read load slows it;
* ``recon_prio`` (``xicli raid create/modify --recon_prio``, "reconstruction priority in %,
  0..100 (maximum rate of reconstruction), default 100"): the reconstruction runs at most at that
  share of its maximum rate, the rate it reaches with the array to itself
  (``RebuildThrottle.alone_share``), idle or loaded; ``array.rebuild.priority`` scales it as for
  every vendor engine (capped at 100%). nvsim takes 1..100: at 0 the reconstruction would not run.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from ..specs import Cited, RebuildSpec
from .base import PRIORITY_SCALE, Engine, EngineParameters, EngineSettings, EngineWork, RebuildThrottle, per_host_sum
from .rebuild_protocol import Reconstruction


class LocklessParameters(EngineParameters):
    """A lockless CPU RAID's costs on the submitting core, at ``reference_clock_ghz``, and its
    reconstruction's threads and stripe rows in flight."""

    reference_clock_ghz: Cited[float]
    request_cpu_us: Cited[float]
    member_io_us: Cited[float]
    parity_gen_gb_per_s: Cited[float]
    rebuild_threads: Cited[float]
    rebuild_rows_per_thread: Cited[float]


class LocklessSettings(EngineSettings):
    """What a scenario sets for xiRAID (``xicli raid create/modify``)."""

    recon_prio: int = Field(default=100, ge=1, le=100,
                            description="reconstruction priority in % of its maximum rate (xicli --recon_prio; "
                                        "0, no reconstruction, is not modelled)")
    recon_threads: int | None = Field(default=None, ge=1, le=256,
                                      description="host threads the reconstruction runs on (default: the catalog's "
                                                  "rebuild_threads)")
    recon_rows_per_thread: int | None = Field(default=None, ge=1, le=1024,
                                              description="stripe rows each reconstruction thread keeps in flight "
                                                          "(default: the catalog's rebuild_rows_per_thread)")


class LocklessCpuEngine(Engine):
    Parameters = LocklessParameters
    rebuild_parity_on = "the reconstruction threads (host cores, AVX)"
    rebuild_on_host_cores = True
    Settings = LocklessSettings

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
        return self.degraded_work(out, plan, is_write, host_bytes, level)

    def reconstruction(self, level: int) -> Reconstruction:
        """A degraded read on the submitting core: its survivors' member I/Os cost ``member_io_us``
        each (``work``), and the missing bytes are computed there from the survivors' at
        ``parity_gen_gb_per_s``, the same per-core vector rate as a write's parity and a
        reconstruction row's (RAID1/10 read the mirror: nothing to compute)."""
        if level not in (5, 6):
            return Reconstruction("submit_cpu_ref_s")
        return Reconstruction("submit_cpu_ref_s", bytes_per_s=self.v.parity_gen_gb_per_s * 1e9)

    def rebuild_threads(self) -> int:
        """The host threads the reconstruction runs on (``recon_threads``, else ``rebuild_threads``)."""
        stated = self.settings.recon_threads
        return int(stated) if stated is not None else max(1, int(round(self.v.rebuild_threads)))

    def rows_per_thread(self) -> int:
        stated = self.settings.recon_rows_per_thread
        return int(stated) if stated is not None else max(1, int(round(self.v.rebuild_rows_per_thread)))

    def rebuild_settings(self, level: int, priority: str) -> tuple[int, float]:
        """(one strip: a stripe row of the replaced member, rows in flight over all its threads).
        ``priority`` acts through ``recon_prio``'s rate (``rebuild_throttle``), not the rows in flight."""
        return int(self.strip_bytes), float(self.rebuild_threads() * self.rows_per_thread())

    def recon_share(self, priority: str) -> float:
        """``recon_prio`` as a share of the reconstruction's maximum rate, scaled by the priority."""
        return min(1.0, self.settings.recon_prio / 100.0 * PRIORITY_SCALE[priority])

    def rebuild_throttle(self, limits: RebuildSpec, loaded: bool) -> RebuildThrottle:
        """``recon_prio`` below 100%: at most that share of the rate the reconstruction reaches with
        the array to itself, idle or loaded; at 100% nothing but the queues it shares holds it."""
        share = self.recon_share(limits.priority)
        if share >= 1.0:
            return RebuildThrottle()
        return RebuildThrottle(alone_share=share, why=f"{self.priority_label(limits)}: {100 * share:.0f}% of")

    def priority_label(self, limits: RebuildSpec) -> str:
        return f"xiRAID recon_prio {self.settings.recon_prio} (rebuild priority {limits.priority})"

    def rebuild_work(self, plan, n, rows_per_step, level) -> EngineWork:
        """Costs of ``n`` reconstruction requests on the rebuild's threads: per request
        ``request_cpu_us``, ``member_io_us`` per member I/O, and (RAID5/6) the parity over the
        survivors' bytes read at ``parity_gen_gb_per_s``."""
        out = self.empty_work(plan, n, 0)
        p = self.v
        member_ios = per_host_sum(np.ones(len(plan.member)), plan.host_index, n)
        read_bytes = per_host_sum(np.where(plan.phase == 0, plan.length_bytes, 0).astype(float), plan.host_index, n)
        parity_s = read_bytes / (p.parity_gen_gb_per_s * 1e9) if level in (5, 6) else 0.0
        out.submit_cpu_ref_s = 1e-6 * (p.request_cpu_us + p.member_io_us * member_ios) + parity_s
        written = per_host_sum(np.where(plan.is_write, plan.length_bytes, 0).astype(float), plan.host_index, n)
        out.memory_bytes = read_bytes + written
        return out
