"""Does where the two workers run explain the per-process bias of launch-bound kernels? (CUDA machine, PYTHONPATH=<repo>)

    python bench/noise_cpus.py [--packs fp8_quant,gdn_recompute_w_u] [--runs 4] [--modes node,separate,shared]

1. The host: CPUs, SMT siblings, the GPU's NUMA node.
2. Per CPU, in this process: the median host time of one call of fp8_quant's seed (launch overhead) with the process
   pinned there, so a CPU that is slower than the others (a busy SMT sibling or host core) shows up.
3. For each `EvalConfig.worker_cpus` mode: `--runs` fresh evaluations of each pack's seed against its reference
   through the local back-end; prints the aggregated speedups, their spread and each case's CI half-width.
"""
import argparse, json, os, statistics, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import numpy as np

def host_scan(pack_name: str, iters: int = 150) -> dict:
    import torch
    from gpu_forecasters.packs.core import get_pack, load_candidate
    pack = get_pack(pack_name)
    fn = load_candidate(pack.seed_kernel, pack, "/tmp/noise_cpus_seed")
    data = pack.generate_input(pack.case_set("paper").benchmark[0], "cuda")
    for _ in range(20): fn(data)
    torch.cuda.synchronize()
    allowed, out = sorted(os.sched_getaffinity(0)), {}
    for cpu in allowed:
        os.sched_setaffinity(0, {cpu})
        ts = []
        for _ in range(iters):
            torch.cuda.synchronize(); t0 = time.perf_counter_ns(); fn(data); ts.append((time.perf_counter_ns() - t0) / 1e3)
        out[cpu] = round(statistics.median(ts), 1)
    os.sched_setaffinity(0, set(allowed))
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--packs", default="fp8_quant,gdn_recompute_w_u")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--modes", default="node,separate,shared")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    import torch
    from gpu_forecasters.backends import LocalGPUBackend, noise_summary
    from gpu_forecasters.harness import EvalConfig, EvalRequest, gpu_local_cpus, physical_cores, judge_worker_cpus
    from gpu_forecasters.packs.core import get_pack
    node = gpu_local_cpus(torch)
    report = {"cpus": sorted(os.sched_getaffinity(0)), "gpu_node": sorted(node or []),
              "cores": physical_cores(os.sched_getaffinity(0))}
    print(f"cpus {report['cpus']}\ngpu node {report['gpu_node']}\nphysical cores {report['cores']}", flush=True)
    report["host_us_by_cpu"] = host_scan("fp8_quant")
    print("fp8_quant seed host us per call, by cpu:", report["host_us_by_cpu"], flush=True)
    report["modes"] = {}
    with LocalGPUBackend(devices=[0]) as backend:
        for mode in a.modes.split(","):
            print(f"mode {mode}: plan {judge_worker_cpus(mode, 'cuda')}", flush=True)
            for name in a.packs.split(","):
                t0 = time.perf_counter()
                evs = [backend.submit(EvalRequest(name, "paper", get_pack(name).seed_kernel, config=EvalConfig(worker_cpus=mode), device="cuda")).result()
                       for _ in range(a.runs)]
                n = noise_summary(evs)
                medians = {c.case_id.rsplit(":", 1)[-1]: [] for c in evs[0].per_case if c.kind == "benchmark"}
                for ev in evs:
                    for c in ev.per_case:
                        if c.kind == "benchmark" and c.candidate is not None and c.anchor is not None:
                            medians[c.case_id.rsplit(":", 1)[-1]].append((round(c.candidate.median_ns / 1e3, 1), round(c.anchor.median_ns / 1e3, 1)))
                widths = {k.rsplit(":", 1)[-1]: round(100 * max(v["half_width"]), 2) for k, v in n["cases"].items()}
                report["modes"].setdefault(mode, {})[name] = {"rewards": n["rewards"], "spread": n["spread"], "half_width_pct": widths,
                                                             "cand_anchor_us": medians, "statuses": [e.status for e in evs],
                                                             "cpus": [e.device.get("worker_cpus") for e in evs], "wall_s": round(time.perf_counter() - t0, 1)}
                r = report["modes"][mode][name]
                print(f"  {name:18} rewards {[round(x, 3) for x in r['rewards']]} spread {r['spread'] and round(100 * r['spread'], 1)}% "
                      f"half-widths % {widths} ({r['wall_s']} s)\n    cand/anchor us {medians}", flush=True)
                if a.json: Path(a.json).write_text(json.dumps(report, indent=1, default=str))

if __name__ == "__main__": main()
