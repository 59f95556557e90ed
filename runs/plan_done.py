"Exit 0 when a step of runs/h200_plan.sh has finished: plan_done.py noise STATE_DIR | retests STATE_DIR PACK AXIS VALUE"
import json, sys
from pathlib import Path
step, state = sys.argv[1], Path(sys.argv[2])
rows = lambda p: [json.loads(l) for l in p.read_text().splitlines() if l.strip()] if p.exists() else []
if step == "noise":
    done = {r["comparison_id"] for r in rows(state / "pair_noise" / "pair_noise.jsonl") if r["status"] != "infra_failure"}
    print(f"pair noise: {len(done)} of 30 pairs measured"); sys.exit(0 if len(done) >= 30 else 1)
if step == "retests":  # plan_done.py retests STATE PACK AXIS VALUE: every variant of PACK with AXIS=VALUE retested
    from gpu_forecasters.search.variants import get_space
    pack, axis, value = sys.argv[3:6]
    space = get_space(pack)
    want = {space.variant_id(p) for p in space.points if str(p[axis]) == value}
    got = {r["variant_id"] for r in rows(state / "landscape_h200" / "retest.jsonl") if r["pack"] == pack and str(r["params"].get(axis)) == value}
    print(f"{pack} {axis}={value} retests: {len(got & want)} of {len(want)}"); sys.exit(0 if want <= got else 1)
sys.exit(f"unknown step {step}")
