"""A PCIe switch's ports (nvsim.topology): each drive behind a switch takes a downstream port and
the switch's own uplink takes its upstream port, so N drives need N + 1 ports (PCI Express Base
Specification: a switch is one upstream port and its downstream ports). Issue 34: the property test
drew at most 40 drives, never enough to fill a real switch's 52 ports, so an uplink that took no
port survived; here a switch of 8 ports and ample lanes makes the port the only limit."""

from __future__ import annotations

import dataclasses

import pytest

from nvsim.errors import InputError
from nvsim.scenario import parse_scenario

PLATFORM = "supermicro-as-2125hs-tnr"
SWITCH = "broadcom-pex89104"


def _catalog_with_ports(catalog, ports: int):
    base = catalog.switches[SWITCH]
    small = base.model_copy(update={"ports": base.ports.model_copy(update={"value": ports})})
    return dataclasses.replace(catalog, switches={**catalog.switches, SWITCH: small})


def _scenario(drives: int, count: int = 1) -> dict:
    return {"name": "t", "platform": PLATFORM,
            "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": drives, "strip_bytes": "64KiB",
                      "engine": "linux-md"},
            "workloads": [{"name": "rr", "rw": "randread", "bs": "4k", "iodepth": 8, "numjobs": 4}],
            "topology": {"switches": {"model": SWITCH, "count": count}}}


def test_a_switch_of_n_ports_takes_n_minus_one_drives_and_its_uplink(catalog):
    eight = _catalog_with_ports(catalog, 8)
    parse_scenario(_scenario(7), eight)  # 7 x4 drives + a x16 uplink: 44 of 104 lanes, 8 of 8 ports
    with pytest.raises(InputError) as info:
        parse_scenario(_scenario(8), eight)  # 8 drives and the uplink: 9 ports
    message = str(info.value)
    assert "need 9 ports; it has 8" in message and "\n" not in message
    parse_scenario(_scenario(14, count=2), eight)  # 7 behind each of two switches
    with pytest.raises(InputError, match="need 9 ports"):
        parse_scenario(_scenario(15, count=2), eight)  # 8 behind one of them
