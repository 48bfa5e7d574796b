"""SSD model: datasheet -> internal parameters (derive), and the steady-state drive model (model)."""

from .derive import PROGRAM_SUSPEND_US, SsdParameters, derive_ssd_parameters
from .model import DrivePrediction, SsdModel, drive_workload_limit, fit_program_suspend_us, predict_drive_workload

__all__ = ["SsdParameters", "derive_ssd_parameters", "fit_program_suspend_us", "PROGRAM_SUSPEND_US", "SsdModel",
           "DrivePrediction", "predict_drive_workload", "drive_workload_limit"]
