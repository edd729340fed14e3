"""2026-11-26 session 6: how the CTAs of one launch of our GEMM spread (harness --cta-probe), on calibration shapes
only: skinny grids of 16..128 CTAs and a few full ones. Each binary (built on the CPU machine into
.cache/pmk18, listed in cta_spread_manifest.json) runs its usual 100 ms timed loop, then 8 probed launches whose
CTAs record their %smid and %globaltimer at start, at their first consumer's end and at their producer's last load.
Usage on the GPU machine: python3 data/ncu/scripts/cta_spread.py $OUT/cta_spread.jsonl [MANIFEST]
(MANIFEST: another list of {shape, dtype, config, binary}, e.g. cta_spread_small_manifest.json)"""
import json
import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
out = open(sys.argv[1], "w")
manifest = Path(sys.argv[2]) if len(sys.argv) > 2 else here / "cta_spread_manifest.json"
for item in json.loads(manifest.read_text()):
    m, n, k = item["shape"].split("x")
    cmd = [item["binary"], m, n, k, "--seed", "7", "--warmup-ms", "50", "--min-ms", "100", "--cublas", "0",
           "--cta-probe", "8"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        doc = json.loads(r.stdout) if r.stdout.strip() else {"error": r.stderr[-400:]}
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        doc = {"error": str(e)[:400]}
    doc.update(config_name=item["config"], shape=item["shape"], dtype=item["dtype"])
    out.write(json.dumps(doc) + "\n")
    out.flush()
    print(item["shape"], item["config"], "ok" if "error" not in doc else doc["error"][:200], flush=True)
