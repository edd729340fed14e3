"""2026-11-28 session 31: for each binary of a build_probe.py manifest (timing builds): one launch under ncu after four
unprofiled ones, nothing flushed (as in a timed loop), with the L2's and the load path's counters: the sectors the SMs
asked the L2 for (tex), those the L2 slices served to the request coalescer and those the SMs received (lrc), HBM
bytes, the L2's throughput, the launch's time and SM clock.
Usage on the GPU machine: python3 data/ncu/scripts/wide_k_ncu.py $OUT MANIFEST  ($OUT/wide_k.jsonl)"""
import json
import sys
from pathlib import Path

from ncu_common import find_ncu, launch_record

out_dir, manifest = Path(sys.argv[1]), Path(sys.argv[2])
ncu = find_ncu()
METRICS = ("dram__bytes_read.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,"
           "lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,"
           "lrc__lts2lrc_sectors_op_read.sum,lrc__xbar2gpc_sectors_op_read.sum,"
           "lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_requests_srcunit_tex_op_read.sum,"
           "l1tex__m_xbar2l1tex_read_bytes.sum")


with open(out_dir / "wide_k.jsonl", "a") as f:
    for item in json.loads(manifest.read_text()):
        rec = dict(config_name=item["config"], shape=item["shape"], dtype=item["dtype"])
        rec["warm"] = launch_record(ncu, item["binary"], item["shape"], METRICS, "none", 4)
        f.write(json.dumps(rec) + "\n")
        f.flush()
        print(item["shape"], item["config"], rec["warm"].get("rc"), flush=True)
