"""2026-11-27 session 30: for each binary of a build_probe.py manifest (timing builds): its usual 100 ms timed loop,
then one launch under ncu twice: with the L2 flushed before it (--cache-control all: a lone launch) and after four
unprofiled launches with nothing flushed (--cache-control none: the L2 holds the previous launch's output, as in a
timed loop). Records HBM bytes read and written, the L2's write sectors from the SMs and their misses, and the
launch's time.
Usage on the GPU machine: python3 data/ncu/scripts/edir_rmw_ncu.py $OUT MANIFEST  ($OUT/edir_rmw.jsonl)"""
import json
import sys
from pathlib import Path

from ncu_common import find_ncu, launch_record, timed_run

out_dir, manifest = Path(sys.argv[1]), Path(sys.argv[2])
ncu = find_ncu()
METRICS = ("dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,"
           "lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,"
           "lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum")


with open(out_dir / "edir_rmw.jsonl", "a") as f:
    for item in json.loads(manifest.read_text()):
        m, n, k = item["shape"].split("x")
        rec = dict(config_name=item["config"], shape=item["shape"], dtype=item["dtype"])
        rec["timed"] = timed_run([item["binary"], m, n, k, "--seed", "7", "--warmup-ms", "50", "--min-ms", "100",
                                  "--cublas", "0"])
        for tag, cache, skip in (("flushed", "all", 2), ("warm", "none", 4)):
            if ncu is None:
                rec[tag] = {"error": "no ncu"}
                continue
            rec[tag] = launch_record(ncu, item["binary"], item["shape"], METRICS, cache, skip)
        f.write(json.dumps(rec) + "\n")
        f.flush()
        print(item["shape"], item["config"], {t: rec[t].get("rc") for t in ("flushed", "warm")}, flush=True)
