"""Benchmark of `gpu_forecasters.forecaster`: prints numbers and ratios, asserts nothing about time.

1. **`forecast_many` of 1,000 pairs** against the scripted OpenAI-compatible server, run as a separate process
   (`python -m gpu_forecasters.llm_server --latency 0.2`), at concurrency 64 with the `openai_http` client. The
   ideal wall time is the makespan of 64 workers that each wait 200 ms per call: ceil(N / c) x latency =
   16 x 0.2 s = 3.2 s (N / c x latency = 3.13 s would need 62.5 calls a worker). The peer in the same run: `score()` on the same
   pairs written as a pairs file (`dataset: "pairs"`), the scoring runner that `forecast_many` reuses; both should
   sit within 1.1x of the ideal, and `forecast_many` within a few per cent of `score`. Each is timed as a whole run
   (the `forecast_many` call; the whole `score()`, preflight and outputs included), `RUNS` times on fresh caches: the
   summary gives the medians, with the client's CPU time and the machine's load average (on a shared machine the wall
   time waits for other processes, the CPU time does not).
2. **A `Filter` decision over 16 candidates**: `Filter.decide` on 16 merged forecasts (the selection itself), and
   `Filter.select` of 16 candidates whose forecasts are all cached (everything the filter adds around the model
   calls: building the pairs, planning, 16 cache reads, merging, deciding). Target: under 5 ms.

Run from the repository root:

    .venv/bin/python bench/forecaster.py
"""
import asyncio, json, os, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1"); os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
import logging; logging.getLogger("gpu_forecasters.data").setLevel(logging.ERROR)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpu_forecasters
from gpu_forecasters.forecaster import Filter, Forecaster
from gpu_forecasters.scoring import ScoreConfig, score

N_PAIRS, LATENCY_S, CONCURRENCY = 1000, 0.2, 64
RUNS = 3  # each whole-run number is the median of this many runs

def load() -> str: return "load avg {:.2f} {:.2f} {:.2f} on {} cores".format(*os.getloadavg(), os.cpu_count())

class Timer:
    "Wall and CPU seconds (this process) of a block."
    def __enter__(self): self.wall0, self.cpu0 = time.perf_counter(), time.process_time(); return self
    def __exit__(self, *exc): self.wall, self.cpu = time.perf_counter() - self.wall0, time.process_time() - self.cpu0

def start_server(latency: float):
    p = subprocess.Popen([sys.executable, "-m", "gpu_forecasters.llm_server", "--latency", str(latency)], stdout=subprocess.PIPE, text=True)
    return p, p.stdout.readline().strip()

def pairs(n: int, tag: str) -> list[dict]:
    anchor = "def custom_kernel(data):\n    return data * 2\n"
    return [dict(pair_id=f"{tag}{i}", pack="trimul", anchor_code=anchor,
                 candidate_code=f"def custom_kernel(data):\n    # variant {i} ({tag})\n    return data + data\n") for i in range(n)]

def client(base: str) -> dict:
    return {"label": "scripted", "backend": "openai_http", "model": "gpt-4o-mini", "api_base": base,
            "usd_per_million_input": 0.15, "usd_per_million_output": 0.6}

def forecast_many_vs_score(work: Path) -> dict:
    "`RUNS` whole runs of each, alternating, on fresh caches and fresh pairs: medians of wall and CPU seconds."
    server, base = start_server(LATENCY_S)
    runs = []
    try:
        ideal = -(-N_PAIRS // CONCURRENCY) * LATENCY_S
        for i in range(RUNS):
            with Forecaster(client(base), max_concurrency=CONCURRENCY, cache_dir=work / f"fm{i}") as f:
                f.forecast_many(pairs(1, f"warm{i}_"))  # one-time costs out of the timing: the pack list (imports torch), the first connection
                with Timer() as fm: results = f.forecast_many(pairs(N_PAIRS, f"a{i}_"))
            path = work / f"pairs{i}.jsonl"
            path.write_text("".join(json.dumps(p) + "\n" for p in pairs(N_PAIRS, f"b{i}_")))
            config = ScoreConfig(dataset="pairs", eval_set=str(path), n_repeats=1, max_concurrency=CONCURRENCY, surrogates=[client(base)])
            with Timer() as sc: summary = asyncio.run(score(config, work / f"score{i}", progress=False))
            runs.append(dict(forecast_many=fm.wall, forecast_many_cpu=fm.cpu, score=sc.wall, score_cpu=sc.cpu,
                             ok=sum(not r.failed for r in results), cost=sum(r.cost_usd or 0 for r in results),
                             score_ok=summary["surrogates"]["scripted"]["n_parsed"]))
    finally: server.kill()
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]} | dict(ideal=ideal, load=load())

def filter_decision(work: Path, reps: int = 200) -> dict:
    with Forecaster({"label": "u", "backend": "uniform"}, cache_dir=work / "filter") as f:
        flt = Filter(f, budget=4)
        parent, candidates = pairs(1, "p")[0]["anchor_code"], [p["candidate_code"] for p in pairs(16, "c")]
        decision = flt.select(parent, candidates, pack="trimul")  # fills the cache
        decide, select = [], []
        for _ in range(reps):
            start = time.perf_counter(); flt.decide(decision.forecasts); decide.append(time.perf_counter() - start)
        for _ in range(reps // 10):
            start = time.perf_counter(); flt.select(parent, candidates, pack="trimul"); select.append(time.perf_counter() - start)
    return dict(decide_ms=1e3 * statistics.median(decide), select_cached_ms=1e3 * statistics.median(select))

def main():
    print(f"bench/forecaster.py: gpu_forecasters {gpu_forecasters.__version__}, Python {sys.version.split()[0]}; {load()}")
    work = Path(tempfile.mkdtemp(prefix="bench_forecaster_"))
    try:
        x = forecast_many_vs_score(work)
        print(f"\n[1] {N_PAIRS} pairs, concurrency {CONCURRENCY}, {LATENCY_S * 1e3:.0f} ms per answer (openai_http -> scripted server, "
              f"separate process; medians of {RUNS} whole runs; {x['load']})")
        print(f"  forecast_many {x['forecast_many']:.2f} s wall, {x['forecast_many_cpu']:.2f} s CPU ({x['ok']:.0f} forecasts, ${x['cost']:.4f}); "
              f"score on the same pairs {x['score']:.2f} s wall, {x['score_cpu']:.2f} s CPU ({x['score_ok']:.0f} parsed); ideal {x['ideal']:.2f} s")
        y = filter_decision(work)
        print(f"\n[2] Filter over 16 candidates: decide {y['decide_ms']:.3f} ms (median), select with every forecast cached {y['select_cached_ms']:.2f} ms (median)")
        r_fm, r_sc = x["forecast_many"] / x["ideal"], x["score"] / x["ideal"]
        print(f"\nSUMMARY (whole runs: medians of {RUNS}; {load()})")
        print(f"  forecast_many wall / ideal          target <= 1.10   {r_fm:.3f}  {'MET' if r_fm <= 1.1 else 'MISSED'}  (CPU {x['forecast_many_cpu']:.2f} s)")
        print(f"  score (peer) wall / ideal                            {r_sc:.3f}   forecast_many / score {x['forecast_many'] / x['score']:.3f}  (CPU {x['score_cpu']:.2f} s)")
        print(f"  Filter decision, 16 candidates      target <  5 ms   {y['decide_ms']:.3f} ms  {'MET' if y['decide_ms'] < 5 else 'MISSED'}")
        print(f"  Filter.select, 16 cached forecasts  target <  5 ms   {y['select_cached_ms']:.2f} ms  {'MET' if y['select_cached_ms'] < 5 else 'MISSED'}")
    finally: shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__": main()
