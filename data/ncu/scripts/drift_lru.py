"""2026-11-27 session 25: does an LRU L2 fed with the CTAs' own progress reproduce ncu's HBM reads, launch by launch?
For each study binary (progress samples) of the manifest: (1) the usual 100 ms timed loop with 4 probed launches; (2)
one single-pass ncu run (dram__bytes_read, time only: one pass, so the bytes and the samples come from ONE execution)
of a launch with --cta-probe 1: the profiled launches are the 2 timed ones and the probe launch, the last row is the
probe launch, whose per-CTA samples the program prints. Both on the same card.
Usage on the GPU machine: python3 data/ncu/scripts/drift_lru.py $OUT MANIFEST"""
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ncu_common import find_ncu, timed_run  # noqa: E402

out_dir, manifest = Path(sys.argv[1]), Path(sys.argv[2])
ncu = find_ncu()
METRICS = "dram__bytes_read.sum,gpu__time_duration.sum"


def rows(text: str) -> list[dict]:
    """Each profiled launch's {metric: [value, unit]} from ncu's --csv --page raw log."""
    i = text.find('"ID"')
    if i < 0:
        return []
    rs = [r for r in csv.reader(io.StringIO(text[i:])) if r]
    hdr, units = rs[0], rs[1]
    keep = METRICS.split(",")
    return [{h: [v, u] for h, u, v in zip(hdr, units, r) if h in keep} for r in rs[2:]]


with open(out_dir / "drift_timed.jsonl", "a") as timed, open(out_dir / "drift_ncu.jsonl", "a") as prof:
    for item in json.loads(manifest.read_text()):
        m, n, k = item["shape"].split("x")
        tag = dict(config_name=item["config"], shape=item["shape"], dtype=item["dtype"])
        base = [item["binary"], m, n, k, "--seed", "7", "--cublas", "0"]
        doc = timed_run(base + ["--warmup-ms", "50", "--min-ms", "100", "--cta-probe", "4"])
        timed.write(json.dumps({**doc, **tag}) + "\n")
        timed.flush()
        rec = dict(tag)
        if ncu is None:
            rec["error"] = "no ncu"
        else:
            log = out_dir / "ncu_tmp.csv"
            cmd = [str(ncu), "--clock-control", "none", "--kernel-name", "regex:gemm_kernel", "--metrics", METRICS,
                   "--csv", "--page", "raw", "--log-file", str(log)] + base + [
                   "--warmup-ms", "0", "--min-ms", "0", "--min-reps", "2", "--max-reps", "2", "--rounds", "1",
                   "--check", "0", "--cta-probe", "1"]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
                rec["launches"] = rows(log.read_text()) if log.exists() else []
                rec["rc"] = r.returncode
                j = r.stdout[r.stdout.find("{"):]
                try:
                    rec["program"] = json.loads(j[:j.rfind("}") + 1])
                except json.JSONDecodeError:
                    rec["program_tail"] = r.stdout[-400:]
                if r.returncode:
                    rec["error"] = r.stderr[-400:]
            except subprocess.TimeoutExpired as e:
                rec["error"] = str(e)[:400]
        prof.write(json.dumps(rec) + "\n")
        prof.flush()
        print(item["shape"], item["config"], "timed", "ok" if "error" not in doc else doc["error"][:100],
              "ncu", rec.get("rc"), len(rec.get("launches", [])), flush=True)
