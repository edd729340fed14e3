"""2026-11-26 session 11: the low-fill probe (configs/sweeps/sm90_oob_probe.toml) under ncu: the 256x128 tile at
M = 64 / 128 / 256 (N = 14336, K = 3072), its multicast twin at M = 128, and the 128x128 tile at M = 128, each one
launch with ncu's full set (every section's metrics, the raw page). Binaries of .cache/pmk24 (oob_probe.sh builds them).
Usage on the GPU machine: python3 data/ncu/scripts/oob_ncu.py $OUT"""
import json
import sys
from pathlib import Path

sys.path.insert(0, ".")
sys.path.insert(0, "data/ncu/scripts")
from ncu_common import find_ncu, run  # noqa: E402
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.measure.build import Builder  # noqa: E402
from perfmodel.problem import make_problem  # noqa: E402

CASES = [("64x14336x3072", "256x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma"),
         ("128x14336x3072", "256x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma"),
         ("256x14336x3072", "256x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma"),
         ("128x14336x3072", "256x128x64_i64x128x16_cg1_cl1x2_mc1_s4_sw128-128_wg2_acc1_pm8_etma"),
         ("128x14336x3072", "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")]

out_dir = Path(sys.argv[1])
ncu = find_ncu()
pairs = [(make_problem(s, "bf16"), KernelConfig.from_name(c)) for s, c in CASES]
built = Builder(cache_dir=Path(".cache/pmk24"), jobs=8).build_all(pairs)
with open(out_dir / "oob_ncu.jsonl", "a") as f:
    for shape, cfg in CASES:
        rec = {"config_name": cfg, "shape": shape, "dtype": "bf16"}
        b = built.get((cfg, "bf16"))
        if ncu is None or b is None or not Path(str(b.path)).exists():
            rec["error"] = "no ncu" if ncu is None else "no binary"
        else:
            rec["metrics"], rec["rc"], err = run(ncu, str(b.path), shape, ["--set", "full"], timeout=240)
            if err:
                rec["error"] = err
        f.write(json.dumps(rec) + "\n")
        f.flush()
        print(shape, cfg, "ncu", rec.get("rc"), len(rec.get("metrics", {})), rec.get("error", "")[:200], flush=True)
