"""`nvsim run` loads only what the command uses (issue 41): no dashboard (Dash, Plotly), no Dask,
no pandas, SciPy's optimizer only where a model calls it, and none of nvsim's modules that only
other commands use (validation and its published files; the FTL simulation); a fluid run runs its
workloads in its own process (no pool: no workers module, no multiprocessing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("dash", "plotly", "dask", "distributed", "pandas", "scipy.optimize")
UNUSED_BY_RUN = ("nvsim.validation", "nvsim.published", "nvsim.workers", "nvsim.ftl.simulate", "multiprocessing")

CODE = """
import json, sys
from nvsim.cli import main
sys.argv = ["nvsim", "run", "scenarios/graid-gen5-raid6", "--fidelity", "fluid", "--json", "-o", sys.argv[1]]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps(sorted(sys.modules)))
"""


def test_nvsim_run_loads_no_dashboard_dask_pandas_or_optimizer(tmp_path):
    out = subprocess.run([sys.executable, "-c", CODE, str(tmp_path / "run.json")], cwd=ROOT, capture_output=True,
                         text=True, check=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    loaded = set(json.loads(out.stdout.splitlines()[-1]))
    assert (tmp_path / "run.json").exists()
    assert not [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith("scipy.optimize")]
    assert not loaded & set(UNUSED_BY_RUN)
