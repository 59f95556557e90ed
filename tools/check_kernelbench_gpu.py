"""Evaluate the seed of every KernelBench level-3 pack through the local GPU back-end: correctness, then the benchmark.

For each problem: the seed (the pinned reference source + `ModelNew = Model`) is evaluated by `PackEvaluator` on the
`local` back-end (a judge process on GPU 0, fresh candidate and anchor workers): the five KernelBench trials, then the
benchmark case interleaved with the reference. It prints one line per problem (status, speedup with its 95% CI,
candidate and anchor medians, samples, wall time, flags, PASS when ok with a speedup in [0.9, 1.1]) and writes the
evaluations to a JSON report. Then the BatchNorm check on kb3_8: a `ModelNew` that drops BatchNorm must be ok on
`paper` and incorrect on `hardened` (correctness only). `--hardened` adds each seed on `hardened` (correctness only).

    PYTHONPATH=. python tools/check_kernelbench_gpu.py [--json kernelbench_gpu.json] [--problems kb3_8_resnet_basic_block,...]

Iteration limits are reduced (`--max-iters 50`, `--max-measured-s 3`) so the seven problems take about 2-3 minutes on
an H200. Needs torch and numpy, plus einops for kb3_48 (its source imports it; without it that problem is reported and
skipped). `--backend cpu --case-set tiny` runs the same flow on a CPU at small shapes (plumbing only, timings not
meaningful).
"""
import argparse, importlib.util, json, os, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gpu_forecasters.backends import PackEvaluator, get_backend  # noqa: E402
from gpu_forecasters.harness import EvalConfig  # noqa: E402
from gpu_forecasters.packs.kernelbench import PROBLEMS  # noqa: E402

NO_BN = '''
class ModelNew(Model):
    def forward(self, x):
        out = self.conv2(self.relu(self.conv1(x)))
        return self.relu(out + self.downsample[0](x))
'''
BAND = (0.9, 1.1)

def summary(ev) -> dict:
    "The line's numbers: speedup, CI, medians and samples of the benchmark case."
    bench = next((c for c in ev.per_case if c.kind == "benchmark"), None)
    timed = bench is not None and bench.candidate is not None and bench.anchor is not None
    return {"status": ev.status, "reason": ev.reason, "speedup": ev.reward, "speedup_ci": ev.reward_ci,
            "candidate_us": bench.candidate.median_ns / 1e3 if timed else None, "anchor_us": bench.anchor.median_ns / 1e3 if timed else None,
            "n": bench.candidate.n if timed else None, "wall_s": round(ev.wall_s, 1), "flags": ev.flags,
            "message": (ev.message or "")[:400] or None}

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--problems", default=",".join(PROBLEMS), help="comma-separated pack names (default: all seven: the five core problems and the two optional ones)")
    p.add_argument("--case-set", default="paper")
    p.add_argument("--backend", default="local", choices=("local", "cpu"))
    p.add_argument("--max-iters", type=int, default=50)
    p.add_argument("--max-measured-s", type=float, default=3.0)
    p.add_argument("--hardened", action="store_true", help="also evaluate each seed on `hardened` (correctness only)")
    p.add_argument("--json", default="kernelbench_gpu.json", help="write the report here")
    args = p.parse_args(argv)
    names = args.problems.split(",")
    unknown = [n for n in names if n not in PROBLEMS]
    if unknown: p.error(f"unknown problem(s) {', '.join(unknown)}; valid: {', '.join(PROBLEMS)}")
    hardened_set = "tiny_hardened" if args.case_set.startswith("tiny") else "hardened"
    config = EvalConfig(case_set=args.case_set, min_iters=min(20, args.max_iters), max_iters=args.max_iters,
                        max_measured_s=args.max_measured_s, max_case_wall_s=60.0)
    started = time.perf_counter()
    report = {"case_set": args.case_set, "backend": args.backend, "config": config.to_dict(), "problems": {}, "batchnorm": {}, "hardened": {}}
    def save():
        report["elapsed_s"] = round(time.perf_counter() - started, 1)
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))
    backend = get_backend(args.backend, config)
    try:
        for name in names:
            if name == "kb3_48_mamba2_return_y" and importlib.util.find_spec("einops") is None:
                report["problems"][name] = {"status": "skipped", "message": "einops is not installed (48_Mamba2ReturnY.py imports it): pip install einops"}
                print(f"{name:32} SKIPPED  einops is not installed (48_Mamba2ReturnY.py imports it): pip install einops", flush=True)
                continue
            with PackEvaluator(name, args.case_set, backend, config) as evaluator:
                ev = evaluator.submit(evaluator.pack.seed_kernel)
            s = summary(ev)
            s["passed"] = ev.status == "ok" and ev.reward is not None and (args.backend == "cpu" or BAND[0] <= ev.reward <= BAND[1])
            report["problems"][name] = {**s, "evaluation": ev.to_json()}
            if "device" not in report: report["device"] = ev.device
            speed = "speedup n/a" if ev.reward is None else f"speedup {ev.reward:.4f} [{ev.reward_ci[0]:.4f}, {ev.reward_ci[1]:.4f}]"
            times = "" if s["candidate_us"] is None else f"  cand {s['candidate_us']:.1f} us  anchor {s['anchor_us']:.1f} us  n {s['n']}"
            print(f"{name:32} {ev.status:10} {speed}{times}  wall {s['wall_s']} s  flags {ev.flags}  {'PASS' if s['passed'] else 'FAIL'}"
                  + ("" if ev.status == "ok" else f"\n    {ev.reason}: {(ev.message or '')[:300]}"), flush=True)
            save()
        for case_set, expected in ((args.case_set, "ok"), (hardened_set, "incorrect")):
            cfg = EvalConfig(case_set=case_set, check_mode="correctness_only")
            with PackEvaluator("kb3_8_resnet_basic_block", case_set, backend, cfg) as evaluator: ev = evaluator.submit(NO_BN)
            report["batchnorm"][case_set] = {"status": ev.status, "reason": ev.reason, "expected": expected, "passed": ev.status == expected}
            print(f"BatchNorm-dropping ModelNew on kb3_8 {case_set:13} {ev.status:10} (expected {expected}) {'PASS' if ev.status == expected else 'FAIL'}", flush=True)
        for name in names if args.hardened else ():
            if report["problems"].get(name, {}).get("status") == "skipped": continue
            cfg = EvalConfig(case_set=hardened_set, check_mode="correctness_only")
            with PackEvaluator(name, hardened_set, backend, cfg) as evaluator: ev = evaluator.submit(evaluator.pack.seed_kernel)
            report["hardened"][name] = {"status": ev.status, "reason": ev.reason, "passed": ev.status == "ok", "n_cases": len(ev.per_case)}
            print(f"{name:32} {hardened_set} seed {ev.status} ({len(ev.per_case)} correctness cases) {'PASS' if ev.status == 'ok' else 'FAIL'}", flush=True)
    finally:
        backend.close()
    checks = [v.get("passed", False) for v in report["problems"].values() if v.get("status") != "skipped"]
    checks += [v["passed"] for part in ("batchnorm", "hardened") for v in report[part].values()]
    report["all_passed"] = all(checks) and bool(checks)
    save()
    print(f"{sum(checks)} of {len(checks)} checks passed in {report['elapsed_s']} s; report: {os.path.abspath(args.json)}", flush=True)
    return 0 if report["all_passed"] else 1

if __name__ == "__main__": sys.exit(main())
