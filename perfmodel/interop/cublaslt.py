"""cuBLASLt: predict its algorithm configurations and rank them without benchmarking them all.

- ``predict_algo(problem, algo, hw, clock=...)``: one configuration (a ``CublasLtAlgo``): the GEMM kernel
  it runs (``families.cublaslt``: the nvjet schedule over the simulator's components), plus, under
  split-K, the reduce kernel's pass over the fp32 workspace. Refused configurations carry a one-line
  reason and time inf.
- ``rank(M, N, K, dtype, gpu, candidates=None)``: every candidate, best predicted first, as a DataFrame
  with the fields a caller sets through ``cublasLtMatmulAlgoInit`` / ``cublasLtMatmulAlgoConfigSetAttribute``
  (algo_id, tile_id, stages_id, splitk, reduction_scheme, swizzle, custom_option, cluster_id, inner_shape_id).
  Candidates default to the committed capability table ``configs/cublaslt/<gpu>.toml`` (configurations
  cuBLASLt 13.1 accepted on that GPU, from data/cublaslt), filtered by the alignment each algorithm needs.
cuBLASLt itself is never loaded here.
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..errors import ConfigError, IllegalConfigError, PerfmodelError
from ..families.cublaslt import FAMILY, CublasLtAlgo
from ..hardware import HardwareSpec, config_dir, load_hardware
from ..problem import GemmProblem, make_problem

# cublasLt::splitKreduce_kernel<32, 16, ...> (block 32x16) after an nvjet _splitK kernel: ncu durations of
# the 10 such kernels in data/cublaslt/h100_kernel_names.jsonl (128x8192x8192 bf16, split-K 2 and 3:
# 7.84-9.09 us) minus their bytes at the achievable HBM bandwidth: 3.9-4.5 us, median 4.3 us. It is the
# kernel's ramp and drain (512 blocks of 512 threads reading 8-12 MB), not a bandwidth; not fitted to times.
SPLITK_REDUCE_FIXED_S = 4.3e-6
FIELDS = ("algo_id", "tile_id", "stages_id", "splitk", "reduction_scheme", "swizzle", "custom_option",
          "cluster_id", "inner_shape_id")
DTYPES = ("bf16", "e4m3")


class CublasLtInteropError(PerfmodelError):
    pass


@dataclass(frozen=True)
class AlgoPrediction:
    algo: CublasLtAlgo
    time_s: float                 # inf when refused
    tflops: float
    gemm_time_s: float
    reduce_time_s: float
    bottleneck: str
    clock_hz: float
    config_name: str = ""
    reason: str = ""


def splitk_reduce_s(problem: GemmProblem, splitk: int, hw: HardwareSpec) -> float:
    """The reduce kernel: read split-K fp32 partials of M x N, write M x N outputs, at the achievable HBM
    bandwidth, plus its fixed ramp/drain time (SPLITK_REDUCE_FIXED_S)."""
    if splitk <= 1:
        return 0.0
    mn = problem.m * problem.n * problem.batch
    nbytes = splitk * mn * 4 + mn * problem.out_dtype.bits / 8
    return SPLITK_REDUCE_FIXED_S + nbytes / (hw.hbm.bandwidth_bytes_per_s * hw.hbm.achievable_fraction)


def alignment_reason(problem: GemmProblem, min_align_bytes: Iterable[int] | None) -> str:
    """Why an algorithm needing ``min_align_bytes`` (A, B, C, D) cannot take this problem ("" if it can):
    the operands' row pitches (K elements of A and B, N of D) must be multiples of it."""
    if not min_align_bytes:
        return ""
    al = list(min_align_bytes)
    pitches = {"A": problem.k * problem.a_elem_bytes, "B": problem.k * problem.b_elem_bytes,
               "D": problem.n * problem.out_dtype.bits / 8}
    for name, need in (("A", al[0]), ("B", al[1]), ("D", al[3] if len(al) > 3 else 0)):
        if need and pitches[name] % need:
            return f"{name} rows are {pitches[name]:g} B apart; this algorithm needs {need}-byte alignment"
    return ""


def predict_algo(problem: GemmProblem, algo: CublasLtAlgo, hw: HardwareSpec, *, clock="boost") -> AlgoPrediction:
    """One configuration's predicted time at ``clock`` (as ``predict``: boost, short, sustained or MHz)."""
    from ..prediction.predict import predict
    try:
        mp = FAMILY.map(problem, hw, algo)
        p = predict(mp.problem, mp.config, hw, clock=clock, family=FAMILY)
    except (ConfigError, IllegalConfigError) as exc:
        return AlgoPrediction(algo, math.inf, 0.0, math.inf, 0.0, "refused", 0.0, "", str(exc).splitlines()[0])
    if p.deadlock:
        return AlgoPrediction(algo, math.inf, 0.0, math.inf, 0.0, "deadlock", p.clock_hz, mp.config.name, p.reason)
    red = splitk_reduce_s(problem, mp.splitk, hw)
    t = p.time_s + red
    return AlgoPrediction(algo, t, problem.flops / t / 1e12, p.time_s, red, p.bottleneck.value, p.clock_hz,
                          mp.config.name)


# ---------------------------------------------------------------------------- candidates
def candidates_path(gpu: str) -> Path:
    return config_dir() / "cublaslt" / f"{gpu}.toml"


def load_candidates(gpu: str, dtype: str, path: str | Path | None = None) -> list[dict]:
    """The capability table's configurations for ``dtype`` (each a dict of the attribute fields, the
    decoded tile/stages/cluster names and the algorithm's min_align_bytes)."""
    f = Path(path) if path else candidates_path(gpu)
    try:
        doc = tomllib.loads(f.read_text())
    except FileNotFoundError:
        raise CublasLtInteropError(f"no cuBLASLt capability table for {gpu} ({f} missing)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CublasLtInteropError(f"cannot read the cuBLASLt capability table {f}: {exc}") from None
    table = doc.get(dtype)
    if not isinstance(table, dict) or "configs" not in table:
        raise CublasLtInteropError(f"{f} has no [{dtype}] configurations (has: {', '.join(k for k in doc if k in DTYPES)})")
    align = {int(a["algo_id"]): a.get("min_align_bytes") for a in table.get("algos", [])}
    cols = table["columns"]
    out = []
    for row in table["configs"]:
        d = dict(zip(cols, row))
        d["min_align_bytes"] = align.get(int(d["algo_id"]))
        out.append(d)
    return out


def _as_entry(c: Any) -> dict:
    if isinstance(c, CublasLtAlgo):
        d = {f: getattr(c, f, 0) for f in FIELDS if hasattr(c, f)}
        d.update(tile=f"{c.tile_r}x{c.tile_c}", stage_k=c.stage_k, stage_count=c.stage_count,
                 cluster=f"{c.cluster_x}x{c.cluster_y}x1" if c.cluster_x else "auto")
        return d
    if isinstance(c, Mapping):
        if "algo_id" not in c:
            raise CublasLtInteropError(f"a cuBLASLt candidate needs at least algo_id (got keys {sorted(c)})")
        return dict(c)
    raise CublasLtInteropError(f"a cuBLASLt candidate is a CublasLtAlgo or a dict of its attributes, not {type(c).__name__}")


def rank(M: int, N: int, K: int, dtype: str = "bf16", gpu: str | HardwareSpec = "h100-sxm", *,
         candidates: Iterable[Any] | None = None, clock="boost", candidates_file: str | Path | None = None):
    """cuBLASLt algorithm configurations for D (MxN) = A (MxK) B (NxK)^T (TN, K-contiguous operands, as
    data/cublaslt measured), best predicted first: a DataFrame with the fields to set (FIELDS), the
    decoded tile/stages/cluster, predicted time (us) and TFLOP/s, the split-K reduce share, the
    bottleneck, and the reason for configurations the model refuses or the problem's alignment excludes
    (time inf, listed last)."""
    import pandas as pd
    if dtype not in DTYPES:
        raise CublasLtInteropError(f"dtype {dtype!r}: the cuBLASLt family is modelled for {', '.join(DTYPES)}")
    hw = gpu if isinstance(gpu, HardwareSpec) else load_hardware(gpu)
    try:
        problem = make_problem((int(M), int(N), int(K)), dtype)
    except (TypeError, ValueError) as exc:
        raise CublasLtInteropError(f"bad problem size {M}x{N}x{K}: {exc}") from None
    entries = [_as_entry(c) for c in candidates] if candidates is not None else \
        load_candidates(hw.name, dtype, candidates_file)
    rows = []
    for e in entries:
        try:
            algo = CublasLtAlgo.from_row(e)
        except (KeyError, TypeError, ValueError) as exc:
            raise CublasLtInteropError(f"bad cuBLASLt candidate {e}: {exc}") from None
        why = alignment_reason(problem, e.get("min_align_bytes"))
        r = (AlgoPrediction(algo, math.inf, 0.0, math.inf, 0.0, "not offered", 0.0, "", why) if why
             else predict_algo(problem, algo, hw, clock=clock))
        row = {f: int(e.get(f, getattr(algo, f, 0)) or 0) for f in FIELDS}
        row.update(tile=e.get("tile", f"{algo.tile_r}x{algo.tile_c}"), stages=e.get("stages", ""),
                   cluster=e.get("cluster", ""), pred_time_us=r.time_s * 1e6, pred_tflops=r.tflops,
                   pred_reduce_us=r.reduce_time_s * 1e6, clock_mhz=r.clock_hz / 1e6, bottleneck=r.bottleneck,
                   reason=r.reason, config_name=r.config_name)
        rows.append(row)
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    return df.sort_values(["pred_time_us", "algo_id", "tile_id", "cluster_id", "custom_option", "splitk"],
                          kind="stable").reset_index(drop=True)


__all__ = ["AlgoPrediction", "CublasLtInteropError", "DTYPES", "FIELDS", "SPLITK_REDUCE_FIXED_S", "alignment_reason",
           "candidates_path", "load_candidates", "predict_algo", "rank", "splitk_reduce_s"]
