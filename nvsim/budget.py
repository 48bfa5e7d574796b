"""Work and memory estimated before anything is allocated: above a limit, a one-line refusal with
the estimate and how to raise the limit; below it, a run that completes.

Three costs grow without bound with a workload's numbers (measured on this 2-core machine with
the compiled event kernel, graid-gen5-raid6: 24 drives, RAID6):

- **Event-mode host slots.** The event mode keeps one closed-loop slot per I/O in flight,
  ``iodepth x numjobs``, and warms up with three host I/Os per slot: 4 KiB random reads with
  65,536 slots took 2.4 s and 494 MB resident, with 262,144 slots (the limit) 6.9 s and 1.5 GB,
  about ``EVENT_BYTES_PER_SLOT`` per slot. The fluid mode has no such cost (it solves rates).
- **Planned member pages, fluid mode.** The stripe planner maps every page of a host I/O to its
  members, for at least ``SAMPLE_IOS_MIN`` host I/Os of the workload's sample: a 4 GiB block (2^24
  pages, the limit) took 16 s, a 16 GiB one 20 s, a 1 TiB one exhausted memory. Random blocks
  above 1 MiB take fewer host I/Os (``nvsim.sim.workload.page_bounded_ios``, at least
  ``SAMPLE_IOS_MIN``): before, the mixed solve sampled 1,024 of them whatever their size, and a
  1 GiB random read on graid-gen5-raid6's md RAID6 took 65 s and 9.7 GB (now 1.9 s and 0.37 GB;
  4 GiB, the limit, 5.2 s and 0.84 GB; 2026-11-25).
- **Member pages held at once, event mode.** Every job holds a batch of at least
  ``EVENT_BATCH_IOS_FLOOR`` planned host I/Os (and every slot its I/O in flight): 65,536 jobs of
  8 MiB reads asked for 18 GiB at once, 1 MiB ones took 5.1 GB (2026-12-01), within the slot and
  run limits; the pages held are bounded as a sample's (``held_pages``, ``MAX_PLANNED_PAGES``).
- **Planned member pages, event mode.** The event mode plans every host I/O it simulates: its
  warm-up (``sim/event/window.py``: three per slot, at least a fifth of the window) and its window
  (``host_ios``, 60,000 by default): sequential reads of 16 MiB took 2.6 s and 0.35 GB, of 64 MiB
  (1.2 x 10^9 pages, just over the limit) 15 s and 1.7 GB.

The limits below are the defaults; the environment variables named raise (or lower) them. A sweep
bounds its points by its own field ``max_points``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from typing import NamedTuple

from .constants import EVENT_BATCH_IOS_FLOOR, EVENT_HOST_IOS, PAGE_BYTES
from .errors import InputError, limit_from_env
from .sim.workload import SAMPLE_IOS_MIN
from .specs import ScenarioSpec, WorkloadSpec
from .workload.mix import binned, part_workload

MAX_EVENT_SLOTS = 262_144
"""Most host I/Os in flight (iodepth x numjobs) the event mode takes (1.5 GB resident at the limit)."""
MAX_EVENT_SLOTS_ENV = "NVSIM_MAX_EVENT_SLOTS"
EVENT_BYTES_PER_SLOT = 5_200
"""Resident memory per event-mode slot, measured (see the module docstring)."""
MAX_PLANNED_PAGES = 2**24
"""Most member pages planned for a workload's sample (either mode: a 4 GiB block, about 16 s)."""
MAX_PLANNED_PAGES_ENV = "NVSIM_MAX_PLANNED_PAGES"
MAX_EVENT_PAGES = 2**30
"""Most member pages an event-mode run plans (about 1.5 GB; 32 MiB blocks at the default window pass)."""
MAX_EVENT_PAGES_ENV = "NVSIM_MAX_EVENT_PAGES"
MAX_SWEEP_POINTS = 100_000
"""Default most set-ups a sweep runs (its field ``max_points`` raises it)."""
MAX_SWEEP_POINTS_CEILING = 5_000_000
"""The most ``max_points`` may be raised to: a sweep holds every point it expands (about 200 bytes
each for three fields, measured: 1 GB at the ceiling) before it runs one, and each point is at
least a fluid solve (5 million of them: days on this machine). Until 2026-12-01 none: a grid of
10^8 points took 2-4 GB in seconds and ended in a MemoryError."""


def event_slots(workload: WorkloadSpec) -> int:
    """Closed-loop host slots the event mode keeps for ``workload`` (OLTP states are solved as rates)."""
    return 0 if workload.is_oltp else workload.iodepth * workload.numjobs


def planned_pages(workload: WorkloadSpec) -> int:
    """A lower bound on the member pages planned for ``workload``'s sample (either mode)."""
    return SAMPLE_IOS_MIN * _pages_per_io(workload)


def event_pages(workload: WorkloadSpec, host_ios: int = EVENT_HOST_IOS) -> int:
    """Member pages an event-mode run of ``host_ios`` measured host I/Os plans: its warm-up (as
    ``sim/event/window.measured_window`` sizes it) and its window."""
    warm_ios = max(3 * event_slots(workload), host_ios // 5)
    return (warm_ios + host_ios) * _pages_per_io(workload)


def held_pages(workload: WorkloadSpec) -> int:
    """Member pages an event-mode run holds planned at once: every job's batch (at least
    ``EVENT_BATCH_IOS_FLOOR`` host I/Os) and every slot's I/O in flight. 65,536 jobs of 8 MiB reads
    asked NumPy for 18 GiB at once, though their slots and their run's pages were within limits."""
    return max(event_slots(workload), workload.numjobs * EVENT_BATCH_IOS_FLOOR) * _pages_per_io(workload)


def _pages_per_io(workload: WorkloadSpec) -> int:
    return math.ceil(workload.bs / PAGE_BYTES)


_SERVING = [False]
"""Whether this process serves clients (``serve_clients``): every check then takes a client's limits."""


def serve_clients() -> None:
    """This process answers a server's clients (the dashboard's server and its workers): from now on
    every work check in it, ``Simulation.run``'s too, takes the default limits without reading or
    naming the server's environment (``Limits.served``)."""
    _SERVING[0] = True


def check_workload(workload: WorkloadSpec, fidelity: str, field: str = "", host_ios: int = EVENT_HOST_IOS,
                   instead: str = "use --fidelity fluid", source: str | None = None, served: bool = False) -> None:
    """Refuse (one line) a workload whose run would exceed a limit, with the estimate and the
    environment variable that raises the limit (``host_ios``: an event-mode run's window;
    ``instead``: how the caller's user skips the event mode; ``source``: the file it came from,
    named first as every other error of that file); then each block size its mix is simulated as.
    The limits are read first: one set badly in the environment is its own error, not the file's.
    ``served``: the workload came from a client of a server (the dashboard), which gets the default
    limits whatever the server's environment says, and no word of it (``Limits.served``)."""
    limits = Limits.served() if served or _SERVING[0] else Limits.from_environment()
    with _named_file(source):
        _check_one(workload, fidelity, field, host_ios, instead, limits)
        for part in binned(list(workload.bs_mix or ())):
            _check_one(part_workload(workload, part), fidelity, field, host_ios, instead, limits)


@contextmanager
def _named_file(source: str | None) -> Iterator[None]:
    """An InputError raised inside names ``source`` first, as every other error of that file (None:
    as raised)."""
    try:
        yield
    except InputError as exc:
        if source is None:
            raise
        raise InputError(exc.field, exc.message, source=source) from None


class Limits(NamedTuple):
    """The work limits in force (the defaults, or what the environment raised them to), and how a
    refusal says where they come from."""

    planned_pages: int
    event_slots: int
    event_pages: int
    hints: bool = True  # name the environment variable that raises each (a served client: no)

    @classmethod
    def from_environment(cls) -> "Limits":
        return cls(limit_from_env(MAX_PLANNED_PAGES_ENV, MAX_PLANNED_PAGES), limit_from_env(MAX_EVENT_SLOTS_ENV, MAX_EVENT_SLOTS),
                   limit_from_env(MAX_EVENT_PAGES_ENV, MAX_EVENT_PAGES))

    @classmethod
    def served(cls) -> "Limits":
        """A server's client's limits: the defaults, the server's environment neither read nor named
        (a variable set badly there, or its value, is the operator's, not the client's to see)."""
        return cls(MAX_PLANNED_PAGES, MAX_EVENT_SLOTS, MAX_EVENT_PAGES, hints=False)

    def raise_hint(self, env: str) -> str:
        return f"; set {env} to raise it" if self.hints else ""


def _check_one(workload: WorkloadSpec, fidelity: str, field: str, host_ios: int, instead: str, limits: Limits) -> None:
    where = field or f"workloads[{workload.name}]"
    pages, page_limit = planned_pages(workload), limits.planned_pages
    if pages > page_limit:
        raise InputError(f"{where}.bs", f"a {workload.bs:,}-byte block means planning at least {pages:,} member "
                                        f"pages (limit {page_limit:,}{limits.raise_hint(MAX_PLANNED_PAGES_ENV)})")
    if fidelity != "event" or workload.is_oltp:
        return
    slots, slot_limit = event_slots(workload), limits.event_slots
    if slots > slot_limit:
        gigabytes = slots * EVENT_BYTES_PER_SLOT / 1e9
        raise InputError(f"{where}.iodepth", f"iodepth x numjobs = {slots:,} I/Os in flight need about "
                                             f"{gigabytes:,.1f} GB in the event mode (limit {slot_limit:,} slots"
                                             f"{limits.raise_hint(MAX_EVENT_SLOTS_ENV)}, or {instead})")
    held = held_pages(workload)
    if held > limits.planned_pages:
        raise InputError(f"{where}.numjobs", f"{workload.numjobs:,} jobs of {workload.bs:,}-byte blocks hold about "
                                             f"{held:,} member pages planned at once in the event mode (limit "
                                             f"{limits.planned_pages:,}{limits.raise_hint(MAX_PLANNED_PAGES_ENV)}, "
                                             f"or {instead})")
    pages, page_limit = event_pages(workload, host_ios), limits.event_pages
    if pages > page_limit:
        raise InputError(f"{where}.bs", f"{workload.bs:,}-byte blocks mean planning about {pages:,} member pages "
                                        f"in the event mode (limit {page_limit:,}{limits.raise_hint(MAX_EVENT_PAGES_ENV)}, "
                                        f"or {instead})")


def check_region(workload: WorkloadSpec, device_bytes: int, field: str = "", size_clamped: bool = False,
                 devices: int = 1) -> None:
    """Refuse (one line) a workload whose region is not on the array of ``device_bytes``
    (``WorkloadSpec.region_error``); ``size_clamped``: a size written as a share ('N%'); ``devices``:
    drives used directly, each of ``device_bytes``."""
    found = workload.region_error(device_bytes, size_clamped=size_clamped, devices=devices)
    if found is not None:
        raise InputError(f"{field or f'workloads[{workload.name}]'}.{found[0]}", found[1])


def check_scenario_regions(scenario: ScenarioSpec, device: Callable[[], tuple[int, int]], source: str | None = None,
                           only: Collection[int] | None = None) -> None:
    """``check_region`` for every workload of a scenario that places its I/O (an ``offset`` or a
    ``size``; an OLTP database, its data set), each named by its place in ``workloads`` (``nvsim run``, a sweep's points, the
    dashboard's set-up); ``device`` (``Simulation.device_extent``: the bytes of a device and the
    devices the clones spread over) is asked only when one does; ``source``: the file, named first as
    every other error of that file; ``only``: the indices of the workloads that run (a sweep's
    selection with their phases), None for all of them."""
    placed = [(index, w) for index, w in enumerate(scenario.workloads)
              if (only is None or index in only) and (w.offset or w.size or w.is_oltp)]
    size_bytes, devices = device() if placed else (0, 1)
    with _named_file(source):
        for index, workload in placed:
            check_region(workload, size_bytes, field=f"workloads[{index}]", devices=devices)


def check_points(points: int, max_points: int, field: str = "grid") -> None:
    """Refuse a sweep of more set-ups than ``max_points`` before expanding it."""
    if points > max_points:
        raise InputError(field, f"the sweep has {points:,} set-ups; the limit is {max_points:,} "
                                f"(set max_points in the sweep file to raise it)")
