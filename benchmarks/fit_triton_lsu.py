"""Fit the two LSU estimates the Triton pointer family depends on, on the Triton calibration split only.

    python3 benchmarks/fit_triton_lsu.py [--gpu h100-sxm] [--clock sustained] [--apply]

`lsu.cp_async_bytes_per_clock_per_sm` (what one SM's LSU/L1 path moves into shared memory by cp.async) and
`lsu.cp_async_issue_cycles_per_warp_instr` (a warp-wide 16-byte cp.async with its address arithmetic) were estimates
"to be replaced by a fit on the Triton calibration split". They act only on the software-pipelined cp.async and
ld.global producers (triton-ptr), so the loss is the mean |log(predicted / measured time)| of that family's rows of
the calibration shapes of configs/splits/triton.toml (data/triton/*_triton.jsonl of the GPU), each in the clock regime
bench_triton.py uses (sustained: do_bench loops back to back). Golden-section coordinate descent within the bounds
below (perfmodel.calibration.fit._golden), two rounds. The held-out half is not read. --apply writes both values
with a fit: source into the GPU's hardware file.
"""
from __future__ import annotations

import argparse
import datetime
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from _datasets import split_datasets  # noqa: E402
from perfmodel import load_hardware, make_problem  # noqa: E402
from perfmodel.calibration.fit import _golden, rounded_value  # noqa: E402
from perfmodel.errors import PerfmodelError  # noqa: E402
from perfmodel.families import TritonKnobs  # noqa: E402
from perfmodel.interop.triton import predict_knobs  # noqa: E402

BOUNDS = {"lsu.cp_async_bytes_per_clock_per_sm": (16.0, 128.0), "lsu.cp_async_issue_cycles_per_warp_instr": (2.0, 64.0)}
FAMILY = "triton-ptr"


def rows(gpu: str):
    out = []
    for _, _, spec, df in split_datasets("configs/splits/triton.toml", "data/triton/*_triton.jsonl", "calibration"):
        if spec != gpu:
            continue
        df = df[df.valid & (df.family == FAMILY)]
        out += [(int(r.m), int(r.n), int(r.k), tuple(int(x) for x in r.knobs), float(r.time_median_s))
                for r in df.itertuples()]
    return out


def loss(hw, data, clock: str) -> float:
    errs = []
    for m, n, k, kn, t in data:
        p = predict_knobs(make_problem((m, n, k), "bf16"), hw, TritonKnobs(*kn), FAMILY, clock=clock)
        if math.isfinite(p.time_ms) and p.time_ms > 0:
            errs.append(abs(math.log(p.time_ms / 1e3 / t)))
    return sum(errs) / len(errs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="h100-sxm")
    ap.add_argument("--clock", default="sustained")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--apply", action="store_true")
    args = ap.parse_args()
    try:
        hw0 = load_hardware(args.gpu)
    except PerfmodelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data = rows(args.gpu)
    if not data:
        print(f"no {FAMILY} calibration rows for {args.gpu}")
        return 2
    values = {k: float(getattr(hw0.lsu, k.split(".")[1])) for k in BOUNDS}
    before = loss(hw0, data, args.clock)
    current = before
    for rnd in range(args.rounds):
        for key, (lo, hi) in BOUNDS.items():
            def f(x, key=key):
                return loss(hw0.with_values(**{**values, key: x}), data, args.clock)
            values[key], current = _golden(f, lo, hi, values[key], current, 8, True)
            print(f"  round {rnd + 1}: {key} = {values[key]:.4g}  loss {current:.4f}", flush=True)
    print(f"{args.gpu}: {len(data)} {FAMILY} calibration rows, loss {before:.4f} -> {current:.4f}")
    for key, v in values.items():
        print(f"  {key}: {getattr(hw0.lsu, key.split('.')[1])} -> {rounded_value(key, v)}")
    if args.apply:
        from perfmodel.microbench.tomledit import apply_to_file
        src = (f"fit: python3 benchmarks/fit_triton_lsu.py --gpu {args.gpu} --clock {args.clock} on the {FAMILY} rows "
               f"of the calibration shapes of configs/splits/triton.toml (data/triton/*_triton.jsonl of this GPU, "
               f"{len(data)} rows; loss {before:.4f} -> {current:.4f}), {datetime.date.today().isoformat()}")
        apply_to_file(hw0.path, {k: (rounded_value(k, v), src) for k, v in values.items()})
        print(f"wrote {len(values)} values to {hw0.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
