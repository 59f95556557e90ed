"""Provisional build of the h200_landscape eval set on CPU: the resume log's re-measurements are reused; a pair not yet
measured gets its landscape ratio (a fake evaluator). Prints how many pairs per pack still need the H200 (more may follow
if a real re-measurement changes bin) and the build's counts. Run from the repo root: python runs/drafts/provisional_build.py [OUT]"""
import json, math, sys, time, shutil
from pathlib import Path
from gpu_forecasters.evalset import build_eval_set, load_builder_config, landscape_pairs, REMEASURE_LOG
from gpu_forecasters.search.puct import normalized_code_hash
out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/provisional_build")
log = Path(__file__).resolve().parents[1] / "h200/h200_landscape/remeasure.jsonl"
recs = [json.loads(l) for l in log.read_text().splitlines() if l.strip()]
desc = {r["pack"]: r["evaluator"] for r in recs}
cfg = load_builder_config("evalset/h200_landscape.json")
ratio = {}
for p in cfg.packs:
    df = landscape_pairs(p.landscape, p.pack, seed=cfg.seed, failures=cfg.failure_rows)
    for r in df.to_dict("records"):
        ratio[(normalized_code_hash(r["anchor_code"]), normalized_code_hash(r["code"]))] = r["speedup"]
class Fake:
    def __init__(self, pack):  # a pack with no re-measurement yet describes itself as another pack's evaluator would
        self.d = desc.get(pack) or {**next(iter(desc.values())), "pack": pack}; self.asked = []
    def describe(self): return self.d
    def compare(self, anchor, code, request_id=None, timeout_s=None):
        s = ratio[(normalized_code_hash(anchor), normalized_code_hash(code))]
        self.asked.append(request_id)
        ok = math.isfinite(s)
        return {"status": "ok" if ok else "candidate_failed", "pair_speedup": s if ok else None, "pair_speedup_ci": None,
                "candidate": {"status": "ok" if ok else "failed"}}
evs = {p.pack: Fake(p.pack) for p in cfg.packs}
shutil.rmtree(out, ignore_errors=True); out.mkdir(parents=True)
shutil.copy(log, out / REMEASURE_LOG)
t = time.time()
build_eval_set(cfg, out, evaluator=evs)
print("built in", round(time.time() - t), "s")
for p, ev in evs.items(): print(p, "still to measure on the H200:", len(ev.asked))
m = json.loads((out / "manifest.json").read_text())
print(json.dumps(m.get("counts", {}), default=str)[:3000])
