"""Work and memory estimated before anything is allocated: above a limit, a one-line refusal with
the estimate and how to raise the limit; below it, a run that completes.

Three costs grow without bound with a workload's numbers:

- **Event-mode host slots.** The event mode keeps one closed-loop slot (a SimPy process and its
  queue entries) per I/O in flight, ``iodepth x numjobs``, and warms up with three host I/Os per
  slot. Measured (graid-gen5-raid6, 4 KiB random reads, this machine): 65,536 slots took 5 s and
  614 MB resident against 318 MB for 6,144 slots, about ``EVENT_BYTES_PER_SLOT`` each. The fluid
  mode has no such cost (it solves rates, not slots).
- **Planned member pages, fluid mode.** The stripe planner maps every page of a host I/O to its
  members, for at least ``MIN_SAMPLE_IOS`` host I/Os of the workload's sample: a 4 GiB block took
  16 s (2^24 pages, at the limit), a 16 GiB one 20 s, a 1 TiB one exhausted memory.
- **Planned member pages, event mode.** The event mode plans every host I/O it simulates: its
  warm-up (``sim/event/window.py``: three per slot, at least a fifth of the window) and its window
  (``host_ios``, 60,000 by default). Measured (24-drive RAID6, sequential reads, 16 to 128 I/Os in
  flight): 1 MiB blocks 9 s, 16 MiB 39 s, 64 MiB 118 s and 1.7 GB.

"""

from __future__ import annotations

import math
import os

from .constants import PAGE_BYTES
from .errors import InputError
from .simulation import EVENT_HOST_IOS
from .specs import WorkloadSpec

MAX_EVENT_SLOTS = 262_144
"""Most host I/Os in flight (iodepth x numjobs) the event mode takes: measured at the limit (512 x 512,
graid-gen5-raid6 4 KiB random reads), 1.6 GB resident and 98 s on a loaded 2-core machine."""
MAX_EVENT_SLOTS_ENV = "NVSIM_MAX_EVENT_SLOTS"
EVENT_BYTES_PER_SLOT = 4_800
"""Resident memory per event-mode slot, measured (see the module docstring)."""
MAX_PLANNED_PAGES = 2**24
"""Most member pages planned for a workload's sample (fluid mode: a 4 GiB block, about 16 s)."""
MAX_PLANNED_PAGES_ENV = "NVSIM_MAX_PLANNED_PAGES"
MAX_EVENT_PAGES = 2**30
"""Most member pages an event-mode run plans (32 MiB blocks at the default window: about 1 min)."""
MAX_EVENT_PAGES_ENV = "NVSIM_MAX_EVENT_PAGES"
MIN_SAMPLE_IOS = 16
"""Fewest host I/Os a workload's sample holds (``ArrayModel.sample_size``)."""
MAX_SWEEP_POINTS = 100_000
"""Default most set-ups a sweep runs (its field ``max_points`` raises it)."""


def limit(default: int, env: str) -> int:
    """``default``, or the positive integer in the environment variable ``env``."""
    try:
        value = int(os.environ.get(env, ""))
    except ValueError:
        return default
    return value if value > 0 else default


def event_slots(workload: WorkloadSpec) -> int:
    """Closed-loop host slots the event mode keeps for ``workload`` (OLTP states are solved as rates)."""
    return 0 if workload.is_oltp else workload.iodepth * workload.numjobs


def planned_pages(workload: WorkloadSpec) -> int:
    """A lower bound on the member pages planned for ``workload``'s sample (either mode)."""
    return MIN_SAMPLE_IOS * _pages_per_io(workload)


def event_pages(workload: WorkloadSpec, host_ios: int = EVENT_HOST_IOS) -> int:
    """Member pages an event-mode run of ``host_ios`` measured host I/Os plans: its warm-up (as
    ``sim/event/window.measured_window`` sizes it) and its window."""
    warm_ios = max(3 * event_slots(workload), host_ios // 5)
    return (warm_ios + host_ios) * _pages_per_io(workload)


def _pages_per_io(workload: WorkloadSpec) -> int:
    return math.ceil(workload.bs / PAGE_BYTES)


def check_workload(workload: WorkloadSpec, fidelity: str, field: str = "", host_ios: int = EVENT_HOST_IOS) -> None:
    """Refuse (one line) a workload whose run would exceed a limit, with the estimate and the
    environment variable that raises the limit (``host_ios``: an event-mode run's window)."""
    where = field or f"workloads[{workload.name}]"
    pages, page_limit = planned_pages(workload), limit(MAX_PLANNED_PAGES, MAX_PLANNED_PAGES_ENV)
    if pages > page_limit:
        raise InputError(f"{where}.bs", f"a {workload.bs:,}-byte block means planning at least {pages:,} member "
                                        f"pages (limit {page_limit:,}; set {MAX_PLANNED_PAGES_ENV} to raise it)")
    if fidelity != "event" or workload.is_oltp:
        return
    slots, slot_limit = event_slots(workload), limit(MAX_EVENT_SLOTS, MAX_EVENT_SLOTS_ENV)
    if slots > slot_limit:
        gigabytes = slots * EVENT_BYTES_PER_SLOT / 1e9
        raise InputError(f"{where}.iodepth", f"iodepth x numjobs = {slots:,} I/Os in flight need about "
                                             f"{gigabytes:,.1f} GB in the event mode (limit {slot_limit:,} slots; set "
                                             f"{MAX_EVENT_SLOTS_ENV} to raise it, or use --fidelity fluid)")
    pages, page_limit = event_pages(workload, host_ios), limit(MAX_EVENT_PAGES, MAX_EVENT_PAGES_ENV)
    if pages > page_limit:
        raise InputError(f"{where}.bs", f"{workload.bs:,}-byte blocks mean planning about {pages:,} member pages "
                                        f"in the event mode (limit {page_limit:,}; set {MAX_EVENT_PAGES_ENV} to raise "
                                        f"it, or use --fidelity fluid)")


def check_points(points: int, max_points: int, field: str = "grid") -> None:
    """Refuse a sweep of more set-ups than ``max_points`` before expanding it."""
    if points > max_points:
        raise InputError(field, f"the sweep has {points:,} set-ups; the limit is {max_points:,} "
                                f"(set max_points in the sweep file to raise it)")
