"""Frozen records of the measurement dataset: one header per file, one Measurement per line.

Only the standard library: this package runs on the GPU machine without simpy/optuna/pandas.
"""
from __future__ import annotations

import dataclasses
import enum
import math
from dataclasses import dataclass

FORMAT = "perfmodel-measurements/1"
CUBLAS = "cublas"   # config_name of the cuBLAS reference rows (bf16, same shape, same GPU)


class Invalidity(enum.Enum):
    """kernel_tuner's vocabulary: ``correct`` is the one valid outcome."""
    CORRECT = "correct"
    COMPILE = "compile"          # nvcc/ptxas failed
    RUNTIME = "runtime"          # the harness crashed or reported a CUDA error
    TIMEOUT = "timeout"          # the run outlived --timeout and was killed
    CORRECTNESS = "correctness"  # wrong result against the reference GEMM
    CONSTRAINTS = "constraints"  # refused by perfmodel.legality before compiling


@dataclass(frozen=True)
class DatasetHeader:
    """First line of a dataset file. IDENTITY fields must match for a run to append to it."""
    gpu_spec: str          # hardware file the dataset validates, e.g. "h100-sxm"
    gpu_name: str          # what the driver calls the GPU, e.g. "NVIDIA H100 80GB HBM3"
    driver: str            # NVIDIA driver version
    nvcc: str              # nvcc release line (the harness links cudart statically from it)
    kernel_hash: str       # sha256 of perfmodel/kernels sources (kernel + harness)
    hw_fingerprint: str    # perfmodel HardwareSpec fingerprint of gpu_spec when the file was created
    created: str           # ISO-8601 UTC date of creation
    format: str = FORMAT

    IDENTITY = ("format", "gpu_spec", "gpu_name", "driver", "nvcc", "kernel_hash")

    def mismatches(self, other: "DatasetHeader") -> list[str]:
        return [f"{f}: file has '{getattr(self, f)}', this run has '{getattr(other, f)}'"
                for f in self.IDENTITY if getattr(self, f) != getattr(other, f)]

    def to_dict(self) -> dict:
        return {"header": dataclasses.asdict(self)}

    @classmethod
    def from_dict(cls, d: dict) -> "DatasetHeader":
        body = d["header"]
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in body.items() if k in names})


@dataclass(frozen=True)
class Measurement:
    """One (configuration, shape, dtype) run. Times are medians over many launches (seconds)."""
    config_name: str                 # canonical KernelConfig name, or "cublas"
    m: int
    n: int
    k: int
    dtype: str                       # operand type: "bf16" or "e4m3"
    kernel_hash: str
    invalidity: Invalidity
    time_median_s: float | None = None
    time_p20_s: float | None = None
    time_p80_s: float | None = None
    reps: int | None = None
    tflops: float | None = None      # 2MNK / median
    rel_err: float | None = None     # ||D - ref||_F / ||ref||_F
    cublas_median_s: float | None = None   # cuBLAS bf16 timed in the same process, when asked
    cublas_tflops: float | None = None
    cublas_sm_clock_mean_hz: float | None = None
    sm_clock_mean_hz: float | None = None  # NVML samples during the timed loop
    sm_clock_min_hz: float | None = None
    power_mean_w: float | None = None
    power_max_w: float | None = None
    smi_sm_clock_mean_hz: float | None = None   # nvidia-smi samples over the whole process
    smi_sm_clock_min_hz: float | None = None
    smi_power_mean_w: float | None = None
    kernel_clock_median_hz: float | None = None   # in-kernel SM clock (block 0's clock64 / %globaltimer), median
    kernel_clock_min_hz: float | None = None      # over up to 32 launches sampled evenly over the timed loop
    registers: int | None = None     # ptxas: registers per thread
    spill_bytes: int | None = None   # ptxas: spill stores + loads
    smem_bytes: int | None = None    # dynamic shared memory of the launch
    grid_ctas: int | None = None
    compile_s: float | None = None
    run_s: float | None = None
    seed: int | None = None
    error: str = ""
    measured_at: str = ""

    @property
    def valid(self) -> bool:
        return self.invalidity is Invalidity.CORRECT

    @property
    def shape_name(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"

    @property
    def key(self) -> tuple[str, str, str, str]:
        return measurement_key(self.config_name, self.shape_name, self.dtype, self.kernel_hash)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["invalidity"] = self.invalidity.value
        d["valid"] = self.valid
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Measurement":
        """From one dataset row; a row with a missing key or a value of the wrong type raises
        KeyError/TypeError/ValueError (the reader skips it with a warning)."""
        if not isinstance(d, dict):
            raise TypeError(f"a row is a JSON object, got {type(d).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        body = {k: v for k, v in d.items() if k in names}
        body["invalidity"] = Invalidity(body["invalidity"])
        for key in ("m", "n", "k"):
            v = body[key]
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{key} must be a positive integer, got {v!r}")
        for key in ("config_name", "dtype", "kernel_hash"):
            if not isinstance(body[key], str):
                raise TypeError(f"{key} must be a string, got {body[key]!r}")
        for key in _NUMBERS:
            v = body.get(key)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"{key} must be a number or null, got {v!r}")
            if not math.isfinite(v) or v < 0 or (v == 0 and key in _POSITIVE):
                raise ValueError(f"{key} must be a finite number {'> 0' if key in _POSITIVE else '>= 0'}, got {v!r}")
        t, f = body.get("time_median_s"), body.get("tflops")
        if body["invalidity"] is Invalidity.CORRECT and (t is None or f is None):
            raise ValueError("a correct row needs time_median_s and tflops")
        if t and f:
            rate = 2.0 * body["m"] * body["n"] * body["k"] / t / 1e12
            if abs(rate / f - 1.0) > TFLOPS_TOLERANCE:
                raise ValueError(f"tflops {f!r} disagrees with 2MNK / time_median_s ({rate:.6g})")
        return cls(**body)


# measured times, rates, clocks and powers are > 0 when present (0 or a negative is a broken row, not a measurement)
_POSITIVE = frozenset(("time_median_s", "time_p20_s", "time_p80_s", "tflops", "cublas_median_s", "cublas_tflops",
                       "cublas_sm_clock_mean_hz", "sm_clock_mean_hz", "sm_clock_min_hz", "power_mean_w", "power_max_w",
                       "smi_sm_clock_mean_hz", "smi_sm_clock_min_hz", "smi_power_mean_w", "kernel_clock_median_hz",
                       "kernel_clock_min_hz"))
TFLOPS_TOLERANCE = 0.01   # a row's tflops is 2MNK / its median time (the harness rounds it to 0.001 TFLOP/s)

_NUMBERS = ("time_median_s", "time_p20_s", "time_p80_s", "reps", "tflops", "rel_err", "cublas_median_s",
            "cublas_tflops", "cublas_sm_clock_mean_hz", "sm_clock_mean_hz", "sm_clock_min_hz", "power_mean_w",
            "power_max_w", "smi_sm_clock_mean_hz", "smi_sm_clock_min_hz", "smi_power_mean_w", "kernel_clock_median_hz",
            "kernel_clock_min_hz", "registers",
            "spill_bytes", "smem_bytes", "grid_ctas", "compile_s", "run_s", "seed")


# A RUNTIME failure whose message says the machine, not the kernel, failed: the harness's CUDA error
# strings (cudaGetErrorString) for a missing device or driver, and the dynamic loader's.
ENVIRONMENT_ERRORS = ("no CUDA-capable device", "CUDA driver version is insufficient", "cudaErrorNoDevice",
                      "cudaErrorInsufficientDriver", "busy or unavailable", "unsupported display driver",
                      "forward compatibility was attempted", "error while loading shared libraries",
                      "CUDA driver is a stub library", "system not yet initialized")


def environment_failure(m: Measurement) -> bool:
    """A run that failed because of the machine (no GPU, no driver), not of the configuration: never
    recorded by ``validate``, and never reused when an older dataset holds one (it is run again)."""
    return m.invalidity is Invalidity.RUNTIME and any(e.lower() in m.error.lower() for e in ENVIRONMENT_ERRORS)


def measurement_key(config_name: str, shape_name: str, dtype: str, kernel_hash: str) -> tuple[str, str, str, str]:
    return (config_name, shape_name, dtype, kernel_hash)
