"""2026-11-26 session 10: the store probe (configs/sweeps/sm90_store_probe.toml, calibration shapes). For each binary of
store_probe_manifest.json: one launch under ncu reading the L2's write requests and sectors from the SMs (direct
stores: one request per 16 bytes?), its read side and the coalescer's merge, the time and the SM clock.
Usage on the GPU machine: python3 data/ncu/scripts/store_ncu.py $OUT MANIFEST"""
import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

out_dir, manifest = Path(sys.argv[1]), Path(sys.argv[2])
ncu = shutil.which("ncu") or next(iter(sorted(Path("/usr/local").glob("cuda*/bin/ncu"))), None)
METRICS = ("lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,"
           "lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,"
           "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_tag_requests.sum,"
           "lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,dram__bytes_read.sum,"
           "dram__bytes_write.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second")


def parse(text: str) -> dict:
    """{metric: [value, unit]} of the requested metrics from ncu's --csv --page raw output (header, units, one row)."""
    rows = [r for r in csv.reader(io.StringIO(text[text.find('"ID"'):])) if r]
    if len(rows) < 3:
        return {}
    hdr, units, vals = rows[0], rows[1], rows[-1]
    return {h: [v, u] for h, u, v in zip(hdr, units, vals) if h in METRICS.split(",")}


with open(out_dir / "store_ncu.jsonl", "a") as f:
    for item in json.loads(manifest.read_text()):
        m, n, k = item["shape"].split("x")
        rec = dict(config_name=item["config"], shape=item["shape"], dtype=item["dtype"])
        if ncu is None:
            rec["error"] = "no ncu"
        else:
            cmd = [str(ncu), "--clock-control", "none", "--kernel-name", "regex:gemm_kernel", "--launch-skip", "2",
                   "--launch-count", "1", "--metrics", METRICS, "--csv", "--page", "raw", item["binary"], m, n, k,
                   "--seed", "1", "--warmup-ms", "0", "--min-ms", "0", "--min-reps", "2", "--max-reps", "2",
                   "--rounds", "1", "--cublas", "0", "--check", "0"]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
                rec["metrics"] = parse(r.stdout)
                rec["rc"] = r.returncode
                if r.returncode or not rec["metrics"]:
                    rec["error"] = (r.stderr or r.stdout)[-600:]
            except subprocess.TimeoutExpired as e:
                rec["error"] = str(e)[:400]
        f.write(json.dumps(rec) + "\n")
        f.flush()
        print(item["shape"], item["config"], "ncu", rec.get("rc"), rec.get("error", "")[:200], flush=True)
