"""Issue 38: a degraded read's reconstruction and the degraded write rule are the protocol's
(``DegradedPath``: data, and ``charge``, the one function that prices them into an engine's
``work``). Per engine: what its path declares is what its work charges -- swap the path and the
charge moves with it."""

import numpy as np
import pytest

from nvsim.engines.rebuild_protocol import FREE, Reconstruction
from nvsim.scenario import parse_scenario
from nvsim.sim.demand import plan_host_ios
from nvsim.sim.memo import Memo
from nvsim.sim.system import ArraySystem
from nvsim.specs import WorkloadSpec

READS = WorkloadSpec(name="r", rw="randread", bs=4096)
ENGINES = ("linux-md", "intel-vroc", "graid-supremeraid-sr1010", "xinnor-xiraid", "broadcom-megaraid-9670w-16i",
           "ideal-raid")
FIELDS = ("submit_cpu_ref_s", "pre_s", "mid_s", "lock_s", "device_read_bytes", "device_down_bytes", "memory_bytes")
SWAPPED = Reconstruction("submit_cpu_ref_s", s_per_stripe=1e-3)  # 1 ms per stripe on the submitting core


def degraded_reads(catalog, engine):
    """An 8-drive RAID5 (VROC has no RAID6) with member 0 missing, 64 reads of 4 KiB and their plan."""
    array = {"level": 5, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "strip_bytes": "64KiB", "engine": engine}
    scenario = parse_scenario({"name": "t", "platform": "dell-poweredge-r750", "array": array, "workloads": []}, catalog)
    system = ArraySystem(scenario, READS, catalog, (0,), Memo())
    offsets = np.arange(64, dtype=np.int64) * 4096 * 3
    reads = np.zeros(64, dtype=bool)
    plan, chunks, _, _ = plan_host_ios(system.model, 0, offsets, reads, Memo())
    return system.model.engine, plan, reads, chunks


def priced(engine, plan, reads, chunks, monkeypatch, reconstruction=None):
    if reconstruction is not None:
        monkeypatch.setattr(type(engine), "reconstruction", lambda self, level: reconstruction)
    work = engine.work(plan, reads, chunks, 4096, 5)
    monkeypatch.undo()
    return {name: np.asarray(getattr(work, name), dtype=float) for name in FIELDS}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_path_an_engine_declares_is_what_its_work_charges(catalog, engine, monkeypatch):
    eng, plan, reads, chunks = degraded_reads(catalog, engine)
    path = eng.degraded_path(5)
    rebuilt = path.reconstructed_reads(plan.mode, reads)
    assert rebuilt.any() and (~rebuilt).any()  # some reads touch the missing member, some do not
    declared = priced(eng, plan, reads, chunks, monkeypatch)
    free = priced(eng, plan, reads, chunks, monkeypatch, FREE)
    member_bytes = np.bincount(plan.host_index, weights=plan.length_bytes.astype(float), minlength=64)[:64]
    r = path.reconstruction
    expected = np.where(rebuilt, r.seconds(plan.stripes_touched, member_bytes), 0.0)
    factor = eng.shared_access_factor if r.charged_to == "pre_s" else 1.0  # md's times on two sockets
    assert declared[r.charged_to] - free[r.charged_to] == pytest.approx(expected * factor, rel=1e-12, abs=1e-18)
    for name in FIELDS:
        if name not in (r.charged_to, "device_read_bytes"):
            assert np.array_equal(declared[name], free[name]), name
    memory = declared["device_read_bytes"] - free["device_read_bytes"]
    assert (memory[rebuilt] > 0).all() if r.through_memory else not memory.any()
    swapped = priced(eng, plan, reads, chunks, monkeypatch, SWAPPED)
    moved = swapped["submit_cpu_ref_s"] - free["submit_cpu_ref_s"]
    assert moved == pytest.approx(np.where(rebuilt, 1e-3 * plan.stripes_touched, 0.0), rel=1e-12)
    if r.charged_to != "submit_cpu_ref_s":
        assert np.array_equal(swapped[r.charged_to], free[r.charged_to])  # the old charge is gone


def test_each_engine_declares_its_documented_reconstruction(catalog):
    md = degraded_reads(catalog, "linux-md")[0].degraded_path(5)
    assert md.reconstruction.charged_to == "pre_s" and np.isfinite(md.reconstruction.bytes_per_s)  # raid5d's XOR
    gpu = degraded_reads(catalog, "graid-supremeraid-sr1010")[0].degraded_path(5)
    assert gpu.reconstruction.charged_to == "mid_s" and gpu.reconstruction.s_per_stripe > 0  # a GPU stripe operation
    card = degraded_reads(catalog, "broadcom-megaraid-9670w-16i")[0].degraded_path(5)
    assert card.reconstruction.through_memory and card.write_coalesces  # DRAM; the write-back cache gathers stripes
    assert not md.write_coalesces and not gpu.write_coalesces
    assert degraded_reads(catalog, "ideal-raid")[0].degraded_path(5).reconstruction == FREE
    xiraid = degraded_reads(catalog, "xinnor-xiraid")[0]
    assert xiraid.degraded_path(5).reconstruction == Reconstruction(  # its writes' per-core XOR rate, on the submitter
        "submit_cpu_ref_s", bytes_per_s=xiraid.v.parity_gen_gb_per_s * 1e9)
    assert xiraid.degraded_path(10).reconstruction.bytes_per_s == np.inf  # a mirror's copy: nothing to compute
    mirror = degraded_reads(catalog, "broadcom-megaraid-9670w-16i")[0].degraded_path(10)
    assert mirror.reconstruction == FREE  # a mirror's copy computes nothing


def test_the_write_rule_is_the_paths(catalog, monkeypatch):
    """A sequential write stream on a degraded card is planned as whole stripes because its path
    says its cache still gathers them; swap the rule and it is planned write by write."""
    from nvsim.engines.rebuild_protocol import DegradedPath

    writes = WorkloadSpec(name="w", rw="write", bs=65536, iodepth=32)
    array = {"level": 5, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "strip_bytes": "64KiB",
             "engine": "broadcom-megaraid-9670w-16i"}
    scenario = parse_scenario({"name": "t", "platform": "dell-poweredge-r750", "array": array, "workloads": []}, catalog)
    offsets = np.arange(64, dtype=np.int64) * 65536
    is_write = np.ones(64, dtype=bool)

    def member_reads():
        system = ArraySystem(scenario, writes, catalog, (0,), Memo())
        plan = plan_host_ios(system.model, 0, offsets, is_write, Memo())[0]
        return int((~plan.is_write).sum())

    gathered = member_reads()  # whole stripes: only the stream's ends read
    real = DegradedPath.__init__

    def no_coalescing(self, *args, **kwargs):
        real(self, *args, **kwargs)
        object.__setattr__(self, "write_coalesces", False)

    monkeypatch.setattr(DegradedPath, "__init__", no_coalescing)
    assert member_reads() > 10 * max(gathered, 1)  # write by write: each reads to update its stripe's parity
