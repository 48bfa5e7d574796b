"""An OLTP database's users as the foreground class of the network (``mixed.py``).

Each user is a closed-loop client (sysbench ``--rate=0``): one cycle is one transaction -- its
CPU on the host cores (which md's threads share), its page reads and its commit's redo-log write
on the array, and the client's round trips (a pure delay). Page flushes and doublewrite batches
are background work at the transaction rate (an open class): they load drives and the engine but
no user waits for them. The transaction's make-up is nvsim.oltp's.
"""

from __future__ import annotations

import numpy as np

from ..array_capacity import drives_striped
from ..oltp import transaction_io
from ..platform import smt_capacity, smt_gain
from ..specs import WorkloadSpec
from .fluid import unloaded_latency_s, write_amplification
from .foreground import (burst_piece_s, cpu_percent, grouped_utilisation, limit, network_sample, piece_latency_s,
                         pooled_members, whole_array_shares)
from .network import io_demands, io_visits
from .result import SimResult, closed_loop_text
from .system import ArraySystem


class OltpLoad:
    def __init__(self, scenario, workload: WorkloadSpec, catalog, missing, seed, rebuilding=None, rebuilt_fraction=0.0,
                 rebuilt_step=0.0):
        self.scenario, self.workload, self.catalog = scenario, workload, catalog
        platform = catalog.platforms[scenario.platform]
        cpu = platform.cpu
        self.cores = platform.total_cores
        self.threads = self.cores * cpu.threads_per_core.value
        gain = smt_gain(cpu)
        users = int(workload.users)
        self.tx = transaction_io(catalog.oltp[workload.oltp.profile], workload.oltp, users, platform)
        busy = min(users, self.threads)
        self.speed = smt_capacity(busy, self.cores, cpu.threads_per_core.value, gain) / busy
        tx = self.tx

        def part(name, rw, bs, size=None):
            w = WorkloadSpec(name=f"{workload.name}:{name}", rw=rw, bs=bs, numjobs=self.threads, iodepth=1, size=size)
            system = ArraySystem(scenario, w, catalog, failed_members=missing, rebuilding=rebuilding,
                                 rebuilt_fraction=rebuilt_fraction, rebuilt_step=rebuilt_step, writes=True)
            return system, network_sample(system, seed)

        # The tables' pages are the data set's (``dataset_bytes``), not the whole array: the page
        # reads and flushes reach that share of each member (an active range: the drives' GC gives
        # the flushes the whole spare, nvsim.ftl.load), the rest holds other data or none.
        # Drives used directly (engine none, a card's pass-through) hold a share of the tables each:
        # a clone runs on one drive (clone j on drive j mod drives), its region that drive's share.
        data = int(workload.oltp.dataset_bytes)  # cut at the array's end, as fio cuts a size (job_region)
        if not drives_striped(scenario, catalog):
            data = -(-data // scenario.array.drives)
        self.read = part("page reads", "randread", tx.page_bytes, data)
        self.flush = part("page flushes", "randwrite", tx.page_bytes, data)
        self.dblwr = part("doublewrite", "write", tx.doublewrite_batch_bytes)
        self.log = part("redo log", "write", tx.log_write_bytes)
        self.system = self.read[0]

    def _d(self, net, part):
        return io_demands(part[0], net, part[1], whole_array_shares(part[0]))

    def _v(self, net, part):
        visits = io_visits(part[0], net, part[1])
        return visits if part[0].failed_members else pooled_members(net, visits)

    def demands(self, net):
        tx = self.tx
        self.d_read, self.d_log = self._d(net, self.read), self._d(net, self.log)
        self.d_flush, self.d_dblwr = self._d(net, self.flush), self._d(net, self.dblwr)
        demand = tx.page_reads * self.d_read + tx.log_writes * self.d_log
        self.visits = tx.page_reads * self._v(net, self.read) + tx.log_writes * self._v(net, self.log)
        self.cores_index = net.index("cores")
        self.visits[self.cores_index] += 1.0
        cpu_s = tx.cpu_s / self.speed
        demand[self.cores_index] += cpu_s
        self.r0_read = unloaded_latency_s(*self.read)
        self.r0_log = unloaded_latency_s(*self.log)
        base = tx.client_delay_s + cpu_s + tx.page_reads * self.r0_read + tx.log_writes * self.r0_log
        # a page read's member reads as their summed waits at mean NAND times: the OLTP profile's
        # client delay and CPU were fitted so (fio's class waits for the slowest: FioLoad.demands)
        self.wait_scale = np.ones(len(net))
        return demand, base, float(self.workload.users)

    other_busy = 0.0  # host CPUs kept busy by the RAID engine's own threads (md raid5d, resync)
    sync_wait = 0.0  # seconds a transaction waits for md's bitmap (the last solve's)
    sync_background = 0.0  # seconds a second md's thread sleeps on the page flushes' bitmap updates (the same)

    def _bit_writes(self, part, per_tx: float, x_tx: float, region_bytes: float | None = None) -> tuple[float, float]:
        """One write stream's (writes per transaction that set a clean bit of md's write-intent
        bitmap, seconds of the engine's thread each takes: ``ArrayModel.sync_update``) at
        ``x_tx`` transactions a second. Each stream's such writes share updates among themselves
        (a group commit); writes of two streams sharing one update are not counted, so the updates
        are the most they can be."""
        rate = x_tx * per_tx
        if rate <= 0:
            return 0.0, 0.0
        share, update_s = part[0].sync_update(rate, region_bytes)
        return per_tx * share, update_s

    def sync_wait_s(self, x_tx: float) -> float:
        """Seconds a transaction waits for md's write-intent bitmap: its commit waits for the redo
        log write, and a log write that enters a clean bitmap chunk waits for the update (a
        sequential stream: one per bitmap chunk's worth of log; the log is a ring, so this holds
        while the ring comes round more slowly than the bitmap daemon clears a chunk: seed 003's
        16 GiB of redo log at its rates, about every ten minutes). The page cleaners' writes wait
        too, but no user waits for them (``bitmap_background_s``)."""
        writes, each_s = self._bit_writes(self.log, self.tx.log_writes, x_tx)
        return writes * each_s

    def bitmap_background_s(self, x_tx: float) -> float:
        """Seconds a second md's thread spends on bitmap updates for writes no user waits for: the
        page flushes, random over the database's data (``dataset_bytes``), each setting a bit where
        its chunk has gone clean since the last write to it (``md_bitmap.dirty_fraction_random``).
        Open work at the engine's station, as the flushes are at the drives. The doublewrite
        batches set none: InnoDB rewrites its small doublewrite area in place with every batch
        (MySQL 8.0 manual, the doublewrite buffer), so its chunks never go clean."""
        flushes, flush_s = self._bit_writes(self.flush, self.tx.page_flushes, x_tx,
                                            float(self.workload.oltp.dataset_bytes))
        return x_tx * flushes * flush_s

    def thread_bound(self, net) -> tuple[float, float]:
        """Users are not bound to a core of their own (``network.ThreadQueue``): the pooled rule."""
        return 0.0, 1.0

    def servers(self, net):
        """The database's threads run on every hardware thread the RAID engine leaves them."""
        servers = net.servers.copy()
        servers[net.index("cores")] = max(1.0, float(self.threads) - self.other_busy / self.speed)
        return servers

    def open_utilisation(self, net, x_tx):
        tx = self.tx
        busy = x_tx * (tx.page_flushes * self.d_flush + tx.doublewrite_batches * self.d_dblwr)
        return busy / np.maximum(self.servers(net), 1.0)

    def barrier_pieces(self, net):
        """md RAID10 recovery (nvsim.sim.mixed.BarrierCycle): the md requests (one per chunk piece:
        raid10_make_request splits each bio and every piece calls wait_barrier) of a transaction's
        synchronous I/Os wait at the barrier; its page flushes and doublewrite batches pass it too
        (nobody waits for them, but they drain with the rest)."""
        tx, level = self.tx, self.scenario.array.level

        def pieces(part):
            return float(part[0].engine.barrier_requests(level, part[0].chunk_requests_per_io()))

        sync = tx.page_reads * pieces(self.read) + tx.log_writes * pieces(self.log)
        every = sync + tx.page_flushes * pieces(self.flush) + tx.doublewrite_batches * pieces(self.dblwr)
        demand = tx.page_reads * self.d_read + tx.log_writes * self.d_log \
            + tx.page_flushes * self.d_flush + tx.doublewrite_batches * self.d_dblwr
        return sync, every, burst_piece_s(net, demand, every), piece_latency_s(*self.read, pieces(self.read))

    def write_amplification(self) -> tuple[float, float]:
        """(RAID WAF: member bytes written over host bytes written, of the transaction's three write
        streams -- page flushes, doublewrite batches, redo log -- each at its own layout's ratio
        and weighed by its host bytes; the page flushes' NAND WAF, the random stream the drives'
        garbage collection works on)."""
        tx = self.tx
        streams = ((self.flush, tx.page_flushes * tx.page_bytes),
                   (self.dblwr, tx.doublewrite_batches * tx.doublewrite_batch_bytes),
                   (self.log, tx.log_writes * tx.log_write_bytes))
        host = member = 0.0
        for part, host_bytes in streams:
            ratio = write_amplification(part[0], part[1])[0] if host_bytes > 0 else float("nan")
            if ratio == ratio:
                host, member = host + host_bytes, member + ratio * host_bytes
        return (member / host if host else float("nan")), write_amplification(self.flush[0], self.flush[1])[1]

    def result(self, net, sol) -> SimResult:
        tx, x = self.tx, float(sol.throughput[0])
        util = np.minimum(1.0, sol.utilisation)
        writes = tx.page_flushes + tx.doublewrite_batches + tx.log_writes
        write_bytes = tx.page_flushes * tx.page_bytes + tx.doublewrite_batches * tx.doublewrite_batch_bytes \
            + tx.log_writes * tx.log_write_bytes
        raid_waf, waf_nand = self.write_amplification()
        grouped = grouped_utilisation(self.system, net, util)
        return SimResult(
            scenario=self.scenario.name, workload=self.workload.name, fidelity="fluid",
            read_iops=x * tx.page_reads, write_iops=x * writes,
            read_bytes_per_s=x * tx.page_reads * tx.page_bytes, write_bytes_per_s=x * write_bytes,
            cpu_percent=min(100.0, cpu_percent(self.system, net, sol,
                                               engine_asleep=x * self.sync_wait + self.sync_background)),
            raid_waf=raid_waf, waf_nand=waf_nand, utilisation=grouped, limited_by=limit(grouped),
            transactions_per_s=x, transaction_latency_us={"mean": float(sol.cycle_s[0]) * 1e6},
            closed_loop=closed_loop_text(self.workload),
        )


__all__ = ["OltpLoad"]
