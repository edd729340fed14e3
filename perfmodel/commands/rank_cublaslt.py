"""`perfmodel rank-cublaslt`: cuBLASLt's algorithm configurations for a problem, best predicted first."""
from __future__ import annotations

from ..problem import ProblemError, parse_shape

NAME = "rank-cublaslt"
HELP = "rank cuBLASLt's algorithm configurations (nvjet, algo 66) for a problem, best predicted first"
COLUMNS = ["algo_id", "tile_id", "stages_id", "splitk", "reduction_scheme", "swizzle", "custom_option", "cluster_id",
           "tile", "stages", "cluster", "pred_time_us", "pred_tflops", "bottleneck"]


def add_arguments(p):
    p.add_argument("shape", help="MxNxK (D = A (MxK) * B (NxK)^T, both K-contiguous)")
    p.add_argument("--dtype", default="bf16", help="bf16 or e4m3 (default bf16)")
    p.add_argument("--gpu", default="h100-sxm", help="GPU with a capability table in configs/cublaslt/ (default h100-sxm)")
    p.add_argument("--clock", default="boost", help="boost (default), sustained, or MHz")
    p.add_argument("--top", type=int, default=10, help="rows to print (default 10)")
    p.add_argument("--all", action="store_true", help="also list the configurations the model refuses, with the reason")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")


def run(args) -> int:
    from ..interop.cublaslt import CublasLtInteropError, rank
    if args.top < 1:
        raise CublasLtInteropError(f"--top must be at least 1, got {args.top}")
    try:
        m, n, k = parse_shape(args.shape)
    except (ProblemError, ValueError) as exc:
        raise CublasLtInteropError(f"bad shape {args.shape!r}: {exc}") from None
    from ..hardware import load_hardware
    from ..legality.capacity import require_fits
    from ..problem import make_problem
    from ..sim.clock import parse_clock
    clock = parse_clock(args.clock)         # the same clock grammar and checks as predict and tune
    require_fits(make_problem((m, n, k), args.dtype), load_hardware(args.gpu))   # as predict/check/tune
    df = rank(m, n, k, args.dtype, args.gpu, clock=clock)
    ok = df[df.pred_time_us != float("inf")]
    if ok.empty and not args.all:
        import sys
        reasons = "; ".join(df.reason.value_counts().index[:3])
        sys.stderr.write(f"perfmodel: no candidate configuration is modelled for {m}x{n}x{k} {args.dtype} "
                         f"({len(df)} refused: {reasons})\n")
        return 1
    out = df if args.all else ok.head(args.top)
    cols = COLUMNS + (["reason"] if args.all else [])
    if args.format == "json":
        print(out[cols].to_json(orient="records", indent=1))
    elif args.format == "csv":
        print(out[cols].to_csv(index=False), end="")
    else:
        print(f"{m}x{n}x{k} {args.dtype} on {args.gpu}: {len(ok)} of {len(df)} candidate configurations predicted "
              f"(clock {args.clock})")
        print(out[cols].to_string(index=False, float_format=lambda x: f"{x:.1f}"))
    return 0
