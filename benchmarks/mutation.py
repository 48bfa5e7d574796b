"""Scripted mutation run over nvsim's core: does a test of behaviour fail when the core is wrong?

Usage: python benchmarks/mutation.py [--only ID ...] [--list] [--write-doc docs/mutation.md]

Each mutation is a hand-written source edit of the kind a real bug would be (an encoding term
dropped, the warm-up kept, a latency doubled, a seed that never reaches a random stream, fio
latencies in microseconds under fio's nanosecond keys, a fitted number reported as predicted, an
md rule's tie broken the other way ...). For each, the script edits a temporary copy of the tree,
runs the behaviour tests that cover that code (``pytest -x -q``: named test files, never the
tables regenerated from the model itself, docs/*.md or the validation table), and records whether
a test failed ("caught"), the run errored before any test could judge ("error": a crash at import
counts as caught, and is listed apart), or every test passed ("survived").

Not part of the test suite (tens of minutes on two cores). Numba: each mutant's source has its own
digest, so its kernels get their own cache directory (nvsim.numba_cache); a mutant of a module
without kernels shares the unmutated tree's directory (its compiled code cannot depend on that
module), so only mutants of kernel modules compile afresh. The score goes to docs/mutation.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nvsim.numba_cache import source_digest  # noqa: E402

COPIED = ("nvsim", "tests", "scenarios", "models", "dashboard", "pyproject.toml")
KERNEL_MARK = "njit"
"""A module whose source holds this word compiles Numba kernels: its mutants get a fresh cache."""
TEST_TIMEOUT_S = 900

EVENT = "tests/component/test_oracles_event.py"
PCIE = "tests/unit/test_oracles_pcie.py"
MD = "tests/unit/test_oracles_md.py"
FIO_JSON = "tests/integration/test_oracles_fio_json.py"


@dataclass(frozen=True)
class Mutation:
    id: str
    what: str
    path: str
    edits: tuple[tuple[str, str], ...]
    tests: tuple[str, ...]


def m(id_: str, what: str, path: str, old: str, new: str, *tests: str, more: tuple[tuple[str, str], ...] = ()) -> Mutation:
    return Mutation(id_, what, path, ((old, new), *more), tests)


MUTATIONS: tuple[Mutation, ...] = (
    # --- PCIe link terms
    m("pcie-no-128b130b", "128b/130b encoding dropped from the usable rate", "nvsim/pcie.py",
      "g.encoding_payload_bits.value,\n                               g.encoding_total_bits.value)", "1, 1)", PCIE, "tests/unit/test_pcie.py"),
    m("pcie-no-skp", "SKP ordered sets dropped", "nvsim/pcie.py",
      "g.encoding_total_bits.value) * skp_efficiency(g.skp_interval_blocks.value)", "g.encoding_total_bits.value)", PCIE),
    m("pcie-no-framing", "TLP framing (STP + LCRC) dropped", "nvsim/pcie.py",
      "tlp_count(payload_bytes, max_payload_bytes) * (header_bytes + framing_bytes)",
      "tlp_count(payload_bytes, max_payload_bytes) * header_bytes", PCIE),
    m("pcie-cpl-4dw", "completions priced with the 4DW request header", "nvsim/pcie.py",
      "g.completion_header_bytes.value,\n                                           g.tlp_framing_bytes.value), n_cpl",
      "g.tlp_header_bytes.value,\n                                           g.tlp_framing_bytes.value), n_cpl", PCIE),
    m("pcie-no-dllp", "ACK/UpdateFC DLLPs to the host dropped", "nvsim/pcie.py",
      "to_host = up_tlp + self.dllp_bytes(down, busy_s)", "to_host = up_tlp", PCIE),
    m("pcie-prp-one-page", "PRP list fetched beyond one page instead of two", "nvsim/pcie.py",
      "math.ceil(transfer_bytes / PAGE_BYTES) - 2)", "math.ceil(transfer_bytes / PAGE_BYTES) - 1)", PCIE),
    m("catalog-gen5-8b10b", "Gen5 link entry with 8b/10b-like encoding (128/160)", "models/links/pcie-gen5.yaml",
      "encoding_total_bits: {value: 130,", "encoding_total_bits: {value: 160,", PCIE),
    # --- drive model
    m("drive-read-latency-x2", "a drive's read latency doubled", "nvsim/sim/drive.py",
      "p.read_latency_us * 1e-6 - unit_read_4k", "p.read_latency_us * 2e-6 - unit_read_4k", EVENT),
    m("drive-write-latency-x2", "a drive's write latency doubled", "nvsim/sim/drive.py",
      "self.write_fixed_s = p.write_latency_us * 1e-6", "self.write_fixed_s = p.write_latency_us * 2e-6", EVENT),
    m("ssd-read-iops-x2", "random-read service rate doubled", "nvsim/ssd/derive.py",
      "read_iops = float(drive.rand_read_iops.value) * PAGE_BYTES", "read_iops = 2 * float(drive.rand_read_iops.value) * PAGE_BYTES", EVENT),
    # --- event mode
    m("event-keep-warmup", "the event mode's warm-up kept in the samples", "nvsim/sim/event/slots.py",
      "if finish >= run.warm_s:", "if True:", EVENT),
    m("event-window-from-zero", "rates divided by the whole run, warm-up included", "nvsim/sim/event/measure.py",
      "window = end_s - run.warm_s", "window = end_s", EVENT),
    m("event-no-warmup", "no warm-up at all (the start transient measured)", "nvsim/sim/event/window.py",
      "warm_ios = warmup_ios if warmup_ios is not None else max(3 * population, host_ios // 5)", "warm_ios = 0", EVENT),
    m("event-seed-ignored", "simulate_event ignores the seed it is given", "nvsim/sim/event/__init__.py",
      "seed = system.scenario.seed if seed is None else seed", "seed = system.scenario.seed", EVENT),
    m("seed-not-in-nand-stream", "the seed never reaches the NAND service-time stream", "nvsim/sim/event/rows.py",
      'named_rng(self.seed, "nand service times"', 'named_rng(1, "nand service times"', EVENT),
    m("seed-not-in-mix-stream", "the seed never reaches the read/write mix stream", "nvsim/sim/workload.py",
      'named_rng(self.seed, "read-write mix"', 'named_rng(0, "read-write mix"', EVENT),
    m("seed-not-in-offsets", "the seed never reaches the random offsets", "nvsim/sim/workload.py",
      'named_rng(self.seed, "random offsets"', 'named_rng(0, "random offsets"', EVENT),
    m("stream-batches-repeat", "every batch of a job draws the same offsets", "nvsim/sim/workload.py",
      '"random offsets", self.job, self._batches)', '"random offsets", self.job, 0)', EVENT),
    m("event-latency-from-device", "latency measured from the device's completion, not the submission", "nvsim/sim/event/slots.py",
      "run.latency.append(finish - self.t0)", "run.latency.append(finish - self.a)", EVENT),
    m("event-no-fixed-read", "the drive's fixed read latency skipped on the one-read path", "nvsim/sim/event/slots.py",
      "            a += servers.read_fixed_s\n", "            a += 0.0\n", EVENT),
    m("server-no-queue", "a reservation server never queues", "nvsim/sim/event/servers.py",
      "start = arrival if arrival > self.free else self.free", "start = arrival", EVENT),
    m("server-no-busy", "servers do not count busy time", "nvsim/sim/event/servers.py",
      "        self.busy += service\n        if self.heap is None:", "        if self.heap is None:", EVENT),
    m("latency-in-ms", "latency summary in milliseconds under the _us keys", "nvsim/sim/event/measure.py",
      "us = values_s * 1e6", "us = values_s * 1e3", EVENT),
    m("read-write-swapped", "read and write counts swapped in the result", "nvsim/sim/event/measure.py",
      "read_iops=n_read / window, write_iops=n_write / window", "read_iops=n_write / window, write_iops=n_read / window", EVENT),
    # --- fio JSON
    m("fio-lat-in-us", "fio JSON latencies written in us under fio's _ns keys", "nvsim/cli.py",
      '(samples["read"] * 1e9)', '(samples["read"] * 1e6)', FIO_JSON),
    m("fio-runtime-in-s", "fio JSON runtime in seconds (fio: ms)", "nvsim/fio/json_report.py",
      '"runtime": int(round(runtime_s * 1000)) if active else 0,', '"runtime": int(round(runtime_s)) if active else 0,', FIO_JSON),
    m("fio-bw-in-bytes", "fio JSON bw in bytes/s (fio: KiB/s)", "nvsim/fio/json_report.py",
      '"bw": bw_bytes // 1024,', '"bw": bw_bytes,', FIO_JSON),
    # --- validation labels
    m("fitted-as-predicted", "a declared fit reported as a prediction", "nvsim/validation.py",
      'f"{directory}/{number.id}" in fitted_ids,', "False,",
      "tests/validation/test_validation.py::test_validate_json_records_have_the_promised_fields"),
    # --- md rules
    m("md-rcw-reads-own-strip", "reconstruct-write also reads the strip being written (closed form)", "nvsim/raid.py",
      "rcw_reads = drives - p - 1", "rcw_reads = drives - p", MD),
    m("md-capacity-unrounded", "member capacity not rounded to whole strips", "nvsim/raid.py",
      "member = member_bytes - member_bytes % strip_bytes", "member = member_bytes", MD),
    m("md-full-stripe-parity", "full-stripe write bytes miscount the parity", "nvsim/raid.py",
      "return drives / (drives - p)", "return drives / (drives - p + 1)", MD),
    m("md-raid10-tolerance", "RAID10 said to survive as many failures as it has copies", "nvsim/raid.py",
      "10: near_copies - 1}[level]", "10: near_copies}[level]", MD),
    m("planner-tie-to-rmw", "the planner breaks RMW/RCW ties towards RMW (kernel)", "nvsim/stripe/planner.py",
      "use_rmw = rmw < rcw and rmw > 0", "use_rmw = rmw <= rcw and rmw > 0", MD, "tests/unit/test_planner.py"),
    m("layout-raid5-asym", "RAID5 asymmetric data placement off by one (kernel)", "nvsim/stripe/layout.py",
      "return dd + 1 if dd >= pd else dd", "return dd + 1 if dd > pd else dd", "tests/unit/test_layout.py", MD),
    # --- parity core
    m("parity-wrong-polynomial", "Q reduced by 0x11b (AES's polynomial) instead of 0x11d", "nvsim/parity.py",
      "_1D = np.uint64(0x1D)", "_1D = np.uint64(0x1B)", "tests/unit/test_parity.py",
      more=(("_1D8 = np.uint64(0x1D1D1D1D1D1D1D1D)", "_1D8 = np.uint64(0x1B1B1B1B1B1B1B1B)"),)),
    m("parity-no-row-limit", "RAID6 recover accepts 256+ data rows again", "nvsim/parity.py",
      '        _check_q_rows(k, "blocks")\n', "        pass\n", "tests/unit/test_parity.py"),
    m("parity-gf-mask", "gf_mul masks values to a byte again", "nvsim/parity.py",
      'return int(GF_MUL[_field_element(a, "a"), _field_element(b, "b")])', "return int(GF_MUL[a & 0xFF, b & 0xFF])",
      "tests/unit/test_parity.py"),
    # --- written before these tests, against the suite's existing tests of other core modules
    m("ftl-spare-over-logical", "spare factor over the logical instead of the physical capacity", "nvsim/ftl/closed_form.py",
      "return (physical_bytes - logical_bytes) / physical_bytes", "return (physical_bytes - logical_bytes) / logical_bytes",
      "tests/unit/test_ftl.py"),
    m("ftl-iu-no-rmw", "sub-IU writes cost no read-modify-write", "nvsim/ftl/closed_form.py",
      "return (last - first + 1) * iu_bytes / write_bytes", "return 1.0", "tests/unit/test_ftl.py"),
    m("risk-failure-rate-constant", "every Markov state fails at n lambda (survivors not counted down)", "nvsim/risk.py",
      "up = (n - k) * lam", "up = n * lam", "tests/unit/test_risk.py"),
    m("risk-raid10-one-set", "a RAID10 counted as one mirror set", "nvsim/risk.py",
      "sets = max(1, drives // copies) if level == 10 else 1", "sets = 1", "tests/unit/test_risk.py"),
    m("units-tb-binary", "TB parsed as TiB", "nvsim/units.py",
      '"TB": 10**12,', '"TB": 2**40,', "tests/unit/test_units.py"),
    m("platform-smt-full-core", "an SMT sibling counted as a whole core", "nvsim/platform.py",
      "return min(n, cores) + max(0.0, n - cores) * (smt_gain - 1.0) / max(1, threads_per_core - 1)",
      "return n", "tests/unit/test_platform.py", "tests/unit/test_oracles_platform.py"),
    m("wear-no-rated-waf", "effective DWPD not divided by the rated WAF", "nvsim/wear.py",
      "return nand_write_bytes_per_s * SECONDS_PER_DAY / capacity_bytes / rated_waf",
      "return nand_write_bytes_per_s * SECONDS_PER_DAY / capacity_bytes", "tests/ui/test_dashboard.py"),
    # --- the cache
    m("numba-cache-top-level", "the source digest sees only top-level modules", "nvsim/numba_cache.py",
      'sorted(package_dir.rglob("*.py"))', 'sorted(package_dir.glob("*.py"))', "tests/unit/test_numba_cache.py"),
)


@dataclass
class Outcome:
    id: str
    verdict: str  # caught | error | survived | not-applied
    seconds: float
    detail: str


def make_tree(where: Path) -> Path:
    tree = where / "tree"
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache"))
        else:
            shutil.copy2(source, tree / name)
    return tree


def pytest_run(tree: Path, tests: tuple[str, ...], cache_root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(cache_root), PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "0", *tests]
    return subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=TEST_TIMEOUT_S)


def last_line(result: subprocess.CompletedProcess) -> str:
    lines = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    return (failed[0] if failed else lines[-1] if lines else "")[:200]


def share_cache(tree: Path, cache_root: Path, baseline: str) -> None:
    """A mutant without kernel changes reuses the unmutated tree's compiled kernels."""
    target = cache_root / source_digest(tree / "nvsim")
    if not target.exists():
        target.symlink_to(cache_root / baseline, target_is_directory=True)


def run_mutation(tree: Path, mutation: Mutation, cache_root: Path, baseline: str) -> Outcome:
    path = tree / mutation.path
    original = path.read_text()
    stat = path.stat()
    text = original
    for old, new in mutation.edits:
        if text.count(old) != 1:
            return Outcome(mutation.id, "not-applied", 0.0, f"{old[:60]!r} found {text.count(old)} times")
        text = text.replace(old, new)
    started = time.monotonic()
    try:
        path.write_text(text)
        if KERNEL_MARK not in original:
            share_cache(tree, cache_root, baseline)
        result = pytest_run(tree, mutation.tests, cache_root)
    finally:
        path.write_text(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # Numba's index keys on the file's time
    seconds = time.monotonic() - started
    verdict = {0: "survived", 1: "caught"}.get(result.returncode, "error")
    return Outcome(mutation.id, verdict, seconds, last_line(result))


def markdown(outcomes: list[Outcome], baseline_s: float) -> tuple[str, str]:
    by_id = {mu.id: mu for mu in MUTATIONS}
    judged = [o for o in outcomes if o.verdict != "not-applied"]
    caught = sum(o.verdict in ("caught", "error") for o in judged)
    rows = ["| mutation | what it breaks | tests run | verdict: first failing test | s |", "|---|---|---|---|---:|"]
    for o in outcomes:
        mu = by_id[o.id]
        tests = ", ".join(t.replace("tests/", "") for t in mu.tests)
        failing = o.detail.split(" - ")[0].removeprefix("FAILED ").split("::", 1)[-1] if o.verdict == "caught" else o.detail
        rows.append(f"| `{o.id}` | {mu.what} (`{mu.path}`) | {tests} | {o.verdict}: `{failing}` | {o.seconds:.0f} |")
    score = f"{caught} of {len(judged)} caught ({100 * caught / max(1, len(judged)):.0f}%)"
    return score, "\n".join(rows)


DOC = """# Mutation run: do the behaviour tests catch a broken core?

Issue 24 (item 8) asks that tests fail where it matters: a hand mutation of the core must be
caught by a test of behaviour (an independent oracle: queueing arithmetic, the datasheet, the PCIe
specification's arithmetic, a real fio output, md's rules worked by hand), not only by a table
regenerated from the model itself.

`python benchmarks/mutation.py --write-doc docs/mutation.md` applies each of the hand mutations
below to a temporary copy of the tree, runs the behaviour tests named for it (`pytest -x -q`,
never docs tables or the validation table) and records the verdict: *caught* (a test failed),
*error* (the mutant could not even be imported or collected; counted as caught), *survived*
(every test passed). It is not part of the test suite: it takes about ten minutes on two shared
cores (most mutants a few seconds; those of Numba kernel modules compile their kernels afresh).

**Score: {score}** (target: at least 95%). Measured {date} on {machine}; baseline (unmutated
tree, every test file below) passed in {baseline:.0f} s.

{table}

Not in the list: breaking the closed form's RMW/RCW tie the other way (`rmw_reads <= rcw_reads`
in `nvsim/raid.py`) is an equivalent mutant: at a tie both choices read the same number of blocks,
so no test can tell them apart (the planner's tie, where the blocks differ, is `planner-tie-to-rmw`).
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="mutation ids to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--write-doc", type=Path, help="write the result as this markdown file")
    parser.add_argument("--json", type=Path, help="write the outcomes as JSON")
    parser.add_argument("--from-json", type=Path, help="only render --write-doc from a JSON written by --json")
    args = parser.parse_args()
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        write_doc(args.write_doc, [Outcome(**o) for o in saved["outcomes"]], saved["baseline_s"])
        return 0
    chosen = [mu for mu in MUTATIONS if not args.only or mu.id in args.only]
    if args.list:
        for mu in chosen:
            print(f"{mu.id:28s} {mu.path:32s} {mu.what}")
        return 0
    with tempfile.TemporaryDirectory(prefix="nvsim-mutation-") as scratch:
        tree = make_tree(Path(scratch))
        cache_root = Path(scratch) / "numba"
        baseline = source_digest(tree / "nvsim")
        every_test = tuple(sorted({t for mu in chosen for t in mu.tests}))
        started = time.monotonic()
        result = pytest_run(tree, every_test, cache_root)
        baseline_s = time.monotonic() - started
        if result.returncode != 0:
            print(f"the unmutated tree fails its tests: {last_line(result)}", file=sys.stderr)
            return 1
        print(f"baseline passed in {baseline_s:.0f} s", flush=True)
        outcomes = []
        for mutation in chosen:
            outcome = run_mutation(tree, mutation, cache_root, baseline)
            outcomes.append(outcome)
            print(f"{outcome.verdict:11s} {outcome.seconds:5.0f} s  {outcome.id}: {outcome.detail}", flush=True)
    print(markdown(outcomes, baseline_s)[0])
    if args.json:
        args.json.write_text(json.dumps({"baseline_s": baseline_s, "outcomes": [o.__dict__ for o in outcomes]}, indent=1))
    if args.write_doc:
        write_doc(args.write_doc, outcomes, baseline_s)
    return 0


def write_doc(path: Path, outcomes: list[Outcome], baseline_s: float) -> None:
    score, table = markdown(outcomes, baseline_s)
    machine = f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
    path.write_text(DOC.format(score=score, date=time.strftime("%Y-%m-%d"), machine=machine, baseline=baseline_s,
                               table=table))


if __name__ == "__main__":
    sys.exit(main())
