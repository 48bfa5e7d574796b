"""An OLTP database's transaction as the array sees it (pure functions of the catalog profile).

A sysbench-like transaction touches ``page_accesses_per_tx`` leaf pages; under uniform keys an LRU
buffer pool holding a fraction f of the data hits with probability f (the independent reference
model: every page equally likely, so the cache holds a uniform share of them), so
``page_accesses x (1 - f)`` pages are read from the array and waited for. Pages it changes are
flushed later by the page cleaners: a page read in and then dirtied is written back once before
it leaves the pool, so ``pages_dirtied x (1 - f)`` random page writes per transaction, each also
written to the doublewrite area first (sequential batches). The commit waits for one redo-log
write (innodb_flush_log_at_trx_commit=1). docs/models/oltp.md has the derivations and sources.
"""

from __future__ import annotations

from dataclasses import dataclass

from .platform import active_core_clock_ghz
from .specs import OltpProfileSpec, OltpSpec, PlatformSpec


@dataclass(frozen=True)
class TransactionIo:
    """Per transaction: page reads waited for, page flushes and doublewrite batches (background),
    redo-log writes waited for, and CPU seconds at the clock ``users`` busy threads leave the cores."""

    page_bytes: int
    page_reads: float
    page_flushes: float
    doublewrite_batches: float
    doublewrite_batch_bytes: int
    log_writes: float
    log_write_bytes: int
    cpu_s: float
    client_delay_s: float


def buffer_pool_hit_ratio_irm(buffer_pool_bytes: int, dataset_bytes: int) -> float:
    """Hit ratio of an LRU cache under uniform, independent references: the cached fraction."""
    return min(1.0, max(0.0, buffer_pool_bytes / dataset_bytes))


def runnable_thread_slowdown(users: int, hardware_threads: int, contention_per_excess_thread: float) -> float:
    """CPU time per transaction grows with runnable threads beyond the hardware threads (context
    switches, mutex spinning): 1 + c x (users - threads) / threads, and 1 below."""
    excess = max(0, users - hardware_threads) / hardware_threads
    return 1.0 + contention_per_excess_thread * excess


def transaction_io(profile: OltpProfileSpec, spec: OltpSpec, users: int, platform: PlatformSpec) -> TransactionIo:
    """What one transaction asks of the array and the CPUs."""
    values = {k: float(getattr(profile, k).value) for k in ("cpu_us_per_tx", "client_delay_us_per_tx",
                                                           "contention_per_excess_thread")}
    miss = 1.0 - buffer_pool_hit_ratio_irm(spec.buffer_pool_bytes, spec.dataset_bytes)
    page = int(profile.page_bytes.value)
    flushes = profile.pages_dirtied_per_tx.value * miss
    batch = int(profile.doublewrite_batch_bytes.value)
    cpu = platform.cpu
    cores = platform.total_cores
    threads = cores * cpu.threads_per_core.value
    clock_scale = profile.reference_clock_ghz.value / active_core_clock_ghz(cpu, min(users, cores), cores)
    slowdown = runnable_thread_slowdown(users, threads, values["contention_per_excess_thread"])
    return TransactionIo(
        page_bytes=page, page_reads=profile.page_accesses_per_tx.value * miss, page_flushes=flushes,
        doublewrite_batches=flushes * page / batch if profile.doublewrite.value else 0.0, doublewrite_batch_bytes=batch,
        log_writes=1.0, log_write_bytes=int(profile.log_write_bytes.value),
        cpu_s=values["cpu_us_per_tx"] * 1e-6 * clock_scale * slowdown, client_delay_s=values["client_delay_us_per_tx"] * 1e-6,
    )


__all__ = ["TransactionIo", "transaction_io", "buffer_pool_hit_ratio_irm", "runnable_thread_slowdown"]
