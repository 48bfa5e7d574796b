"""Issue 38: one rebuild protocol every engine implements (nvsim.engines.rebuild_protocol): what a
rebuild request reads, computes and where, writes, its depth, its pacing idle and under host I/O,
and what it competes for; the demand layer prices the requests the protocol names (a recovery,
and a parity check that reads every member and writes nothing)."""

import numpy as np
import pytest

from nvsim.engines import RebuildProtocol
from nvsim.scenario import parse_scenario
from nvsim.sim.memo import Memo
from nvsim.sim.system import ArraySystem
from nvsim.specs import RebuildSpec, WorkloadSpec

IDLE = WorkloadSpec(name="idle", rw="randread", bs=4096)
ENGINES = ("linux-md", "graid-supremeraid-sr1010", "xinnor-xiraid", "broadcom-megaraid-9670w-16i", "ideal-raid")


def system(catalog, engine, level, drives=8, missing=(0,), platform="dell-poweredge-r750"):
    array = {"level": level, "drive": "intel-d7-p5510-3.84tb", "drives": drives, "strip_bytes": "64KiB", "engine": engine}
    scenario = parse_scenario({"name": "t", "platform": platform, "array": array, "workloads": []}, catalog)
    return ArraySystem(scenario, IDLE, catalog, missing)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("level", [6, 10])
def test_every_engine_states_one_protocol_the_model_holds(catalog, engine, level):
    s = system(catalog, engine, level)
    p = s.rebuild
    assert isinstance(p, RebuildProtocol) and p.operation == "recovery" and p.writes_member
    assert p.step_bytes > 0 and p.inflight >= 1 and p.threads >= 1
    assert p.reads == ("one copy" if level == 10 else "survivors")
    assert p.reads_per_byte(8, 1) == (1.0 if level == 10 else 7.0)
    assert any("new member" in r for r in p.resources)
    assert p == s.engine.rebuild_protocol(level, s.array.rebuild)


def test_the_protocols_pacing_is_each_engines_own(catalog):
    md6, md10 = system(catalog, "linux-md", 6).rebuild, system(catalog, "linux-md", 10).rebuild
    assert md10.excludes_host_io and not md6.excludes_host_io  # raid10's array-wide barrier
    assert md6.pacing(True).drains and not md6.pacing(False).drains  # md_do_sync's window only when busy
    assert md6.pacing(False).limit_bytes_per_s == RebuildSpec().speed_limit_max_kib_per_s * 1024
    gpu = system(catalog, "graid-supremeraid-sr1010", 6).rebuild
    assert gpu.pacing(True).paced and gpu.pacing(False).kind == "none" and gpu.parity_on == "the GPU"
    card = system(catalog, "broadcom-megaraid-9670w-16i", 6).rebuild
    assert card.pacing(True).paced_over == "all" and "card" in card.parity_on
    assert system(catalog, "ideal-raid", 6).rebuild.pacing(True).kind == "none"


def test_an_md_array_s_own_sync_speed_limits_take_the_sysctls_place():
    """md.c's speed_min(mddev) and speed_max(mddev): the array's sync_speed_min/_max where written
    (sysfs), else the sysctls speed_limit_min/_max; each on its own."""
    from nvsim.engines.md import MdEngine
    md = MdEngine.rebuild_throttle
    system_wide = RebuildSpec(speed_limit_min_kib_per_s=10_000, speed_limit_max_kib_per_s=50_000)
    own = RebuildSpec(speed_limit_min_kib_per_s=10_000, speed_limit_max_kib_per_s=50_000,
                      sync_speed_min_kib_per_s=30_000, sync_speed_max_kib_per_s=900_000)
    half = RebuildSpec(speed_limit_min_kib_per_s=10_000, speed_limit_max_kib_per_s=50_000, sync_speed_max_kib_per_s=80_000)
    assert md(None, system_wide, False).limit_bytes_per_s == 50_000 * 1024
    assert md(None, system_wide, True).floor_bytes_per_s == 10_000 * 1024
    assert md(None, own, False).limit_bytes_per_s == 900_000 * 1024 and "sync_speed_max" in md(None, own, False).why
    assert md(None, own, True).floor_bytes_per_s == 30_000 * 1024 and "sync_speed_min" in md(None, own, True).why
    assert md(None, half, True).floor_bytes_per_s == 10_000 * 1024 and md(None, half, True).limit_bytes_per_s == 80_000 * 1024
    # a minimum above the maximum, which the kernel takes: md_do_sync checks the maximum only above
    # the minimum, so the resync runs at the minimum, idle or loaded
    above = RebuildSpec(sync_speed_min_kib_per_s=300_000)  # the sysctl's maximum is 200,000
    for loaded in (False, True):
        assert md(None, above, loaded).limit_bytes_per_s == 300_000 * 1024
    assert "sync_speed_min 300000" in md(None, above, False).why
    assert md(None, RebuildSpec(speed_limit_min_kib_per_s=5_000, speed_limit_max_kib_per_s=2_000), False).limit_bytes_per_s \
        == 5_000 * 1024


@pytest.mark.parametrize("engine", ["linux-md", "graid-supremeraid-sr1010", "broadcom-megaraid-9670w-16i"])
def test_a_check_reads_every_member_writes_nothing_and_computes_parity(catalog, engine):
    s = system(catalog, engine, 6, missing=())
    check = s.engine.rebuild_protocol(6, s.array.rebuild, "check")
    assert check.reads == "every member" and not check.writes_member
    step = check.step_bytes
    b = s.rebuild_batch(0, np.arange(2, dtype=np.int64) * step, step, check)
    assert not b.op_is_write.any()
    assert sorted(set(b.op_drive.tolist())) == list(range(8))
    assert len(b.op_drive) == 2 * 8
    engine_s = b.pre_s + b.mid_s + b.submit_s
    assert (engine_s > 0).all()  # the parity of every row is computed somewhere


def test_a_recovery_batch_reads_what_the_protocol_names(catalog):
    raid6 = system(catalog, "linux-md", 6)
    b = raid6.rebuild_batch(0, np.zeros(1, dtype=np.int64), 65536)
    assert sorted(b.op_drive[~b.op_is_write].tolist()) == list(range(1, 8))
    assert b.op_drive[b.op_is_write].tolist() == [0]
    raid10 = system(catalog, "linux-md", 10)
    b = raid10.rebuild_batch(0, np.zeros(1, dtype=np.int64), 65536)
    assert len(b.op_drive[~b.op_is_write]) == 1 and b.op_drive[b.op_is_write].tolist() == [0]


def test_host_writes_interleaved_with_the_fill_raise_the_new_members_nand_waf(catalog):
    from nvsim.rebuild import rebuild_summary

    def summary(workloads):
        array = {"level": 5, "drive": "kioxia-cm7-r-7.68tb", "drives": 5, "strip_bytes": "128KiB", "hot_spares": 1,
                 "engine": "graid-supremeraid-sr1010"}
        return rebuild_summary(parse_scenario({"name": "t", "platform": "supermicro-sys-120u-tnr", "array": array,
                                               "workloads": workloads}, catalog), catalog)

    idle = summary([])
    assert idle["rebuild_host_bytes_to_new_member"] == 0.0
    assert idle["rebuild_member_waf_nand"] == idle["rebuild_waf_nand"]
    busy = summary([{"name": "w", "rw": "randwrite", "bs": "4k", "numjobs": 8, "iodepth": 32}])
    assert busy["rebuild_host_bytes_to_new_member"] > 0.0
    assert busy["rebuild_member_waf_nand"] > busy["rebuild_waf_nand"]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_record_states_degraded_io_where_the_engine_reconstructs(catalog, engine):
    parity, mirror = system(catalog, engine, 6).rebuild.degraded, system(catalog, engine, 10).rebuild.degraded
    assert parity.read_reads == "the row's survivors" and mirror.read_reads == "the surviving copy"
    assert mirror.read_parity_on.startswith("none")
    if engine == "linux-md":
        assert parity.read_parity_on == "raid5d (host cores)" and "raid5d" in parity.read_through
    else:
        assert parity.read_parity_on == system(catalog, engine, 6).rebuild.parity_on


def test_the_engines_reconstruct_exactly_the_reads_the_record_names(catalog, monkeypatch):
    """A degraded read's reconstruction is charged through ``DegradedPath.reconstructed_reads`` (the
    one place): the GPU charges a stripe operation to the reads it names and to no others."""
    from nvsim.engines.rebuild_protocol import DegradedPath

    s = system(catalog, "graid-supremeraid-sr1010", 6)
    offsets = np.arange(64, dtype=np.int64) * 4096 * 3
    reads = np.zeros(64, dtype=bool)
    rebuilt = s.batch(0, offsets, reads).mid_s > 0
    assert rebuilt.any() and (~rebuilt).any()  # some reads touch the missing member, some do not
    monkeypatch.setattr(DegradedPath, "reconstructed_reads", staticmethod(lambda mode, is_write: np.zeros_like(is_write)))
    fresh = ArraySystem(s.scenario, IDLE, catalog, (0,), Memo())  # priced anew, not from the memo
    assert not (fresh.batch(0, offsets, reads).mid_s > 0).any()


@pytest.mark.parametrize("engine, on_host", [("linux-md", True), ("xinnor-xiraid", True), ("graid-supremeraid-sr1010", False),
                                             ("broadcom-megaraid-9670w-16i", False), ("ideal-raid", False)])
def test_the_protocol_lists_host_cores_only_where_the_rebuild_loads_them(catalog, engine, on_host):
    """A card's rebuild listed '1 rebuild thread (host cores)' and the card's link, which nothing
    charged (its idle rebuild at 0% CPU, its link idle; a helper's finding): the list names what the
    rebuild's requests load, the rebuild thread only where ``rebuild_work`` charges it."""
    s = system(catalog, engine, 6, platform="supermicro-as-2125hs-tnr" if engine != "linux-md" else "dell-poweredge-r750")
    resources = s.rebuild.resources
    assert any("rebuild thread" in r for r in resources) == on_host
    assert not any(r.endswith("'s link") for r in resources)


def test_the_ideal_engine_rebuilds_at_the_drives_bound(catalog):
    """The ideal engine (no cost of its own) was held by the base's 8 requests in flight, 26% slower
    than xiRAID's (a helper's finding): its rebuild keeps enough in flight that a drive binds."""
    from nvsim.rebuild import rebuild_summary

    def summary(engine):
        array = {"level": 5, "drive": "kioxia-cm7-r-7.68tb", "drives": 5, "strip_bytes": "128KiB", "hot_spares": 1, "engine": engine}
        return rebuild_summary(parse_scenario({"name": "x", "platform": "supermicro-sys-120u-tnr", "array": array, "workloads": []},
                                              catalog), catalog)

    ideal, xiraid = summary("ideal-raid"), summary("xinnor-xiraid")
    assert "drive NAND" in ideal["rebuild_limited_by"]
    assert ideal["rebuild_hours"] <= xiraid["rebuild_hours"] * 1.001
