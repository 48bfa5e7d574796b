"""The bad-input corpus: every case one malformed input a careless or hostile user could give, the
command it goes to, and the one line nvsim must answer with (a regular expression).

Kinds of input: ``scenario`` (a field of a valid scenario changed), ``scenario_text`` (the bytes of
a scenario file), ``fio`` (a fio job file), ``sweep`` (a sweep spec), ``plan`` (a plan's requirements), ``catalog`` (one catalog
entry, or the bibliography, changed in a copy of models/), ``cli`` (command-line options). Each
case runs in its own empty folder; ``test_corpus.py`` checks exit status 2, one line on stderr
matching the pattern, no traceback, and no file left behind.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

BASE_SCENARIO: dict[str, Any] = {
    "name": "corpus",
    "description": "8x KIOXIA CM7-R 3.84 TB, md RAID6, for the bad-input corpus",
    "platform": "supermicro-as-2125hs-tnr",
    "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB", "engine": "linux-md"},
    "workloads": [{"name": "randread", "rw": "randread", "bs": "4k", "iodepth": 32, "numjobs": 8, "runtime": 60}],
}
"""A valid scenario every ``scenario`` case changes one thing of."""
GRAID_SCENARIO = "scenarios/graid-gen5-raid6/scenario.yaml"
IDLE_SCENARIO = "scenarios/rebuild-measured/md-10x-idle.yaml"  # no workload: a rebuild with no host I/O
FIO_SYSTEM = "scenarios/graid-gen5-raid6"
GOOD_FIO_JOB = "[global]\nioengine=libaio\ndirect=1\nruntime=60\ntime_based=1\n[job]\nrw=randread\nbs=4k\niodepth=32\nnumjobs=8\n"


@dataclass(frozen=True)
class Case:
    """One bad input: ``kind``, what to write or change (``data``), extra arguments (``argv``)
    and the pattern of the one line expected on stderr."""

    id: str
    kind: str
    data: Any
    pattern: str
    argv: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)


NAN, INF = float("nan"), float("inf")
DELETE = object()
"""A ``scenario`` change that removes the field."""


def changed(base: dict, path: str, value: Any) -> dict:
    """A deep copy of ``base`` with the dotted ``path`` set to ``value`` (``workloads.0.bs``)."""
    data = copy.deepcopy(base)
    parts = path.split(".")
    node: Any = data
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last: Any = int(parts[-1]) if isinstance(node, list) else parts[-1]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return data


W = "workloads.0."
SCENARIO_FIELDS: list[tuple[str, Any, str]] = [
    # the array: level, drives, strip, namespace, engine
    ("array.level", 2, r"array\.level: .*0, 1, 5, 6 or 10|array\.level: Input should be 0, 1, 5, 6 or 10"),
    ("array.level", 3, r"array\.level"), ("array.level", 4, r"array\.level"), ("array.level", 7, r"array\.level"),
    ("array.level", "six", r"array\.level"), ("array.level", -1, r"array\.level"), ("array.level", None, r"array\.level"),
    ("array.level", True, r"array\.level: must be a number, got true"),  # True is 1 to a Literal: it ran RAID1
    ("array.level", DELETE, r"array\.level: required field is missing"),
    ("array.drives", 0, r"array\.drives: .*greater than or equal to 1"),
    ("array.drives", -1, r"array\.drives: .*greater than or equal to 1"),
    ("array.drives", 257, r"array\.drives: .*less than or equal to 256"),
    ("array.drives", 1024, r"array\.drives: .*less than or equal to 256"),
    ("array.drives", 100000, r"array\.drives: .*less than or equal to 256"),
    ("array.drives", 2.5, r"array\.drives"), ("array.drives", "many", r"array\.drives"),
    ("array.drives", 3, r"RAID6 needs at least 4 drives, got 3"), ("array.drives", None, r"array\.drives"),
    ("array.drives", [8], r"array\.drives"), ("array.drives", {"n": 8}, r"array\.drives"),
    ("array.strip_bytes", "48KiB", r"strip_bytes: md takes only a power-of-two chunk for RAID6"),
    ("array.strip_bytes", "12KiB", r"strip_bytes: md takes only a power-of-two chunk"),
    ("array.strip_bytes", "96KiB", r"strip_bytes: md takes only a power-of-two chunk"),
    ("array.strip_bytes", "6KiB", r"array\.strip_bytes: .*multiple of 4 KiB"),
    ("array.strip_bytes", "8TiB", r"strip_bytes: larger than the member namespace; allowed: at most 3\.84 TB, got 8\.80 TB"),
    ("array.strip_bytes", 0, r"array\.strip_bytes: .*multiple of 4 KiB"),
    ("array.strip_bytes", -4096, r"array\.strip_bytes: .*multiple of 4 KiB"),
    ("array.strip_bytes", "4 parsecs", r"array\.strip_bytes: unknown size unit"),
    ("array.strip_bytes", 3.5, r"array\.strip_bytes: .*whole number"),
    ("array.strip_bytes", NAN, r"array\.strip_bytes"), ("array.strip_bytes", "4 TB", r"strip_bytes"),
    ("array.strip_bytes", True, r"array\.strip_bytes"),
    ("array.namespace_bytes", 1000, r"namespace_bytes: must be a whole number of 512-byte sectors"),
    ("array.namespace_bytes", "1.0000001 TB", r"namespace_bytes: must be a whole number of 512-byte sectors"),
    ("array.namespace_bytes", "100 TB", r"namespace_bytes: .*larger than the drive"),
    ("array.namespace_bytes", -512, r"namespace_bytes"), ("array.namespace_bytes", 0, r"namespace_bytes"),
    ("array.near_copies", 1, r"array\.near_copies: .*greater than or equal to 2"),
    ("array.near_copies", 5, r"array\.near_copies: .*less than or equal to 4"),
    ("array.layout", "diagonal", r"layout: RAID6 allows left-symmetric"),
    ("array.layout", "near", r"layout: RAID6 allows"),
    ("array.engine", "md", r"array\.engine: unknown engine 'md'"),
    # with no near name to suggest, the unknown name ran into 'allowed:' with no separator ("unknown engine 'qqqq' allowed: ...")
    ("array.engine", "qqqq", r"array\.engine: unknown engine 'qqqq'; allowed: "),
    ("array.engine_settings", {"mdadm": "4.3", "bitmap": "external", "bitmap_drive": "qqqq"},
     r"engine_settings\.bitmap_drive: unknown drive 'qqqq'; allowed: a drive of the catalog"),
    (W + "rw", "qqqq", r"workloads\[0\]: rw: unknown 'qqqq'; allowed: "),
    ("array.engine", "", r"array\.engine: unknown engine"),
    ("array.engine", 7, r"array\.engine"),
    ("array.drive", "kioxia-cm7", r"array\.drive: unknown drive"), ("array.drive", 7, r"array\.drive"),
    ("array.drive", DELETE, r"array\.drive: required field is missing"),
    ("array.hot_spares", -1, r"array\.hot_spares"), ("array.hot_spares", 65, r"array\.hot_spares"),
    ("array.rebuild", {"speed_limit_min_kib_per_s": 0}, r"speed_limit_min_kib_per_s: 0 KiB/s; allowed: a whole number of KiB/s from 1"),
    ("array.rebuild", {"speed_limit_max_kib_per_s": -1}, r"speed_limit_max_kib_per_s"),
    ("array.rebuild", {"speed_limit_min_kib_per_s": 1000.5}, r"speed_limit_min_kib_per_s: 1000\.5 KiB/s; allowed: a whole number of KiB/s from 1 to 2,147,483,647"),
    ("array.rebuild", {"speed_limit_max_kib_per_s": 1e30}, r"speed_limit_max_kib_per_s: 1e\+30 KiB/s; allowed: a whole number"),
    ("array.rebuild", {"sync_speed_max_kib_per_s": 2**31}, r"sync_speed_max_kib_per_s: 2147483648 KiB/s; allowed: a whole number"),
    ("array.rebuild", {"sync_speed_max_kib_per_s": 0}, r"sync_speed_max_kib_per_s: 0 KiB/s; allowed: a whole number of KiB/s from 1"),
    ("array.rebuild", {"priority": "urgent"}, r"array\.rebuild\.priority"),
    ("array.rebuild", {"span_bytes": 0}, r"span_bytes: must be > 0"),
    ("array.rebuild", {"span_bytes": -4096}, r"span_bytes"),
    ("array.rebuild", {"span_bytes": "100TB"}, r"array: rebuild\.span_bytes: more than a member holds; allowed: at most 3\.84 TB"),
    ("array.rebuild", {"speed": 1}, r"array\.rebuild\.speed: unknown key"),
    ("array.rebuild", {"priority": "high"}, r"rebuild\.priority: linux-md's rebuild does not read it.*allowed: span_bytes, speed_limit"),
    ("array.rebuild", {"rate_percent": 30}, r"rebuild\.rate_percent: linux-md's rebuild does not read it"),
    ("array.engine_settings", {"bogus": 1}, r"array\.engine_settings\.bogus: unknown key; allowed keys: bitmap, "),
    ("array.engine_settings", {"kernel": 6.10}, r"engine_settings\.kernel: .*\(got 6\.1\); a version is text: quote it"),
    ("array.engine_settings", {"kernel": "6.10"}, r"engine_settings\.kernel: Input should be .*\(got '6\.10'\)$"),
    # the hint that a version is text was given for any number where a word is allowed: bitmap: 0, a card's
    # write_policy: 1, a rebuild priority: 5 were told to quote a version; the line ends with what is allowed
    ("array.engine_settings", {"bitmap": 0}, r"engine_settings\.bitmap: Input should be 'internal', 'external' or 'none' \(got 0\)$"),
    ("array.engine_settings", {"mdadm": 4.3}, r"engine_settings\.mdadm: .*\(got 4\.3\); a version is text: quote it"),
    # a bounded number of the wrong type named the type only (pydantic's 'Input should be a finite number',
    # 'Unable to parse input string as an integer, exceeded maximum size'): the line now ends with the range
    ("array.engine_settings", {"stripe_cache_size": 1e300}, r"engine_settings\.stripe_cache_size: .*\(got 1e\+300\); allowed: a whole number from 17 to 32768$"),
    ("array.engine_settings", {"group_thread_cnt": NAN}, r"engine_settings\.group_thread_cnt: .*\(got nan\); allowed: a whole number from 0 to 8192$"),
    ("array.engine_settings", {"bitmap": "internal", "bitmap_daemon_sleep_s": None},
     r"engine_settings\.bitmap_daemon_sleep_s: Input should be a valid number \(got None\); allowed: a number from 0\.001 to 3600$"),
    ("array.hot_spares", "two", r"array\.hot_spares: .*\(got 'two'\); allowed: a whole number from 0 to 64$"),
    ("array.rebuild", {"rate_percent": 1e300}, r"rebuild\.rate_percent: .*; allowed: a whole number above 0 and at most 100$"),
    ("array.rebuild", {"priority": 5}, r"rebuild\.priority: Input should be 'low', 'normal' or 'high' \(got 5\)$"),
    ("array.engine_settings", {"group_thread_cnt": -1}, r"array\.engine_settings\.group_thread_cnt"),
    ("array.engine_settings", {"group_thread_cnt": 8193}, r"array\.engine_settings\.group_thread_cnt: .*8192"),
    ("array.near_copies", 3, r"array: near_copies: the copies of RAID10's near layout; RAID6 has none \(leave it out\)"),
    ("array.engine_settings", {"stripe_cache_size": 16}, r"array\.engine_settings\.stripe_cache_size: .*greater than or equal to 17"),
    ("array.engine_settings", {"stripe_cache_size": 40000}, r"array\.engine_settings\.stripe_cache_size: .*less than or equal to 32768"),
    ("array.engine_settings", {"mdadm": "5.0"}, r"array\.engine_settings\.mdadm: .*'4\.3'"),
    ("array.engine_settings", {"mdadm": "4.4", "bitmap": "external"}, r"engine_settings\.bitmap: mdadm 4\.4 keeps no bitmap in a file"),
    ("array.engine_settings", {"bitmap_chunk_bytes": "128MiB"}, r"engine_settings\.bitmap_chunk_bytes: .*does not name"),
    ("array.engine_settings", {"mdadm": "4.3", "bitmap": "external", "bitmap_drive": "no-such-drive"},
     r"engine_settings\.bitmap_drive: unknown drive 'no-such-drive'"),
    ("array.engine_settings", {"bitmap": "none", "bitmap_drive": "kioxia-cm7-r-3.84tb"},
     r"engine_settings\.bitmap_drive: .*allowed: with bitmap: external"),
    ("array.unclean_shutdown", "sometimes", r"array\.unclean_shutdown"),
    ("array.engine_settings", {"bitmap": "internal", "bitmap_daemon_sleep_s": 1e-9},
     r"engine_settings\.bitmap_daemon_sleep_s: .*greater than or equal to 0\.001"),  # one jiffy
    ("array.engine_settings", {"bitmap": "internal", "bitmap_chunk_bytes": "1MiB"},  # super1.c add_internal_bitmap1
     r"engine_settings\.bitmap_chunk_bytes: mdadm 4\.3 refuses .* below 4 MiB on 3\.84 TB members .*allowed: 4 MiB to 2 GiB"),
    ("array.engine_settings", {"mdadm": "3.3", "bitmap": "internal", "bitmap_added": "grow", "bitmap_chunk_bytes": "8MiB"},
     r"engine_settings\.bitmap_chunk_bytes: .*the 32 KiB it leaves them on a grow.*allowed: 16 MiB to 2 GiB"),
    ("array.engine_settings", {"bitmap": "external", "bitmap_added": "grow"}, r"engine_settings\.bitmap_added: .*allowed: with bitmap: internal"),
    # md's __le32 chunksize; the range in bytes with units (it was pydantic's 'less than or equal to 2147483648', and
    # the size reader's 'at most 2^64 bytes' for 1e300)
    ("array.engine_settings", {"bitmap": "internal", "bitmap_chunk_bytes": "4GiB"},
     r"engine_settings\.bitmap_chunk_bytes: .*allowed: 4 KiB to 2 GiB \(a power of two\), or leave it unset; got '4GiB'$"),
    ("array.engine_settings", {"bitmap": "internal", "bitmap_chunk_bytes": "64GiB"},
     r"engine_settings\.bitmap_chunk_bytes: .*allowed: 4 KiB to 2 GiB \(a power of two\), or leave it unset; got '64GiB'$"),
    ("array.engine_settings", {"bitmap": "internal", "bitmap_chunk_bytes": 1e300},
     r"engine_settings\.bitmap_chunk_bytes: .*allowed: 4 KiB to 2 GiB \(a power of two\), or leave it unset; got 1e\+300$"),
    ("array.engine_settings", {"bitmap": "internal", "bitmap_chunk_bytes": "2KiB"},
     r"engine_settings\.bitmap_chunk_bytes: .*allowed: 4 KiB to 2 GiB \(a power of two\), or leave it unset; got '2KiB'$"),
    ("array.engine_settings", {"bitmap": "internal", "bitmap_chunk_bytes": "3MiB"},
     r"engine_settings\.bitmap_chunk_bytes: .*allowed: 4 KiB to 2 GiB \(a power of two\), or leave it unset; got '3MiB'$"),
    ("array.stripe", "4KiB", r"array\.stripe: unknown key; did you mean 'strip_bytes'"),
    ("array", "raid6", r"array: .*(dictionary|mapping|object)"), ("array", None, r"array"), ("array", [], r"array"),
    # the top level
    ("name", "", r"name: .*at least 1 character"), ("name", None, r"name"), ("name", DELETE, r"name: required field"),
    ("name", "x" * 300, r"name: .*at most 200 characters"),
    ("description", "d" * 20_000, r"description: .*at most 10000 characters"),
    ("platform", "supermicro", r"platform: unknown platform"), ("platform", 5, r"platform"),
    ("seed", -1, r"seed: .*greater than or equal to 0"), ("seed", "abc", r"seed"), ("seed", 1.5, r"seed"),
    ("colour", "blue", r"colour: unknown key"),
    ("workloads", "randread", r"workloads"), ("workloads", 5, r"workloads"), ("workloads", {"a": 1}, r"workloads"),
    ("faults", [{"at_s": 0, "drive": 99, "action": "fail"}], r"faults\[0\]\.drive: drive 99 does not exist"),
    ("faults", [{"at_s": -1, "drive": 0, "action": "fail"}], r"faults\[0\]\.at_s"),
    ("faults", [{"at_s": NAN, "drive": 0, "action": "fail"}], r"faults\[0\]\.at_s: .*finite"),
    ("faults", [{"at_s": 0, "drive": 0, "action": "explode"}], r"faults\[0\]\.action"),
    ("faults", [{"at_s": 5, "drive": 0, "action": "fail"}, {"at_s": 1, "drive": 1, "action": "fail"}],
     r"faults\[1\]\.at_s: events must be in time order"),
    ("faults", [{"at_s": 0, "drive": -1, "action": "fail"}], r"faults\[0\]\.drive"),
    ("faults", "fail drive 0", r"faults"),
    ("faults", [{"at_s": i, "drive": 0, "action": "fail"} for i in range(1025)], r"faults: .*at most 1024 items"),
    ("workloads", [dict(BASE_SCENARIO["workloads"][0], name=f"w{i}") for i in range(257)], r"workloads: .*at most 256 items"),
    ("placement", {"drive_sockets": [0, 1]}, r"placement\.drive_sockets: give one socket per drive"),
    ("placement", {"drive_sockets": [5] * 8}, r"placement\.drive_sockets: socket 5 does not exist"),
    ("placement", {"engine_socket": 9}, r"placement\.engine_socket: socket 9 does not exist"),
    ("placement", {"engine_socket": -1}, r"placement\.engine_socket"),
    ("placement", {"job_sockets": [3]}, r"placement\.job_sockets: socket 3 does not exist"),
    # jobs on no socket: an empty list ran as the default, jobs on every socket (Platform.job_sockets' `or`)
    ("placement", {"job_sockets": []}, r"placement\.job_sockets: an empty list puts the jobs on no socket; allowed: sockets 0\.\.1, or leave it out"),
    # the platform's topology (issue 20): bays, slots, switches, retimers, VMD
    ("array.drives", 30, r"array\.drives: 30 drives do not fit the 24 bays of supermicro-as-2125hs-tnr; allowed: at most 24"),
    ("topology", {"backplane": "e3s-16x-gen5"}, r"topology\.backplane: e3s-16x-gen5 takes E3\.S drives"),
    ("topology", {"backplane": "backplane-9"}, r"topology\.backplane: unknown backplane 'backplane-9'"),
    ("topology", {"backplanes": 0}, r"topology\.backplanes: .*greater than or equal to 1"),
    ("topology", {"attach": "slots"}, r"topology\.attach: slots take add-in cards; kioxia-cm7-r-3\.84tb is 2\.5-inch U\.2"),
    ("topology", {"attach": "cables"}, r"topology\.attach"),
    ("topology", {"bifurcation": {"slot1-x16": [8, 8, 8]}}, r"topology\.bifurcation\.slot1-x16: 8 \+ 8 \+ 8 lanes is more"),
    ("topology", {"bifurcation": {"slot9": [4]}}, r"topology\.bifurcation: supermicro-as-2125hs-tnr has no slot 'slot9'"),
    ("topology", {"bifurcation": {"slot1-x16": [3]}}, r"topology\.bifurcation\.slot1-x16"),
    ("topology", {"switches": {"model": "pex9000"}}, r"topology\.switches\.model: unknown switch 'pex9000'"),
    ("topology", {"switches": {"model": "broadcom-pex89104", "uplink_lanes": 12}}, r"topology\.switches\.uplink_lanes"),
    ("topology", {"switches": {"model": "broadcom-pex89104", "count": 0}}, r"topology\.switches\.count"),
    ("topology", {"switches": {"model": "broadcom-pex89104", "count": 9}},
     r"topology: the switches' uplinks need 144 PCIe lanes of root ports; supermicro-as-2125hs-tnr "
     r"has 128 \(2 x 64\); allowed: fewer switches or narrower uplinks"),
    ("topology", {"retimer": "aries"}, r"topology\.retimer: unknown retimer 'aries'"),
    ("topology", {"vmd": True}, r"topology\.vmd: VMD is a feature of Intel Xeon CPUs"),
    ("topology", {"vmd": "sometimes"}, r"topology\.vmd"),
    ("topology", {"switch": "broadcom-pex89104"}, r"topology\.switch: unknown key"),
    ("topology", "switched", r"topology"),
    # the workload
    (W + "rw", "randomread", r"workloads\[0\]: rw: unknown .randomread.; did you mean .randread."), (W + "rw", "trim", r"workloads\[0\]\.rw: trim \(job \[randread\]\) cannot be simulated on this array: md RAID 6 "),
    (W + "rw", 5, r"workloads\[0\]\.rw"), (W + "rw", DELETE, r"workloads\[0\]\.rw: required field"),
    (W + "bs", 0, r"workloads\[0\]\.bs: .*positive multiple of 512"),
    (W + "bs", "1000", r"workloads\[0\]\.bs: .*positive multiple of 512"),
    (W + "bs", -4096, r"workloads\[0\]\.bs: .*positive multiple of 512"),
    (W + "bs", "4 parsecs", r"workloads\[0\]\.bs: unknown size unit"),
    (W + "bs", NAN, r"workloads\[0\]\.bs"), (W + "bs", INF, r"workloads\[0\]\.bs"),
    (W + "bs", "1TiB", r"workloads\[0\]\.bs: a 1,099,511,627,776-byte block means planning at least .* member pages "
                       r"\(limit 16,777,216; set NVSIM_MAX_PLANNED_PAGES to raise it\)"),
    (W + "bs", "64GiB", r"workloads\[0\]\.bs: .*NVSIM_MAX_PLANNED_PAGES"),
    (W + "bs", "64MiB", r"workloads\[0\]\.bs: 67,108,864-byte blocks mean planning about 1,179,648,000 member pages in "
                        r"the event mode \(limit 1,073,741,824; set NVSIM_MAX_EVENT_PAGES to raise it, or use --fidelity fluid\)"),
    (W + "iodepth", 0, r"workloads\[0\]\.iodepth: .*greater than or equal to 1"),
    (W + "iodepth", -1, r"workloads\[0\]\.iodepth"), (W + "iodepth", 70000, r"workloads\[0\]\.iodepth: .*less than"),
    (W + "iodepth", 1.5, r"workloads\[0\]\.iodepth"), (W + "iodepth", "deep", r"workloads\[0\]\.iodepth"),
    (W + "iodepth", 65536, r"workloads\[0\]\.iodepth: iodepth x numjobs = 524,288 I/Os in flight need about 2\.7 GB "
                           r"in the event mode \(limit 262,144 slots; set NVSIM_MAX_EVENT_SLOTS"),
    (W + "numjobs", 0, r"workloads\[0\]\.numjobs"), (W + "numjobs", 65537, r"workloads\[0\]\.numjobs"),
    (W + "numjobs", 65536, r"workloads\[0\]\.iodepth: iodepth x numjobs = 2,097,152 I/Os in flight"),
    (W + "rwmixread", -1, r"workloads\[0\]\.rwmixread"), (W + "rwmixread", 101, r"workloads\[0\]\.rwmixread"),
    (W + "size", -1, r"workloads\[0\]\.size: .*greater than 0"), (W + "size", 0, r"workloads\[0\]\.size: .*greater than 0"),
    (W + "size", "1e400", r"workloads\[0\]\.size: must be at most 2\^64 bytes"),
    ("array.namespace_bytes", "1E400", r"array\.namespace_bytes: must be at most 2\^64 bytes"),
    ("seed", 2**70, r"seed: .*less than 18446744073709551616"),
    (W + "size", "-5G", r"workloads\[0\]\.size: .*greater than 0"), (W + "size", NAN, r"workloads\[0\]\.size"),
    (W + "offset_increment", -1, r"workloads\[0\]\.offset_increment: .*greater than or equal to 0"),
    (W + "offset_increment", "-1G", r"workloads\[0\]\.offset_increment"),
    (W + "runtime", -1, r"workloads\[0\]\.runtime: .*greater than 0"), (W + "runtime", 0, r"workloads\[0\]\.runtime"),
    (W + "runtime", NAN, r"workloads\[0\]\.runtime: must be a finite number"),
    (W + "runtime", INF, r"workloads\[0\]\.runtime: must be a finite number"),
    (W + "runtime", "-5s", r"workloads\[0\]\.runtime"), (W + "runtime", "forever", r"workloads\[0\]\.runtime"),
    (W + "runtime", "5 fortnights", r"workloads\[0\]\.runtime: unknown time unit"),
    (W + "runtime", "1E400", r"workloads\[0\]\.runtime: '1E400' is too large a number"),  # found by fuzzing
    (W + "ramp_time", -1, r"workloads\[0\]\.ramp_time: .*greater than or equal to 0"),
    (W + "ramp_time", NAN, r"workloads\[0\]\.ramp_time: must be a finite number"),
    (W + "ramp_time", -INF, r"workloads\[0\]\.ramp_time"),
    (W + "ioengine", "aio", r"workloads\[0\]\.ioengine: unknown ioengine 'aio'"),
    (W + "hipri", 2, r"workloads\[0\]\.hipri: must be 0 or 1"), (W + "hipri", "maybe", r"workloads\[0\]\.hipri"),
    (W + "hipri", 1, r"hipri: ioengine libaio does not take it"),
    (W + "iodepth_batch_submit", 0, r"workloads\[0\]\.iodepth_batch_submit"),
    (W + "users", 5, r"users/oltp: only for rw: oltp"),
    (W + "name", "", r"workloads\[0\]\.name: .*at least 1 character"),
    (W + "blocksize", "4k", r"workloads\[0\]\.blocksize: unknown key"),
    (W + "rw", "oltp", r"rw: oltp needs users and an oltp section"),
    # composite workloads (nvsim.workload.compose): a mix, pacing, trims, phases
    (W + "bssplit", "4k/70:128k/50", r"workloads\[0\]: bssplit: the percentages must add up to at most 100"),
    (W + "bssplit", "4k/70:64k/30,", r"workloads\[0\]: bssplit: the write split is empty in '4k/70:64k/30,'"),
    (W + "bssplit", "4k/70:1000/30", r"workloads\[0\]: bssplit: block size '1000' must be a positive multiple of 512"),
    (W + "bssplit", "4k/seventy", r"workloads\[0\]: bssplit: expected SIZE/PERCENT entries"),
    (W + "bsrange", "64k-4k", r"workloads\[0\]: bsrange: LOW must be a positive multiple of 512 bytes and HIGH at least LOW"),
    (W + "bs_mix", [{"bs": "4k", "share": 2}], r"workloads\[0\]\.bs_mix: a part's share of the I/Os must be in \(0, 1\]"),
    (W + "bs_mix", [{"bs": "4k", "share": 1, "rw": "trim"}], r"workloads\[0\]\.bs_mix: a part's rw must be read, write"),
    (W + "bs_mix", [{"bs": "4k", "share": 1}, {"bs": "8k", "share": 1}],
     r"workloads\[0\]\.bs_mix: the parts' shares of the I/Os must add up to at most 1, got 2$"),
    (W + "rwmixread", [1], r"workloads\[0\]\.rwmixread: .*valid integer"),  # named itself, not the bssplit beside it
    (W + "name", "rand\u202eread", r"workloads\[0\]\.name: must be printable text, got .* U\+202E$"),
    (W + "name", "rand\nread", r"workloads\[0\]\.name: must be printable text, got .* U\+000A$"),
    (W + "phase", "p\x1b[2J", r"workloads\[0\]\.phase: must be printable text, got .* U\+001B$"),
    (W + "name", "=HYPERLINK(\"http://x\")", r"workloads\[0\]\.name: must not begin with '=': a spreadsheet"),
    # a field that would change nothing where it is given (the hunt of 2026-11-30; 2026-12-01's)
    ("array", dict(BASE_SCENARIO["array"], level=5, engine="broadcom-megaraid-9670w-16i",
                   rebuild={"rate_percent": 50, "priority": "low"}),
     r"array: rebuild\.priority: with rate_percent the card rebuilds at that rate"),
    ("array", dict(BASE_SCENARIO["array"], level=5, engine="broadcom-megaraid-9670w-16i", rebuild={"rate_percent": 12.5}),
     r"array\.rebuild\.rate_percent: .*integer"),  # a whole percent, as storcli's rebuildrate takes it
    # storcli's rebuildrate=0: the lowest priority, not stopped; the event mode books the rebuild at its share (it
    # divided by the share of 0 there: a traceback) and cannot run it only on what the host leaves idle
    ("array", dict(BASE_SCENARIO["array"], level=5, engine="broadcom-megaraid-9670w-16i", rebuild={"rate_percent": 0}),
     r"array\.rebuild\.rate_percent: 0 is storcli's lowest rebuild rate .* not modelled.*; allowed: a whole percent from 1 to 100$"),
    ("array", dict(BASE_SCENARIO["array"], engine="ideal-raid", rebuild={"priority": "low"}),
     r"array: rebuild\.priority: ideal-raid's rebuild does not read it, so it would change nothing.*allowed: span_bytes$"),
    ("array", dict(BASE_SCENARIO["array"], hot_spares=1, replace_hours=24),
     r"array: replace_hours: a hot spare takes the slot at once, so there is no wait"),
    ("array", {"level": 10, "drive": "intel-d7-p5510-3.84tb", "drives": 6, "near_copies": 3, "engine": "intel-vroc"},
     r"array: near_copies: an IMSM RAID10 \(VROC's\) is two-drive mirrors striped"),
    ("faults", [{"at_s": 1e300, "drive": 0, "action": "fail"}], r"faults\.0\.at_s: .*at most 100 years|faults\[0\]\.at_s: .*at most 100 years"),
    (W + "latency_window", 1, r"workloads\[0\]: latency_window: the window of a latency target; give latency_target too"),
    (W + "latency_percentile", 50, r"workloads\[0\]: latency_percentile: the percentile of a latency target"),
    (W + "flow_id", 5, r"workloads\[0\]: flow_id: groups jobs by their flow weights; give flow too"),
    (W + "rw_skip_bytes", 4096, r"workloads\[0\]: rw_skip_bytes: fio's rw=read:N skip is for a sequential job"),
    ("name", "corpus\x00", r"^error: scenario\.yaml: name: must be printable text, got .* U\+0000$"),
    (W + "size", "100TB", r"^error: scenario\.yaml: workloads\[0\]\.size: offset \+ size = .* goes past the end of the array"),
    (W + "rate_iops", -5, r"workloads\[0\]\.rate_iops: .*greater than or equal to 0.001"),
    (W + "rate_iops", "fast", r"workloads\[0\]\.rate_iops"),
    (W + "rate_process", "bursty", r"workloads\[0\]\.rate_process: .*'linear' or 'poisson'"),
    (W + "rate_process", "poisson", r"workloads\[0\]: rate_process: poisson arrivals need a rate \(rate_iops\)"),
    (W + "thinktime", "-5us", r"workloads\[0\]\.thinktime: .*greater than 0"),
    (W + "thinktime", "2 fortnights", r"workloads\[0\]\.thinktime: unknown time unit"),
    (W + "latency_percentile", 101, r"workloads\[0\]\.latency_percentile: .*less than or equal to 100"),
    (W + "trim", "trim", r"workloads\[0\]: trim: trim's offsets are those of rw write; write rw: trim"),
    (W + "rw", "randtrim", r"workloads\[0\]\.rw: randtrim \(job \[randread\]\) cannot be simulated on this array: md RAID 6 passes discards"),
    (W + "phase", "", r"workloads\[0\]\.phase: .*at least 1 character"),
    (W + "phase", "randread", r"workloads: 'randread' names a workload and a phase"),
    (W + "flow", 0, r"workloads\[0\]\.flow: .*greater than or equal to 1"),
]

def _oltp(**database) -> dict:
    """The base scenario with its one workload an OLTP database (``database`` changed)."""
    oltp = {"profile": "sysbench-oltp-rw", "dataset_bytes": "100GB", "buffer_pool_bytes": "32GB", **database}
    return changed(BASE_SCENARIO, "workloads", [{"name": "db", "rw": "oltp", "users": 64, "oltp": oltp}])


_VOLUMES = changed(BASE_SCENARIO, "volumes", [{"name": "v", "workload": "randread", "array": {
    "level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 20, "strip_bytes": "64KiB", "engine": "linux-md"}}])
"""Another volume's drives take the server's bays too (the platform has 24)."""

SCENARIO_CASES = [Case(f"scenario-{path}-{i}", "scenario", changed(BASE_SCENARIO, path, value), pattern)
                  for i, (path, value, pattern) in enumerate(SCENARIO_FIELDS)]
_TWO = copy.deepcopy(BASE_SCENARIO)
_TWO["workloads"] = [BASE_SCENARIO["workloads"][0], dict(BASE_SCENARIO["workloads"][0], bs="8k")]
_CARD = changed(changed(changed(BASE_SCENARIO, "array.engine", "broadcom-megaraid-9560-16i"), "array.level", 10),
                "array.drives", 7)
_GPU10 = changed(changed(changed(BASE_SCENARIO, "array.engine", "graid-supremeraid-sr1010"), "array.level", 10),
                 "array.drives", 9)
_FAULTS = changed(BASE_SCENARIO, "faults", [{"at_s": 0, "drive": 0, "action": "fail"}, {"at_s": 0, "drive": 1, "action": "fail"},
                                            {"at_s": 1, "drive": 9, "action": "replace"}])
_UNFAILED = changed(BASE_SCENARIO, "faults", [{"at_s": 0, "drive": 0, "action": "replace"}])
_TWICE = changed(BASE_SCENARIO, "faults", [{"at_s": 0, "drive": 3, "action": "fail"}, {"at_s": 5, "drive": 3, "action": "pull"}])
_PPL_BITMAP = changed(changed(changed(BASE_SCENARIO, "array.engine", "intel-vroc"), "array.level", 5),
                      "array.engine_settings", {"consistency_policy": "ppl", "bitmap": "internal"})
_IDEAL_KERNEL = changed(BASE_SCENARIO, "array.engine", "ideal-raid")
_IDEAL_KERNEL = changed(_IDEAL_KERNEL, "array.engine_settings", {"kernel": "6.6"})
_RAID0_LIMITS = changed(changed(BASE_SCENARIO, "array.level", 0), "array.rebuild", {"speed_limit_max_kib_per_s": 5000})
_VOLUME_REBUILD = changed(BASE_SCENARIO, "volumes", [{"name": "v", "workload": "randread", "array": {
    **BASE_SCENARIO["array"], "rebuild": {"speed_limit_max_kib_per_s": 5000}}}])
_VOLUME_RESYNC = changed(BASE_SCENARIO, "volumes", [{"name": "v", "workload": "randread", "array": {
    **BASE_SCENARIO["array"], "unclean_shutdown": True}}])
SCENARIO_CASES += [
    Case("scenario-raid0-rebuild-limits", "scenario", _RAID0_LIMITS,
         r"rebuild\.speed_limit_max_kib_per_s: this array has no redundancy.*leave array\.rebuild out"),
    Case("scenario-volume-rebuild", "scenario", _VOLUME_REBUILD,
         r"volumes\[0\]\.array: rebuild\.speed_limit_max_kib_per_s: a volume's rebuild is not computed"),
    Case("scenario-volume-asks-a-resync-summary", "scenario", _VOLUME_RESYNC,
         r"volumes\[0\]\.array: unclean_shutdown: a volume's is not computed .*allowed: false, or leave it out"),
    Case("scenario-vroc-ppl-with-bitmap", "scenario", _PPL_BITMAP,
         r"engine_settings\.bitmap: the partial parity log and a write-intent bitmap exclude each other"),
    Case("scenario-settings-of-an-engine-without-any", "scenario", _IDEAL_KERNEL,
         r"array\.engine_settings\.kernel: unknown key: this takes no keys .*leave it out"),
    Case("scenario-duplicate-workload-names", "scenario", _TWO, r"workloads\[1\]\.name: 'randread' names two workloads"),
    Case("scenario-hardware-raid10-odd", "scenario", _CARD, r"drives: RAID10 on engine broadcom-megaraid-9560-16i .*multiple of 2, got 7"),
    # a card's write policy in pass-through, where no write goes through its cache (HardwareEngine.work returns
    # before reading it): both ran, at the same figures as without it
    Case("scenario-card-passthrough-write-back", "scenario",
         changed(changed(changed(_CARD, "array.level", 0), "array.drives", 8), "array.engine_settings",
                 {"mode": "passthrough", "write_policy": "write_back"}),
         r"array: engine_settings\.write_policy: in pass-through .* allowed: leave it out, or mode: raid$"),
    Case("scenario-card-passthrough-write-through", "scenario",
         changed(changed(changed(_CARD, "array.level", 0), "array.drives", 8), "array.engine_settings",
                 {"mode": "passthrough", "write_policy": "write_through"}),
         r"array: engine_settings\.write_policy: in pass-through .* allowed: leave it out, or mode: raid$"),
    Case("scenario-gpu-raid10-odd", "scenario", _GPU10, r"drives: RAID10 on engine graid-supremeraid-sr1010 .*got 9"),
    Case("scenario-gpu-unknown-driver", "scenario",
         changed(changed(_GPU10, "array.drives", 8), "array.engine_settings", {"driver": "3.x"}),
         r"array: engine_settings\.driver: graid-supremeraid-sr1010 has no driver '3\.x'; allowed: 1\.x, 2\.x"),
    # a driver that is not text: a list was looked up in the family's drivers (TypeError: unhashable type: 'list',
    # a traceback), a number was refused as a driver the card does not have; the schema's line names the type
    Case("scenario-gpu-driver-a-list", "scenario",
         changed(changed(_GPU10, "array.drives", 8), "array.engine_settings", {"driver": ["2.x"]}),
         r"array\.engine_settings\.driver: Input should be a valid string$"),
    Case("scenario-gpu-driver-a-mapping", "scenario",
         changed(changed(_GPU10, "array.drives", 8), "array.engine_settings", {"driver": {"version": "2.x"}}),
         r"array\.engine_settings\.driver: Input should be a valid string$"),
    Case("scenario-gpu-driver-a-number", "scenario",
         changed(changed(_GPU10, "array.drives", 8), "array.engine_settings", {"driver": 2}),
         r"array\.engine_settings\.driver: Input should be a valid string \(got 2\)$"),
    Case("scenario-oltp-pool-over-dram", "scenario", _oltp(buffer_pool_bytes="1PB"),
         r"workloads\[0\]\.oltp\.buffer_pool_bytes: 1,000,000,000,000,000 bytes is more than the .* bytes of DRAM"),
    Case("scenario-oltp-dataset-under-a-page", "scenario", _oltp(dataset_bytes=1),
         r"workloads\[0\]\.oltp\.dataset_bytes: 1 bytes is less than one 16,384-byte page of sysbench-oltp-rw"),
    Case("scenario-oltp-dataset-over-the-array", "scenario", _oltp(dataset_bytes="1PB"),
         r"workloads\[0\]\.oltp\.dataset_bytes: 1,000,000,000,000,000 bytes of data do not fit on the array \([\d,]+ bytes\); allowed: up to [\d,]+$"),
    Case("scenario-oltp-dataset-over-drives-used-directly", "scenario",
         changed(_oltp(dataset_bytes="16TB"), "array", {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 4,
                                                        "engine": "none"}),
         r"workloads\[0\]\.oltp\.dataset_bytes: 16,000,000,000,000 bytes of data do not fit on the 4 drives \(3,840,000,000,000 bytes each\) \(15,360,000,000,000 bytes\); allowed: up to 15,360,000,000,000$"),
    Case("scenario-volumes-over-bays", "scenario", _VOLUMES,
         r"volumes: the array's 8 and the volumes' 20 drives \(hot spares included\) need 28 bays; .* has 24"),
    Case("scenario-fault-drive-out-of-range", "scenario", _FAULTS, r"faults\[2\]\.drive: drive 9 does not exist"),
    Case("scenario-fault-replace-unfailed", "scenario", _UNFAILED,
         r"faults\[0\]\.action: replace of drive 0, which has not failed; a replace follows the drive's fail or pull"),
    Case("scenario-fault-fail-twice", "scenario", _TWICE,
         r"faults\[1\]\.action: pull of drive 3, which failed at 0 s and has not been replaced"),
    Case("scenario-top-level-list", "scenario", [BASE_SCENARIO], r"a scenario must be a YAML mapping"),
    Case("scenario-top-level-scalar", "scenario", "scenario", r"a scenario must be a YAML mapping"),
    Case("scenario-top-level-number", "scenario", 42, r"a scenario must be a YAML mapping"),
    Case("scenario-empty-mapping", "scenario", {}, r"required field is missing"),
]


def _scenario_yaml(**changes: Any) -> str:
    return yaml.safe_dump({**BASE_SCENARIO, **changes}, sort_keys=False)


_GOOD = _scenario_yaml()
_NEST = "[" * 40 + "]" * 40
_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8))
SCENARIO_TEXTS: list[tuple[str, bytes, str]] = [
    ("latin1-byte", _GOOD.replace("KIOXIA", "KIOXIA caf\xe9").encode("latin-1"),
     r"not UTF-8 text: byte 0xe9 at offset \d+"),
    ("leading-ff", b"\xff\xfe" + _GOOD.encode(), r"not UTF-8 text: byte 0xff at offset 0"),
    ("utf16", _GOOD.encode("utf-16"), r"not UTF-8 text: byte 0x.. at offset [01]"),
    ("binary", bytes(range(256)) * 4, r"not UTF-8 text: byte 0x80 at offset 128"),
    ("truncated-utf8", _GOOD.encode() + b"\xe2\x82", r"not UTF-8 text: byte 0xe2 at offset \d+"),
    ("nul-byte", b"name: a\x00b\n", r"YAML syntax error: character that YAML does not allow"),
    ("control-char", b"name: a\x07b\n", r"YAML syntax error: character that YAML does not allow"),
    ("deep-flow", ("x: " + "[" * 2000 + "]" * 2000).encode(), r"nested deeper than 32 levels"),
    ("deep-40", f"name: {_NEST}\n".encode(), r"nested deeper than 32 levels"),
    ("deep-block", "".join(" " * i + "k:\n" for i in range(60)).encode() + b" " * 60 + b"k: 1\n",
     r"nested deeper than 32 levels"),
    ("alias-bomb", _BOMB.encode(), r"more than 1,000,000 values"),
    ("merge-key-bomb", ("a: &a {" + ", ".join(f"k{i}: 1" for i in range(3000)) + "}\nb:\n" + "  - {<<: *a}\n" * 3000).encode(),
     r"more than 1,000,000 values"),  # 9 million merged entries were built (412 MB, 19.5 s) before the count
    ("duplicate-top-key", (_GOOD + "name: other\n").encode(), r"line \d+: YAML syntax error: duplicate key 'name'"),
    ("duplicate-array-key", _GOOD.replace("  level: 6\n", "  level: 6\n  level: 5\n").encode(),
     r"YAML syntax error: duplicate key 'level'"),
    ("duplicate-workload-key", _GOOD.replace("  bs: 4k\n", "  bs: 4k\n  bs: 8k\n").encode(), r"duplicate key 'bs'"),
    ("duplicate-flow-key", b"name: x\narray: {level: 6, level: 5}\n", r"duplicate key 'level'"),
    ("tab-indent", b"name: x\narray:\n\tlevel: 6\n", r"YAML syntax error"),
    ("unclosed-quote", b"name: \"x\narray: {}\n", r"YAML syntax error"),
    ("mapping-in-scalar", b"name: a: b: c\n", r"line 1: YAML syntax error"),
    ("two-documents", (_GOOD + "---\n" + _GOOD).encode(), r"YAML syntax error: .*single document"),
    ("python-tag", b"name: !!python/object/apply:os.system ['true']\n", r"YAML syntax error: .*python"),
    ("unknown-tag", b"name: !secret x\n", r"YAML syntax error"),
    ("empty-file", b"", r"a scenario must be a YAML mapping"),
    ("only-comment", b"# nothing\n", r"a scenario must be a YAML mapping"),
    ("null-doc", b"~\n", r"a scenario must be a YAML mapping"),
    ("timestamp-runtime", _GOOD.replace("runtime: 60", "runtime: 2020-01-01").encode(), r"workloads\[0\]\.runtime"),
    ("integer-key", (_GOOD + "1: 2\n").encode(), r"\[1\]: Keys should be strings"),
    ("unhashable-key", b"? [a, b]\n: 1\n", r"YAML syntax error"),
    ("bom-then-latin1", b"\xef\xbb\xbf" + "name: caf\xe9\n".encode("latin-1"), r"not UTF-8 text: byte 0xe9 at offset 12"),
    ("integer-of-5000-digits", _GOOD.replace("drives: 8", "drives: " + "9" * 5000).encode(),
     r"a number of more than 4,300 digits; no value nvsim takes is that long"),
    ("size-of-200-digits", _GOOD.replace("runtime: 60", "runtime: 60\n  size: '" + "9" * 200 + "'").encode(),
     r"workloads\[0\]\.size: .*a number of 200 digits; numbers are read up to 100 digits"),
]
SCENARIO_CASES += [Case(f"scenario-text-{name}", "scenario_text", data, pattern) for name, data, pattern in SCENARIO_TEXTS]
SCENARIO_CASES += [
    Case("scenario-over-size-bound", "scenario_text", b"description: " + b"x" * (4 * 2**20 + 10) + b"\n",
         r"file is 4,194,3\d\d bytes; input files are bounded at 4,194,304 bytes \(set NVSIM_MAX_INPUT_BYTES to raise it\)"),
    Case("scenario-size-bound-lowered", "scenario_text", _GOOD.encode(), r"input files are bounded at 100 bytes",
         env={"NVSIM_MAX_INPUT_BYTES": "100"}),
]

FIO_TEXTS: list[tuple[str, str, str]] = [
    ("rw-unknown", "[j]\nrw=randomread\n", r"rw"), ("bs-zero", "[j]\nrw=randread\nbs=0\n", r"bs"),
    ("bs-letters", "[j]\nrw=randread\nbs=abc\n", r"bs"), ("bs-odd", "[j]\nrw=randread\nbs=1000\n", r"bs"),
    ("bs-negative", "[j]\nrw=randread\nbs=-4k\n", r"bs"),
    ("bs-5000-digits", "[j]\nrw=randread\nbs=" + "9" * 5000 + "\n", r"line 3: bs: a number of 5,000 digits; numbers are read up to 100 digits"),
    ("bs-1t", "[j]\nrw=randread\nbs=1t\n", r"\[j\]\.bs: a 1,099,511,627,776-byte block .*NVSIM_MAX_PLANNED_PAGES"),
    ("iodepth-negative", "[j]\nrw=randread\niodepth=-1\n", r"iodepth"),
    ("iodepth-huge", "[j]\nrw=randread\nioengine=libaio\niodepth=99999999\n", r"iodepth"),
    ("iodepth-text", "[j]\nrw=randread\niodepth=deep\n", r"iodepth"),
    ("numjobs-zero", "[j]\nrw=randread\nnumjobs=0\n", r"numjobs"), ("numjobs-huge", "[j]\nrw=randread\nnumjobs=70000\n", r"numjobs"),
    ("slots-over-budget", "[j]\nrw=randread\nioengine=libaio\niodepth=65536\nnumjobs=65536\n",
     r"iodepth x numjobs = 4,294,967,296 I/Os in flight need about 22,333\.8 GB"),
    ("rwmixread-101", "[j]\nrw=randrw\nrwmixread=101\n", r"rwmixread"),
    ("wait-for-missing", "[j]\nrw=randread\nwait_for=zzz\n", r"line 3: wait_for: no job named 'zzz' before job \[j\]"),
    ("log-folder-missing", "[j]\nrw=randread\nwrite_lat_log=sub/../../lat\nlog_avg_msec=1000\n",
     r"write_lat_log: 'sub/\.\./\.\./lat': no folder .* to write the log in \(fio creates none\)"),
    ("name-bidi-override", "[a\u202eb]\nrw=randread\n",  # the error shows the character's code, not the character
     r"line 1: name: must be printable text, got .* U\+202E \(job \[a\\u202eb\]\)$"),
    ("rwmixwrite-negative", "[j]\nrw=randrw\nrwmixwrite=-5\n", r"rwmix"),
    ("runtime-negative", "[j]\nrw=randread\nruntime=-1\n", r"runtime"), ("runtime-text", "[j]\nrw=randread\nruntime=soon\n", r"runtime"),
    ("ramp-negative", "[j]\nrw=randread\nramp_time=-5\n", r"ramp_time"),
    ("size-negative", "[j]\nrw=randread\nsize=-1\n", r"size"), ("size-text", "[j]\nrw=randread\nsize=big\n", r"size"),
    ("offset-increment-negative", "[j]\nrw=read\noffset_increment=-1g\n", r"offset_increment"),
    ("ioengine-unknown", "[j]\nrw=randread\nioengine=aio\n", r"ioengine"),
    ("no-jobs", "[global]\nrw=randread\n", r"no jobs defined"), ("empty", "", r"no jobs defined"),
    ("include", "include other.fio\n[j]\nrw=randread\n", r"include directives are not read"),
    ("option-before-section", "rw=randread\n[j]\n", r"."),
    ("bad-section", "[j\nrw=randread\n", r"."),
    ("hipri-libaio", "[j]\nrw=randread\nioengine=libaio\nhipri=1\n", r"hipri"),
    ("asymmetric-bs", "[j]\nrw=randrw\nbs=4k,8k\n", r"asymmetric block sizes"),
    ("bs-four-parts", "[j]\nrw=randread\nbs=4k,4k,4k,4k\n", r"takes at most three sizes"),
]
FIO_CASES = [Case(f"fio-{name}", "fio", text.encode(), pattern) for name, text, pattern in FIO_TEXTS] + [
    Case("fio-readonly-writer", "fio", b"[w]\nrw=randwrite\nbs=4k\n",
         r"--readonly: job \[w\] writes \(rw=randwrite\); fio in read-only mode refuses it", argv=("--readonly",))]
FIO_CASES += [
    Case("fio-latin1", "fio", "[j]\nrw=randread\ndescription=caf\xe9\n".encode("latin-1"), r"not UTF-8 text: byte 0xe9 at offset \d+"),
    Case("fio-binary", "fio", bytes(range(128, 256)), r"not UTF-8 text: byte 0x80 at offset 0"),
    Case("fio-over-size-bound", "fio", b"[j]\nrw=randread\n" + b"# x\n" * (2**20 + 1), r"input files are bounded at 4,194,304 bytes"),
]

BASE_SWEEP = {"base": GRAID_SCENARIO, "workloads": ["randread-b4k-j192-d32"], "fidelity": "fluid",
              "grid": {"array.drives": [8, 12]}}
SWEEP_FIELDS: list[tuple[str, Any, str]] = [
    ("base", DELETE, r"base: required field is missing"), ("base", "missing/scenario.yaml", r"no such file or directory"),
    ("host_ios", 5000, r"host_ios: the event mode's measured host I/Os; a fluid sweep measures none"),
    ("grid", {"array.namespace_fraction": [0.5], "array.namespace_bytes": ["1TB"]},
     r"grid: array\.namespace_fraction and array\.namespace_bytes both set the member namespace; give one"),
    ("base", 5, r"base"), ("fidelity", "slow", r"fidelity"), ("host_ios", 10, r"host_ios: .*greater than or equal to 1000"), ("host_ios", 10**12, r"host_ios: .*less than or equal to 10000000"),
    ("grid", {"array.drives": []}, r"array\.drives: give at least one value"),
    ("grid", {"array..drives": [8]}, r"a field is a dotted path"), ("grid", "drives", r"grid"),
    ("grid", {"array.drives": 8}, r"grid\.array\.drives"),
    ("grid", {f"workload.f{i}": list(range(10)) for i in range(7)},
     r"the sweep has 10,000,000 set-ups; the limit is 100,000 \(set max_points in the sweep file to raise it\)"),
    ("max_points", 0, r"max_points: .*greater than or equal to 1"), ("max_points", 1, r"the sweep has 2 set-ups; the limit is 1"),
    ("max_points", 10**15, r"max_points: Input should be less than or equal to 5000000"),
    ("points", "all", r"points"), ("points", [5], r"points"),
    ("constraints", ["read_iops"], r"constraint 'read_iops': write 'column OP value'"),
    ("constraints", ["read_iops >= lots"], r"cannot read the value 'lots'"),
    ("constraints", ["read_iops >= inf"], r"constraint 'read_iops >= inf': 'inf' is no bound; .* a finite number"),
    ("workloads", [], r"workloads: .*at least 1 item"),
    ("constraints", ["nobody.read_iops >= 1"], r"'nobody\.read_iops' names workload 'nobody', which the sweep does not run"),
    ("constraints", "read_iops >= 1", r"constraints"),
    ("objective", {"maximise": "read_iops"}, r"objective\.maximise: unknown key"),
    ("objective", {"maximize": "ghost.read_iops"}, r"objective: 'ghost\.read_iops' names workload 'ghost'"),
    ("grid", {"array.drivs": [8]}, r"grid: 'array\.drivs': array has no field 'drivs'; did you mean 'drives'\?"),
    ("workloads", ["nope"], r"the base scenario has no workload 'nope'"),
    ("workloads", ["randread-b4k-j192-d32", "randread-b4k-j192-d32"],  # two rows of every point under one key
     r"workloads: 'randread-b4k-j192-d32' is listed more than once .*; give each workload once"),
    ("rebuild", "sometimes", r"rebuild"), ("extra", 1, r"extra: unknown key"),
    # a column of rebuild: true named without it: refused once every point had run ("no column 'rebuild_hours'")
    ("constraints", ["rebuild_hours <= 2"],
     r"constraints: 'rebuild_hours': rebuild_hours is a column of rebuild: true .*; set rebuild: true in the sweep file"),
    ("objective", {"maximize": "randread-b4k-j192-d32.mttdl_years"},
     r"objective: 'randread-b4k-j192-d32\.mttdl_years': mttdl_years is a column of rebuild: true .*; set rebuild: true in the sweep file"),
]
SWEEP_CASES = [Case(f"sweep-{path}-{i}", "sweep", changed(BASE_SWEEP, path, value), pattern)
               for i, (path, value, pattern) in enumerate(SWEEP_FIELDS)]
SWEEP_CASES += [
    # a set field's column the sweep does not set, or sets to text (64KiB): refused once every point had run
    Case("sweep-constraint-on-a-field-not-set", "sweep", BASE_SWEEP | {"constraints": ["set.array.drivs >= 8"]},
         r"constraints: 'set\.array\.drivs': the sweep sets no field 'array\.drivs'; it sets array\.drives$"),
    Case("sweep-objective-on-a-field-set-to-text", "sweep",
         BASE_SWEEP | {"grid": {"array.drive": ["kioxia-cm7-r-3.84tb"]}, "objective": {"maximize": "set.array.drive"}},
         r"objective: 'set\.array\.drive' is not a number column \(the sweep sets array\.drive to 'kioxia-cm7-r-3\.84tb'\); "
         r"give a column of numbers$"),
    Case("sweep-top-level-list", "sweep", [BASE_SWEEP], r"(mapping|dictionary|object|valid)"),
    Case("sweep-idle-base", "sweep", {k: v for k, v in BASE_SWEEP.items() if k != "workloads"} | {"base": IDLE_SCENARIO},
         r"workloads: the base scenario .*md-10x-idle\.yaml has no workload, so a sweep has nothing to run"),
    Case("sweep-duplicate-key", "sweep_text", b"base: a.yaml\nbase: b.yaml\n", r"duplicate key 'base'"),
    Case("sweep-latin1", "sweep_text", "base: caf\xe9.yaml\n".encode("latin-1"), r"not UTF-8 text: byte 0xe9 at offset 9"),
    Case("sweep-missing-file", "cli", None, r"SPEC: no such file", argv=("sweep", "nope.yaml", "-o", "out")),
    Case("sweep-output-empty", "sweep", BASE_SWEEP, r"--output: an output path without suffix is needed", argv=("-o", "")),
    Case("sweep-output-under-file", "sweep", BASE_SWEEP, r"--output: cannot create .*is not a directory",
         argv=("-o", "spec.yaml/out")),
    Case("sweep-output-parquet-is-dir", "sweep", BASE_SWEEP, r"--output: .*out\.parquet is a directory",
         argv=("-o", "out", "--mkdir", "out.parquet")),
    Case("sweep-workers-negative", "sweep", BASE_SWEEP, r"--workers", argv=("--workers", "-1")),
    Case("sweep-workers-huge", "sweep", BASE_SWEEP, r"--workers", argv=("--workers", "100000")),
    Case("sweep-workers-text", "sweep", BASE_SWEEP, r"--workers", argv=("--workers", "many")),
]

BASE_PLAN = {"requirements": {"usable_bytes": "20 TB", "workloads": [{"name": "rr", "profile": "randread-4k", "min_iops": "1M"}]},
             "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], "engines": ["linux-md"],
                        "drive_counts": [8], "levels": [6], "strips_bytes": ["64KiB"]},
             "confirm": 0, "top": 1}
"""A valid plan (nvsim plan) every ``plan`` case changes one thing of."""
PLAN_FIELDS: list[tuple[str, Any, str]] = [
    ("requirements", DELETE, r"requirements: required field is missing"),
    ("requirements.usable_bytes", 0, r"requirements\.usable_bytes: .*greater than 0"),
    ("requirements.usable_bytes", "lots", r"requirements\.usable_bytes"),
    ("requirements.usable_bytes", INF, r"requirements\.usable_bytes"),
    ("requirements.colour", "red", r"requirements\.colour: unknown key"),
    ("requirements.workloads.0.profile", "randsomething", r"profile: unknown 'randsomething'"),
    ("requirements.workloads.0.min_iops", -1, r"requirements\.workloads\[0\]\.min_iops"),
    ("requirements.workloads.0.min_iops", NAN, r"requirements\.workloads\[0\]\.min_iops"),
    ("requirements.workloads.0.max_latency_us", {"p42": 100}, r"unknown percentile 'p42'"),
    ("requirements.workloads.0.max_latency_us", {"p99": -1}, r"p99: must be a finite number of microseconds > 0"),
    ("requirements.workloads.0.fio", "job.fio", r"give exactly one of profile .* or fio"),
    ("requirements.workloads.0.numjobs", 0, r"numjobs: .*greater than or equal to 1"),
    ("requirements.workloads.0.name", "../x", r"requirements\.workloads\[0\]\.name"),
    ("requirements.rebuild", {"max_hours": 4, "workload": "ghost"}, r"rebuild\.workload: no workload 'ghost'"),
    ("requirements.rebuild", {"max_hours": 0}, r"max_hours: .*greater than 0"),
    ("requirements.max_data_loss_probability", 2, r"max_data_loss_probability: .*less than or equal to 1"),
    ("requirements.endurance", {"service_life_years": 5, "host_write_bytes_per_s": "fast"}, r"host_write_bytes_per_s"),
    ("requirements.max_rack_units", 2, r"search\.rack_units: max_rack_units needs each platform's height.*supermicro-as-2125hs-tnr"),
    ("search.drives", ["kioxia-cm7-r-3.84"], r"search\.drives: unknown drive 'kioxia-cm7-r-3\.84'"),
    ("search.engines", ["ideal"], r"search\.engines: unknown engine 'ideal'"),
    ("search.levels", [7], r"search\.levels"), ("search.drive_counts", [1], r"search\.drive_counts: each count must be 2 to 256"),
    ("search.drive_counts", [], r"search\.drive_counts"),
    ("search.strips_bytes", ["5KiB"], r"each strip must be a positive multiple of 4 KiB"),
    ("search.overprovisioning", [0.95], r"each share must be 0 to 0\.9"),
    ("search.hot_spares", [-1], r"each count must be 0 to 64 spares"),
    ("search.priced_only", "maybe", r"search\.priced_only"),
    ("objective", "cheapest", r"objective"), ("objective", {"weights": {"usd_per_usable_tb": 0}}, r"objective\.weights: each weight must be a finite number > 0"),
    ("objective", {"weights": {"beauty": 1}}, r"objective"),
    ("top", 0, r"top: .*greater than or equal to 1"), ("confirm", 50, r"confirm: .*less than or equal to 20"),
    ("extra", 1, r"extra: unknown key"),
    # a value listed twice in a search list: the plan ran (numbers were deduplicated without a word; engines: [linux-md,
    # linux-md] searched two candidates of one set-up), where a sweep's grid refuses it
    ("search.overprovisioning", [0.1, 0.1], r"search\.overprovisioning: the value 0\.1 is given more than once .*; give each value once$"),
    ("search.engines", ["linux-md", "linux-md"], r"search\.engines: the value 'linux-md' is given more than once"),
    ("search.platforms", ["supermicro-as-2125hs-tnr"] * 2, r"search\.platforms: the value 'supermicro-as-2125hs-tnr' is given more than once"),
    ("search.drives", ["kioxia-cm7-r-3.84tb"] * 2, r"search\.drives: the value 'kioxia-cm7-r-3\.84tb' is given more than once"),
    ("search.drive_counts", [8, 12, 8], r"search\.drive_counts: the value 8 is given more than once"),
    ("search.levels", [6, 6], r"search\.levels: the value 6 is given more than once"),
    ("search.strips_bytes", ["64KiB", "64k"], r"search\.strips_bytes: the value 65536 is given more than once"),
    ("search.hot_spares", [0, 0.0], r"search\.hot_spares: the value 0 is given more than once"),
]
PLAN_CASES = [Case(f"plan-{path}-{i}", "plan", changed(BASE_PLAN, path, value), pattern)
              for i, (path, value, pattern) in enumerate(PLAN_FIELDS)]
PLAN_CASES += [
    Case("plan-over-max-candidates", "plan", changed(changed(BASE_PLAN, "search.drive_counts", [8, 12]), "max_candidates", 1),
         r"max_candidates: the search space has 2 candidates; the limit is 1 \(set max_candidates"),
    Case("plan-top-level-list", "plan", [BASE_PLAN], r"(mapping|dictionary|object|valid)"),
    Case("plan-duplicate-key", "plan_text", b"requirements: {}\nrequirements: {}\n", r"duplicate key 'requirements'"),
    Case("plan-latin1", "plan_text", "requirements: caf\xe9\n".encode("latin-1"), r"not UTF-8 text: byte 0xe9"),
    Case("plan-missing-file", "cli", None, r"REQUIREMENTS: no such file", argv=("plan", "nope.yaml", "-o", "out")),
    Case("plan-output-under-file", "plan", BASE_PLAN, r"--output: cannot create .*is not a directory", argv=("-o", "spec.yaml/out")),
    Case("plan-output-is-file", "plan", BASE_PLAN, r"--output: .*is a file; give a folder", argv=("-o", "x", "--touch", "x")),
    Case("plan-output-scenarios-is-file", "plan", BASE_PLAN,  # commit_together raised FileExistsError after the search
         r"--output: o/scenarios is a file; the plan writes its top set-ups in a folder of that name",
         argv=("-o", "o", "--mkdir", "o", "--touch", "o/scenarios")),
    Case("plan-output-ranking-is-dir", "plan", BASE_PLAN, r"--output: o/ranking\.csv is a directory; the plan writes a file there",
         argv=("-o", "o", "--mkdir", "o", "--mkdir", "o/ranking.csv")),
    Case("plan-workers-negative", "plan", BASE_PLAN, r"--workers", argv=("--workers", "-1")),
    Case("plan-fio-missing", "plan", changed(BASE_PLAN, "requirements.workloads.0",
                                             {"name": "f", "fio": "nope.fio", "min_iops": 1}), r"nope\.fio"),
    Case("plan-fio-no-such-job", "plan", changed(BASE_PLAN, "requirements.workloads.0",
                                                 {"name": "f", "fio": "job.fio", "job": "other", "min_iops": 1}), r"job: no job 'other' in job\.fio"),
    Case("plan-fio-two-jobs-unnamed", "plan", changed(BASE_PLAN, "requirements.workloads.0",
                                                      {"name": "f", "fio": "two.fio", "min_iops": 1}),
         r"workloads\[0\]\.job: two\.fio has 2 jobs \(job, other\), which fio runs together or in turn; .*\(job: job\)"),
    Case("plan-fio-size-share", "plan", changed(BASE_PLAN, "requirements.workloads.0",
                                                {"name": "f", "fio": "share.fio", "min_iops": 1}),
         r"workloads\[0\]\.fio: \[job\] gives size, offset or offset_increment as a share of the device \('N%'\)"),
    Case("plan-fio-numjobs-beside-it", "plan", changed(BASE_PLAN, "requirements.workloads.0",
                                                       {"name": "f", "fio": "job.fio", "numjobs": 1, "min_iops": 1}),
         r"numjobs: a fio job sets its own numjobs and iodepth \(its file's\); drop numjobs, or give a profile"),
]
# issue 34: a Dask address nothing listens on (an OSError traceback before; the sweep's twin is
# tests/robustness/test_kill.py's test_dask_address_where_nothing_listens_is_refused_quickly)
PLAN_CASES += [
    Case("plan-dask-nothing-listens", "plan", BASE_PLAN,
         r"--dask: no Dask scheduler answers at 'tcp://127\.0\.0\.1:9' within 5 s \(", argv=("--dask", "tcp://127.0.0.1:9")),
]
# issue 34: fio's arithmetic bounded before it is parsed (50,000 terms ended in RecursionError),
# and no value beyond fio's 64-bit numbers (a tower of powers would take the machine's memory)
FIO_CASES += [
    Case("fio-expression-50000-terms", "fio", b"[j]\nrw=randread\nsize=" + b"+".join([b"1"] * 50_000) + b"\n",
         r"bad\.fio line 3: size: an expression of 99,999 characters nested 1 deep; fio's arithmetic is read up to 256 "
         r"characters and 16 levels of parentheses or signs"),
    Case("fio-expression-nested-40", "fio", b"[j]\nrw=randread\nsize=" + b"(" * 40 + b"1" + b")" * 40 + b"\n",
         r"bad\.fio line 3: size: an expression of 81 characters nested 40 deep; .* up to 256 characters and 16 levels"),
    Case("fio-expression-power-tower", "fio", b"[j]\nrw=randread\nsize=((9^64)^64)^64\n",
         r"bad\.fio line 3: size: cannot evaluate '\(\(9\^64\)\^64\)\^64' as fio's arithmetic \(a value beyond fio's 64-bit numbers"),
]
# issue 34: bounded parsers: a block-size range of 2^31 sizes (a MemoryError before), a mix
# whose largest part is over the event budget, offsets and sizes past the array (silently wrapped
# before: BASE_SCENARIO is 8 x 3.84 TB in RAID6, 23 TB), the plan's event stage under `nvsim run`'s
# budget (51.8 GiB asked for before). Traces: tests/robustness/test_bounded_inputs.py.
FIO_CASES += [
    Case("fio-bsrange-512-1t", "fio", b"[j]\nioengine=libaio\nrw=randread\nbsrange=512-1t\n",
         r"bad\.fio: \[j\]\.bs: a 549,755,813,888-byte block means planning at least 2,147,483,648 member pages"),
    Case("fio-bsrange-high-over-2-64", "fio", b"[j]\nrw=randread\nbsrange=4k-99999p\n", r"bsrange: HIGH must be at most 2\^64 bytes"),
    Case("fio-bssplit-part-over-event-budget", "fio", b"[j]\nioengine=libaio\nrw=randread\nbssplit=4k/99:1g/1\n",
         r"\[j\]\.bs: 1,073,741,824-byte blocks mean planning about .* member pages in the event mode"),
    Case("fio-offset-1p", "fio", b"[j]\nioengine=libaio\nrw=randread\noffset=1p\n",
         r"bad\.fio: \[j\]\.offset: 1,125,899,906,842,624 bytes is at or past the end of the array \(84,480,000,000,000 bytes\); allowed: 0 to"),
    Case("fio-offset-100-percent", "fio", b"[j]\nioengine=libaio\nrw=randread\noffset=100%\n", r"\[j\]\.offset: .* at or past the end of the array"),
    Case("fio-size-past-end", "fio", b"[j]\nioengine=libaio\nrw=read\noffset=70t\nsize=10t\n",
         r"\[j\]\.size: offset \+ size = 87,960,930,222,080 bytes goes past the end of the array"),
]
SCENARIO_CASES += [
    Case("scenario-offset-1p", "scenario", changed(BASE_SCENARIO, "workloads.0.offset", "1PB"),
         r"workloads\[0\]\.offset: 1,000,000,000,000,000 bytes is at or past the end of the array \(23,040,000,000,000 bytes\)"),
    Case("scenario-size-past-end", "scenario", changed(BASE_SCENARIO, "workloads.0.size", "30TB"),
         r"workloads\[0\]\.size: offset \+ size = 30,000,000,000,000 bytes goes past the end of the array"),
]
PLAN_CASES += [
    Case("plan-event-stage-over-budget", "plan",
         changed(changed(changed(BASE_PLAN, "confirm", 1), "requirements.workloads.0.numjobs", 4096), "requirements.workloads.0.iodepth", 4096),
         r"requirements\.workloads\[0\]\.iodepth: iodepth x numjobs = 16,777,216 I/Os in flight need about 87\.2 GB in the "
         r"event mode \(limit 262,144 slots; set NVSIM_MAX_EVENT_SLOTS to raise it, or set confirm: 0 to skip the event stage\)"),
]

DRIVE = "drives/kioxia-cm7-r-3.84tb.yaml"
PLATFORM = "platforms/supermicro-as-2125hs-tnr.yaml"
ENGINE = "engines/linux-md.yaml"
CATALOG_FIELDS: list[tuple[str, str, Any, str]] = [
    (DRIVE, "lanes.value", 0, r"lanes: must be > 0, got 0"),
    (DRIVE, "mtbf_hours.value", 0, r"mtbf_hours: must be > 0"),
    (DRIVE, "rand_write_iops.value", 0, r"rand_write_iops: must be > 0"),
    (DRIVE, "indirection_unit_bytes.value", 0, r"indirection_unit_bytes: must be > 0"),
    (DRIVE, "indirection_unit_bytes.value", 1000, r"indirection_unit_bytes: must be a whole number of 512-byte sectors"),
    (DRIVE, "uber_per_bit.value", 2, r"uber_per_bit: a probability, allowed 0 to 1, got 2"),
    (DRIVE, "uber_per_bit.value", -1e-17, r"uber_per_bit: must be > 0"),
    (DRIVE, "dwpd.value", 0, r"dwpd: must be > 0"),
    (DRIVE, "pcie_generation.value", 9, r"pcie_generation: PCIe generation 9 does not exist"),
    (DRIVE, "pcie_generation.value", 6, r"pcie_generation: no PCIe generation 6 in the catalog's links/; allowed: 3, 4, 5$"),
    (DRIVE, "pcie_generation.value", 0, r"pcie_generation"),
    (DRIVE, "seq_read_bytes_per_s.value", "-14000 MB/s", r"seq_read_bytes_per_s: must be > 0"),
    (DRIVE, "seq_read_bytes_per_s.value", NAN, r"seq_read_bytes_per_s"),
    (DRIVE, "rand_read_iops.value", -5, r"rand_read_iops: must be > 0"),
    (DRIVE, "read_latency_us.value", -35, r"read_latency_us: must be > 0"),
    (DRIVE, "read_latency_us.value", INF, r"read_latency_us: must be a finite number"),
    (DRIVE, "write_latency_us.value", 0, r"write_latency_us: must be > 0"),
    (DRIVE, "warranty_years.value", 0, r"warranty_years: must be > 0"),
    (DRIVE, "capacity_bytes.value", 0, r"capacity_bytes: must be > 0"),
    (DRIVE, "rand_queue_depth.value", 0, r"rand_queue_depth: must be > 0"),
    (DRIVE, "raw_nand_bytes.value", "1 TB", r"raw_nand_bytes: .*allowed: more than capacity_bytes"),
    (DRIVE, "nand", "PLC", r"nand"), (DRIVE, "lanes.source", "nowhere", r"lanes: source 'nowhere' is not in /\S+/models/bibliography\.yaml"),
    (DRIVE, "lanes.basis", "guessed", r"lanes\.basis"),
    (DRIVE, "lanes", 4, r"lanes: a catalog number is written with its source: \{value: 4, source: <a key of "
                        r"bibliography\.yaml>, basis: datasheet, published, fitted, assumed or predicted"),
    (DRIVE, "colour", "red", r"colour: unknown key"), (DRIVE, "lanes.value", "four", r"lanes\.value"),
    # figures a drive cannot have (the hunt of 2026-11-30)
    (DRIVE, "write_latency_us.value", 1e300, r"write_latency_us: 1\.0×10³⁰⁰; a QD1 4 KiB latency, .* allowed 1 to 1,000,000"),
    (DRIVE, "mtbf_hours.value", 1e-300, r"mtbf_hours: 1\.0×10⁻³⁰⁰; a datasheet MTBF .* allowed 10,000 to 100,000,000"),
    (DRIVE, "warranty_years.value", 1e300, r"warranty_years: 1\.0×10³⁰⁰; a warranty of months to two decades"),
    (DRIVE, "power_idle_w.value", 500, r"power_idle_w: 500 W is above power_active_read_w"),
    # datasheet rates with no floor: rand_read_iops 1e-300 predicted 2.4e-299 IOPS (the hunt of 2026-12-02)
    (DRIVE, "rand_read_iops.value", 1e-300, r"rand_read_iops: 1\.0×10⁻³⁰⁰; .* allowed 1,000 to 31,250,000$"),
    (DRIVE, "rand_write_iops.value", 999, r"rand_write_iops: 999; .* allowed 1,000 to 31,250,000$"),
    (DRIVE, "price_usd.value", 1e300, r"price_usd: \$1,000,0.*is more than any part costs; allowed: 0 to \$100,000,000"),
    # a rate without its unit is bytes per second: below what the random I/Os move (the hunt of 2026-12-01)
    (DRIVE, "seq_read_bytes_per_s.value", 6800, r"seq_read_bytes_per_s: 6\.80 kB/s is below half of what the drive's "
                                                 r"random reads move \(.* GB/s: rand_read_iops x rand_block_bytes\).*write the "
                                                 r"datasheet's figure with its unit \(e\.g\. '6800 MB/s'\)"),
    (DRIVE, "seq_write_bytes_per_s.value", 5300, r"seq_write_bytes_per_s: 5\.30 kB/s is below half of what the drive's random writes"),
    (DRIVE, "model", "CM7\x1b[2J", r"model: must be printable text, got .* U\+001B"),
    (DRIVE, "name", "kioxia-cm7-r-7.68tb-x", r"name: 'kioxia-cm7-r-7\.68tb-x' is not the file's name 'kioxia-cm7-r-3\.84tb'"),
    (DRIVE, "seq_read_bytes_per_s.value", "100 GB/s", r"seq_read_bytes_per_s: 100\.00 GB/s; its PCIe Gen5 x4 link carries at most 15\.75 GB/s"),
    (PLATFORM, "cpu.cores_per_socket.value", 0, r"cores_per_socket: must be > 0"),
    (PLATFORM, "memory_transfer_rate_mt_per_s.value", 0, r"memory_transfer_rate_mt_per_s: must be > 0"),
    (PLATFORM, "memory_channels_per_socket.value", 0, r"memory_channels_per_socket: must be > 0"),
    (PLATFORM, "pcie_lanes_per_socket.value", -1, r"pcie_lanes_per_socket: must be > 0"),
    (PLATFORM, "cpu.sockets", 0, r"cpu\.sockets"), (PLATFORM, "cpu.base_clock_ghz.value", 0, r"base_clock_ghz: must be > 0"),
    (PLATFORM, "cpu.threads_per_core.value", 0, r"threads_per_core: must be > 0"),
    (PLATFORM, "cpu.all_core_boost_clock_ghz.value", 9.9, r"all_core_boost_clock_ghz: allowed from base_clock_ghz"),
    (PLATFORM, "pcie_generation.value", 8, r"pcie_generation: PCIe generation 8 does not exist"),
    (PLATFORM, "drive_bay_lanes.value", 0, r"drive_bay_lanes: must be > 0"),
    (PLATFORM, "inter_socket_bytes_per_s", DELETE, r"inter_socket_bytes_per_s: a platform of 2 sockets needs the link "
                                                    r"between them"),  # cross-socket traffic had no bound
    (ENGINE, "levels", [0, 2, 5], r"levels: RAID level 2 is not one nvsim models"),
    (ENGINE, "levels", [], r"levels: RAID level list is not one nvsim models"),
    (ENGINE, "engine_kind", "quantum", r"engine_kind: unknown engine kind 'quantum'"),
    (ENGINE, "parameters.reference_clock_ghz.value", -3, r"parameters\.reference_clock_ghz: must be a finite number >= 0"),
    ("engines/broadcom-megaraid-9560-16i.yaml", "device.lanes.value", 0, r"lanes: must be > 0"),
    ("engines/broadcom-megaraid-9560-16i.yaml", "device.pcie_generation.value", 7, r"PCIe generation 7 does not exist"),
    ("host_io/libaio.yaml", "submit_us.value", -1, r"submit_us: must be >= 0"),
    ("host_io/libaio.yaml", "reference_clock_ghz.value", 0, r"reference_clock_ghz: must be > 0"),
    ("links/pcie-gen5.yaml", "encoding_payload_bits.value", 200, r"encoding_payload_bits: larger than encoding_total_bits"),
    ("links/pcie-gen5.yaml", "transfer_rate_gt_per_s.value", 0, r"transfer_rate_gt_per_s: must be > 0"),
    ("links/pcie-gen5.yaml", "generation", 9, r"generation"),
    ("oltp/sysbench-oltp-rw.yaml", "page_bytes.value", 0, r"page_bytes: must be > 0"),
    ("oltp/sysbench-oltp-rw.yaml", "cpu_us_per_tx.value", -1, r"cpu_us_per_tx: must be > 0"),
    ("bibliography.yaml", "sources.seed-000.title", DELETE, r"sources\.seed-000\.title: required field is missing"),
    ("bibliography.yaml", "sources.seed-000.title", "", r"sources\.seed-000\.title: .*at least 1 character"),
    ("bibliography.yaml", "sources.seed-000", "a title", r"sources\.seed-000"),
    ("bibliography.yaml", "sources.seed-000", ["title"], r"sources\.seed-000"),
    ("bibliography.yaml", "sources", ["seed-000"], r"sources"),
    ("bibliography.yaml", "sources.seed-000.year", "last year", r"sources\.seed-000\.year"),
    ("bibliography.yaml", "sources.seed-000.url", "x", r"sources\.seed-000\.url: unknown key"),
    ("bibliography.yaml", "references", {}, r"references: unknown key"),
]
CATALOG_CASES = [Case(f"catalog-{file.split('/')[-1][:-5]}-{path}-{i}", "catalog", (file, path, value), pattern)
                 for i, (file, path, value, pattern) in enumerate(CATALOG_FIELDS)]
_DRIVE_TEXT = (Path(__file__).resolve().parents[2] / "models" / DRIVE).read_bytes()
CATALOG_CASES += [
    Case("catalog-drive-name-case", "catalog_text",  # a second drive whose name differs only in case
         ("drives/KIOXIA-CM7-R-3.84TB.yaml", _DRIVE_TEXT.replace(b"name: kioxia-cm7-r-3.84tb", b"name: KIOXIA-CM7-R-3.84TB")),
         r"kioxia-cm7-r-3\.84tb\.yaml: name: duplicate catalog name 'kioxia-cm7-r-3\.84tb': 'KIOXIA-CM7-R-3\.84TB' "
         r"\(\S+/KIOXIA-CM7-R-3\.84TB\.yaml\) differs only in case; allowed: a name no other entry has in any case"),
    Case("catalog-bibliography-list", "catalog_text", ("bibliography.yaml", b"- seed-000\n"), r"(dictionary|mapping|object|valid)"),
    Case("catalog-drive-duplicate-key", "catalog_text", (DRIVE, None), r"duplicate key 'lanes'"),
    Case("catalog-drive-latin1", "catalog_text", ("drives/extra.yaml", "name: caf\xe9\n".encode("latin-1")),
         r"not UTF-8 text: byte 0xe9 at offset 9"),
    Case("catalog-drive-not-mapping", "catalog_text", ("drives/extra.yaml", b"- a\n- b\n"), r"extra\.yaml"),
]

# hunt 5: free text the catalog and a scenario carry into terminals holds no control character
_PRINTABLE = r"must be printable text, got the control or formatting character U\+001B"
SCENARIO_CASES += [
    Case("scenario-description-escape", "scenario", changed(BASE_SCENARIO, "description", "ok\x1b]0;TITLE\x07\x1b[2J"),
         r"description: " + _PRINTABLE),
    Case("scenario-source-escape", "scenario", changed(BASE_SCENARIO, "source", "seed\x1b[31m"), r"source: " + _PRINTABLE),
    Case("scenario-description-bidi", "scenario", changed(BASE_SCENARIO, "description", "abc\u202edef"),
         r"description: must be printable text, got the control or formatting character U\+202E"),
]
CATALOG_CASES += [Case(f"catalog-hunt5-{name}", "catalog", (file, path, value), pattern) for name, file, path, value, pattern in [
    ("cited-note", DRIVE, "lanes.note", "x\x1b]0;PWNED\x07", r"lanes\.note: " + _PRINTABLE),
    ("cited-source", DRIVE, "lanes.source", "seed-000\x1b[2J", r"lanes\.source: " + _PRINTABLE),
    ("publisher", "bibliography.yaml", "sources.seed-000.publisher", "Graid\x1b[31m", r"sources\.seed-000\.publisher: " + _PRINTABLE),
    ("title", "bibliography.yaml", "sources.seed-000.title", "t\x1b[31m", r"sources\.seed-000\.title: " + _PRINTABLE),
]]

# issue 34: inputs mean what they say: hot spares take bays; a topology field that would change
# nothing is refused; catalog cross-references and link widths are checked at load; rack units
_INTEL_MD = changed(BASE_SCENARIO, "platform", "dell-poweredge-r750")
SCENARIO_CASES += [
    Case("scenario-hot-spares-over-bays", "scenario", changed(BASE_SCENARIO, "array.hot_spares", 17),
         r"array\.hot_spares: 8 drives and 17 hot spares need 25 bays; supermicro-as-2125hs-tnr has 24; allowed: at most 16"),
    Case("scenario-topology-bifurcation-bays", "scenario", changed(BASE_SCENARIO, "topology", {"bifurcation": {"slot1-x16": [8, 8]}}),
         r"topology\.bifurcation: splits a slot into links for add-in cards, and with attach: bays no drive is in a slot"),
    Case("scenario-topology-backplanes-unnamed", "scenario", changed(BASE_SCENARIO, "topology", {"backplanes": 2}),
         r"topology\.backplanes: counts the backplane topology\.backplane names, and none is named"),
    Case("scenario-topology-slots-backplane", "scenario",
         changed(BASE_SCENARIO, "topology", {"attach": "slots", "backplane": "supermicro-2u-24x-nvme-gen5"}),
         r"topology\.backplane: add-in cards \(attach: slots\) hang in slots"),
    Case("scenario-topology-vmd-md", "scenario", changed(_INTEL_MD, "topology", {"vmd": True}),
         r"topology\.vmd: nvsim models a VMD domain only under a vroc engine .*linux-md"),
]
_WIDTH = r"a PCIe link is x1, x2, x4, x8, x16 or x32 wide, got {} lanes"
_SKU = "drives/intel-d7-p5600-6.4tb.yaml"
CATALOG_CASES += [Case(f"catalog-issue34-{name}", "catalog", (file, path, value), pattern) for name, file, path, value, pattern in [
    ("slot-socket", PLATFORM, "slots.1.socket", 2, r"supermicro-as-2125hs-tnr\.yaml: slots\[1\]\.socket: socket 2 does not exist"),
    ("slot-name-twice", PLATFORM, "slots.1.name", "slot1-x16", r"slots\[1\]\.name: 'slot1-x16' names two slots"),
    ("slot-width", PLATFORM, "slots.0.lanes", 3, r"slots\[0\]\.lanes: " + _WIDTH.format(3)),
    ("bay-width", PLATFORM, "drive_bay_lanes.value", 6, r"drive_bay_lanes: " + _WIDTH.format(6)),
    ("switch-ports", "switches/broadcom-pex89104.yaml", "ports.value", 200,
     r"broadcom-pex89104\.yaml: ports: 200 ports need at least 200 lanes \(x1 each\); lanes is 104"),
    ("switch-one-port", "switches/broadcom-pex89104.yaml", "ports.value", 1, r"ports: a switch has an upstream port"),
    ("backplane-width", "backplanes/e3s-16x-gen5.yaml", "bay_lanes.value", 3, r"e3s-16x-gen5\.yaml: bay_lanes: " + _WIDTH.format(3)),
    ("drive-width", DRIVE, "lanes.value", 3, r"lanes: " + _WIDTH.format(3)),
    ("card-width", "engines/broadcom-megaraid-9560-16i.yaml", "device.lanes.value", 12, r"device: lanes: " + _WIDTH.format(12)),
    ("family-list", _SKU, "family", ["intel-d7-p5500-p5600"],
     r"intel-d7-p5600-6\.4tb\.yaml: family: must name one drive family of models/families/ \(a string\), got a list"),
    ("family-mapping", _SKU, "family", {"name": "intel-d7-p5500-p5600"}, r"family: .*got a dict"),
    ("drive-iops-past-the-link", DRIVE, "rand_write_iops.value", 10**12,
     r"rand_write_iops: 4,096,000,000,000,000 bytes/s; no drive's link carries more than 128,000,000,000 \(PCIe 6\.0 x16\)"),
    ("drive-model-200k", DRIVE, "model", "M" * 200_000, r"model: 200,000 characters; at most 100"),
    ("drive-capacity-zero", DRIVE, "capacity_bytes.value", 0, r"capacity_bytes"),
    ("drive-dwpd-1000", DRIVE, "dwpd.value", 1000, r"dwpd: 1,000; at most 100 drive writes per day"),
]]

# a contributor's new parts (the hunt of 2026-12-02): a platform's figures held to what a server can have
CATALOG_CASES += [Case(f"catalog-parts-{name}", "catalog", (file, path, value), pattern) for name, file, path, value, pattern in [
    ("platform-mps-100", PLATFORM, "max_payload_bytes.value", 100,
     r"supermicro-as-2125hs-tnr\.yaml: max_payload_bytes: a PCIe max payload size is a power of two from 128 to 4096 bytes, "
     r"got 100; allowed: 128, 256, 512, 1024, 2048, 4096"),
    ("platform-cores-6.4m", PLATFORM, "cpu.cores_per_socket.value", 6_400_000,
     r"cpu: cores_per_socket: 6,400,000; cores of one CPU package .*: allowed 1 to 1,024"),
    ("platform-threads-64", PLATFORM, "cpu.threads_per_core.value", 64, r"cpu: threads_per_core: 64; .*allowed 1 to 8"),
    ("platform-boost-in-mhz", PLATFORM, "cpu.boost_clock_ghz.value", 3700,
     r"cpu: boost_clock_ghz: 3,700; a CPU clock in GHz \(a figure in MHz is a thousand times this\): allowed 0\.1 to 10"),
    ("platform-smt-gain-50", PLATFORM, "cpu.smt_throughput_gain.value", 50, r"cpu: smt_throughput_gain: 50; .*allowed 1 to 2"),
    ("platform-memory-in-gt", PLATFORM, "memory_transfer_rate_mt_per_s.value", 4.8,
     r"memory_transfer_rate_mt_per_s: 4\.8; a DRAM transfer rate in MT/s .*allowed 100 to 20,000"),
    ("platform-base-above-boost", "platforms/dell-poweredge-r750.yaml", "cpu.base_clock_ghz.value", 4.1,
     r"dell-poweredge-r750\.yaml: cpu: base_clock_ghz: 4\.1 GHz is above boost_clock_ghz \(3\.2 GHz\); allowed: at most the boost"),
    ("card-ceiling-the-family-replaces", "engines/broadcom-megaraid-9560-16i.yaml", "device.max_raid5_write_iops",
     {"value": "900K", "source": "seed-004", "basis": "datasheet"},
     r"broadcom-megaraid-9560-16i\.yaml: device\.max_raid5_write_iops: family broadcom-megaraid-95xx states its parity "
     r"engine's card_stripe_op_us \(fitted\), which nvsim uses instead of a SKU's write ceiling, so this figure would change "
     r"nothing; allowed: leave it out, or give the card a family of its own"),
]]

# an engine's parameters as their units allow (the fuzz helper's hunt of 2026-12-02): a rate or clock
# of 0, a rebuild request under a sector or past a 32-bit count of them, no rebuild thread, were taken
# and stopped `nvsim run` with a ZeroDivisionError or OverflowError traceback, or rebuilt on one thread
_MD, _XI = "engines/linux-md.yaml", "engines/xinnor-xiraid.yaml"
CATALOG_CASES += [Case(f"catalog-engine-units-{name}", "catalog", (file, path, value), pattern) for name, file, path, value, pattern in [
    ("parity-rate-0", _MD, "parameters.parity_gen_gb_per_s.value", 0,
     r"linux-md\.yaml: parameters\.parity_gen_gb_per_s: 0; a rate the engine's work is divided by: allowed more than 0"),
    ("clock-0", _XI, "parameters.reference_clock_ghz.value", 0,
     r"xinnor-xiraid\.yaml: parameters\.reference_clock_ghz: 0; a clock the engine's work is divided by: allowed more than 0"),
    ("rebuild-io-under-a-sector", _MD, "parameters.rebuild_io_kib.value", 1e-6,
     r"linux-md\.yaml: parameters\.rebuild_io_kib: 0\.000001 KiB; a rebuild request is a whole number of 512-byte sectors: "
     r"allowed 0\.5 to 2,147,483,648 KiB"),
    ("rebuild-io-1e300", _MD, "parameters.rebuild_io_kib.value", 1e300, r"parameters\.rebuild_io_kib: 1\.0×10³⁰⁰ KiB; .*allowed 0\.5 to"),
    ("rebuild-threads-0", _XI, "parameters.rebuild_threads.value", 0,
     r"xinnor-xiraid\.yaml: parameters\.rebuild_threads: 0; a count of threads: allowed a whole number from 1 to 256"),
    ("rebuild-rows-half", _XI, "parameters.rebuild_rows_per_thread.value", 0.5,
     r"parameters\.rebuild_rows_per_thread: 0\.5; a count of stripe rows: allowed a whole number from 1 to 1,024"),
    ("rebuild-inflight-0", "gpu_families/graid-supremeraid.yaml", "parameters.rebuild_inflight.value", 0,
     r"parameters\.rebuild_inflight: 0; a count of requests: allowed a whole number from 1 to 65,536"),
    ("rebuild-share-2", "gpu_families/graid-supremeraid.yaml", "parameters.rebuild_share.value", 2,
     r"parameters\.rebuild_share: 2; a share of the drives' time: allowed more than 0 and at most 1"),
]]
# a card family stated against its predecessor: a factor of 0 divided its costs by zero before they were checked
CATALOG_CASES += [Case(f"catalog-scaled-family-{name}", "catalog", ("card_families/broadcom-megaraid-96xx.yaml", path, value), pattern)
                  for name, path, value, pattern in [
    ("iops-factor-0", "scaled_from.iops_factor.value", 0,
     r"broadcom-megaraid-96xx\.yaml: scaled_from: iops_factor: must be > 0, got 0\.0$"),
    ("bandwidth-factor-0", "scaled_from.bandwidth_factor.value", 0, r"scaled_from: bandwidth_factor: must be > 0, got 0\.0$"),
    ("bandwidth-factor-inf", "scaled_from.bandwidth_factor.value", INF, r"scaled_from: bandwidth_factor: must be a finite number"),
]]
# a PCIe generation's transfer rate is the specification's: 1e300 GT/s made the ACK interval 0 s, a
# ZeroDivisionError traceback in nvsim run (nvsim.pcie.dllps_per_interval); 320 (a typo) moved every link tenfold
CATALOG_CASES += [Case(f"catalog-link-rate-{name}", "catalog", ("links/pcie-gen5.yaml", "transfer_rate_gt_per_s.value", value), pattern)
                  for name, value, pattern in [
    ("1e300", 1e300, r"pcie-gen5\.yaml: transfer_rate_gt_per_s: 1\.0×10³⁰⁰ GT/s; PCIe Gen5 runs at 32 GT/s per lane "
                     r"\(PCI Express Base Specification\); allowed: 32$"),
    ("typo-320", 320, r"transfer_rate_gt_per_s: 320 GT/s; PCIe Gen5 runs at 32 GT/s per lane"),
]]
# rates and costs of engines, their devices, links and platforms held to a physical range (the leftovers
# helper's of 2026-12-02): request_cpu_us of 1e300 us gave md 2.3e-292 IOPS, a rate of 1e-300 GB/s alike
_SR1010, _GPU_FAMILY = "engines/graid-supremeraid-sr1010.yaml", "gpu_families/graid-supremeraid.yaml"
_TINY, _HUGE = "1e-300 GB/s", 1e300
_DRIVERS = yaml.safe_load((Path(__file__).resolve().parents[2] / "models" / _GPU_FAMILY).read_text())["drivers"]
_DRIVER_2_TINY = {**_DRIVERS, "2.x": {**_DRIVERS["2.x"], "stripe_update_factor": {**_DRIVERS["2.x"]["stripe_update_factor"], "value": 1e-300}}}
CATALOG_CASES += [Case(f"catalog-ranges-{name}", "catalog", (file, path, value), pattern) for name, file, path, value, pattern in [
    ("engine-cost-1e300", _MD, "parameters.request_cpu_us.value", _HUGE,
     r"linux-md\.yaml: parameters\.request_cpu_us: 1\.0×10³⁰⁰; a cost per operation in µs, up to a second: allowed 0 to 1,000,000$"),
    ("engine-rate-tiny", _MD, "parameters.parity_gen_gb_per_s.value", 1e-300,
     r"parameters\.parity_gen_gb_per_s: 1\.0×10⁻³⁰⁰; a data rate in GB/s, .*: allowed 0\.001 to 10,000$"),
    ("engine-clock-mhz", _XI, "parameters.reference_clock_ghz.value", 3000,
     r"parameters\.reference_clock_ghz: 3,000; a clock in GHz .*: allowed 0\.1 to 10$"),
    ("card-cost-per-kib", "card_families/broadcom-megaraid-95xx.yaml", "parameters.card_stripe_op_us_per_kib.value", _HUGE,
     r"parameters\.card_stripe_op_us_per_kib: 1\.0×10³⁰⁰; a cost per KiB of data in µs, .*: allowed 0 to 1,000$"),
    ("device-bytes-tiny", _SR1010, "device.max_read_bytes_per_s.value", _TINY,
     r"device: max_read_bytes_per_s: 1\.0×10⁻²⁹¹; a data rate in bytes/s, .*: allowed 1,000,000 to 10,000,000,000,000$"),
    ("device-iops-tiny", _SR1010, "device.max_read_iops.value", 1e-300,
     r"device: max_read_iops: 1\.0×10⁻³⁰⁰; an I/O rate .*: allowed 1,000 to 1,000,000,000$"),
    ("gpu-memory-tiny", _SR1010, "device.gpu.memory_bytes_per_s.value", _TINY, r"memory_bytes_per_s: 1\.0×10⁻²⁹¹; a data rate"),
    ("gpu-tflops-huge", _SR1010, "device.gpu.fp32_tflops.value", _HUGE, r"fp32_tflops: 1\.0×10³⁰⁰; .*allowed 0\.1 to 10,000$"),
    ("family-iops-tiny", _GPU_FAMILY, "reference_max_read_iops.value", 1e-300, r"reference_max_read_iops: 1\.0×10⁻³⁰⁰; an I/O rate"),
    ("driver-factor-tiny", _GPU_FAMILY, "drivers", _DRIVER_2_TINY,
     r"stripe_update_factor: 1\.0×10⁻³⁰⁰; .*allowed 0\.01 to 100$"),
    ("generation-factor-huge", "card_families/broadcom-megaraid-96xx.yaml", "scaled_from.iops_factor.value", _HUGE,
     r"iops_factor: 1\.0×10³⁰⁰; .*allowed 0\.01 to 100$"),
    ("inter-socket-tiny", PLATFORM, "inter_socket_bytes_per_s.value", _TINY, r"inter_socket_bytes_per_s: 1\.0×10⁻²⁹¹; a data rate"),
    ("cache-line-huge", PLATFORM, "cpu.cache_line_transfer_ns.value", _HUGE,
     r"cpu: cache_line_transfer_ns: 1\.0×10³⁰⁰; .*allowed 1 to 10,000$"),
    ("cross-socket-huge", PLATFORM, "cpu.cross_socket_line_factor.value", _HUGE,
     r"cpu: cross_socket_line_factor: 1\.0×10³⁰⁰; .*allowed 1 to 10$"),
    ("switch-latency-huge", "switches/broadcom-pex89104.yaml", "latency_ns.value", _HUGE,
     r"broadcom-pex89104\.yaml: latency_ns: 1\.0×10³⁰⁰; .*allowed 0\.1 to 100,000$"),
    ("switch-core-tiny", "switches/broadcom-pex89104.yaml", "internal_bytes_per_s",
     {"value": _TINY, "source": "nvsim-assumptions", "basis": "assumed"}, r"internal_bytes_per_s: 1\.0×10⁻²⁹¹; a data rate"),
    ("retimer-latency-huge", "retimers/astera-aries-pt5161l.yaml", "latency_ns.value", _HUGE, r"latency_ns: 1\.0×10³⁰⁰;"),
    ("host-io-cost-1e300", "host_io/libaio.yaml", "submit_us.value", _HUGE,
     r"libaio\.yaml: submit_us: 1\.0×10³⁰⁰; a CPU cost per I/O in µs, up to a second: allowed 0 to 1,000,000$"),
    ("host-io-clock-mhz", "host_io/libaio.yaml", "reference_clock_ghz.value", 3000, r"reference_clock_ghz: 3,000; a clock in GHz"),
]]
PLAN_CASES += [
    Case("plan-rack-units-negative", "plan", changed(changed(BASE_PLAN, "requirements.max_rack_units", 2), "search.rack_units",
                                                     {"supermicro-as-2125hs-tnr": -2}),
         r"search\.rack_units: supermicro-as-2125hs-tnr: a server is 1 to 100 rack units high, got -2"),
    Case("plan-rack-units-unknown-platform", "plan", changed(BASE_PLAN, "search.rack_units",
                                                             {"supermicro-as-2125hs-tnr": 2, "supermicro-as-2125": 2}),
         r"search\.rack_units: unknown platform 'supermicro-as-2125'; did you mean"),
]

# a new user's walk through the docs: another command's file given as a scenario says which command
# reads it; an iodepth fio refuses is refused whatever the ioengine (psync took 0 as depth 1)
SCENARIO_CASES += [
    Case("scenario-is-a-plan-file", "scenario_text", yaml.safe_dump(BASE_PLAN).encode(),
         r"^error: SCENARIO: scenario\.yaml is a plan file \(top-level requirements:\), not a scenario; "
         r"`nvsim plan scenario\.yaml` runs it$"),
    Case("scenario-iodepth-0-psync", "scenario", changed(changed(BASE_SCENARIO, W + "ioengine", "psync"), W + "iodepth", 0),
         r"workloads\[0\]\.iodepth: .*greater than or equal to 1"),
]
FIO_CASES += [
    Case("fio-iodepth-0-default-psync", "fio", b"[j]\nrw=randread\ndirect=1\niodepth=0\n",
         r"bad\.fio line 4: iodepth: .*greater than or equal to 1"),
    Case("fio-iodepth-0-sync", "fio", b"[j]\nioengine=sync\nrw=randread\niodepth=0\n", r"bad\.fio line 4: iodepth: .*greater than or equal to 1"),
]

CLI_ARGS: list[tuple[str, tuple[str, ...], str]] = [
    ("fidelity", ("run", GRAID_SCENARIO, "--fidelity", "slow"), r"--fidelity: unknown fidelity 'slow'"),
    ("run-missing", ("run", "nope.yaml"), r"SCENARIO: no such file or directory: nope\.yaml"),
    ("run-dir-without-scenario", ("run", "."), r"SCENARIO: directory \. has no scenario\.yaml"),
    ("run-output-dir", ("run", GRAID_SCENARIO, "-o", "."), r"--output: an output file path is needed, got '\.'"),
    ("run-output-empty", ("run", GRAID_SCENARIO, "-o", ""), r"--output: an output file path is needed"),
    ("run-output-existing-dir", ("run", GRAID_SCENARIO, "-o", "sub", "--mkdir", "sub"), r"--output: sub is a directory"),
    ("run-output-under-file", ("run", GRAID_SCENARIO, "-o", "afile/x.json", "--touch", "afile"),
     r"--output: cannot create afile/x\.json: afile is not a directory"),
    ("run-output-proc", ("run", GRAID_SCENARIO, "-o", "/proc/nvsim-out.json"), r"--output: cannot write in /proc"),
    ("sweep-given-a-scenario", ("sweep", GRAID_SCENARIO, "-o", "out"),
     r"SPEC: .*scenario\.yaml is a scenario \(it names a platform and an array\).*`nvsim run .*` runs it"),
    ("plan-given-a-scenario", ("plan", GRAID_SCENARIO, "-o", "out"),
     r"REQUIREMENTS: .*scenario\.yaml is a scenario"),
    ("run-output-link-loop", ("run", GRAID_SCENARIO, "-o", "loop", "--link-loop", "loop"),
     r"--output: loop is a symbolic link that loops; give a file path"),  # it replaced the link with the output
    ("run-output-name-too-long", ("run", GRAID_SCENARIO, "-o", "a" * 300 + ".json"),
     r"--output: cannot write the file \(File name too long\): a+\.\.\.\(305 characters\)"),
    ("run-input-name-too-long", ("run", "a" * 300 + ".yaml"), r"^error: File name too long: a+\.\.\.\(305 characters\)$"),
    ("report-output-name-too-long", ("report", GRAID_SCENARIO, "-o", "a" * 300 + ".html"),
     r"--out: cannot write the file \(File name too long\)"),
    ("run-output-sys", ("run", GRAID_SCENARIO, "-o", "/sys/nvsim/out.json"), r"--output: cannot"),
    ("run-unknown-option", ("run", GRAID_SCENARIO, "--colour"), r"No such option"),
    ("run-no-argument", ("run",), r"^error: Missing argument 'scenario'\. \(try `nvsim run --help`\)$"),
    ("unknown-command", ("simulate",), r"^error: No such command 'simulate'\. \(try `nvsim --help`\)$"),
    ("report-no-out", ("report", GRAID_SCENARIO), r"^error: Missing option '--out' / '-o'\. \(try `nvsim report --help`\)$"),
    ("catalog-show-no-name", ("catalog", "show"), r"^error: Missing argument 'name'\. \(try `nvsim catalog show --help`\)$"),
    ("catalog-entry-as-command", ("catalog", "linux-md"),
     r"^error: COMMAND: 'linux-md' is a catalog entry, not a command; show it with `nvsim catalog show linux-md`$"),
    ("run-published-file", ("run", "scenarios/drive-reviews/published.yaml"),
     r"SCENARIO: \S*scenarios/drive-reviews/published\.yaml is a published-numbers file \(top-level numbers:\), not a "
     r"scenario; `nvsim validate --scenarios \S*scenarios/drive-reviews` reads it$"),
    ("run-sweep-spec", ("run", "scenarios/sweeps/composite-workloads.yaml"),
     r"SCENARIO: \S*composite-workloads\.yaml is a sweep spec \(top-level base:\), not a scenario; "
     r"`nvsim sweep \S*scenarios/sweeps/composite-workloads\.yaml -o OUT` runs it$"),
    ("fio-system-published-file", ("fio", "job.fio", "--system", "scenarios/drive-reviews/published.yaml"),
     r"published\.yaml is a published-numbers file"),
    ("run-dir-lists-scenario-files", ("run", "scenarios/drive-reviews"),
     r"^(?!.*published\.yaml).*drive-reviews has no scenario\.yaml; scenario files here: micron-9550-max-12\.8tb\.yaml, "),
    ("fio-command-line-iodepth-0", ("fio", "--system", FIO_SYSTEM, "--name=a", "--rw=randread", "--iodepth=0"),
     r"iodepth: .*greater than or equal to 1"),
    ("report-max-seconds-negative", ("report", GRAID_SCENARIO, "-o", "r.html", "--max-seconds", "-1"),
     r"--max-seconds: must be 0 or more seconds, got -1"),
    ("fio-missing-jobfile", ("fio", "nope.fio", "--system", FIO_SYSTEM), r"nope\.fio: cannot read file"),
    ("fio-jobfile-dir", ("fio", ".", "--system", FIO_SYSTEM), r"\.: is a directory"),
    ("fio-missing-system", ("fio", "job.fio", "--system", "nope"), r"--system: no such file or directory: nope"),
    ("fio-output-dir", ("fio", "job.fio", "--system", FIO_SYSTEM, "-o", "."), r"--output"),
    ("fio-no-system", ("fio", "job.fio"), r"--system: give the scenario whose array the jobs run against"),
    ("fio-system-lost-data", ("fio", "job.fio", "--system", "lost.yaml", "--write-lost"),
     r"--system: lost\.yaml: the faults at t = 0 lose data \(3 members down, RAID6 tolerates 2"),
    ("catalog-kind", ("catalog", "--kind", "gpus"), r"--kind: unknown section 'gpus'"),
    ("catalog-show-unknown", ("catalog", "show", "kioxia-cm99"), r"NAME: unknown catalog entry 'kioxia-cm99'"),
    ("report-date-impossible", ("report", GRAID_SCENARIO, "-o", "r.html", "--date", "2024-02-30"),
     r"--date: must be a date as YYYY-MM-DD \(e\.g\. 2026-11-30\), got '2024-02-30'"),
    ("report-date-words", ("report", GRAID_SCENARIO, "-o", "r.html", "--date", "next tuesday"), r"--date: must be a date"),
    ("report-customer-escape", ("report", GRAID_SCENARIO, "-o", "r.html", "--customer", "a\x1b[2Jb"),
     r"--customer: must be printable text, got .* U\+001B"),
    ("report-project-long", ("report", GRAID_SCENARIO, "-o", "r.html", "--project", "x" * 121),
     r"--project: at most 120 characters \(what the page prints\), got 121"),
    ("catalog-show-other-kind", ("catalog", "--kind", "drives", "show", "linux-md"),
     r"NAME: 'linux-md' is in engines, not in --kind drives"),
    ("catalog-show-unknown-kind", ("catalog", "--kind", "gpus", "show", "linux-md"), r"--kind: unknown section 'gpus'"),
    ("validate-missing-dir", ("validate", "--scenarios", "nope"), r"--scenarios: nope: no such directory"),
    ("validate-scenarios-file", ("validate", "--scenarios", "job.fio"), r"--scenarios: job\.fio: is not a directory"),
    ("validate-workers-negative", ("validate", "--workers", "-1"), r"--workers"),
    ("validate-output-dir", ("validate", "-o", "."), r"--output"),
    ("dashboard-port", ("dashboard", "--port", "0"), r"--port"),
    ("dashboard-port-huge", ("dashboard", "--port", "70000"), r"--port"),
    ("run-catalog-env-missing", ("run", GRAID_SCENARIO), r"NVSIM_CATALOG: no-such-catalog is not a catalog folder "
                                                         r"\(it has no bibliography\.yaml\)"),
]
CLI_CASES = [Case(f"cli-{name}", "cli", None, pattern, argv=argv,
                  env={"NVSIM_CATALOG": "no-such-catalog"} if name == "run-catalog-env-missing" else {})
             for name, argv, pattern in CLI_ARGS]

ENV_CASES = [Case(f"env-{env}-{i}", "cli", None, rf"^error: {env}: must be a whole number from 1 to 2\^62 .*got '{re.escape(raw)}'$",
                  argv=("run", GRAID_SCENARIO, "--fidelity", "fluid"), env={env: raw})
             for env in ("NVSIM_MAX_INPUT_BYTES", "NVSIM_MAX_PLANNED_PAGES")
             for i, raw in enumerate(("99999999999999999999999999", "abc", "0", "-1", "nan"))]
"""A bound raised through the environment is input too: set but unusable, it is refused, not passed over
(a huge NVSIM_MAX_INPUT_BYTES overflowed the file read's index)."""

# fio reads numbers with strtoll and strtod: ASCII digits only. Python's int() and float() and re's \\d read any
# script's digits, so iodepth=\u0668 (Arabic-Indic 8) ran as iodepth=8 and bs=\uff14k (fullwidth 4) as 4 KiB where fio
# refuses them; a superscript digit passes str.isdigit() but not int(): log_avg_msec=\u00b2 ended in a ValueError traceback
FIO_CASES += [Case(f"fio-non-ascii-digits-{name}", "fio", text.encode(), pattern) for name, text, pattern in [
    ("iodepth", "[j]\nrw=randread\niodepth=\u0668\n", r"line 3: iodepth: cannot read '\u0668' as a number"),
    ("bs-fullwidth", "[j]\nrw=randread\nbs=\uff14k\n", r"line 3: bs: cannot read '\uff14k' as a number"),
    ("size-percent", "[j]\nrw=randread\nsize=\u0661\u0660%\n", r"line 3: size: cannot read '\u0661\u0660%' as a number"),
    ("offset-increment", "[j]\nrw=read\nnumjobs=2\noffset_increment=\u0661%\n", r"line 4: offset_increment: cannot read"),
    ("runtime", "[j]\nrw=randread\nruntime=\u0666\u0660\n", r"line 3: runtime: cannot read '\u0666\u0660' as a time"),
    ("thinktime", "[j]\nrw=randread\nthinktime=\u0665\u0660\n", r"line 3: thinktime: cannot read '\u0665\u0660' as a time"),
    ("rw-modifier", "[j]\nrw=randread:\u0668\n", r"line 2: rw: the ':N' of a random rw is a count of I/Os"),
    ("flow", "[j]\nrw=randread\nflow=\u0662\n", r"line 3: flow: expected a whole number, got '\u0662'"),
    ("latency-percentile", "[j]\nrw=randread\nlatency_target=1ms\nlatency_percentile=\u0669\u0669\n",
     r"line 4: latency_percentile: expected a percentage \(0, 100\], got '\u0669\u0669'"),
    ("log-avg-msec-superscript", "[j]\nrw=randread\nwrite_bw_log=x\nlog_avg_msec=\u00b2\n",
     r"log_avg_msec: must be a whole number of milliseconds, got '\u00b2'"),
    ("log-offset-superscript", "[j]\nrw=randread\nwrite_bw_log=x\nlog_offset=\u00b2\n", r"log_offset: must be 0 or 1, got '\u00b2'"),
]]

# a trace's fields are read as fio's sscanf (%llu, %u) reads them: ASCII digits. int() and float() read any script's
# digits, so a read_iolog trace with offset \u0668192 (Arabic-Indic 8) ran as 8192, a size \uff14096 (fullwidth 4) as
# 4096 and an MSR Offset \u0664096 as 4096; a superscript failed int() in words that named no field
TRACE_JOB = "[j]\nioengine=libaio\ndirect=1\niodepth=4\nread_iolog=t.trace\n"
"""The job a ``fio_trace`` case runs: it replays the case's bytes, written to t.trace."""
GOOD_TRACES = {"v2": "fio version 2 iolog\nf add\nf open\nf read 0 4096\nf wait 50 0\nf write 4096 4096\n",
               "v3": "fio version 3 iolog\n0 f read 0 4096\n50 f write 4096 4096\n",
               "msr": "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n128166372003061629,h,0,Read,4096,4096,10\n"}
"""Valid traces each ``fio_trace`` case changes one field of."""
FIO_CASES += [Case(f"fio-trace-non-ascii-digits-{name}", "fio_trace", GOOD_TRACES[base].replace(old, new, 1).encode(),
                   rf"read_iolog: t\.trace: line {line}: cannot read .*\({field} '{value}': fio reads ASCII digits only\)")
              for name, base, old, new, line, field, value in [
    ("v3-offset", "v3", "read 0", "read \u0668192", 2, "offset", "\u0668192"),
    ("v3-length-fullwidth", "v3", "0 4096", "0 \uff14096", 2, "length", "\uff14096"),
    ("v3-timestamp", "v3", "50 f", "\u0665\u0660 f", 3, "timestamp", "\u0665\u0660"),
    ("v3-length-superscript", "v3", "0 4096", "0 \u00b2", 2, "length", "\u00b2"),
    ("v2-wait", "v2", "wait 50", "wait \u0665\u0660", 5, "wait", "\u0665\u0660"),
    ("v2-offset", "v2", "write 4096", "write \u0664096", 6, "offset", "\u0664096"),
    ("msr-offset", "msr", "Read,4096", "Read,\u0664096", 2, "Offset", "\u0664096"),
    ("msr-size", "msr", "4096,10", "\uff14096,10", 2, "Size", "\uff14096"),
    ("msr-timestamp", "msr", "\n1", "\n\u0661", 2, "Timestamp", "\u066128166372003061629"),
]]

ALL_CASES: list[Case] = SCENARIO_CASES + FIO_CASES + SWEEP_CASES + PLAN_CASES + CATALOG_CASES + CLI_CASES + ENV_CASES
