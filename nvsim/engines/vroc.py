"""Intel VROC (Virtual RAID on CPU): Linux md behind Intel VMD, with RAID5's partial parity log.

VROC is md: mdadm assembles the array from Intel's IMSM metadata container and the same kernel
personalities (raid0, raid1, raid10, raid5; IMSM has no RAID6) do the work, so every md mechanism
and cost of ``MdEngine`` holds, with linux-md's values (models/engines/intel-vroc.yaml restates
them; a test keeps them equal). What VROC adds:

* **VMD.** The drives sit in a VMD domain of the Xeon's root complex. With MSI-X remapping on (the
  VMD's own vectors carry its drives' interrupts; ``vmd_irq`` in drivers/pci/controller/vmd.c
  dispatches each to the drive's handler) every member I/O's completion costs
  ``vmd_interrupt_us`` more host CPU, charged to the submitting core as md's request CPU is.
* **RAID5 write-hole closure, distributed PPL** (``array.engine_settings.consistency_policy: ppl``;
  md's drivers/md/raid5-ppl.c): before a stripe's new data and parity are written, md writes a
  partial parity log entry to that stripe's parity drive -- one 4 KiB header plus, unless the
  stripe is written whole, the partial parity (one 4 KiB page per stripe row). Here each stripe
  update (a host write's write to a row's parity member) adds that write to the parity member,
  in phase 0 (before the data and parity writes), and raid5d issues it (md's
  ``stripe_member_bio_us`` per page) after XOR-ing the partial parity (md's parity rate). md
  batches the entries of one raid5d pass that share a parity drive into one write; one write per
  stripe update is the most it issues.

Only Intel platforms (``cpu_vendors: [Intel]`` in the catalog entry), at most 24 drives per array
(the catalog entry's ``device.max_drives``), RAID 0/1/5/10 (``levels``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from .. import raid
from ..constants import PAGE_BYTES
from ..specs import Cited
from ..units import format_bytes_binary
from ..stripe.layout import ArrayGeometry, parity_members
from .base import EngineWork, per_host_sum
from . import md_bitmap
from .md import MdEngine, MdParameters, MdSettings

PPL_HEADER_BYTES = 4096
"""raid5-ppl.c ``PPL_HEADER_SIZE``: the header page each partial parity log write starts with."""
IMSM_RAID5_LAYOUT = "left-asymmetric"
"""mdadm's super-intel.c lays IMSM RAID5 out left-asymmetric (parity on the same member of each row
as md's default left-symmetric): where each row's parity member, and so its PPL, is."""


class VrocParameters(MdParameters):
    """md's costs (linux-md's values) and what VMD adds, at ``reference_clock_ghz``."""

    vmd_interrupt_us: Cited[float]


class VrocSettings(MdSettings):
    """What a scenario sets for VROC: md's knobs and the RAID5 consistency policy (mdadm
    ``--consistency-policy``): ``resync`` (no write-hole closure) or ``ppl`` (distributed PPL)."""

    consistency_policy: Literal["resync", "ppl"] = Field(default="resync", description="RAID5 write-hole closure")
    bitmap: Literal["internal", "external", "none"] = Field(
        default="none", description="write-intent bitmap: mdadm adds none on its own to IMSM (external metadata) "
        "arrays (mdadm commit 848d71c9, 'Create: Block automatic enabling bitmap for external metadata')")

    def for_array(self, level: int, member_bytes: float, drives: int, copies: int) -> "VrocSettings":
        """md's, except an internal bitmap's chunk: mdadm's for the IMSM volume (``imsm_chunk_bytes``),
        which a scenario's other chunk is refused for (``VrocEngine.members_refusal``)."""
        settings = super().for_array(level, member_bytes, drives, copies)
        if settings.bitmap != "internal":
            return settings
        return settings.model_copy(update={"bitmap_chunk_bytes": imsm_chunk_bytes(level, member_bytes, drives, copies)})


def imsm_chunk_bytes(level: int, member_bytes: float, drives: int, copies: int) -> int:
    """The bitmap chunk mdadm gives an IMSM volume of ``drives`` members of ``member_bytes``
    (``md_bitmap.imsm_bitmap_chunk_bytes`` of its data capacity, the volume's size in its metadata)."""
    data_members = raid.data_members_per_stripe(level, drives, copies or 2)
    return md_bitmap.imsm_bitmap_chunk_bytes(member_bytes * data_members)


class VrocEngine(MdEngine):
    Parameters = VrocParameters
    Settings = VrocSettings
    needs_vmd = True  # VROC's md runs on drives behind the platform's VMD (and only VROC is modelled there)

    @classmethod
    def default_layout(cls, level: int) -> str | None:
        """IMSM's RAID5 layout, which PPL places its writes by (``ppl_writes``); md's left-symmetric
        default was planned for a VROC RAID5 that named none."""
        return IMSM_RAID5_LAYOUT if level == 5 else None

    @classmethod
    def layout_refusal(cls, level: int, layout: str | None) -> str | None:
        """An IMSM RAID5 is left-asymmetric only (mdadm's super-intel.c, imsm_level_to_layout): another
        layout ran, and PPL's writes, placed by IMSM's parity, then missed the planner's (RAID WAF 2.3
        against 4.0; a helper's finding)."""
        if level == 5 and layout not in (None, IMSM_RAID5_LAYOUT):
            return f"layout: an IMSM RAID5 (VROC's) is {IMSM_RAID5_LAYOUT} only; allowed: {IMSM_RAID5_LAYOUT}, or leave it out; got {layout!r}"
        return super().layout_refusal(level, layout)

    @classmethod
    def settings_refusal(cls, level: int, settings: dict) -> str | None:
        """md's, and PPL only where it is kept: RAID5 (mdadm refuses --consistency-policy=ppl on
        other levels; nvsim models it at RAID5 alone). A level VROC does not run is refused before."""
        if settings.get("consistency_policy") == "ppl" and level != 5:
            return (f"engine_settings.consistency_policy: ppl (the partial parity log) closes RAID5's write hole; "
                    f"allowed at RAID{level}: resync, or leave it unset")
        if settings.get("consistency_policy") == "ppl" and settings.get("bitmap", "none") != "none":
            return (f"engine_settings.bitmap: the partial parity log and a write-intent bitmap exclude each other "
                    f"(the kernel's ppl_init_log: 'PPL is not compatible with bitmap'; mdadm refuses both); allowed "
                    f"with consistency_policy: ppl: none, or leave it unset; got {settings['bitmap']!r}")
        mdadm = settings.get("mdadm", VrocSettings.model_fields["mdadm"].default)
        if (settings.get("bitmap") == "internal" and mdadm in md_bitmap.MDADM_VERSIONS
                and not md_bitmap.mdadm_has_imsm_bitmap(mdadm)):
            return (f"engine_settings.bitmap: mdadm {mdadm} has no IMSM (VROC) write-intent bitmap (it came with "
                    f"{md_bitmap.MDADM_IMSM_BITMAP_FROM}, commit fbc42556; Create.c: 'internal bitmaps not supported "
                    f"with imsm metadata'); allowed: none, or mdadm {md_bitmap.MDADM_IMSM_BITMAP_FROM} or newer")
        if "bitmap_added" in settings:
            return ("engine_settings.bitmap_added: the room of md's own (1.2) superblock for a bitmap; IMSM keeps "
                    "its bitmap in an area of its metadata, however it was added (mdadm's super-intel.c); allowed: "
                    "leave it unset")
        return super().settings_refusal(level, settings)

    @classmethod
    def members_refusal(cls, level: int, settings: dict, member_bytes: int, drives: int, copies: int) -> str | None:
        """A bitmap chunk other than mdadm's for the IMSM volume (``imsm_chunk_bytes``): super-intel.c
        ``add_internal_bitmap_imsm`` sets ``calculate_bitmap_chunksize``'s in place of ``--bitmap-chunk``'s,
        without a word, so the array would not have the chunk the scenario names. (super1.c's room is md's
        own superblock's, not IMSM's.)"""
        parsed = cls.parsed_settings(settings)
        if parsed is None:
            return None
        chunk, imsm = parsed.bitmap_chunk_bytes, imsm_chunk_bytes(level, member_bytes, drives, copies)
        if parsed.bitmap != "internal" or chunk is None or chunk == imsm:
            return None
        return (f"engine_settings.bitmap_chunk_bytes: mdadm sets an IMSM (VROC) bitmap's chunk itself, in place of "
                f"--bitmap-chunk's (super-intel.c add_internal_bitmap_imsm: {format_bytes_binary(imsm, 0)} on this "
                f"volume); allowed: {format_bytes_binary(imsm, 0)}, or leave it unset; got {format_bytes_binary(chunk, 0)}")

    @classmethod
    def most_drives_at(cls, level: int) -> tuple[int, str] | None:
        """A RAID1 volume of IMSM metadata (VROC's) is two drives: mdadm's init_super_imsm_volume
        refuses more ("imsm does not support more than 2 disks in a raid1 volume"), as Intel's RAID
        levels table says (RAID 1: 2 drives)."""
        if level == 1:
            return 2, "IMSM metadata; mdadm: 'imsm does not support more than 2 disks in a raid1 volume'"
        return None

    @classmethod
    def fewest_drives_at(cls, level: int) -> tuple[int, str] | None:
        """An IMSM RAID10 volume is at least four drives (mdadm platform-intel.c,
        ``imsm_orom_support_raid_disks_count_raid10``: "raid_disks count must be higher than 4 and
        even"; mdadm before 4.4 took exactly four)."""
        if level == 10:
            return 4, "IMSM metadata; mdadm's imsm_orom_support_raid_disks_count_raid10: at least 4 and even"
        return None

    raid10_layouts = ("near",)  # an IMSM RAID10 is md's n2 (super-intel.c imsm_level_to_layout: 0x102)

    @classmethod
    def drive_multiple(cls, level: int, near_copies: int) -> int:
        """An IMSM RAID10 is two-drive mirrors striped (mdadm: an even count of at least four); md's
        rule (any count) at other levels."""
        return 2 if level == 10 else 1

    @classmethod
    def copies_refusal(cls, entry, level: int, near_copies: int) -> str | None:
        """An IMSM RAID10 is two-drive mirrors striped: three copies were taken (a RAID WAF of 3)."""
        if level == 10 and near_copies != 2:
            return (f"near_copies: an IMSM RAID10 (VROC's) is two-drive mirrors striped (mdadm: an even count of at "
                    f"least four drives); allowed: 2, got {near_copies}")
        return None

    def dirty_after_crash(self, level: int, write_rate_per_s: float, write_bytes_per_s: float, region_bytes: float,
                          random: bool, streams: int, data_members: int, copies: int, member_bytes: float) -> dict:
        """md's, except RAID5 with the partial parity log: after a dirty shutdown md recovers the
        stripes being written from the log and resyncs nothing (Documentation/driver-api/md/raid5-ppl.rst:
        the log is read at assembly and parity recalculated for the stripes it names)."""
        if level == 5 and self.settings.consistency_policy == "ppl":
            return {"span_bytes": 0.0, "why": "the partial parity log is replayed at assembly: no resync",
                    "bitmap": self.bitmap}
        return super().dirty_after_crash(level, write_rate_per_s, write_bytes_per_s, region_bytes, random, streams,
                                         data_members, copies, member_bytes)

    def work(self, plan, is_write, chunks, host_bytes, level) -> EngineWork:
        out = super().work(plan, is_write, chunks, host_bytes, level)
        if level == 5 and self.settings.consistency_policy == "ppl":
            out = self._with_ppl(out, plan, len(is_write))
        return self._with_vmd(out, len(is_write))

    def rebuild_work(self, plan, n, rows_per_step, level) -> EngineWork:
        """md's resync; each of its member I/Os' completions crosses VMD (the resync writes no PPL)."""
        return self._with_vmd(super().rebuild_work(plan, n, rows_per_step, level), n)

    def _with_vmd(self, out: EngineWork, n: int) -> EngineWork:
        """One remapped interrupt per member I/O, on the submitting core."""
        member_ios = per_host_sum(np.ones(len(out.host_index)), out.host_index, n)
        out.submit_cpu_ref_s = out.submit_cpu_ref_s + self.v.vmd_interrupt_us * 1e-6 * member_ios
        return out

    def ppl_writes(self, out: EngineWork, plan) -> tuple[np.ndarray, np.ndarray]:
        """The stripe updates of ``out``'s writes: (member I/O, bytes of parity it writes in that
        stripe) for each stripe row whose parity member the write lands on -- one PPL write each.
        The planner merges a member's adjacent pages, so one member write may span two rows."""
        writes = np.flatnonzero(out.is_write & (out.phase == 1))
        start = plan.member_offset_bytes[writes]
        end = start + out.length_bytes[writes]
        first, last = start // self.strip_bytes, (end - 1) // self.strip_bytes
        spans = (last - first + 1).astype(np.int64)
        io = np.repeat(writes, spans)
        row = np.repeat(first, spans) + np.arange(int(spans.sum())) - np.repeat(np.cumsum(spans) - spans, spans)
        row_bytes = np.minimum(np.repeat(end, spans), (row + 1) * self.strip_bytes) \
            - np.maximum(np.repeat(start, spans), row * self.strip_bytes)
        geometry = ArrayGeometry(5, self.members, self.strip_bytes, IMSM_RAID5_LAYOUT)
        on_parity = parity_members(geometry, row)[0] == out.member[io]
        return io[on_parity], row_bytes[on_parity]

    def _with_ppl(self, out: EngineWork, plan, n: int) -> EngineWork:
        """``out`` with a PPL write (phase 0) to the parity member before each stripe update, and
        raid5d's work for it: XOR the partial parity, issue the log's pages."""
        updates, parity_bytes = self.ppl_writes(out, plan)
        if not len(updates):
            return out
        whole = self._full_stripe(plan, out, updates)
        ppl_bytes = PPL_HEADER_BYTES + np.where(whole, 0, parity_bytes)
        hosts = out.host_index[updates]
        pp_bytes = per_host_sum((ppl_bytes - PPL_HEADER_BYTES).astype(float), hosts, n)
        pages = per_host_sum(ppl_bytes / PAGE_BYTES, hosts, n)
        p = self.v
        raid5d_s = 1e-6 * p.stripe_member_bio_us * pages + pp_bytes / (p.parity_gen_gb_per_s * 1e9)
        out.pre_s = out.pre_s + raid5d_s * self.shared_access_factor
        out.memory_bytes = out.memory_bytes + 2.0 * pp_bytes  # XOR the old pages, write the log page
        return _insert_member_ios(out, hosts, out.member[updates], ppl_bytes.astype(np.int64))

    def _full_stripe(self, plan, out: EngineWork, updates: np.ndarray) -> np.ndarray:
        """Whether each parity update's row is written whole (md's STRIPE_FULL_WRITE: no partial
        parity, the header alone): its host I/O reads nothing before writing."""
        reads_first = per_host_sum((out.phase == 0).astype(float), out.host_index, len(plan.mode)) > 0
        return ~reads_first[out.host_index[updates]]


def _insert_member_ios(out: EngineWork, hosts: np.ndarray, members: np.ndarray, lengths: np.ndarray) -> EngineWork:
    """``out`` with phase-0 writes added, member I/Os kept grouped by host I/O in phase order."""
    host = np.concatenate([out.host_index, hosts])
    phase = np.concatenate([out.phase, np.zeros(len(hosts), dtype=out.phase.dtype)])
    order = np.lexsort((phase, host))  # stable: the added writes follow the host I/O's phase-0 reads
    out.host_index = host[order]
    out.member = np.concatenate([out.member, members.astype(out.member.dtype)])[order]
    out.length_bytes = np.concatenate([out.length_bytes, lengths])[order]
    out.is_write = np.concatenate([out.is_write, np.ones(len(hosts), dtype=bool)])[order]
    out.phase = phase[order]
    return out


__all__ = ["VrocEngine", "VrocParameters", "VrocSettings", "PPL_HEADER_BYTES"]
