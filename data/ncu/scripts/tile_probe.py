"""2026-11-26 session 9: each study binary of a manifest (built with -DPM_PROGRESS_SAMPLES=1) in a short timed loop, then
4 probed launches: per CTA its SM, start, consumer end and producer end, and for the first probed launch the producer's
per k-block issue times (words 0..127 of the samples) and the first consumer warpgroup's per-tile mainloop end and
epilogue end (words 128..191). No ncu.
Usage on the GPU machine: python3 data/ncu/scripts/tile_probe.py $OUT MANIFEST [WARMUP_MS MIN_MS] (default 10 30; a long
warm-up brings a heavy kernel to its power-capped clock before the probed launches)"""
import json
import subprocess
import sys
from pathlib import Path

out_dir, manifest = Path(sys.argv[1]), Path(sys.argv[2])
warmup_ms, min_ms = (sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 else ("10", "30")
probe = open(out_dir / "tile_probe.jsonl", "a")
for item in json.loads(manifest.read_text()):
    m, n, k = item["shape"].split("x")
    tag = dict(config_name=item["config"], shape=item["shape"], dtype=item["dtype"])
    cmd = [item["binary"], m, n, k, "--seed", "7", "--warmup-ms", warmup_ms, "--min-ms", min_ms, "--cublas", "0",
           "--cta-probe", "4"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        doc = json.loads(r.stdout) if r.stdout.strip() else {"error": r.stderr[-400:]}
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        doc = {"error": str(e)[:400]}
    probe.write(json.dumps({**doc, **tag}) + "\n")
    probe.flush()
