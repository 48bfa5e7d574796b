"""fio's options and ioengines as nvsim reads them: which set a ``WorkloadSpec`` field, which are
kept or understood, which are refused (they change the answer in ways nvsim does not model), fio's
aliases and defaults, and which ioengines are block engines nvsim simulates (``nvsim.fio`` parses
job files with these tables; docs/fio.md lists them)."""

from __future__ import annotations

from .names import FIO_OPTION_ALIASES

MODELLED_OPTIONS: dict[str, str] = {
    "rw": "WorkloadSpec.rw (alias readwrite); trim types: WorkloadSpec.trim, NVMe deallocations (nvsim.workload.trim)",
    "bs": "WorkloadSpec.bs (alias blocksize); read,write[,trim] form: the sizes of the directions the job uses must agree",
    "iodepth": "WorkloadSpec.iodepth",
    "numjobs": "WorkloadSpec.numjobs",
    "rwmixread": "WorkloadSpec.rwmixread",
    "rwmixwrite": "WorkloadSpec.rwmixread = 100 - rwmixwrite",
    "size": "WorkloadSpec.size in bytes, or FioJob.size_percent for 'N%'",
    "offset_increment": "WorkloadSpec.offset_increment in bytes, or FioJob.offset_increment_percent for 'N%'",
    "runtime": "WorkloadSpec.runtime in seconds (alias timeout; 0 = no limit = None)",
    "ramp_time": "WorkloadSpec.ramp_time in seconds",
    "time_based": "WorkloadSpec.time_based",
    "ioengine": "WorkloadSpec.ioengine (checked against the catalog's host_io entries when a catalog is given)",
    "hipri": "WorkloadSpec.hipri (io_uring: IORING_SETUP_IOPOLL; pvsync2: RWF_HIPRI; polled completions)",
    "fixedbufs": "WorkloadSpec.fixedbufs (io_uring registered buffers)",
    "registerfiles": "WorkloadSpec.registerfiles (io_uring registered files)",
    "sqthread_poll": "WorkloadSpec.sqthread_poll (io_uring IORING_SETUP_SQPOLL)",
    "iodepth_batch_submit": "WorkloadSpec.iodepth_batch_submit (alias iodepth_batch): I/Os one submit syscall carries",
    "iodepth_batch_complete_min": "WorkloadSpec.iodepth_batch_complete_min (alias iodepth_batch_complete): completions one reap carries",
    "rate": "WorkloadSpec.rate_iops: a bandwidth cap per job (read,write[,trim] as bs), as I/Os per second of the job's bs",
    "rate_iops": "WorkloadSpec.rate_iops: an IOPS cap per job (read,write[,trim] as bs)",
    "rate_min": "FioJob.rate_min_iops (alias ratemin): fio stops a job below it; nvsim notes a job whose simulated rate is below",
    "rate_iops_min": "FioJob.rate_min_iops: as rate_min, in I/Os per second",
    "thinktime": "WorkloadSpec.thinktime (microseconds unless a unit is given): the job stalls that long after each I/O",
    "latency_target": "WorkloadSpec.latency_target (microseconds unless a unit is given): the highest iodepth that meets it",
    "latency_window": "WorkloadSpec.latency_window (microseconds unless a unit is given), reported as fio does",
    "latency_percentile": "WorkloadSpec.latency_percentile: the share of I/Os that must meet latency_target (default 100)",
    "bssplit": "WorkloadSpec.bs_mix: the job's closed loop with its I/Os drawn from the sizes in their shares (nvsim.workload.mix)",
    "bsrange": "WorkloadSpec.bs_mix: LOW, 2 LOW, ... below HIGH equally likely, as fio rounds its uniform draw (nvsim.workload.mix)",
    "offset": "WorkloadSpec.offset: where job 0's region starts (or FioJob.offset_percent for 'N%')",
    "flow": "WorkloadSpec.flow: jobs of one flow_id that run together keep their I/O counts in the ratio of their weights (nvsim.workload.together)",
    "flow_id": "WorkloadSpec.flow_id: the group a flow weight counts in (default 0)",
    "read_iolog": "FioJob.trace: a fio iolog (v2, v3), blktrace (binary or blkparse text) or MSR CSV, replayed as its mix (nvsim.fio.trace)",
    "replay_no_stall": "a replayed trace as fast as the job's iodepth allows (closed loop) instead of at its timestamps",
    "replay_time_scale": "a replayed trace's rate, percent of its timestamps' rate (default 100)",
    "replay_skip": "a replayed trace's directions left out (read, write; trims and syncs are left out anyway)",
    "replay_scale": "a replayed trace's offsets divided by it (0 or 1: as written)",
    "replay_align": "a replayed trace's offsets rounded down to this power of 2 (a binary blktrace's sizes rounded up to it)",
    "zonemode": "none, or strided (zones of zonesize bytes: the job's stream when a zone holds at least 64 I/Os of 4 KiB); zbd refused",
    "zonesize": "zonemode=strided: the bytes of I/O in each zone",
    "random_distribution": "WorkloadSpec.random_distribution for a job that writes: the written data's hotness sets the drives' hot/cold WAF (nvsim.ftl.skew); read-only jobs: accepted without effect (no read cache is modelled); sequence refused",
    "drive_state": "WorkloadSpec.drive_state, nvsim's own option (fio does not know it): steady (preconditioned, default), fresh (WAF 1, free blocks) or filled (just written sequentially: random writes through GC's transient)",
    "io_size": "WorkloadSpec.io_size (alias io_limit): the bytes each clone moves (default size), for the job's runtime and io_bytes",
    "loops": "WorkloadSpec.loops: fio repeats the job's I/O this many times (runtime and io_bytes)",
    "rate_process": "WorkloadSpec.rate_process: linear (fio's default, paced evenly) or poisson (open-loop arrivals, nvsim.workload.open_loop)",
}
"""fio options that set a ``WorkloadSpec`` field."""

KEPT_OPTIONS: dict[str, str] = {
    "filename": "FioJob.filename (raw string)",
    "cpus_allowed": "FioJob.cpus_allowed (raw string; not applied, named in the not-modelled warning: the scenario's placement places jobs)",
    "numa_cpu_nodes": "FioJob.numa_cpu_nodes (raw string; not applied, named in the not-modelled warning: placement.job_sockets)",
    "name": "the job's name (overrides the section name, as in fio)",
    "stonewall": "FioJob.group and FioJob.phase (alias wait_for_previous)",
    "wait_for": "FioJob.phase: a job waiting for the one job running before it starts the next phase (as "
                "stonewall, in the same reporting group); waiting for one of several running jobs is refused",
    "new_group": "FioJob.group",
    "kb_base": "how sizes are read (1024, fio's default, or 1000)",
    "direct": "direct=1 is what nvsim models; buffered I/O set in the file (direct=0, buffered=1) is listed as "
              "unmodelled 'direct', fio's buffered default (no direct given) is a note",
    "buffered": "the inverse of direct",
}
"""fio options that are read and kept on ``FioJob`` or steer the parsing itself."""

UNDERSTOOD_WITHOUT_EFFECT: frozenset[str] = frozenset({
    # naming and reporting
    "description", "group_reporting", "unit_base", "stats",
    # log files, written by nvsim.fio.logs in fio's formats
    "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log", "log_avg_msec",
    "log_hist_msec", "per_job_logs", "log_offset",
    # random offset generation: nvsim draws uniform offsets from its own seeded streams
    "randrepeat", "randseed", "random_generator", "norandommap", "softrandommap",
    # what fio reports: percentiles and the JSON's job entries (nvsim.fio.json_report, nvsim.fio.run)
    "percentile_list", "clat_percentiles", "lat_percentiles", "slat_percentiles", "disk_util",
    # trace replay onto another device: the simulated array is the device
    "replay_redirect",
    # zonemode=strided's skip and range: the job's stream within its zones (zonemode, zonesize)
    "zoneskip", "zonerange",
    # how fio itself runs: threads or processes, CPU and memory placement policies
    "thread", "cpus_allowed_policy", "numa_mem_policy",
    # file handling that does not change direct I/O to a block device
    "invalidate", "allow_mounted_write", "allow_file_create", "create_serialize", "fallocate",
})
"""fio options that are understood and do not change nvsim's answer; accepted silently."""

UNSIGNED_OPTIONS: dict[str, str] = {"startdelay": "seconds", "zoneskip": "bytes"}
"""fio options nvsim does not model whose value fio stores unsigned with no ``.minval`` (options.c):
a negative value wraps to 2^64 less it (startdelay=-5: a job that never starts; zoneskip=-1: a skip
of 2^64 - 1 bytes), so nvsim refuses it in one line; the unit is what the option counts."""

REFUSED_OPTIONS: dict[str, str] = {
    "thinktime_blocks": "think time after more than one I/O is not modelled (thinktime_blocks=1, fio's default, is)",
    "thinktime_spin": "spinning on the CPU during think time is not modelled",
    "thinktime_iotime": "think time every thinktime_iotime of I/O is not modelled",
    "latency_run": "fio's continuous adjustment of the depth to a latency target is not modelled (latency_run=0, fio's default, is)",
}
"""fio options that change the answer in ways nvsim does not model: a job that sets one (to a value
other than fio's default) is refused in one line naming the option."""

REFUSED_DEFAULTS = {"thinktime_blocks": ("1",), "thinktime_spin": ("0",), "thinktime_iotime": ("0",),
                     "latency_run": ("0",)}
"""Values of refused options that mean fio's default behaviour (accepted)."""

_NVSIM_ALIASES: dict[str, str] = {
    "readwrite": "rw",
    "blocksize": "bs",
    "timeout": "runtime",
    "wait_for_previous": "stonewall",
    "allrandrepeat": "randrepeat",
    "iodepth_batch": "iodepth_batch_submit",
    "iodepth_batch_complete": "iodepth_batch_complete_min",
    "ratemin": "rate_min",
    "io_limit": "io_size",
}
ALIASES: dict[str, str] = {
    **{alias: name for alias, name in FIO_OPTION_ALIASES.items() if alias not in _NVSIM_ALIASES.values()},
    **_NVSIM_ALIASES,
}
"""fio's option aliases (``options.c``; ``nvsim.fio.names``), by the names the tables above use
(``iodepth_batch_submit`` is fio's alias of ``iodepth_batch``; nvsim names the option by it)."""

FIO_RW_MODELLED = ("read", "write", "randread", "randwrite", "rw", "readwrite", "randrw")
FIO_RW_TRIM = ("trim", "randtrim", "trimwrite", "randtrimwrite")
FIO_DEFAULT_RW = "read"
FIO_DEFAULT_IOENGINE = "psync"
"""fio's defaults on Linux when a job names no rw / ioengine (``.def`` in fio's options.c)."""

WORD_OPTIONS = frozenset({"rw", "ioengine", "rate_process", "zonemode", "random_distribution", "kb_base",
                          "cpus_allowed_policy"})
"""Options whose value fio compares with its list of words (``FIO_OPT_STR``, and ``ioengine``'s
``FIO_OPT_STR_STORE`` with its ``posval``): fio strips the blanks before ``=`` but not after it
(parse.c's ``get_option``), so ``rw = randread`` fails ("fio: failed parsing rw= randread") and fio
drops the job. Numbers take a blank after ``=`` (``strtoll`` skips it)."""

BLOCK_IOENGINES = ("psync", "sync", "pvsync", "pvsync2", "posixaio", "libaio", "io_uring", "spdk")
"""fio's block ioengines nvsim simulates: each is a host I/O path of the catalog (``models/host_io/``)."""

_NO_DEVICE = "moves no data to a device (it measures fio's own overhead), so there is no array to simulate"
_REMOTE = "reaches storage over a network or a cluster protocol, not a local NVMe array"
_FILE_OPS = "does file-system metadata operations, not block I/O"
_MEMORY = "reads and writes memory-mapped or persistent memory, not NVMe block I/O"
_OTHER_PATH = "drives the device through a path nvsim's host I/O models do not describe"
UNSIMULATED_IOENGINES: dict[str, str] = {
    **dict.fromkeys(("null", "cpp_null"), _NO_DEVICE),
    "cpuio": "burns CPU and does no I/O",
    "exec": "runs a program and does no I/O",
    **dict.fromkeys(("net", "netsplice", "rdma", "http", "nbd", "nfs", "libiscsi", "rados", "rbd", "gfapi", "gfapi_async",
                     "libhdfs", "dfs", "ime_psync", "ime_psyncv", "ime_aio"), _REMOTE),
    **dict.fromkeys(("filecreate", "filestat", "filedelete", "dircreate", "dirstat", "dirdelete", "falloc", "ftruncate",
                     "e4defrag"), _FILE_OPS),
    **dict.fromkeys(("dev-dax", "libpmem", "mmap", "splice"), _MEMORY),
    "page_fault": "touches anonymous memory to measure page faults, not block I/O",
    **dict.fromkeys(("libcufile", "libhipfile"), "moves data between GPU memory and storage (GPUDirect Storage), a path nvsim does not model"),
    "io_uring_cmd": "sends NVMe passthrough commands to a character device, bypassing the block layer; ioengine=io_uring is the modelled path",
    **dict.fromkeys(("sg", "libzbc", "mtd", "xnvme", "libblkio", "windowsaio", "solarisaio", "guasi", "binject"), _OTHER_PATH),
}
"""fio ioengines that cannot be simulated, with the reason; ``parse_fio_jobfile`` refuses each in one line."""

HOST_IO_FLAGS = ("hipri", "fixedbufs", "registerfiles", "sqthread_poll")
"""fio's ioengine options of the host I/O path (``WorkloadSpec`` fields; nvsim.host_io)."""
