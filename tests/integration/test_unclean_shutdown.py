"""md's resync after an unclean shutdown (issue 37, deliverable 2): ``array.unclean_shutdown`` makes
``nvsim run`` report the span of each member md resyncs -- the write-intent bitmap's dirty chunks
when the power went, every member without one, nothing with VROC's partial parity log -- and the
resync's time, run as the engine's check over that span (``nvsim.rebuild.unclean_shutdown_summary``)."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nvsim.engines import md_bitmap
from nvsim.errors import InputError
from nvsim.rebuild import scrub_summary, unclean_shutdown_summary
from nvsim.scenario import load_scenario, parse_scenario

ROOT = Path(__file__).resolve().parents[2]
WITH_BITMAP = ROOT / "scenarios" / "unclean-shutdown" / "md-raid6.yaml"
NO_BITMAP = ROOT / "scenarios" / "unclean-shutdown" / "no-bitmap.yaml"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
MIB = 2**20


def _with(spec, workload=None, **array):
    update = {"array": spec.array.model_copy(update=array)}
    if workload is not None:
        update["workloads"] = (spec.workloads[0].model_copy(update=workload),)
    return spec.model_copy(update=update)


def test_without_a_bitmap_md_resyncs_every_member_whole():
    r = unclean_shutdown_summary(load_scenario(NO_BITMAP))
    assert r["bitmap"] == "none" and r["span_bytes"] == pytest.approx(3.84e12, rel=1e-3)
    whole = scrub_summary(load_scenario(NO_BITMAP))  # the same check over the whole member
    assert r["idle_hours"] == pytest.approx(whole["idle_hours"], rel=1e-9)


def test_with_mdadms_bitmap_only_the_chunks_the_writer_dirtied_are_resynced():
    """200 GB written at random over six data members of 64 MiB chunks: 200e9 / (6 x 64 MiB) = 497
    chunks, all dirty at thousands of writes a second, each 64 MiB of every member."""
    r = unclean_shutdown_summary(load_scenario(WITH_BITMAP))
    chunks = 200 * 2**30 / (6 * 64 * MIB)
    assert r["bitmap"] == "internal" and r["bitmap_chunk_bytes"] == 64 * MIB
    assert r["chunks"] == pytest.approx(chunks, rel=1e-6) and r["dirty_chunks"] == pytest.approx(chunks, rel=1e-3)
    assert r["span_bytes"] == pytest.approx(r["dirty_chunks"] * 64 * MIB, rel=1e-9)
    assert r["idle_hours"] < 0.02 * unclean_shutdown_summary(load_scenario(NO_BITMAP))["idle_hours"]


def test_a_slow_writer_leaves_fewer_chunks_dirty_than_it_touches():
    """At one write a second over 497 chunks a chunk is dirty while written within 7.5 s: the
    dirty count is chunks (1 - exp(-rate t / chunks)) at the rate the run predicts."""
    spec = _with(load_scenario(WITH_BITMAP), workload={"rate_iops": 1})
    r = unclean_shutdown_summary(spec)
    assert r["write_iops_at_crash"] == pytest.approx(1.0, rel=1e-3)
    assert r["dirty_chunks"] == pytest.approx(md_bitmap.dirty_chunks_random(r["write_iops_at_crash"], r["chunks"], 5.0))
    assert 5 < r["dirty_chunks"] < 10


def test_raid10s_bits_cover_array_addresses_spread_over_its_copies():
    """RAID10 on 8 drives, 2 copies: a 64 MiB chunk of array addresses lies on two members, 16 MiB
    of each member on average; 200 GB of array addresses is 200 GiB / 64 MiB = 3,200 chunks."""
    spec = load_scenario(WITH_BITMAP)
    r = unclean_shutdown_summary(_with(spec, level=10, strip_bytes=64 * 1024))
    assert r["chunks"] == pytest.approx(200 * 2**30 / (64 * MIB), rel=1e-6)
    assert r["span_bytes"] == pytest.approx(r["dirty_chunks"] * 64 * MIB * 2 / 8, rel=1e-9)


def test_vroc_with_the_partial_parity_log_resyncs_nothing():
    data = {"name": "v", "platform": "supermicro-sys-120u-tnr",
            "array": {"level": 5, "drive": "intel-d7-p5510-3.84tb", "drives": 4, "strip_bytes": "64KiB",
                      "engine": "intel-vroc", "engine_settings": {"consistency_policy": "ppl"}, "unclean_shutdown": True},
            "placement": {"job_sockets": [0]},
            "workloads": [{"name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 4}]}
    r = unclean_shutdown_summary(parse_scenario(data))
    assert r["span_bytes"] == 0.0 and r["idle_hours"] == 0.0 and "partial parity log" in r["why"]


@pytest.mark.parametrize("array, says", [
    ({"level": 0}, "RAID0"),
    ({"engine": "broadcom-megaraid-9670w-16i", "strip_bytes": "64KiB"}, "broadcom-megaraid-9670w-16i"),
])
def test_an_unclean_shutdown_md_does_not_resync_is_refused_in_one_line(array, says):
    data = {"name": "u", "platform": "dell-poweredge-r750",
            "array": {"level": 6, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "engine": "linux-md",
                      "unclean_shutdown": True, **array},
            "workloads": [{"name": "w", "rw": "randwrite", "bs": "4k"}]}
    with pytest.raises(InputError) as error:
        parse_scenario(data)
    assert "array: unclean_shutdown:" in str(error.value) and says in str(error.value) and "\n" not in str(error.value)


def test_nvsim_run_reports_it_in_json_and_on_the_terminal(tmp_path):
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", str(WITH_BITMAP), "--fidelity", "fluid", "--json",
                          "-o", str(out)], env=ENV, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    resync = json.loads(out.read_text())["resilience"]["unclean_shutdown"]
    assert resync["bitmap"] == "internal" and resync["span_bytes"] > 0
    text = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", str(WITH_BITMAP), "--fidelity", "fluid"], env=ENV,
                          capture_output=True, text=True, timeout=600)
    assert text.returncode == 0 and "Resync after an unclean shutdown" in text.stdout and "dirty chunks" in text.stdout


@pytest.mark.parametrize("path", [WITH_BITMAP, NO_BITMAP])
@pytest.mark.parametrize("workload", [{"rw": "randread"}, {"rw": "read", "bs": 131072}])
def test_an_array_that_was_only_read_comes_back_clean(path, workload):
    """md marks its superblock active only on a write (md_write_start) and clean again after
    safe_mode_delay: a crash under reads leaves nothing to resync, bitmap or not (it resynced every
    member without one, and one chunk under a sequential reader with one)."""
    r = unclean_shutdown_summary(_with(load_scenario(path), workload))
    assert r["write_iops_at_crash"] == 0 and r["span_bytes"] == 0 and r["idle_hours"] == 0
    assert "no writes" in r["why"]


def test_a_writer_in_the_first_workloads_phase_counts_whichever_comes_first():
    """The jobs of a phase run together: the write rate at the crash is theirs, whatever their order."""
    spec = load_scenario(WITH_BITMAP)
    writer = spec.workloads[0].model_copy(update={"phase": "p"})
    reader = writer.model_copy(update={"name": "r", "rw": "randread", "bs": 4096, "iodepth": 32, "numjobs": 4})
    first_reader = unclean_shutdown_summary(spec.model_copy(update={"workloads": (reader, writer)}))
    first_writer = unclean_shutdown_summary(spec.model_copy(update={"workloads": (writer, reader)}))
    assert first_reader["write_iops_at_crash"] == pytest.approx(first_writer["write_iops_at_crash"], rel=1e-9)
    assert first_reader["write_iops_at_crash"] > 0 and first_reader["span_bytes"] == first_writer["span_bytes"] > 0
    assert first_reader["workload_at_crash"] == first_writer["workload_at_crash"] == "p"  # the phase wrote, not its reader


def test_the_resync_under_load_runs_beside_the_whole_phase():
    """Under load the resync and the host's rates are those of every job of the first workload's
    phase (they run together), named by the phase: a reader beside the writer takes its IOPS."""
    spec = load_scenario(WITH_BITMAP)
    writer = spec.workloads[0].model_copy(update={"phase": "p"})
    reader = writer.model_copy(update={"name": "r", "rw": "randread", "bs": 4096, "iodepth": 32, "numjobs": 4})
    both = unclean_shutdown_summary(spec.model_copy(update={"workloads": (writer, reader)}))
    alone = unclean_shutdown_summary(spec)
    assert both["workload"] == "p" and alone["workload"] == writer.name
    assert both["host_iops_optimal"] > 2 * alone["host_iops_optimal"]  # the reader's reads with the writer's writes
    assert both["loaded_hours"] >= alone["loaded_hours"]


def test_a_write_larger_than_a_bitmap_chunk_dirties_every_chunk_it_covers():
    """md_bitmap_startwrite sets a bit in each chunk a write covers: 1 MiB random writes over
    100 GB of a RAID1 resync what the last 7.5 s wrote whatever the chunk, 4 KiB or 1 MiB (until
    2026-12-01 a 4 KiB chunk counted one bit per write and resynced 0.08 GB of 19.5). A bitmap
    file's chunks: on 3.84 TB members mdadm takes no internal chunk under 4 MiB (super1.c)."""
    base = _with(load_scenario(WITH_BITMAP), workload={"rw": "randwrite", "bs": MIB, "iodepth": 4, "numjobs": 1,
                                                      "size": 100 * 10**9}, level=1, drives=2)
    spans = {}
    for chunk in (4096, MIB):
        settings = base.array.engine_settings | {"bitmap": "external", "bitmap_chunk_bytes": chunk}
        r = unclean_shutdown_summary(_with(base, engine_settings=settings))
        spans[chunk] = r["span_bytes"]
        written = r["write_iops_at_crash"] * MIB * md_bitmap.clear_after_s(5.0)  # over 100 GB, some twice
        assert r["span_bytes"] == pytest.approx(100e9 * (1 - math.exp(-written / 100e9)), rel=0.02)
    assert spans[4096] == pytest.approx(spans[MIB], rel=0.06)


def test_chunks_per_write_and_the_share_of_writes_that_set_a_clean_bit():
    assert md_bitmap.chunks_per_write(4096, 64 * MIB) == 1.0 and md_bitmap.chunks_per_write(MIB, 4096) == 256.0
    one = md_bitmap.dirty_fraction_random(1000.0, 5000.0, 5.0)
    assert md_bitmap.dirty_fraction_random_writes(1000.0, 5000.0, 5.0, 1.0) == one
    many = md_bitmap.dirty_fraction_random_writes(1000.0, 5000.0, 5.0, 8.0)
    clean = md_bitmap.dirty_fraction_random(8000.0, 5000.0, 5.0)
    assert many == pytest.approx(1 - (1 - clean) ** 8) and many > clean


def _raid1(drives, bitmap="none", limit_kib=None):
    rebuild = {} if limit_kib is None else {"rebuild": {"speed_limit_min_kib_per_s": limit_kib,
                                                        "speed_limit_max_kib_per_s": limit_kib}}
    return parse_scenario({"name": "r1", "platform": "dell-poweredge-r750",
                           "array": {"level": 1, "drive": "intel-d7-p5510-3.84tb", "drives": drives,
                                     "strip_bytes": "64KiB", "engine": "linux-md", "unclean_shutdown": True,
                                     "engine_settings": {"bitmap": bitmap}, **rebuild},
                           "placement": {"job_sockets": [0]},
                           "workloads": [{"name": "rw", "rw": "randwrite", "bs": "16k", "iodepth": 4,
                                          "size": "200G"}]})


@pytest.mark.parametrize("drives", [2, 3])
def test_md_raid1s_resync_reads_one_copy_and_writes_every_other(drives):
    """raid1_sync_request with MD_RECOVERY_SYNC (not a user's check) reads read_disk only, and
    sync_request_write writes that copy to every other mirror: N - 1 members written over the
    span, no compare, no raid5d (until 2026-12-01 it ran the read-only check)."""
    r = unclean_shutdown_summary(_raid1(drives))
    p = r["protocol"]
    assert p["operation"] == "resync" and p["reads"] == "one copy" and p["writes"] == "the other copies"
    assert p["writes_member"] is True and "raid5d" not in p["parity_on"] and "raid1d" in p["parity_on"]
    assert "raid5d" not in p["degraded"]["read_through"]
    assert r["member_bytes_written"] == pytest.approx((drives - 1) * r["span_bytes"], rel=1e-9)


def test_md_raid1s_resync_writes_load_the_other_mirror_and_the_host():
    """With md's limits out of the way the resync runs at what the written mirror's NAND takes
    (64 KiB sequential writes, below the two mirrors' reads that bound the check), and under the
    random writer it takes far more of the host's rate than a read-only compare would."""
    resync = unclean_shutdown_summary(_raid1(2, limit_kib=40_000_000))
    check = scrub_summary(_raid1(2, limit_kib=40_000_000), span_bytes=resync["span_bytes"])
    assert resync["idle_mb_per_s"] < check["idle_mb_per_s"]
    assert "drive NAND" in resync["idle_limited_by"]
    assert resync["host_share"] < 0.5 * check["host_share"]


def test_raid10_and_raid6_still_resync_with_the_check():
    spec = load_scenario(WITH_BITMAP)
    assert unclean_shutdown_summary(spec)["protocol"]["operation"] == "check"
    r10 = unclean_shutdown_summary(_with(spec, level=10, strip_bytes=64 * 1024))
    assert r10["protocol"]["operation"] == "check" and r10["member_bytes_written"] == 0.0
    assert "raid10d" in r10["protocol"]["parity_on"] and "raid5d" not in r10["protocol"]["parity_on"]
