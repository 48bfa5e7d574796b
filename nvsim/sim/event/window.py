"""How long the event mode runs: the warm-up it discards and the window it measures, sized on a
guess of the rate (the fluid mode's, or the network solve's beside a rebuild), and how many host
I/Os each job plans at a time."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...constants import EVENT_BATCH_IOS_FLOOR

from ..fluid import sample_batches, simulate_fluid
from ..mixed import solve_state
from ..result import SimResult
from ..system import ArraySystem

BARRIER_CYCLES = 40
"""md RAID10 recovery cycles (a batch under the barrier, the drain, md's sleep) a measured window
spans at least: a 64 KiB-strip batch is 32 MiB and a cycle tens of ms."""
BARRIER_WARM_CYCLES = 3
"""md RAID10 recovery cycles the warm-up spans at least."""
MEMBER_IOS_PER_BATCH = 32768
"""Member I/Os a job plans at a time at most (a 1 MiB write on a 4 KiB strip is ~280 of them;
every job holds one batch in memory)."""
BATCH_IOS_MIN, BATCH_IOS_MAX, BATCH_IOS_FLOOR = 64, 4096, EVENT_BATCH_IOS_FLOOR
BATCH_MARGIN = 1.25
"""A job plans this many times its share of the run's host I/Os at a time (jobs run at slightly
different rates; one that runs out plans another batch). It was 2: half of every batch unused."""
WHOLE_REBUILD_SLACK = 3.0
"""A run to the end of a rebuild stops at the latest after this many times its guessed length."""


@dataclass(frozen=True)
class Window:
    """Host I/Os of the warm-up (``warm_ios``), and simulated seconds at which the measurement
    starts (``warm_s``: completions before it are discarded) and the run ends (``end_s``)."""

    warm_ios: int
    warm_s: float
    end_s: float


def rate_guess(system: ArraySystem, seed: int, rebuild_member: int | None = None,
               until_rebuilt: bool = False, fluid: SimResult | None = None) -> tuple[float, float]:
    """(host I/Os per second the run should see, md RAID10's recovery cycle in seconds or 0).
    ``fluid``: the fluid mode's answer for ``system`` and ``seed``, when the caller has it.

    Beside a rebuild the warm-up and window are sized on the foreground's rate beside it (the
    network solve of that state), not the array's without it: a deep md resync leaves the
    foreground a hundredth of it, and a window sized on the optimal rate would measure the fill
    transient.
    """
    rate = max((fluid if fluid is not None else simulate_fluid(system, seed)).total_iops, 1.0)
    cycle_s = 0.0
    if rebuild_member is not None and not until_rebuilt:
        beside = solve_state(system.scenario, system.workload, system.catalog, rebuilding=rebuild_member, seed=seed,
                             failed=tuple(m for m in system.failed_members if m != rebuild_member),
                             rebuilt_fraction=system.rebuilt_fraction, rebuilt_step=system.rebuilt_step)
        rate = max(min(rate, beside.total_iops), 1.0)
        protocol = system.rebuild
        if protocol.excludes_host_io and beside.rebuild_bytes_per_s:
            cycle_s = protocol.inflight * protocol.step_bytes / beside.rebuild_bytes_per_s  # a batch and its drain (or sleep)
    return rate, cycle_s


def sync_update_of(system: ArraySystem, fluid: SimResult) -> tuple[float, float]:
    """(share of host writes that wait for the engine's synchronous metadata update, seconds each
    holds its thread) at the write rate of the fluid mode's fixed point (``with_sync_updates``):
    the rate fed back that the event mode's writes draw their bitmap updates with (``fluid``: the
    fluid mode's answer for ``system``, the one the window was sized on)."""
    if not system.workload.read_fraction < 1.0 or system.sync_update(0.0)[0] == 0.0:  # no writes, or no updates
        return 0.0, 0.0
    return system.sync_update(fluid.write_iops)


def measured_window(system: ArraySystem, seed: int, host_ios: int, warmup_ios: int | None = None,
                    rebuild_member: int | None = None, until_rebuilt: bool = False,
                    fluid: SimResult | None = None) -> Window:
    """Warm-up: ``warmup_ios`` host I/Os (default: three per slot, at least a fifth of the window)
    or fio's ``ramp_time`` if shorter; window: ``host_ios`` at the guessed rate. Under md RAID10's
    recovery both span several barrier cycles."""
    rate, cycle_s = rate_guess(system, seed, rebuild_member, until_rebuilt, fluid)
    w = system.workload
    population = w.numjobs * w.iodepth
    warm_ios = warmup_ios if warmup_ios is not None else max(3 * population, host_ios // 5)
    warm_s = max(w.ramp_time if w.ramp_time and w.ramp_time < warm_ios / rate else 0.0, warm_ios / rate)
    window_s = host_ios / rate
    if cycle_s:
        warm_s, window_s = max(warm_s, BARRIER_WARM_CYCLES * cycle_s), max(window_s, BARRIER_CYCLES * cycle_s)
    return Window(warm_ios, warm_s, warm_s + window_s)


def whole_rebuild(window: Window, span_bytes: float, rebuild_bytes_per_s: float) -> Window:
    """The whole rebuild from time zero, foreground alongside: no warm-up to discard, and an end
    well past the guessed one (the run stops when the span is rebuilt)."""
    return replace(window, warm_s=0.0, end_s=span_bytes / max(rebuild_bytes_per_s, 1.0) * WHOLE_REBUILD_SLACK)


def batch_ios(system: ArraySystem, seed: int, warm_ios: int, host_ios: int) -> int:
    """Host I/Os planned at a time per job: what the run needs, but at most
    ``MEMBER_IOS_PER_BATCH`` member I/Os."""
    sample = sample_batches(system, seed)[0]
    members_per_io = max(1.0, len(sample.op_die_s) / max(1, len(sample)))
    n = int(min(BATCH_IOS_MAX, max(BATCH_IOS_MIN, BATCH_MARGIN * (warm_ios + host_ios) / system.workload.numjobs),
                MEMBER_IOS_PER_BATCH / members_per_io))
    return max(BATCH_IOS_FLOOR, n)
