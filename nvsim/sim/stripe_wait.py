"""The CPU that submitters waiting for an engine's stripe cache burn (``Engine.waiting_cpus``), from
what a run measured or solved: the fluid mode, the state solver and the event mode hand it the host
I/Os they planned, their rate and the stripe thread's busy share, and add the answer to the job CPUs'
busy time."""

from __future__ import annotations

import numpy as np

from ..engines import StripeCacheLoad
from .demand import HostIoBatch


def stripe_cache_load(batches: list[HostIoBatch], host_ios_per_s: float, ios_in_flight: float, jobs: int,
                      server_utilisation: float) -> StripeCacheLoad | None:
    """The load on the stripe cache of host I/Os at ``host_ios_per_s`` with ``ios_in_flight`` of
    them in flight (None when none takes an entry). Each holds its stripe_heads through its visits
    to the stripe thread (``HostIoBatch.engine_visits``) and one more pass, the one that frees them
    once its member writes are done."""
    held = [b for b in batches if b.stripe_heads is not None]
    if not held or host_ios_per_s <= 0:
        return None
    heads = np.concatenate([b.stripe_heads for b in held])
    visits = np.concatenate([b.engine_visits() for b in held])
    total = sum(len(b) for b in batches)
    takes = heads > 0
    if not takes.any():
        return None
    share = float(np.count_nonzero(takes)) / total
    per_io = float(heads[takes].mean())
    return StripeCacheLoad(
        stripe_heads_per_s=host_ios_per_s * share * per_io, stripe_heads_per_io=per_io,
        passes_per_stripe_head=float(visits[takes].mean()) + 1.0, ios_in_flight=ios_in_flight * share,
        jobs=jobs, server_utilisation=server_utilisation)


def waiting_cpus(system, batches: list[HostIoBatch], host_ios_per_s: float, server_utilisation: float) -> float:
    """Job CPUs kept busy by submitters waiting for the engine's stripe cache (0 when none waits)."""
    w = system.workload
    load = stripe_cache_load(batches, host_ios_per_s, float(w.numjobs * w.iodepth), w.numjobs, server_utilisation)
    return 0.0 if load is None else system.engine.waiting_cpus(load)


__all__ = ["stripe_cache_load", "waiting_cpus"]
