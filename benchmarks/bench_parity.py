"""Parity throughput per core: nvsim (Numba) vs NumPy vs Intel ISA-L, same process, same buffers.

Usage: python benchmarks/bench_parity.py [--quick]   (the GPU kernel: benchmarks/bench_gpu_pq.py)

Prints a markdown table of GB/s of *data* processed (decimal GB = 1e9 bytes; data bytes = data
members x strip bytes per call) on one core. "cache" reuses one stripe's buffers (resident in
L2/L3 after the first call); "memory" cycles through a pool of stripes totalling at least
``--pool-mib`` MiB (default 512 MiB, several times any L3), so data comes from DRAM.
Each figure is the best of several timed rounds (rounds of >= ~0.15 s); the rounds of ISA-L and
nvsim are interleaved (ISA-L XOR, nvsim XOR, ISA-L P+Q, nvsim P+Q, then again), so that a burst
of load from elsewhere on the machine hits both sides alike. Both are called on prebuilt buffers
(nvsim: its serial Numba kernel on uint64 views; ISA-L: through ctypes with a prebuilt pointer
array), so per-call overheads are small and comparable.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # per-core figures

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from nvsim import isal, parity  # noqa: E402

KIB = 1024
MIB = 1024 * 1024


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _time_best(fn, n_items: int, bytes_per_item: int, rounds: int, min_round_s: float) -> float:
    """Best GB/s over ``rounds`` rounds; each round calls fn(i) for i cycling over n_items."""
    calls = _calls_per_round(fn, n_items, min_round_s)
    best = 0.0
    for _ in range(rounds):
        t0 = time.perf_counter()
        for c in range(calls):
            fn(c % n_items)
        dt = time.perf_counter() - t0
        best = max(best, calls * bytes_per_item / dt / 1e9)
    return best


def _calls_per_round(fn, n_items: int, min_round_s: float) -> int:
    fn(0)
    calls = 1
    while True:
        t0 = time.perf_counter()
        for c in range(calls):
            fn(c % n_items)
        dt = time.perf_counter() - t0
        if dt >= min_round_s / 4 or calls > 1 << 22:
            break
        calls *= 4
    return max(1, int(calls * min_round_s / max(dt, 1e-9)))


def _time_interleaved(fns: dict, n_items: int, bytes_per_item: int, rounds: int, min_round_s: float) -> dict:
    """Best GB/s of each of ``fns`` (name -> fn(i)), their timed rounds taking turns."""
    calls = {name: _calls_per_round(fn, n_items, min_round_s) for name, fn in fns.items()}
    best = dict.fromkeys(fns, 0.0)
    start = 0
    for _ in range(rounds):
        for name, fn in fns.items():
            c = calls[name]
            t0 = time.perf_counter()
            for j in range(c):
                fn((start + j) % n_items)
            dt = time.perf_counter() - t0
            start += c
            best[name] = max(best[name], c * bytes_per_item / dt / 1e9)
    return best


def bench_config(k: int, strip_bytes: int, where: str, pool_bytes: int, rounds: int, min_round_s: float,
                 with_numpy: bool) -> dict:
    data_bytes = k * strip_bytes
    n_items = 1 if where == "cache" else max(2, pool_bytes // ((k + 2) * strip_bytes))
    rng = np.random.default_rng(k * 1000 + strip_bytes)
    stripes = []
    for _ in range(n_items):
        d = isal.aligned_empty((k, strip_bytes))
        d[:] = rng.integers(0, 256, size=(k, strip_bytes), dtype=np.uint8)
        pq = isal.aligned_empty((2, strip_bytes))
        stripes.append((d, pq))
    words = [(d.view(np.uint64), pq.view(np.uint64)) for d, pq in stripes]

    res: dict = {"k": k, "strip": strip_bytes, "where": where}

    def ours_p(i):
        dw, pw = words[i]
        parity._p_serial(dw, pw[0])

    def ours_pq(i):
        dw, pw = words[i]
        parity._pq_serial(dw, pw[0], pw[1])

    if with_numpy:
        def np_p(i):
            d, pq = stripes[i]
            np.bitwise_xor.reduce(d, axis=0, out=pq[0])

        def np_pq(i):
            d, pq = stripes[i]
            pq[:] = parity.gen_pq_reference(d)

        res["numpy_xor"] = _time_best(np_p, n_items, data_bytes, max(1, rounds // 2), min_round_s)
        res["numpy_pq"] = _time_best(np_pq, n_items, data_bytes, max(1, rounds // 2), min_round_s)
    if isal.available():
        xp = [isal.PointerArray(d, pq[:1]) for d, pq in stripes]
        qp = [isal.PointerArray(d, pq) for d, pq in stripes]
        lib = isal._lib()
        xg, pg = lib.xor_gen, lib.pq_gen

        def isal_p(i):
            a = xp[i]
            xg(a.vects, a.len_bytes, a.array)

        def isal_pq(i):
            a = qp[i]
            pg(a.vects, a.len_bytes, a.array)

        res.update(_time_interleaved({"isal_xor": isal_p, "nvsim_xor": ours_p, "isal_pq": isal_pq,
                                      "nvsim_pq": ours_pq}, n_items, data_bytes, rounds, min_round_s))
    else:
        res["nvsim_xor"] = _time_best(ours_p, n_items, data_bytes, rounds, min_round_s)
        res["nvsim_pq"] = _time_best(ours_pq, n_items, data_bytes, rounds, min_round_s)
    if isal.available():
        # same bytes?
        d, pq = stripes[0]
        assert np.array_equal(parity.gen_pq(d), isal.pq_gen(d)), "nvsim and ISA-L disagree"
    return res


def fmt_size(b: int) -> str:
    return f"{b // MIB} MiB" if b >= MIB else f"{b // KIB} KiB"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer configurations and shorter rounds")
    ap.add_argument("--pool-mib", type=int, default=512, help="bytes cycled through for the out-of-cache case")
    ap.add_argument("--no-numpy", action="store_true", help="skip the (slow) NumPy baseline")
    args = ap.parse_args(argv)

    if args.quick:
        ks, strips, rounds, min_round_s = (8, 22), (64 * KIB, 128 * KIB), 3, 0.05
        pool = min(args.pool_mib, 256) * MIB
    else:
        ks, strips, rounds, min_round_s = (4, 8, 22), (4 * KIB, 64 * KIB, 128 * KIB, MIB), 7, 0.15
        pool = args.pool_mib * MIB
    print(f"CPU: {cpu_name()}; {os.cpu_count()} logical CPUs; one core used. "
          f"NumPy {np.__version__}; ISA-L: {isal.library_name() if isal.available() else 'absent'}")
    print()
    head = "| data members | strip | where | nvsim XOR GB/s | ISA-L xor_gen GB/s | XOR ratio | nvsim P+Q GB/s | ISA-L pq_gen GB/s | P+Q ratio |"
    if not args.no_numpy:
        head += " NumPy XOR GB/s | NumPy P+Q GB/s |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for k in ks:
        for s in strips:
            for where in ("cache", "memory"):
                r = bench_config(k, s, where, pool, rounds, min_round_s, not args.no_numpy)
                ix, ip = r.get("isal_xor"), r.get("isal_pq")
                xr = f"{r['nvsim_xor'] / ix:.2f}" if ix else "n/a"
                pr = f"{r['nvsim_pq'] / ip:.2f}" if ip else "n/a"
                row = (f"| {k} | {fmt_size(s)} | {where} | {r['nvsim_xor']:.1f} | "
                       f"{ix:.1f} | {xr} | {r['nvsim_pq']:.1f} | {ip:.1f} | {pr} |" if ix else
                       f"| {k} | {fmt_size(s)} | {where} | {r['nvsim_xor']:.1f} | n/a | n/a | {r['nvsim_pq']:.1f} | n/a | n/a |")
                if not args.no_numpy:
                    row += f" {r['numpy_xor']:.1f} | {r['numpy_pq']:.2f} |"
                print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
