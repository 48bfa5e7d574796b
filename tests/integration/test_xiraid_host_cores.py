"""xiRAID's reconstruction threads are host threads beside the application's (docs/models/rebuild.md,
"xiRAID's reconstruction"): the CPU% a rebuild adds and the CPUs its threads get, with jobs that
busy-poll (io_uring hipri) and keep their own CPUs busy all the time."""

import pytest

import nvsim

THREADS = 4


def _scenario(numjobs: int, rebuilding: bool):
    data = {
        "name": "xiraid-host-cores",
        "platform": "supermicro-sys-120u-tnr",  # 2 x 18 cores, 2 threads each: 72 logical CPUs
        "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB",
                  "engine": "xinnor-xiraid", "hot_spares": 1, "engine_settings": {"recon_threads": THREADS}},
        "workloads": [{"name": "poll", "rw": "randread", "bs": "4k", "iodepth": 4, "numjobs": numjobs,
                       "ioengine": "io_uring", "hipri": True}],
        "seed": 1,
    }
    if rebuilding:
        data["faults"] = [{"at_s": 0, "drive": 0, "action": "fail"}]
    return nvsim.parse_scenario(data)


def _run(numjobs: int, rebuilding: bool):
    return nvsim.Simulation(_scenario(numjobs, rebuilding), "poll").run("fluid")


def _threads_busy(result) -> float:
    """The reconstruction threads' busy CPUs: their station's utilisation times its threads."""
    (u,) = [u.utilisation for u in result.simulation.utilisation if "rebuild thread" in u.resource]
    return u * THREADS


def test_polling_jobs_cpus_and_the_reconstruction_threads_add_up():
    """8 polling jobs keep 8 of 72 CPUs busy; the reconstruction's threads run on others, so CPU%
    is 8 plus their busy CPUs over 72 (it read 11.1%, the jobs' alone, rebuilding or not)."""
    optimal, rebuilding = _run(8, False), _run(8, True)
    assert optimal.cpu_percent == pytest.approx(100 * 8 / 72)
    busy = _threads_busy(rebuilding)
    assert busy > 1.0  # the reconstruction keeps its threads busy (drives are not the limit)
    assert rebuilding.cpu_percent == pytest.approx(100 * (8 + busy) / 72, rel=1e-6)
    assert rebuilding.cpu_percent > optimal.cpu_percent + 100 * 1.0 / 72


def test_polling_jobs_on_every_cpu_leave_the_reconstruction_one():
    """72 polling jobs on 72 CPUs leave none (the solver gives the threads at least one): the
    reconstruction, thread-bound, goes at most one CPU's worth of its rate per busy thread CPU with 8
    jobs (it kept all 4 threads and 5.8 GB/s: the jobs' spinning was not counted as busy)."""
    few, every = _run(8, True), _run(72, True)
    per_cpu = few.rebuild_bytes_per_s / _threads_busy(few)
    assert every.rebuild_bytes_per_s <= 1.0001 * per_cpu
    assert every.cpu_percent == pytest.approx(100.0)


def test_the_event_mode_lists_the_reconstruction_threads_as_the_fluid_mode_does():
    """The event mode's resource list names the reconstruction threads while they are busy (it left
    them out, though its CPU% counted them): busy CPUs are the jobs' cores plus the threads'."""
    data = _scenario(16, True).model_dump(mode="json")
    data["workloads"] = [{"name": "aio", "rw": "randread", "bs": "4k", "iodepth": 32, "numjobs": 16,
                          "ioengine": "libaio"}]
    sim = nvsim.Simulation(nvsim.parse_scenario(data), "aio")
    # 8,000 host I/Os: over a 4,000 window the threads' bookings ran past it (busy 1.0 reported, capped,
    # where the CPU% counts the uncapped time: 10.45% against 10.08%)
    for fidelity, options in (("fluid", {}), ("event", {"host_ios": 8000})):
        result = sim.run(fidelity, **options)
        util = {u.resource: u for u in result.simulation.utilisation}
        (threads,) = [u for name, u in util.items() if "rebuild thread" in name]
        assert threads.utilisation > 0.05 and not threads.host_visits, fidelity
        cores = util["host cores (16 job CPUs)"].utilisation * 16
        assert result.cpu_percent == pytest.approx(100 * (cores + threads.utilisation * THREADS) / 72, rel=1e-3), fidelity


def test_what_limits_the_rebuild_is_a_station_its_requests_load():
    """One reconstruction thread beside 16 CPU-bound reading jobs: the thread is the limit, not the
    jobs' cores, which no reconstruction request visits (it read 'host cores (16 job CPUs) at 100%')."""
    data = _scenario(16, True).model_dump(mode="json")
    data["array"]["engine_settings"] = {"recon_threads": 1}
    data["workloads"] = [{"name": "aio", "rw": "randread", "bs": "4k", "iodepth": 32, "numjobs": 16,
                          "ioengine": "libaio"}]
    result = nvsim.Simulation(nvsim.parse_scenario(data), "aio").run("fluid")
    cores = [u.utilisation for u in result.simulation.utilisation if u.resource.startswith("host cores")]
    assert cores[0] > 0.99  # the jobs' cores are the busiest station
    assert "host cores" not in result.rebuild_limited_by
    assert result.rebuild_limited_by.startswith("Xinnor xiRAID Classic 4.0 rebuild thread at")


def test_the_event_mode_leaves_the_reconstruction_the_cpus_the_polling_jobs_leave():
    """The event mode shares the host's CPUs as the fluid mode does (``ArrayModel.rebuild_thread_cpus``):
    72 polling jobs on 72 CPUs leave the reconstruction's 4 threads one CPU, so it goes at most one
    CPU's worth of its rate with 8 jobs (it kept all 4: 6.2 GB/s and 453K host IOPS, against the
    fluid mode's 1.58 GB/s and 4.50M)."""
    def event(numjobs):
        return nvsim.Simulation(_scenario(numjobs, True), "poll").run("event", host_ios=20000)
    few, every = event(8), event(72)
    per_cpu = few.rebuild_bytes_per_s / _threads_busy(few)
    (threads,) = [u for u in every.simulation.utilisation if "rebuild thread" in u.resource]
    assert threads.utilisation > 0.9  # one CPU, busy: the limit
    assert every.rebuild_bytes_per_s <= 1.05 * per_cpu
    assert every.rebuild_bytes_per_s == pytest.approx(_run(72, True).rebuild_bytes_per_s, rel=0.1)
    assert every.cpu_percent == pytest.approx(100.0)
