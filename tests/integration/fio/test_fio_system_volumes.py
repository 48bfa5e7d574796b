"""`nvsim fio --system` runs the job file on the system's array alone: a system with volumes (a second
virtual disk sharing the card) says they are left out, where nothing was said (a helper's finding)."""

from conftest import ROOT, run_cli

JOB = "[a]\nrw=randwrite\nbs=4k\nioengine=libaio\ndirect=1\niodepth=32\nnumjobs=4\n"


def test_a_system_s_volumes_are_named_as_left_out(tmp_path):
    job = tmp_path / "a.fio"
    job.write_text(JOB)
    with_volumes = run_cli("fio", str(job), "--system", str(ROOT / "scenarios/hardware-cards/two-virtual-disks.yaml"),
                           "--fidelity", "fluid")
    assert with_volumes.returncode == 0, with_volumes.stderr
    assert "its volumes (vd1-raid10) do not run beside the job file's jobs" in with_volumes.stderr
    alone = run_cli("fio", str(job), "--system", str(ROOT / "scenarios/hardware-cards/rebuild-normal.yaml"),
                    "--fidelity", "fluid")
    assert alone.returncode == 0 and "volumes" not in alone.stderr
