"""How many timed iterations does a launch-bound case need for a 1% CI half-width? (CUDA machine, PYTHONPATH=<repo>)

    python bench/noise_iters.py [--packs fp8_quant] [--max-iters 200,1000,3000] [--runs 4] [--max-measured-s 10] [--json F]

For each `EvalConfig.max_iters` in the list: `--runs` fresh evaluations of each pack's seed against its reference
through the local back-end (the default `worker_cpus="shared"`); prints the aggregated speedups and their spread,
each case's worst relative CI half-width, the iterations the case actually ran (it stops earlier when the RSE target
or `max_measured_s` is met), the wall time of one evaluation and its start-up phase. The target (step 5, noise, of `gpu-forecasters verify-gpu`)
is a half-width <= 1% for every case whose candidate median is >= 100 us.
"""
import argparse, json, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--packs", default="fp8_quant")
    ap.add_argument("--max-iters", default="200,1000,3000")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--max-measured-s", type=float, default=10.0)
    ap.add_argument("--estimator", default="paired", help="EvalConfig.speedup_estimator (verify-gpu's noise step uses paired)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    from gpu_forecasters.backends import LocalGPUBackend, noise_summary
    from gpu_forecasters.harness import EvalConfig, EvalRequest
    from gpu_forecasters.packs.core import get_pack
    report = {}
    with LocalGPUBackend(devices=[0]) as backend:
        for name in a.packs.split(","):
            for max_iters in [int(x) for x in a.max_iters.split(",")]:
                config = EvalConfig(max_iters=max_iters, max_measured_s=a.max_measured_s, speedup_estimator=a.estimator)
                walls, evs = [], []
                for _ in range(a.runs):
                    t0 = time.perf_counter()
                    evs.append(backend.submit(EvalRequest(name, "paper", get_pack(name).seed_kernel, config=config, device="cuda")).result())
                    walls.append(round(time.perf_counter() - t0, 1))
                n = noise_summary(evs)
                iters = {}
                for ev in evs:
                    for c in ev.per_case:
                        if c.kind == "benchmark" and c.candidate is not None: iters.setdefault(c.case_id.rsplit(":", 1)[-1], []).append(c.candidate.n)
                widths = {k.rsplit(":", 1)[-1]: (round(100 * max(v["half_width"]), 2), round(sorted(v["median_us"])[len(v["median_us"]) // 2])) for k, v in n["cases"].items()}
                r = report.setdefault(name, {})[str(max_iters)] = {"rewards": n["rewards"], "spread": n["spread"], "between_runs_sd": n["between_runs_sd"], "half_width_pct_at_us": widths,
                                                                  "iters": iters, "wall_s": walls, "start_s": n["start_s"], "passed": n["passed"],
                                                                  "statuses": [e.status for e in evs]}
                print(f"{name} max_iters {max_iters}: rewards {[round(x, 4) for x in r['rewards']]} spread {r['spread'] and round(100 * r['spread'], 2)}% "
                      f"sd {r['between_runs_sd'] and round(100 * r['between_runs_sd'], 2)}% "
                      f"half-width % (at us) {widths} iters {iters} wall s {walls} (start {n['start_s']}) {'PASS' if r['passed'] else 'FAIL'}", flush=True)
                if a.json: Path(a.json).write_text(json.dumps(report, indent=1, default=str))

if __name__ == "__main__": main()
