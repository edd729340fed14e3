"""perfmodel: predict and tune TensorCore GEMM kernel configurations on Hopper and Blackwell."""
from .config import Derived, Epilogue, KernelConfig, Raster, Swizzle, derive
from .errors import (ConfigError, HardwareSpecError, IllegalConfigError, PerfmodelError, ProblemError,
                     UnknownGpuError)
from .hardware import Arch, HardwareSpec, list_gpus, load_hardware
from .legality import Violation, check, is_legal
from .problem import DType, GemmProblem, Major, MmaKind, ScaleType, make_problem
from .prediction.predict import Bottleneck, Prediction, predict, predict_many

__version__ = "0.1.0"
__all__ = [
    "Arch", "ConfigError", "DType", "Derived", "Epilogue", "GemmProblem", "HardwareSpec", "HardwareSpecError",
    "IllegalConfigError", "KernelConfig", "Major", "MmaKind", "PerfmodelError", "ProblemError", "Raster",
    "ScaleType", "Swizzle", "UnknownGpuError", "Violation", "check", "derive", "is_legal", "list_gpus",
    "load_hardware", "make_problem",
    "Bottleneck", "Prediction", "predict", "predict_many",
]


def __getattr__(name: str):
    """``perfmodel.tune`` without importing Optuna on ``import perfmodel`` (the GPU-side measuring
    path, ``perfmodel.measure``, must run with the standard library alone)."""
    if name == "tune":
        from .search.tuner import tune
        return tune
    raise AttributeError(f"module 'perfmodel' has no attribute {name!r}")
