"""Run every benchmark script in benchmarks/ (bench_*.py) one after another and show its output.

    python benchmarks/run.py            # all
    python benchmarks/run.py parity     # only bench_parity.py
    python benchmarks/run.py --quick    # pass --quick to each (smaller sizes)

Results are recorded by hand in docs/performance.md with the machine they ran on.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    flags = [a for a in argv if a.startswith("-")]
    names = [a for a in argv if not a.startswith("-")]
    scripts = sorted(HERE.glob("bench_*.py"))
    if names:
        scripts = [s for s in scripts if any(s.stem == f"bench_{n}" for n in names)]
    status = 0
    for script in scripts:
        print(f"== {script.name}", flush=True)
        status |= subprocess.call([sys.executable, str(script), *flags])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
