"""Where does a candidate evaluation's start-up go? (CUDA machine, PYTHONPATH=<repo>)

    python bench/worker_start.py [--packs fp8_quant,cross_entropy,...] [--workers 3] [--json F]

Prints, in seconds: a bare interpreter with `import torch`; the same plus CUDA initialisation; the package's harness
and pack imports; the spawn-to-loaded time of fresh candidate workers (`Worker`: spawn, imports, CUDA, L2 flush
buffer, pre-heat, null-call calibration, the candidate's import); the load-to-loaded time of warm (blank) workers;
and each pack's seed evaluated once through `run_judge` with its phases (`Evaluation.phases_s`: start, correctness,
benchmark, teardown) and wall time. Fresh and warm workers are measured with the sandbox on (`strict`) and off,
interleaved, and the medians and their ratio printed: the sandbox's cost per candidate. Set
$GPU_FORECASTERS_WARM_WORKERS=0 to evaluate without warm workers (the default keeps two ready on cuda).
"""
import argparse, json, subprocess, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

def timed_python(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return round(time.perf_counter() - t0, 2)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--packs", default="fp8_quant,cross_entropy,gdn_chunk_fwd_h,gdn_chunk_fwd_o,gdn_recompute_w_u,trimul")
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--settle-s", type=float, default=10.0, help="seconds a blank worker gets for its imports before it is taken")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    report = {"python_import_torch_s": timed_python("import torch"),
              "python_torch_cuda_init_s": timed_python("import torch; torch.zeros(1, device='cuda'); torch.cuda.synchronize()") if a.device == "cuda" else None,
              "python_package_imports_s": timed_python("import torch, gpu_forecasters.harness, gpu_forecasters.packs.core")}
    print(report, flush=True)
    from gpu_forecasters.harness import EvalConfig, EvalRequest, Worker, WorkerPool, run_judge, worker_settings
    from gpu_forecasters.packs.core import get_pack
    import statistics
    seed = get_pack("fp8_quant").seed_kernel
    def loaded_after(worker) -> float:
        t0 = time.perf_counter()
        answer = worker.load("fp8_quant", seed).receive(300, "import")
        assert answer[0] == "loaded", answer
        worker.close()
        return round(time.perf_counter() - t0, 2)
    settings = {mode: worker_settings(EvalConfig(sandbox=mode), a.device) for mode in ("strict", "off")}
    fresh, warm = {"strict": [], "off": []}, {"strict": [], "off": []}
    for _ in range(a.workers):  # interleaved, so that a drift of the machine hits both alike
        for mode in ("strict", "off"): fresh[mode].append(loaded_after(Worker(a.device, settings=settings[mode])))  # the whole start
    for mode in ("strict", "off"):
        pool = WorkerPool(size=lambda device: 1)
        pool.take(a.device, settings=settings[mode]).close()
        for _ in range(a.workers):
            time.sleep(a.settle_s)  # the blank worker finishes its imports
            warm[mode].append(loaded_after(pool.take(a.device, settings=settings[mode])))
        pool.close()
    report["worker_spawn_to_loaded_s"], report["warm_worker_load_s"] = fresh, warm
    med = {k: {m: statistics.median(v) for m, v in d.items()} for k, d in (("fresh", fresh), ("warm", warm))}
    report["sandbox_cost"] = {k: {"strict_s": v["strict"], "off_s": v["off"], "extra_s": round(v["strict"] - v["off"], 2),
                                  "ratio": round(v["strict"] / v["off"], 3)} for k, v in med.items()}
    print(f"fresh worker spawn -> loaded: {fresh} s; warm (blank) worker load -> loaded: {warm} s", flush=True)
    print(f"sandbox cost per candidate (medians, strict vs off): {report['sandbox_cost']}", flush=True)
    report["evaluations"] = {}
    for name in a.packs.split(","):
        for mode in ("full", "correctness_only"):
            t0 = time.perf_counter()
            ev = run_judge(EvalRequest(name, "paper", get_pack(name).seed_kernel, config=EvalConfig(check_mode=mode), device=a.device))
            r = report["evaluations"][f"{name}:{mode}"] = {"status": ev.status, "reward": ev.reward, "phases_s": ev.phases_s, "wall_s": round(time.perf_counter() - t0, 2)}
            print(f"{name:18} {mode:16} {r}", flush=True)
            if a.json: Path(a.json).write_text(json.dumps(report, indent=1, default=str))
    if a.json: Path(a.json).write_text(json.dumps(report, indent=1, default=str))

if __name__ == "__main__": main()
