"""Hardware measurement of perfmodel's own sm_90a kernel: build, run, check, time, record.

Standard library only (it runs on GPU machines without simpy/optuna/pandas):
``PYTHONPATH=. python3 -m perfmodel.measure --gpu h100-sxm --sweep configs/sweeps/h100_dataset.toml
--out data/measurements/h100.jsonl`` is ``perfmodel validate`` without the rest of the CLI.
"""
from .api import EnvironmentFailure, GpuIdentity, NoGpuError, query_gpu, require_gpu, validate
from .build import Binary, BuildError, Builder, kernel_hash, macros
from .dataset import Dataset, DatasetError, read_dataset
from .records import CUBLAS, DatasetHeader, Invalidity, Measurement
from .runner import TimingOptions
from .sweep import Sweep, SweepError, load_sweep

__all__ = ["Binary", "BuildError", "Builder", "CUBLAS", "Dataset", "DatasetError", "DatasetHeader", "EnvironmentFailure",
           "GpuIdentity", "Invalidity", "Measurement", "NoGpuError", "Sweep", "SweepError", "TimingOptions",
           "kernel_hash", "load_sweep", "macros", "query_gpu", "read_dataset", "require_gpu", "validate"]
