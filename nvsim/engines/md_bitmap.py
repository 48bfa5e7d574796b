"""md's write-intent bitmap (drivers/md/md-bitmap.c) and mdadm's defaults for it, as pure functions.

* **mdadm's default.** mdadm 3.3 to 4.3 adds an internal bitmap on its own when each member holds
  more than 100 GiB (Create.c, commit 748952f7 "Create: default to bitmap=internal for large
  arrays", 2013: ``s->size > 100*1024*1024`` KiB); mdadm 4.4 asks instead (commit e97c4e18,
  2024) and, run without a terminal (``--run``), creates none; 3.2 and older never add one. mdadm
  4.4 also removed bitmap files (commit 581ba134, "mdadm: remove bitmap file support"). An
  internal bitmap's chunk is 64 MiB, or larger if the bits of the space it covers do not fit in
  the room mdadm left for them, at most 128 KiB (super1.c ``add_internal_bitmap1``: ``max_bits``
  from the room, ``min_chunk`` doubled from 4 KiB until the bits fit; mdadm commit b8ab2a50, "at
  least 64Meg", 2009).
* **The room, and the smallest chunk mdadm takes** (``mdadm_bitmap_room_bytes``,
  ``mdadm_bitmap_min_chunk_bytes``; metadata 1.2, mdadm's default). At create the room is
  super1.c ``choose_bm_space`` of a member's size: 128 KiB on members of 200 GiB and more, 64 KiB
  over 8 GiB, else 4 KiB (the same in every release, 3.2 to 4.6). A ``--bitmap-chunk`` below the
  ``min_chunk`` whose bits fit that room is refused (``add_internal_bitmap1`` returns -EINVAL, 0
  before 4.0; Create.c: "Given bitmap chunk size not supported"): 4 MiB on a 3.84 TB member. A
  bitmap added later (``mdadm --grow --bitmap=internal``, Grow.c ``Grow_addbitmap``) gets the room
  between the superblock and the bad-block log, or the data where there is no log: from 4.0 the
  log sits right after the space create left (``write_init_super1``: ``bblog_offset = bm_offset +
  bm_space``), so the same room; in 3.3 and 3.4 it sits 32 KiB after the superblock's 4 KiB
  (``bblog_offset = 8 + 32*2`` sectors), so 32 KiB (16 MiB on a 3.84 TB member); 3.2 has no log
  and writes the bitmap 1 KiB after the superblock up to its 1 MiB data offset, 1,019 KiB (512 KiB).
  A bitmap file takes any chunk (``CreateBitmap`` checks none).
* A bitmap file's chunk (``--bitmap=/path``, 3.2 to 4.3) is mdadm's ``CreateBitmap``'s
  (bitmap.c): 4 KiB (``DEFAULT_BITMAP_CHUNK``) doubled until the space it covers has at most 2^20
  chunks, with no 64 MiB floor (``mdadm_bitmap_file_chunk_bytes``).
* **The space a bitmap covers** (``bitmap_span_bytes``): the kernel sizes it on
  ``mddev->resync_max_sectors`` (md-bitmap.c ``md_bitmap_create``), which raid1 and raid456 set
  to a member's sectors and raid10 to the array's (``raid10_run``: ``resync_max_sectors = size``,
  ``raid10_size``); mdadm sizes the chunk on the same (Create.c: "for raid10, the bitmap size is
  the capacity of the array"). So a RAID4/5/6 bit covers a chunk of every member, a chunk of
  data on each data member; a RAID1 bit a chunk of the one copy; a RAID10 bit a chunk of the
  array's addresses (``raid10_write_request`` calls ``md_bitmap_startwrite`` with the array
  sector), stored on ``copies`` members.
* **A write that dirties a clean bitmap chunk** waits for the bitmap page holding its bit to be
  written to every member before its data is written (``md_bitmap_startwrite`` sets the bit,
  ``md_bitmap_unplug`` writes the dirty pages and waits). A chunk's bit is cleared by the bitmap
  daemon once no write has touched the chunk for between one and two ``daemon_sleep`` periods
  (the counter steps 2 -> 1 -> 0 on successive daemon passes): nvsim takes 1.5 periods.
* **After an unclean shutdown** md resyncs only the chunks whose bits are set
  (``resync_member_bytes_after_crash``): under random writes ``dirty_chunks_random`` of them,
  under a sequential stream ``dirty_chunks_sequential``, each ``member_bytes_per_bit`` of every
  member; without a bitmap, every member whole; with RAID5's partial parity log, none (the log is
  replayed instead: Documentation/driver-api/md/raid5-ppl.rst).
* **The chance.** Writes spread at random over ``chunks`` bitmap chunks at ``rate`` per second
  reach one chunk as a Poisson stream of ``rate / chunks``: a write finds its chunk clean when the
  previous one came more than the clearing time earlier, ``exp(-rate t / chunks)``. The bitmap
  updates per second, ``rate exp(-rate t / chunks)``, are at most ``chunks / (e t)`` whatever
  the rate (at ``rate = chunks / t``). A sequential stream dirties one new chunk per chunk of
  the member it writes.
"""

from __future__ import annotations

import math

MDADM_VERSIONS = ("3.2", "3.3", "3.4", "4.0", "4.1", "4.2", "4.3", "4.4", "4.5", "4.6")
"""mdadm releases a scenario may name (``array.engine_settings.mdadm``): those whose defaults differ
are 3.2 (no bitmap of its own), 3.3-4.3 (an internal one on large members) and 4.4 on (asks)."""
DEFAULT_MDADM = "4.3"
"""The default mdadm: 4.3 (February 2024), the release of the long-term distributions of the
default kernel's time (Ubuntu 24.04, RHEL 9.4)."""
MDADM_AUTO_BITMAP_FROM, MDADM_AUTO_BITMAP_UNTIL = "3.3", "4.3"
"""The first and last mdadm that add an internal bitmap to large members without being asked."""
MDADM_NO_BITMAP_FILE_FROM = "4.4"
"""mdadm commit 581ba134 (December 2024, in 4.4): "mdadm: remove bitmap file support"."""
MDADM_AUTO_BITMAP_MEMBER_BYTES = 100 * 2**30
"""mdadm (3.3-4.3) Create.c: an internal bitmap is added when each member exceeds 100 GiB."""
MDADM_BITMAP_CHUNK_MIN_BYTES = 64 * 2**20
"""mdadm super1.c ``add_internal_bitmap1``: the default internal bitmap chunk is at least 64 MiB."""
BITMAP_CHUNK_MAX_BYTES = 2**31
"""The largest bitmap chunk md takes: ``bitmap_super_t.chunksize`` is an ``__le32`` of bytes and a power
of two (``md_bitmap_read_sb`` refuses one that is not), so 2 GiB."""
MDADM_BITMAP_FILE_CHUNKS_MAX = 2**20
"""mdadm bitmap.c ``CreateBitmap``: a bitmap file's default chunk leaves at most 2^20 chunks ("2^20
might be safer, especially on 64bit hosts")."""
MDADM_BITMAP_CHUNK_BYTES = 4096
"""mdadm.h ``DEFAULT_BITMAP_CHUNK``: the chunk mdadm starts from (``min_chunk``: "sub-page chunks
don't work yet")."""
MDADM_BITMAP_ROOM_BYTES = 128 * 1024
"""super1.c: at most 128 KiB of bitmap (256 sectors) when no chunk size is asked for."""
BITMAP_ADDED = ("create", "grow")
"""How an internal bitmap was added: by ``mdadm --create --bitmap=internal`` (or mdadm's own choice)
or later by ``mdadm --grow --bitmap=internal``; it sets the room mdadm gives its bits."""
MDADM_GROW_LOG_ROOM_BYTES = 32 * 1024
"""mdadm 3.3 and 3.4 super1.c ``write_init_super1``: the bad-block log at 8 + 32*2 sectors from the
superblock (``bblog_offset``), so a bitmap grown later has the 32 KiB between the superblock's 4 KiB
and the log (``add_internal_bitmap1``: ``room = bblog_offset + bbl_size``, less 4 KiB and the log)."""
MDADM_3_2_GROW_ROOM_BYTES = 2**20 - 4096 - 1024
"""mdadm 3.2 super1.c: data at 1 MiB (``reserved``: the bitmap space and 8 KiB rounded up to 1 MiB),
the superblock 4 KiB in; ``add_internal_bitmap1`` on a grow writes the bitmap 1 KiB after the
superblock, up to the data (``room = data_offset - super_offset - 2`` sectors): 1,019 KiB."""
MDADM_BAD_BLOCK_LOG_FROM = "3.3"
"""The first mdadm whose ``write_init_super1`` writes a bad-block log (``bblog_offset``) on a 1.2 member."""
MDADM_LOG_AFTER_BITMAP_FROM = "4.0"
"""mdadm 4.0's ``write_init_super1`` puts the bad-block log right after the space create left for the
bitmap, so a grown bitmap has that same room."""
BITMAP_SUPER_BYTES = 256
"""``sizeof(bitmap_super_t)``: the bitmap superblock ahead of the bits."""
MDADM_IMSM_BITMAP_FROM = "4.2"
"""The first mdadm with an IMSM (VROC) write-intent bitmap: commit fbc42556, "imsm: Write-intent bitmap
support" (super-intel.c ``add_internal_bitmap_imsm``); before it Create.c stops: "internal bitmaps not
supported with imsm metadata"."""
IMSM_BITMAP_CHUNK_BYTES = 64 * 2**20
"""super-intel.c ``IMSM_DEFAULT_BITMAP_CHUNKSIZE``: the chunk ``calculate_bitmap_chunksize`` starts from."""
IMSM_BITMAP_AREA_BYTES = 2**20 - 8192 - 4096
"""super-intel.c ``IMSM_BITMAP_AREA_SIZE``: the 1 MiB PPL/bitmap area less its 8 KiB reserved and the
bitmap header's 4 KiB (``MAX_SECTOR_SIZE``)."""
DEFAULT_DAEMON_SLEEP_S = 5.0
"""mdadm.h ``DEFAULT_BITMAP_DELAY``: seconds between two passes of the bitmap daemon."""
DAEMON_SLEEP_MIN_S = 0.001
"""The shortest daemon period md keeps: one jiffy (md-bitmap.c's ``timeout_store`` rounds a shorter
one up to 1; 1 ms at HZ=1000, the shortest any kernel's tick)."""
CLEAR_PERIODS = 1.5
"""Daemon periods a chunk stays dirty after its last write: between one and two (the counter steps
2 -> 1 -> 0, one step per pass), their middle."""
BITMAP_PAGE_BYTES = 4096
"""One bitmap page written to every member when a bit on it is newly set."""


def mdadm_bitmap_room_bytes(member_bytes: float, mdadm: str = DEFAULT_MDADM, added: str = "create") -> int:
    """The room mdadm gives an internal bitmap's bits on members of ``member_bytes`` (metadata 1.2):
    ``choose_bm_space`` at create, and on a grow from 4.0; 32 KiB on a grow by 3.3 or 3.4, 1,019 KiB
    by 3.2 (the module's docstring)."""
    if added == "grow" and _version(mdadm) < _version(MDADM_LOG_AFTER_BITMAP_FROM):
        return MDADM_3_2_GROW_ROOM_BYTES if _version(mdadm) < _version(MDADM_BAD_BLOCK_LOG_FROM) else MDADM_GROW_LOG_ROOM_BYTES
    return choose_bm_space_bytes(member_bytes)


def choose_bm_space_bytes(member_bytes: float) -> int:
    """mdadm super1.c ``choose_bm_space`` (on sectors; here bytes): 128 KiB once a member holds 200 GiB
    past its first 64 KiB, 64 KiB past 8 GiB and 4 KiB, else 4 KiB; none under 64 KiB."""
    member = int(member_bytes) // 512 * 512
    if member < 64 * 1024:
        return 0
    if member - 64 * 1024 >= 200 * 2**30:
        return 128 * 1024
    return 64 * 1024 if member - 4096 > 8 * 2**30 else 4096


def mdadm_bitmap_min_chunk_bytes(span_bytes: float, room_bytes: int) -> int:
    """The smallest chunk mdadm takes for an internal bitmap covering ``span_bytes`` in ``room_bytes``
    (super1.c ``add_internal_bitmap1``'s ``min_chunk``: 4 KiB doubled, the bits halved rounding up,
    until they fit the room less the 256-byte bitmap superblock); a smaller ``--bitmap-chunk`` is refused."""
    max_bits = (room_bytes - BITMAP_SUPER_BYTES) * 8
    if max_bits <= 0:  # members under 64 KiB (nvsim's are 1 MiB up): add_internal_bitmap1 returns -ENOSPC
        raise ValueError(f"no room for an internal bitmap's bits in {room_bytes} bytes")
    return _doubled_until_bits_fit(int(span_bytes) // 512 * 512 // MDADM_BITMAP_CHUNK_BYTES + 1, max_bits)


def _doubled_until_bits_fit(bits: int, max_bits: int) -> int:
    """The chunk mdadm's loops reach (super1.c ``add_internal_bitmap1``, super-intel.c
    ``calculate_bitmap_min_chunksize``): 4 KiB doubled, ``bits`` (those of 4 KiB chunks) halved
    rounding up, until they are at most ``max_bits``."""
    chunk = MDADM_BITMAP_CHUNK_BYTES
    while bits > max_bits:
        chunk *= 2
        bits = (bits + 1) // 2
    return chunk


def mdadm_bitmap_chunk_bytes(span_bytes: float, room_bytes: int = MDADM_BITMAP_ROOM_BYTES) -> int:
    """mdadm's default internal bitmap chunk for a bitmap covering ``span_bytes``
    (``bitmap_span_bytes``) in ``room_bytes`` (``mdadm_bitmap_room_bytes``): 64 MiB, or the smallest
    chunk whose bits fit the room, at most 128 KiB of it, if that is larger."""
    room = min(room_bytes, MDADM_BITMAP_ROOM_BYTES)
    return max(mdadm_bitmap_min_chunk_bytes(span_bytes, room), MDADM_BITMAP_CHUNK_MIN_BYTES)


def imsm_bitmap_chunk_bytes(volume_bytes: float, sector_bytes: int = 512) -> int:
    """The chunk mdadm gives an IMSM (VROC) volume's bitmap of ``volume_bytes``, whatever
    ``--bitmap-chunk`` said (super-intel.c ``add_internal_bitmap_imsm`` sets ``calculate_bitmap_chunksize``'s):
    64 MiB, or ``calculate_bitmap_min_chunksize``'s if larger, reckoned as mdadm reckons it (the area's
    bytes times the sector size as the bits it holds, against the volume's sectors / 4,096 + 1,
    halved while more), which passes 64 MiB only on volumes of exabytes."""
    bits = int(volume_bytes) // 512 // MDADM_BITMAP_CHUNK_BYTES + 1
    return max(_doubled_until_bits_fit(bits, IMSM_BITMAP_AREA_BYTES * sector_bytes), IMSM_BITMAP_CHUNK_BYTES)


def mdadm_bitmap_file_chunk_bytes(span_bytes: float) -> int:
    """mdadm's default chunk for a bitmap file covering ``span_bytes`` (bitmap.c ``CreateBitmap``,
    3.2 to 4.3): 4 KiB doubled while the space is more than 2^20 chunks."""
    chunk = MDADM_BITMAP_CHUNK_BYTES
    while span_bytes > chunk * MDADM_BITMAP_FILE_CHUNKS_MAX:
        chunk *= 2
    return chunk


def mdadm_adds_bitmap(member_bytes: float, mdadm: str = DEFAULT_MDADM) -> bool:
    """Whether ``mdadm`` adds an internal bitmap on its own to members of ``member_bytes``: 3.3 to
    4.3 on members over 100 GiB; 3.2 never; 4.4 on asks, and a scripted create (``--run``, as a
    scenario is) gets none."""
    version = _version(mdadm)
    return (_version(MDADM_AUTO_BITMAP_FROM) <= version <= _version(MDADM_AUTO_BITMAP_UNTIL)
            and member_bytes > MDADM_AUTO_BITMAP_MEMBER_BYTES)


def mdadm_keeps_bitmap_files(mdadm: str) -> bool:
    """Whether ``mdadm`` can put a bitmap in a file of its own (``--bitmap=/path``): before 4.4."""
    return _version(mdadm) < _version(MDADM_NO_BITMAP_FILE_FROM)


def mdadm_has_imsm_bitmap(mdadm: str) -> bool:
    """Whether ``mdadm`` puts a write-intent bitmap on an IMSM (VROC) volume: from 4.2."""
    return _version(mdadm) >= _version(MDADM_IMSM_BITMAP_FROM)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def bitmap_span_bytes(level: int, member_bytes: float, drives: int, copies: int) -> float:
    """The address space md's write-intent bitmap covers (``resync_max_sectors``): the array's for
    RAID10 (its members' bytes over the copies), a member's otherwise."""
    return member_bytes * drives / max(1, copies) if level == 10 else float(member_bytes)


def data_bytes_per_bit(level: int, chunk_bytes: float, data_members: int) -> float:
    """Host data one bit covers: a chunk of every data member on RAID4/5/6 (the bit is a member
    range), a chunk of the array's addresses on RAID10 and of the one copy on RAID1."""
    return chunk_bytes * (max(1, data_members) if level in (4, 5, 6) else 1)


def member_bytes_per_bit(level: int, chunk_bytes: float, drives: int, copies: int) -> float:
    """Bytes of each member a resync of one dirty bit reads (on average over the members): the
    chunk on every member, except RAID10, whose chunk of array addresses lies on ``copies`` of
    its ``drives``."""
    return chunk_bytes * copies / max(1, drives) if level == 10 else float(chunk_bytes)


def clear_after_s(daemon_sleep_s: float) -> float:
    """Seconds a bitmap chunk stays dirty after its last write completes."""
    return CLEAR_PERIODS * daemon_sleep_s


def dirty_fraction_random(rate_per_s: float, chunks: float, daemon_sleep_s: float) -> float:
    """Share of random writes (``rate_per_s`` spread evenly over ``chunks`` bitmap chunks) that find
    their chunk clean and so wait for a bitmap update."""
    if chunks <= 0 or rate_per_s <= 0:
        return 1.0 if rate_per_s <= 0 < chunks else 0.0
    return math.exp(-rate_per_s * clear_after_s(daemon_sleep_s) / chunks)


def bitmap_updates_per_s_random(rate_per_s: float, chunks: float, daemon_sleep_s: float) -> float:
    """Synchronous bitmap updates per second that random writes at ``rate_per_s`` cause."""
    return rate_per_s * dirty_fraction_random(rate_per_s, chunks, daemon_sleep_s)


def writes_per_update(bit_writes_per_s: float, update_s: float) -> float:
    """Writes that share one synchronous bitmap update: md writes every dirty bitmap page once per
    unplug (``md_bitmap_unplug``, from raid5d's loop or a RAID1/10 submitter's plug callback) and
    the whole batch waits for it, so the writes that set a clean bit while one update is written go
    out with the next (a group commit): ``max(1, rate x update_s)`` at ``bit_writes_per_s`` such
    writes a second."""
    return max(1.0, bit_writes_per_s * update_s)


def dirty_fraction_sequential(write_bytes: float, member_data_bytes_per_chunk: float) -> float:
    """Share of a sequential stream's writes of ``write_bytes`` that enter a new bitmap chunk:
    one new chunk per ``member_data_bytes_per_chunk`` of the array written (capped at 1)."""
    if member_data_bytes_per_chunk <= 0:
        return 0.0
    return min(1.0, write_bytes / member_data_bytes_per_chunk)


def chunks_per_write(write_bytes: float, data_bytes_per_chunk: float) -> float:
    """Bitmap chunks one write sets a bit in: ``md_bitmap_startwrite`` walks the write's sectors a
    chunk at a time, so a write larger than a chunk's data sets one bit per chunk it covers (an
    aligned write of a power of two: ``write_bytes / data_bytes_per_chunk``), a smaller one one bit."""
    if data_bytes_per_chunk <= 0:
        return 1.0
    return max(1.0, write_bytes / data_bytes_per_chunk)


def dirty_fraction_random_writes(rate_per_s: float, chunks: float, daemon_sleep_s: float, per_write: float) -> float:
    """Share of random writes that set at least one clean bit when each sets ``per_write`` bits
    (``chunks_per_write``): each chunk is reached at ``rate_per_s x per_write`` over ``chunks`` and
    is clean with ``dirty_fraction_random``'s chance; a write waits unless all its chunks are dirty."""
    clean = dirty_fraction_random(rate_per_s * per_write, chunks, daemon_sleep_s)
    if per_write <= 1.0:
        return clean
    return 1.0 - (1.0 - clean) ** per_write


def dirty_chunks_random(rate_per_s: float, chunks: float, daemon_sleep_s: float) -> float:
    """Bitmap chunks dirty at any moment under random writes at ``rate_per_s`` over ``chunks``: a
    chunk is dirty while a write reached it within the clearing time, ``chunks (1 - exp(-rate t /
    chunks))`` (the complement of ``dirty_fraction_random``). ``rate_per_s``: bits set a second
    (writes x ``chunks_per_write``)."""
    if chunks <= 0:
        return 0.0
    return chunks * (1.0 - dirty_fraction_random(rate_per_s, chunks, daemon_sleep_s))


def dirty_chunks_sequential(write_bytes_per_s: float, data_bytes_per_chunk: float, chunks: float,
                            daemon_sleep_s: float) -> float:
    """Bitmap chunks dirty at any moment under a sequential write stream of ``write_bytes_per_s``:
    those it wrote within the clearing time and the one it is in, at most ``chunks``."""
    if chunks <= 0 or data_bytes_per_chunk <= 0 or write_bytes_per_s <= 0:  # a stream that writes nothing dirties none
        return 0.0
    return min(float(chunks), 1.0 + write_bytes_per_s * clear_after_s(daemon_sleep_s) / data_bytes_per_chunk)


def resync_member_bytes_after_crash(member_bytes: float, member_bytes_per_bit: float | None, dirty_chunks: float) -> float:
    """Bytes of each member md resyncs after an unclean shutdown: with a write-intent bitmap only
    the chunks dirty when it stopped (``md_do_sync`` skips a region whose bit is clear:
    ``md_bitmap_start_sync``), ``member_bytes_per_bit`` of each member each (``member_bytes_per_bit``),
    at most the member; without one (``member_bytes_per_bit`` None) the whole member."""
    if member_bytes_per_bit is None:
        return float(member_bytes)
    return min(float(member_bytes), max(0.0, dirty_chunks) * member_bytes_per_bit)


__all__ = ["BITMAP_CHUNK_MAX_BYTES", "DAEMON_SLEEP_MIN_S", "IMSM_BITMAP_CHUNK_BYTES", "MDADM_IMSM_BITMAP_FROM", "chunks_per_write", "imsm_bitmap_chunk_bytes", "dirty_fraction_random_writes", "dirty_chunks_random", "dirty_chunks_sequential", "resync_member_bytes_after_crash", "mdadm_bitmap_chunk_bytes", "mdadm_bitmap_file_chunk_bytes",
           "mdadm_bitmap_room_bytes", "mdadm_bitmap_min_chunk_bytes", "choose_bm_space_bytes", "BITMAP_ADDED",
           "mdadm_adds_bitmap",
           "mdadm_keeps_bitmap_files", "mdadm_has_imsm_bitmap", "bitmap_span_bytes", "data_bytes_per_bit", "member_bytes_per_bit", "clear_after_s",
           "dirty_fraction_random", "bitmap_updates_per_s_random", "writes_per_update", "dirty_fraction_sequential", "DEFAULT_DAEMON_SLEEP_S",
           "MDADM_BITMAP_CHUNK_MIN_BYTES", "BITMAP_PAGE_BYTES", "MDADM_VERSIONS", "DEFAULT_MDADM"]
