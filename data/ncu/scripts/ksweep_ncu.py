"""2026-11-26 session 7: long K on calibration shapes (configs/sweeps/sm90_ksweep.toml). For each binary of
ksweep_manifest.json (built on the CPU machine into .cache/pmk20): its usual 100 ms timed loop with 8 probed launches
(per-CTA %smid and %globaltimer at start / first consumer's end / producer's last load: how far the CTAs drift apart),
then one launch under ncu (HBM bytes read, L2 sectors and hits from the TMA, time, SM clock): does L2 reuse fall with K?
Usage on the GPU machine: python3 data/ncu/scripts/ksweep_ncu.py $OUT [MANIFEST] [--ncu-only]
(The first run, 2026-11-26 03:00 UTC, kept only the last 6000 characters of ncu's CSV, which lost the dram__ and gpu__time
columns; since then each record keeps the requested metrics parsed: {metric: [value, unit]}.)"""
import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
args = [a for a in sys.argv[1:] if not a.startswith("--")]
out_dir = Path(args[0])
manifest = Path(args[1]) if len(args) > 1 else here / "ksweep_manifest.json"
ncu_only = "--ncu-only" in sys.argv
ncu = shutil.which("ncu") or next(iter(sorted(Path("/usr/local").glob("cuda*/bin/ncu"))), None)
METRICS = ("dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,"
           "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_requests_srcunit_tex_op_read.sum,"
           "gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lrc__xbar2gpc_sectors_op_read.sum,"
           "lrc__lts2lrc_sectors_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,"
           "lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum")


def parse(text: str) -> dict:
    """{metric: [value, unit]} of the requested metrics from ncu's --csv --page raw output (header, units, one row)."""
    rows = [r for r in csv.reader(io.StringIO(text[text.find('"ID"'):])) if r]
    if len(rows) < 3:
        return {}
    hdr, units, vals = rows[0], rows[1], rows[-1]
    return {h: [v, u] for h, u, v in zip(hdr, units, vals) if h in METRICS.split(",")}


probe = open(out_dir / "ksweep_cta_probe.jsonl", "a")
ncu_out = open(out_dir / "ksweep_ncu.jsonl", "a")
for item in json.loads(manifest.read_text()):
    m, n, k = item["shape"].split("x")
    tag = dict(config_name=item["config"], shape=item["shape"], dtype=item["dtype"])
    cmd = [item["binary"], m, n, k, "--seed", "7", "--warmup-ms", "50", "--min-ms", "100", "--cublas", "0",
           "--cta-probe", "8"]
    doc = {"error": "skipped (--ncu-only)"}
    if not ncu_only:
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            doc = json.loads(r.stdout) if r.stdout.strip() else {"error": r.stderr[-400:]}
        except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
            doc = {"error": str(e)[:400]}
        probe.write(json.dumps({**doc, **tag}) + "\n")
        probe.flush()
    rec = dict(tag)
    if ncu is None:
        rec["error"] = "no ncu"
    else:
        cmd = [str(ncu), "--clock-control", "none", "--kernel-name", "regex:gemm_kernel", "--launch-skip", "2",
               "--launch-count", "1", "--metrics", METRICS, "--csv", "--page", "raw", item["binary"], m, n, k,
               "--seed", "1", "--warmup-ms", "0", "--min-ms", "0", "--min-reps", "2", "--max-reps", "2", "--rounds",
               "1", "--cublas", "0", "--check", "0"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            rec["metrics"] = parse(r.stdout)
            rec["rc"] = r.returncode
            if r.returncode:
                rec["error"] = r.stderr[-400:]
        except subprocess.TimeoutExpired as e:
            rec["error"] = str(e)[:400]
    ncu_out.write(json.dumps(rec) + "\n")
    ncu_out.flush()
    print(item["shape"], item["config"], "probe", "ok" if "error" not in doc else doc["error"][:100],
          "ncu", rec.get("rc"), flush=True)
