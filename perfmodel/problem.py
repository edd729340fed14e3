"""The GEMM problem: D[M,N] = A[M,K] x B[K,N] (+ block scales, + 2:4 sparse A). The tuning key."""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from .errors import ProblemError


class DType(enum.Enum):
    F32 = "f32"
    TF32 = "tf32"
    F16 = "f16"
    BF16 = "bf16"
    E4M3 = "e4m3"
    E5M2 = "e5m2"
    E3M2 = "e3m2"
    E2M3 = "e2m3"
    E2M1 = "e2m1"
    S8 = "s8"
    U8 = "u8"
    S32 = "s32"

    @property
    def bits(self) -> int:
        return _BITS[self]

    @property
    def is_float(self) -> bool:
        return self not in (DType.S8, DType.U8, DType.S32)


_BITS = {DType.F32: 32, DType.TF32: 32, DType.F16: 16, DType.BF16: 16, DType.E4M3: 8, DType.E5M2: 8,
         DType.E3M2: 6, DType.E2M3: 6, DType.E2M1: 4, DType.S8: 8, DType.U8: 8, DType.S32: 32}


class Major(enum.Enum):
    """Which extent is contiguous: K-major (row-major A, column-major B) or MN-major (transposed)."""
    K = "k"
    MN = "mn"


class ScaleType(enum.Enum):
    UE8M0 = "ue8m0"
    UE4M3 = "ue4m3"


class MmaKind(enum.Enum):
    """tcgen05.mma .kind (PTX §9.7.16.2.1); Hopper wgmma maps onto the first four."""
    F16 = "f16"
    TF32 = "tf32"
    F8F6F4 = "f8f6f4"
    I8 = "i8"
    MXF8F6F4 = "mxf8f6f4"
    MXF4 = "mxf4"
    MXF4NVF4 = "mxf4nvf4"

    @property
    def block_scaled(self) -> bool:
        return self in (MmaKind.MXF8F6F4, MmaKind.MXF4, MmaKind.MXF4NVF4)

    @property
    def dense_k_bytes(self) -> int:
        return 32   # K x element size is 32 B for every dense kind (PTX §9.7.16.2.2)


_F8F6F4 = {DType.E4M3, DType.E5M2, DType.E3M2, DType.E2M3, DType.E2M1}


@dataclass(frozen=True)
class GemmProblem:
    m: int
    n: int
    k: int
    a_dtype: DType = DType.BF16
    b_dtype: DType = DType.BF16
    acc_dtype: DType = DType.F32
    out_dtype: DType = DType.BF16
    a_major: Major = Major.K
    b_major: Major = Major.K
    scale_type: ScaleType | None = None
    scale_vec_size: int = 0          # K elements per scale factor (16 or 32) for block-scaled kinds
    sparse_a: bool = False           # structured sparsity of A (2:4, 1:2 for tf32, 4:8 for mxf4)
    batch: int = 1

    def __post_init__(self):
        for name in ("m", "n", "k", "batch"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ProblemError(f"{name} must be a positive integer, got {v!r}")
        if max(self.m, self.n, self.k) > (1 << 31) - 1:
            raise ProblemError("M, N and K must each be below 2^31 (TMA coordinates are .s32)")
        if (self.scale_type is None) != (self.scale_vec_size == 0):
            raise ProblemError("scale_type and scale_vec_size go together (block-scaled kinds)")
        if self.scale_vec_size not in (0, 16, 32):
            raise ProblemError(f"scale_vec_size must be 16 or 32, got {self.scale_vec_size}")
        self.kind  # raises ProblemError on an unsupported type combination

    @property
    def kind(self) -> MmaKind:
        a, b = self.a_dtype, self.b_dtype
        if self.scale_type is not None:
            if a is DType.E2M1 and b is DType.E2M1 and (self.scale_vec_size == 16
                                                       or self.scale_type is ScaleType.UE4M3):
                return MmaKind.MXF4NVF4
            if a is DType.E2M1 and b is DType.E2M1 and self.scale_type is ScaleType.UE8M0:
                return MmaKind.MXF4
            if a in _F8F6F4 and b in _F8F6F4:
                return MmaKind.MXF8F6F4
            raise ProblemError(f"no block-scaled MMA kind takes {a.value} x {b.value}")
        if a in (DType.F16, DType.BF16) and b == a:
            return MmaKind.F16
        if a is DType.TF32 and b is DType.TF32:
            return MmaKind.TF32
        if a in _F8F6F4 and b in _F8F6F4:
            return MmaKind.F8F6F4
        if a in (DType.S8, DType.U8) and b in (DType.S8, DType.U8):
            return MmaKind.I8
        raise ProblemError(f"no MMA kind takes {a.value} x {b.value}")

    @property
    def flops(self) -> int:
        """Useful FLOPs (2MNK per batch); sparsity does not change the useful work counted."""
        return 2 * self.m * self.n * self.k * self.batch

    def operand_bytes(self, dtype: DType, elements: int) -> int:
        """SMEM/global bytes: fp4/fp6 in f8f6f4 kinds are padded to 1 byte (PTX §9.7.16.10.4)."""
        bits = dtype.bits
        if bits < 8 and self.kind in (MmaKind.F8F6F4, MmaKind.MXF8F6F4):
            bits = 8
        return (elements * bits + 7) // 8

    @property
    def a_elem_bytes(self) -> float:
        return self.operand_bytes(self.a_dtype, 8) / 8

    @property
    def b_elem_bytes(self) -> float:
        return self.operand_bytes(self.b_dtype, 8) / 8

    @property
    def min_hbm_bytes(self) -> int:
        """Each input read once and the output written once (the compulsory traffic)."""
        a = self.operand_bytes(self.a_dtype, self.m * self.k) // (2 if self.sparse_a else 1)
        b = self.operand_bytes(self.b_dtype, self.k * self.n)
        d = self.m * self.n * self.out_dtype.bits // 8
        return (a + b + d) * self.batch

    def shape_name(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"


# --dtype presets: name -> (a, b, acc, out, scale_type, scale_vec)
DTYPE_PRESETS: dict[str, tuple] = {
    "bf16": (DType.BF16, DType.BF16, DType.F32, DType.BF16, None, 0),
    "fp16": (DType.F16, DType.F16, DType.F32, DType.F16, None, 0),
    "f16": (DType.F16, DType.F16, DType.F32, DType.F16, None, 0),
    "tf32": (DType.TF32, DType.TF32, DType.F32, DType.F32, None, 0),
    "fp8": (DType.E4M3, DType.E4M3, DType.F32, DType.BF16, None, 0),
    "e4m3": (DType.E4M3, DType.E4M3, DType.F32, DType.BF16, None, 0),
    "e5m2": (DType.E5M2, DType.E5M2, DType.F32, DType.BF16, None, 0),
    "fp6": (DType.E3M2, DType.E3M2, DType.F32, DType.BF16, None, 0),
    "fp4": (DType.E2M1, DType.E2M1, DType.F32, DType.BF16, None, 0),
    "int8": (DType.S8, DType.S8, DType.S32, DType.S32, None, 0),
    "mxfp8": (DType.E4M3, DType.E4M3, DType.F32, DType.BF16, ScaleType.UE8M0, 32),
    "mxfp6": (DType.E3M2, DType.E3M2, DType.F32, DType.BF16, ScaleType.UE8M0, 32),
    "mxfp4": (DType.E2M1, DType.E2M1, DType.F32, DType.BF16, ScaleType.UE8M0, 32),
    "nvfp4": (DType.E2M1, DType.E2M1, DType.F32, DType.BF16, ScaleType.UE4M3, 16),
}

_SHAPE_RE = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*[xX]\s*(\d+)\s*$")


def parse_shape(text: str) -> tuple[int, int, int]:
    m = _SHAPE_RE.match(text or "")
    if not m:
        raise ProblemError(f"malformed problem shape '{text}': expected MxNxK, e.g. 8192x8192x8192")
    dims = tuple(int(g) for g in m.groups())
    if min(dims) <= 0:
        raise ProblemError(f"problem shape '{text}' has a zero extent")
    return dims  # type: ignore[return-value]


def make_problem(shape: str | tuple[int, int, int], dtype: str = "bf16", *, sparse: bool = False,
                 a_major: str = "k", b_major: str = "k") -> GemmProblem:
    m, n, k = parse_shape(shape) if isinstance(shape, str) else shape
    try:
        a, b, acc, out, st, vec = DTYPE_PRESETS[dtype.lower()]
    except KeyError:
        raise ProblemError(f"unknown dtype '{dtype}'; known: {', '.join(DTYPE_PRESETS)}") from None
    try:
        return GemmProblem(m, n, k, a, b, acc, out, Major(a_major), Major(b_major), st, vec, sparse)
    except ValueError as exc:
        raise ProblemError(str(exc)) from None
