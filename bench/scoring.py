"""Benchmark of the scoring runner (`gpu_forecasters.scoring`): prints numbers, asserts nothing about time.

Workload: a synthetic eval set shaped like the published one (424 comparisons over 6 packs, A100 hardware), scored
with 3 repeats = 1,272 tasks at concurrency 64, against a provider that answers after 200 ms. The ideal wall time is
N / c x latency = 1272 / 64 x 0.2 s = 3.98 s.

1. **Runner overhead**: a whole run (preflight, the real task pool: queue, workers, row building, atomic cache writes
   with fsync, progress counters; then the outputs) with a surrogate that sleeps 200 ms and answers. Measures what
   the runner itself adds.
2. **End to end through HTTP**: the whole `score()` run against the scripted OpenAI-compatible server, run as a
   separate process (`python -m gpu_forecasters.llm_server --latency 0.2`) so that the server does not share the
   client's interpreter, with each client that can reach it: the `openai_http` back-end (aiohttp, no LiteLLM) and
   the `litellm` back-end. Also measured: each client's CPU time per call (sequential calls against a zero-latency
   server); with one event loop, the wall time cannot drop below N x that.
3. **Resume**: 10,176 cached rows (424 comparisons x 24 repeats, uniform baseline): the time of a rerun that finds
   every task final in the cache (preflight, 10k record reads, outputs checked), and of its two parts.

Every number in the summary is the median of `RUNS` (3) runs of the whole run, with the client's CPU time beside its
wall time and the machine's load average, so a loaded machine shows as such: the wall time on a shared machine
waits for other processes, the CPU time does not.

Run from the repository root:

    .venv/bin/python bench/scoring.py            # everything (about a minute)
    .venv/bin/python bench/scoring.py --quick    # sections 1 and 3 only (no HTTP)
"""
import argparse, asyncio, json, os, random, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1"); os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
import logging; logging.getLogger("gpu_forecasters.data").setLevel(logging.ERROR)

import gpu_forecasters
from gpu_forecasters.bins import bin_of
from gpu_forecasters.forecast import comparison_id
from gpu_forecasters.scoring import ScoreConfig, plan_run, run_tasks, score, write_outputs
from gpu_forecasters.surrogates import close_surrogates
from gpu_forecasters.surrogates import SurrogateResult, Forecast

PACKS = ("cross_entropy", "fp8_quant", "gdn_chunk_fwd_h", "gdn_chunk_fwd_o", "gdn_recompute_w_u", "trimul")
PACK_ROWS = (79, 57, 73, 72, 72, 71)  # 424 comparisons, as published
LATENCY_S, CONCURRENCY, REPEATS = 0.2, 64, 3
RUNS = 3  # each summary number is the median of this many whole runs

def load() -> str: return "load avg {:.2f} {:.2f} {:.2f} on {} cores".format(*os.getloadavg(), os.cpu_count())

class Timer:
    "Wall and CPU seconds (this process) of a block."
    def __enter__(self): self.wall0, self.cpu0 = time.perf_counter(), time.process_time(); return self
    def __exit__(self, *exc): self.wall, self.cpu = time.perf_counter() - self.wall0, time.process_time() - self.cpu0

def median_of(runs: list[dict]) -> dict:
    "The median of each number over the runs (other values from the first run), and the load average at the end."
    out = {k: statistics.median(r[k] for r in runs) if isinstance(v, (int, float)) else v for k, v in runs[0].items()}
    return out | {"runs": len(runs), "load": load()}

def write_eval_set(path: Path, seed: int = 0) -> Path:
    "424 eval rows in the published schema, unique comparison ids."
    rng, rows = random.Random(seed), []
    anchor = "def ref(x):\n    return x * 2\n"
    for pack, n in zip(PACKS, PACK_ROWS):
        for i in range(n):
            candidate = f"def fast_{i}(x):\n    # variant {i} of {pack}\n    return x + x\n"
            s = 2 ** rng.uniform(-2.2, 2.6)
            rows.append(dict(comparison_id=comparison_id(pack, anchor, candidate), pack=pack, anchor_code=anchor,
                             candidate_code=candidate, hardware="NVIDIA A100-SXM4-80GB", aggregated_speedup=s,
                             true_bin=bin_of(s), source_id=f"bench/{pack}/{i}", source_search="bench", internal_experiment="bench"))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path

class Sleeping:
    "Wraps a surrogate: answers like it after `latency_s` (a provider that is slow but costs no client CPU)."
    def __init__(self, inner, latency_s): self.inner, self.latency_s = inner, latency_s
    def __getattr__(self, name): return getattr(self.inner, name)
    async def forecast(self, query, *, seed=None):
        start = time.perf_counter()
        await asyncio.sleep(self.latency_s)
        r = await self.inner.forecast(query, seed=seed)
        return SurrogateResult(forecast=r.forecast, elapsed_s=time.perf_counter() - start, attempts=1, seed=seed)

def runner_overhead(eval_path: Path, out: Path) -> dict:
    "One whole run (preflight, pool, outputs) with a surrogate that sleeps `LATENCY_S` and answers."
    config = ScoreConfig(eval_set=str(eval_path), n_repeats=REPEATS, max_concurrency=CONCURRENCY,
                         surrogates=[{"label": "sleepy", "backend": "uniform"}])
    with Timer() as whole:
        plan = plan_run(config, out)
        for t in plan.to_run: t.surrogate = Sleeping(t.surrogate, LATENCY_S)
        with Timer() as pool: asyncio.run(run_tasks(plan.to_run, CONCURRENCY, progress=False))
        write_outputs(config, plan, out, complete=True, started_at="", wall_s=0)
    n = len(plan.to_run)
    ideal = n / CONCURRENCY * LATENCY_S
    return dict(n=n, wall=whole.wall, cpu=whole.cpu, pool=pool.wall, ideal=ideal, ratio=whole.wall / ideal, ratio_pool=pool.wall / ideal)

def start_server(latency: float):
    p = subprocess.Popen([sys.executable, "-m", "gpu_forecasters.llm_server", "--latency", str(latency)],
                         stdout=subprocess.PIPE, text=True)
    return p, p.stdout.readline().strip()

CLIENTS = {  # surrogate configs for the scripted server at `base`
    "openai_http": lambda base: {"backend": "openai_http", "model": "gpt-4o-mini", "api_base": base, "usd_per_million_input": 0.15, "usd_per_million_output": 0.6},
    "litellm": lambda base: {"backend": "litellm", "model": "openai/gpt-4o-mini", "api_base": base},
}

def client_cpu_per_call(client: str, n: int = 200) -> float:
    "Client CPU seconds per call of one back-end (sequential, zero-latency server)."
    from gpu_forecasters.surrogates import surrogate_from_config
    from gpu_forecasters.prompts import SurrogateQuery
    server, base = start_server(0.0)
    try:
        s = surrogate_from_config({"label": "cpu", **CLIENTS[client](base)})
        queries = [SurrogateQuery(f"trimul/{i:012x}__{i:012x}", "trimul", "a", f"b{i}") for i in range(n + 5)]
        async def main():
            for q in queries[:5]: await s.forecast(q)
            cpu = time.process_time()
            for q in queries[5:]: await s.forecast(q)
            used = (time.process_time() - cpu) / n
            await close_surrogates([s])
            return used
        return asyncio.run(main())
    finally: server.kill()

def end_to_end(eval_path: Path, out: Path, client: str) -> dict:
    "One whole run, as `score()` does it (preflight, the pool of calls, the outputs), with its three phases timed apart."
    server, base = start_server(LATENCY_S)
    try:
        config = ScoreConfig(eval_set=str(eval_path), n_repeats=REPEATS, max_concurrency=CONCURRENCY,
                             surrogates=[{"label": "scripted", **CLIENTS[client](base)}])
        async def pool(plan):
            try: return await run_tasks(plan.to_run, CONCURRENCY, progress=False)
            finally: await close_surrogates(plan.surrogates)
        with Timer() as whole:
            with Timer() as preflight: plan = plan_run(config, out)
            with Timer() as pool_t: counts = asyncio.run(pool(plan))
            with Timer() as outputs: summary = write_outputs(config, plan, out, complete=True, started_at="", wall_s=0)
    finally: server.kill()
    n = len(plan.to_run)
    ideal = n / CONCURRENCY * LATENCY_S
    return dict(n=n, preflight=preflight.wall, pool=pool_t.wall, outputs=outputs.wall, total=whole.wall, cpu=whole.cpu,
                ideal=ideal, ratio_pool=pool_t.wall / ideal, ratio_total=whole.wall / ideal, ok=counts["ok"],
                cost=summary["surrogates"]["scripted"]["cost_usd"])

def resume(eval_path: Path, work: Path, repeats: int = 24) -> dict:
    "A rerun of a finished 10k-task run (every task final in the cache), `RUNS` times: the whole `score()` and its two parts."
    config = ScoreConfig(eval_set=str(eval_path), n_repeats=repeats, max_concurrency=64, surrogates=[{"label": "uniform", "backend": "uniform"}])
    out = work / "resume"
    with Timer() as fill: first = asyncio.run(score(config, out, progress=False))
    n = first["surrogates"]["uniform"]["n_tasks"]
    asyncio.run(score(config, out, progress=False))  # the first rerun rewrites the outputs (new wall time): not a resume's steady state
    runs = []
    for _ in range(RUNS):
        with Timer() as whole: asyncio.run(score(config, out, progress=False))
        with Timer() as plan_t: plan = plan_run(config, out)
        assert not plan.to_run, "every task should be cached"
        with Timer() as outputs: write_outputs(config, plan, out, complete=True, started_at="", wall_s=0)
        runs.append(dict(n=n, fill=fill.wall, rerun=whole.wall, cpu=whole.cpu, plan=plan_t.wall, outputs=outputs.wall))
    return median_of(runs)

def verdict(value: float, target: float, strict: bool = False) -> str:
    return "MET" if (value < target if strict else value <= target) else "MISSED"

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="skip the HTTP sections")
    args = p.parse_args(argv)
    print(f"bench/scoring.py: gpu_forecasters {gpu_forecasters.__version__}, Python {sys.version.split()[0]}; {load()}")
    work = Path(tempfile.mkdtemp(prefix="bench_scoring_"))
    try:
        eval_path = write_eval_set(work / "eval_set.jsonl")
        o = median_of([runner_overhead(eval_path, work / f"overhead_{i}") for i in range(RUNS)])
        print(f"\n[1] runner overhead: {o['n']} tasks, concurrency {CONCURRENCY}, {LATENCY_S * 1e3:.0f} ms per answer (median of {o['runs']} runs; {o['load']})")
        print(f"  whole run {o['wall']:.2f} s wall, {o['cpu']:.2f} s CPU, ideal {o['ideal']:.2f} s, ratio {o['ratio']:.3f} (the pool alone {o['ratio_pool']:.3f})")
        e = {}
        if not args.quick:
            for client in CLIENTS:
                cpu = client_cpu_per_call(client)
                e[client] = x = median_of([end_to_end(eval_path, work / f"e2e_{client}_{i}", client) for i in range(RUNS)])
                print(f"\n[2] end to end, {client} -> HTTP -> scripted server (separate process), {x['n']} tasks (median of {x['runs']} runs; {x['load']})")
                print(f"  client CPU per call: {cpu * 1e3:.2f} ms -> one event loop needs >= {x['n'] * cpu:.2f} s for {x['n']} calls")
                print(f"  whole run {x['total']:.2f} s wall (ratio {x['ratio_total']:.3f}), {x['cpu']:.2f} s CPU = preflight {x['preflight']:.2f} s "
                      f"+ pool {x['pool']:.2f} s (ratio {x['ratio_pool']:.3f}) + outputs {x['outputs']:.2f} s; ideal {x['ideal']:.2f} s")
                print(f"  {x['ok']} ok rows, priced at ${x['cost']:.4f}")
        r = resume(eval_path, work)
        print(f"\n[3] resume of {r['n']:,} cached rows (filled in {r['fill']:.2f} s; median of {r['runs']} reruns; {r['load']})")
        print(f"  rerun with nothing to do: {r['rerun']:.3f} s wall, {r['cpu']:.3f} s CPU: "
              f"plan (load, preflight, {r['n']:,} record reads) {r['plan']:.3f} s + outputs {r['outputs']:.3f} s")
        print(f"\nSUMMARY (medians of {RUNS} whole runs; wall / CPU seconds; {load()})")
        print(f"  runner overhead, whole run wall / ideal       target <= 1.10   {o['ratio']:.3f}  {verdict(o['ratio'], 1.1)}  (CPU {o['cpu']:.2f} s)")
        for client, x in e.items():
            print(f"  end to end via {client + ',':<12} whole / ideal    target <= 1.10   {x['ratio_total']:.3f}  {verdict(x['ratio_total'], 1.1)}  (CPU {x['cpu']:.2f} s)")
        print(f"  resume 10k cached rows                        target <  1.00 s {r['rerun']:.3f}  {verdict(r['rerun'], 1, strict=True)}  (CPU {r['cpu']:.3f} s)")
    finally: shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__": main()
