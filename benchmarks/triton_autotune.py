"""@triton.autotune with and without perfmodel's perf model (GPU machine; Triton, torch, and simpy on the path).

    PYTHONPATH=. python3 benchmarks/triton_autotune.py --out autotune.json [--shapes 4096x4096x4096,...]

For each shape, the same autotuned kernel (Triton's pointer matmul, perfmodel/kernels/triton_gemm.py, over the
132 configs of perfmodel.measure.triton_bench) is run twice, each time in a fresh process with an empty Triton
cache: exhaustively (Triton compiles and benchmarks every config) and with
``prune_configs_by={"perf_model": perfmodel.interop.triton.matmul_perf_model(kernel="triton-ptr"), "top_k": 8}``.
Start-up = wall time of the first call (compilation, benchmarking, the model's predictions); throughput =
do_bench median of the config each run chose. Prints one JSON line per run.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r'''
import json, sys, time, torch, triton
from triton.testing import do_bench
from perfmodel.kernels import triton_gemm as tg
from perfmodel.measure.triton_bench import configs
m, n, k, mode = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
cfgs = [triton.Config({"BLOCK_M": c[0], "BLOCK_N": c[1], "BLOCK_K": c[2], "GROUP_M": c[3]}, num_warps=c[4],
                      num_stages=c[5]) for c in configs()]
prune = None
if mode == "model":
    from perfmodel.interop.triton import matmul_perf_model
    prune = {"perf_model": matmul_perf_model("h100-sxm", dtype="bf16", kernel="triton-ptr"), "top_k": 8}
kern = triton.autotune(configs=cfgs, key=["M", "N", "K"], prune_configs_by=prune)(tg.matmul_ptr)
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16); b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
grid = lambda META: (triton.cdiv(m, META["BLOCK_M"]) * triton.cdiv(n, META["BLOCK_N"]),)
run = lambda: kern[grid](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
t0 = time.time(); run(); torch.cuda.synchronize(); startup = time.time() - t0
best = kern.best_config
ms = do_bench(run, warmup=25, rep=100)
err = float((c.float() - a.float() @ b.float().T).norm() / (a.float() @ b.float().T).norm())
print(json.dumps({"shape": f"{m}x{n}x{k}", "mode": mode, "startup_s": startup, "configs": len(cfgs),
                  "chosen": str(best), "ms": ms, "tflops": 2 * m * n * k / ms / 1e9, "rel_err": err}))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default="4096x4096x4096,4096x14336x4096,128x8192x8192")
    ap.add_argument("--modes", default="model,exhaustive")
    ap.add_argument("--time-budget", type=float, default=540)
    args = ap.parse_args()
    t_begin = time.time()
    with open(args.out, "a") as out:
        for shape in args.shapes.split(","):
            for mode in args.modes.split(","):
                if time.time() - t_begin > args.time_budget:
                    print("time budget reached", flush=True)
                    return 0
                env = dict(os.environ, TRITON_CACHE_DIR=tempfile.mkdtemp(prefix="tc_"))
                r = subprocess.run([sys.executable, "-c", CHILD, *shape.split("x"), mode], env=env,
                                   capture_output=True, text=True, timeout=max(60, args.time_budget - (time.time() - t_begin)))
                line = (r.stdout.strip().splitlines() or [json.dumps({"shape": shape, "mode": mode,
                                                                     "error": r.stderr.strip()[-400:]})])[-1]
                print(line, flush=True)
                out.write(line + "\n")
                out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
