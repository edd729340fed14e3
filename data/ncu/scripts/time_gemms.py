"""Time each binary of a build manifest (build_probe.py's) at 8192^3 in one short loop (30 ms warm-up, 100 ms timed,
no cuBLAS) and write one JSON line a configuration: {"config", "rc", "doc": the harness's last JSON document}. The
same-card GEMM baselines of wide_k_mma.sh and wide_k_gap.sh.
Usage on the GPU machine: python3 data/ncu/scripts/time_gemms.py MANIFEST OUT.jsonl"""
import json
import subprocess
import sys

manifest, out_path = sys.argv[1:3]
with open(out_path, "w") as out:
    for e in json.load(open(manifest)):
        cmd = [e["binary"], "8192", "8192", "8192", "--seed", "1", "--warmup-ms", "30", "--min-ms", "100",
               "--min-reps", "20", "--max-reps", "2000", "--rounds", "1", "--cublas", "0"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        docs = [ln for ln in p.stdout.splitlines() if ln.strip().startswith("{")]
        out.write(json.dumps({"config": e["config"], "rc": p.returncode, "doc": json.loads(docs[-1]) if docs else None})
                  + "\n")
        print(e["config"], p.returncode, p.stderr[-300:])
