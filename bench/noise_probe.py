"""Where the timing noise of short, launch-bound kernels comes from (run on a CUDA machine, PYTHONPATH=<repo root>).

    python bench/noise_probe.py [--pack fp8_quant] [--case 0] [--iters 200]

In one process, without the judge: time the pack's seed and its reference on one paper benchmark case the harness's
way (flush 2x L2, sync, events around the call plus the host clock) under several host conditions, and print the
distribution of the GPU-event sample, of the host time spent inside the call before it returns (launch overhead), and
of the GPU time alone (the same work replayed as a CUDA graph, where the host cannot interfere).
"""
import argparse, gc, math, os, statistics, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import numpy as np
import torch
from gpu_forecasters.packs.core import get_pack, load_candidate
from gpu_forecasters.harness import _anchor_source

def timed(fn, data, flush, iters, pause_s=0.0):
    E = torch.cuda.Event
    ev, host = [], []
    for _ in range(iters):
        flush.add_(1); torch.cuda.synchronize()
        if pause_s: time.sleep(pause_s)  # the worker's core idles while it waits for the judge's next message
        s, e = E(enable_timing=True), E(enable_timing=True)
        s.record(); t0 = time.perf_counter_ns()
        fn(data)
        t_ret = time.perf_counter_ns(); e.record(); torch.cuda.synchronize()
        ev.append(s.elapsed_time(e) * 1e3); host.append((t_ret - t0) / 1e3)
    return np.array(ev), np.array(host)

def graph_time(fn, data, flush, iters):
    "GPU time alone: the call captured in a CUDA graph and replayed (None if it cannot be captured)."
    try:
        s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3): fn(data)
        torch.cuda.current_stream().wait_stream(s); torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g): fn(data)
    except Exception as e: return f"no graph: {type(e).__name__}"
    out = []
    for _ in range(iters):
        flush.add_(1); torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); g.replay(); b.record(); torch.cuda.synchronize()
        out.append(a.elapsed_time(b) * 1e3)
    return np.array(out)

def summary(x):
    if isinstance(x, str): return x
    q = np.percentile(x, [0, 10, 50, 90, 100])
    half = 1.96 * 1.2533 * x.std(ddof=1) / math.sqrt(len(x)) / np.median(x)  # normal approx. of the median's CI
    return f"p0 {q[0]:8.1f} p10 {q[1]:8.1f} p50 {q[2]:8.1f} p90 {q[3]:8.1f} p100 {q[4]:8.1f} us  ~half-width {100 * half:.2f}%"

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pack", default="fp8_quant"); p.add_argument("--case", type=int, default=0); p.add_argument("--iters", type=int, default=200)
    a = p.parse_args()
    pack = get_pack(a.pack)
    case = pack.case_set("paper").benchmark[a.case]
    print(f"{a.pack} {case.case_id} {case.args}  cpus {os.cpu_count()} affinity {len(os.sched_getaffinity(0))}  "
          f"governor {Path('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor').read_text().strip() if Path('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor').exists() else 'n/a'}")
    flush = torch.zeros(int(2 * torch.cuda.get_device_properties(0).L2_cache_size) // 4, dtype=torch.int32, device="cuda")
    a_ = torch.randn(4096, 4096, device="cuda"); t = time.time()
    while time.time() - t < 1.0: a_ = (a_ @ a_).mul_(1e-3)
    torch.cuda.synchronize()
    programs = {"seed": load_candidate(pack.seed_kernel, pack, "/tmp/probe_seed"),
                "reference": load_candidate(_anchor_source(pack), pack, "/tmp/probe_ref")}
    data = pack.generate_input(case, "cuda")
    for name, fn in programs.items():
        for _ in range(10): fn(data)
        for label, setup, pause in (("default", lambda: None, 0), ("sleep 2 ms before", lambda: None, 0.002), ("gc off", gc.disable, 0),
                                    ("pinned to 1 core", lambda: os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]}), 0)):
            setup()
            ev, host = timed(fn, data, flush, a.iters, pause)
            print(f"{name:9} {label:16} event  {summary(ev)}")
            print(f"{name:9} {label:16} launch {summary(host)}")
        gc.enable(); os.sched_setaffinity(0, set(range(os.cpu_count())))
        print(f"{name:9} {'gpu only (graph)':16} event  {summary(graph_time(fn, data, flush, a.iters))}")

if __name__ == "__main__": main()
