"""Composite workloads, solved from closed-loop runs handed in: a mix of block sizes (``mix``),
open-loop Poisson arrivals (``open_loop``), jobs that run at the same time (``together``), fresh
drives that turn steady (``fresh``) and trims as deallocations (``trim``).

No module here imports the orchestrator (nvsim.simulation) or fio's format (nvsim.fio): a solver
that needs a closed loop solved receives the runner (``nvsim.result.ClosedLoop``) as an argument.
"""
