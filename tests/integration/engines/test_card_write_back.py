"""A hardware RAID card's write-back cache (``array.engine_settings.write_policy``): a write is
acknowledged once its data is in the card's DRAM (its command and the data's DMA over the card's
link), its read-modify-write and drive writes destage after; only while the destage keeps up: a
load above the destage rate fills the cache and runs at that rate, as write-through does."""

from __future__ import annotations

import pytest
import yaml

import nvsim
from nvsim.catalog import default_catalog
from nvsim.errors import InputError
from nvsim.scenario import load_scenario
from nvsim.sim.event import simulate_event
from nvsim.sim.fluid import sample_batches
from nvsim.sim.system import ArraySystem

QD1_WRITE = nvsim.WorkloadSpec(name="qd1-w", rw="randwrite", bs=4096, numjobs=1, iodepth=1, ioengine="libaio")
QD1_READ = nvsim.WorkloadSpec(name="qd1-r", rw="randread", bs=4096, numjobs=1, iodepth=1, ioengine="libaio")
SATURATED = nvsim.WorkloadSpec(name="sat-w", rw="randwrite", bs=4096, numjobs=128, iodepth=64, ioengine="libaio")
DRIVE_BOUND = nvsim.WorkloadSpec(name="mirror-w", rw="randwrite", bs=4096, numjobs=4, iodepth=8, ioengine="libaio")


def _scenario(tmp_path, policy: str | None, level: int = 5, drives: int = 16,
              engine: str = "broadcom-megaraid-9670w-16i") -> str:
    array = {"level": level, "drive": "kioxia-cm7-r-3.84tb", "drives": drives, "strip_bytes": "256KiB", "engine": engine}
    if policy is not None:
        array["engine_settings"] = {"write_policy": policy}
    path = tmp_path / f"{engine}-{level}-{drives}-{policy}.yaml"
    path.write_text(yaml.safe_dump({"name": "card-cache", "platform": "asus-rs520a-e12-rs24u", "array": array,
                                    "workloads": [{"name": "w", "rw": "randwrite", "bs": "4k"}], "seed": 1}))
    return str(path)


def _fluid(path: str, workload) -> nvsim.Result:
    return nvsim.Simulation(path, workload).run("fluid")


def test_a_qd1_write_back_write_is_acknowledged_from_the_cache(tmp_path):
    """RAID5 QD1 4 KiB writes: write-through waits for the read-modify-write on the drives (about
    56 us); write-back for the card's command and the data's DMA into its DRAM, well below, and at
    least those two; the family's default (MegaRAID: write-back) is write-back."""
    back, through = (_fluid(_scenario(tmp_path, p), QD1_WRITE).simulation for p in ("write_back", "write_through"))
    default = _fluid(_scenario(tmp_path, None), QD1_WRITE).simulation
    assert default.write_latency_us == back.write_latency_us
    assert back.write_latency_us["mean"] < 0.2 * through.write_latency_us["mean"]
    system = ArraySystem(load_scenario(_scenario(tmp_path, "write_back")), QD1_WRITE, default_catalog())
    b = sample_batches(system, 1)[0]
    floor_s = float((b.ack_s + b.device_down_s)[b.is_write].min())
    assert floor_s > 0 and back.write_latency_us["mean"] >= floor_s * 1e6
    assert b.ack_s.max() <= b.pre_s.min()  # the command is part of the card's work, not added to it


def test_saturated_writes_and_reads_are_the_same_in_both_policies(tmp_path):
    """Above the destage rate the cache is full: the rate is the card's (the destage's) either way;
    reads never touch the write cache."""
    for workload in (SATURATED, QD1_READ):
        back, through = (_fluid(_scenario(tmp_path, p), workload).metrics() for p in ("write_back", "write_through"))
        assert back["total_iops"] == pytest.approx(through["total_iops"], rel=1e-12), workload.name
    reads = [_fluid(_scenario(tmp_path, p), QD1_READ).simulation.read_latency_us for p in ("write_back", "write_through")]
    assert reads[0] == reads[1]


@pytest.mark.parametrize("level,drives,workload", [(5, 16, QD1_WRITE), (10, 4, DRIVE_BOUND)],
                         ids=["card-bound-qd1", "drive-bound"])
def test_the_event_mode_takes_the_fluid_modes_regime(tmp_path, level, drives, workload):
    """The cache full at QD1 (RAID5: the card's processor retires 308K writes a second, fewer than
    the acknowledgements would offer: the writes wait for room at the destage's pace) and on four
    drives' NAND (RAID10 at 4 x QD8, which saturates the drives in write-through too: the
    write-through path): both modes give the destage rate, within 5%."""
    path = _scenario(tmp_path, "write_back", level=level, drives=drives)
    fluid = _fluid(path, workload)
    event = simulate_event(ArraySystem(load_scenario(path), workload, default_catalog()), host_ios=8000)
    assert event.write_iops == pytest.approx(fluid.metrics()["write_iops"], rel=0.05)
    through = _fluid(_scenario(tmp_path, "write_through", level=level, drives=drives), workload).metrics()
    assert fluid.metrics()["write_iops"] >= through["write_iops"]


def test_a_write_back_run_gives_the_same_bits_for_the_same_seed(tmp_path):
    mix = nvsim.WorkloadSpec(name="mix", rw="randrw", rwmixread=70, bs=4096, numjobs=4, iodepth=4, ioengine="libaio")
    system = ArraySystem(load_scenario(_scenario(tmp_path, "write_back")), mix, default_catalog())
    first, second = (simulate_event(system, host_ios=4000) for _ in range(2))
    assert (first.read_iops, first.write_iops, first.read_latency_us, first.write_latency_us) == \
        (second.read_iops, second.write_iops, second.read_latency_us, second.write_latency_us)


def test_write_back_on_a_card_with_no_cache_is_refused_in_one_line(tmp_path):
    """The SmartRAID 4300 passes no host data through itself (its family's default: write-through)."""
    load_scenario(_scenario(tmp_path, None, engine="microchip-smartraid-4300"))
    with pytest.raises((InputError, ValueError)) as refused:
        load_scenario(_scenario(tmp_path, "write_back", engine="microchip-smartraid-4300"))
    message = str(refused.value)
    assert "write_policy" in message and "allowed: write_through" in message and "\n" not in message.strip()


def test_a_saturated_event_run_is_the_same_in_both_policies(tmp_path):
    """Where the host's loop saturates the destage even waiting for every write's drives, the
    event mode's write-back writes take the write-through path: the same bits in both policies."""
    runs = [simulate_event(ArraySystem(load_scenario(_scenario(tmp_path, p, level=10, drives=4)), DRIVE_BOUND,
                                       default_catalog()), host_ios=4000) for p in ("write_back", "write_through")]
    assert (runs[0].write_iops, runs[0].write_latency_us) == (runs[1].write_iops, runs[1].write_latency_us)
