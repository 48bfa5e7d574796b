"""md's three spinlocks, each a server of its own, and the queued spinlock's handed-off hold
(issue 37, deliverable 3; docs/models/engines.md, "Three locks, a handed-off hold")."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.engines import md as md_engine
from nvsim.scenario import load_scenario
from nvsim.sim.event import simulate_event
from nvsim.sim.event.servers import ArrayServers, Server
from nvsim.sim.fluid import simulate_fluid
from nvsim.sim.system import ArraySystem
from nvsim.specs import WorkloadSpec

FINLAYSON_4_19 = "scenarios/md-kernels/finlayson-rome-raid5-4.19.yaml"  # pre-5.14: aligned reads take device_lock
MD_RAID10 = "scenarios/graid-gen5-raid6/md-raid10-512k.yaml"  # resync_lock, device_lock and the bitmap's lock


def _row(resync, bitmap, lock, handoff=0.0, bitmap_handoff=0.0):
    return SimpleNamespace(resync_lock_s=resync, bitmap_lock_s=bitmap, lock_s=lock, lock_handoff_s=handoff,
                           bitmap_lock_handoff_s=bitmap_handoff)


_HOLD = st.just(0.0) | st.floats(1e-9, 2e-6)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 3e-6), _HOLD, _HOLD, _HOLD), min_size=1, max_size=80))
def test_separate_lock_servers_never_release_an_acquisition_later_than_one_shared_server(visits):
    """The same acquisitions, at the same times, booked on three servers or all on one: each is
    released no later apart (every server's free time stays at or below the shared one's)."""
    apart = SimpleNamespace(resync_lock=Server(1), bitmap_lock=Server(1), lock=Server(1))
    one = Server(1)
    shared = SimpleNamespace(resync_lock=one, bitmap_lock=one, lock=one)
    t = 0.0
    for gap, resync, bitmap, lock in visits:
        t += gap
        row = _row(resync, bitmap, lock)
        assert ArrayServers.spin_locks(apart, row, t) <= ArrayServers.spin_locks(shared, row, t)


def _system(path, **workload):
    return ArraySystem(load_scenario(path), WorkloadSpec(name="w", **workload), _catalog())


def _catalog():
    from nvsim.catalog import default_catalog
    return default_catalog()


def test_separate_lock_servers_never_slow_a_lock_bound_run(monkeypatch):
    """md RAID10 random writes (resync_lock, two device_lock and two counts.lock holds each) on
    the three servers against all of them on device_lock's (the SimPy slots, no handoff): not
    slower, and faster here, where the one server binds."""
    monkeypatch.setattr(md_engine, "HANDOFF_LINES", 0)
    system = _system(MD_RAID10, rw="randwrite", bs=4096, numjobs=64, iodepth=8)
    apart = simulate_event(system, host_ios=4000, compiled=False)
    init = ArrayServers.__init__

    def one_server(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.resync_lock = self.bitmap_lock = self.lock

    monkeypatch.setattr(ArrayServers, "__init__", one_server)
    shared = simulate_event(system, host_ios=4000, compiled=False)
    assert apart.total_iops > 1.05 * shared.total_iops


def _with_and_without_handoff(monkeypatch, system_of, mode):
    with_handoff = mode(system_of())
    monkeypatch.setattr(md_engine, "HANDOFF_LINES", 0)
    return with_handoff, mode(system_of())


def _event(system):
    return simulate_event(system, host_ios=6000)


@pytest.mark.parametrize("mode", [simulate_fluid, _event], ids=["fluid", "event"])
def test_a_single_job_never_pays_the_handoff(monkeypatch, mode):
    """One job's acquisitions never meet its own holds (its core holds or spins until the lock is
    released before it submits again): the same rate with the handoff's transfers as without."""
    a, b = _with_and_without_handoff(
        monkeypatch, lambda: _system(FINLAYSON_4_19, rw="randread", bs=4096, numjobs=1, iodepth=32), mode)
    assert a.total_iops == b.total_iops > 0


@pytest.mark.parametrize("mode", [simulate_fluid, _event], ids=["fluid", "event"])
def test_contended_acquisitions_are_handed_off(monkeypatch, mode):
    """64 jobs at the pre-5.14 aligned read's device_lock: the lock binds, and each hold is the
    handed-off one (2 + HANDOFF_LINES line transfers), so the rate is the uncontended one's
    2 / (2 + HANDOFF_LINES) or near it."""
    a, b = _with_and_without_handoff(
        monkeypatch, lambda: _system(FINLAYSON_4_19, rw="randread", bs=4096, numjobs=64, iodepth=16), mode)
    assert a.total_iops < 0.6 * b.total_iops
    assert a.total_iops == pytest.approx(b.total_iops * 2 / (2 + 4), rel=0.1)
    assert "spinlock" in a.limited_by and a.cpu_percent > b.cpu_percent * 0.9


def test_lock_bound_md_fluid_within_5_percent_of_event_mode():
    """The handed-off hold in both modes (the fluid mode's fixed point on the lock's utilisation,
    the event mode's per acquisition): the same rate on a lock-bound md read, within the 5% the
    agreement tests hold (tests/component/test_fluid_agreement.py)."""
    system = _system(FINLAYSON_4_19, rw="randread", bs=4096, numjobs=64, iodepth=16)
    fluid = simulate_fluid(system)
    event = simulate_event(system, host_ios=12_000)
    assert "spinlock" in fluid.limited_by
    assert event.total_iops == pytest.approx(fluid.total_iops, rel=0.05)
    assert event.cpu_percent == pytest.approx(fluid.cpu_percent, abs=5.0)
