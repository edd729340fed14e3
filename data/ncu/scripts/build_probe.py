"""2026-11-26 session 13: build study binaries (progress samples) of the (shape, dtype, configuration) lines of a list
file on the GPU machine and write tile_probe.py's manifest (the working tree's tracked data leave too little of the
64 MiB carry for prebuilt binaries).
Usage: python3 data/ncu/scripts/build_probe.py LIST MANIFEST_OUT CACHE_DIR [--normal]  (--normal: the timing builds, for
ncu: ksweep_ncu.py)"""
import json
import sys
from pathlib import Path

sys.path.insert(0, ".")
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.measure.build import Builder  # noqa: E402
from perfmodel.problem import make_problem  # noqa: E402

lst, out, cache = sys.argv[1:4]
study = "--normal" not in sys.argv[4:]
items = [line.split() for line in Path(lst).read_text().splitlines() if line.strip() and not line.startswith("#")]
pairs = [(make_problem(s, d), KernelConfig.from_name(c)) for s, d, c in items]
built = Builder(Path(cache), progress_samples=study, jobs=16).build_all(pairs)
man = []
for (s, d, c), (p, cfg) in zip(items, pairs):
    b = built[(c, p.a_dtype.value)]
    print(c, s, b.path, b.error or "", b.registers, b.spill_bytes)
    if b.path:
        man.append({"shape": s, "dtype": d, "config": c, "binary": str(b.path)})
Path(out).write_text(json.dumps(man, indent=0) + "\n")
