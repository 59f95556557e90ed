"""Is the per-process bias of host-bound speedups a matter of each process's memory layout? (CUDA machine,
PYTHONPATH=<repo root>)

    python bench/noise_layout.py --out DIR [--pack gdn_chunk_fwd_o] [--runs 4] [--max-iters 1000]

What is known (H200, 2026-12-03): gdn_chunk_fwd_o's seed is eager torch (about twenty small ops per call), so its
400-800 us per call is mostly the host dispatching them; fresh evaluations of the seed against its reference gave
aggregates 1-4% apart while every case of one run moved together (a bias of the pair of worker processes), and a
CUDA pad allocated at import (bench/noise_placement.py) moved it no more than repeating the same pad did, so where the
GPU memory lands is not it. Left: how the *host* process is laid out, which differs between any two fresh processes
(address-space randomisation, the string hash seed) and is known to move CPU-bound timings by several per cent.

Each run here is one evaluation in a fresh judge process (so fresh workers too) under one of three conditions,
interleaved with the order rotated per round: `fresh` (as shipped), `hashseed` (PYTHONHASHSEED=0, which the sandbox
passes on to the workers) and `fixed_layout` (that and `setarch -R`: no address-space randomisation, inherited by the
workers). If the spread of `fixed_layout` falls well below that of `fresh`, the layout is the cause, and fixing it in
the workers makes a candidate's score reproducible (though still that layout's); if not, it is something else.
Writes DIR/layout.json (per run: condition, reward, CI, per-case speedups) and prints a line per run and a summary.

Result (H200, 2026-12-04, --runs 4, 8 runs before the device limit): fresh 0.9859 / 1.0153 / 1.0034, hashseed
1.0070 / 0.9755, fixed_layout 1.0039 / 1.0382 / 0.9987. A fixed layout left the range at 3.9%: the layout is not the
cause, so the workers keep the default.
"""
import argparse, json, os, statistics, subprocess, sys, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONDITIONS = {"fresh": ([], {}), "hashseed": ([], {"PYTHONHASHSEED": "0"}), "fixed_layout": (["setarch", "-R"], {"PYTHONHASHSEED": "0"})}

def one(pack: str, max_iters: int) -> dict:
    "One evaluation of the pack's seed in this process (the child's side)."
    from gpu_forecasters.backends import LocalGPUBackend
    from gpu_forecasters.harness import EvalConfig, EvalRequest
    from gpu_forecasters.packs.core import get_pack
    config = EvalConfig(max_iters=max_iters, speedup_estimator="paired")
    with LocalGPUBackend(devices=[0]) as backend:
        ev = backend.submit(EvalRequest(pack, "paper", get_pack(pack).seed_kernel, config=config, device="cuda")).result()
    return {"status": ev.status, "reward": ev.reward, "ci": ev.reward_ci,
            "cases": {c.case_id.rsplit(":", 1)[-1]: round(c.speedup, 4) for c in ev.per_case if c.kind == "benchmark" and c.speedup}}

def spread(values: list) -> float | None:
    return (max(values) - min(values)) / statistics.median(values) if len(values) > 1 else None

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--pack", default="gdn_chunk_fwd_o")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--max-iters", type=int, default=1000)
    ap.add_argument("--one", action="store_true", help="(internal) evaluate once and print the result as JSON")
    a = ap.parse_args()
    if a.one: print("RESULT " + json.dumps(one(a.pack, a.max_iters)), flush=True); return
    path = Path(a.out) / "layout.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    names, runs = list(CONDITIONS), []
    for r in range(a.runs):
        for name in names[r % len(names):] + names[:r % len(names)]:  # drift over the session does not line up with a condition
            prefix, env = CONDITIONS[name]
            t0 = time.perf_counter()
            done = subprocess.run(prefix + [sys.executable, __file__, "--one", "--pack", a.pack, "--max-iters", str(a.max_iters)],
                                  capture_output=True, text=True, env={**os.environ, **env, "PYTHONPATH": f"{ROOT}:{os.environ.get('PYTHONPATH', '')}"})
            line = next((l for l in done.stdout.splitlines() if l.startswith("RESULT ")), None)
            row = {"condition": name, "round": r, "wall_s": round(time.perf_counter() - t0, 1),
                   **(json.loads(line[7:]) if line else {"status": "failed", "error": done.stderr[-500:]})}
            runs.append(row)
            print(f"{name:13} round {r}: {row['status']} {row.get('reward') and round(row['reward'], 4)} {row.get('cases') or row.get('error', '').strip().splitlines()[-1:]} {row['wall_s']} s", flush=True)
            path.write_text(json.dumps(runs, indent=1))
    for name in names:
        rewards = [x["reward"] for x in runs if x["condition"] == name and x.get("reward")]
        s = spread(rewards)
        print(f"{name:13} runs {[round(v, 4) for v in rewards]} spread {'n/a' if s is None else f'{100 * s:.2f}%'}"
              f" sd {'n/a' if len(rewards) < 2 else f'{100 * statistics.stdev(rewards):.2f}%'}")

if __name__ == "__main__": main()
