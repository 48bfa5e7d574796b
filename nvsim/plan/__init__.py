"""``nvsim plan``: capacity planning, from requirements to ranked, verified configurations (docs/plan.md).

The modules, in the order of the search:

- ``spec``: the requirements file (typed, one-line errors, named profiles or fio job files);
- ``space``: the candidates as NumPy index arrays and the exact filters;
- ``bounds``: bounds that never prune what the fluid mode accepts (NAND and link ceilings, the
  shortest rebuild, idle power, endurance);
- ``fluid``: the fluid and event stages in worker processes or on Dask;
- ``answer``: the rejected families and the Pareto front;
- ``search``: the stages, the ranking and the margins (``run_plan``, ``prepare_plan``);
- ``output``: the files written together and the tables.

``nvsim.plan`` offers the names of ``search`` as it did when it was one module; importing it loads
the simulator (the fluid stage runs ``Simulation``).
"""

from .search import (EVENT_TRIES, MAX_FLUID, STAGES, PlanResult, candidate_name, candidate_row, event_stage, feasible_rows,
                     fluid_stage, margins, objective_floor, objective_values, prepare_plan, rank, run_plan, sort_key)

__all__ = ["PlanResult", "run_plan", "prepare_plan", "rank", "margins", "objective_values", "sort_key", "candidate_name",
           "candidate_row", "fluid_stage", "objective_floor", "event_stage", "feasible_rows", "STAGES", "MAX_FLUID", "EVENT_TRIES"]
