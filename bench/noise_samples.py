"""Keep every timing sample of repeated evaluations, to see what the CI half-width of a launch-bound case is made of
(CUDA machine, PYTHONPATH=<repo root>).

    python bench/noise_samples.py --out DIR [--pack fp8_quant] [--runs 4] [--set worker_cpus=shared,max_iters=4000] ...

Each `--set` is one configuration (EvalConfig fields, comma-separated key=value); `--runs` fresh evaluations of the
pack's seed against its reference are made per configuration, through the local back-end. Written to DIR/samples.json:
per configuration and run, per benchmark case, the candidate's and the anchor's samples (ns, in iteration order), the
iterations, the speedup and its CI, and the host's time on the workers' CPUs (`host_cpu_ms`: steal, irq...); per run
the workers' calibration and CPUs (`device`), each case's GPU state at its start and end (clocks, temperature,
power), and `cpu_probe_us`: the median time of a fixed pure-Python loop in this process just before the run, a
gauge of how fast the host's CPUs are at that moment. Prints one line per run: per case the iterations, medians and
relative half-width.
"""
import argparse, json, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

def parse_set(text: str) -> dict:
    out = {}
    for item in filter(None, text.split(",")):
        k, v = item.split("=", 1)
        for kind in (int, float, str):
            try: out[k] = kind(v); break
            except ValueError: pass
    return out

def cpu_probe_us(repeats: int = 15) -> float:
    "Median microseconds of a fixed pure-Python loop: a gauge of the host CPU's speed right now."
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        total = 0
        for i in range(20_000): total += i * i
        times.append((time.perf_counter_ns() - t0) / 1e3)
    return sorted(times)[len(times) // 2]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--pack", default="fp8_quant")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--set", action="append", default=None)
    a = ap.parse_args()
    from gpu_forecasters.backends import LocalGPUBackend
    from gpu_forecasters.harness import EvalConfig, EvalRequest
    from gpu_forecasters.packs.core import get_pack
    out, path = {}, Path(a.out) / "samples.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    with LocalGPUBackend(devices=[0]) as backend:
        for text in a.set or ["max_iters=4000"]:
            config = EvalConfig(**parse_set(text))
            for run in range(a.runs):
                probe = cpu_probe_us()
                t0 = time.perf_counter()
                ev = backend.submit(EvalRequest(a.pack, "paper", get_pack(a.pack).seed_kernel, config=config, device="cuda")).result()
                cases = {}
                for c in ev.per_case:
                    if c.kind != "benchmark" or c.candidate is None: continue
                    cases[c.case_id.rsplit(":", 1)[-1]] = {"n": c.candidate.n, "speedup": c.speedup, "ci": c.speedup_ci,
                                                           "candidate": c.candidate.samples_ns, "anchor": c.anchor.samples_ns if c.anchor else None,
                                                           "host_cpu_ms": c.device_state.get("host_cpu_ms"),
                                                           "gpu_start": c.device_state.get("start"), "gpu_end": c.device_state.get("end"),
                                                           "candidate_median_us": c.candidate.median_ns / 1e3, "anchor_median_us": c.anchor.median_ns / 1e3 if c.anchor else None}
                out.setdefault(text, []).append({"reward": ev.reward, "status": ev.status, "wall_s": round(time.perf_counter() - t0, 1),
                                                 "flags": ev.flags, "cases": cases, "cpu_probe_us": probe, "cpu_probe_after_us": cpu_probe_us(),
                                                 "device": {k: ev.device.get(k) for k in ("null_call_ns", "null_gap_ns", "worker_cpus", "anchor_worker_cpus")}})
                print(text, run, ev.status, ev.reward and round(ev.reward, 4), out[text][-1]["wall_s"], "s", f"cpu probe {probe:.0f} us",
                      {k: (round(v["candidate_median_us"]), round(v["anchor_median_us"] or 0)) for k, v in cases.items()},
                      {k: (v["n"], round(v["speedup"], 4), round(50 * (v["ci"][1] - v["ci"][0]) / v["speedup"], 2)) for k, v in cases.items()}, flush=True)
                path.write_text(json.dumps(out))

if __name__ == "__main__": main()
