"""Fluid (analytic) mode: the same per-I/O demands as the event simulator, as rates.

Each resource r with c_r servers and mean demand D_r seconds per host I/O caps the throughput at
c_r / D_r; the closed loop of N = numjobs x iodepth I/Os caps it at N / R0 (R0: latency with no
queueing, Little's law; each phase of a host I/O waits for the expected slowest of its member
reads, a fork-join over their NAND time's spread). X = min of all; the resource at the minimum is
the bottleneck. Mean latency is N / X (each direction's: its own unloaded latency and its share of the
queueing wait by the waits it sits through, ``latency_by_direction_us``). A spinning lock at saturation keeps every job core busy.
The sample of host I/Os holds the workload's read share exactly (``exact_mix``).
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import replace

import numpy as np

from ..units import format_jobs
from .. import fabric
from ..host_io import busy_cpus_with_polling
from ..ssd.latency import NAND_SERVICE_CV
from ..stripe.layout import data_members, parity_members
from .result import SimResult, Utilisation
from .stripe_wait import waiting_cpus
from .system import ArraySystem, HostIoBatch, phase_runs
from .demand import read_stream
from .workload import HostStream, named_rng

SAMPLE_REGION_BYTES = 1 << 40
"""The sample's offsets fall in the first TiB of the array: every layout repeats long before, and
set-ups that differ only in drive size or namespace then share one plan (a sweep's common case)."""


def sample_batches(system: ArraySystem, seed: int) -> list[HostIoBatch]:
    """One job's sample of host I/Os (``ArraySystem.sample_size``): jobs of an array are alike, so
    one job shows every member-I/O pattern; the drives' load is averaged over the members."""
    return [system.batch(0, *sample_ios(system, seed), frame_bytes=min(system.device_bytes, SAMPLE_REGION_BYTES))]


def sample_ios(system: ArraySystem, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``sample_batches``' host I/Os (offsets, directions), remembered by what shapes them."""
    region = min(system.device_bytes, SAMPLE_REGION_BYTES)
    w = system.workload
    size = system.sample_size
    period = degraded_period(system)
    key = (w.rw, w.bs, w.size, w.offset_increment, w.rwmixread, region, seed, size, w.offset, w.rw_skip_bytes, w.random_run_ios,
           period)
    memo = system.memo
    return memo.recall(memo.samples, key, _sample, w, region, seed, size, period)


def _sample(workload, region_bytes: int, seed: int, size: int,
            period: tuple[int, tuple | None]) -> tuple[np.ndarray, np.ndarray]:
    """The sample's host I/Os, their directions stratified to the mix (``exact_mix``). A sequential
    mix's directions are stratified before its offsets are drawn: its reads and writes are streams of
    their own, and an I/O turned from read to write after the fact left a hole in the write stream
    and a stray write in it (a 50/50 stream of 128 KiB on whole stripes at a RAID WAF of 1.28 where
    the event mode's is 10/9, until 2026-12-01). A random one: ``random_sample``."""
    if workload.is_random:
        return random_sample(workload, region_bytes, seed, size, period)
    stream = HostStream.for_job(workload, 0, region_bytes, seed)
    return stream.next_batch(size, exact_mix(stream.directions(size), workload.read_fraction, seed))


def degraded_period(system: ArraySystem) -> tuple[int, tuple[tuple[int, ...], ...] | None]:
    """(bytes, strips) of the layout's period with a member missing: its roles repeat after as many
    rows as members, and each survivor's role relative to the missing member sets its load; (0,
    None) on a whole array. ``strips`` (a RAID5/6's): for each turn, the data strip of every row of
    the period that lies that many members after the row's parity (each member once over the rows:
    ``_over_the_cells``), in md's symmetric and asymmetric layouts alike; None where the turns do not
    hold each member once, or on other levels."""
    if not system.failed_members:
        return 0, None
    geometry, rows = system.geometry, system.array.drives
    period_bytes = geometry.stripe_data_bytes * rows
    if geometry.level not in (5, 6):
        return period_bytes, None
    members = data_members(geometry, np.arange(rows))  # (rows, data strips): each strip's member
    turns = np.argsort((members - parity_members(geometry, np.arange(rows))[0][:, None]) % rows, axis=1).T
    held = np.take_along_axis(members, turns.T, axis=1).T  # each turn's member in every row
    if any(len(set(turn)) != rows for turn in held.tolist()):
        return period_bytes, None
    return period_bytes, tuple(map(tuple, turns.tolist()))


def random_sample(workload, region_bytes: int, seed: int, size: int,
                  period: tuple[int, tuple | None] = (0, None)) -> tuple[np.ndarray, np.ndarray]:
    """``size`` random host I/Os of job 0 over ``region_bytes``, their directions stratified to the
    mix (``exact_mix``); on a degraded array (its ``degraded_period``) each direction's offsets drawn
    again stratified over the layout's period (``balanced_over_the_period``): which reads and which
    writes fall on the missing member, and in which role, set what the array reconstructs, and the
    reads and writes of each member and role are then their expectation to within one. Drawn
    together and the directions fixed after, the 721 reads of a 70/30 sample on 5 members put 130
    to 152 on the missing one (144 expected; seeds 1-8), and md RAID5's rebuild under that load
    took 101.6-107.1 h (until 2026-12-02)."""
    stream = HostStream.for_job(workload, 0, region_bytes, seed)
    offsets, is_write = stream.next_batch(size)
    is_write = exact_mix(is_write, workload.read_fraction, seed)
    period_bytes, strips = period
    if period_bytes and workload.random_run_ios == 1:
        is_write = _in_turn(is_write, seed)
        offsets = balanced_over_the_period(offsets, stream.region_start_bytes, stream.region_bytes, period_bytes,
                                           workload.bs, seed, strata=is_write, strips=strips)
    return offsets, is_write


def _in_turn(is_write: np.ndarray, seed: int) -> np.ndarray:
    """``is_write``'s writes spread evenly over the sample (systematic, from a random start): every
    run of its first I/Os (the part a rebuild has passed, ``ArraySystem.batch``) holds the mix to
    within one I/O. In the draws' order xiRAID RAID5 of 5 D5-P5336 rebuilt under a 70/30 mix in
    6.82-6.87 h over seeds 1-8, in turn 6.815-6.833 h."""
    n, writes = len(is_write), int(is_write.sum())
    start = int(named_rng(seed, "directions in turn").integers(n)) if n else 0
    return np.diff((np.arange(n + 1, dtype=np.int64) * writes + start) // max(n, 1)).astype(bool)


def balanced_over_the_period(offsets: np.ndarray, start_bytes: int, region_bytes: int, period_bytes: int, bs: int,
                             seed: int, strata: np.ndarray | None = None, strips: tuple | None = None) -> np.ndarray:
    """Uniform random ``offsets`` drawn again stratified over the layout's period, each stratum on
    its own (the I/Os of one value of ``strata``: a direction), the period each falls in uniform
    over the region.

    With a member missing, each survivor's own share of the sample sets its load (no pooling:
    ``whole_array_shares``), and which I/Os touch the missing member decides how many
    reconstruct. 1,024 uniform draws over 16 members put 58 or 68 on the missing one where 64 is
    the expectation (one standard deviation is 8): a RAID6 then read faster degraded than a RAID5
    (seed 1, 3.52M against 3.47M on an SR-1000). The layout's roles repeat every ``period_bytes``
    (parity rotation: as many rows as members), so stratifying the position within the period
    (Cochran, *Sampling Techniques*, 3rd ed., 1977, ch. 5) fixes each member's and each role's
    share at its expectation: over its strips by turns (``_over_the_cells``, ``strips`` from
    ``degraded_period``) where the blocks tile a strip; else systematic over its blocks (every run
    of blocks holds its share to within one I/O, in random order), whose even spacing can alias
    with the strips (until 2026-12-02 for every layout: 91 reads on 8 members of 64 KiB strips put
    7 or 14 on each, 11.4 expected).
    A region shorter than one period, or a block that does not tile it, keeps the draws."""
    first = -(-start_bytes // period_bytes) * period_bytes
    periods = (start_bytes + region_bytes - first) // period_bytes
    n = len(offsets)
    if n == 0 or periods < 1 or period_bytes % bs:
        return offsets
    blocks = period_bytes // bs
    rng = named_rng(seed, "balanced offsets")
    within = np.empty(n, dtype=np.int64)
    for at in [np.arange(n)] if strata is None else [np.flatnonzero(strata == s) for s in np.unique(strata)]:
        if strips is not None and blocks % (len(strips) * len(strips[0])) == 0:
            within[at] = _over_the_cells(len(at), blocks, np.array(strips, dtype=np.int64), rng)
        else:
            spread = np.minimum(((np.arange(len(at)) + rng.random()) * (blocks / len(at))).astype(np.int64), blocks - 1)
            rng.shuffle(spread)  # systematic, in random order
            within[at] = spread
    return (first + rng.integers(0, periods, size=n, dtype=np.int64) * period_bytes + within * bs).astype(np.int64)


def _over_the_cells(n: int, blocks: int, strips: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``n`` blocks of the period (of ``blocks``) taken strip by strip in turns (``strips``: turn x
    row -> the row's data strip): a turn is a strip of every row, each on another member; turn after
    turn from a random one, each from a random row, a block of each strip at random. Every strip
    holds its share of the sample to within one, and so does every row (its parity's member) and
    every member (its data), in the whole and in each run of the sample's first I/Os (the part a
    rebuild has passed, ``ArraySystem.batch``)."""
    turns, rows = strips.shape
    per_strip = blocks // (turns * rows)
    turn = (rng.integers(turns) + np.arange(turns))[:, None] % turns
    row = (rng.integers(rows) + np.arange(rows))[None, :] % rows
    strip = np.resize((row * turns + strips[turn, row]).ravel(), n)
    return strip * per_strip + rng.integers(0, per_strip, size=n, dtype=np.int64)


def exact_mix(is_write: np.ndarray, read_fraction: float, seed: int) -> np.ndarray:
    """``is_write`` with exactly round((1 - read_fraction) x n) writes: the sample's directions
    stratified to the workload's mix.

    fio draws each I/O's direction (Bernoulli, ``rwmixread``), so over the event mode's tens of
    thousands of I/Os the mix is the stated one; the fluid sample's 128 would carry a binomial
    error of +-4 points of write share (seed 1: 44 writes in 128, 34% for a 70/30 mix), which on
    a NAND-bound mix, where a RAID6 write costs six member I/Os and a read one, moved the
    throughput 13%. Post-stratification (Cochran, *Sampling Techniques*, 3rd ed., 1977, ch. 5)
    fixes the strata at their known shares: the surplus direction's excess I/Os, chosen by a
    named random stream, change direction; every other I/O keeps its draw.
    """
    n = len(is_write)
    if n == 0 or read_fraction >= 1.0 or read_fraction <= 0.0:
        return is_write
    target = int(round((1.0 - read_fraction) * n))
    surplus = int(is_write.sum()) - target
    if surplus == 0:
        return is_write
    flip_from = np.flatnonzero(is_write if surplus > 0 else ~is_write)
    chosen = named_rng(seed, "fluid sample mix").choice(flip_from, size=abs(surplus), replace=False)
    out = is_write.copy()
    out[chosen] = surplus < 0
    return out


def jbod_imbalance(system: ArraySystem) -> float:
    """Busiest drive's load over the mean when jobs are bound to drives (job j on drive j mod n)."""
    jobs, drives = system.workload.numjobs, system.array.drives
    return math.ceil(jobs / drives) / (jobs / drives) if jobs >= drives else drives / jobs


def read_stream_shares(system: ArraySystem, batches: list[HostIoBatch]) -> np.ndarray | None:
    """Each drive's share of the members' load where every job's sequential reads stay on one
    mirror (md RAID1's ``read_balance``, ``nvsim.sim.demand.read_stream``), else None. The sample is
    job 0's, whose reads stay on its mirror; job j's are the same one surviving mirror on (the
    planner gives each stream its own), so the array's load is job 0's per-drive load (NAND and link
    time) summed over the jobs, each rotated one survivor further: one stream on two mirrors loads
    one of them with all the reads (its share 1), two streams on four load two (each 1/2)."""
    if read_stream(system.model, 0) < 0:
        return None
    drives = system.array.drives
    load = np.zeros(drives)
    for b in batches:
        load += np.bincount(b.op_drive, weights=b.op_die_s + b.op_link_s, minlength=drives)[:drives]
    survivors = np.array([m for m in range(drives) if m not in set(system.failed_members)], dtype=np.int64)
    if load.sum() <= 0 or not len(survivors):
        return None
    total = np.zeros(drives)
    for job in range(system.workload.numjobs):
        total[np.roll(survivors, -job)] += load[survivors]
    return total / total.sum()


def stream_imbalance(system: ArraySystem, batches: list[HostIoBatch]) -> float:
    """Busiest drive's load over the mean where each job's reads stay on one mirror
    (``read_stream_shares``), else 1: the pooled drive of the fluid mode is the busiest one."""
    shares = read_stream_shares(system, batches)
    return 1.0 if shares is None else float(shares.max()) * system.array.drives


def write_amplification(system: ArraySystem, batches: list[HostIoBatch]) -> tuple[float, float]:
    """(RAID-level WAF = member bytes written / host bytes written, NAND WAF inside the drives)."""
    host = sum(float(b.is_write.sum()) for b in batches) * system.workload.bs
    member = sum(float(b.op_bytes[b.op_is_write].sum()) for b in batches)
    if host == 0 or member == 0:
        return float("nan"), float("nan")
    ssd = system.drive.ssd
    random = system.workload.is_random
    written = np.concatenate([b.op_bytes[b.op_is_write] for b in batches])
    sizes, counts = np.unique(written, return_counts=True)
    nand = float(sum(int(size) * ssd.rmw_factor(int(size), random) * c for size, c in zip(sizes, counts)))
    return member / host, nand / member * ssd.waf_ftl(random)


def demand_table(system: ArraySystem, batches: list[HostIoBatch]) -> list[tuple[str, str, float, float]]:
    """(resource key, label, mean demand seconds per host I/O, servers) for every resource of the
    array (``nvsim.fabric.mean_demands``, the drives pooled): the drives are the mean member's load
    (layouts rotate parity and mirrors over every member); jobs bound to drives (no RAID) load the
    busiest by ceil(jobs/drives)/(jobs/drives); sequential reads that md RAID1 keeps on one mirror
    per job, by ``stream_imbalance``."""
    n = sum(len(b) for b in batches)
    scale = (jbod_imbalance(system) if system.jbod else stream_imbalance(system, batches)) / (system.array.drives * n)
    resources = system.resources()
    values = fabric.mean_demands([(key, -1) for key, _label, _servers in resources], batches, system.array.drives,
                                 pooled_scale=scale)
    return [(key, label, d, servers) for (key, label, servers), d in zip(resources, values)]


def caps(table: list[tuple[str, str, float, float]]) -> list[tuple[str, float]]:
    """(resource label, host I/Os per second it allows: servers / mean demand) for every resource
    of ``demand_table`` a host I/O loads: the fluid mode's caps, and the bounds' fabric limits."""
    return [(label, servers / d) for _key, label, d, servers in table if d > 0]


def resource_caps(system: ArraySystem, seed: int | None = None) -> list[tuple[str, float]]:
    """``caps`` of ``system``'s sampled host I/Os (``seed``: the scenario's if None), the one
    computation the fluid mode's throughput and ``nvsim.bounds.array_bounds`` both take."""
    seed = system.scenario.seed if seed is None else seed
    return caps(demand_table(system, sample_batches(system, seed)))


def unloaded_latency_s(system: ArraySystem, batches: list[HostIoBatch], fork_join: bool = False,
                       run_s: list[np.ndarray | None] | None = None) -> float:
    """Mean latency of one host I/O with no queueing anywhere: the path's service times, each
    (host I/O, phase) run of member I/Os waiting for its slowest member's mean time, or with
    ``fork_join`` for the expected slowest of their drawn NAND times (``run_latency_s``).

    The steady fio fluid mode takes ``fork_join`` (its rates are held to the event mode's, which
    draws each read's NAND time), and so does a fio job's class in the network
    (``foreground.FioLoad``). The other classes do not: rebuild requests are priced
    at mean NAND times in the event mode too, and the OLTP model's fitted client delay
    (``nvsim.published``) was fitted without the term; a 16 KiB page over four 4 KiB chunks would
    move it 5.6%, so it waits for a refit. ``run_s``: the batches' ``run_latencies``, when the
    caller has them already.
    """
    total = 0.0
    count = 0
    for b, runs in zip(batches, run_s if run_s is not None else run_latencies(system, batches, fork_join)):
        if runs is not None:
            total += float(_waited_runs_s(b, runs).sum())
        total += float(_path_s(b).sum())
        count += len(b)
    return total / count + system.host_io.wake_s  # a sleeping job's wake-up (nvsim.host_io)


def run_latencies(system: ArraySystem, batches: list[HostIoBatch], fork_join: bool) -> list[np.ndarray | None]:
    """Per batch, ``run_latency_s`` of each of its runs (None: a batch without member I/Os)."""
    return [run_latency_s(system, b, _runs(b), fork_join) if len(b.op_is_write) else None for b in batches]


def _path_s(b: HostIoBatch) -> np.ndarray:
    """Each host I/O's own service times on its path, no queueing: the host's, the lock's, the
    engine's and its device's; of a write a write-back cache acknowledges (``HostIoBatch.ack_s``),
    the engine's before the acknowledgement, the rest being its destage."""
    through = _through_path_s(b)
    if b.ack_s is None:
        return through
    acked = b.submit_s + b.complete_s + b.lock_s + b.ack_s + b.device_bw_s + b.device_down_s + b.device_up_s
    return np.where(b.acked(), acked, through)


def _through_path_s(b: HostIoBatch) -> np.ndarray:
    """``_path_s`` of a host I/O that waits for all its engine work (no write-back acknowledgement)."""
    return b.submit_s + b.complete_s + b.lock_s + b.pre_s + b.mid_s + b.device_bw_s + b.device_down_s + b.device_up_s


def _waited_runs_s(b: HostIoBatch, runs_s: np.ndarray) -> np.ndarray:
    """``runs_s`` (each run's ``run_latency_s``) as the host waits for them: none of a write a
    write-back cache acknowledges (its member I/Os are its destage, after the acknowledgement)."""
    if b.ack_s is None:
        return runs_s
    return np.where(b.acked()[_runs_of(b)[1]], 0.0, runs_s)


def _runs(b: HostIoBatch) -> np.ndarray:
    """The first member I/O of each (host I/O, phase) run of ``b``."""
    return b.op_runs if b.op_runs is not None else phase_runs(b.op_phase, b.op_start)


def _by_direction(batches: list[HostIoBatch], values: list[np.ndarray]) -> tuple[float, float]:
    """The mean of ``values`` (per batch, one value a host I/O) over the reads and over the writes
    (nan where there are none)."""
    sums, counts = np.zeros(2), np.zeros(2)
    for b, each in zip(batches, values):
        writes = np.asarray(b.is_write, dtype=bool)
        sums += (float(each[~writes].sum()), float(each[writes].sum()))
        counts += (float((~writes).sum()), float(writes.sum()))
    with np.errstate(invalid="ignore", divide="ignore"):
        read, write = sums / counts
    return float(read), float(write)


def _runs_of(b: HostIoBatch) -> tuple[np.ndarray, np.ndarray]:
    """(first member I/O of each run, the host I/O it belongs to)."""
    runs = _runs(b)
    return runs, np.searchsorted(b.op_start, runs, side="right") - 1


def unloaded_latency_by_direction_s(system: ArraySystem, batches: list[HostIoBatch],
                                   run_s: list[np.ndarray | None]) -> tuple[float, float]:
    """``unloaded_latency_s`` of the reads alone and of the writes alone (nan where there are none),
    from the batches' ``run_latencies``."""
    def per_host(b: HostIoBatch, runs: np.ndarray | None) -> np.ndarray:
        each = _path_s(b).astype(float)
        if runs is not None:
            host = _runs_of(b)[1]
            each = each + np.bincount(host, weights=_waited_runs_s(b, runs), minlength=len(b))[:len(b)]
        return each

    read_s, write_s = _by_direction(batches, [per_host(b, runs) for b, runs in zip(batches, run_s)])
    return read_s + system.host_io.wake_s, write_s + system.host_io.wake_s


def queue_visits_by_direction(batches: list[HostIoBatch]) -> tuple[float, float]:
    """(reads, writes): the queueing waits a host I/O of each direction sits through, counted at the
    drives: its runs one after another (a read-modify-write's reads, then its writes), each run of
    k member I/Os issued at once done with the slowest of k waits, H_k times one (the expected
    maximum of k exponential waits: the k-th harmonic number, the base of Nelson and Tantawi's
    fork-join approximation, IEEE Trans. Computers 37(6), 1988). A host I/O with no member I/O
    (nothing planned) waits once."""
    def per_host(b: HostIoBatch) -> np.ndarray:
        if not len(b.op_is_write):
            return np.ones(len(b))
        runs, host = _runs_of(b)
        k = np.diff(np.append(runs, len(b.op_is_write)))
        harmonic = np.cumsum(1.0 / np.arange(1, int(k.max()) + 1))[k - 1]
        return np.maximum(np.bincount(host, weights=harmonic, minlength=len(b))[:len(b)], 1.0)

    return _by_direction(batches, [per_host(b) for b in batches])


def binding_visits_by_direction(batches: list[HostIoBatch], bound_key: str | None) -> tuple[float, float]:
    """(reads, writes): the waits a host I/O of each direction sits through at the resource that
    binds (``latency_by_direction_us``). At the engine's server, its visits and at least one: a
    host I/O the engine does not handle still waits about one where the engine binds (md's
    chunk-aligned reads never reach raid5d, but their job's thread sleeps in the submission of a
    write that waits for a stripe_head, as the event mode's job threads do: there a 70/30 mix on md
    RAID5 bound by raid5d gives reads 2,988 us and writes 5,973)."""
    if bound_key in fabric.PER_DRIVE:
        return queue_visits_by_direction(batches)
    if bound_key == "engine":
        return _by_direction(batches, [np.maximum(b.engine_visits(), 1.0) for b in batches])
    return 1.0, 1.0


def waited_visits_by_direction(batches: list[HostIoBatch], keys, waiting_s: np.ndarray,
                               f_read: float) -> tuple[float, float]:
    """``binding_visits_by_direction`` where the wait is spread over several stations (a state's
    queueing network: ``keys`` its stations' (resource key, drive), ``waiting_s`` the host I/O's
    wait at each): each station's visits by direction, over its mean visit (``f_read``: the
    batches' share of reads), weighed by its share of the wait, so the reads' and writes' waits
    still average to the whole."""
    total = float(np.sum(waiting_s))
    if total <= 0:
        return 1.0, 1.0
    found: dict[str, tuple[float, float]] = {}
    read = write = 0.0
    for (key, _drive), wait in zip(keys, np.asarray(waiting_s, dtype=float)):
        if wait <= 0:
            continue
        kind = "drive" if key in fabric.PER_DRIVE else key
        if kind not in found:
            found[kind] = binding_visits_by_direction(batches, key)
        v_read, v_write = found[kind]
        mean = f_read * v_read + (1.0 - f_read) * v_write
        read, write = read + wait * v_read / mean, write + wait * v_write / mean
    return read / total, write / total


def latency_by_direction_us(system: ArraySystem, batches: list[HostIoBatch], run_s: list[np.ndarray | None], mean_s: float,
                            unloaded_s: float, sync_wait_s: float, f_read: float,
                            visits: tuple[float, float]) -> tuple[dict, dict]:
    """(read, write) mean latency of the fluid mode's closed loop, whose mean over both is
    ``mean_s`` (N / X, Little's law): each direction's own unloaded latency, its share of the
    queueing wait ``mean_s - unloaded_s - sync_wait_s``, and for the writes the synchronous
    metadata updates (``sync_wait_s`` per host I/O is theirs alone). The wait is shared in
    proportion to ``visits`` (reads, writes), the waits each direction sits through where the
    queues are: ``binding_visits_by_direction`` at the one resource that binds (the drives':
    ``queue_visits_by_direction``; the engine's server, visited once or twice a host I/O as the
    event mode queues it, ``HostIoBatch.engine_visits``: a read-modify-write's before and after its
    reads, a card's processor or md's stripe thread; else one each: the host's cores, a lock, a
    link), ``waited_visits_by_direction`` over a state's stations. A pure stream is its mean.
    ``run_s``: the batches' ``run_latencies`` with the fork-join term, as ``unloaded_s`` took them."""
    if f_read >= 1.0:
        return {"mean": mean_s * 1e6}, {}
    if f_read <= 0.0:
        return {}, {"mean": mean_s * 1e6}
    read_s, write_s = unloaded_latency_by_direction_s(system, batches, run_s)
    visits_read, visits_write = visits
    one_s = max(0.0, mean_s - unloaded_s - sync_wait_s) / (f_read * visits_read + (1.0 - f_read) * visits_write)
    return ({"mean": (read_s + visits_read * one_s) * 1e6},
            {"mean": (write_s + sync_wait_s / (1.0 - f_read) + visits_write * one_s) * 1e6})


def run_latency_s(system: ArraySystem, b: HostIoBatch, runs: np.ndarray, fork_join: bool = True) -> np.ndarray:
    """Expected time of each run of member I/Os issued together (a host I/O's phase): a fork-join,
    done when its slowest member is.

    A write is done when the drive's buffer takes it (link and fixed time, no NAND time); a read
    is its link and fixed time plus a NAND time that the event mode draws around its mean with
    coefficient of variation ``NAND_SERVICE_CV`` (``nvsim.ssd.latency``). The expected maximum of
    k such reads exceeds the largest mean: for k alike ones, c + d x E[max of k unit-mean gammas]
    (``expected_max_gamma``), so the run's slowest mean time gains d x (E[max] - 1) with d its
    largest NAND time (exact for the striped reads of one host I/O, which are alike; a run of
    unlike reads is charged as if all had the largest). The runs of a host I/O follow one another.
    """
    drive = system.drive
    reads = ~b.op_is_write
    read_die = b.op_die_s / b.op_pieces * reads  # a member I/O's pieces run on as many dies at once
    op_time = b.op_link_s + np.where(reads, read_die + drive.read_fixed_s, drive.write_fixed_s)
    slowest = np.maximum.reduceat(op_time, runs)
    if not fork_join or len(runs) == len(op_time):  # means only, or one member I/O a run
        return slowest
    k = np.add.reduceat(reads, runs, dtype=np.int64)
    return slowest + np.maximum.reduceat(read_die, runs) * fork_join_excess(k)


def fork_join_excess(k: np.ndarray, cv: float = NAND_SERVICE_CV) -> np.ndarray:
    """E[max of k] - 1 (``expected_max_gamma``) for each run's count of alike reads ``k``: what a
    run of k reads adds to its slowest mean, in its NAND time (0 for no read or one). Computed
    once per distinct k and remembered: a 1 GiB read's runs count thousands of reads, and a table
    of every count up to theirs took 5 s."""
    distinct, where = np.unique(k, return_inverse=True)
    return np.array([_fork_join_excess(int(count), cv) for count in distinct])[where]


@functools.lru_cache(maxsize=4096)
def _fork_join_excess(k: int, cv: float) -> float:
    return expected_max_gamma(k, cv) - 1.0 if k >= 1 else 0.0


def expected_max_gamma(k: int, cv: float, points: int = 4001) -> float:
    """E[max of k i.i.d. gamma variables of mean 1 and coefficient of variation ``cv``]: the
    integral of 1 - F(x)^k over x >= 0, by the trapezoid rule on [0, 1 + (12 + 2 ln k) cv] (past
    it 1 - F^k is negligible). A k-way fork-join with no queueing responds in the expected maximum
    of its k service times: H_k (the k-th harmonic number) times the mean for exponential ones,
    the base of Nelson & Tantawi's fork-join approximation ("Approximate analysis of fork/join
    synchronization in parallel queues", IEEE Trans. Computers 37(6), 1988); 1.167 for k = 2 and
    1.60 for k = 16 at cv 0.3 (a 200,000-draw Monte Carlo gives the same to 3 digits)."""
    if k <= 1 or cv <= 0:
        return 1.0
    shape = 1.0 / (cv * cv)
    x = np.linspace(0.0, 1.0 + (12.0 + 2.0 * math.log(k)) * cv, points)
    from scipy.special import gammainc  # loads on first use

    tail = 1.0 - gammainc(shape, shape * x) ** k
    return float(np.trapezoid(tail, x))


SYNC_UPDATE_STEPS = 200
"""Most steps of the synchronous-update fixed point (it converges monotonically, mostly in a few)."""


def closed_loop_rate(table: list[tuple[str, str, float, float]], population: int, r0: float) -> tuple[float, str | None]:
    """(host I/Os per second, the limiting resource's label or None when the I/Os in flight are)."""
    label, x_cap = min(caps(table), key=lambda item: item[1])
    x_loop = population / r0
    return (x_cap, label) if x_cap <= x_loop else (x_loop, None)


def with_sync_updates(system: ArraySystem, table: list, population: int, r0: float,
                      write_share: float) -> tuple[list, float, float]:
    """(demand table, unloaded latency, engine seconds per host I/O) with the engine's synchronous
    metadata updates (md's write-intent bitmap) charged at the write rate they leave: a write that
    sets a clean bit holds the engine's thread for one update (``ArrayModel.sync_update``), and
    the share of writes that do falls as the rate rises (a chunk stays dirty longer than the gap
    between its writes). The fixed point x = X(wait(x)) is found from the rate without updates
    downwards: each step's wait is at least the last's, so the rates fall monotonically to it."""
    if write_share <= 0:
        return table, r0, 0.0
    x, _label = closed_loop_rate(table, population, r0)
    wait, charged = 0.0, table
    for _ in range(SYNC_UPDATE_STEPS):
        share, update_s = system.sync_update(x * write_share)
        wait = write_share * share * update_s
        if wait <= 0:
            return table, r0, 0.0
        charged = [(key, lbl, d + wait if key == "engine" else d, servers) for key, lbl, d, servers in table]
        x_next, _label = closed_loop_rate(charged, population, r0 + wait)
        if abs(x_next - x) <= 1e-9 * x:
            break
        x = x_next
    return charged, r0 + wait, wait


PROGRAMMING_STEPS = 12
"""Steps of ``at_programming_load``'s fixed point (each prices the sample again)."""


def solved_rate(system: ArraySystem, batches: list[HostIoBatch], population: int, f_read: float) -> tuple:
    """(run latencies, demand table, unloaded latency, the same with sync updates, sync wait, rate,
    limiting label) of a priced sample."""
    run_s = run_latencies(system, batches, fork_join=True)
    unloaded = unloaded_latency_s(system, batches, fork_join=True, run_s=run_s)
    table, r0, sync_wait = with_sync_updates(system, demand_table(system, batches), population, unloaded, 1.0 - f_read)
    x, label = closed_loop_rate(table, population, r0)
    return run_s, table, unloaded, r0, sync_wait, x, label


def programming_load(batches: list[HostIoBatch], table: list, x: float) -> float:
    """Share of the time a die is programming at rate ``x``: the NAND pool's utilisation times the
    programs' share of its busy time (a read that arrives finds its die programming that often)."""
    die = np.concatenate([b.op_die_s for b in batches])
    programs = float(die[np.concatenate([b.op_is_write for b in batches]).astype(bool)].sum())
    nand = next((d, servers) for key, _lbl, d, servers in table if key == "nand")
    return min(1.0, x * nand[0] / nand[1]) * programs / float(die.sum()) if programs > 0 else 0.0


def at_programming_load(system: ArraySystem, seed: int, population: int, f_read: float) -> tuple:
    """The sample priced with reads paying program suspend as often as their die is programming at
    the rate it gives (``programming_load``), and ``solved_rate``'s answer for it. The sample is
    first priced at the saturated share (``nand_write_share``: the dies always busy, what the
    drive model's ``rho_w`` is at its saturated rate); until 2026-12-01 every rate was priced so,
    and a light load paid a saturated die's suspends (md RAID0 of two CM7-R, 4 KiB 70/30 at QD1:
    reads 52.6 us against 38.1 us pure, 24,107 IOPS, below pure reads' 26,218, where one drive's
    model gives 32,135). The event mode prices its batches at the share this leaves."""
    system.write_share = None  # the saturated share first, whatever a run before left
    batches = sample_batches(system, seed)
    solved = solved_rate(system, batches, population, f_read)
    saturated = system.write_share or 0.0
    if saturated <= 0 or system.model.drive.suspend_unit_s <= 0:
        return batches, solved
    share = saturated
    for _ in range(PROGRAMMING_STEPS):
        share_next = min(saturated, programming_load(batches, solved[1], solved[5]))
        if abs(share_next - share) <= 1e-6 * saturated:
            break
        share = system.write_share = share_next
        batches = sample_batches(system, seed)
        solved = solved_rate(system, batches, population, f_read)
    return batches, solved


def destage_slack_s(system: ArraySystem, seed: int) -> float | None:
    """How far a write-back write's destage may end past its acknowledgement in the event mode
    (``event.servers.ArrayServers.destaged``), from this mode's steady state (solved just before
    for ``system``): inf where the closed loop of acknowledgements offers less than the destage
    retires (no resource binds: the cache never fills and no write waits for it); None where the
    loop saturates the destage even waiting for every write's member I/Os (the cache full, the
    write-through path gives the destage's pace as it is: the event mode takes it, and a saturated
    run is the same in both policies); else the sample's mean destage time unloaded (its engine
    work after the acknowledgement and its member I/Os): the cache is full, and a write waits for
    room, which frees at the destage's pace. Any slack gives that pace; this one is built within
    the warm-up where the event mode's ~10^5 host I/Os would never fill a card's gigabytes."""
    batches = sample_batches(system, seed)
    if not any(b.acked().any() for b in batches):
        return math.inf
    w = system.workload
    population = w.numjobs * w.iodepth
    f_read = 1.0 - float(np.mean(sample_ios(system, seed)[1]))
    run_s, table, *_rest, x, label = solved_rate(system, batches, population, f_read)
    if label is None:
        return math.inf
    through = [replace(b, ack_s=None, _totals=None) for b in batches]
    if closed_loop_rate(table, population, unloaded_latency_s(system, through, fork_join=True, run_s=run_s))[1]:
        return None
    destage = []
    for b, runs in zip(batches, run_s):
        waited = _through_path_s(b) - _path_s(b)
        if runs is not None:
            waited = waited + np.bincount(_runs_of(b)[1], weights=runs, minlength=len(b))[:len(b)]
        destage.append(waited[b.acked()])
    return float(np.mean(np.concatenate(destage)))


def priced_at_its_rate(system: ArraySystem, seed: int) -> tuple[float, tuple, tuple]:
    """``at_programming_load`` for ``system``'s fio job (its I/Os in flight and read share): the
    job's read share, the sample and its solve; ``system`` keeps the share of the time its dies
    program at that rate, which the event mode and the state solve price their batches at."""
    w = system.workload
    f_read = 1.0 - float(np.mean(sample_ios(system, seed)[1]))
    return f_read, *at_programming_load(system, seed, w.numjobs * w.iodepth, f_read)


def simulate_fluid(system: ArraySystem, seed: int | None = None) -> SimResult:
    start = time.perf_counter()
    seed = system.scenario.seed if seed is None else seed
    w = system.workload
    population = w.numjobs * w.iodepth
    f_read, batches, (run_s, table, unloaded, r0, sync_wait, x, label) = priced_at_its_rate(system, seed)
    limited = label or f"I/Os in flight ({population} = {format_jobs(w.numjobs, w.iodepth)})"
    util = tuple(Utilisation(lbl, min(1.0, x * d / servers)) for _key, lbl, d, servers in table)
    demand = {key: d for key, _lbl, d, _servers in table}
    cpu_busy = x * demand["cores"]
    if "lock" in demand:
        rho = min(x * demand["lock"], 0.999)
        if rho >= 0.98:  # every job waits at the lock, spinning: all job CPUs busy
            cpu_busy = float(len(system.cpu_speed))
        else:  # each submitter spins while it waits and runs on its core while it holds the lock, as the event
            # mode books it (its response, D / (1 - rho); until 2026-12-01 the wait alone: 1 MiB md RAID5 writes
            # read 1.725% where the event mode read 1.877%)
            at_lock = x * demand["lock"] / (1 - rho)
            cpu_busy = min(float(len(system.cpu_speed)), cpu_busy + at_lock)
    engine_util = min(1.0, x * demand.get("engine", 0.0) / system.engine_servers)
    herd = waiting_cpus(system, batches, x, engine_util)  # submitters woken and re-queued while the stripe cache is full
    cpu_busy = min(float(len(system.cpu_speed)), cpu_busy + herd) if herd else cpu_busy
    # the engine's thread sleeps while it waits for a metadata update
    engine_busy = x * (demand["engine"] - sync_wait) if system.engine_on_host_cpu else 0.0
    cpu_busy = busy_cpus_with_polling(cpu_busy, float(len(system.cpu_speed)), w.numjobs, system.host_io,
                                      float(system.logical_cpus), engine_busy)
    cpu_percent = min(100.0, 100.0 * cpu_busy / system.logical_cpus)  # capped busy CPUs, less float rounding
    raid_waf, waf_nand = write_amplification(system, batches)
    bound_key = None if label is None else next(key for key, lbl, _d, _servers in table if lbl == label)
    read_lat, write_lat = latency_by_direction_us(system, batches, run_s, population / x, unloaded, sync_wait, f_read,
                                                  binding_visits_by_direction(batches, bound_key))
    return SimResult(
        scenario=system.scenario.name, workload=w.name, fidelity="fluid",
        read_iops=x * f_read, write_iops=x * (1 - f_read),
        read_bytes_per_s=x * f_read * w.bs, write_bytes_per_s=x * (1 - f_read) * w.bs,
        cpu_percent=cpu_percent, logical_cpus=system.logical_cpus,
        read_latency_us=read_lat, write_latency_us=write_lat,
        raid_waf=raid_waf, waf_nand=waf_nand, utilisation=util, limited_by=limited,
        wall_s=time.perf_counter() - start, unloaded_latency_us=r0 * 1e6,
    )


__all__ = ["simulate_fluid", "destage_slack_s", "with_sync_updates", "closed_loop_rate", "demand_table", "caps", "resource_caps", "sample_batches", "sample_ios",
           "random_sample", "degraded_period", "balanced_over_the_period", "write_amplification", "exact_mix", "run_latency_s", "run_latencies", "unloaded_latency_by_direction_s", "queue_visits_by_direction", "binding_visits_by_direction", "waited_visits_by_direction", "latency_by_direction_us", "expected_max_gamma", "fork_join_excess"]
