"""Constants of the machines every model shares, defined once.

``PAGE_BYTES``: the 4 KiB page. The host's memory page (an NVMe PRP entry maps one; fio's per-page
submit cost counts them), md's stripe-cache page (STRIPE_SIZE on x86: strips are whole pages), and
the unit drives map and program (the smallest indirection unit counted).
"""

from __future__ import annotations

PAGE_BYTES = 4096

EVENT_HOST_IOS = 60_000
"""Measured host I/Os per event-mode run (after warm-up): batch-means 95% CI of IOPS ~1% here
(``nvsim.Simulation.run``'s default; the work budget, ``nvsim.budget``, sizes a run by it)."""

EVENT_BATCH_IOS_FLOOR = 8
"""Fewest host I/Os an event-mode job plans at a time (``sim/event/window.batch_ios``): every job
holds one such batch in memory, so a run holds at least jobs x this many planned host I/Os
(``nvsim.budget``: the member pages they plan are bounded)."""

PRECISION_MIN = 1e-6
PRECISION_MAX = 1.0
"""The relative precision an event-mode run takes (``--precision``, ``Precision.relative``): a p99.99
known to within 1e-6 of itself at the finest (a finer one overflowed the window's extension: a
traceback), to within 100% at the coarsest. Here, not in ``sim/event/compiled``, so that the command
line's help and check of --precision load no simulator."""

__all__ = ["PAGE_BYTES", "EVENT_HOST_IOS", "EVENT_BATCH_IOS_FLOOR", "PRECISION_MIN", "PRECISION_MAX"]
