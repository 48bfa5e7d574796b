"""An OLTP database's users as the foreground class of the network (``mixed.py``).

Each user is a closed-loop client (sysbench ``--rate=0``): one cycle is one transaction -- its
CPU on the host cores (which md's threads share), its page reads and its commit's redo-log write
on the array, and the client's round trips (a pure delay). Page flushes and doublewrite batches
are background work at the transaction rate (an open class): they load drives and the engine but
no user waits for them. The transaction's make-up is nvsim.oltp's.
"""

from __future__ import annotations

import numpy as np

from ..oltp import smt_capacity, transaction_io
from ..specs import WorkloadSpec
from .fluid import unloaded_latency_s, write_amplification
from .network import io_demands, io_visits
from .result import SimResult
from .system import ArraySystem


class OltpLoad:
    def __init__(self, scenario, workload: WorkloadSpec, catalog, missing, seed, overrides):
        from .mixed import _sample
        self.scenario, self.workload, self.catalog = scenario, workload, catalog
        platform = catalog.platforms[scenario.platform]
        cpu = platform.cpu
        self.cores = cpu.sockets * cpu.cores_per_socket.value
        self.threads = self.cores * cpu.threads_per_core.value
        gain = cpu.smt_throughput_gain.value if cpu.smt_throughput_gain else 1.0
        users = int(workload.users)
        self.tx = transaction_io(catalog.oltp[workload.oltp.profile], workload.oltp, users, platform, overrides.get("oltp"))
        busy = min(users, self.threads)
        self.speed = smt_capacity(busy, self.cores, cpu.threads_per_core.value, gain) / busy
        tx = self.tx

        def part(name, rw, bs):
            w = WorkloadSpec(name=f"{workload.name}:{name}", rw=rw, bs=bs, numjobs=self.threads, iodepth=1)
            system = ArraySystem(scenario, w, catalog, failed_members=missing,
                                 engine_overrides=overrides.get("engine"), host_io_overrides=overrides.get("host_io"))
            return system, _sample(system, seed)

        self.read = part("page reads", "randread", tx.page_bytes)
        self.flush = part("page flushes", "randwrite", tx.page_bytes)
        self.dblwr = part("doublewrite", "write", tx.doublewrite_batch_bytes)
        self.log = part("redo log", "write", tx.log_write_bytes)
        self.system = self.read[0]
        self.sync_ios_per_cycle = tx.page_reads + tx.log_writes

    def _d(self, net, part):
        return io_demands(part[0], net, part[1])

    def demands(self, net):
        tx = self.tx
        self.d_read, self.d_log = self._d(net, self.read), self._d(net, self.log)
        self.d_flush, self.d_dblwr = self._d(net, self.flush), self._d(net, self.dblwr)
        demand = tx.page_reads * self.d_read + tx.log_writes * self.d_log
        self.visits = tx.page_reads * io_visits(self.read[0], net, self.read[1]) \
            + tx.log_writes * io_visits(self.log[0], net, self.log[1])
        self.cores_index = net.index("cores")
        self.visits[self.cores_index] += 1.0
        cpu_s = tx.cpu_s / self.speed
        demand[self.cores_index] += cpu_s
        self.r0_read = unloaded_latency_s(*self.read)
        self.r0_log = unloaded_latency_s(*self.log)
        base = tx.client_delay_s + cpu_s + tx.page_reads * self.r0_read + tx.log_writes * self.r0_log
        return demand, base, float(self.workload.users)

    other_busy = 0.0  # host CPUs kept busy by the RAID engine's own threads (md raid5d, resync)

    def servers(self, net):
        """The database's threads run on every hardware thread the RAID engine leaves them."""
        servers = net.servers.copy()
        servers[net.index("cores")] = max(1.0, float(self.threads) - self.other_busy / self.speed)
        return servers

    def open_utilisation(self, net, x_tx):
        tx = self.tx
        busy = x_tx * (tx.page_flushes * self.d_flush + tx.doublewrite_batches * self.d_dblwr)
        return busy / np.maximum(self.servers(net), 1.0)

    def time_share(self, sol, hold: float, batch_s: float) -> None:
        """md RAID10 recovery: for ``hold`` of the time the barrier is up and each md request of
        a user's synchronous I/Os (one per chunk it spans: raid10_make_request splits the bio and
        each piece calls wait_barrier on its own) waits for the end of a recovery batch
        (``batch_s``) and the foreground I/O drained before it."""
        from .mixed import _scale
        tx, level = self.tx, self.scenario.array.level
        requests = tx.page_reads * self.read[0].engine.barrier_requests(level, self.read[0].chunk_requests_per_io()) \
            + tx.log_writes * self.log[0].engine.barrier_requests(level, self.log[0].chunk_requests_per_io())
        free = float(sol.throughput[0])
        cycle_free = float(sol.cycle_s[0])
        io_s = self.sync_io_latency_s(sol)
        cycle_held = cycle_free + requests * (batch_s + io_s)
        x = (1 - hold) * free + hold * float(self.workload.users) / cycle_held
        _scale(sol, x / free if free > 0 else 0.0)

    def sync_io_latency_s(self, sol):
        """A synchronous I/O's mean latency: unloaded, plus the queueing its cycle meets outside the
        host cores (the cores' queue is the transaction's CPU, not the I/O's)."""
        waiting = np.delete(sol.waiting_s[0], self.cores_index)
        return self.r0_read + float(waiting.sum()) / max(self.sync_ios_per_cycle, 1.0)

    def result(self, net, sol) -> SimResult:
        from .mixed import _cpu_percent, _grouped_utilisation, _limit
        tx, x = self.tx, float(sol.throughput[0])
        util = np.minimum(1.0, sol.utilisation)
        writes = tx.page_flushes + tx.doublewrite_batches + tx.log_writes
        write_bytes = tx.page_flushes * tx.page_bytes + tx.doublewrite_batches * tx.doublewrite_batch_bytes \
            + tx.log_writes * tx.log_write_bytes
        raid_waf, nand_waf = write_amplification(self.flush[0], self.flush[1])
        grouped = _grouped_utilisation(self.system, net, util)
        return SimResult(
            scenario=self.scenario.name, workload=self.workload.name, fidelity="fluid",
            read_iops=x * tx.page_reads, write_iops=x * writes,
            read_bytes_per_s=x * tx.page_reads * tx.page_bytes, write_bytes_per_s=x * write_bytes,
            cpu_percent=min(100.0, _cpu_percent(self.system, net, sol)),
            raid_waf=raid_waf, nand_waf=nand_waf, utilisation=grouped, limited_by=_limit(grouped),
            transactions_per_s=x, transaction_latency_us={"mean": float(sol.cycle_s[0]) * 1e6},
        )


__all__ = ["OltpLoad"]
