"""What a simulation returns: rates, latency percentiles, CPU, write amplification, utilisation of
every resource and the one that limits the run -- the same record from both fidelities."""

from __future__ import annotations

import math

from dataclasses import asdict, dataclass, field

from ..units import format_jobs

PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)
SATURATED_UTILISATION = 0.9
"""Below this, the busiest resource does not set the operating point: the closed loop does (more
I/Os in flight or more users would raise the rate), and the bottleneck sentence says so."""


@dataclass(frozen=True)
class Utilisation:
    resource: str
    utilisation: float  # busy share of its servers over the measured window (0..1)
    host_visits: bool = True  # host I/O passes through it (False: only a rebuild's requests load it, its thread)


@dataclass
class SimResult:
    scenario: str
    workload: str
    fidelity: str  # "event" or "fluid"
    read_iops: float
    write_iops: float
    read_bytes_per_s: float
    write_bytes_per_s: float
    cpu_percent: float
    logical_cpus: int = 0  # the logical CPUs cpu_percent is a share of (the jobs' sockets'; 0: not known)
    read_latency_us: dict[str, float] = field(default_factory=dict)  # mean, p50, p90, p99, p99.9, p99.99
    write_latency_us: dict[str, float] = field(default_factory=dict)
    iops_ci95: float = 0.0  # half-width of the 95% confidence interval of total IOPS (batch means)
    raid_waf: float = float("nan")  # member bytes written / host bytes written
    waf_nand: float = float("nan")  # NAND bytes programmed / member bytes written, inside the drives
    utilisation: tuple[Utilisation, ...] = ()
    limited_by: str = ""
    simulated_host_ios: int = 0  # host I/Os completed in the measured window
    completed_host_ios: int = 0  # all host I/Os completed, warm-up included (the work the run did)
    simulated_s: float = 0.0
    wall_s: float = 0.0
    latency_samples_s: dict = field(default_factory=dict, repr=False)  # "read"/"write" -> array (event mode)
    transactions_per_s: float | None = None  # OLTP workloads: transactions completed per second
    transaction_latency_us: dict[str, float] = field(default_factory=dict)
    rebuild_bytes_per_s: float | None = None  # while a member is rebuilt: its rebuild rate
    rebuild_limited_by: str = ""
    tail_ci95_us: dict = field(default_factory=dict)  # "read"/"write" -> (low, high) of p99.99's 95% CI; high None: too few samples
    closed_loop: str = ""  # what holds the rate below the busiest resource's ("the closed loop of 64 OLTP users")
    unloaded_latency_us: float | None = None  # fluid mode: an I/O's latency with no queueing (the model's floor)

    def modelled_percentile_us(self, ddir: str, percent: float) -> float | None:
        """The fluid mode's latency percentile (None without a model or a mean): the unloaded
        latency plus an exponential queueing wait with the solved mean (what a closed loop whose
        waits are those of an M/M/1 queue gives), so p50 = floor + ln 2 x (mean - floor)."""
        mean = (self.read_latency_us if ddir == "read" else self.write_latency_us).get("mean")
        if self.unloaded_latency_us is None or mean is None or not 0 < percent <= 100:
            return None
        floor = min(self.unloaded_latency_us, mean)
        share = min(percent / 100.0, 1.0 - 1e-9)
        return floor + (mean - floor) * -math.log1p(-share)

    @property
    def total_iops(self) -> float:
        return self.read_iops + self.write_iops

    @property
    def bottleneck_text(self) -> str:
        if not self.utilisation or self.limited_by.startswith("I/Os in flight"):
            return self.limited_by
        top = busiest(self.utilisation)
        named = next((u for u in self.utilisation if u.resource == self.limited_by), None)
        if named is not None and round(named.utilisation, 2) == round(top.utilisation, 2):
            top = named  # a tie at the top: the resource the solver found binding (md's raid1d, full with
            # bitmap waits, tied with the drives' NAND that set the rate, was named)
        busiest_text = f"{top.resource} at {100 * top.utilisation:.0f}%"
        if self.closed_loop and top.utilisation < SATURATED_UTILISATION:
            return f"{self.closed_loop} (busiest resource: {busiest_text})"
        return busiest_text


    def metrics(self) -> dict[str, float | str]:
        """Flat metrics for validation and reports (the metric names validation compares)."""
        out: dict[str, float | str] = {
            "read_iops": self.read_iops, "write_iops": self.write_iops, "total_iops": self.total_iops,
            "read_bytes_per_s": self.read_bytes_per_s, "write_bytes_per_s": self.write_bytes_per_s,
            "cpu_percent": self.cpu_percent, "raid_waf": self.raid_waf, "waf_nand": self.waf_nand,
            "limited_by": self.bottleneck_text,
        }
        if self.transactions_per_s is not None:
            out["transactions_per_s"] = self.transactions_per_s
        if self.rebuild_bytes_per_s is not None:
            out["rebuild_bytes_per_s"] = self.rebuild_bytes_per_s
            out["rebuild_limited_by"] = self.rebuild_limited_by
        for direction, lat in (("read", self.read_latency_us), ("write", self.write_latency_us),
                               ("transaction", self.transaction_latency_us)):
            for key, value in lat.items():
                out[f"{direction}_latency_{key}_us".replace(".", "_")] = value
        return {k: (None if isinstance(v, float) and v != v else v) for k, v in out.items()}

    def as_dict(self) -> dict:
        samples, self.latency_samples_s = self.latency_samples_s, {}
        try:
            out = asdict(self)
        finally:
            self.latency_samples_s = samples
        out.pop("latency_samples_s", None)
        out.pop("wall_s", None)  # a measurement of this machine, not a result: same seed, same JSON
        for key, value in out.items():
            if isinstance(value, float) and value != value:
                out[key] = None  # NaN (e.g. write amplification of a read-only job) is not JSON
        out["utilisation"] = {u.resource: u.utilisation for u in self.utilisation}
        out["bottleneck"] = self.bottleneck_text
        return out


def population_text(workload) -> str:
    """A workload's closed-loop population: "64 OLTP users", "6,144 I/Os in flight (192 jobs x QD32)"."""
    if workload.rw == "oltp":
        return f"{workload.users:,} OLTP users"
    return f"{workload.numjobs * workload.iodepth:,} I/Os in flight ({format_jobs(workload.numjobs, workload.iodepth)})"


def closed_loop_text(workload) -> str:
    """The bottleneck sentence of a run whose busiest resource is not saturated."""
    return f"the closed loop of {population_text(workload)}"


def busiest(utilisation) -> Utilisation:
    """The limiting resource: the busiest that host I/O passes through (a rebuild's own thread,
    however busy, limits the rebuild, not the host's I/O), where cores that are full only because
    they spin on a saturated lock (or wait on another saturated resource) give way to that resource."""
    visited = [u for u in utilisation if u.host_visits] or list(utilisation)
    return max(visited, key=lambda u: (round(u.utilisation, 2), not u.resource.startswith("host cores")))


__all__ = ["SimResult", "Utilisation", "PERCENTILES", "SATURATED_UTILISATION", "busiest", "closed_loop_text", "population_text"]
