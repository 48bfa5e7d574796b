"""Linux md (drivers/md/raid{0,1,10,5}.c and md.c as in the 5.4 and 5.15 kernels of the reference
documents), the mechanisms that set its speed (docs/models/engines.md):

* RAID1/10: a bio is split at chunk boundaries (``raid10_make_request``; raid1 at its barrier
  units) and every piece takes ``conf->resync_lock`` in ``wait_barrier`` (``barrier_lock_us``
  per md request; raid10 from Linux 6.1 only an atomic increment, raid1 a wait queue's lock at
  each request's end, none from 6.6: ``barrier_hold_us``); each
  member write is queued on ``conf->pending_bio_list`` under ``conf->device_lock`` (one
  device_lock hold per member write).
* RAID4/5/6 reads in the optimal state bypass the stripe cache (``raid5_read_one_chunk``), one
  per chunk, each a device_lock hold.
* A device_lock hold is the platform's transfer of the lock's cache line (``line_transfer_us``:
  the CPU's ``cache_line_transfer_ns``); on two sockets every locked and raid5d time is
  multiplied by ``shared_access_factor`` (the CPU's ``cross_socket_line_factor`` over the share
  of submitters on the other socket).
* RAID4/5/6 writes go through the stripe cache: each 4 KiB page row is a ``stripe_head``; the
  submitter takes device_lock per stripe_head, and raid5d (one thread: ``stripe_thread_count``)
  handles each stripe_head in one pass per state change: ``stripe_disk_us`` per member of the
  array per pass plus ``stripe_member_bio_us`` per member page bio it issues, plus parity at
  ``parity_gen_gb_per_s``. RMW/RCW reads: a pass before the reads, one after.
* The write-intent bitmap (``md_bitmap``): ``bitmap->counts.lock`` taken twice per written page
  (RAID4/5/6) or request (RAID1/10); a write that sets a clean bit holds md's thread for one
  bitmap update (``sync_update_share``, at the write rate the solvers feed back).
* Every md request (``md_requests``: one per chunk a RAID0/10 bio or an optimal-state RAID4/5/6
  read is split into, and per chunk piece of a read while degraded, whose pass walks the bio a
  page at a time; one per RAID4/5/6 write, which walks the bio's stripe_heads in one pass; on
  RAID1, which has no chunks, one per 64 MiB barrier unit, ``raid1_requests``) costs ``request_cpu_us`` on the submitting core, at
  ``reference_clock_ghz``: fitted on RAID5/6/10 rows, it covers their personalities' request
  paths. RAID0's ``raid0_make_request`` only remaps the bio (``find_zone``, ``map_sector``) and
  passes it on, no lock, no barrier, no per-request allocation of its own: a RAID0 md request
  costs ``raid0_request_cpu_us`` instead.
* Degraded (a member missing): RAID5/6 reads no longer bypass the stripe cache
  (``raid5_make_request`` takes ``chunk_aligned_read`` only while ``mddev->degraded == 0``): every
  read is a stripe_head handled by raid5d like a write, plus the reconstruction's parity work.
* Rebuild (``md_do_sync`` -> ``sync_request``, ``resync_request_us`` each on the resync thread):
  RAID5/6 one stripe_head per 4 KiB row, reading every other member and writing the new one, in
  requests of ``rebuild_io_kib`` (MAX_STRIPE_BATCH rows), as many as the grown stripe cache holds
  (``resync_stripe_heads``). RAID10 reads up to ``RESYNC_BLOCK_SIZE`` (64 KiB, and no further
  than the chunk's end unless it has as many near copies as drives) from a surviving copy and writes it, ``RESYNC_DEPTH`` (512) at once, each
  under the array barrier (``raise_barrier``): normal I/O waits while any recovery request is in
  flight (nvsim.sim.mixed.BarrierCycle). RAID1: 32 at once, under a barrier per 64 MiB bucket that
  random normal I/O all but never meets. The throttle is md_do_sync's (``rebuild_throttle``).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numba as nb
import numpy as np

from typing import Any, Literal

from pydantic import Field, ValidationError, ValidatorFunctionWrapHandler, field_validator

from ..numba_cache import INNER
from ..constants import PAGE_BYTES
from ..specs import Bytes, Cited, RebuildSpec
from ..errors import shown
from ..units import format_bytes_binary, format_bytes_decimal, parse_bytes
from .base import (Engine, EngineParameters, EngineServer, EngineSettings, EngineWork, RebuildThrottle, StripeCacheLoad,
                   per_host_sum)
from .rebuild_protocol import Reconstruction
from . import md_bitmap
from .md_bitmap import (BITMAP_ADDED, BITMAP_CHUNK_MAX_BYTES, BITMAP_PAGE_BYTES, MDADM_BITMAP_CHUNK_BYTES, DAEMON_SLEEP_MIN_S, DEFAULT_DAEMON_SLEEP_S, DEFAULT_MDADM, MDADM_VERSIONS,
                        dirty_fraction_sequential)


RAID456_LEVELS = (4, 5, 6)
"""Levels md runs with its raid456 personality (the stripe cache, raid5d and its worker groups)."""
RAID5D_THREADS = 1
"""raid5d: the one md thread that handles stripe_heads when no worker group is set."""
STRIPE_CACHE_MAX = 32768
"""The largest stripe_cache_size raid5_set_cache_size accepts."""
STRIPE_CACHE_MIN = 17
"""The smallest stripe_cache_size raid5_set_cache_size accepts (``size <= 16`` is refused)."""
NR_STRIPES = 256
"""raid5.c ``NR_STRIPES``: the stripe_heads an array starts with (sysfs ``stripe_cache_size``)."""
HERD_WAKER_LINES = 3
"""Cache lines ``wake_up(&conf->wait_for_stripe)`` moves per sleeper it wakes, under the wait
queue's lock: the sleeper's ``p->pi_lock`` (``try_to_wake_up``), the target CPU's wake list
(``ttwu_queue_wakelist``), the sleeper's wait entry it unlinks (``autoremove_wake_function``)."""
HERD_REQUEUE_LINES = 2
"""Cache lines a woken submitter moves to queue itself again (``prepare_to_wait_event``): the wait
queue's lock with its list head, and the last sleeper's wait entry it links behind."""
MAX_STRIPE_BATCH = 8
"""raid5.c ``MAX_STRIPE_BATCH``: stripe_heads raid5d (or a worker) takes off its lists under one
device_lock hold; ``raid5_wakeup_stripe_thread`` wakes one more worker for each batch queued."""
DEVICE_LOCK_LINES = 1
"""Cache lines a device_lock hold moves between cores: the lock's own (raid5_read_one_chunk's
``active_aligned_reads``, the stripe lists' heads share it in ``struct r5conf``)."""
SYNC_WINDOW_BYTES = 32 * PAGE_BYTES
"""md_do_sync's ``window = 32 * (PAGE_SIZE / 512)`` sectors: the resync progress between two checks
of its speed (128 KiB with 4 KiB pages)."""
RESYNC_BLOCK_BYTES = 64 * 1024
"""raid1.c/raid10.c ``RESYNC_BLOCK_SIZE``: the most one resync/recovery request covers."""
RESYNC_DEPTH = {1: 32.0, 10: 512.0}
"""Recovery requests md keeps in flight under its barrier (``raise_barrier`` waits while
``conf->barrier`` reaches it): raid1.c's ``RESYNC_DEPTH`` 32, raid10.c's 32 MiB /
RESYNC_BLOCK_SIZE = 512. raid10's barrier is array-wide: the resync thread issues its requests back
to back once normal I/O has drained, so a RAID10 recovery batch is 512 requests
(nvsim.sim.mixed.BarrierCycle; the event mode runs the same protocol). raid1's barrier is per
64 MiB bucket (since Linux 4.11), so its 32 requests run beside random normal I/O."""


BARRIER_UNIT_BYTES = 64 * 2**20
"""raid1.c ``BARRIER_UNIT_SECTOR_SIZE`` (1 << 17 sectors): raid1 has no chunks and splits a bio only
at the end of one of these units (``align_to_barrier_unit_end``), each piece one md request."""


def raid1_requests(plan, n: int) -> np.ndarray:
    """md requests each of ``n`` host I/Os becomes on RAID1: the barrier units its member I/Os
    span (a mirror's member I/O covers the host I/O at the same offset), 1 below 64 MiB."""
    lo = np.full(n, np.iinfo(np.int64).max)
    hi = np.zeros(n, dtype=np.int64)
    np.minimum.at(lo, plan.host_index, plan.member_offset_bytes // BARRIER_UNIT_BYTES)
    np.maximum.at(hi, plan.host_index, (plan.member_offset_bytes + plan.length_bytes - 1) // BARRIER_UNIT_BYTES)
    return np.where(hi >= lo, hi - lo + 1, 1).astype(float)


@nb.njit(nogil=True, cache=True)
def _pages_covered(host, lo, end, n):
    """Per host I/O (``host`` below ``n``), the number of distinct pages its member I/Os' page
    ranges ``[lo, end)`` cover: the length of their union, swept by ``lo``. As many as the
    distinct (host, page) keys of every page (``np.unique``'s count), without making one key a
    page (a 1 MiB member I/O is 256); grouped by host I/O with a counting pass and each group
    sorted on its own (a batch's ``np.lexsort`` of the two keys cost more than md's other work)."""
    start = np.zeros(n + 1, np.int64)
    for h in host:
        if h < n:
            start[h + 1] += 1
    for h in range(n):
        start[h + 1] += start[h]
    at = start[:-1].copy()
    members = np.empty(start[n], np.int64)
    for i in range(host.size):
        h = host[i]
        if h < n:
            members[at[h]] = i
            at[h] += 1
    rows = np.zeros(n)
    for h in range(n):
        group = members[start[h]:start[h + 1]]
        _sort_by(group, lo)
        reach = lo[group[0]] if group.size else 0
        for i in group:
            if end[i] > reach:
                rows[h] += end[i] - max(lo[i], reach)
                reach = end[i]
    return rows


@nb.njit(nogil=True, cache=True, **INNER)
def _sort_by(index, key):
    """``index`` in place in order of ``key[index]`` (insertion: a host I/O's few member I/Os;
    NumPy's merge sort past 16)."""
    if index.size > 16:
        index[:] = index[np.argsort(key[index], kind="mergesort")]
        return
    for i in range(1, index.size):
        item, k = index[i], key[index[i]]
        j = i - 1
        while j >= 0 and key[index[j]] > k:
            index[j + 1] = index[j]
            j -= 1
        index[j + 1] = item


class MdParameters(EngineParameters):
    """Linux md's costs (models/engines/linux-md.yaml), at ``reference_clock_ghz``."""

    reference_clock_ghz: Cited[float]
    request_cpu_us: Cited[float]
    raid0_request_cpu_us: Cited[float]
    resync_request_us: Cited[float]
    barrier_lock_us: Cited[float]
    stripe_disk_us: Cited[float]
    stripe_member_bio_us: Cited[float]
    parity_gen_gb_per_s: Cited[float]
    rebuild_io_kib: Cited[float]


KERNELS = ("4.19", "5.4", "5.10", "5.15", "6.1", "6.6", "6.12")
"""Linux kernels whose md a scenario may name (``array.engine_settings.kernel``): long-term releases."""
DEFAULT_KERNEL = "6.6"
"""A current long-term kernel, the default."""
ALIGNED_READ_NO_DEVICE_LOCK = (5, 14)
"""Linux 5.14, commit 97ae27252f49 "md/raid5: avoid device_lock in read_one_chunk()" (Gal Ofri,
2021): a chunk-aligned RAID4/5/6 read no longer takes ``conf->device_lock`` around its count of
``active_aligned_reads``; it increments the counter atomically unless the array is quiescing. Its
message measured 2M against 4M random-read IOPS before and after on one array: the lock's line and
the counter's line moved per read before, the counter's alone after."""


RAID10_BARRIER_SEQLOCK = (6, 1)
"""Linux 6.1, Yu Kuai's series "md/raid10: reduce lock contention for io" (v3, 16 Sep 2022; its
patch "md/raid10: convert resync_lock to use seqlock"): ``wait_barrier`` tries
``wait_barrier_nolock`` first, which reads the seqcount and ``conf->barrier`` (lines nobody writes
while no barrier is raised) and increments ``conf->nr_pending`` atomically, without taking
``resync_lock``; before, every md request took ``spin_lock_irq(&conf->resync_lock)`` around that
increment. The cover letter measured 7.0 -> 9.3 GiB/s of 4 KiB random reads on x86
(scenarios/md-kernels, a prediction)."""


RAID1_BUCKET_BARRIER = (4, 11)
"""Linux 4.11, Coly Li's "RAID1: a new I/O barrier implementation to remove resync window" and
"RAID1: avoid unnecessary spin locks in I/O barrier code" (commit 824e47daddbf): raid1's barrier
is a counter per 64 MiB bucket (``BARRIER_BUCKETS_NR`` 1,024), taken with atomics, no spinlock on
the fast path; its message measured 2.7 GB/s of 64 KiB sequential reads before, with the time in
``_raw_spin_lock_irq`` of ``wait_barrier`` and ``allow_barrier``. Older than every kernel nvsim models."""
RAID1_WAKE_ONLY_SLEEPERS = (6, 6)
"""Jack Wang, "md/raid1: Prevent unnecessary call to wake_up() in fast path" (v2, 4 Jul 2023,
after the 6.5 merge window, so in nvsim from 6.6): ``wake_up_barrier`` calls ``wake_up`` only when
the wait queue has a sleeper (``wq_has_sleeper``), so ``_allow_barrier`` and
``raid1_write_request`` no longer take the wait queue's spinlock on every request. Its message:
400 jobs on two ramdisks, 4.6 -> 7.3 GB/s of reads (ramdisks: not a prediction)."""


def _size_or_none(value: Any) -> int | None:
    """``value`` as a number of bytes (``units.parse_bytes``), or None where it is no size."""
    try:
        return parse_bytes(value)
    except (ValueError, TypeError):
        return None


def kernel_tuple(kernel: str) -> tuple[int, int]:
    major, minor = kernel.split(".")
    return int(major), int(minor)


class MdSettings(EngineSettings):
    """What a scenario sets for md (sysfs /sys/block/mdX/md/..., mdadm --create options, the kernel)."""

    group_thread_cnt: int = Field(default=0, ge=0, le=8192, description=(
        "raid5 worker threads per group (RAID5/6); the kernel takes up to 8192 (raid5_store_group_thread_cnt)"))
    stripe_cache_size: int = Field(default=NR_STRIPES, ge=STRIPE_CACHE_MIN, le=STRIPE_CACHE_MAX,
                                   description="stripe_heads in the RAID5/6 stripe cache (sysfs stripe_cache_size)")
    kernel: Literal[KERNELS] = Field(default=DEFAULT_KERNEL, description="the Linux kernel whose md runs the array")
    mdadm: Literal[MDADM_VERSIONS] = Field(default=DEFAULT_MDADM, description="the mdadm that created the array: its "
                                           "defaults for the write-intent bitmap and its chunk")
    bitmap: Literal["internal", "external", "none"] | None = Field(
        default=None, description="write-intent bitmap (mdadm --bitmap); unset: mdadm's own choice (3.3-4.3 an "
        "internal one on members over 100 GiB; 3.2 none; 4.4 on asks, and a scripted create gets none)")
    bitmap_chunk_bytes: Bytes | None = Field(default=None, ge=MDADM_BITMAP_CHUNK_BYTES, le=BITMAP_CHUNK_MAX_BYTES,
                                             description="bitmap chunk (mdadm --bitmap-chunk): bytes of the bitmap's "
                                             "space per bit (a member's; RAID10's array); unset: mdadm's default, "
                                             "internal: 64 MiB or what 128 KiB of bits needs; a file: 4 KiB "
                                             "or what 2^20 chunks need. An internal one at least what the room "
                                             "mdadm leaves its bits needs (4 MiB on 3.84 TB members)")
    bitmap_added: Literal[BITMAP_ADDED] = Field(default="create", description=(
        "how the internal bitmap was added: create (mdadm --create --bitmap=internal, or mdadm's own) or grow "
        "(mdadm --grow --bitmap=internal on the array): the room mdadm gives its bits, the same from mdadm 4.0, "
        "32 KiB with 3.3 and 3.4, 1,019 KiB with 3.2"))
    bitmap_daemon_sleep_s: float = Field(default=DEFAULT_DAEMON_SLEEP_S, ge=DAEMON_SLEEP_MIN_S, le=3600,
                                         description="seconds between bitmap daemon passes (mdadm --delay); at "
                                         "least one jiffy, which the kernel rounds a shorter one up to")
    bitmap_drive: str | None = Field(default=None, min_length=1,
                                     description="catalog drive holding an external bitmap's file (bitmap: external; "
                                     "mdadm --bitmap=/path on a file system outside the array); unset: a drive "
                                     "like the members")

    @field_validator("bitmap_chunk_bytes", mode="wrap")
    @classmethod
    def _chunk_md_takes(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> int | None:
        """A chunk md takes: a power of two from a page (``MDADM_BITMAP_CHUNK_BYTES``) to ``BITMAP_CHUNK_MAX_BYTES``,
        a size out of that range refused in the range's words, with units (pydantic's were 'less than or equal to
        2147483648', the size reader's 'at most 2^64 bytes'); a value that is no size keeps the reader's line."""
        try:
            chunk = handler(value)
        except ValidationError:
            chunk = _size_or_none(value)
            if chunk is None:
                raise
        if chunk is not None and not (MDADM_BITMAP_CHUNK_BYTES <= chunk <= BITMAP_CHUNK_MAX_BYTES and not chunk & (chunk - 1)):
            raise ValueError(f"md takes a bitmap chunk from a page to what its __le32 chunksize holds (mdadm --bitmap-chunk); allowed: "
                             f"{format_bytes_binary(MDADM_BITMAP_CHUNK_BYTES, 0)} to "
                             f"{format_bytes_binary(BITMAP_CHUNK_MAX_BYTES, 0)} (a power of two), or leave it unset; got {shown(value)}")
        return chunk

    def for_array(self, level: int, member_bytes: float, drives: int, copies: int) -> "MdSettings":
        """These settings as mdadm creates an array of ``drives`` members of ``member_bytes`` at
        ``level``: the bitmap it adds when none is named (``md_bitmap.mdadm_adds_bitmap``: by its
        version and the members' size) and its default chunk for the space the bitmap covers
        (``bitmap_span_bytes``): an internal bitmap's ``md_bitmap.mdadm_bitmap_chunk_bytes`` (super1.c),
        a file's ``md_bitmap.mdadm_bitmap_file_chunk_bytes`` (bitmap.c); RAID0 has none."""
        bitmap = self.bitmap
        if bitmap is None:
            bitmap = "internal" if level != 0 and md_bitmap.mdadm_adds_bitmap(member_bytes, self.mdadm) else "none"
        chunk = self.bitmap_chunk_bytes
        if chunk is None and bitmap == "external":
            chunk = md_bitmap.mdadm_bitmap_file_chunk_bytes(md_bitmap.bitmap_span_bytes(level, member_bytes, drives, copies))
        elif chunk is None and bitmap == "internal":
            chunk = md_bitmap.mdadm_bitmap_chunk_bytes(md_bitmap.bitmap_span_bytes(level, member_bytes, drives, copies),
                                                       self.bitmap_room_bytes(member_bytes))
        return self.model_copy(update={"bitmap": bitmap, "bitmap_chunk_bytes": chunk})

    def bitmap_room_bytes(self, member_bytes: float) -> int:
        """The room mdadm gives an internal bitmap's bits on members of ``member_bytes``, by this
        mdadm and how the bitmap was added (``md_bitmap.mdadm_bitmap_room_bytes``)."""
        return md_bitmap.mdadm_bitmap_room_bytes(member_bytes, self.mdadm, self.bitmap_added)

    def internal_chunk_refusal(self, level: int, member_bytes: float, drives: int, copies: int) -> str | None:
        """Why mdadm refuses this internal bitmap's chunk on ``drives`` members of ``member_bytes``:
        below the smallest whose bits fit the room it leaves (``md_bitmap.mdadm_bitmap_min_chunk_bytes``;
        super1.c ``add_internal_bitmap1`` returns -EINVAL, Create.c: "Given bitmap chunk size not
        supported"); None when it takes it, or when the scenario names no chunk."""
        chunk = self.bitmap_chunk_bytes
        if self.bitmap != "internal" or chunk is None:
            return None
        room = self.bitmap_room_bytes(member_bytes)
        least = md_bitmap.mdadm_bitmap_min_chunk_bytes(md_bitmap.bitmap_span_bytes(level, member_bytes, drives, copies), room)
        if chunk >= least:
            return None
        covers = "the array's addresses" if level == 10 else "a member"
        return (f"engine_settings.bitmap_chunk_bytes: mdadm {self.mdadm} refuses an internal bitmap chunk below "
                f"{format_bytes_binary(least, 0)} on {format_bytes_decimal(member_bytes)} members (its bits, one per chunk "
                f"of {covers}, must fit the {format_bytes_binary(room, 0)} it leaves them on a {self.bitmap_added}: "
                f"super1.c add_internal_bitmap1); allowed: {format_bytes_binary(least, 0)} to "
                f"{format_bytes_binary(BITMAP_CHUNK_MAX_BYTES, 0)} (a power of two), or leave it unset; got "
                f"{format_bytes_binary(chunk, 0)}")


MD_DISCARD_LEVELS = (0, 1, 10)
"""md levels that pass discards to their members without a module parameter (raid0, raid1, raid10)."""


class MdEngine(Engine):
    Parameters = MdParameters
    rebuild_parity_on = "md's resync thread and raid5d (host cores)"
    rebuild_on_host_cores = True  # md's resync thread
    reads_follow_streams = True  # raid1.c read_balance: "Don't change to another disk for sequential reads"
    degraded_read_through = "a stripe_head through raid5d (no chunk_aligned_read while degraded)"
    degraded_parity_on = "raid5d (host cores)"
    Settings = MdSettings
    rebuild_fields = frozenset({"speed_limit_min_kib_per_s", "speed_limit_max_kib_per_s", "sync_speed_min_kib_per_s",
                                "sync_speed_max_kib_per_s", "span_bytes"})  # md_do_sync's throttle; no priority
    sync_update_bytes = BITMAP_PAGE_BYTES  # a write-intent bitmap update: one bitmap page to every member

    @classmethod
    def settings_label(cls, entry, settings: dict | None) -> str:
        """The kernel whose md runs the array and the mdadm that created it (their defaults where
        the scenario names none): the kernel sets the aligned read's device_lock (before 5.14 twice
        the hold: 3.03M IOPS, not 6.06M, on 24 drives) and mdadm the bitmap, so a report names them."""
        settings = settings or {}
        return f"kernel {settings.get('kernel') or DEFAULT_KERNEL}, mdadm {settings.get('mdadm') or DEFAULT_MDADM}"

    @classmethod
    def strip_must_be_power_of_two(cls, level: int) -> bool:
        """md takes only a power-of-two chunk for RAID5, 6 and 10 (mdadm: "chunk size must be a
        power of 2")."""
        return level in (5, 6, 10)

    raid10_layouts = ("near", "far", "offset")  # mdadm --layout=n2 | f2 | o2 (raid10.c setup_geo)

    @classmethod
    def drive_multiple(cls, level: int, near_copies: int) -> int:
        """Any count: md's near layout rotates the copies over the drives, so a RAID10 need not be
        a multiple of its copies."""
        return 1

    @classmethod
    def passes_discards(cls, level: int) -> bool:
        """md RAID 0, 1 and 10 pass discards; RAID 4/5/6 only with the raid456 module's
        ``devices_handle_discard_safely`` (drivers/md/raid5.c), which a scenario does not state."""
        return level in MD_DISCARD_LEVELS

    @classmethod
    def discard_refusal(cls, level: int, name: str) -> str:
        return (f"md RAID {level} passes discards to its drives only with the raid456 module's "
                f"devices_handle_discard_safely=Y, which the scenario does not state")

    @classmethod
    def settings_refusal(cls, level: int, settings: dict) -> str | None:
        """Settings md has no place for at ``level``, asked for by name: a write-intent bitmap on
        RAID0 (mdadm refuses ``--bitmap`` at level 0: a bitmap records what a redundant array must
        resync); the stripe cache's size and its worker threads away from RAID4/5/6 (sysfs
        ``stripe_cache_size`` and ``group_thread_cnt`` are raid456's attributes, which other
        personalities do not register). A default value (``Settings``'), as written, is taken."""
        if level == 0 and settings.get("bitmap", "none") != "none":
            return (f"engine_settings.bitmap: md RAID0 has no write-intent bitmap (mdadm refuses --bitmap at "
                    f"level 0); allowed: none, or leave it unset; got {settings['bitmap']!r}")
        bitmap = settings.get("bitmap", cls.Settings.model_fields["bitmap"].default)
        for name in ("bitmap_chunk_bytes", "bitmap_daemon_sleep_s", "bitmap_added"):
            if bitmap == "none" and name in settings:
                return (f"engine_settings.{name}: has no effect without a write-intent bitmap (bitmap: none); "
                        f"allowed: leave it unset, or bitmap: internal or external")
            if bitmap is None and name in settings:  # mdadm's own choice depends on its version and the members
                return (f"engine_settings.{name}: sets the write-intent bitmap, which the scenario does not name "
                        f"(mdadm adds one on its own only from 3.3 to 4.3, on members over 100 GiB); allowed: "
                        f"with bitmap: internal or external")
        if "bitmap_added" in settings and bitmap == "external":
            return ("engine_settings.bitmap_added: how an internal bitmap was added (the room mdadm gives its bits); "
                    "a bitmap file has no such room; allowed: with bitmap: internal")
        if "bitmap_drive" in settings and bitmap != "external":
            return (f"engine_settings.bitmap_drive: the device of an external bitmap's file; allowed: with bitmap: "
                    f"external (an internal bitmap lives on the members), got bitmap: {bitmap or 'unset'}")
        mdadm = settings.get("mdadm", cls.Settings.model_fields["mdadm"].default)
        if bitmap == "external" and mdadm in MDADM_VERSIONS and not md_bitmap.mdadm_keeps_bitmap_files(mdadm):
            return (f"engine_settings.bitmap: mdadm {mdadm} keeps no bitmap in a file of its own (removed in 4.4, "
                    f"commit 581ba134); allowed: internal or none, or mdadm 4.3 or older")
        if level not in RAID456_LEVELS:
            for name in ("stripe_cache_size", "group_thread_cnt"):
                default = cls.Settings.model_fields[name].default
                if settings.get(name, default) != default:
                    return (f"engine_settings.{name}: md has it only at RAID4/5/6 (a raid456 sysfs attribute); "
                            f"allowed at RAID{level}: leave it unset; got {settings[name]!r}")
        return None

    @classmethod
    def members_refusal(cls, level: int, settings: dict, member_bytes: int, drives: int, copies: int) -> str | None:
        """An internal bitmap chunk mdadm refuses on these members (``MdSettings.internal_chunk_refusal``);
        settings the schema refuses are left to its own line."""
        parsed = cls.parsed_settings(settings)
        return None if parsed is None else parsed.internal_chunk_refusal(level, member_bytes, drives, copies)

    def sync_threads(self, level: int) -> str:
        """Where a sync's own work runs: md's resync thread (``md_do_sync`` -> the personality's
        ``sync_request``) and the personality's thread -- raid5d, which handles each sync
        stripe_head at RAID4/5/6; raid1d or raid10d at RAID1/10, which send a sync request's writes
        and compare a check's copies (``sync_request_write``). RAID1/10 have no raid5d."""
        if level in (1, 10):
            return f"md's resync thread and raid{level}d (host cores)"
        return self.rebuild_parity_on

    def resync_operation(self, level: int) -> str:
        """md's resync after an unclean shutdown (``MD_RECOVERY_SYNC`` without ``MD_RECOVERY_REQUESTED``).
        raid1: a ``resync`` -- ``raid1_sync_request`` marks every in-sync mirror a read target but
        submits only the read of ``read_disk`` (the first readable one), counting the others as
        write targets too ("extra read targets are also write targets"); ``sync_request_write``
        then writes that copy to every other mirror, and compares (``process_checks``) only for a
        user's check or repair (``MD_RECOVERY_REQUESTED``). raid10 (``sync_request_write`` reads
        every copy, compares and writes the ones that differ) and raid4/5/6 (``handle_parity_checks5/6``
        check the parity and write it where it differs): the ``check`` protocol."""
        return "resync" if level == 1 else "check"

    def degraded_path(self, level: int):
        """md's degraded host I/O (``Engine.degraded_path``); at RAID1/10 a read goes the normal read
        path, ``read_balance`` skipping the missing copy (there is no raid5d)."""
        path = super().degraded_path(level)
        if level in (1, 10):
            return replace(path, read_through=f"the normal read path (raid{level}.c read_balance skips the missing copy)")
        return path

    def reconstruction(self, level: int) -> Reconstruction:
        """A degraded RAID5/6 read's reconstruction: raid5d (``pre_s``, before the read returns)
        XORs the survivors' bytes at ``parity_gen_gb_per_s``; the stripe_head it rides on is the
        degraded read path's (``work``)."""
        return Reconstruction("pre_s", bytes_per_s=self.v.parity_gen_gb_per_s * 1e9)

    def own_server(self) -> EngineServer:
        """md's own thread: raid5d (and its worker groups) at RAID4/5/6; raid1d or raid10d at RAID1
        and RAID10, whose work there is the write-intent bitmap's updates (``md_bitmap_unplug``
        before the writes they hold go out)."""
        threads = int(self.stripe_thread_count())
        if self.level in (1, 10):
            return EngineServer(f"md RAID{self.level} thread (raid{self.level}d)", threads, on_host_cpu=True)
        if threads == RAID5D_THREADS:
            return EngineServer("md stripe thread (raid5d)", threads, on_host_cpu=True)
        workers = threads - RAID5D_THREADS
        label = f"md stripe threads (raid5d and {workers} worker{'s' if workers > 1 else ''})"
        return EngineServer(label, threads, on_host_cpu=True)

    def own_lock(self) -> str:
        return "md spinlock (device_lock / resync_lock)"

    def busy_host_threads(self, reads_only: bool) -> int:
        """None for reads of an array with every member in: RAID4/5/6 reads go around the stripe cache
        (``chunk_aligned_read``: raid5d and its workers never see them), RAID1/10 reads are sent from
        the submitter (raid1d/raid10d handle writes' pending lists and read errors), and an idle md
        thread sleeps; otherwise the base's (every thread: a lightly written array's are an upper
        count). Counting them all held 16 or 64 idle workers' cores at a lower turbo clock: RAID5
        4 KiB random reads 841K -> 757K IOPS from 0 to 16 workers."""
        if reads_only and not self.degraded:
            return 0
        return super().busy_host_threads(reads_only)

    def work(self, plan, is_write, chunks, host_bytes, level) -> EngineWork:
        n = len(is_write)
        out = self.empty_work(plan, n, host_bytes)
        p = self.v
        requests = self.md_requests(plan, is_write, chunks, level)
        out.submit_cpu_ref_s = self.request_cpu_us(level) * 1e-6 * requests
        member_writes = per_host_sum(plan.is_write.astype(float), plan.host_index, n)
        if level in (1, 10):
            # wait_barrier per md request; each member write is queued on conf->pending_bio_list
            # under conf->device_lock for raid1d/raid10d to submit once the bitmap is written;
            # with a bitmap, md_bitmap_startwrite and md_bitmap_endwrite once per written request
            bitmap_holds = np.where(is_write, requests, 0.0) * self.bitmap_holds_per_page
            out.lock_s = 1e-6 * (self.barrier_hold_us(level, is_write) * requests
                                 + self.device_lock_us * (member_writes + bitmap_holds))
            # each copy's member write is DMA'd from the host's pages on its own
            out.memory_bytes = per_host_sum(plan.length_bytes.astype(float), plan.host_index, n)
            return self._numa(out)
        if level == 0:
            return out
        # RAID5/6
        pages = plan.length_bytes / PAGE_BYTES
        phase0_pages = per_host_sum(np.where(plan.phase == 0, pages, 0.0), plan.host_index, n)
        phase1_pages = per_host_sum(np.where(plan.phase == 1, pages, 0.0), plan.host_index, n)
        stripes = self.stripe_heads(plan, is_write, n)
        parity_bytes = per_host_sum(plan.length_bytes.astype(float), plan.host_index, n)
        writes = is_write
        if self.degraded:  # every read is a stripe_head too: one raid5d pass to read, one to return it
            reads = ~is_write
            out.lock_s = np.where(reads, stripes, chunks) * self.device_lock_us * 1e-6
            pass_s = p.stripe_disk_us * self.members * 1e-6 * stripes
            read_pre = 2 * pass_s + p.stripe_member_bio_us * 1e-6 * (phase0_pages + phase1_pages)
            out.pre_s = np.where(reads, read_pre, 0.0)
            out = self.degraded_work(out, plan, is_write, host_bytes, level)  # the parity over the survivors read
        # lock hold times are wall time (cache-line transfers), not scaled by the clock.
        # Reads in the optimal state: one device_lock per chunk, no stripe thread.
        if not self.degraded:
            out.lock_s = np.where(writes, stripes * self.device_lock_us, chunks * self.aligned_read_lock_us) * 1e-6
        # with a bitmap, md_bitmap_startwrite (add_stripe_bio) and md_bitmap_endwrite
        # (handle_stripe_clean_event) take bitmap->counts.lock once for every data page written
        out.lock_s = out.lock_s + np.where(writes, host_bytes / PAGE_BYTES * self.bitmap_holds_per_page
                                           * self.device_lock_us * 1e-6, 0.0)
        pass_s = p.stripe_disk_us * self.members * 1e-6 * stripes  # handle_stripe walks every member
        write_pre = np.where(writes & (phase0_pages > 0), pass_s + p.stripe_member_bio_us * 1e-6 * phase0_pages, 0.0)
        out.pre_s = np.where(writes, write_pre, out.pre_s)
        parity_s = parity_bytes / (p.parity_gen_gb_per_s * 1e9)
        out.mid_s = np.where(writes, pass_s + p.stripe_member_bio_us * 1e-6 * phase1_pages + parity_s, 0.0)
        # a write's member I/Os are DMA'd through DRAM (pre-reads in, data and parity out: its
        # member bytes, as rebuild_work counts them), and md copies the host's pages into the
        # stripe cache first: a read and a write of DRAM each
        out.memory_bytes = np.where(writes, parity_bytes + 2.0 * host_bytes, float(host_bytes))
        out.stripe_heads = np.where(writes | self.degraded, stripes, 0.0)  # what the stripe cache holds for it
        return self._numa(out)

    def md_requests(self, plan, is_write, chunks, level: int) -> np.ndarray:
        """md requests (passes of ``md_handle_request`` and the personality's ``make_request``)
        each host I/O makes: raid0 and raid10 split a bio at every chunk end (``chunks``: strips it
        spans), raid1 at its 64 MiB barrier units (``raid1_requests``). raid4/5/6 split only a read
        they send around the stripe cache (``chunk_aligned_read``: one pass per chunk piece, each
        piece submitted again); a write is one pass that walks the bio's stripe_heads
        (``raid5_make_request``'s loop: their costs are the stripe cache's, ``stripe_heads``). A
        read while a member is missing is one pass too, but its loop steps through the bio a page
        at a time (``raid5_compute_sector``, ``raid5_get_active_stripe``, ``add_stripe_bio``,
        ``raid5_release_stripe`` for each), doing for every chunk piece at least what the aligned
        read's pass does; ``request_cpu_us`` is fitted on rows of one piece per host I/O, which
        cannot tell the two apart, so a degraded read is charged a request per chunk piece as the
        optimal one is (charged per bio, a degraded 16 KiB read on 4 KiB chunks cost its core a
        quarter of the optimal read's, and ran faster)."""
        if level == 1:
            return raid1_requests(plan, len(is_write))
        if level in RAID456_LEVELS:
            return np.where(is_write, 1.0, chunks)
        return np.asarray(chunks, dtype=float)

    def request_cpu_us(self, level: int) -> float:
        """CPU one md request costs its submitting core (at ``reference_clock_ghz``): RAID0's remap
        (``raid0_request_cpu_us``), every other personality's request path ``request_cpu_us``."""
        return self.v.raid0_request_cpu_us if level == 0 else self.v.request_cpu_us

    def stripe_heads(self, plan, is_write, n: int) -> np.ndarray:
        """stripe_heads each host I/O goes through: raid5.c keys a stripe_head by its sector on the
        members (``raid5_get_active_stripe(conf, sector, ...)``, one 4 KiB page of every member),
        so a host I/O's stripe_heads are the distinct member page offsets its member I/Os cover (a
        16 KiB write on 64 KiB chunks: 4; a 16 KiB write on 4 KiB chunks: 1). A write of a
        sequential stream planned as whole stripes (``parity_bytes_computed`` 0: the stripe's
        pages are shared out among the host I/Os that fill it) holds its share of the stripes its
        bytes fall in (``stripes_touched``) x the rows of a chunk: a 1 MiB write on 22 data members
        of 4 KiB chunks 11.6, a 4 KiB one 1/22."""
        lo = plan.member_offset_bytes // PAGE_BYTES
        end = (plan.member_offset_bytes + plan.length_bytes - 1) // PAGE_BYTES + 1
        host = np.asarray(plan.host_index, dtype=np.int64)
        rows = _pages_covered(host, lo, end, n)
        shared = is_write & (plan.parity_bytes_computed == 0)
        return np.where(shared, plan.stripes_touched * (self.strip_bytes / PAGE_BYTES), rows)

    @property
    def device_lock_us(self) -> float:
        """One hold of a contended md spinlock (``conf->device_lock``): the lock's cache line, with
        the counter or list head it guards beside it, moved to the next core (the platform's
        ``cache_line_transfer_ns``; the cross-socket share is ``_numa``'s)."""
        return DEVICE_LOCK_LINES * self.line_transfer_us

    def waiting_cpus(self, load: StripeCacheLoad) -> float:
        """Job CPUs that submitters waiting for a stripe_head keep busy: the wake-up herd of raid5's
        stripe cache (drivers/md/raid5.c, the same in the 5.15 and 6.6 sources).

        A submitter that finds no free stripe_head sleeps in ``raid5_get_active_stripe`` on
        ``conf->wait_for_stripe``, one wait queue for the whole array, not exclusive. Every time
        stripe_heads go back to the inactive lists, ``release_inactive_stripe_list`` calls
        ``wake_up(&conf->wait_for_stripe)``, which wakes every sleeper. raid5d does that once per
        batch it handles (``handle_active_stripes``: up to ``MAX_STRIPE_BATCH`` stripe_heads) in
        which some stripe_head finished its last pass. Each woken submitter takes its hash lock
        again, queues itself again under the wait queue's lock, finds the cache still held (the
        ``R5_INACTIVE_BLOCKED`` hysteresis lets it in only below 3/4 of the cache) and sleeps. So
        the whole herd passes through one spinlock, one after another; a submitter spins, busy,
        until its turn. Commit e9e4c377e2f5 ("md/raid5: per hash value and exclusive
        wait_for_stripe", Linux 4.2) describes this contention, and made the wait exclusive per
        hash; the sources of every kernel nvsim models wait on the one shared queue again.

        * Blocked submitters: host I/Os in flight beyond those the cache holds
          (``stripe_cache_size`` over the stripe_heads each holds), at most one per job (its
          thread sleeps in the submission).
        * Wake-ups per second: raid5d's batches (``MAX_STRIPE_BATCH`` when it is busy; fewer
          stripe_heads waiting when it is not) that hold a stripe_head's last pass.
        * Each wake-up: the herd goes through the wait queue's lock, ``HERD_WAKER_LINES`` +
          ``HERD_REQUEUE_LINES`` line transfers per sleeper; a sleeper spins for half the herd on
          average. A blocked submitter's CPU is busy that share of its time, at most all of it.

        Not counted: the context switches themselves and the waker's (raid5d's) own time in the
        wake loop, so the figure is a lower bound on CPU and raid5d's speed is unchanged."""
        if load.stripe_heads_per_io <= 0 or load.stripe_heads_per_s <= 0:
            return 0.0
        held = self.settings.stripe_cache_size / load.stripe_heads_per_io
        blocked = min(float(load.jobs), max(0.0, load.ios_in_flight - held))
        if blocked <= 0:
            return 0.0
        rho = min(max(load.server_utilisation, 0.0), 0.999)
        batch = min(float(MAX_STRIPE_BATCH), max(1.0, load.stripe_heads_per_io / (1.0 - rho)))
        passes = max(1.0, load.passes_per_stripe_head)
        wakeups_per_s = load.stripe_heads_per_s * passes / batch * (1.0 - (1.0 - 1.0 / passes) ** batch)
        line_us = self.line_transfer_us * self.shared_access_factor
        spin_s = blocked / 2.0 * (HERD_WAKER_LINES + HERD_REQUEUE_LINES) * line_us * 1e-6
        return blocked * min(1.0, wakeups_per_s * spin_s)

    @property
    def kernel(self) -> tuple[int, int]:
        """The kernel md runs under (``array.engine_settings.kernel``), as (major, minor)."""
        return kernel_tuple(getattr(self.settings, "kernel", DEFAULT_KERNEL))

    @property
    def aligned_read_lock_us(self) -> float:
        """The contended section of one chunk-aligned RAID4/5/6 read (``raid5_read_one_chunk``):
        from Linux 5.14 (``ALIGNED_READ_NO_DEVICE_LOCK``) the atomic increment of
        ``active_aligned_reads``, one line; before, ``spin_lock_irq(&conf->device_lock)`` around
        it, the lock's line and the counter's."""
        lines = 1 if self.kernel >= ALIGNED_READ_NO_DEVICE_LOCK else 2
        return lines * self.line_transfer_us

    def barrier_hold_us(self, level: int, is_write) -> np.ndarray:
        """The contended holds of md's barrier for one md request of normal I/O (``is_write``: per
        request). raid10 before Linux 6.1: the fitted ``resync_lock`` hold in ``wait_barrier``
        (``barrier_lock_us``, fitted where 192 jobs contend on kernel 5.15); from 6.1
        (``RAID10_BARRIER_SEQLOCK``) the atomic increment of ``nr_pending``, one line. raid1 (every
        modelled kernel is after its 4.11 rework, ``RAID1_BUCKET_BARRIER``): no lock on the way in,
        only a per-bucket counter (random I/O spreads over 1,024 buckets), but an unconditional
        ``wake_up(&conf->wait_barrier)``, which takes the wait queue's spinlock, in
        ``_allow_barrier`` at each request's end and again at the end of ``raid1_write_request``:
        one line a read, two a write; from 6.6 (``RAID1_WAKE_ONLY_SLEEPERS``) none while nobody
        waits. A recovery's ``raise_barrier`` still takes the lock (``rebuild_work``)."""
        if level == 1:
            if self.kernel >= RAID1_WAKE_ONLY_SLEEPERS:
                return np.zeros(len(is_write))
            return np.where(is_write, 2.0, 1.0) * self.line_transfer_us
        if level == 10 and self.kernel >= RAID10_BARRIER_SEQLOCK:
            return np.full(len(is_write), self.line_transfer_us)
        return np.full(len(is_write), self.v.barrier_lock_us)

    @property
    def bitmap_holds_per_page(self) -> float:
        """Holds of the bitmap's ``counts.lock`` per written page (RAID4/5/6) or written md
        request (RAID1/10): ``md_bitmap_startwrite`` and ``md_bitmap_endwrite``, each
        ``spin_lock_irq(&bitmap->counts.lock)`` (md-bitmap.c); none without a bitmap. The lock is
        the array's one bitmap lock; nvsim books it on md's one spinlock server."""
        return 0.0 if self.bitmap == "none" else 2.0

    @property
    def bitmap(self) -> str:
        """The write-intent bitmap (internal, external or none): the scenario's, or mdadm's choice
        for the array (``MdSettings.for_array``; an engine built without its array takes the
        choice for members over 100 GiB, as every NVMe drive of the catalog is)."""
        if self.settings.bitmap is not None:
            return self.settings.bitmap
        return "internal" if md_bitmap.mdadm_adds_bitmap(math.inf, self.settings.mdadm) else "none"

    def sync_update_drive(self) -> str | None:
        """The catalog drive an external bitmap's page goes to (``bitmap_drive``); None: the
        members' model (an internal bitmap's page goes to every member at once, and a file's
        device no scenario names is taken as one of theirs). md-bitmap.c writes a file's page with
        ``submit_bh`` and waits for it (``write_file_page``), as it waits for an internal page on
        every member (``write_sb_page``)."""
        return self.settings.bitmap_drive if self.bitmap == "external" else None

    @property
    def bitmap_chunk_bytes(self) -> int:
        """The bitmap's chunk: the scenario's, or mdadm's default for the array (64 MiB for an
        engine built without its array)."""
        return self.settings.bitmap_chunk_bytes or md_bitmap.MDADM_BITMAP_CHUNK_MIN_BYTES

    def bitmap_data_bytes_per_bit(self, level: int, data_members: int) -> float:
        """Host data one bit covers: ``bitmap_chunk_bytes`` of every data member on RAID4/5/6, of
        the array's addresses on RAID10 (``md_bitmap.data_bytes_per_bit``)."""
        return md_bitmap.data_bytes_per_bit(level, self.bitmap_chunk_bytes, data_members)

    def bitmap_chunks(self, region_bytes: float, level: int, data_members: int) -> float:
        """Bitmap chunks that writes spread over ``region_bytes`` of the array touch."""
        return max(1.0, region_bytes / self.bitmap_data_bytes_per_bit(level, data_members))

    def sync_update_share(self, level: int, write_rate_per_s: float, region_bytes: float, write_bytes: int,
                          random: bool, data_members: int) -> float:
        """Share of host writes that set a clean bit of the write-intent bitmap and so wait for its
        synchronous update (``md_bitmap.dirty_fraction_random`` at the write rate the solver feeds
        back; a sequential stream: one per bitmap chunk's worth of data, ``dirty_fraction_sequential``);
        0 without a bitmap. The update is done by md's own thread (raid5d's, raid1d's or raid10d's
        ``md_bitmap_unplug`` before the writes it holds go out), which waits for it. RAID0 has none
        whatever the setting: a bitmap records what a redundant array must resync, mdadm adds its
        own only from level 1 and refuses one asked for at level 0 (Create.c)."""
        if level == 0 or self.bitmap == "none":
            return 0.0
        if not random:
            return dirty_fraction_sequential(write_bytes, self.bitmap_data_bytes_per_bit(level, data_members))
        per_bit = self.bitmap_data_bytes_per_bit(level, data_members)
        return md_bitmap.dirty_fraction_random_writes(write_rate_per_s, self.bitmap_chunks(region_bytes, level, data_members),
                                                      self.settings.bitmap_daemon_sleep_s,
                                                      md_bitmap.chunks_per_write(write_bytes, per_bit))

    resyncs_after_crash = True

    def dirty_after_crash(self, level: int, write_rate_per_s: float, write_bytes_per_s: float, region_bytes: float,
                          random: bool, streams: int, data_members: int, copies: int, member_bytes: float) -> dict:
        """What md resyncs of each member after an unclean shutdown (the array was "active": md
        starts a resync, ``MD_RECOVERY_SYNC``) under writes at ``write_rate_per_s`` over
        ``region_bytes``: with a write-intent bitmap the chunks dirty at the crash
        (``md_bitmap_start_sync`` skips a clean one), ``dirty_chunks_random`` of them under random
        writes, ``dirty_chunks_sequential`` per sequential stream, each ``member_bytes_per_bit`` of
        every member; without one every member whole."""
        if write_rate_per_s <= 0:  # md_write_start marks the array active on a write; safe_mode_delay clears it
            return {"span_bytes": 0.0, "why": "no writes: md's superblock was clean (an array is marked active "
                    "only while it writes: md_write_start, safe_mode_delay)"}
        if self.bitmap == "none":
            return {"span_bytes": float(member_bytes), "why": "no write-intent bitmap: every member whole",
                    "bitmap": "none"}
        chunk, sleep = self.bitmap_chunk_bytes, self.settings.bitmap_daemon_sleep_s
        chunks = self.bitmap_chunks(region_bytes, level, data_members)
        per_bit = self.bitmap_data_bytes_per_bit(level, data_members)
        if random:  # each write sets a bit in every chunk it covers (md_bitmap_startwrite)
            per_write = md_bitmap.chunks_per_write(write_bytes_per_s / write_rate_per_s, per_bit)
            dirty = md_bitmap.dirty_chunks_random(write_rate_per_s * per_write, chunks, sleep)
        else:
            dirty = min(chunks, max(1, streams) * md_bitmap.dirty_chunks_sequential(
                write_bytes_per_s / max(1, streams), per_bit, chunks, sleep))
        per_member = md_bitmap.member_bytes_per_bit(level, chunk, self.members, copies)
        return {"span_bytes": md_bitmap.resync_member_bytes_after_crash(member_bytes, per_member, dirty),
                "why": f"the write-intent bitmap's dirty chunks: {dirty:,.0f} of the {chunks:,.0f} the writes touch",
                "bitmap": self.bitmap, "bitmap_chunk_bytes": chunk, "dirty_chunks": dirty, "chunks": chunks}

    def stripe_thread_count(self) -> float:
        """Stripe-handling servers. With the write-intent bitmap and a workload that writes, raid5d
        alone, whatever ``group_thread_cnt`` says: every written stripe_head that sets a bitmap bit waits
        (STRIPE_BIT_DELAY, on ``bitmap_list``) until raid5d itself unplugs the bitmap
        (``md_bitmap_unplug`` in raid5d, then ``activate_bit_delay``), so the one thread stays in
        every write's path, and nvsim does not model the workers' share of the rest (seed 003's md
        RAID6 with 8 workers plateaus where one thread does: docs/models/engines.md). Without a
        bitmap, or without writes (a degraded array's reads, which go through the stripe cache, and
        a resync's stripe_heads never set a bit: STRIPE_BIT_DELAY is set for a write in
        ``add_stripe_bio``), nothing holds a stripe_head for raid5d: ``raid5_wakeup_stripe_thread`` queues it to
        the worker group of the CPU that released it (``cpu_to_group(sh->cpu)``, one group per NUMA
        node, ``alloc_thread_groups``) and wakes that group's workers, while raid5d takes from any
        group (``handle_active_stripes(conf, ANY_GROUP, ...)``): raid5d plus ``group_thread_cnt``
        workers on each node the jobs submit from."""
        workers = getattr(self.settings, "group_thread_cnt", 0)
        if workers and (self.bitmap == "none" or not self.writes):
            return float(RAID5D_THREADS + workers * self.job_nodes)
        return float(RAID5D_THREADS)

    @staticmethod
    def barrier_requests(level: int, chunks):
        """md requests a host I/O becomes that each call ``wait_barrier``: raid10 splits a bio at
        every chunk end (``chunks``: strips it spans), raid1 only at its 64 MiB barrier units."""
        return chunks if level == 10 else np.ones_like(chunks)

    def _numa(self, out: EngineWork) -> EngineWork:
        factor = self.shared_access_factor
        out.lock_s, out.pre_s, out.mid_s = out.lock_s * factor, out.pre_s * factor, out.mid_s * factor
        return out

    def rebuild_settings(self, level, priority):
        """(bytes per recovery request, requests in flight): RAID1/10 ``RESYNC_DEPTH`` requests of
        ``RESYNC_BLOCK_SIZE`` (RAID10: no further than a chunk's end where chunks are meaningful,
        ``raid10_chunked``); RAID5/6 requests of ``rebuild_io_kib`` (MAX_STRIPE_BATCH stripe_heads
        of a page) as many as the stripe cache holds (``resync_stripe_heads``)."""
        if level == 10:
            step = min(RESYNC_BLOCK_BYTES, self.strip_bytes) if self.raid10_chunked else RESYNC_BLOCK_BYTES
            return step, RESYNC_DEPTH[level]
        if level == 1:  # raid1 has no chunks: raid1_sync_request fills RESYNC_PAGES
            return RESYNC_BLOCK_BYTES, RESYNC_DEPTH[level]
        step = int(self.v.rebuild_io_kib * 1024)
        return step, self.resync_stripe_heads() / (step // PAGE_BYTES)

    @property
    def raid10_chunked(self) -> bool:
        """Whether raid10_sync_request stops a request at a chunk's end: only ``if
        (conf->geo.near_copies < conf->geo.raid_disks ...)`` ("if chunks are meaningful",
        drivers/md/raid10.c, the same from 4.x to 6.x); with as many near copies as drives every
        drive holds the whole array in order. An engine built without its array: chunked."""
        return not 0 < self.members <= self.copies

    def resync_stripe_heads(self) -> float:
        """stripe_heads the resync holds: md_do_sync does not throttle below ``speed_limit_min``, so
        sync_request takes every free stripe_head, and when it finds none free raid5d may grow
        the cache by one (``R5_ALLOC_MORE`` -> ``grow_one_stripe``): nvsim lets the resync fill as
        large a cache as md lets a user set (``STRIPE_CACHE_MAX``); what paces it is then its own
        thread (``resync_request_us`` per stripe_head) and raid5d. Known to be generous: raid5d
        grows the cache only once its ``while (1)`` loop has found nothing to handle, which a
        raid5d as busy as the model's under seed 003's load never does, and raid5_sync_request
        sleeps a jiffy each time it waited for a stripe_head; md's default cache (256) leaves
        the resync far below the brief's speed (docs/models/rebuild.md, "What bounds the stripe
        cache in the kernel")."""
        return float(STRIPE_CACHE_MAX)

    def rebuild_throttle(self, limits: RebuildSpec, loaded: bool) -> RebuildThrottle:
        """md_do_sync's throttle (drivers/md/md.c, as in Linux 5.4 and 5.15): the resync never runs
        above ``speed_max(mddev)`` (it sleeps 500 ms when its speed passes it). On a busy array
        (``is_mddev_idle`` false), once its speed is above ``speed_min(mddev)``, after every
        ``window`` of progress it waits until its requests in flight have all completed
        (``wait_event(recovery_wait, !recovery_active)``): "give other IO more of a chance".
        ``speed_min`` and ``speed_max`` are the array's ``sync_speed_min``/``_max`` where set, else the
        sysctls ``speed_limit_min``/``_max`` (``RebuildSpec.md_speed_min_kib_per_s``)."""
        top_kib, floor_kib = limits.md_speed_max_kib_per_s, limits.md_speed_min_kib_per_s
        top_source = "sync_speed_max" if limits.sync_speed_max_kib_per_s else "speed_limit_max"
        if limits.md_max_is_the_min:  # md_do_sync checks the maximum only above the minimum
            top_source = "sync_speed_min" if limits.sync_speed_min_kib_per_s else "speed_limit_min"
        top_why = f"md {top_source} {top_kib:.0f} KiB/s"
        if not loaded:
            return RebuildThrottle(limit_bytes_per_s=top_kib * 1024.0, why=top_why)
        source = "sync_speed_min" if limits.sync_speed_min_kib_per_s else "speed_limit_min"
        return RebuildThrottle(limit_bytes_per_s=top_kib * 1024.0, floor_bytes_per_s=floor_kib * 1024.0,
                               window_bytes=SYNC_WINDOW_BYTES, why=f"md {source} {floor_kib:.0f} KiB/s",
                               limit_why=top_why)

    def recovery_excludes_host_io(self, level: int) -> bool:
        """raid10's barrier is array-wide; raid1's is per 64 MiB bucket (since Linux 4.11), which
        random normal I/O all but never meets: RAID1 recovery shares the queues like any rebuild."""
        return level == 10

    def rebuild_work(self, plan, n, rows_per_step, level) -> EngineWork:
        """Costs of ``n`` recovery requests. The resync thread's ``sync_request`` (``resync_request_us``
        each) sets up one request (RAID1/10: a read of a surviving copy and the write to the new
        member) or one stripe_head (RAID5/6: one per 4 KiB row, which raid5d then handles like a
        written stripe: a pass to read every other member, a pass to compute and write)."""
        out = self.empty_work(plan, n, 0)
        p = self.v
        member_writes = per_host_sum(plan.is_write.astype(float), plan.host_index, n)
        if level in (1, 10):
            out.submit_cpu_ref_s = np.full(n, p.resync_request_us * 1e-6)
            out.lock_s = 1e-6 * (p.barrier_lock_us + self.device_lock_us * member_writes)
            return self._numa(out)
        pages = plan.length_bytes / PAGE_BYTES
        reads = per_host_sum(np.where(plan.phase == 0, pages, 0.0), plan.host_index, n)
        writes = per_host_sum(np.where(plan.phase == 1, pages, 0.0), plan.host_index, n)
        read_bytes = per_host_sum(np.where(plan.phase == 0, plan.length_bytes, 0).astype(float), plan.host_index, n)
        member_ios = per_host_sum(np.ones(len(plan.host_index)), plan.host_index, n)
        # one stripe_head per 4 KiB page row a request covers (every member I/O of it covers its rows)
        stripe_heads = (reads + writes) / np.maximum(member_ios, 1.0)
        out.submit_cpu_ref_s = p.resync_request_us * 1e-6 * stripe_heads
        pass_s = p.stripe_disk_us * self.members * 1e-6 * stripe_heads
        out.lock_s = stripe_heads * self.device_lock_us * 1e-6
        out.pre_s = pass_s + p.stripe_member_bio_us * 1e-6 * reads
        out.mid_s = pass_s + p.stripe_member_bio_us * 1e-6 * writes + read_bytes / (p.parity_gen_gb_per_s * 1e9)
        out.memory_bytes = read_bytes + writes * PAGE_BYTES
        return self._numa(out)
