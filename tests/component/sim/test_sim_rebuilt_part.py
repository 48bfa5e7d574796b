"""The part of a member already rebuilt (``ArraySystem(rebuilding=, rebuilt_fraction=)``): host I/Os
below it are planned with the member there (the engines read and write the rows a rebuild has
passed, md's ``recovery_offset``), the rest degraded around it; ``interleave`` puts the two parts'
demands back in the I/Os' order. The timeline solves a rebuild under load in steps of its span."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.catalog import default_catalog
from nvsim.rebuild import PROGRESS_STEPS, progress_step, run_timeline
from nvsim.scenario import parse_scenario
from nvsim.sim.demand import HOST_FIELDS, OP_FIELDS, interleave
from nvsim.sim.memo import Memo
from nvsim.sim.system import ArraySystem
from nvsim.simulation import Simulation
from nvsim.specs import WorkloadSpec
from nvsim.states import ArrayState

CATALOG = default_catalog()
MIX = WorkloadSpec(name="mix", rw="randrw", rwmixread=70, bs=4096, numjobs=8, iodepth=16)


def _drives(engine: str, level: int) -> int:
    """Six, or two for a RAID1 on an engine that mirrors two drives only (a MegaRAID's RAID 1)."""
    refused = level == 1 and CATALOG.engine_class(engine).copies_refusal(CATALOG.engines[engine], 1, 6) is not None
    return 2 if refused else 6


def _scenario(engine: str, level: int = 5, faults: bool = False, workloads=None):
    data = {"name": "rebuilt-part", "platform": "asus-rs520a-e12-rs24u",
            "array": {"level": level, "drive": "kioxia-cm7-r-3.84tb", "drives": _drives(engine, level), "strip_bytes": "64KiB",
                      "engine": engine, "hot_spares": 1},
            "workloads": workloads if workloads is not None else [MIX.model_dump(exclude_defaults=True)], "seed": 3}
    if faults:
        data["faults"] = [{"at_s": 0, "drive": 0, "action": "fail"}]
    return parse_scenario(data, CATALOG)


def _columns(batch) -> dict[str, np.ndarray]:
    return {name: getattr(batch, name) for name in HOST_FIELDS + OP_FIELDS + ("op_start", "op_runs")}


@given(engine=st.sampled_from(["linux-md", "graid-supremeraid-sr1010", "xinnor-xiraid", "broadcom-megaraid-9560-16i"]),
       level=st.sampled_from([1, 5, 6, 10]), seed=st.integers(0, 2**16), split=st.integers(0, 2**16))
@settings(deadline=None, max_examples=25)
def test_interleaving_two_parts_prices_each_io_as_one_batch_does(engine, level, seed, split):
    """An I/O's demands do not depend on which batch priced it: the I/Os of one batch split at
    random, each part priced alone at the first part's write share and interleaved back, give the
    whole batch's every column (member I/Os grouped by host I/O in the same order). A mirror's
    reads take their copies in turn over a batch (its read balance), so there only which copy
    each read took may differ."""
    if level not in CATALOG.engines[engine].levels:
        return
    system = ArraySystem(_scenario(engine, level), MIX, CATALOG, memo=Memo())
    rng = np.random.default_rng(seed)
    offsets = rng.integers(0, 1 << 30, 200, dtype=np.int64) // 4096 * 4096
    is_write = rng.random(200) < 0.3
    whole = system.batch(0, offsets, is_write)
    part = np.random.default_rng(split).random(200) < 0.4
    a, b = np.flatnonzero(~part), np.flatnonzero(part)
    merged = interleave(system.batch(0, offsets[a], is_write[a]), a, system.batch(0, offsets[b], is_write[b]), b)
    for name, column in _columns(whole).items():
        if name != "op_drive" or level not in (1, 10):
            assert np.array_equal(column, getattr(merged, name)), name


@pytest.mark.parametrize("engine", ["linux-md", "graid-supremeraid-sr1010"])
def test_the_rebuilt_part_is_read_and_written_where_the_rest_is_reconstructed(engine):
    """Rebuilt to its end, the member takes its reads and writes as on a whole array (no I/O reads
    a row's survivors to rebuild it); not rebuilt at all, none reaches it; half way, the I/Os at
    offsets below half the device reach it and those above it do not. md stays degraded
    throughout (every read a stripe_head: no chunk_aligned_read while ``mddev->degraded``)."""
    scenario = _scenario(engine)
    rng = np.random.default_rng(1)
    device = ArraySystem(scenario, MIX, CATALOG).device_bytes
    offsets = rng.integers(0, device // 4096, 400, dtype=np.int64) * 4096
    is_write = rng.random(400) < 0.3
    whole = ArraySystem(scenario, MIX, CATALOG).batch(0, offsets, is_write)

    def batch(fraction):
        return ArraySystem(scenario, MIX, CATALOG, failed_members=(0,), rebuilding=0,
                           rebuilt_fraction=fraction).batch(0, offsets, is_write)

    done, none, half = batch(1.0), batch(0.0), batch(0.5)
    assert np.array_equal(done.op_drive, whole.op_drive) and np.array_equal(done.op_bytes, whole.op_bytes)
    assert not (none.op_drive == 0).any() and (done.op_drive == 0).any()
    hosts = np.repeat(np.arange(len(offsets)), np.diff(half.op_start))
    on_member = np.zeros(len(offsets), dtype=bool)
    on_member[hosts[half.op_drive == 0]] = True
    assert on_member.any() and not (on_member & (offsets >= device / 2)).any()
    if engine == "linux-md":
        reads = ~is_write
        assert (done.pre_s[reads] > 0).all() and not (whole.pre_s[reads] > 0).any()


def _states(engine: str, fidelity: str) -> tuple[list, object]:
    scenario = _scenario(engine)

    def run(state):
        return Simulation(scenario, MIX, catalog=CATALOG, state=state).run(fidelity, host_ios=20_000)

    return [run(ArrayState((0,), 0, rebuilt_fraction=f)) for f in (0.0, 0.5, 1.0)], run(ArrayState())


@pytest.mark.parametrize("engine", ["linux-md", "broadcom-megaraid-9560-16i"])
@pytest.mark.parametrize("fidelity", ["fluid", "event"])
def test_where_reconstruction_binds_the_host_gains_as_the_rebuild_passes(engine, fidelity):
    """md's stripe thread and a card's processor reconstruct every degraded read and write: the
    fewer reach the missing part, the faster the host, never above the whole array's rate (md
    stays degraded to its end: its reads keep the stripe cache's path)."""
    states, whole = _states(engine, fidelity)
    iops = [r.total_iops for r in states]
    assert iops[0] < iops[1] < iops[2] <= whole.total_iops * 1.02


@pytest.mark.parametrize("fidelity", ["fluid", "event"])
def test_the_new_members_host_writes_slow_a_rebuild_that_fills_it(fidelity):
    """xiRAID's rebuild runs at its share of its own rate, near the new member's write limit: the
    host writes its rebuilt part takes slow the rebuild (and the host's I/O waits behind the fill,
    so the host loses too), where a rebuild with the member to itself ran faster."""
    states, _whole = _states("xinnor-xiraid", fidelity)
    rates = [r.rebuild_bytes_per_s for r in states]
    assert rates[0] > rates[1] > rates[2] > 0
    assert states[2].total_iops < states[0].total_iops


def test_the_state_at_the_start_of_a_rebuild_is_unchanged_by_the_rebuilt_part():
    """A rebuild's first state (nothing rebuilt yet) prices every I/O degraded: the same bits as a
    system with no rebuilt part."""
    scenario = _scenario("linux-md")
    rng = np.random.default_rng(2)
    offsets = rng.integers(0, 1 << 30, 100, dtype=np.int64) // 4096 * 4096
    is_write = rng.random(100) < 0.3
    plain = ArraySystem(scenario, MIX, CATALOG, failed_members=(0,)).batch(0, offsets, is_write)
    started = ArraySystem(scenario, MIX, CATALOG, failed_members=(0,), rebuilding=0).batch(0, offsets, is_write)
    for name, column in _columns(plain).items():
        assert np.array_equal(column, getattr(started, name)), name


@given(done=st.floats(0.0, 1.0), span=st.floats(1e6, 1e14))
def test_progress_steps_cover_the_span_in_order(done, span):
    """The step a rebuild is in holds its progress; the state is solved at the step's middle."""
    fraction, end = progress_step(done * span, span, under_load=True)
    step = round(fraction * PROGRESS_STEPS - 0.5)
    assert 0 <= step < PROGRESS_STEPS and end == pytest.approx(span * (step + 1) / PROGRESS_STEPS)
    assert done * span <= end * (1 + 1e-9) and (step == 0 or done * span >= span * step / PROGRESS_STEPS * (1 - 1e-9))
    assert progress_step(done * span, span, under_load=False) == (0.0, span)


def _with_span(scenario, span_bytes):
    return scenario.model_copy(update={"array": scenario.array.model_copy(
        update={"rebuild": scenario.array.rebuild.model_copy(update={"span_bytes": span_bytes})})})


@pytest.mark.parametrize("engine", ["linux-md", "graid-supremeraid-sr1010"])
def test_a_rebuild_under_load_runs_in_steps_and_the_host_gains_with_each(engine):
    """Under a workload the rebuild's segments end at each step of the member (exactly) and the host
    rate rises from step to step; idle, one segment."""
    scenario = _scenario(engine, faults=True)
    member = float(ArraySystem(scenario, MIX, CATALOG).capacity.member_bytes)
    loaded = run_timeline(scenario, scenario.workloads[0], CATALOG)
    rebuilding = [s for s in loaded.segments if s.state == "rebuilding"]
    assert [s.rebuilt_bytes_at_end for s in rebuilding] == pytest.approx([(k + 1) * member / PROGRESS_STEPS
                                                                          for k in range(PROGRESS_STEPS)])
    iops = [s.foreground_iops for s in rebuilding]
    assert all(a < b for a, b in zip(iops, iops[1:]))
    assert loaded.rebuilds[0].bytes_rebuilt == member and loaded.rebuilds[0].end_s == rebuilding[-1].end_s
    idle = run_timeline(scenario, None, CATALOG)
    assert len([s for s in idle.segments if s.state == "rebuilding"]) == 1


def test_a_rebuild_of_a_span_gives_the_host_back_only_that_span():
    """``rebuild.span_bytes`` rebuilds the member's first bytes only (md's sync_max: recovery_offset
    stops there), so host I/O above them stays degraded: a 4 GiB span of a 3.84 TB member leaves the
    host's rate at the degraded state's in every step. The span's steps were taken as shares of the
    whole device: md RAID5 of 6 CM7-R under the 70/30 mix rose step by step as if the whole member
    were coming back, and the new member took host writes over that share."""
    scenario = _with_span(_scenario("linux-md", faults=True), 4 << 30)
    loaded = run_timeline(scenario, scenario.workloads[0], CATALOG)
    rebuilding = [s for s in loaded.segments if s.state == "rebuilding"]
    assert len(rebuilding) == PROGRESS_STEPS
    member = float(ArraySystem(scenario, MIX, CATALOG).capacity.member_bytes)
    share = (4 << 30) / member
    iops = [s.foreground_iops for s in rebuilding]
    assert iops[-1] == pytest.approx(iops[0], rel=10 * share)
    whole = run_timeline(_scenario("linux-md", faults=True), scenario.workloads[0], CATALOG)
    assert [s.foreground_iops for s in whole.segments if s.state == "rebuilding"][-1] > iops[-1] * 1.05
    record = loaded.rebuilds[0]
    host_writes = sum(s.foreground_iops * (1 - MIX.read_fraction) * MIX.bs * (s.end_s - s.start_s) for s in rebuilding)
    assert record.host_bytes_to_member <= 2 * host_writes * share  # a RAID5 write's two member writes, at most


def _fluid_at(scenario, workload, fraction):
    return Simulation(scenario, workload, catalog=CATALOG, state=ArrayState((0,), 0, rebuilt_fraction=fraction)).run("fluid")


def test_the_fluid_sample_takes_the_share_of_the_jobs_region_rebuilt():
    """A job's I/Os in the rebuilt part are its region's share there (its clones' regions against
    the device's first part), not the sample's offsets against a stand-in region: a sequential
    reader spread over the device gained all at the first step, a reader at 93% of it at 87.5%."""
    spread = {"name": "spread", "rw": "read", "bs": "128k", "iodepth": 16, "numjobs": 8, "size": "3TB",
              "offset_increment": "3TB", "ioengine": "libaio"}
    # QD4: at QD16 the job's own core binds, degraded or whole (the event mode's 138,160 IOPS both ways)
    last = {"name": "last", "rw": "read", "bs": "128k", "iodepth": 4, "numjobs": 1, "offset": "25TB", "ioengine": "libaio"}
    scenario = _scenario("graid-supremeraid-sr1010", workloads=[spread, last]).model_copy(
        update={"array": _scenario("graid-supremeraid-sr1010").array.model_copy(update={"drives": 8})})
    spread_w, last_w = scenario.workloads
    rates = [_fluid_at(scenario, spread_w, f).total_iops for f in (0.0, 0.125, 0.375, 0.625, 0.875)]
    assert all(a < b for a, b in zip(rates, rates[1:]))
    assert ArraySystem(scenario, spread_w, CATALOG, failed_members=(0,), rebuilding=0,
                       rebuilt_fraction=0.125).rebuilt_share == pytest.approx(3.3625e12 / 24e12, rel=0.02)
    device = ArraySystem(scenario, last_w, CATALOG).device_bytes
    assert 25e12 / device > 0.9
    at = [_fluid_at(scenario, last_w, f).total_iops for f in (0.0, 0.875, 1.0)]
    assert at[0] == at[1] < at[2]


def test_a_state_part_rebuilt_lies_between_the_two_whole_states():
    """The two parts are priced with one write share (the two models' in proportion), so a state
    part rebuilt is no faster than both ends (the first part priced set it: a card 4% above both)."""
    scenario = _scenario("broadcom-megaraid-9670w-16i")
    small = MIX.model_copy(update={"numjobs": 4, "iodepth": 4})
    ends = [_fluid_at(scenario, small, f).total_iops for f in (0.0, 1.0)]
    for f in (0.5, 0.875, 0.99):
        assert _fluid_at(scenario, small, f).total_iops <= max(ends) * 1.005


def test_a_state_standing_for_a_step_averages_the_edge_over_it():
    """A job on the device's first 12% in the step from 0 to 25% rebuilt: all its I/Os were in the
    rebuilt part at the step's middle; over the step the edge passes it half way, so its share is
    the step's mean, 1 - 2 x 0.12, and its rate lies between the two ends."""
    scenario = _scenario("linux-md")
    device = ArraySystem(scenario, MIX, CATALOG).device_bytes
    region = MIX.model_copy(update={"size": int(0.12 * device) // 4096 * 4096})
    share = ArraySystem(scenario, region, CATALOG, failed_members=(0,), rebuilding=0, rebuilt_fraction=0.125,
                        rebuilt_step=0.25).rebuilt_share
    assert share == pytest.approx(1 - 2 * 0.12, abs=0.01)
    assert ArraySystem(scenario, region, CATALOG, failed_members=(0,), rebuilding=0,
                       rebuilt_fraction=0.125).rebuilt_share == 1.0

    def rate(fraction, step=0.0):
        state = ArrayState((0,), 0, rebuilt_fraction=fraction, rebuilt_step=step)
        return Simulation(scenario, region, catalog=CATALOG, state=state).run("fluid").total_iops

    assert rate(0.0) < rate(0.125, 0.25) < rate(0.125)


def test_the_new_members_host_writes_are_its_share_of_the_members_written():
    """The host writes that land on the new member are the member writes of the rows rebuilt,
    spread over the survivors and the new member's part (its role in those rows), not over the
    survivors alone: an md RAID1 of 2 CM7-R under 4 KiB random writes rebuilding its second copy
    writes every host write below the rebuild's edge to the new member once, so it takes the host's
    writes times the share rebuilt. Divided by the one survivor, the rows rebuilt, which write both
    copies, counted twice there: 1.65x."""
    writes = {"name": "rw", "rw": "randwrite", "bs": "4k", "iodepth": 4, "numjobs": 2, "ioengine": "libaio"}
    scenario = _scenario("linux-md", level=1, faults=True, workloads=[writes])
    scenario = scenario.model_copy(update={"array": scenario.array.model_copy(update={"drives": 2})})
    timeline = run_timeline(scenario, scenario.workloads[0], CATALOG)
    member = float(ArraySystem(scenario, scenario.workloads[0], CATALOG).capacity.member_bytes)
    expected = 0.0
    for s in (s for s in timeline.segments if s.state == "rebuilding"):
        share = (2 * s.rebuilt_bytes_at_end - member / PROGRESS_STEPS) / (2 * member)  # the step's mean share rebuilt
        expected += s.foreground_iops * 4096 * (s.end_s - s.start_s) * share
    assert timeline.rebuilds[0].host_bytes_to_member == pytest.approx(expected, rel=0.02)
