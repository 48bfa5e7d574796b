"""nvsim: a calibrated discrete-event simulator of NVMe RAID arrays."""

__version__ = "0.1.0"
