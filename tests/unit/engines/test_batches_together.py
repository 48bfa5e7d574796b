"""Several jobs' batches priced as one (nvsim.sim.demand.host_io_batches, the event mode's first
batches of a many-job run): each job's batch is the one ``host_io_batch`` gives it alone, to the
bit, with its NAND times drawn from its own generator, on every kind of engine, level and strip,
with a member failed, and behind switches; where the engine adds member I/Os of its own (VROC's
partial parity log) the batches are priced one by one, and so are the same too."""

from dataclasses import fields

import numpy as np
import pytest

from nvsim.catalog import default_catalog
from nvsim.scenario import load_scenario
from nvsim.sim.demand import host_io_batch, host_io_batches, prices_alone
from nvsim.sim.memo import Memo
from nvsim.sim.model import build
from nvsim.sim.workload import named_rng
from nvsim.specs import WorkloadSpec

ROOT = __import__("pathlib").Path(__file__).resolve().parents[3] / "scenarios"
ARRAYS = {  # one shipped array for each kind of engine (its own strip), and a switch's uplinks
    "gpu": "graid-gen5-raid6/scenario.yaml",
    "md-raid6": "graid-gen5-raid6/md-raid6-4k.yaml",
    "md-raid5": "graid-gen5-raid5-16x/md-raid5.yaml",
    "card": "hardware-cards/smartraid-4300-raid5.yaml",
    "lockless": "xiraid-qlc-raid5/scenario.yaml",
    "vroc-ppl": "vroc-example/scenario.yaml",
    "ideal": "host-io-paths/scenario.yaml",
    "switches": "switch-uplink-gen5/scenario.yaml",
}
JOBS = [3, 4, 5, 9, 17]


def _model(name, rw, bs, strip_bytes, failed):
    catalog = default_catalog()
    spec = load_scenario(ROOT / ARRAYS[name], catalog)
    if strip_bytes:
        spec = spec.model_copy(update={"array": spec.array.model_copy(update={"strip_bytes": strip_bytes})})
    workload = WorkloadSpec(name="w", rw=rw, rwmixread=70, bs=bs, iodepth=4, numjobs=24)
    return build(spec, workload, catalog, failed_members=failed, memo=Memo())


def _batches(model, n=64):
    bs = model.workload.bs
    rng = np.random.default_rng(len(ARRAYS))
    offsets = [rng.integers(0, (model.geometry.capacity_bytes - bs) // bs, n).astype(np.int64) * bs for _ in JOBS]
    if model.workload.read_fraction >= 1.0:
        return offsets, [np.zeros(n, dtype=bool) for _ in JOBS]
    if model.workload.read_fraction <= 0.0:
        return offsets, [np.ones(n, dtype=bool) for _ in JOBS]
    return offsets, [rng.random(n) >= model.workload.read_fraction for _ in JOBS]


def _same(a, b):
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), f.name
        else:
            assert x == y, f.name


@pytest.mark.parametrize("name", sorted(ARRAYS))
@pytest.mark.parametrize("rw,bs,strip_bytes", [("randrw", 4096, None), ("randread", 16384, None),
                                               ("randwrite", 4096, 16384), ("randrw", 65536, 4096)])
@pytest.mark.parametrize("failed", [(), (1,)])
def test_batches_priced_together_are_each_jobs_own(name, rw, bs, strip_bytes, failed):
    model = _model(name, rw, bs, strip_bytes, failed)
    offsets, is_write = _batches(model)
    share = host_io_batch(model, JOBS[0], offsets[0], is_write[0]).nand_write_share
    rngs = [named_rng(1, "nand service times", job, 1) for job in JOBS]
    together = host_io_batches(model, JOBS, offsets, is_write, rngs, share, Memo())
    if name == "vroc-ppl" and any(w.any() for w in is_write):
        assert together is None  # its partial parity log's writes: priced one by one
        return
    assert prices_alone(model) and together is not None and len(together) == len(JOBS)
    for job, o, w, b in zip(JOBS, offsets, is_write, together):
        alone = host_io_batch(model, job, o, w, named_rng(1, "nand service times", job, 1), share, Memo())
        _same(b, alone)


def test_only_arrays_that_price_each_host_io_alone_are_priced_together():
    """RAID1/10 (their reads' balance follows the batch) and a stripe cache gathering a sequential
    stream's writes plan a batch as a whole: their batches are priced one by one."""
    catalog = default_catalog()
    spec = load_scenario(ROOT / ARRAYS["md-raid6"], catalog)
    mirror = spec.model_copy(update={"array": spec.array.model_copy(update={"level": 10})})
    random = WorkloadSpec(name="w", rw="randread", bs=4096, iodepth=4, numjobs=8)
    streams = WorkloadSpec(name="w", rw="write", bs=65536, iodepth=32, numjobs=8)
    assert prices_alone(build(spec, random, catalog, memo=Memo()))
    assert not prices_alone(build(mirror, random, catalog, memo=Memo()))
    assert not prices_alone(build(spec, streams, catalog, memo=Memo()))
