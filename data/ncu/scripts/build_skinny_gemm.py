import json, time
from pathlib import Path
from perfmodel.measure.build import Builder
from perfmodel.config import KernelConfig
from perfmodel.problem import make_problem
from perfmodel.legality import check
from perfmodel.hardware import load_hardware
hw=load_hardware("h100-sxm")
cfgs = ["128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma",
        "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg1_acc1_pm8_etma",
        "128x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma",
        "128x128x64_i64x128x16_cg1_cl1x1_mc0_s2_sw128-128_wg2_acc1_pm8_etma",
        "64x128x64_i64x128x16_cg1_cl1x1_mc0_s8_sw128-128_wg1_acc1_pm8_etma",
        "64x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg1_acc1_pm8_etma",
        "64x256x64_i64x256x16_cg1_cl1x1_mc0_s5_sw128-128_wg1_acc1_pm8_etma",
        "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma",
        "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg1_acc1_pm8_etma"]
b = Builder(cache_dir=Path(".cache/lrc/pmk"))
prob = make_problem("64x8192x28672", "bf16")
out = []
for name in cfgs:
    cfg = KernelConfig.from_name(name)
    v = check(prob, cfg, hw, kernel_rules=True)
    if v: print("ILLEGAL", name, v[0].reason); continue
    r = b.build(prob, cfg)
    print(name, r.path, r.error[:200], flush=True)
    if r.path: out.append({"config": name, "bin": str(r.path)})
Path(".cache/lrc/bins_sk.json").write_text(json.dumps(out, indent=1))
