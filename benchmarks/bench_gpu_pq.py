"""The GPU P+Q kernel (nvsim.stripe.gpu) against the GPU's memory bandwidth.

Usage: python benchmarks/bench_gpu_pq.py [--gib 4] [--out DIR] [--quick]

Needs a CUDA GPU and numba.cuda (or numba's CUDA simulator, NUMBA_ENABLE_CUDASIM=1, with --quick,
which checks the script, not the speed). Every figure is timed with CUDA events around kernel
launches on device-resident buffers (median and best of several launches after a warm-up), in
decimal units (1 GB = 1e9 bytes):

* ceiling: a device-to-device copy of the same number of bytes (``cudaMemcpy`` through numba),
  counting bytes read plus bytes written, as the datasheet's bandwidth does;
* P+Q, members k in 4, 8, 16, 22: each launch reads k strips and writes P and Q, so it moves
  (k + 2) x strip bytes; data throughput counts the k x strip bytes of data alone;
* threads per block (the module's 256, against 128, 512, 1024) at k = 8;
* launch time against batch size: k = 22 stripes of 4 KiB strips, 1 to 16,384 stripes per launch
  (what one launch costs, and how many stripes a launch must carry before bandwidth rules);
* an empty kernel's launch through numba (what any launch costs from Python);
* from host memory: ``gen_pq_gpu`` on host arrays (copy in over PCIe, kernel, copy out), and the
  copy in alone (pageable host memory);
* one CPU core: nvsim.parity.gen_pq on the same data, and whether the GPU's P and Q equal it
  byte for byte (every k, whole buffers).

Writes the results as JSON and as a markdown table (to --out, default the working directory).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # the CPU comparison is per core

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from nvsim import parity  # noqa: E402
from nvsim.stripe import gpu  # noqa: E402

GIB = 1 << 30
MEMBERS = (4, 8, 16, 22)
THREADS = (128, 256, 512, 1024)
BATCH_STRIPES = (1, 16, 256, 4096, 16384)
STRIP_SMALL_BYTES = 4096


def _events(cuda, launch, repeats: int) -> list[float]:
    """Seconds of each of ``repeats`` calls of ``launch`` (after one warm-up), timed by CUDA events."""
    launch()
    cuda.synchronize()
    out = []
    for _ in range(repeats):
        start, end = cuda.event(), cuda.event()
        start.record()
        launch()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) / 1e3)
    return out


def _stats(seconds: list[float], moved_bytes: int, data_bytes: int) -> dict:
    med, best = (max(float(x), 1e-9) for x in (np.median(seconds), min(seconds)))  # the simulator says 0
    return {
        "median_s": med, "best_s": best, "moved_bytes": moved_bytes, "data_bytes": data_bytes,
        "moved_gb_per_s_median": moved_bytes / med / 1e9, "moved_gb_per_s_best": moved_bytes / best / 1e9,
        "data_gb_per_s_median": data_bytes / med / 1e9,
    }


def _launcher(kernel, d_words, p, q, threads: int):
    blocks = (d_words.shape[1] + threads - 1) // threads
    return lambda: kernel[blocks, threads](d_words, p, q)


def _copy_ceiling(cuda, words: int, repeats: int) -> dict:
    src = cuda.device_array(words, dtype=np.uint64)
    dst = cuda.device_array(words, dtype=np.uint64)
    seconds = _events(cuda, lambda: dst.copy_to_device(src), repeats)
    del src, dst
    return _stats(seconds, 2 * words * 8, words * 8)


def _pq_members(cuda, kernel, host_words: np.ndarray, repeats: int) -> tuple[list[dict], bool]:
    """Each k of MEMBERS over the same bytes: device throughput and a whole-buffer check."""
    rows, identical = [], True
    parity.gen_pq(np.zeros((4, 64), dtype=np.uint8))  # compiled before it is timed
    for k in MEMBERS:
        n = host_words.size // k
        d_host = host_words[: k * n].reshape(k, n)
        d = cuda.to_device(d_host)
        pq = cuda.device_array((2, n), dtype=np.uint64)
        row = {"members": k, "strip_bytes": n * 8}
        row.update(_stats(_events(cuda, _launcher(kernel, d, pq[0], pq[1], 256), repeats), (k + 2) * n * 8, k * n * 8))
        t0 = time.perf_counter()
        want = parity.gen_pq(d_host.view(np.uint8))
        cpu_s = time.perf_counter() - t0
        row["cpu_one_core_data_gb_per_s"] = k * n * 8 / cpu_s / 1e9
        row["identical_to_cpu"] = bool(np.array_equal(pq.copy_to_host().view(np.uint8), want))
        identical &= row["identical_to_cpu"]
        rows.append(row)
        del d, pq
    return rows, identical


def _threads(cuda, kernel, host_words: np.ndarray, repeats: int) -> list[dict]:
    k = 8
    n = host_words.size // k
    d = cuda.to_device(host_words[: k * n].reshape(k, n))
    pq = cuda.device_array((2, n), dtype=np.uint64)
    rows = []
    for threads in THREADS:
        seconds = _events(cuda, _launcher(kernel, d, pq[0], pq[1], threads), repeats)
        rows.append({"members": k, "threads_per_block": threads, **_stats(seconds, (k + 2) * n * 8, k * n * 8)})
    return rows


def _launch_floor(cuda, repeats: int) -> dict:
    """An empty kernel's launch through numba, timed as the others: what any launch costs."""

    @cuda.jit
    def empty(x):
        pass

    x = cuda.device_array(1, dtype=np.uint64)
    seconds = _events(cuda, lambda: empty[1, 32](x), repeats)
    return {"median_s": float(np.median(seconds)), "best_s": float(min(seconds))}


def _batches(cuda, kernel, repeats: int) -> list[dict]:
    k = 22
    rows = []
    for stripes in BATCH_STRIPES:
        n = stripes * STRIP_SMALL_BYTES // 8
        d = cuda.to_device(np.random.default_rng(stripes).integers(0, 1 << 63, size=(k, n), dtype=np.uint64))
        pq = cuda.device_array((2, n), dtype=np.uint64)
        seconds = _events(cuda, _launcher(kernel, d, pq[0], pq[1], 256), repeats)
        row = {"members": k, "strip_bytes": STRIP_SMALL_BYTES, "stripes": stripes}
        row.update(_stats(seconds, (k + 2) * n * 8, k * n * 8))
        row["median_us_per_stripe"] = row["median_s"] / stripes * 1e6
        rows.append(row)
    return rows


def _from_host(cuda, host_words: np.ndarray, repeats: int) -> list[dict]:
    rows = []
    for k in (8, 22):
        n = host_words.size // k
        d = host_words[: k * n].reshape(k, n).view(np.uint8)
        gpu.gen_pq_gpu(d)
        seconds = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            gpu.gen_pq_gpu(d)
            seconds.append(time.perf_counter() - t0)
        row = {"members": k, "strip_bytes": n * 8, **_stats(seconds, (k + 2) * n * 8, k * n * 8)}
        copy_in = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            cuda.to_device(d.view(np.uint64))
            copy_in.append(time.perf_counter() - t0)
        row["copy_in_median_s"] = float(np.median(copy_in))
        row["copy_in_gb_per_s"] = k * n * 8 / row["copy_in_median_s"] / 1e9
        rows.append(row)
    return rows


def _device_name(cuda) -> str:
    try:
        name = cuda.get_current_device().name
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # the simulator
        return "numba CUDA simulator"


def _versions() -> dict:
    import numba

    out = {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__}
    try:
        import numba_cuda

        out["numba_cuda"] = getattr(numba_cuda, "__version__", "?")
    except ImportError:
        pass
    return out


def _row(what: str, r: dict, unit: str, places: int, moved_places: int = 0, *rest: str) -> str:
    """One table row: ``what``, the median and best times in ``unit`` (ms or us), the GB/s moved, then
    ``rest`` (the data's GB/s and the columns after it)."""
    scale = {"ms": 1e3, "us": 1e6}[unit]
    moved = f"{r['moved_gb_per_s_median']:.{moved_places}f} / {r['moved_gb_per_s_best']:.{moved_places}f}" \
        if "moved_gb_per_s_median" in r else ""
    cells = [what, f"{r['median_s'] * scale:.{places}f} {unit}", f"{r['best_s'] * scale:.{places}f} {unit}", moved,
             *rest]
    return "| " + " | ".join(cells + [""] * (7 - len(cells))) + " |"


def _markdown(res: dict) -> str:
    lines = [f"GPU: {res['device']}; {res['versions']}; buffer {res['buffer_bytes'] / 1e9:.2f} GB", "",
             "| what | median | best | GB/s moved (median / best) | GB/s of data | equal to CPU | CPU core GB/s |",
             "| --- | --- | --- | --- | --- | --- | --- |",
             _row("device copy", res["copy"], "ms", 3)]
    lines += [_row(f"P+Q k={r['members']}", r, "ms", 3, 0, f"{r['data_gb_per_s_median']:.0f}",
                   str(r["identical_to_cpu"]), f"{r['cpu_one_core_data_gb_per_s']:.2f}") for r in res["members"]]
    lines += [_row(f"P+Q k=8, {r['threads_per_block']} threads per block", r, "ms", 3, 0,
                   f"{r['data_gb_per_s_median']:.0f}") for r in res["threads"]]
    lines.append(_row("an empty kernel's launch", res["empty_kernel"], "us", 1))
    lines += [_row(f"P+Q k=22, {r['stripes']} stripes of 4 KiB per launch", r, "us", 1, 0,
                   f"{r['data_gb_per_s_median']:.1f} ({r['median_us_per_stripe']:.4f} us per stripe)")
              for r in res["batches"]]
    lines += [_row(f"gen_pq_gpu from host, k={r['members']}", r, "ms", 1, 1,
                   f"{r['data_gb_per_s_median']:.1f} (copy in alone {r['copy_in_gb_per_s']:.1f})")
              for r in res["from_host"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gib", type=float, default=4.0, help="bytes of data per launch, GiB (default 4)")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--out", type=Path, default=Path("."))
    ap.add_argument("--quick", action="store_true", help="tiny sizes, few repeats (the simulator)")
    args = ap.parse_args(argv)
    global BATCH_STRIPES
    if args.quick:
        args.gib, args.repeats, BATCH_STRIPES = 1 / 4096, 2, (1, 4)
    if not gpu.available():
        print("skipped: no CUDA GPU (or numba.cuda) here")  # benchmarks/run.py runs every script
        return 0
    cuda, kernel = gpu._ready()
    t0 = time.perf_counter()
    words = int(args.gib * GIB) // 8  # each k takes the first k x (words // k) of them
    host_words = np.random.default_rng(0).integers(0, 1 << 63, size=words, dtype=np.uint64)
    host_words ^= host_words << np.uint64(1)  # top bits set too
    res = {"device": _device_name(cuda), "versions": _versions(), "buffer_bytes": words * 8,
           "repeats": args.repeats}
    res["copy"] = _copy_ceiling(cuda, words, args.repeats)
    res["members"], res["identical"] = _pq_members(cuda, kernel, host_words, args.repeats)
    res["threads"] = _threads(cuda, kernel, host_words, args.repeats)
    res["empty_kernel"] = _launch_floor(cuda, args.repeats)
    res["batches"] = _batches(cuda, kernel, args.repeats)
    res["from_host"] = _from_host(cuda, host_words, max(2, args.repeats // 5))
    res["wall_s"] = time.perf_counter() - t0
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu_pq.json").write_text(json.dumps(res, indent=1) + "\n")
    table = _markdown(res)
    (args.out / "gpu_pq.md").write_text(table)
    print(table)
    return 0 if res["identical"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
