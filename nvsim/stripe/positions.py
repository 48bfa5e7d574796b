"""Host I/O plans by their place in the layout's period: plan each distinct place once.

md's RAID0 and RAID5/6 layouts repeat: RAID0 every stripe, RAID5/6 every ``n`` stripes (the parity
members rotate over the ``n`` members, ``layout._pq_of_stripe``). A host I/O at ``q`` periods plus
``r`` bytes has the member I/Os of the one at ``r``, each ``q`` periods' member bytes further on
the same members (``period_bytes``). Each host I/O is planned on its own (the planner merges pages
only within a host I/O, and these levels keep no state across host I/Os: RAID1's and RAID10's
read balance do, so they are not planned here). ``PositionPlans`` keeps each place's plan and
assembles a batch's from them with NumPy gathers: the same arrays as ``plan_ios`` on the batch,
while the event mode's random 4 KiB batches and sequential 1 MiB streams meet only a few hundred
places. Tested against ``plan_ios`` (tests/unit/test_plan_positions.py).

A table is shared by every thread of a process that plans on the same geometry (the dashboard's
server answers requests in threads): ``lock`` is held while places are filed and while a reader
needs the entries, the version and the filed places to agree (``nvsim.sim.demand._work_by_place``).
"""

from __future__ import annotations

import threading

import numba as nb
import numpy as np

from .layout import ArrayGeometry
from .planner import MemberIOPlan, plan_ios

LEVELS = (0, 5, 6)
"""Levels whose host I/Os plan independently of each other and of their index in the batch."""
PLACES_MAX = 1 << 16
"""Places a table keeps; past it the table starts afresh (memory stays bounded)."""
PERIOD_IOS_MAX = 1024
"""Host I/Os of the size that fit in one period, at most, for plans by place: with more places than
that a run of a few thousand batches keeps meeting new ones, and filing them costs more than
planning the batch (8 members of 512 KiB strips: 6,144 places of 4 KiB, 11x slower a batch;
benchmarks/bench_positions.py)."""

_MEMBER_FIELDS = ("member", "member_offset_bytes", "length_bytes", "is_write", "phase")
_HOST_FIELDS = ("mode", "parity_bytes_computed", "stripes_touched")


def period_bytes(geom: ArrayGeometry) -> tuple[int, int]:
    """(logical bytes, member bytes) of one period of ``geom``'s layout."""
    stripes = geom.n_members if geom.level in (5, 6) else 1
    return stripes * geom.stripe_data_bytes, stripes * geom.strip_bytes


def plans_by_position(geom: ArrayGeometry, length_bytes: int) -> bool:
    """Whether ``geom``'s host I/Os of ``length_bytes`` are planned by place: a level of ``LEVELS``,
    at most ``PERIOD_IOS_MAX`` of them to a period, and room for one at any place of the first."""
    period = period_bytes(geom)[0]
    return (geom.level in LEVELS and period <= PERIOD_IOS_MAX * length_bytes
            and geom.capacity_bytes >= period + length_bytes)


class PositionPlans:
    """The plans of host I/Os of ``length_bytes`` on ``geom`` with ``failed_members``, by place
    (offset within the period, and direction), planned as batches first meet them."""

    def __init__(self, geom: ArrayGeometry, length_bytes: int, failed_members: tuple[int, ...] = ()):
        self.geom, self.length, self.failed = geom, int(length_bytes), tuple(failed_members)
        self.period, self.member_period = period_bytes(geom)
        self.version = -1  # changes whenever the places filed change (``_reset``, ``_add``)
        self.lock = threading.RLock()
        self._reset()

    def __getstate__(self) -> dict:
        return {k: v for k, v in vars(self).items() if k != "lock"}  # a lock does not pickle

    def __setstate__(self, state: dict) -> None:
        vars(self).update(state)
        self.lock = threading.RLock()

    def _reset(self) -> None:
        self.version += 1
        self.keys = np.zeros(0, np.int64)  # sorted place keys: offset within the period * 2 + is_write
        self.entry = np.zeros(0, np.int64)  # each key's entry
        # the entries of the places at whole host I/O sizes into the period, by (place // length) * 2
        # + is_write, -1 where not planned yet: most batches' offsets are aligned to their size
        self.aligned = np.full(2 * (-(-self.period // self.length)), -1, np.int64)
        self.count = np.zeros(0, np.int64)  # each entry's member I/Os ...
        self.start = np.zeros(0, np.int64)  # ... and where they start in ``members``
        self.members = {f: np.zeros(0, t) for f, t in zip(_MEMBER_FIELDS, (np.int32, np.int64, np.int64, np.bool_, np.int8))}
        self.hosts = {f: np.zeros(0, t) for f, t in zip(_HOST_FIELDS, (np.int8, np.int64, np.int64))}

    def plan(self, is_write: np.ndarray, offset_bytes: np.ndarray) -> MemberIOPlan:
        """``plan_ios(geom, is_write, offset_bytes, length_bytes, failed_members)``, the same arrays."""
        offs, w = _as_batch(is_write, offset_bytes)
        if offs.size and (offs.min() < 0 or int(offs.max()) + self.length > self.geom.capacity_bytes):
            return plan_ios(self.geom, w, offs, self.length, self.failed)  # its own one-line refusal
        with self.lock:  # another thread may file places or start afresh meanwhile
            return self._planned(offs, w)

    def _planned(self, offs: np.ndarray, w: np.ndarray) -> MemberIOPlan:
        entry = _entries(self.keys, self.entry, self.aligned, offs, w, self.period, self.length)
        if offs.size and entry.min() < 0:  # places not met yet: plan them, then look again
            keys = offs % self.period * 2 + w  # each host I/O's place key, as _entries makes it
            new = np.unique(keys[entry < 0])
            if len(self.count) + len(new) > PLACES_MAX:  # start afresh, with this batch's places
                self._reset()
                new = np.unique(keys)
            self._add(new)
            entry = _entries(self.keys, self.entry, self.aligned, offs, w, self.period, self.length)
        m, h = self.members, self.hosts
        host, member, offset, length, write, phase, mode, parity, stripes = _gathered(
            entry, offs, self.period, self.member_period, self.count, self.start, m["member"],
            m["member_offset_bytes"], m["length_bytes"], m["is_write"], m["phase"], h["mode"],
            h["parity_bytes_computed"], h["stripes_touched"])
        return MemberIOPlan(host_index=host, member=member, member_offset_bytes=offset, length_bytes=length,
                            is_write=write, phase=phase, mode=mode, parity_bytes_computed=parity,
                            stripes_touched=stripes)

    def entries(self, is_write: np.ndarray, offset_bytes: np.ndarray) -> np.ndarray:
        """Each host I/O's place in ``places_plan`` (-1 where its place is not filed): host I/O
        ``i`` of ``plan(is_write, offset_bytes)`` has the member I/Os of that place's host I/O there,
        moved on by its whole periods."""
        offs, w = _as_batch(is_write, offset_bytes)
        with self.lock:
            return _entries(self.keys, self.entry, self.aligned, offs, w, self.period, self.length)

    def places_plan(self) -> tuple[MemberIOPlan, np.ndarray, np.ndarray]:
        """Every place filed, as one host I/O each in entry order: (its plan, each place's offset
        within the first period, each place's direction)."""
        with self.lock:
            return self._places_plan()

    def _places_plan(self) -> tuple[MemberIOPlan, np.ndarray, np.ndarray]:
        key_of = np.empty(len(self.count), np.int64)
        key_of[self.entry] = self.keys
        m, h = self.members, self.hosts
        plan = MemberIOPlan(host_index=np.repeat(np.arange(len(self.count), dtype=np.int64), self.count), **m, **h)
        return plan, key_of >> 1, (key_of & 1).astype(np.bool_)

    def _add(self, new: np.ndarray) -> None:
        """Plan the places of ``new`` (sorted keys, none known yet) and file them."""
        self.version += 1
        plan = plan_ios(self.geom, (new & 1).astype(np.bool_), new >> 1, self.length, self.failed)
        count = np.bincount(plan.host_index, minlength=len(new)).astype(np.int64)
        first = len(self.count)
        self.start = np.concatenate((self.start, len(self.members["member"]) + np.cumsum(count) - count))
        self.count = np.concatenate((self.count, count))
        for f in _MEMBER_FIELDS:
            self.members[f] = np.concatenate((self.members[f], getattr(plan, f)))
        for f in _HOST_FIELDS:
            self.hosts[f] = np.concatenate((self.hosts[f], getattr(plan, f)))
        keys = np.concatenate((self.keys, new))
        entry = np.concatenate((self.entry, np.arange(first, first + len(new), dtype=np.int64)))
        order = np.argsort(keys, kind="stable")
        self.keys, self.entry = keys[order], entry[order]
        place = new >> 1
        at = place % self.length == 0
        self.aligned[place[at] // self.length * 2 + (new[at] & 1)] = np.arange(first, first + len(new))[at]


def _as_batch(is_write, offset_bytes) -> tuple[np.ndarray, np.ndarray]:
    """Offsets as contiguous int64 and directions as writable bool, one per offset: the one
    signature ``_entries`` and ``_gathered`` are compiled for."""
    offs = np.ascontiguousarray(offset_bytes, dtype=np.int64)
    w = np.asarray(is_write, dtype=np.bool_)
    w = np.array(np.broadcast_to(w, offs.shape)) if w.shape != offs.shape else w
    return offs, w


@nb.njit(cache=True)
def _entries(keys, entry, aligned, offs, w, period, length):
    """Each host I/O's entry: its place key (offset within the period x 2 + is_write) looked up in
    ``aligned`` where the place is a whole number of host I/O sizes into the period, else found by
    binary search among the sorted ``keys``; -1 where the place has not been planned yet."""
    out = np.empty(offs.size, np.int64)
    for i in range(offs.size):
        place = offs[i] % period
        slot = place // length
        if slot * length == place:
            out[i] = aligned[slot * 2 + (1 if w[i] else 0)]
            continue
        key = place * 2 + (1 if w[i] else 0)
        lo, hi = 0, keys.size
        while lo < hi:
            mid = (lo + hi) >> 1
            if keys[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        out[i] = entry[lo] if lo < keys.size and keys[lo] == key else -1
    return out


@nb.njit(cache=True)
def _gathered(entry, offs, period, member_period, count, start, member, member_offset, length, write, phase,
              mode, parity, stripes):
    """The batch's plan from its places' plans: each host I/O's member I/Os (its entry's, moved on
    by its whole periods' member bytes) in host order, and its per-host fields; ``PositionPlans.plan``'s
    arrays in one pass (a dozen NumPy gathers and repeats cost more than the work on a batch)."""
    n = entry.size
    total = 0
    for i in range(n):
        total += count[entry[i]]
    host_o = np.empty(total, np.int64)
    member_o = np.empty(total, member.dtype)
    offset_o = np.empty(total, np.int64)
    length_o = np.empty(total, np.int64)
    write_o = np.empty(total, np.bool_)
    phase_o = np.empty(total, phase.dtype)
    mode_o = np.empty(n, mode.dtype)
    parity_o = np.empty(n, np.int64)
    stripes_o = np.empty(n, np.int64)
    k = 0
    for i in range(n):
        e = entry[i]
        shift = offs[i] // period * member_period
        s = start[e]
        for j in range(s, s + count[e]):
            host_o[k] = i
            member_o[k] = member[j]
            offset_o[k] = member_offset[j] + shift
            length_o[k] = length[j]
            write_o[k] = write[j]
            phase_o[k] = phase[j]
            k += 1
        mode_o[i], parity_o[i], stripes_o[i] = mode[e], parity[e], stripes[e]
    return host_o, member_o, offset_o, length_o, write_o, phase_o, mode_o, parity_o, stripes_o


__all__ = ["PositionPlans", "plans_by_position", "period_bytes", "LEVELS"]
