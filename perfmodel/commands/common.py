"""Flags shared by check/predict/tune, and turning them into (hardware, problem, derived config)."""
from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

from ..config import Derived, KernelConfig, derive
from ..families import DEFAULT as DEFAULT_FAMILY, FAMILIES, KernelFamily, TritonFamily, TritonKnobs, get_family
from ..errors import ConfigError, PerfmodelError
from ..hardware import Arch, HardwareSpec, load_hardware
from ..legality.capacity import require_fits
from ..problem import DTYPE_PRESETS, GemmProblem, make_problem


def add_problem_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", required=True, help="GPU name (see `perfmodel gpus`) or a hardware TOML path")
    p.add_argument("--problem", required=True, metavar="MxNxK", help="GEMM shape, e.g. 8192x8192x8192")
    p.add_argument("--dtype", default="bf16", help=f"operand types: {', '.join(DTYPE_PRESETS)}")
    p.add_argument("--sparse", action="store_true", help="structured-sparse A (2:4; 1:2 tf32; 4:8 mxf4)")
    p.add_argument("--a-major", choices=["k", "mn"], default="k", help="A contiguous along K (default) or M")
    p.add_argument("--b-major", choices=["k", "mn"], default="k", help="B contiguous along K (default) or N")
    p.add_argument("--kernel", choices=list(FAMILIES), default=DEFAULT_FAMILY,
                   help="kernel family: ours (default), triton-tma (Triton's TMA matmul), triton-ptr "
                        "(Triton's pointer matmul with cp.async)")


def add_knob_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="NAME", help="a canonical configuration name (overrides the knobs)")
    p.add_argument("--tile", metavar="BMxBNxBK", help="CTA tile, e.g. 128x256x64")
    p.add_argument("--mma", metavar="MxNxK", help="MMA instruction shape (default derived)")
    p.add_argument("--stages", type=int, help="shared-memory pipeline stages (default: as many as fit)")
    p.add_argument("--swizzle", choices=["0", "32", "64", "128", "128a32"], help="swizzle span for A and B")
    p.add_argument("--cluster", metavar="MxN", help="cluster shape, e.g. 2x1")
    p.add_argument("--cta-group", type=int, choices=[1, 2], help="tcgen05 cta_group (sm_100a)")
    p.add_argument("--consumers", type=int, help="consumer (sm_90a) or epilogue (sm_100a) warpgroups")
    p.add_argument("--num-warps", type=int, help="Triton families: num_warps (4 or 8; default 4)")
    p.add_argument("--acc-buffers", type=int, help="TMEM accumulator buffers (sm_100a)")
    p.add_argument("--multicast", action=argparse.BooleanOptionalAction, default=None, help="TMA multicast in the cluster")
    p.add_argument("--persistent", action=argparse.BooleanOptionalAction, default=None, help="persistent tile scheduler")
    p.add_argument("--raster", choices=["m", "n"], help="tile raster order")
    p.add_argument("--group-size", type=int, help="grouped tile order width (1 = plain raster)")
    p.add_argument("--epilogue", choices=["dir", "tma"], help="epilogue: direct stores or TMA store")
    p.add_argument("--json", action="store_true", help="machine-readable output")


_PAIR = re.compile(r"^(\d+)x(\d+)$")
_TRIPLE = re.compile(r"^(\d+)x(\d+)x(\d+)$")


def _parse(text: str | None, pattern: re.Pattern, what: str):
    if text is None:
        return None
    m = pattern.match(text.strip().lower())
    if not m or min(int(g) for g in m.groups()) <= 0:
        raise ConfigError(f"malformed {what} '{text}'")
    return tuple(int(g) for g in m.groups())


KNOB_FLAGS = ("tile", "mma", "stages", "swizzle", "cluster", "cta_group", "consumers", "num_warps", "acc_buffers",
              "multicast", "persistent", "raster", "group_size", "epilogue")


def given_knobs(args: argparse.Namespace) -> list[str]:
    """The knob flags given on the command line (as --flag-names)."""
    return [f"--{k.replace('_', '-')}" for k in KNOB_FLAGS if getattr(args, k, None) is not None]


def require_our_kernel_arch(hw: HardwareSpec, flags: str) -> None:
    """``flags`` (--our-kernel, --validate-top) ask for our validation kernel, which is sm_90a only."""
    if hw.arch is not Arch.SM90A:
        raise PerfmodelError(f"{flags}: our validation kernel is sm_90a only; {hw.name} is {hw.arch.value}")


@dataclass(frozen=True)
class Resolved:
    hw: HardwareSpec
    problem: GemmProblem
    derived: Derived
    family: KernelFamily = FAMILIES[DEFAULT_FAMILY]

    @property
    def config(self) -> KernelConfig:
        return self.derived.config


def resolve(args: argparse.Namespace) -> Resolved:
    """Build hardware, problem and configuration from parsed flags; raises PerfmodelError on bad input."""
    hw = load_hardware(args.gpu)
    problem = make_problem(args.problem, args.dtype, sparse=args.sparse,
                           a_major=args.a_major, b_major=args.b_major)
    require_fits(problem, hw)   # no configuration runs a problem whose operands exceed the HBM
    family = get_family(getattr(args, "kernel", None))
    if isinstance(family, TritonFamily):
        return Resolved(hw, problem, _triton(args, problem, hw, family), family)
    if getattr(args, "num_warps", None) is not None:
        raise ConfigError("--num-warps is a knob of the Triton families (--kernel triton-tma / triton-ptr); our kernel "
                          "takes --consumers (MMA warpgroups)")
    if getattr(args, "config", None) is not None and not args.config.strip():
        raise ConfigError("--config: empty name (give a canonical configuration name, or leave the flag out)")
    if getattr(args, "config", None):
        cfg = KernelConfig.from_name(args.config)
        knobs = given_knobs(args)
        if knobs:
            raise ConfigError(f"--config NAME fixes every knob; it conflicts with {', '.join(knobs)} "
                              f"(drop --config, or drop the knob flags)")
        return Resolved(hw, problem, Derived(cfg, ("from --config",)), family)
    derived = derive(problem, hw, _parse(args.tile, _TRIPLE, "--tile (expected BMxBNxBK)"),
                     stages=args.stages, swizzle=args.swizzle,
                     cluster=_parse(args.cluster, _PAIR, "--cluster (expected MxN)"),
                     cta_group=args.cta_group, consumers=args.consumers, persistent=args.persistent,
                     raster=args.raster, group_size=args.group_size, multicast=args.multicast,
                     acc_buffers=args.acc_buffers, epilogue=args.epilogue,
                     mma=_parse(args.mma, _TRIPLE, "--mma (expected MxNxK)"))
    return Resolved(hw, problem, derived, family)


TRITON_DEFAULTS = {"tile": (128, 128, 64), "group_size": 8, "num_warps": 4, "stages": 3}   # Triton tutorial


def _triton(args, problem: GemmProblem, hw: HardwareSpec, family: TritonFamily) -> Derived:
    """A Triton family's configuration from --tile (BLOCK_MxBLOCK_NxBLOCK_K), --stages (num_stages),
    --num-warps (or --consumers x 4), --group-size (GROUP_M); the knobs Triton has no say in are refused."""
    for flag in ("config", "mma", "swizzle", "cluster", "cta_group", "acc_buffers", "multicast", "persistent",
                 "raster", "epilogue"):
        if getattr(args, flag, None) is not None:
            raise ConfigError(f"--{flag.replace('_', '-')} does not apply to --kernel {family.name} "
                              f"(Triton chooses it; the knobs are --tile, --stages, --num-warps, --group-size)")
    notes = []
    low = [f"--{f.replace('_', '-')} {getattr(args, f)}" for f in ("num_warps", "consumers", "stages", "group_size")
           if getattr(args, f, None) is not None and getattr(args, f) < 1]
    if low:   # 0 is a value, not "the default": refused rather than replaced
        raise ConfigError(f"{', '.join(low)}: must be >= 1 for --kernel {family.name}")
    tile = _parse(args.tile, _TRIPLE, "--tile (expected BMxBNxBK)")
    if tile is None:
        tile = TRITON_DEFAULTS["tile"]
        notes.append("BLOCK_M/N/K=128x128x64 (default, Triton tutorial)")
    warps = args.num_warps if args.num_warps is not None else \
        (4 * args.consumers if args.consumers is not None else None)
    if warps is None:
        warps = TRITON_DEFAULTS["num_warps"]
        notes.append("num_warps=4 (default)")
    stages = args.stages if args.stages is not None else TRITON_DEFAULTS["stages"]
    group = args.group_size if args.group_size is not None else TRITON_DEFAULTS["group_size"]
    knobs = TritonKnobs(*tile, group_m=group, num_warps=warps, num_stages=stages)
    cfg = family.config(problem, hw, knobs)
    sch = family.schedule(problem, cfg, hw)
    notes.append(f"Triton config {knobs.name}: {sch.describe()}")
    return Derived(cfg, tuple(notes))


__all__ = ["add_problem_arguments", "add_knob_arguments", "resolve", "Resolved", "PerfmodelError"]
