"""What Triton generates for the two matmul families, per config, without a GPU (evidence for
docs/triton-codegen.md; output: data/triton/h100_codegen.jsonl).

    python3 -m pip install --target /tmp/tri --no-deps triton==3.6.0     # same version as the GPU machine
    PYTHONPATH=/tmp/tri python3 data/triton/codegen_sweep.py --out data/triton/h100_codegen.jsonl

Compiles perfmodel/kernels/triton_gemm.py for sm_90a (``triton.compile`` with ``GPUTarget("cuda", 90, 32)``,
the same specialisation the JIT makes for 16-divisible integers and pointers) for every config of
perfmodel.measure.triton_bench.configs(), then reads the TTGIR, the PTX, ptxas's own report (``ptxas -v``, the
ptxas bundled with Triton, which is the one Triton runs) and the SASS (``cuobjdump -sass``). Registers agree with
the measured ``registers`` of data/triton/h100_triton.jsonl for all 264 (family, config) pairs. Needs triton only.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from multiprocessing import Pool

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _bin(tool):
    import triton
    return os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", tool)


def _loop(text, start_pat, end_pat):
    """The lines of the (first) K loop: from the loop header to the back branch's block end."""
    lines = text.splitlines()
    out, on = [], False
    for ln in lines:
        if not on and re.search(start_pat, ln):
            on = True
        if on:
            out.append(ln)
            if re.search(end_pat, ln) and len(out) > 1:
                break
    return "\n".join(out)


def analyse(job):
    family, knobs, kdiv16, kernels, workdir = job
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    tg = _load(kernels, "triton_gemm")
    bm, bn, bk, g, w, s = knobs
    cst = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": g}
    if family == "triton-tma":
        fn = tg.matmul_tma
        sig = {"a_desc": f"tensordesc<bf16[{bm},{bk}]>", "b_desc": f"tensordesc<bf16[{bn},{bk}]>",
               "c_desc": f"tensordesc<bf16[{bm},{bn}]>", "M": "i32", "N": "i32", "K": "i32"}
        div = [3, 4, 5] if kdiv16 else [3, 4]
    else:
        fn = tg.matmul_ptr
        sig = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "M": "i32", "N": "i32", "K": "i32",
               "stride_am": "i32", "stride_bn": "i32", "stride_cm": "i32"}
        # K % 16 != 0: K and the A/B row strides (= K) are not 16-divisible; M, N, stride_cm are
        div = [0, 1, 2, 3, 4, 5, 6, 7, 8] if kdiv16 else [0, 1, 2, 3, 4, 8]
    sig.update({k: "constexpr" for k in cst})
    src = ASTSource(fn, sig, constexprs=cst, attrs={(i,): [["tt.divisibility", 16]] for i in div})
    ck = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": w, "num_stages": s})
    ttgir, ptx = ck.asm["ttgir"], ck.asm["ptx"]
    base = os.path.join(workdir, f"{family}_{'_'.join(map(str, knobs))}_{int(kdiv16)}")
    with open(base + ".ptx", "w") as f:
        f.write(ptx)
    r = subprocess.run([_bin("ptxas"), "-v", "--gpu-name", "sm_90a", base + ".ptx", "-o", base + ".cubin"],
                       capture_output=True, text=True)
    rep = r.stdout + r.stderr
    sass = subprocess.run([_bin("cuobjdump"), "-sass", base + ".cubin"], capture_output=True, text=True).stdout
    loop_ptx = _loop(ptx, r"Inner Loop Header", r"^\s*@%p\d+ bra\s+\$L__BB0_\d+;")
    mma = re.search(r"warpsPerCTA = \[(\d+), (\d+)\], instrShape = \[(\d+), (\d+), (\d+)\]", ttgir)
    num = lambda pat, text: len(re.findall(pat, text))
    return {
        "family": family, "knobs": list(knobs), "k_div16": kdiv16,
        "ptxas_serialized": re.findall(r"\((C75\d\d)\) Potential Performance Loss: ([^\n]*?) in the function", rep),
        "registers": int(re.search(r"Used (\d+) registers", rep).group(1)),
        "spill_store_bytes": int(re.search(r"(\d+) bytes spill stores", rep).group(1)),
        "spill_load_bytes": int(re.search(r"(\d+) bytes spill loads", rep).group(1)),
        "smem_bytes": ck.metadata.shared,
        "warp_specialize": "warp_specialize" in ttgir, "setmaxnreg": "setmaxnreg" in ptx,
        "warps_per_cta": [int(mma.group(1)), int(mma.group(2))] if mma else None,
        "wgmma_shape": re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", ptx)[:1],
        "wgmma_per_kblock": num(r"wgmma\.mma_async", loop_ptx),
        "wgmma_wait_pendings": [int(x) for x in re.findall(r"warp_group_dot_wait .*?pendings = (\d+)", ttgir)],
        "cp_async_wait_groups": [int(x) for x in re.findall(r"cp\.async\.wait_group\s+(\d+)", ptx)],
        "loop_bar_sync": num(r"\bbar\.sync", loop_ptx),
        "loop_tma_loads": num(r"cp\.async\.bulk\.tensor\.\dd\.shared::cluster\.global", loop_ptx),
        "loop_cp_async_16B_per_thread": num(r"cp\.async\.cg\.shared\.global.*0x10", loop_ptx),
        "loop_ld_global": num(r"ld\.global", loop_ptx),
        "epilogue_tma_store": num(r"cp\.async\.bulk\.tensor\.\dd\.global\.shared", ptx),
        "epilogue_st_global": num(r"st\.global", ptx), "epilogue_stmatrix": num(r"stmatrix", ptx),
        "sass_hgmma": num(r"HGMMA\.", sass), "sass_warpgroup_arrive": num(r"WARPGROUP\.ARRIVE", sass),
        "sass_warpgroup_depbar": re.findall(r"WARPGROUP\.DEPBAR\.LE gsb0, (0x[0-9a-f]+)", sass),
        "sass_ldl_stl": num(r"\bLDL", sass) + num(r"\bSTL", sass),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--kernels", default=os.path.join(ROOT, "perfmodel", "kernels", "triton_gemm.py"))
    ap.add_argument("--bench", default=os.path.join(ROOT, "perfmodel", "measure", "triton_bench.py"))
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    a = ap.parse_args(argv)
    import triton
    cfgs = _load(a.bench, "triton_bench").configs()
    ptxas = subprocess.run([_bin("ptxas"), "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    with tempfile.TemporaryDirectory() as tmp:
        jobs = [(f, c, True, a.kernels, tmp) for f in ("triton-tma", "triton-ptr") for c in cfgs]
        jobs += [("triton-ptr", c, False, a.kernels, tmp) for c in cfgs]
        with Pool(a.workers) as pool:
            rows = pool.map(analyse, jobs, chunksize=2)
    header = {"header": {"what": "Triton codegen per config (no GPU): TTGIR/PTX/ptxas -v/SASS facts",
                         "triton": triton.__version__, "ptxas": ptxas[-1] if ptxas else "", "target": "sm_90a",
                         "dtype": "bf16 (fp16 compiles to the same schedule)", "layout": "TN",
                         "k_div16": "true: M, N, K, strides 16-divisible; false (triton-ptr only): K and the "
                                    "A/B row strides not 16-divisible",
                         "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                         "command": " ".join([os.path.basename(sys.argv[0])] + (argv or sys.argv[1:]))}}
    with open(a.out, "w") as f:
        for row in [header] + rows:
            f.write(json.dumps(row) + "\n")
    print(f"{len(rows)} kernels -> {a.out}")


if __name__ == "__main__":
    main()
