"""`perfmodel gpus`: list the GPUs with a hardware file."""
from __future__ import annotations

import json

from ..hardware import list_gpus, load_hardware

NAME = "gpus"
HELP = "list known GPUs and their headline figures"


def add_arguments(p):
    p.add_argument("--json", action="store_true", help="machine-readable output")


def run(args) -> int:
    rows = []
    for name in list_gpus():
        hw = load_hardware(name)
        peak = hw.tensor_core.f16_flops_per_clock_per_sm * hw.sm_count * hw.clock.tensor_peak_hz / 1e12
        rows.append({"name": name, "marketing_name": hw.marketing_name, "arch": hw.arch.value,
                     "sm_count": hw.sm_count, "bf16_dense_tflops": round(peak, 1),
                     "hbm_tb_per_s": hw.hbm.bandwidth_bytes_per_s / 1e12, "l2_mib": hw.l2.size_bytes / 2**20,
                     "fingerprint": hw.fingerprint})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'name':<10} {'arch':<8} {'SMs':>4} {'bf16 TFLOP/s':>13} {'HBM TB/s':>9} {'L2 MiB':>7}  description")
    for r in rows:
        print(f"{r['name']:<10} {r['arch']:<8} {r['sm_count']:>4} {r['bf16_dense_tflops']:>13.1f} "
              f"{r['hbm_tb_per_s']:>9.2f} {r['l2_mib']:>7.1f}  {r['marketing_name']}")
    return 0
