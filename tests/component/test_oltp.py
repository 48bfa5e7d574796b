"""The OLTP transaction (nvsim.oltp): pure functions of the catalog profile, checked by hand.

Oracles: an LRU cache simulated here under uniform independent references (the buffer pool's
hit ratio), the sysbench OLTP_RW statement mix written in models/oltp/sysbench-oltp-rw.yaml and
the OltpProfileSpec docstring (what a transaction reads, dirties, flushes twice and commits), and
hand arithmetic for the CPU terms.
"""

from collections import OrderedDict

import numpy as np
import pytest

from nvsim.oltp import buffer_pool_hit_ratio_irm, runnable_thread_slowdown, transaction_io
from nvsim.platform import smt_capacity
from nvsim.specs import OltpProfileSpec, OltpSpec

R750 = "dell-poweredge-r750"  # 2 x 32 cores x 2 threads, 2.0 GHz base, 2.6 GHz all-core, 3.2 GHz max turbo


def cited(value):
    return {"value": value, "source": "test", "basis": "assumed"}


def round_profile(**changes) -> OltpProfileSpec:
    """A round-number profile: 20 leaf pages touched, 5 dirtied, 16 KiB pages, 1 MiB doublewrite
    batches, 4 KiB redo writes, 1000 us CPU at 3 GHz, 500 us client delay, contention 0.1."""
    values = {"page_bytes": "16KiB", "page_accesses_per_tx": 20, "pages_dirtied_per_tx": 5, "doublewrite": True,
              "doublewrite_batch_bytes": "1MiB", "log_write_bytes": "4KiB", "cpu_us_per_tx": 1000.0,
              "client_delay_us_per_tx": 500.0, "contention_per_excess_thread": 0.1, "reference_clock_ghz": 3.0}
    values.update(changes)
    return OltpProfileSpec(name="t", description="test", **{k: cited(v) for k, v in values.items()})


def lru_hit_ratio(pages: int, cached: int, references: int, seed: int = 0) -> float:
    """Hit ratio of an LRU cache of ``cached`` pages under uniform random references to ``pages``."""
    cache: OrderedDict[int, None] = OrderedDict()
    hits = 0
    for page in np.random.default_rng(seed).integers(0, pages, references).tolist():
        if page in cache:
            hits += 1
            cache.move_to_end(page)
        else:
            cache[page] = None
            if len(cache) > cached:
                cache.popitem(last=False)
    return hits / references


# --------------------------------------------------------------- the buffer pool

@pytest.mark.parametrize("cached", [100, 500, 1500])
def test_irm_hit_ratio_is_what_an_lru_cache_hits_under_uniform_references(cached):
    """Warm LRU cache, uniform references: it holds a uniform share of the pages, so it hits with
    probability pool / data (binomial error on 100,000 references: < 0.5%)."""
    pages = 2000
    assert lru_hit_ratio(pages, cached, 100_000) == pytest.approx(buffer_pool_hit_ratio_irm(cached, pages), abs=0.01)


def test_irm_hit_ratio_limits():
    assert buffer_pool_hit_ratio_irm(100, 100) == 1.0  # the whole data cached
    assert buffer_pool_hit_ratio_irm(300, 100) == 1.0  # a pool larger than the data hits no more often
    assert buffer_pool_hit_ratio_irm(0, 100) == 0.0
    assert buffer_pool_hit_ratio_irm(1, 1_000_000) == pytest.approx(1e-6)  # tiny pool: ~pool / data


# --------------------------------------------------------------- CPU

@pytest.mark.parametrize("busy, cores, threads_per_core, gain, expected", [
    (2, 4, 2, 1.3, 2.0),       # fewer threads than cores: one core each
    (4, 4, 2, 1.3, 4.0),
    (6, 4, 2, 1.3, 4.6),       # two siblings add 0.3 of a core each
    (8, 4, 2, 1.3, 5.2),       # every thread busy: cores x gain
    (20, 4, 2, 1.3, 5.2),      # more runnable threads than hardware threads add nothing
    (16, 4, 4, 1.6, 6.4),      # SMT4: 12 siblings add 0.6 / 3 each = cores x gain
    (6, 4, 1, 1.0, 4.0),       # no SMT
])
def test_smt_capacity_by_hand(busy, cores, threads_per_core, gain, expected):
    assert smt_capacity(busy, cores, threads_per_core, gain) == pytest.approx(expected)


def test_runnable_thread_slowdown_by_hand():
    assert runnable_thread_slowdown(64, 128, 0.1) == 1.0
    assert runnable_thread_slowdown(128, 128, 0.1) == 1.0
    assert runnable_thread_slowdown(256, 128, 0.1) == pytest.approx(1.1)  # one excess thread per hardware thread
    assert runnable_thread_slowdown(1024, 128, 0.1) == pytest.approx(1.7)


# --------------------------------------------------------------- one transaction

def test_catalog_profile_counts_are_the_sysbench_oltp_rw_statement_mix(catalog):
    """oltp_read_write: 10 point selects (10 leaf pages), 4 ranges of 100 rows (~1.5 leaves each: 6),
    an index update (PK + secondary k: 2), a non-index update (1), delete + insert (3) = 22 touched;
    dirtied: index update 2, non-index update 1, delete 1.5, insert 1.5 = 6."""
    p = catalog.oltp["sysbench-oltp-rw"]
    assert p.page_accesses_per_tx.value == 10 + 4 * 1.5 + 2 + 1 + 3
    assert p.pages_dirtied_per_tx.value == 2 + 1 + 1.5 + 1.5
    assert p.page_bytes.value == 16 * 1024  # InnoDB's page


def test_transaction_io_by_hand(catalog):
    """A quarter of the data cached: 3/4 of the 20 pages touched are read and 3/4 of the 5 dirtied
    are flushed, each also written to the doublewrite area (in 1 MiB batches); one redo write per
    commit; 64 users busy all 64 cores, which hold the 2.6 GHz all-core turbo: CPU is the 3 GHz
    figure x 3/2.6."""
    platform = catalog.platforms[R750]
    quarter = OltpSpec(dataset_bytes="100GB", buffer_pool_bytes="25GB")
    tx = transaction_io(round_profile(), quarter, 64, platform)
    assert tx.page_reads == pytest.approx(15.0)
    assert tx.page_flushes == pytest.approx(3.75)
    assert tx.doublewrite_batches * tx.doublewrite_batch_bytes == pytest.approx(3.75 * 16384)  # each flushed page twice
    assert tx.doublewrite_batches == pytest.approx(3.75 / 64)
    assert (tx.log_writes, tx.log_write_bytes, tx.page_bytes) == (1.0, 4096, 16384)
    assert tx.cpu_s == pytest.approx(1e-3 * 3.0 / 2.6)
    assert tx.client_delay_s == pytest.approx(0.5e-3)
    crowded = transaction_io(round_profile(), quarter, 256, platform)
    assert crowded.cpu_s == pytest.approx(1e-3 * 3.0 / 2.6 * 1.1)  # 256 users on 128 hardware threads
    alone = transaction_io(round_profile(), quarter, 1, platform)
    assert alone.cpu_s == pytest.approx(1e-3 * 3.0 / 3.2)  # one user: the 3.2 GHz maximum turbo
    plain = transaction_io(round_profile(doublewrite=False), quarter, 64, platform)
    assert plain.doublewrite_batches == 0.0 and plain.page_flushes == pytest.approx(3.75)


def test_a_pool_holding_all_the_data_reads_and_flushes_nothing(catalog):
    tx = transaction_io(round_profile(), OltpSpec(dataset_bytes="100GB", buffer_pool_bytes="100GB"), 64,
                        catalog.platforms[R750])
    assert tx.page_reads == tx.page_flushes == tx.doublewrite_batches == 0.0
    assert tx.log_writes == 1.0  # the commit still waits for its redo write


def test_oltp_transaction_follows_the_buffer_pool(catalog):
    profile = catalog.oltp["sysbench-oltp-rw"]
    platform = catalog.platforms["dell-poweredge-r750"]
    small = transaction_io(profile, OltpSpec(dataset_bytes=100e9, buffer_pool_bytes=10e9), 64, platform)
    big = transaction_io(profile, OltpSpec(dataset_bytes=100e9, buffer_pool_bytes=90e9), 64, platform)
    assert small.page_reads == pytest.approx(profile.page_accesses_per_tx.value * 0.9)
    assert big.page_reads == pytest.approx(profile.page_accesses_per_tx.value * 0.1)
    assert big.page_flushes < small.page_flushes
    crowded = transaction_io(profile, OltpSpec(dataset_bytes=100e9, buffer_pool_bytes=10e9), 1024, platform)
    assert crowded.cpu_s > small.cpu_s  # more runnable threads than hardware threads
