"""fio's log-linear latency histogram (stat.h, stat.c) and the percentiles fio reads from it.

Below everything that needs fio's rule for a latency percentile: the JSON writer (nvsim.fio.json_report)
and the latency-target row (nvsim.workload.compose), which must measure a percentile as fio does.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

FIO_PERCENTILES = (1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99)
"""fio's default ``percentile_list``."""

PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS
PLAT_GROUP_NR = 29
PLAT_NR = PLAT_GROUP_NR * PLAT_VAL
"""fio's latency histogram (stat.h): FIO_IO_U_PLAT_BITS, _VAL, _GROUP_NR, _NR."""

def plat_val_to_idx(values_ns: np.ndarray) -> np.ndarray:
    """fio's plat_val_to_idx for an array of latencies in ns: the histogram bucket of each."""
    values = np.asarray(values_ns, dtype=np.int64)
    msb = np.zeros(values.shape, dtype=np.int64)
    positive = values > 0
    msb[positive] = np.floor(np.log2(values[positive].astype(np.float64))).astype(np.int64)
    # float log2 can be off by one at exact powers of two for large values: correct it
    msb[positive] -= (np.left_shift(1, msb[positive]) > values[positive]).astype(np.int64)
    msb[positive] += (np.left_shift(1, msb[positive] + 1) <= values[positive]).astype(np.int64)
    error_bits = np.maximum(msb - PLAT_BITS, 0)
    base = (error_bits + 1) << PLAT_BITS
    offset = (PLAT_VAL - 1) & (values >> error_bits)
    index = np.minimum(base + offset, PLAT_NR - 1)
    return np.where(msb <= PLAT_BITS, values, index)


def plat_idx_to_val(index: int) -> int:
    """fio's plat_idx_to_val: the value a bucket stands for (the middle of its range), in ns."""
    if index < (PLAT_VAL << 1):
        return int(index)
    error_bits = (index >> PLAT_BITS) - 1
    base = 1 << (error_bits + PLAT_BITS)
    k = index % PLAT_VAL
    return int(base + (k + 0.5) * (1 << error_bits))


def histogram(latencies_ns: np.ndarray) -> dict[int, int]:
    """Bucket index -> count of the samples, as fio's add_clat_sample fills io_u_plat."""
    indices, counts = np.unique(plat_val_to_idx(latencies_ns), return_counts=True)
    return {int(i): int(c) for i, c in zip(indices, counts)}


def percentile_table(latencies_ns: np.ndarray, percentiles: tuple[float, ...] = FIO_PERCENTILES) -> dict[str, int]:
    """fio's percentile keys ("99.000000") to the values fio prints: calc_clat_percentiles over the
    log-linear histogram (the first bucket where the running count reaches p% of the samples)."""
    hist = sorted(histogram(np.asarray(latencies_ns)).items())
    n = sum(count for _, count in hist)
    table: dict[str, int] = {}
    if not n:
        return table
    running = 0
    position = 0
    wanted = sorted(percentiles)
    for index, count in hist:
        running += count
        while position < len(wanted) and running >= Fraction(str(wanted[position])) / 100 * n:
            table[f"{wanted[position]:f}"] = plat_idx_to_val(index)
            position += 1
    for p in wanted[position:]:  # rounding at 100%: the last bucket
        table[f"{p:f}"] = plat_idx_to_val(hist[-1][0])
    return table
