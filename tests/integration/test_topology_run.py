"""`nvsim run` on drives behind PCIe switches whose uplinks bind (issue 20): the uplink is named as
the bottleneck in both fidelities, and the bounds table carries the uplinks' limit."""

from __future__ import annotations

import json

import yaml

SCENARIO = "scenarios/switch-uplink-gen5"
UPLINK = "2 x switch broadcom-pex89104 uplink PCIe Gen5 x16 to host"


def test_the_fluid_run_names_the_switch_uplink(cli):
    result = cli("run", SCENARIO, "--json", "--fidelity", "fluid")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    seq = data["predictions"]["seqread-b1m-j24-d32"]
    assert seq["limited_by"].startswith(UPLINK)
    bound = next(b for b in data["bounds"] if b["metric"] == "128K sequential read")
    assert bound["limited_by"].startswith("2 x switch broadcom-pex89104 uplink PCIe Gen5 x16")
    # two x16 Gen5 uplinks carry about 2 x 60 GB/s, well under the 24 drives' 14 GB/s each (the
    # bound is that of 128 KiB member I/Os; 1 MiB host reads pay the command TLPs less often)
    assert 115e9 < seq["read_bytes_per_s"] < 125e9 and 115e9 < bound["value"] < 125e9
    assert not data["predictions"]["randread-b4k-j64-d64"]["limited_by"].startswith(UPLINK)  # 4 KiB reads: the cores


def test_the_event_run_names_the_switch_uplink(cli, tmp_path):
    spec = yaml.safe_load(open(f"{SCENARIO}/scenario.yaml"))
    spec["workloads"] = [dict(spec["workloads"][0], runtime=1)]
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(spec))
    result = cli("run", str(path), "--json")
    assert result.returncode == 0, result.stderr
    simulated = json.loads(result.stdout)["simulations"]["seqread-b1m-j24-d32"]
    assert simulated["fidelity"] == "event" and simulated["limited_by"] == UPLINK
    assert simulated["utilisation"][UPLINK] > 0.98


def test_more_drives_than_bays_is_one_line_and_exit_2(cli, tmp_path):
    spec = yaml.safe_load(open(f"{SCENARIO}/scenario.yaml"))
    spec["array"]["drives"] = 30
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(spec))
    result = cli("run", str(path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "array.drives: 30 drives do not fit the 24 bays of supermicro-2u-24x-nvme-gen5" in lines[0]
