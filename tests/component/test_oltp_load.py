"""The OLTP load (nvsim.sim.oltp_load through nvsim.sim.mixed.solve_state): MySQL users as a
closed loop on the array, on its own.

Oracles: Little's law (users = transactions/s x transaction time), the asymptotic bounds of a
closed network (no faster than with no queueing; no faster than the host CPUs can run the
transactions' CPU), the drives' datasheet QD1 latencies (a lone user's transaction waits at least
for its page reads and its redo write), and a light load scaling with the users.
"""

import pytest

from nvsim.oltp import transaction_io
from nvsim.platform import smt_capacity
from nvsim.scenario import load_scenario, parse_scenario
from nvsim.sim.mixed import solve_state
from nvsim.simulation import Simulation

SR_RAID10 = "scenarios/graid-mysql-oltp/sr-raid10.yaml"  # seed 003: SupremeRAID RAID10, 8 drives, 128 threads


def with_users(scenario, users: int):
    """The scenario's first OLTP workload with ``users`` clients."""
    return scenario.workloads[0].model_copy(update={"users": users, "name": f"users-{users}"})


@pytest.fixture(scope="module")
def sr_raid10(catalog):
    return load_scenario(SR_RAID10, catalog)


@pytest.fixture(scope="module")
def by_users(sr_raid10, catalog):
    """The optimal state's result at each user count."""
    return {u: solve_state(sr_raid10, with_users(sr_raid10, u), catalog) for u in (1, 2, 8, 32, 64, 256, 1024)}


def test_littles_law_users_are_transactions_per_second_times_transaction_time(by_users):
    for users, r in by_users.items():
        assert r.transactions_per_s * r.transaction_latency_us["mean"] * 1e-6 == pytest.approx(users, rel=1e-3)


def test_a_light_load_scales_with_the_users(by_users, sr_raid10, catalog):
    """While nothing is near saturation each user adds a lone user's rate, its transaction's CPU at
    the clock the busy cores hold (fewer users: a higher clock, nvsim.platform.active_core_clock_ghz)."""
    platform = catalog.platforms[sr_raid10.platform]

    def cpu_s(users):
        w = with_users(sr_raid10, users)
        return transaction_io(catalog.oltp[w.oltp.profile], w.oltp, users, platform).cpu_s

    lone_s = 1.0 / by_users[1].transactions_per_s  # Little's law: one user's transaction time
    for users in (2, 8, 32):
        assert max(u.utilisation for u in by_users[users].utilisation) < 0.5
        expected = users / (lone_s - cpu_s(1) + cpu_s(users))
        assert by_users[users].transactions_per_s == pytest.approx(expected, rel=0.02)
    assert by_users[32].transactions_per_s < 32 * by_users[1].transactions_per_s  # 32 busy cores hold less than one


def test_transactions_grow_with_users_until_a_resource_saturates(by_users):
    users = sorted(by_users)
    tps = [by_users[u].transactions_per_s for u in users]
    busiest = [max(x.utilisation for x in by_users[u].utilisation) for u in users]
    for i in range(1, len(users)):
        if busiest[i] < 0.9:
            assert tps[i] > tps[i - 1], users[i]
    assert busiest[-1] > 0.99  # 1024 users on 128 hardware threads


def test_closed_loop_bounds(by_users, sr_raid10, catalog):
    """X <= N / (client delay + CPU) (no queueing and no I/O time), and X <= what the host's hardware
    threads can run: smt_capacity / CPU per transaction (every transaction's CPU on them)."""
    platform = catalog.platforms[sr_raid10.platform]
    cpu = platform.cpu
    cores, per_core, gain = cpu.sockets * cpu.cores_per_socket.value, cpu.threads_per_core.value, \
        cpu.smt_throughput_gain.value
    for users, r in by_users.items():
        w = with_users(sr_raid10, users)
        tx = transaction_io(catalog.oltp[w.oltp.profile], w.oltp, users, platform)
        assert r.transactions_per_s <= users / (tx.client_delay_s + tx.cpu_s) * (1 + 1e-9)
        capacity = smt_capacity(min(users, cores * per_core), cores, per_core, gain)
        assert r.transactions_per_s <= capacity / tx.cpu_s * (1 + 1e-9)


def test_a_lone_users_transaction_waits_for_its_page_reads_and_its_commit(by_users, sr_raid10, catalog):
    """One user, nothing queued: at least client delay + CPU + page reads x the drive's QD1 read
    latency + one redo write x its QD1 write latency (datasheet figures)."""
    w = with_users(sr_raid10, 1)
    platform = catalog.platforms[sr_raid10.platform]
    tx = transaction_io(catalog.oltp[w.oltp.profile], w.oltp, 1, platform)
    drive = catalog.drives[sr_raid10.array.drive]
    floor_s = tx.client_delay_s + tx.cpu_s + tx.page_reads * drive.read_latency_us.value * 1e-6 \
        + tx.log_writes * drive.write_latency_us.value * 1e-6
    latency_s = by_users[1].transaction_latency_us["mean"] * 1e-6
    assert floor_s <= latency_s < 1.5 * floor_s


def test_oltp_users_are_a_closed_loop(catalog):
    data = {"name": "t", "platform": "dell-poweredge-r750",
            "array": {"level": 10, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "strip_bytes": "4KiB",
                      "engine": "graid-supremeraid-sr1010"},
            "workloads": [{"name": f"u{u}", "rw": "oltp", "users": u,
                           "oltp": {"dataset_bytes": "100GB", "buffer_pool_bytes": "32GB"}} for u in (1, 8, 64)]}
    s = parse_scenario(data, catalog)
    results = [solve_state(s, w, catalog) for w in s.workloads]
    tps = [r.transactions_per_s for r in results]
    assert tps[0] < tps[1] < tps[2]
    for w, r in zip(s.workloads, results):  # Little's law: users = TPS x transaction time
        assert r.transactions_per_s * r.transaction_latency_us["mean"] * 1e-6 == pytest.approx(w.users, rel=1e-6)
    # one user: the transaction's own time, no queueing
    assert tps[0] == pytest.approx(1.0 / (results[0].transaction_latency_us["mean"] * 1e-6))


MD_RAID10 = "scenarios/graid-mysql-oltp/md-raid10.yaml"  # seed 003: md RAID10 (kernel 5.4, raid10d), 8 drives


def md_database(catalog, dataset: str, **bitmap):
    """Seed 003's md RAID10 with 64 users on a database of ``dataset`` bytes and the bitmap ``bitmap``."""
    import yaml

    with open(MD_RAID10) as f:
        data = yaml.safe_load(f)
    data["array"]["engine_settings"] = {**data["array"].get("engine_settings", {}), **bitmap}
    first = data["workloads"][0]
    data["workloads"] = [{**first, "users": 64, "oltp": {**first["oltp"], "dataset_bytes": dataset}}]
    scenario = parse_scenario(data, catalog)
    return scenario, scenario.workloads[0]


def raid10d_busy(result) -> float:
    return next((u.utilisation for u in result.utilisation if "raid10d" in u.resource), 0.0)


def test_page_flushes_set_bitmap_bits_on_md_thread_as_md_bitmap_law_says(catalog):
    """A database's page flushes are random writes over its data: where its bitmap chunks go clean
    between writes (a large database, small chunks) each flush that meets one sets a bit, and md's
    thread (raid10d) writes the update; no user waits for a flush, so its busy share is open work
    at the transaction rate: x (flushes x their bit share x each one's update), the law of
    ``ArrayModel.sync_update`` over the data's span; the commit's log write, sequential, sets one
    bit per chunk's worth of log."""
    from nvsim.sim.oltp_load import OltpLoad

    scenario, workload = md_database(catalog, "12TB", bitmap="internal", bitmap_chunk_bytes="16MiB")  # mdadm's least here
    result = solve_state(scenario, workload, catalog)
    load = OltpLoad(scenario, workload, catalog, (), scenario.seed)
    x, tx = result.transactions_per_s, load.tx
    share, update_s = load.flush[0].sync_update(x * tx.page_flushes, 12e12)
    assert 0.05 < share < 1.0
    log_share, log_update_s = load.log[0].sync_update(x * tx.log_writes)
    expected = x * (tx.page_flushes * share * update_s + tx.log_writes * log_share * log_update_s)
    assert raid10d_busy(result) == pytest.approx(expected, rel=1e-3)  # the doublewrite area: always dirty
    assert load.sync_wait_s(x) == pytest.approx(tx.log_writes * log_share * log_update_s)


def test_the_bitmap_thread_works_less_with_larger_chunks_a_smaller_database_or_no_bitmap(catalog):
    """More data per bit: fewer chunks, each written more often, so fewer go clean (fewer
    updates); a database whose chunks are all written within the daemon's clearing period (seed
    003's 100 GB at its rates, 1,490 chunks of 64 MiB) sets next to none; no bitmap, no updates. The users do not wait for the flushes'
    updates: while md's thread has time to spare the rate is that of the bitmap's lock holds alone, and
    the thread's time on them is asleep on a page write, no CPU."""
    def run(dataset, **bitmap):
        scenario, workload = md_database(catalog, dataset, **bitmap)
        return solve_state(scenario, workload, catalog)

    small = run("12TB", bitmap="internal", bitmap_chunk_bytes="16MiB")  # the least mdadm takes for 15.36 TB of RAID10
    large = run("12TB", bitmap="internal", bitmap_chunk_bytes="64MiB")
    assert raid10d_busy(small) > 2 * raid10d_busy(large) > 0.0
    assert raid10d_busy(run("100GB", bitmap="internal", bitmap_chunk_bytes="64MiB")) < 1e-3
    assert raid10d_busy(run("12TB", bitmap="none")) == 0.0
    assert small.transactions_per_s == pytest.approx(large.transactions_per_s, rel=1e-3)
    assert small.cpu_percent == pytest.approx(large.cpu_percent, rel=1e-3)  # md's thread asleep on them: no CPU



def test_page_flushes_wear_the_data_sets_share_of_each_drive(catalog):
    """The tables' pages are the data set's: a database of 1% of the array flushes its pages over
    that share of each member, and the drives' GC gives those writes the whole spare (an active
    range): NAND WAF near 1, where one filling the array runs at the drive's steady state (the
    greedy closed form at its own spare factor); in between, in order."""
    from nvsim.ftl import waf_greedy_desnoyers2012
    from nvsim.sim.system import ArraySystem
    from nvsim.specs import WorkloadSpec

    def waf(dataset):
        scenario, workload = md_database(catalog, dataset)
        return solve_state(scenario, workload, catalog).waf_nand

    scenario, _ = md_database(catalog, "100GB")
    drive = ArraySystem(scenario, WorkloadSpec(name="w", rw="randwrite", bs=16384), catalog).drive.ssd
    usable = 8 * 3.84e12 / 2  # RAID10 of 8 x 3.84 TB
    small, half, whole = waf("150GB"), waf(f"{usable / 2:.0f}"), waf(f"{usable:.0f}")
    assert 1.0 <= small < 1.05 < half < whole
    assert whole == pytest.approx(waf_greedy_desnoyers2012(drive.spare_factor), rel=0.02)


def test_drives_used_directly_hold_a_share_of_the_tables_each(catalog):
    """A database on drives used directly (engine none) spreads its tables over them, as its users'
    page reads are: each of 4 drives holds a quarter of the data set, so its flushes' active range
    (and NAND WAF) is a RAID0 of the same 4 drives' (no engine, the same share of each member), and a
    data set of three drives' worth is stored (it was refused as larger than one drive, and one that
    fit was worn as if every drive held all of it: NAND WAF 1.62 for 1 TB on 4 x 3.84 TB, a single
    drive's figure for 1 TB, where RAID0 gave 1.05)."""
    import yaml

    with open(MD_RAID10) as f:
        data = yaml.safe_load(f)
    first = data["workloads"][0]

    def run(engine, dataset):
        array = {"level": 0, "drive": "intel-d7-p5510-3.84tb", "drives": 4, "engine": engine}
        if engine != "none":
            array["strip_bytes"] = "64KiB"
        rest = {k: v for k, v in data.items() if k not in ("array", "placement", "workloads")}
        scenario = parse_scenario({**rest, "array": array, "workloads": [
            {**first, "users": 64, "oltp": {**first["oltp"], "dataset_bytes": dataset}}]}, catalog)
        return Simulation(scenario, scenario.workloads[0], catalog=catalog).run("fluid")  # the region checked too

    jbod, raid0 = run("none", "1TB"), run("linux-md", "1TB")
    assert jbod.waf_nand == pytest.approx(raid0.waf_nand, rel=1e-6) and jbod.waf_nand < 1.1
    assert run("none", "11TB").transactions_per_s > 0  # 2.9 drives' worth of tables on 4 drives


def test_raid_waf_is_member_bytes_over_host_bytes_of_all_three_write_streams(catalog):
    """RAID WAF is member bytes written over host bytes written, over the transaction's page
    flushes, doublewrite batches and redo-log writes. md RAID6 of 8 drives, 64 KiB chunks, by hand:
    a 16 KiB flush or a 4 KiB log write (inside one chunk) writes its data, P and Q: 3x; three 1 MiB
    doublewrite batches in a row cover 8 rows of 6 x 64 KiB, the first and third 22 chunks for their
    16 (two whole rows, 4 chunks of the next and its P and Q), the second 24: 68/48. A flush and its
    doublewrite copy are the same host bytes (it was 3.00, the flushes' ratio alone, which the wear
    figures then charged to every written byte)."""
    import yaml

    with open(MD_RAID10) as f:
        data = yaml.safe_load(f)
    data["array"] = {**data["array"], "level": 6, "strip_bytes": "64KiB"}
    data["workloads"] = data["workloads"][:1]
    scenario = parse_scenario(data, catalog)
    result = solve_state(scenario, scenario.workloads[0], catalog)
    miss = 1 - 32000 * 2**20 / 100e9  # seed 003's 32,000 MiB pool over 100 GB
    flushed = 6 * miss * 16384  # bytes of page flushes per transaction, and of their doublewrite copies
    expected = (3 * flushed + 68 / 48 * flushed + 3 * 4096) / (2 * flushed + 4096)
    assert result.raid_waf == pytest.approx(expected, rel=1e-9)
