"""Rebuild prediction speed: how long (wall time) a rebuild's prediction takes.

Cases (each in a fresh process state of the catalog, first run = cold caches and Numba compiles):
  * the issue's case: a 30.72 TB KIOXIA CM7-R fails in a 23-drive RAID6 with a hot spare (24 bays; SupremeRAID SR-1010,
    64 KiB strip) under a 70/30 4 KiB load, hot spare: fluid timeline + risk (`rebuild_summary`);
  * the same with md RAID6 (linux-md);
  * the measured-window route: one event-mode window with the rebuild running (20,000 host I/Os),
    integrated over the member (`run_timeline(..., fidelity="event")`);
  * the MySQL brief's SupremeRAID RAID6 at 512 users, rebuilding (one OLTP state, fluid).

    python benchmarks/bench_rebuild.py [--quick]
"""

from __future__ import annotations

import sys
import time

from nvsim.catalog import default_catalog
from nvsim.rebuild import rebuild_summary, run_timeline
from nvsim.scenario import load_scenario, parse_scenario
from nvsim.simulation import Simulation


def case(engine: str):
    return parse_scenario({
        "name": f"23x30.72TB-raid6-{engine}", "platform": "supermicro-as-2125hs-tnr",
        "array": {"level": 6, "drive": "kioxia-cm7-r-30.72tb", "drives": 23, "strip_bytes": "64KiB", "engine": engine,
                  "hot_spares": 1},
        "faults": [{"at_s": 0, "drive": 5, "action": "fail"}],
        "workloads": [{"name": "mix70-b4k-j48-d16", "rw": "randrw", "bs": "4k", "numjobs": 48, "iodepth": 16, "rwmixread": 70}],
    }, default_catalog())


def timed(label: str, fn) -> None:
    start = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - start
    print(f"{label:62s} wall {wall:7.2f} s   {out}", flush=True)


def main(argv: list[str]) -> int:
    catalog = default_catalog()
    for engine in ("graid-supremeraid-sr1010", "linux-md"):
        s = case(engine)
        for attempt in ("first", "again"):
            timed(f"30.72 TB x 23 + spare RAID6 {engine}, fluid timeline + risk ({attempt})",
                  lambda: (lambda r: f"rebuild {r['rebuild_hours']:.2f} h at {r['rebuild_mb_per_s']:.0f} MB/s, "
                           f"P(loss) {r['data_loss_probability']:.1e}")(rebuild_summary(s, catalog)))
    if "--quick" not in argv:
        s = case("graid-supremeraid-sr1010")
        timed("30.72 TB x 23 + spare RAID6 SupremeRAID, event window + integration",
              lambda: (lambda t: f"rebuild {t.rebuilds[0].duration_s / 3600:.2f} h")(run_timeline(s, s.workloads[0], catalog, "event")))
        mysql = load_scenario("scenarios/graid-mysql-oltp/sr-raid6-rebuilding.yaml", catalog)
        w = next(w for w in mysql.workloads if w.users == 512)
        timed("MySQL brief: SupremeRAID RAID6, 512 users, rebuilding (OLTP state)",
              lambda: (lambda r: f"{r.transactions_per_s:,.0f} TPS, rebuild {r.rebuild_bytes_per_s / 1e6:.0f} MB/s")(
                  Simulation(mysql, w, catalog=catalog).run("fluid")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
