"""md's write-intent bitmap (drivers/md/md-bitmap.c) and mdadm's defaults for it, as pure functions.

* **mdadm's default.** mdadm 3.3 to 4.3 adds an internal bitmap on its own when each member holds
  more than 100 GiB (Create.c, commit 748952f7 "Create: default to bitmap=internal for large
  arrays", 2013: ``s->size > 100*1024*1024`` KiB); mdadm 4.4 asks instead (commit e97c4e18,
  2024) and, run without a terminal (``--run``), creates none. An internal bitmap's chunk is
  64 MiB, or larger if the member's bits do not fit in 128 KiB of bitmap (super1.c
  ``add_internal_bitmap1``: ``max_bits`` from 256 sectors of room, ``min_chunk`` doubled from
  4 KiB until the member's bits fit; mdadm commit b8ab2a50, "at least 64Meg", 2009).
* **A write that dirties a clean bitmap chunk** waits for the bitmap page holding its bit to be
  written to every member before its data is written (``md_bitmap_startwrite`` sets the bit,
  ``md_bitmap_unplug`` writes the dirty pages and waits). A chunk's bit is cleared by the bitmap
  daemon once no write has touched the chunk for between one and two ``daemon_sleep`` periods
  (the counter steps 2 -> 1 -> 0 on successive daemon passes): nvsim takes 1.5 periods.
* **After an unclean shutdown** md resyncs only the chunks whose bits are set
  (``resync_member_bytes_after_crash``): under random writes ``dirty_chunks_random`` of them,
  each ``bitmap_chunk_bytes`` of every member; without a bitmap, every member whole.
* **The chance.** Writes spread at random over ``chunks`` bitmap chunks at ``rate`` per second
  reach one chunk as a Poisson stream of ``rate / chunks``: a write finds its chunk clean when the
  previous one came more than the clearing time earlier, ``exp(-rate t / chunks)``. The bitmap
  updates per second, ``rate exp(-rate t / chunks)``, are at most ``chunks / (e t)`` whatever
  the rate (at ``rate = chunks / t``). A sequential stream dirties one new chunk per chunk of
  the member it writes.
"""

from __future__ import annotations

import math

MDADM_AUTO_BITMAP_MEMBER_BYTES = 100 * 2**30
"""mdadm (3.3-4.3) Create.c: an internal bitmap is added when each member exceeds 100 GiB."""
MDADM_BITMAP_CHUNK_MIN_BYTES = 64 * 2**20
"""mdadm super1.c ``add_internal_bitmap1``: the default internal bitmap chunk is at least 64 MiB."""
MDADM_BITMAP_ROOM_BYTES = 128 * 1024
"""super1.c: at most 128 KiB of bitmap (256 sectors) when no chunk size is asked for."""
BITMAP_SUPER_BYTES = 256
"""``sizeof(bitmap_super_t)``: the bitmap superblock ahead of the bits."""
DEFAULT_DAEMON_SLEEP_S = 5.0
"""mdadm.h ``DEFAULT_BITMAP_DELAY``: seconds between two passes of the bitmap daemon."""
CLEAR_PERIODS = 1.5
"""Daemon periods a chunk stays dirty after its last write: between one and two (the counter steps
2 -> 1 -> 0, one step per pass), their middle."""
BITMAP_PAGE_BYTES = 4096
"""One bitmap page written to every member when a bit on it is newly set."""


def mdadm_bitmap_chunk_bytes(member_bytes: float) -> int:
    """mdadm's default internal bitmap chunk for members of ``member_bytes``: 64 MiB, or the
    smallest power of two from 4 KiB whose bits fit in 128 KiB of bitmap if that is larger."""
    max_bits = (MDADM_BITMAP_ROOM_BYTES - BITMAP_SUPER_BYTES) * 8
    chunk, bits = 4096, int(member_bytes) // 4096 + 1
    while bits > max_bits:
        chunk *= 2
        bits = (bits + 1) // 2
    return max(chunk, MDADM_BITMAP_CHUNK_MIN_BYTES)


def mdadm_adds_bitmap(member_bytes: float) -> bool:
    """Whether mdadm (3.3-4.3) adds an internal bitmap on its own to members of ``member_bytes``."""
    return member_bytes > MDADM_AUTO_BITMAP_MEMBER_BYTES


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


def dirty_fraction_sequential(write_bytes: float, member_data_bytes_per_chunk: float) -> float:
    """Share of a sequential stream's writes of ``write_bytes`` that enter a new bitmap chunk:
    one new chunk per ``member_data_bytes_per_chunk`` of the array written (capped at 1)."""
    if member_data_bytes_per_chunk <= 0:
        return 0.0
    return min(1.0, write_bytes / member_data_bytes_per_chunk)


def dirty_chunks_random(rate_per_s: float, chunks: float, daemon_sleep_s: float) -> float:
    """Bitmap chunks dirty at any moment under random writes at ``rate_per_s`` over ``chunks``: a
    chunk is dirty while a write reached it within the clearing time, ``chunks (1 - exp(-rate t /
    chunks))`` (the complement of ``dirty_fraction_random``)."""
    if chunks <= 0:
        return 0.0
    return chunks * (1.0 - dirty_fraction_random(rate_per_s, chunks, daemon_sleep_s))


def resync_member_bytes_after_crash(member_bytes: float, bitmap_chunk_bytes: float | None, dirty_chunks: float) -> float:
    """Bytes of each member md resyncs after an unclean shutdown: with a write-intent bitmap only
    the chunks dirty when it stopped (``md_do_sync`` skips a region whose bit is clear:
    ``md_bitmap_start_sync``), each ``bitmap_chunk_bytes`` of every member, at most the member;
    without one (``bitmap_chunk_bytes`` None) the whole member."""
    if bitmap_chunk_bytes is None:
        return float(member_bytes)
    return min(float(member_bytes), max(0.0, dirty_chunks) * bitmap_chunk_bytes)


__all__ = ["dirty_chunks_random", "resync_member_bytes_after_crash", "mdadm_bitmap_chunk_bytes", "mdadm_adds_bitmap", "clear_after_s", "dirty_fraction_random",
           "bitmap_updates_per_s_random", "dirty_fraction_sequential", "DEFAULT_DAEMON_SLEEP_S",
           "MDADM_BITMAP_CHUNK_MIN_BYTES", "BITMAP_PAGE_BYTES"]
