"""Measure Triton's two matmul families (perfmodel/kernels/triton_gemm.py) on this machine's GPU.

``PYTHONPATH=. python3 -m perfmodel.measure.triton_bench --out F.jsonl [--families triton-tma,triton-ptr]
[--shapes 4096x4096x4096,...] [--time-budget S] [--workers N]``: every (family, shape, config) is compiled
(in parallel worker processes sharing Triton's cache), checked against torch.matmul (relative Frobenius
error, bound 1e-2) and timed with ``triton.testing.do_bench`` (median of its repetitions; p20/p80 beside
it; L2 flushed by do_bench). A JSONL header names the GPU, driver, torch, Triton, CUDA, the timing method
and the date; each row records the config, the result, registers, spills, shared memory and the SM clock
and power nvidia-smi sampled while the row was timed. Failures are rows (compile, resources, correctness,
runtime), not exceptions; a rerun with the same --out skips what it holds. Needs torch and triton only.
"""
from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import subprocess
import sys
import time

FAMILIES = ("triton-tma", "triton-ptr")
SHAPES = ("4096x4096x4096", "8192x8192x8192", "4096x14336x4096", "4096x4096x14336", "4096x6144x4096",
          "3000x5000x2000", "1000x1992x1016", "128x8192x8192", "256x14336x4096", "16x4096x4096")
SMEM_LIMIT = 232448          # bytes per block (opt-in) on sm_90
WARMUP_MS, REP_MS = 10, 40


def configs() -> list[tuple]:
    """~110 configs: block sizes, warps and stages Triton users pick (tutorial and inductor-like lists),
    without those that cannot fit shared memory or hold their accumulators in registers."""
    out = []
    for bm, bn, bk, w, s in itertools.product((64, 128, 256), (64, 128, 256), (32, 64, 128), (4, 8), (2, 3, 4, 5)):
        smem = s * (bm + bn) * bk * 2
        acc = bm * bn // (w * 32)
        if smem > SMEM_LIMIT or acc > 256 or (bm == 64 and w == 8 and bn < 128):
            continue
        if bk == 128 and s > 3 or bk == 32 and s < 3:
            continue
        out.append((bm, bn, bk, 8, w, s))
    out += [(128, 128, 64, 1, 4, 3), (128, 256, 64, 1, 8, 3), (64, 128, 64, 1, 4, 4), (256, 128, 64, 1, 8, 3)]
    return out


def _shape(text):
    m, n, k = (int(x) for x in text.lower().split("x"))
    return m, n, k


def _tensors(torch, m, n, k, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g)
    return a, b, torch.empty(m, n, device="cuda", dtype=torch.bfloat16)


def _precompile(args):
    """Worker: compile a subset of (family, config) for every divisibility class of the shapes."""
    family, cfgs, shapes = args
    import torch
    from perfmodel.kernels import triton_gemm as tg
    classes = {}
    for m, n, k in shapes:
        key = (m % 16 == 0, n % 16 == 0, k % 16 == 0)
        if key not in classes or m * n * k < classes[key][0] * classes[key][1] * classes[key][2]:
            classes[key] = (m, n, k)
    done = 0
    for m, n, k in classes.values():
        a, b, c = _tensors(torch, m, n, k)
        for cfg in cfgs:
            try:
                tg.prepare(family, a, b, c, cfg)()
                done += 1
            except Exception:
                pass
        torch.cuda.synchronize()
    return done


class Smi:
    def __init__(self, path):
        self.path = path
        self.proc = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                                      "-lms", "100"], stdout=open(path, "w"), stderr=subprocess.DEVNULL)
        self.t0 = time.time()

    def window(self, t_start, t_end):
        """Mean SM clock (Hz) and power (W) of the samples in [t_start, t_end] (100 ms apart)."""
        try:
            lines = [ln.split(",") for ln in open(self.path).read().splitlines() if ln.strip()]
        except OSError:
            return None, None
        i0, i1 = int((t_start - self.t0) / 0.1), int((t_end - self.t0) / 0.1) + 1
        sel = [x for x in lines[max(i0, 0):i1] if len(x) == 2]
        try:
            clk = [float(x[0]) for x in sel]
            pw = [float(x[1]) for x in sel]
        except ValueError:
            return None, None
        return (sum(clk) / len(clk) * 1e6 if clk else None), (sum(pw) / len(pw) if pw else None)

    def stop(self):
        self.proc.terminate()


def header(torch, triton, family_list):
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    name, _, driver = smi.partition(", ")
    return {"header": {"gpu_name": name, "driver": driver, "torch": torch.__version__, "triton": triton.__version__,
                       "cuda": torch.version.cuda, "families": list(family_list), "dtype": "bf16",
                       "layout": "TN (A MxK, B NxK, K-contiguous; C = A @ B^T)",
                       "timing": f"triton.testing.do_bench(warmup={WARMUP_MS}, rep={REP_MS}) median, L2 flushed",
                       "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                       "format": "perfmodel-triton/1"}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m perfmodel.measure.triton_bench")
    ap.add_argument("--out", required=True)
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--time-budget", type=float, default=540.0)
    ap.add_argument("--workers", type=int, default=14)
    args = ap.parse_args(argv)
    t_begin = time.time()
    try:
        families = [f for f in args.families.split(",") if f]
        bad = [f for f in families if f not in FAMILIES]
        shapes = [_shape(s) for s in args.shapes.split(",") if s]
        if bad:
            raise ValueError(f"unknown family {bad[0]!r}")
    except ValueError as exc:
        print(f"triton_bench: error: {exc}", file=sys.stderr)
        return 2
    import torch
    import triton
    from triton.testing import do_bench
    from perfmodel.kernels import triton_gemm as tg
    cfgs = configs()
    done = set()
    if os.path.exists(args.out):
        for line in open(args.out, errors="replace"):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if "family" in r:
                done.add((r["family"], r["m"], r["n"], r["k"], tuple(r["knobs"])))
    out = open(args.out, "a")
    if not done and os.path.getsize(args.out) == 0:
        out.write(json.dumps(header(torch, triton, families)) + "\n")
    # compile in parallel (Triton's on-disk cache is shared between processes)
    import multiprocessing as mp
    t = time.time()
    jobs = [(f, cfgs[i::args.workers], shapes) for f in families for i in range(args.workers)]
    with mp.get_context("spawn").Pool(args.workers) as pool:
        compiled = sum(pool.map(_precompile, jobs))
    print(f"precompiled {compiled} kernels in {time.time() - t:.0f} s", flush=True)
    smi = Smi(args.out + ".smi.csv")
    n_rows = 0
    try:
        for m, n, k in shapes:
            a, b, c = _tensors(torch, m, n, k, seed=m + n + k)
            ref = (a.float() @ b.float().T)
            ref_norm = float(ref.norm())
            for family in families:
                for cfg in cfgs:
                    key = (family, m, n, k, cfg)
                    if key in done:
                        continue
                    if time.time() - t_begin > args.time_budget:
                        print(f"time budget reached after {n_rows} rows", flush=True)
                        return 0
                    row = {"family": family, "m": m, "n": n, "k": k, "dtype": "bf16", "knobs": list(cfg),
                           "BLOCK_M": cfg[0], "BLOCK_N": cfg[1], "BLOCK_K": cfg[2], "GROUP_M": cfg[3],
                           "num_warps": cfg[4], "num_stages": cfg[5], "invalidity": "correct", "error": ""}
                    t0 = time.time()
                    try:
                        c.fill_(float("nan"))
                        run = tg.prepare(family, a, b, c, cfg)
                        kern = run()
                        torch.cuda.synchronize()
                        row.update(registers=getattr(kern, "n_regs", None), spills=getattr(kern, "n_spills", None),
                                   smem_bytes=getattr(getattr(kern, "metadata", None), "shared", None))
                        err = float((c.float() - ref).norm()) / max(ref_norm, 1e-30)
                        row["rel_err"] = err
                        if not err < 1e-2:
                            row.update(invalidity="correctness", error=f"relative error {err:.3g}")
                        else:
                            ms = do_bench(run, warmup=WARMUP_MS, rep=REP_MS, quantiles=[0.5, 0.2, 0.8])
                            row.update(time_median_s=ms[0] * 1e-3, time_p20_s=ms[1] * 1e-3, time_p80_s=ms[2] * 1e-3,
                                       tflops=2.0 * m * n * k / (ms[0] * 1e-3) / 1e12)
                    except Exception as exc:          # noqa: BLE001 - every failure is a recorded row
                        text = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
                        kind = "resources" if "OutOfResources" in text or "out of resource" in text.lower() else (
                            "compile" if "Compil" in type(exc).__name__ or "PTXAS" in text.upper() else "runtime")
                        row.update(invalidity=kind, error=text)
                        torch.cuda.synchronize()
                    clk, pw = smi.window(t0, time.time())
                    row.update(sm_clock_mean_hz=clk, power_mean_w=pw, valid=row["invalidity"] == "correct",
                               measured_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    n_rows += 1
            del a, b, c, ref
            torch.cuda.empty_cache()
            print(f"shape {m}x{n}x{k} done ({n_rows} rows, {time.time() - t_begin:.0f} s)", flush=True)
    finally:
        smi.stop()
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
