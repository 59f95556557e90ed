"""Run the harness on a CUDA GPU: every pack's seed against its reference, and a small noise study.

    python tools/check_harness_gpu.py [--packs fp8_quant,cross_entropy] [--repeats 5] [--json out.json]

For each pack: `run_judge` of the seed on the paper set (all correctness cases, then the interleaved benchmark
phase), printing per-case speedups with CIs, flags and the aggregate; `--repeats N` evaluates N times, each in fresh
worker processes (what a search pays for), and prints the spread (max - min) / median and each case's relative CI
half-width. Needs only torch and numpy: run with PYTHONPATH=<repo root>.
"""
import argparse, json, sys, time
from pathlib import Path
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gpu_forecasters.harness import EvalConfig, EvalRequest, run_judge  # noqa: E402
from gpu_forecasters.packs.core import get_pack  # noqa: E402

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--packs", default="fp8_quant,cross_entropy,gdn_chunk_fwd_h,gdn_chunk_fwd_o,gdn_recompute_w_u,trimul")
    p.add_argument("--case-set", default="paper")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    report = {}
    for name in args.packs.split(","):
        pack = get_pack(name)
        runs = []
        for r in range(args.repeats):
            t0 = time.perf_counter()
            ev = run_judge(EvalRequest(name, args.case_set, pack.seed_kernel, config=EvalConfig(case_set=args.case_set), device="cuda"))
            runs.append(ev.to_json())
            bench = [c for c in ev.per_case if c.kind == "benchmark"]
            print(f"{name} run {r}: {ev.status} {ev.reason or ''} reward {ev.reward if ev.reward is None else round(ev.reward, 4)} "
                  f"CI {ev.reward_ci} wall {time.perf_counter() - t0:.1f} s flags {ev.flags}", flush=True)
            if r == 0:
                print(f"  device {ev.device}", flush=True)
            for c in bench:
                if c.candidate is None: print(f"  {c.case_id}: {c.status} {c.reason} {str(c.message)[:200]}"); continue
                half = (c.speedup_ci[1] - c.speedup_ci[0]) / 2 / c.speedup
                print(f"  {c.case_id:26} cand {c.candidate.median_ns / 1e3:9.1f} us  anchor {c.anchor.median_ns / 1e3:9.1f} us  "
                      f"speedup {c.speedup:.4f} [{c.speedup_ci[0]:.4f}, {c.speedup_ci[1]:.4f}] half-width {100 * half:.2f}%  "
                      f"n {c.candidate.n} checks {c.n_checks} gap {np.median(c.stream_gaps_ns) / 1e3:.1f} us flags {c.flags}", flush=True)
            if ev.status != "ok" and r == 0: print(f"  message: {str(ev.message)[:500]}")
        rewards = [r["reward"] for r in runs if r["reward"] is not None]
        if len(rewards) > 1:
            print(f"{name}: {len(rewards)} runs, aggregate {np.median(rewards):.4f}, spread (max - min) / median "
                  f"{100 * (max(rewards) - min(rewards)) / np.median(rewards):.2f}%", flush=True)
        report[name] = runs
    if args.json: Path(args.json).write_text(json.dumps(report, indent=1, default=str))

if __name__ == "__main__": main()
