"""Benchmark of the scoring runner (`gpu_forecasters.scoring`): prints numbers, asserts nothing about time.

Workload: a synthetic eval set shaped like the published one (424 comparisons over 6 packs, A100 hardware), scored
with 3 repeats = 1,272 tasks at concurrency 64, against a provider that answers after 200 ms. The ideal wall time is
N / c x latency = 1272 / 64 x 0.2 s = 3.98 s.

1. **Runner overhead**: the real task pool (`run_tasks`: queue, workers, row building, atomic cache writes with
   fsync, progress counters) with a surrogate that sleeps 200 ms and answers. Measures what the runner itself adds.
2. **End to end through HTTP**: `score()` against the scripted OpenAI-compatible server, run as a separate process
   (`python -m gpu_forecasters.llm_server --latency 0.2`) so that the server does not share the client's interpreter,
   with each client that can reach it: the `openai_http` back-end (aiohttp, no LiteLLM) and the `litellm` back-end.
   Also measured: each client's CPU time per call (sequential calls against a zero-latency server); with one event
   loop, the wall time cannot drop below N x that.
3. **Resume**: 10,176 cached rows (424 comparisons x 24 repeats, uniform baseline): the time of a rerun that finds
   every task final in the cache (preflight, 10k record reads, outputs rewritten), and of its two parts.

Run from the repository root:

    .venv/bin/python bench/scoring.py            # everything (about a minute)
    .venv/bin/python bench/scoring.py --quick    # sections 1 and 3 only (no HTTP)
"""
import argparse, asyncio, json, os, random, shutil, subprocess, sys, tempfile, time
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

def load() -> str: return "load avg {:.2f} {:.2f} {:.2f} on {} cores".format(*os.getloadavg(), os.cpu_count())

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

def runner_overhead(eval_path: Path, work: Path) -> dict:
    config = ScoreConfig(eval_set=str(eval_path), n_repeats=REPEATS, max_concurrency=CONCURRENCY,
                         surrogates=[{"label": "sleepy", "backend": "uniform"}])
    plan = plan_run(config, work / "overhead")
    for t in plan.to_run: t.surrogate = Sleeping(t.surrogate, LATENCY_S)
    n = len(plan.to_run)
    start = time.perf_counter()
    asyncio.run(run_tasks(plan.to_run, CONCURRENCY, progress=False))
    wall = time.perf_counter() - start
    ideal = n / CONCURRENCY * LATENCY_S
    return dict(n=n, wall=wall, ideal=ideal, ratio=wall / ideal)

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

def end_to_end(eval_path: Path, work: Path, client: str) -> dict:
    "The run's three phases timed apart: preflight (`plan_run`), the pool of calls (`run_tasks`, what section 1 times) and the outputs."
    server, base = start_server(LATENCY_S)
    try:
        config = ScoreConfig(eval_set=str(eval_path), n_repeats=REPEATS, max_concurrency=CONCURRENCY,
                             surrogates=[{"label": "scripted", **CLIENTS[client](base)}])
        out = work / f"e2e_{client}"
        start = time.perf_counter(); plan = plan_run(config, out); preflight = time.perf_counter() - start
        async def pool():
            try: return await run_tasks(plan.to_run, CONCURRENCY, progress=False)
            finally: await close_surrogates(plan.surrogates)
        start = time.perf_counter(); counts = asyncio.run(pool()); pool_s = time.perf_counter() - start
        start = time.perf_counter()
        summary = write_outputs(config, plan, out, complete=True, started_at="", wall_s=0)
        outputs = time.perf_counter() - start
    finally: server.kill()
    n = len(plan.to_run)
    ideal = n / CONCURRENCY * LATENCY_S
    total = preflight + pool_s + outputs
    return dict(n=n, preflight=preflight, pool=pool_s, outputs=outputs, total=total, ideal=ideal, ratio_pool=pool_s / ideal,
                ratio_total=total / ideal, ok=counts["ok"], cost=summary["surrogates"]["scripted"]["cost_usd"])

def resume(eval_path: Path, work: Path, repeats: int = 24) -> dict:
    config = ScoreConfig(eval_set=str(eval_path), n_repeats=repeats, max_concurrency=64, surrogates=[{"label": "uniform", "backend": "uniform"}])
    out = work / "resume"
    start = time.perf_counter(); first = asyncio.run(score(config, out, progress=False)); fill = time.perf_counter() - start
    n = first["surrogates"]["uniform"]["n_tasks"]
    times = []
    for _ in range(3):
        start = time.perf_counter(); asyncio.run(score(config, out, progress=False)); times.append(time.perf_counter() - start)
    start = time.perf_counter(); plan = plan_run(config, out); plan_s = time.perf_counter() - start
    assert not plan.to_run, "every task should be cached"
    start = time.perf_counter(); write_outputs(config, plan, out, complete=True, started_at="", wall_s=0); outputs_s = time.perf_counter() - start
    return dict(n=n, fill=fill, rerun=min(times), rerun_median=sorted(times)[1], plan=plan_s, outputs=outputs_s)

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="skip the LiteLLM sections")
    args = p.parse_args(argv)
    print(f"bench/scoring.py: gpu_forecasters {gpu_forecasters.__version__}, Python {sys.version.split()[0]}; {load()}")
    work = Path(tempfile.mkdtemp(prefix="bench_scoring_"))
    try:
        eval_path = write_eval_set(work / "eval_set.jsonl")
        o = runner_overhead(eval_path, work)
        print(f"\n[1] runner overhead: {o['n']} tasks, concurrency {CONCURRENCY}, {LATENCY_S * 1e3:.0f} ms per answer")
        print(f"  wall {o['wall']:.2f} s, ideal {o['ideal']:.2f} s, ratio {o['ratio']:.3f}")
        e = {}
        if not args.quick:
            for client in CLIENTS:
                cpu = client_cpu_per_call(client)
                e[client] = x = end_to_end(eval_path, work, client)
                print(f"\n[2] end to end, {client} -> HTTP -> scripted server (separate process), {x['n']} tasks ({load()})")
                print(f"  client CPU per call: {cpu * 1e3:.2f} ms -> one event loop needs >= {x['n'] * cpu:.2f} s for {x['n']} calls")
                print(f"  pool wall {x['pool']:.2f} s (ratio {x['ratio_pool']:.3f}), ideal {x['ideal']:.2f} s; {x['ok']} ok rows, priced at ${x['cost']:.4f}")
                print(f"  whole run {x['total']:.2f} s (ratio {x['ratio_total']:.3f}) = preflight {x['preflight']:.2f} s + pool + outputs {x['outputs']:.2f} s")
        r = resume(eval_path, work)
        print(f"\n[3] resume of {r['n']:,} cached rows (filled in {r['fill']:.2f} s)")
        print(f"  rerun with nothing to do: {r['rerun']:.3f} s (min of 3; median {r['rerun_median']:.3f} s): "
              f"plan (load, preflight, {r['n']:,} record reads) {r['plan']:.3f} s + outputs {r['outputs']:.3f} s")
        print("\nSUMMARY")
        print(f"  runner overhead, wall / ideal                 target <= 1.10   {o['ratio']:.3f}  {'MET' if o['ratio'] <= 1.1 else 'MISSED'}")
        for client, x in e.items():
            print(f"  end to end via {client + ',':<12} pool wall / ideal  target <= 1.10   {x['ratio_pool']:.3f}  {'MET' if x['ratio_pool'] <= 1.1 else 'MISSED'}")
        print(f"  resume 10k cached rows                        target <  1.00 s {r['rerun']:.3f}  {'MET' if r['rerun'] < 1 else 'MISSED'}")
    finally: shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__": main()
