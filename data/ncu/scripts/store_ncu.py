"""2026-11-26 session 10: the store probe (configs/sweeps/sm90_store_probe.toml, calibration shapes). For each binary of
store_probe_manifest.json: one launch under ncu reading the L2's write requests and sectors from the SMs (direct
stores: one request per 16 bytes?), its read side and the coalescer's merge, the time and the SM clock.
Usage on the GPU machine: python3 data/ncu/scripts/store_ncu.py $OUT MANIFEST"""
import json
import sys
from pathlib import Path

sys.path.insert(0, "data/ncu/scripts")
from ncu_common import find_ncu, run  # noqa: E402

out_dir, manifest = Path(sys.argv[1]), Path(sys.argv[2])
ncu = find_ncu()
METRICS = ("lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,"
           "lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,"
           "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_tag_requests.sum,"
           "lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,dram__bytes_read.sum,"
           "dram__bytes_write.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second")


with open(out_dir / "store_ncu.jsonl", "a") as f:
    for item in json.loads(manifest.read_text()):
        rec = dict(config_name=item["config"], shape=item["shape"], dtype=item["dtype"])
        if ncu is None:
            rec["error"] = "no ncu"
        else:
            metrics, rc, err = run(ncu, item["binary"], item["shape"], ["--metrics", METRICS], timeout=120,
                                   wanted=METRICS.split(","))
            if rc != -1:                              # -1: ncu timed out, nothing read
                rec["metrics"], rec["rc"] = metrics, rc
            if err:
                rec["error"] = err
        f.write(json.dumps(rec) + "\n")
        f.flush()
        print(item["shape"], item["config"], "ncu", rec.get("rc"), rec.get("error", "")[:200], flush=True)
