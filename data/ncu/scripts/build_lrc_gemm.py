import json, sys, time, shutil
from pathlib import Path
from perfmodel.measure.build import Builder
from perfmodel.config import KernelConfig
from perfmodel.problem import GemmProblem
cfgs = ["128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma",
        "128x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma",
        "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma",
        "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pn8_etma",
        "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm1_etma",
        "128x256x64_i64x256x16_cg1_cl1x1_mc0_s3_sw128-128_wg2_acc1_pm8_etma",
        "64x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg1_acc1_pm8_etma",
        "64x256x64_i64x256x16_cg1_cl1x1_mc0_s5_sw128-128_wg1_acc1_pm8_etma",
        "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_npm8_etma",
        "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg1_acc1_pm8_etma"]
b = Builder(cache_dir=Path(".cache/lrc/pmk"))
out = []
from perfmodel.problem import make_problem
prob = make_problem("8192x8192x8192", "bf16")
for name in cfgs:
    cfg = KernelConfig.from_name(name)
    t = time.time()
    r = b.build(prob, cfg)
    print(name, r.path, r.error[:200], f"{time.time()-t:.0f}s", flush=True)
    if r.path:
        out.append({"config": name, "bin": str(r.path)})
Path(".cache/lrc/bins.json").write_text(json.dumps(out, indent=1))
