"""Benchmark of the kernel search's engine (`gpu_forecasters.search`): prints numbers, asserts nothing about time.

What is measured (each timing: a warm-up call first, then the median and the minimum of several runs, wall clock, and
the median CPU time of this process, which leaves out time spent waiting for a core on a shared machine):

1. **A realistic 100k-event log.** A long surrogate_filtered search with the paper's preset (batch 2, spp 16, eval 4,
   top-k 4, capacity 1,000, anchor `seed`, rule `expected_bin`) on a toy problem, made by a small scripted driver that
   takes its decisions with the public helpers of `puct` and `events` (`select_parents`, `dedup_verdict`,
   `compute_fence`), in the order the real driver logs them, and applies every event with the reducer: the log is
   valid, and when `driver.py` exists, its verified `replay` accepts it. Kernels are ~2 kB Python programs holding a
   256-bit toy genome (reward 2^(3·ones/256) with 2% noise); forecasts come from the toy noisy oracle (accuracy 0.6)
   with a 600-character reasoning; evaluations are the toy `Evaluation` JSON with its feedback; LLM calls carry
   varying token counts and prices. About 4% of mutations fail, 3% do not compile, 5% return the parent unchanged (a
   known duplicate) and 4% repeat a sibling (a sibling duplicate); 3% of forecasts and 2% of evaluations fail; every
   50 steps the run is "resumed" (`run_resumed` and a `request_redispatched`). The archive reaches its capacity of
   1,000 after ~130 of ~700 steps and stays there (evictions at every fence). The log is written to a temp file.
2. **Replay speed**, in events/s over the whole log: (a) `read_events` (decode every line into its event model);
   (b) `fold` (the reducer only); (c) both, which is what a reader does; (d) if the driver exists, its verified
   `replay` (the reducer plus the check of every decision and request against `decide`, what a resume does); and
   (e) a resume as it really runs: a fresh interpreter per run that opens the log as `SearchDriver.run` does
   (`FileEventLog.open`: the lock, then every line decoded) and replays it with `replay`. (e) is the number a user
   waiting for a resume sees, and the one the target is judged on: the median over the runs of the whole resume,
   decode and verified replay together (the parts and the in-process repeats are printed for information; repeated
   runs in one process are faster than fresh ones). Each fresh run also reports its imports (the interpreter's
   start of `gpu_forecasters.search.driver`), which a user waits for too but which the target leaves out.
3. **Decision overhead per step at archive 1,000**, on the state of the last step boundary of the log:
   `select_parents` (PUCT scores over 1,000 nodes + lineage blocking), `compute_fence` (backprop, admission against
   1,000 nodes, cache), `admit_children` and `backpropagate` alone, and the reducer's `apply_event` of `step_started`
   and `step_completed`. "Per step" = select + fence + the two applies (what a driver computes and applies at the two
   step boundaries). If `gpu_forecasters.search.driver.decide` exists, `decide(state)` is timed too, at the step
   boundary and over every state of one whole step; otherwise the report says "driver not built yet".

The summary at the end judges two targets on wall-clock medians: a resume (decode + verified replay of a 100k-event
log in a fresh process) at 50k events/s or more, and a decision in under 10 ms per step at archive 1,000; the parts
are listed under them without a verdict. Next to each median it prints the median CPU time of the process, which
leaves out the time spent waiting for a core: on a loaded machine the wall clock falls and the CPU rate does not, so
the two together say whether a miss is the code or the machine. The machine load (`os.getloadavg`) is printed with
every section and in the summary. `--profile` adds a cProfile of the decode, the fold and the verified replay.

Run from the repository root:

    .venv/bin/python bench/search_engine.py              # full run (~3 minutes, a third of it building the log)
    .venv/bin/python bench/search_engine.py --quick      # fewer repeats, a 20k-event log
    .venv/bin/python bench/search_engine.py --events 200000 --profile   # another size; cProfile of decode and fold
"""
import argparse, cProfile, gc, math, os, platform, pstats, random, statistics, subprocess, sys, tempfile, time
from collections import Counter
from pathlib import Path

import gpu_forecasters
from gpu_forecasters.bins import N_BINS
from gpu_forecasters.search import events as ev
from gpu_forecasters.search import puct
from gpu_forecasters.search.events import (
    CandidateDeduplicated, DeferredEntry, EvaluationCompleted, EvaluationFailed, EvaluationRequested, ForecastCompleted,
    ForecastFailed, ForecastRequested, MutationCompleted, MutationFailed, MutationRequested, ParentEntry,
    RequestRedispatched, RunEnvironment, RunResumed, RunVersions, SearchInitialized, SearchStopped, SeedEvaluationCompleted,
    SeedEvaluationRequested, SelectedEntry, SelectionMade, StepCompleted, StepStarted, Usage, apply_event, compute_fence,
    dedup_verdict, encode_event, fold, read_events, request_id)
from gpu_forecasters.search.puct import admit_children, backpropagate, global_scale, normalized_code_hash, puct_scores, select_parents
from gpu_forecasters.search.toy import NoisyOracleSurrogate, ToyProblem, toy_evaluation

try:
    from gpu_forecasters.search.driver import decide, replay
except ImportError as err:  # the driver (nbs/24_search) is built separately
    decide = replay = None
    DRIVER_MISSING = f"{type(err).__name__}: {err}"
else:
    DRIVER_MISSING = None

TARGET_EVENTS_PER_S = 50_000
EVENTS_PER_STEP = 142.4  # of the synthetic search below, on average: 703 steps make ~100k events
TARGET_STEP_S = 0.010

# ---------------------------------------------------------------------------------------------------- timing helpers

def load() -> str:
    "The 1, 5 and 15 minute load averages, and the core count."
    return "load avg {:.2f} {:.2f} {:.2f} on {} cores".format(*os.getloadavg(), os.cpu_count())

def measure(fn, runs: int, warmup: int = 1) -> dict:
    "Time `fn()`: `warmup` untimed calls, then `runs` timed ones (wall and CPU time); an exception is recorded, not raised."
    gc.collect()  # start from a clean collector (garbage of earlier sections would be collected on our time)
    try:
        for _ in range(warmup): fn()
        times, cpu = [], []
        for _ in range(runs):
            start, start_cpu = time.perf_counter(), time.process_time()
            fn()
            times.append(time.perf_counter() - start); cpu.append(time.process_time() - start_cpu)
    except Exception as e:
        return dict(runs=0, median=float("nan"), min=float("nan"), cpu=float("nan"), error=f"{type(e).__name__}: {str(e)[:200]}")
    return dict(runs=runs, median=statistics.median(times), min=min(times), cpu=statistics.median(cpu), error=None)

FRESH_RESUME = """
import sys, time
started = time.perf_counter()
from gpu_forecasters.search.events import FileEventLog
from gpu_forecasters.search.driver import replay
t0, c0 = time.perf_counter(), time.process_time()
log = FileEventLog(sys.argv[1], fsync=False)
events = log.open()  # what `SearchDriver.run` does first: take the lock, decode every line
t1, c1 = time.perf_counter(), time.process_time()
replay(events, sys.argv[1])  # then `_start`: the verified replay
t2, c2 = time.perf_counter(), time.process_time()
log.close()
print(t1 - t0, c1 - c0, t2 - t1, c2 - c1, t2 - t0, c2 - c0, t0 - started)
"""

def measure_fresh_resumes(path: Path, runs: int) -> dict:
    "The decode, the verified replay, both (the resume) and the imports, each timed in `runs` fresh interpreters."
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(gpu_forecasters.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
    rows = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", FRESH_RESUME, str(path)], capture_output=True, text=True, env=env)
        if done.returncode:
            failed = dict(runs=0, median=float("nan"), min=float("nan"), cpu=float("nan"), error=done.stderr.strip()[-200:])
            return dict(decode=failed, replay=failed, resume=failed, imports=failed)
        rows.append([float(x) for x in done.stdout.split()])
    def stats(wall: int, cpu: int | None) -> dict:
        return dict(runs=runs, median=statistics.median(r[wall] for r in rows), min=min(r[wall] for r in rows),
                    cpu=statistics.median(r[cpu] for r in rows) if cpu is not None else float("nan"), error=None,
                    walls=[r[wall] for r in rows])
    return dict(decode=stats(0, 1), replay=stats(2, 3), resume=stats(4, 5), imports=stats(6, None))

def fmt_time(seconds: float) -> str:
    if not math.isfinite(seconds): return "–"
    if seconds < 1e-3: return f"{seconds * 1e6:.0f} µs"
    if seconds < 1: return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"

def show(name: str, t: dict, width: int = 52, per: int | None = None) -> None:
    "One timing line (wall median and minimum, CPU median); with `per`, also rates in items/s (median, and the CPU median's)."
    if t["error"]: print(f"  {name:<{width}} FAILED: {t['error']}"); return
    rate = ""
    if per:
        cpu_rate = f"cpu {per / t['cpu']:,.0f}/s" if math.isfinite(t["cpu"]) else "cpu –"
        rate = f"  {per / t['median']:>8,.0f}/s ({cpu_rate})"
    print(f"  {name:<{width}} median {fmt_time(t['median']):>9}  min {fmt_time(t['min']):>9}  cpu {fmt_time(t['cpu']):>9}"
          f"  ({t['runs']} runs){rate}")

def profile_top(fn, top: int = 15) -> None:
    "Print the functions with the most own time (tottime) in one profiled call of `fn`."
    profiler = cProfile.Profile()
    profiler.enable()
    try: fn()
    finally: profiler.disable()
    stats = pstats.Stats(profiler)
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    print(f"  {'own time':>9} {'cumul.':>9} {'calls':>8}  function")
    for (path, line, name), (_, ncalls, own, cumulative, _) in rows:
        where = f"{os.path.basename(path)}:{line}({name})" if line else name
        print(f"  {fmt_time(own):>9} {fmt_time(cumulative):>9} {ncalls:>8}  {where}")

# -------------------------------------------------------------------------------------------------- the synthetic log

GENOME = 256  # bits of the toy genome inside each kernel
CONFIG = {  # a full config in the search config's schema (so a driver can read it), paper's surrogate_filtered preset
    "preset": None, "mode": "surrogate_filtered", "seed": 0,
    "problem": {"kind": "toy", "length": GENOME, "objective": "onemax", "octaves": 3, "noise": 0.02, "seed_code": None},
    "reward": {"kind": "speedup"},
    "search": {"batch_size": 2, "samples_per_parent": 16, "eval_per_parent": 4, "archive_top_k": 4, "archive_capacity": 1000,
               "c_puct": 1.0, "pad_blocked_batch": False, "dedup_before_evaluation": True,
               "surrogate_failure_counts_as_failed_rollout": False, "provider_outage_steps": 3},
    "selection": {"rule": "expected_bin", "threshold": None, "anchor": "seed"},
    "budgets": {"max_steps": 700, "max_evaluations": None, "max_gpu_seconds": None, "max_llm_tokens": None,
                "max_llm_cost_usd": None, "target_reward": None},
    "timeouts": {"mutation_s": 900, "forecast_s": 900, "evaluation_s": 1400, "grace_s": 30, "seed_evaluation_attempts": 3},
    "concurrency": {"mutator": 8, "surrogate": 8, "evaluator": 8, "executor": "inline"},
    "mutator": {"kind": "toy", "flips": 2, "fail_rate": 0.04, "invalid_rate": 0.03},
    "surrogate": {"kind": "toy_oracle", "accuracy": 0.6, "peak": 0.7, "fail_rate": 0.03},
    "evaluator": {"kind": "toy", "gpu_seconds_per_eval": 1.0},
    "log": {"fsync": True},
}
VERSIONS = RunVersions(package=gpu_forecasters.__version__, python=platform.python_version(), numpy="2", litellm=None,
                       code_hash_scheme=puct.CODE_HASH_SCHEME)
PRICES = {"gemini/gemini-3-flash-preview": (0.5e-6, 3e-6), "gpt-oss-20b": (0.1e-6, 0.5e-6)}  # USD per input, output token
REASONING = ("The candidate fuses the two elementwise passes into one Triton kernel and keeps the accumulators in "
             "fp32; the tiling matches the reference's block shape, so most of the gain comes from the saved global "
             "memory round trip. Register pressure may limit occupancy on the larger cases. ") * 2

def kernel_code(bits: str, rid: str) -> str:
    "A ~2 kB kernel-like program holding the genome (the docstring names the request, so hashes ignore it)."
    body = "\n".join(f"    acc_{i} = tl.load(ptr + offs * {i + 1}, mask=mask, other=0.0)  # stage {i}" for i in range(18))
    return (f'"""Candidate {rid}: fused elementwise kernel."""\nimport torch\nimport triton\nimport triton.language as tl\n\n'
            f'GENOME = "{bits}"\n\n@triton.jit\ndef _kernel(ptr, out, n, BLOCK: tl.constexpr):\n'
            f'    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n    mask = offs < n\n{body}\n'
            f'    tl.store(out + offs, acc_0, mask=mask)\n\ndef custom_kernel(data):\n    x, = data\n'
            f'    out = torch.empty_like(x)\n    _kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)\n'
            f'    return out\n')

class LogBuilder:
    "A scripted surrogate_filtered driver: makes valid decisions from the state and applies every event it logs."
    def __init__(self, seed: int = 0, max_steps: int = 700):
        self.config = {**CONFIG, "budgets": {**CONFIG["budgets"], "max_steps": max_steps}}
        self.rng = random.Random(seed)
        self.problem = ToyProblem(GENOME, "onemax", 3, noise=0.02)
        self.oracle = NoisyOracleSurrogate(self.problem, seed, accuracy=0.6, peak=0.7, fail_rate=0.03)
        self.seed = seed
        self.bits = {"seed": "0" * GENOME}  # request id -> genome
        self.events, self.state, self.clock = [], ev.SearchState(), 1_780_000_000.0

    def at(self) -> str:
        self.clock += self.rng.uniform(0.001, 2.0)
        t = time.gmtime(self.clock)
        return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{int(self.clock % 1 * 1e6):06d}Z"

    def log(self, e):
        e = e.model_copy(update={"at": self.at()})
        self.state = apply_event(self.state, e)
        self.events.append(e)

    def usage(self, model: str, input_tokens: int, output_tokens: int) -> Usage:
        "A priced LLM call whose token counts vary, as real ones do (so costs are distinct floats)."
        i, o = self.rng.randint(input_tokens // 2, input_tokens * 2), self.rng.randint(output_tokens // 2, output_tokens * 2)
        return Usage(model=model, input_tokens=i, output_tokens=o, cost_usd=i * PRICES[model][0] + o * PRICES[model][1])

    def evaluation(self, bits: str, rid: str) -> dict:
        "The toy `Evaluation` JSON, with the feedback (for the mutator's prompt) a real evaluator attaches."
        reward = self.problem.observed_reward(bits, self.seed, rid)
        d = toy_evaluation(self.problem, bits, reward).to_json()
        d["feedback"] = ({"kind": "success", "aggregated_speedup": reward, "aggregation_method": "geomean",
                          "per_case_lines": [f"toy: speedup {reward:.3f}"]} if reward is not None else
                         {"kind": "compile_failed", "message": self.problem.problem_in(bits)})
        return d

    def start(self):
        seed_bits = self.bits["seed"]
        self.log(SearchInitialized(run_id="bench", config=self.config, config_hash="bench", versions=VERSIONS,
                                   environment=RunEnvironment(gpu_name="toy"), providers={"mutator": {"kind": "toy"}},
                                   seed_code=kernel_code(seed_bits, "seed"), seed_code_hash=normalized_code_hash(kernel_code(seed_bits, "seed"))))
        self.log(SeedEvaluationRequested(attempt=1))
        self.log(SeedEvaluationCompleted(evaluation=self.evaluation(seed_bits, "seed"), latency_s=3.2))

    def child_bits(self, parent: str, siblings: list[str]) -> str | None:
        "The child's genome, or None for a failed mutation."
        rng = self.rng
        u = rng.random()
        if u < 0.04: return None
        if u < 0.09: return self.bits[parent]  # the LLM returned the parent: a known duplicate
        if u < 0.13 and siblings: return self.bits[rng.choice(siblings)]  # the same edit as a sibling
        bits = list(self.bits[parent])
        for i in (rng.randrange(GENOME) for _ in range(2)): bits[i] = "1" if bits[i] == "0" else "0"
        if rng.random() < 0.03: bits[rng.randrange(GENOME)] = "x"  # does not compile
        return "".join(bits)

    def step(self, resume: bool):
        st, p = self.state, self.state.params
        s = st.current_step
        picks = select_parents(st.archive, st.stats, p.batch_size, p.c_puct, p.pad_blocked_batch)
        scores = {sc.kernel_id: sc for sc in puct_scores(st.archive, st.stats, p.c_puct)}
        parents = [ParentEntry(kernel_id=pk.kernel_id, score=pk.score, q=scores[pk.kernel_id].q, prior=scores[pk.kernel_id].prior,
                               visits=st.stats.visits.get(pk.kernel_id, 0), padded=pk.padded) for pk in picks]
        self.log(StepStarted(step=s, parents=parents, scale=global_scale([n.reward for n in st.archive], [n.is_seed for n in st.archive]),
                             expansions=st.stats.expansions, best_reward=st.archive_best_reward))
        ids = [[request_id(s, pi, slot) for slot in range(p.samples_per_parent)] for pi in range(len(picks))]
        for pi, pk in enumerate(picks):
            for slot, rid in enumerate(ids[pi]): self.log(MutationRequested(step=s, request_id=rid, parent_id=pk.kernel_id, slot=slot))
        if resume:
            self.log(RunResumed(versions=VERSIONS))
            self.log(RequestRedispatched(step=s, request_id=ids[0][0], call="mutation"))
        for pi, pk in enumerate(picks):
            done = []
            for rid in ids[pi]:
                bits = self.child_bits(pk.kernel_id, done)
                if bits is None:
                    self.log(MutationFailed(step=s, request_id=rid, error_kind="provider_error", reason="RateLimitError: 429",
                                            usage=None, latency_s=31.0))
                    continue
                self.bits[rid] = bits
                done.append(rid)
                code = kernel_code(bits, rid)
                self.log(MutationCompleted(step=s, request_id=rid, code=code, code_hash=normalized_code_hash(code),
                                           usage=self.usage("gemini/gemini-3-flash-preview", 3_000, 2_500), latency_s=42.0))
        duplicates = set()
        for pi in range(len(picks)):  # the driver settles every duplicate before it dispatches anything else
            for rid in ids[pi]:
                verdict = dedup_verdict(self.state, rid) if rid in self.bits else None
                if verdict is not None:
                    self.log(CandidateDeduplicated(step=s, request_id=rid, source=verdict.source, duplicate_of=verdict.duplicate_of,
                                                   reused_reward=verdict.reused_reward))
                    duplicates.add(rid)
        for pi, pk in enumerate(picks):
            forecast = []
            for slot, rid in enumerate(ids[pi]):
                if rid not in self.bits or rid in duplicates: continue
                self.log(ForecastRequested(step=s, request_id=rid, anchor_id="seed"))
                drawn = self.oracle.probabilities(self.bits["seed"], self.bits[rid])
                if drawn is None:
                    self.log(ForecastFailed(step=s, request_id=rid, error_kind="provider_error", reason="transport: 503",
                                            usage=None, latency_s=12.0))
                    continue
                top, probs = drawn
                record = {"predicted_bin": top, "bin_probabilities": [{"bin": b, "p": q} for b, q in zip(range(1, N_BINS + 1), probs)],
                          "reasoning": REASONING, "raw_probability_sum": 1.0, "parse_failed": False, "parse_error": None, "argmax_bin": top}
                self.log(ForecastCompleted(step=s, request_id=rid, forecast=record, usage=self.usage("gpt-oss-20b", 4_000, 900), latency_s=9.5))
                forecast.append((-math.fsum(b * q for b, q in zip(range(1, N_BINS + 1), probs)), slot, rid))
            if not forecast: continue
            forecast.sort()
            selected, deferred = forecast[:p.eval_per_parent], forecast[p.eval_per_parent:]
            self.log(SelectionMade(step=s, parent_id=pk.kernel_id, rule="expected_bin", threshold=None, anchor_id="seed",
                                   selected=[SelectedEntry(request_id=r, score=-sc) for sc, _, r in selected],
                                   deferred=[DeferredEntry(request_id=r, score=-sc, why="rank") for sc, _, r in deferred]))
            for _, _, rid in selected:
                self.log(EvaluationRequested(step=s, request_id=rid))
                if self.rng.random() < 0.02:
                    self.log(EvaluationFailed(step=s, request_id=rid, error_kind="timeout", reason="no result in 1430 s", latency_s=1430.0))
                else:
                    self.log(EvaluationCompleted(step=s, request_id=rid, evaluation=self.evaluation(self.bits[rid], rid), latency_s=95.0))
        fence = compute_fence(self.state)
        self.log(StepCompleted(step=s, admitted=fence.admission.admitted, evicted=fence.admission.evicted))

    def run(self):
        "Every step up to `budgets.max_steps`, then `search_stopped(steps)`, as the driver would log them."
        self.start()
        boundaries = []  # (event index, archive size) after each step_completed
        while self.state.current_step < self.state.params.max_steps:
            self.step(resume=self.state.current_step % 50 == 49)
            boundaries.append((len(self.events), len(self.state.archive)))
        self.log(SearchStopped(reason="steps"))
        return boundaries

def build_log(n_events: int, seed: int, path: Path) -> dict:
    print(f"\n1. BUILDING a ~{n_events:,}-event surrogate_filtered log ({load()})")
    started = time.perf_counter()
    builder = LogBuilder(seed, max_steps=max(1, round(n_events / EVENTS_PER_STEP)))
    boundaries = builder.run()
    built_s = time.perf_counter() - started
    data = b"".join(encode_event(e) for e in builder.events)
    path.write_bytes(data)
    events, state = builder.events, builder.state
    kinds = Counter(e.kind for e in events)
    full_at = next((i for i, (_, size) in enumerate(boundaries) if size >= 1000), None)
    print(f"  {len(events):,} events, {len(data) / 1e6:.1f} MB ({len(data) / len(events):.0f} bytes/event) in {path}; "
          f"built in {built_s:.1f} s (scripted driver + reducer)")
    print(f"  {state.current_step} steps; archive {len(state.archive):,} nodes (capacity reached after step "
          f"{full_at if full_at is not None else '–'}); best reward {state.best[0]:.3f}; "
          f"max lineage depth {max(len(n.ancestors) for n in state.archive)}")
    c = state.counters
    print(f"  mutations {c.mutations_requested:,} ({c.mutation_failures:,} failed), forecasts {c.forecasts_completed:,} "
          f"({c.forecast_failures:,} failed), evaluations {c.evaluations_paid:,} ({c.evaluation_failures:,} failed, "
          f"{c.evaluations_unsuccessful:,} compile failures), duplicates {c.duplicates_known:,} known + "
          f"{c.duplicates_sibling:,} sibling, deferred {c.deferred_rank:,}")
    print("  events by kind: " + ", ".join(f"{k} {n:,}" for k, n in kinds.most_common()))
    # the state of the last step boundary (archive at capacity) and the events of the last step
    last_start = max(i for i, e in enumerate(events) if e.kind == "step_started")
    return dict(events=events, state=state, path=path, bytes=len(data), boundary_index=last_start)

# -------------------------------------------------------------------------------------------------------- sections

def bench_replay(log: dict, runs: int, fresh_runs: int, profile: bool) -> dict:
    path, n = log["path"], len(log["events"])
    print(f"\n2. REPLAY of {n:,} events, {log['bytes'] / 1e6:.1f} MB ({load()})")
    decoded = read_events(path)
    assert decoded == log["events"], "read_events does not give back the logged events"
    assert fold(decoded) == log["state"], "fold of the log differs from the state the builder reached"
    log["events"] = decoded  # one copy of the log in memory from here on, as in a resuming driver
    out = {"decode": measure(lambda: read_events(path), runs),
           "fold": measure(lambda: fold(decoded), runs),
           "both": measure(lambda: fold(read_events(path)), runs)}
    show("(a) read_events (decode)", out["decode"], per=n)
    show("(b) fold (reducer)", out["fold"], per=n)
    show("(c) fold(read_events(path)) (replay end to end)", out["both"], per=n)
    if replay is None: print(f"  (d) driver.replay (verified): driver not built yet ({DRIVER_MISSING})")
    else:
        out["replay"] = measure(lambda: replay(decoded), max(3, runs // 2))
        show("(d) driver.replay (verified: fold + decide checks)", out["replay"], per=n)
        fresh = measure_fresh_resumes(path, fresh_runs)
        out["fresh_decode"], out["fresh_replay"], out["fresh_resume"] = fresh["decode"], fresh["replay"], fresh["resume"]
        out["fresh_imports"] = fresh["imports"]
        print(f"  (e) a resume, each run a fresh process ({load()}):")
        show("    FileEventLog.open (decode)", out["fresh_decode"], per=n)
        show("    driver.replay (verified)", out["fresh_replay"], per=n)
        show("    the whole resume: open + replay", out["fresh_resume"], per=n)
        if not out["fresh_resume"]["error"]:
            print("    whole resume per run: " + ", ".join(f"{w:.2f} s ({n / w:,.0f}/s)" for w in out["fresh_resume"]["walls"]))
        show("    (before it: the imports, not in the target)", out["fresh_imports"])
    if profile:
        print("  profile of read_events:"); profile_top(lambda: read_events(path))
        print("  profile of fold:"); profile_top(lambda: fold(decoded))
        if replay is not None: print("  profile of driver.replay:"); profile_top(lambda: replay(decoded))
    out["n"] = n
    return out

def bench_decision(log: dict, runs: int) -> dict:
    events, i0 = log["events"], log["boundary_index"]
    boundary = fold(events[:i0])  # just before the last step_started: archive at capacity
    step_events = events[i0:next(i for i in range(i0, len(events)) if events[i].kind == "step_completed") + 1]
    before_fence = fold(step_events[:-1], boundary)
    open_state = apply_event(boundary, step_events[0])
    p, nodes, stats = boundary.params, boundary.archive, boundary.stats
    print(f"\n3. DECISION OVERHEAD at archive {len(nodes):,} (step {boundary.current_step}, T {stats.expansions:,}, "
          f"{len(step_events):,} events in the step; {load()})")
    fence = compute_fence(before_fence)
    groups = [(pid, [puct.Child(c.request_id, c.code, c.code_hash, c.reward, c.step)
                     for c in ev.parent_candidates(before_fence.open_step, pi) if c.status == "evaluated"])
              for pi, pid in enumerate(before_fence.open_step.parent_ids)]
    out = {
        "select": measure(lambda: select_parents(nodes, stats, p.batch_size, p.c_puct, p.pad_blocked_batch), runs),
        "scores": measure(lambda: puct_scores(nodes, stats, p.c_puct), runs),
        "fence": measure(lambda: compute_fence(before_fence), runs),
        "admit": measure(lambda: admit_children(nodes, groups, p.archive_top_k, p.archive_capacity, p.admission_policy), runs),
        "backprop": measure(lambda: backpropagate(stats, nodes, fence.outcomes), runs),
        "apply_start": measure(lambda: apply_event(boundary, step_events[0]), runs),
        "apply_fence": measure(lambda: apply_event(before_fence, step_events[-1]), runs),
        "apply_mid": measure(lambda: fold(step_events[1:-1], open_state), max(3, runs // 4)),
    }
    show("select_parents (batch 2, 1,000 nodes)", out["select"])
    show("  of which puct_scores", out["scores"])
    show("compute_fence (backprop + admission + cache)", out["fence"])
    show("  admit_children alone", out["admit"])
    show("  backpropagate alone", out["backprop"])
    show("apply_event(step_started)", out["apply_start"])
    show("apply_event(step_completed) (recomputes the fence)", out["apply_fence"])
    show(f"apply_event of the step's other {len(step_events) - 2} events", out["apply_mid"])
    out["per_step"] = {k: sum(out[x][k] for x in ("select", "fence", "apply_start", "apply_fence")) for k in ("median", "min", "cpu")}
    out["per_step"]["error"] = next((out[x]["error"] for x in ("select", "fence", "apply_start", "apply_fence") if out[x]["error"]), None)
    out["per_step"]["runs"] = runs
    show("per step: select + fence + the two boundary applies", out["per_step"])
    if decide is None:
        print(f"  decide(state): driver not built yet ({DRIVER_MISSING})")
    else:
        states, s = [boundary], boundary
        for e in step_events[:-1]:
            s = apply_event(s, e); states.append(s)
        out["decide"] = measure(lambda: decide(boundary), runs)
        out["decide_step"] = measure(lambda: [decide(x) for x in states], max(3, runs // 4))
        show("decide(state) at the step boundary", out["decide"])
        show(f"decide over the step's {len(states)} states", out["decide_step"])
        t = out["decide_step"]
        out["decide_mean"] = {**t, **{k: t[k] / len(states) for k in ("median", "min", "cpu")}}
        show("  = per decide call, on average", out["decide_mean"])
    return out

# -------------------------------------------------------------------------------------------------------- summary

def verdict(ok) -> str: return "n/a" if ok is None else "MET" if ok else "MISSED"

def summary(replay: dict, decision: dict, quick: bool) -> None:
    print(f"\nSUMMARY ({load()})")
    n, lines = replay["n"], []
    def rate(name, t, target=False):
        "A rate line: its median (wall) and CPU rates; a verdict only for the target."
        if t is None: lines.append((name, "", "driver not built yet", "", "n/a" if target else "")); return
        ok = None if t["error"] or not target else n / t["median"] >= TARGET_EVENTS_PER_S
        shown = ("FAILED", "") if t["error"] else (f"{n / t['median']:,.0f}/s", f"{n / t['cpu']:,.0f}/s")
        lines.append((name, f">= {TARGET_EVENTS_PER_S:,}/s" if target else "(part)", *shown, verdict(ok) if target else ""))
    def limit(name, t, goal=TARGET_STEP_S):
        target = f"< {fmt_time(goal)}" if goal else "(part)"
        if t is None: lines.append((name, target, "driver not built yet", "", "n/a" if goal else "")); return
        ok = None if t["error"] else t["median"] < goal if goal else None
        shown = ("FAILED", "") if t["error"] else (fmt_time(t["median"]), fmt_time(t["cpu"]))
        lines.append((name, target, *shown, verdict(ok) if goal else ""))
    resume = replay.get("fresh_resume")
    runs = f"{resume['runs']} fresh processes" if resume and not resume["error"] else "fresh processes"
    rate(f"a resume ({n:,} events): open + verified replay, median of {runs}", resume, target=True)
    rate("  the decode (FileEventLog.open), fresh", replay.get("fresh_decode"))
    rate("  the verified replay, fresh", replay.get("fresh_replay"))
    rate("  driver.replay, repeated in one process", replay.get("replay"))
    rate("  fold (the reducer alone), repeated", replay["fold"])
    rate("  read_events + fold (a reader), repeated", replay["both"])
    rate("  read_events alone, repeated", replay["decode"])
    limit("decision per step, archive 1,000 (engine)", decision["per_step"])
    limit("  select_parents", decision["select"], goal=None)
    limit("  compute_fence", decision["fence"], goal=None)
    limit("decide(state) at a step boundary, archive 1,000", decision.get("decide"))
    limit("decide(state), mean over one step's states", decision.get("decide_mean"))
    width = max(len(l[0]) for l in lines)
    print(f"  {'measure':<{width}}  {'target':>13}  {'median':>20}  {'cpu':>10}  verdict")
    for name, goal, value, cpu, v in lines:
        print(f"  {name:<{width}}  {goal:>13}  {value:>20}  {cpu:>10}  {v}")
    print("  (median: wall-clock median over the runs; cpu: the median CPU time of the process, which leaves out waiting")
    print("  for a core: a CPU rate well above the median rate means the machine was busy, not that the code is slow)")
    imports = replay.get("fresh_imports")
    if imports and not imports["error"]:
        print(f"  a resume also waits for the interpreter's imports: {fmt_time(imports['median'])} (median), not in the target")
    if quick: print("  --quick: fewer repeats and a smaller log (the resume target is for 100k events)")

def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, a 20k-event log")
    parser.add_argument("--events", type=int, default=None, help="log size (default 100,000; 20,000 with --quick)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic search (default 0)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of read_events, fold and driver.replay")
    parser.add_argument("--fresh-runs", type=int, default=None, help="fresh-process resumes to take the median of (default 5; 3 with --quick)")
    args = parser.parse_args(argv)
    q = args.quick
    n_events = args.events or (20_000 if q else 100_000)
    print(f"bench/search_engine.py: gpu_forecasters {gpu_forecasters.__version__}, Python {platform.python_version()}; "
          f"seed {args.seed}{', --quick' if q else ''}\n{load()}; medians over the runs shown, after warm-up")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        log = build_log(n_events, args.seed, Path(tmp) / "events.jsonl")
        replay = bench_replay(log, runs=3 if q else 7, fresh_runs=args.fresh_runs or (3 if q else 5), profile=args.profile)
        decision = bench_decision(log, runs=11 if q else 41)
    summary(replay, decision, q)
    print(f"  total wall time {time.perf_counter() - started:.0f} s")

if __name__ == "__main__":
    main()
