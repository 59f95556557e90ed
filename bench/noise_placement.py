"""Is the per-process bias of launch-bound speedups a matter of where the candidate's memory lands? (CUDA machine,
PYTHONPATH=<repo root>)

    python bench/noise_placement.py --out DIR [--pack gdn_chunk_fwd_o] [--pads-mib 0,1,3,7,15] [--repeats 2]

Fresh processes of one seed against its reference gave speedups 1-4% apart, every case of a run moving together
(gdn_chunk_fwd_o, H200, 2026-12-03): a bias of the pair of worker processes. Here the candidate is the pack's seed
with one change: at import it keeps a CUDA allocation of P MiB, which shifts where everything it allocates afterwards
lands. Each pad size is measured `--repeats` times, each time in fresh workers, interleaved (pad order rotates per
repeat). If repeats of one pad agree (within their CIs) while pads differ, placement explains the bias; if repeats of
one pad differ as much as different pads, the bias is something else of a fresh process. Writes DIR/placement.json and
prints one line per run: pad, reward, its CI, the per-case speedups.
"""
import argparse, json, statistics, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PAD = "import torch as _torch\n_PAD = _torch.empty({nbytes}, dtype=_torch.uint8, device='cuda')  # shifts this process's later allocations\n"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--pack", default="gdn_chunk_fwd_o")
    ap.add_argument("--pads-mib", default="0,1,3,7,15")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--max-iters", type=int, default=6000)
    a = ap.parse_args()
    from gpu_forecasters.backends import LocalGPUBackend
    from gpu_forecasters.harness import EvalConfig, EvalRequest
    from gpu_forecasters.packs.core import get_pack
    pads = [float(p) for p in a.pads_mib.split(",")]
    seed, config = get_pack(a.pack).seed_kernel, EvalConfig(max_iters=a.max_iters, speedup_estimator="paired")
    path = Path(a.out) / "placement.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    runs = []
    with LocalGPUBackend(devices=[0]) as backend:
        for r in range(a.repeats):
            for pad in pads[r % len(pads):] + pads[:r % len(pads)]:  # rotate the order per repeat: drift does not line up with a pad
                code = PAD.format(nbytes=int(pad * 2**20)) + seed if pad else seed
                t0 = time.perf_counter()
                ev = backend.submit(EvalRequest(a.pack, "paper", code, config=config, device="cuda")).result()
                cases = {c.case_id.rsplit(":", 1)[-1]: round(c.speedup, 4) for c in ev.per_case if c.kind == "benchmark" and c.speedup}
                runs.append({"pad_mib": pad, "repeat": r, "status": ev.status, "reward": ev.reward, "ci": ev.reward_ci, "cases": cases,
                             "wall_s": round(time.perf_counter() - t0, 1)})
                print(f"pad {pad:5.1f} MiB repeat {r}: {ev.status} {ev.reward and round(ev.reward, 4)} {ev.reward_ci and [round(x, 4) for x in ev.reward_ci]} {cases}", flush=True)
                path.write_text(json.dumps(runs, indent=1))
    by_pad = {p: [x["reward"] for x in runs if x["pad_mib"] == p and x["reward"]] for p in pads}
    within = [max(v) - min(v) for v in by_pad.values() if len(v) > 1]
    means = [statistics.mean(v) for v in by_pad.values() if v]
    print(f"within a pad (max - min, mean over pads): {statistics.mean(within):.4f}; between pads (max - min of means): {max(means) - min(means):.4f}")

if __name__ == "__main__": main()
