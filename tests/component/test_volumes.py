"""Several volumes at once (nvsim.volumes): virtual disks on one RAID card share its processor and
link; cards of their own do not; what a scenario may not ask of volumes is refused in one line."""

from pathlib import Path

import pytest
import yaml

from nvsim.errors import InputError
from nvsim.scenario import parse_scenario
from nvsim.volumes import run_volumes

CARDS = Path(__file__).resolve().parents[2] / "scenarios" / "hardware-cards"


def two_volumes(card: int, **volume_array) -> dict:
    raw = yaml.safe_load((CARDS / "two-cards.yaml").read_text())
    raw["volumes"][0]["card"] = card
    raw["volumes"][0]["array"].update(volume_array)
    return raw


@pytest.fixture(scope="module")
def read_runs():
    return {card: run_volumes(parse_scenario(two_volumes(card))) for card in (0, 1)}


def test_two_cards_are_two_of_the_same(read_runs):
    array, other = read_runs[1].runs
    assert array.read_iops == pytest.approx(other.read_iops, rel=1e-9)
    assert "[card 0]" in array.limited_by and "[card 1]" in other.limited_by


def test_two_virtual_disks_on_one_card_split_what_it_carries(read_runs):
    one_card = sum(run.read_iops for run in read_runs[0].runs)
    two_cards = sum(run.read_iops for run in read_runs[1].runs)
    assert one_card == pytest.approx(two_cards / 2, rel=0.02)  # the card's link is the limit either way
    assert all("[card 0]" in run.limited_by for run in read_runs[0].runs)


def test_a_volume_of_an_engine_without_a_card_shares_only_the_hosts_memory():
    raw = two_volumes(0, engine="linux-md", level=5, strip_bytes="512KiB")
    result = run_volumes(parse_scenario(raw))
    shared = [label for label, _busy in result.shared]
    assert not any("[card 1]" in label for label in shared) and "DRAM" in shared
    assert result.runs[1].engine == "linux-md"


@pytest.mark.parametrize("change, message", [
    (lambda raw: raw["volumes"][0].update(workload="nope"), r"volumes\[0\]\.workload: 'nope' is not a workload"),
    (lambda raw: raw["volumes"][0].update(name="array"), r"volumes\[0\]\.name: 'array' names two volumes"),
    (lambda raw: raw["volumes"][0]["array"].update(engine="linux-md", strip_bytes="512KiB"), r"volumes\[0\]\.card: linux-md has no card"),
    (lambda raw: raw["volumes"][0].update(card=0) or raw["volumes"][0]["array"].update(drives=30),
     r"volumes: card 0 of broadcom-megaraid-9670w-16i carries 38 drives \(over 2 volumes\); it takes at most 32"),
    (lambda raw: raw.update(workloads=[]), r"volumes: the array runs the scenario's first workload"),
])
def test_what_volumes_may_not_ask_is_refused_in_one_line(change, message):
    raw = two_volumes(1)
    change(raw)
    with pytest.raises(InputError, match=message):
        parse_scenario(raw)


def test_a_cards_drive_limit_counts_its_hot_spares_without_volumes():
    raw = yaml.safe_load((CARDS / "rebuild-idle.yaml").read_text())
    raw["array"].update(drives=31, hot_spares=2)
    with pytest.raises(InputError, match=r"array.hot_spares: card 0 of broadcom-megaraid-9670w-16i carries 33 drives "
                                         r"\(hot spares included\); it takes at most 32"):
        parse_scenario(raw)


def test_the_shared_solve_says_it_leaves_the_faults_out():
    """Faults at t = 0 made each workload's row degraded while the volumes' table printed the
    optimal state with nothing said (a helper's finding): the result names what it leaves out."""
    raw = two_volumes(0)
    assert not any("fault" in line for line in run_volumes(parse_scenario(raw)).warnings)
    raw["faults"] = [{"at_s": 0, "drive": 0, "action": "fail"}]
    raw["array"]["hot_spares"] = raw["array"].get("hot_spares", 0)
    warnings = run_volumes(parse_scenario(raw)).warnings
    assert any("1 fault event(s) are not applied" in line for line in warnings)


VROC_RAID5 = {"level": 5, "drive": "intel-d7-p5510-3.84tb", "drives": 4, "strip_bytes": "128KiB"}
SEQ_WRITE = {"rw": "write", "bs": "1m", "iodepth": 32, "numjobs": 8, "ioengine": "libaio", "runtime": 60,
             "time_based": True}


def test_two_vroc_volumes_each_have_their_own_md_thread():
    """VROC is md behind a VMD "device": each of its arrays has its own raid5d thread, as an md array
    beside it has. Two VROC RAID5s on card 0 were solved as one thread (each got half of what it
    writes alone, 0.98 GB/s against 1.95 GB/s, the thread listed as shared); the oracle is the same
    pair with the second array on md, which shares nothing but DRAM."""
    def both(engine: str):
        raw = {"name": "vroc-pair", "platform": "dell-poweredge-r750",
               "array": {**VROC_RAID5, "engine": "intel-vroc"},
               "workloads": [{"name": "a", **SEQ_WRITE}, {"name": "b", **SEQ_WRITE}],
               "volumes": [{"name": "second", "workload": "b", "array": {**VROC_RAID5, "engine": engine}}]}
        return run_volumes(parse_scenario(raw))
    vroc, md = both("intel-vroc"), both("linux-md")
    assert [label for label, _busy in vroc.shared] == ["DRAM"]
    for run, alone in zip(vroc.runs, md.runs):
        assert run.write_bytes_per_s == pytest.approx(alone.write_bytes_per_s, rel=1e-3)
        assert "[card" not in run.limited_by


def test_what_two_cards_list_as_shared_is_only_the_hosts_memory(read_runs):
    """Volumes on cards of their own share no card: "Resources the volumes share" listed each card's
    processor and link (card 0's and card 1's), each loaded by one volume only. The one-card pair
    shares its card's stations; the two-card pair only the host's DRAM."""
    two_cards = [label for label, _busy in read_runs[1].shared]
    assert two_cards == ["DRAM"]
    one_card = [label for label, _busy in read_runs[0].shared]
    assert "DRAM" in one_card and sum("[card 0]" in label for label in one_card) == 3  # processor, link both ways
