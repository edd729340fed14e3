"""2026-11-26 session 10: build the heldout18 and store-probe binaries into .cache/pmk24 on the GPU machine (the working
tree's tracked data leave too little of the 64 MiB carry for prebuilt binaries); same kernel hash, flags and nvcc 13.0
as this session's CPU machine, so the paths of store_probe_manifest.json match."""
import json
import sys
from pathlib import Path

sys.path.insert(0, ".")
from perfmodel.measure.build import Builder  # noqa: E402
from perfmodel.measure.sweep import load_sweep  # noqa: E402

pairs = [p for f in sys.argv[1:] for p in load_sweep(f).pairs]
built = Builder(cache_dir=Path(".cache/pmk24"), jobs=16).build_all(pairs)
man = json.loads(Path("data/ncu/scripts/store_probe_manifest.json").read_text())
missing = [m["binary"] for m in man if not Path(m["binary"]).exists()]
print(f"built {len(built)}; manifest binaries missing: {missing}")
