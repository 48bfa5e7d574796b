"""The array simulator: event mode against fluid mode, laws that must hold, engines' mechanisms.

Small set-ups (few jobs, short windows) keep these fast; the published-number regression is in
tests/validation/test_validation.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.scenario import load_scenario
from nvsim.sim.event import simulate_event
from nvsim.sim.fluid import simulate_fluid
from nvsim.sim.system import ArraySystem
from nvsim.specs import ScenarioSpec

SEED000 = "scenarios/graid-gen5-raid6"
SEED004 = "scenarios/graid-gen5-raid5-16x"


def scenario(path: str, catalog):
    return load_scenario(path, catalog)


def workload(spec: ScenarioSpec, prefix: str, **update):
    w = next(w for w in spec.workloads if w.name.startswith(prefix))
    return w.model_copy(update=update) if update else w


def small_array(catalog, engine="linux-md", level=6, drives=8, strip="64KiB", jobs=4, iodepth=8, rw="randread", bs="4k"):
    from nvsim.scenario import parse_scenario
    return parse_scenario({
        "name": "small", "platform": "supermicro-as-2125hs-tnr",
        "array": {"level": level, "drive": "kioxia-cm7-r-3.84tb", "drives": drives, "strip_bytes": strip, "engine": engine},
        "workloads": [{"name": "w", "rw": rw, "bs": bs, "iodepth": iodepth, "numjobs": jobs}],
    }, catalog)


# -- two fidelities, one model ------------------------------------------------------------------
@pytest.mark.parametrize("path,prefix", [
    (f"{SEED000}/scenario.yaml", "randread"),   # GPU card bound
    (f"{SEED000}/scenario.yaml", "randwrite"),  # GPU stripe updates, RMW reads gate writes
    (f"{SEED000}/md-raid6-4k.yaml", "randread"),  # md spinlock
    (f"{SEED000}/md-raid10-512k.yaml", "write"),  # drive bound, mirror writes
    (f"{SEED004}/hardware-raid5.yaml", "seqwrite"),  # card processor, coalesced full stripes
    (f"{SEED004}/no-raid.yaml", "randread"),  # host cores, two jobs per core
])
def test_event_mode_agrees_with_fluid_mode_on_steady_state_throughput(catalog, path, prefix):
    spec = scenario(path, catalog)
    system = ArraySystem(spec, workload(spec, prefix), catalog)
    fluid = simulate_fluid(system)
    event = simulate_event(system, host_ios=15_000)
    assert event.total_iops == pytest.approx(fluid.total_iops, rel=0.06)
    assert event.bottleneck_text.split(" at ")[0] == fluid.limited_by or fluid.limited_by.startswith("I/Os in flight")


def test_same_seed_same_numbers_bit_for_bit_and_another_seed_differs(catalog):
    spec = small_array(catalog, rw="randwrite")
    w = spec.workloads[0]
    a = simulate_event(ArraySystem(spec, w, catalog), host_ios=3000)
    b = simulate_event(ArraySystem(spec, w, catalog), host_ios=3000)
    c = simulate_event(ArraySystem(spec, w, catalog), host_ios=3000, seed=spec.seed + 1)
    assert (a.total_iops, a.write_latency_us, a.cpu_percent) == (b.total_iops, b.write_latency_us, b.cpu_percent)
    assert np.array_equal(a.latency_samples_s["write"], b.latency_samples_s["write"])
    assert not np.array_equal(a.latency_samples_s["write"], c.latency_samples_s["write"])


@settings(max_examples=8, deadline=None)
@given(jobs=st.integers(1, 6), iodepth=st.integers(1, 16), level=st.sampled_from([0, 5, 6, 10]),
       rw=st.sampled_from(["randread", "randwrite", "read", "write"]))
def test_littles_law_holds_for_the_closed_loop(catalog, jobs, iodepth, level, rw):
    """N = X R: I/Os in flight = throughput x mean latency (closed loop, every slot always busy)."""
    spec = small_array(catalog, level=level, jobs=jobs, iodepth=iodepth, rw=rw, drives=6, engine="ideal-raid")
    r = simulate_event(ArraySystem(spec, spec.workloads[0], catalog), host_ios=2000)
    lat = r.read_latency_us or r.write_latency_us
    in_flight = r.total_iops * lat["mean"] * 1e-6
    assert in_flight == pytest.approx(jobs * iodepth, rel=0.05)


def test_bytes_are_conserved_through_the_array(catalog):
    """Reads: member bytes = host bytes (optimal RAID6); full-stripe writes: member bytes = host x n/(n-2)."""
    spec = small_array(catalog, level=6, drives=8, strip="4KiB", rw="write", bs="1m", iodepth=32)
    system = ArraySystem(spec, spec.workloads[0], catalog)
    from nvsim.sim.fluid import sample_batches, write_amplification
    batches = sample_batches(system, 1)
    raid_waf, _ = write_amplification(system, batches)
    assert raid_waf == pytest.approx(8 / 6, rel=0.02)
    spec_r = small_array(catalog, level=6, drives=8, strip="4KiB", rw="read", bs="1m")
    system_r = ArraySystem(spec_r, spec_r.workloads[0], catalog)
    for b in sample_batches(system_r, 1):
        assert b.op_bytes.sum() == len(b) * 1024 * 1024
        assert not b.op_is_write.any()


def test_random_small_writes_on_raid6_cost_three_reads_and_three_writes(catalog):
    spec = small_array(catalog, level=6, drives=12, strip="4KiB", rw="randwrite")
    system = ArraySystem(spec, spec.workloads[0], catalog)
    r = simulate_fluid(system)
    assert r.raid_waf == pytest.approx(3.0, rel=0.01)  # data + P + Q written per host page
    from nvsim.sim.fluid import sample_batches
    b = sample_batches(system, 1)[0]
    per_host = np.diff(b.op_start)
    assert set(per_host.tolist()) == {6}


# -- engines: the mechanism shows where it should ---------------------------------------------
@pytest.mark.parametrize("engine", ["linux-md", "graid-supremeraid-sr1010", "xinnor-xiraid", "broadcom-megaraid-9560-16i",
                                    "ideal-raid"])
@pytest.mark.parametrize("rw, bs, jobs, iodepth", [("write", "1m", 1, 1), ("randread", "64k", 4, 8), ("randwrite", "16k", 4, 8)])
def test_a_mirror_has_no_strip(catalog, engine, rw, bs, jobs, iodepth):
    """Law: RAID1 has no chunks (mdadm refuses --chunk for it), so the strip a scenario gives
    changes nothing. md charged one request of CPU per strip: a 1 MiB write at QD1 on a 4 KiB
    "strip" ran at 303 MB/s against 6.75 GB/s on a 1 MiB one (8 KiB here, the smallest a MegaRAID
    virtual drive takes)."""
    results = [simulate_fluid(ArraySystem(spec, spec.workloads[0], catalog)) for spec in (
        small_array(catalog, engine=engine, level=1, drives=2, strip=strip, jobs=jobs, iodepth=iodepth, rw=rw, bs=bs)
        for strip in ("8KiB", "1MiB"))]  # strips every engine here takes (a MegaRAID virtual drive: 8 KiB to 1024 KiB)
    assert results[0].total_iops == results[1].total_iops > 0
    assert results[0].cpu_percent == results[1].cpu_percent


def test_sequential_clones_without_an_offset_increment_run_at_the_steady_rate(catalog):
    """fio starts every clone of a sequential job at ``offset``: in lockstep they queue at one member
    and only service-time noise drifts them apart. 256 clones of 128 KiB writes at QD1 on a
    10-drive RAID0 ran at 0.16 of the fluid mode's (steady) rate over 8,000 host I/Os, 0.99 over
    160,000; the event mode now starts them spread over a data stripe, as they end up."""
    spec = small_array(catalog, engine="xinnor-xiraid", level=0, drives=10, strip="512KiB", jobs=256, iodepth=1,
                       rw="write", bs="128k")
    system = ArraySystem(spec, spec.workloads[0], catalog)
    fluid, event = simulate_fluid(system), simulate_event(system, host_ios=8000)
    assert "NAND" in fluid.limited_by
    assert event.total_iops == pytest.approx(fluid.total_iops, rel=0.03)


def test_md_raid456_reads_are_capped_by_the_device_lock_and_every_job_spins(catalog):
    spec = scenario(f"{SEED000}/md-raid6-4k.yaml", catalog)
    system = ArraySystem(spec, workload(spec, "randread"), catalog)
    r = simulate_fluid(system)
    hold = system.engine.device_lock_us * 1e-6 * system.engine.shared_access_factor
    assert r.total_iops == pytest.approx(1 / hold, rel=0.01)
    assert r.limited_by.startswith("md spinlock")
    assert r.cpu_percent == pytest.approx(50.0, abs=1.0)  # 192 job threads spinning on 384 hardware threads


def test_md_lock_cost_grows_with_a_second_socket(catalog):
    one = small_array(catalog)
    sys1 = ArraySystem(one, one.workloads[0], catalog)
    from nvsim.scenario import parse_scenario
    pinned = parse_scenario({**one.model_dump(mode="json"), "placement": {"drive_sockets": [0] * 8, "job_sockets": [0]}}, catalog)
    sys0 = ArraySystem(pinned, pinned.workloads[0], catalog)
    factor = catalog.platforms[one.platform].cpu.cross_socket_line_factor.value
    assert sys1.engine.shared_access_factor == pytest.approx(1 + 0.5 * (factor - 1))  # half the submitters cross
    assert sys0.engine.shared_access_factor == 1.0
    b1 = sys1.batch(0, np.array([0], dtype=np.int64), np.array([False]))
    b0 = sys0.batch(0, np.array([0], dtype=np.int64), np.array([False]))
    assert b1.lock_s[0] > b0.lock_s[0]


def test_md_group_threads_leave_raid5d_in_every_written_stripes_path(catalog):
    """group_thread_cnt is accepted (a typed md setting) but raid5d stays the one stripe server:
    the bitmap unplug keeps it in every write's path, so eight workers leave random-write IOPS
    where raid5d alone has them (the workers' share of the rest is not modelled)."""
    from nvsim.scenario import parse_scenario
    base = small_array(catalog, rw="randwrite", jobs=16, iodepth=16)
    workers = parse_scenario({**base.model_dump(mode="json"),
                              "array": {**base.array.model_dump(mode="json"), "engine_settings": {"group_thread_cnt": 8}}}, catalog)
    alone = simulate_fluid(ArraySystem(base, base.workloads[0], catalog))
    eight = simulate_fluid(ArraySystem(workers, workers.workloads[0], catalog))
    assert alone.limited_by.startswith("md stripe thread")
    assert eight.total_iops == pytest.approx(alone.total_iops, rel=1e-9)


@pytest.mark.parametrize("job_sockets, nodes", [([0], 1), (None, 2)])
def test_md_group_threads_without_a_bitmap_share_the_stripes_per_numa_node(catalog, job_sockets, nodes):
    """Without a write-intent bitmap nothing holds a written stripe_head for raid5d: raid5's
    workers (group_thread_cnt on each NUMA node the jobs submit from) handle stripes beside it, so
    a random write bound by raid5d alone runs on 1 + cnt x nodes stripe servers, faster until
    another resource binds; the same workers with the bitmap change nothing."""
    from nvsim.scenario import parse_scenario

    def with_settings(settings):
        base = small_array(catalog, rw="randwrite", jobs=16, iodepth=16)
        raw = base.model_dump(mode="json")
        raw["array"] = {**raw["array"], "engine_settings": settings}
        if job_sockets is not None:
            raw["placement"] = {**raw.get("placement", {}), "job_sockets": job_sockets}
        spec = parse_scenario(raw, catalog)
        system = ArraySystem(spec, spec.workloads[0], catalog)
        return system.model.engine.server, simulate_fluid(system)

    (alone_server, alone), (one_server, one) = with_settings({"bitmap": "none"}), with_settings({"bitmap": "none", "group_thread_cnt": 1})
    (_, bitmap_workers), (_, bitmap_alone) = with_settings({"group_thread_cnt": 1}), with_settings({})
    assert (alone_server.servers, one_server.servers) == (1, 1 + nodes)
    assert alone.limited_by == "md stripe thread (raid5d)" and one.total_iops > 1.5 * alone.total_iops
    assert bitmap_workers.total_iops == pytest.approx(bitmap_alone.total_iops, rel=1e-9)


def test_md_group_threads_take_a_degraded_read_loads_stripes_whatever_the_bitmap(catalog):
    """The write-intent bitmap holds a stripe_head for raid5d only when a write sets a bit
    (STRIPE_BIT_DELAY, set in add_stripe_bio for a write): a read, which goes through the stripe
    cache while a member is missing, never touches the bitmap, so raid5's workers take the reads'
    stripes with a bitmap as without one. A degraded RAID5 of 8 D7-P5510 with an internal bitmap and
    8 workers read 4 KiB at random at raid5d's rate alone (the bitmap set raid5d as the one server
    for every load), several times below the same array without the bitmap."""
    from nvsim.scenario import parse_scenario

    def degraded_reads(settings):
        raw = small_array(catalog, rw="randread", jobs=16, iodepth=16).model_dump(mode="json")
        raw["array"] = {**raw["array"], "engine_settings": settings}
        raw["placement"] = {"job_sockets": [0]}
        spec = parse_scenario(raw, catalog)
        return simulate_fluid(ArraySystem(spec, spec.workloads[0], catalog, failed_members=(0,)))

    alone = degraded_reads({"bitmap": "internal"})
    workers = {bitmap: degraded_reads({"bitmap": bitmap, "group_thread_cnt": 8}) for bitmap in ("internal", "none")}
    assert alone.limited_by == "md stripe thread (raid5d)"
    assert workers["none"].total_iops > 1.5 * alone.total_iops
    assert workers["internal"].total_iops == pytest.approx(workers["none"].total_iops, rel=1e-9)


def test_md_stripe_workers_are_servers_of_the_event_mode_too(catalog):
    """raid5d and one worker (no bitmap, jobs on one socket): two stripe servers in both modes, so a
    random write bound by them runs at twice raid5d's rate alone, and the two modes agree."""
    from nvsim.scenario import parse_scenario
    rates = []
    for settings in ({"bitmap": "none"}, {"bitmap": "none", "group_thread_cnt": 1}):
        raw = small_array(catalog, rw="randwrite", jobs=16, iodepth=16).model_dump(mode="json")
        raw["array"] = {**raw["array"], "engine_settings": settings}
        raw["placement"] = {"job_sockets": [0]}
        spec = parse_scenario(raw, catalog)
        system = ArraySystem(spec, spec.workloads[0], catalog)
        fluid, event = simulate_fluid(system), simulate_event(system, host_ios=15_000)
        assert event.total_iops == pytest.approx(fluid.total_iops, rel=0.03)
        assert event.bottleneck_text.split(" at ")[0] == fluid.limited_by
        rates.append(fluid.total_iops)
    assert fluid.limited_by == "md stripe threads (raid5d and 1 worker)"
    assert rates[1] == pytest.approx(2 * rates[0], rel=0.02)


def test_gpu_raid_random_reads_stop_at_the_card_limit_and_drives_are_not_the_limit(catalog):
    spec = scenario(f"{SEED000}/scenario.yaml", catalog)
    r = simulate_fluid(ArraySystem(spec, workload(spec, "randread"), catalog))
    assert r.total_iops == pytest.approx(catalog.engines["graid-supremeraid-sr1010"].device.max_read_iops.value, rel=0.01)
    drives = next(u for u in r.utilisation if u.resource.startswith("drive NAND"))
    assert drives.utilisation < 0.6


def test_hardware_raid_reads_are_bounded_by_the_cards_own_link(catalog):
    spec = scenario(f"{SEED004}/hardware-raid5.yaml", catalog)
    r = simulate_fluid(ArraySystem(spec, workload(spec, "seqread"), catalog))
    assert "RAID card link PCIe Gen4 x8 to host" in r.limited_by
    from nvsim.bounds import engine_link
    link = engine_link(catalog.engines["broadcom-megaraid-9560-16i"], catalog.platforms[spec.platform], catalog)
    assert r.read_bytes_per_s == pytest.approx(link.nvme_data_bytes_per_s(128 * 1024, True), rel=0.02)


def test_lockless_engine_scales_with_cores_until_the_drives_bind(catalog):
    rates = []
    for jobs in (1, 2, 4):
        spec = small_array(catalog, engine="xinnor-xiraid", level=5, jobs=jobs, iodepth=64, drives=6)
        rates.append(simulate_fluid(ArraySystem(spec, spec.workloads[0], catalog)).total_iops)
    assert rates[1] == pytest.approx(2 * rates[0], rel=0.05)
    assert rates[2] == pytest.approx(4 * rates[0], rel=0.05)


def test_sequential_write_streams_coalesce_into_full_stripes_only_with_enough_in_flight(catalog):
    deep = small_array(catalog, level=5, drives=5, strip="128KiB", rw="write", bs="128k", iodepth=8, engine="linux-md")
    shallow = small_array(catalog, level=5, drives=5, strip="128KiB", rw="write", bs="128k", iodepth=1, engine="linux-md")
    waf_deep = simulate_fluid(ArraySystem(deep, deep.workloads[0], catalog)).raid_waf
    waf_shallow = simulate_fluid(ArraySystem(shallow, shallow.workloads[0], catalog)).raid_waf
    assert waf_deep == pytest.approx(5 / 4, rel=0.02)  # full stripes: parity is 1/4 of the data
    assert waf_shallow == pytest.approx(2.0, rel=0.02)  # each 128 KiB write rewrites its strip and the parity


def test_lockless_engine_has_no_stripe_cache_so_sub_stripe_writes_always_rewrite_parity(catalog):
    """Seed 001: 128 KiB writes on a 128 KiB strip read-modify-write (parity rewritten per strip)."""
    spec = small_array(catalog, level=5, drives=5, strip="128KiB", rw="write", bs="128k", iodepth=64, engine="xinnor-xiraid")
    assert simulate_fluid(ArraySystem(spec, spec.workloads[0], catalog)).raid_waf == pytest.approx(2.0, rel=0.02)
    whole = small_array(catalog, level=5, drives=5, strip="128KiB", rw="write", bs="512k", iodepth=64, engine="xinnor-xiraid")
    assert simulate_fluid(ArraySystem(whole, whole.workloads[0], catalog)).raid_waf == pytest.approx(1.25, rel=0.02)


def test_event_mode_reports_percentiles_in_order_and_a_confidence_interval(catalog):
    spec = small_array(catalog, rw="randread", jobs=2, iodepth=16)
    r = simulate_event(ArraySystem(spec, spec.workloads[0], catalog), host_ios=5000)
    lat = r.read_latency_us
    assert lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p99.9"]
    assert 0 < r.iops_ci95 < 0.2 * r.total_iops
    assert math.isclose(sum(1 for _ in r.utilisation), len({u.resource for u in r.utilisation}))
