"""Benchmark of `gpu_forecasters.metrics`: prints numbers, asserts nothing about time (it is not a test).

What is measured (each timing: warm-up call(s) first, then the median and the minimum of several runs):

1. **Full suite** on synthetic arrays of 8,904 and 1,000,000 rows: `evaluate_rows(rows)` (populations "all" and
   "parsed"), every metric once per population, on rows built with `SurrogateRows.from_arrays`
   (seeded Dirichlet forecasts concentrated near the truth, ~5% failure rows, 6 packs with one anchor each, so pools
   are packs). Then a breakdown: the metric families timed one by one on population "all" (per-row quantities, proper
   scores, ECEs, rank correlations, selective, top-10% ratio) and the top functions of a cProfile run.
2. **Published size, end to end**: a synthetic table shaped like the published predictions (7 surrogates × 3 repeats
   × 424 eval rows, 385 distinct comparison ids incl. 39 duplicate eval rows, published schemas):
   `ForecastTable.build`, then `compute_metrics(table, n_bootstrap=0)` and `compute_metrics(table, n_bootstrap=1000)`.
3. **vs scoringrules** on the same arrays (8,904 and 1e6 rows, 8 bins): `metrics.rps` vs `scoringrules.rps_score`
   (one-hot observations), the binary faster-Brier vs `scoringrules.brier_score`, and `half_brier` / `nll` for
   reference. Each pair is timed from the same (P, y), each side building the inputs its API needs (the headline
   ratio), and on prebuilt inputs. Values must agree to 1e-12 (asserted); times are only printed, as ratios
   ours / scoringrules.

4. **Scale with the bootstrap**: `compute_metrics(table, n_bootstrap=1000)` on one synthetic surrogate of 1e4, 1e5
   and 1e6 rows (the rows of section 1, one repeat), each measurement in a fresh subprocess, so that its peak memory
   (VmHWM, the whole process, data included) is its own: wall time of the call and peak memory, median over the runs.
   Peer in the same run: the same call with `ties="per_sample"` (the earlier tie convention: tied confidences
   in the order of the comparison ids), and `n_bootstrap=0` for the cost of the CIs. 1e4 rows use the exact bootstrap
   (in chunks), 1e5 and 1e6 the bag of little bootstraps (`metrics.bootstrap_plan`). The previous implementation
   needed about 170 bytes per resample x row (2 GB at 1e4 rows, out of reach at 1e5) and 25 s at 1e6 rows with no
   bootstrap at all.
5. **Tie order**: on LLM-like forecasts (424 rows, probabilities in steps of 0.1, 5% failures) the spread of
   `aurc.bin_error.max_prob` over 30 re-drawn sets of comparison ids, per sample and with tied confidences as one
   threshold (the default: 0 by construction).

The breakdown of section 1 calls private helpers of `metrics` (`_quantities`, `_selective`, ...), following
`metrics._evaluate`; if they change, the breakdown reports FAILED and the rest still runs. The per-row quantities and
their cached derivatives are computed once per `evaluate_rows` call; the other pieces run once per population.

A summary table at the end lists the targets of the issue and whether each is met. The machine load
(`os.getloadavg`) is printed at the start of each section and in the summary: other processes may share the cores,
and the bootstrap's matrix products use a multi-threaded BLAS, so timings under load vary a lot.

Run from the repository root:

    .venv/bin/python bench/metrics.py            # full run (several minutes)
    .venv/bin/python bench/metrics.py --quick    # fewer repeats, no 1e6-row measurements
    .venv/bin/python bench/metrics.py --seed 1   # other synthetic data
    .venv/bin/python bench/metrics.py --only scale ties   # some sections (suite, published, scoringrules, scale, ties)
"""
import argparse, cProfile, json, os, platform, pstats, statistics, subprocess, sys, time

import numpy as np
import pandas as pd
import scoringrules

import gpu_forecasters
from gpu_forecasters import metrics
from gpu_forecasters.bins import bins_of
from gpu_forecasters.data import PUBLISHED_SURROGATES, normalise_df, predictions_frame

PACKS = ("cross_entropy", "fp8_quant", "gdn_chunk_fwd_h", "gdn_chunk_fwd_o", "gdn_recompute_w_u", "trimul")
PUBLISHED_PACK_ROWS = (79, 57, 73, 72, 72, 71)  # eval rows per pack: 424 in all
PUBLISHED_DUPLICATES = 39  # eval rows repeating an earlier comparison_id: 385 distinct ids
PUBLISHED_REPEATS = 3
FAILURE_RATE = 0.05
N_SMALL, N_LARGE = 8_904, 1_000_000
SECTIONS = ("suite", "published", "scoringrules", "scale", "ties")

# ---------------------------------------------------------------------------------------------------- timing helpers

def load() -> str:
    "The 1, 5 and 15 minute load averages, and the core count."
    return "load avg {:.2f} {:.2f} {:.2f} on {} cores".format(*os.getloadavg(), os.cpu_count())

def blas_threads() -> str:
    "The thread settings of the BLAS behind the bootstrap's matrix products (unset: one thread per core)."
    names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    return "BLAS threads: " + ", ".join(f"{k}={os.environ.get(k, 'unset')}" for k in names)

def measure(fn, runs: int, warmup: int = 1) -> dict:
    "Time `fn()`: `warmup` untimed calls, then `runs` timed ones; an exception is recorded, not raised."
    try:
        for _ in range(warmup): fn()
        times = []
        for _ in range(runs):
            start = time.perf_counter(); fn(); times.append(time.perf_counter() - start)
    except Exception as e:  # e.g. MemoryError: reported in the output and the summary
        return dict(runs=0, median=float("nan"), min=float("nan"), error=f"{type(e).__name__}: {str(e)[:160]}")
    return dict(runs=runs, median=statistics.median(times), min=min(times), error=None)

def fmt_time(seconds: float) -> str:
    if not np.isfinite(seconds): return "–"
    if seconds < 1e-3: return f"{seconds * 1e6:.0f} µs"
    if seconds < 1: return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"

def show(name: str, t: dict, width: int = 46) -> None:
    if t["error"]: print(f"  {name:<{width}} FAILED: {t['error']}")
    else: print(f"  {name:<{width}} median {fmt_time(t['median']):>9}  min {fmt_time(t['min']):>9}  ({t['runs']} runs)")

def profile_top(fn, top: int = 12) -> None:
    "Print the functions with the most own time (tottime) in one profiled call of `fn`."
    profiler = cProfile.Profile()
    profiler.enable()
    try: fn()
    except Exception as e: print(f"  (the profiled call raised {type(e).__name__}; the profile covers the work before it)")
    finally: profiler.disable()
    stats = pstats.Stats(profiler)
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]  # (file, line, name) -> (cc, nc, tt, ct, callers)
    print(f"  {'own time':>9} {'cumul.':>9} {'calls':>6}  function")
    for (path, line, name), (_, ncalls, own, cumulative, _) in rows:
        where = f"{os.path.basename(path)}:{line}({name})" if line else name
        print(f"  {fmt_time(own):>9} {fmt_time(cumulative):>9} {ncalls:>6}  {where}")

# -------------------------------------------------------------------------------------------------- synthetic data

def anchor_hex(pack: str) -> str:
    "One anchor per pack, so every pack is one pool."
    return f"{PACKS.index(pack) + 1:012x}"

def candidate_hex(n: int, rng) -> list[str]:
    "n distinct 12-hex-digit candidate hashes (a seeded bijection of 0..n-1 onto 48-bit integers)."
    codes = (rng.permutation(n).astype(np.uint64) * np.uint64(0x9E3779B97F4B) + np.uint64(12345)) % np.uint64(2 ** 48)
    return [f"{c:012x}" for c in codes.tolist()]

def truth(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    "Measured speedups (log2 S ~ N(0.3, 1)) and their true bins."
    speedup = 2.0 ** rng.normal(0.3, 1.0, size=n)
    return speedup, bins_of(speedup)

def forecasts(y: np.ndarray, rng, sharpness: float = 4.0) -> np.ndarray:
    "Dirichlet forecasts concentrated near the truth (the peak is the true bin, or one off 40% of the time)."
    centre = np.clip(y + rng.choice([-1, 0, 1], size=len(y), p=[0.2, 0.6, 0.2]), 1, 8)
    alpha = 0.3 + sharpness * np.exp(-np.abs(np.arange(1, 9)[None, :] - centre[:, None]))
    draws = rng.gamma(alpha)
    return draws / draws.sum(axis=1, keepdims=True)

def stated_bins(P: np.ndarray, rng, disagree: float = 0.02) -> np.ndarray:
    "The argmax bin, replaced by the second most likely bin on a few rows (so disagreement_rate is not 0)."
    ranked = np.argsort(-P, axis=1) + 1
    return np.where(rng.uniform(size=len(P)) < disagree, ranked[:, 1], ranked[:, 0])

def synthetic_rows(n: int, seed: int) -> metrics.SurrogateRows:
    "n rows in 6 packs (one anchor each), ~5% failures (NaN rows of P), ids `{pack}/{12 hex}__{12 hex}`."
    rng = np.random.default_rng(seed)
    speedup, y = truth(n, rng)
    P = forecasts(y, rng)
    stated = stated_bins(P, rng)
    P[rng.uniform(size=n) < FAILURE_RATE] = np.nan
    pack = np.array(PACKS)[rng.integers(0, len(PACKS), size=n)]
    ids = [f"{p}/{anchor_hex(p)}__{c}" for p, c in zip(pack.tolist(), candidate_hex(n, rng))]
    return metrics.SurrogateRows.from_arrays(P, y, speedup, stated=stated, comparison_id=ids, pack=pack, label=f"synthetic_{n}")

def published_eval_rows(rng) -> pd.DataFrame:
    "424 eval rows in the published schema: 385 distinct ids, 39 rows repeating an id of their pack (same bin)."
    pack = np.repeat(PACKS, PUBLISHED_PACK_ROWS)
    n = len(pack)
    speedup, y = truth(n, rng)
    ids = np.array([f"{p}/{anchor_hex(p)}__{c}" for p, c in zip(pack.tolist(), candidate_hex(n, rng))], dtype=object)
    duplicate = np.zeros(n, bool); duplicate[rng.choice(n, PUBLISHED_DUPLICATES, replace=False)] = True
    for i in np.flatnonzero(duplicate):
        original = rng.choice(np.flatnonzero((pack == pack[i]) & ~duplicate))
        jittered = speedup[original] * 2.0 ** rng.normal(0, 0.02)  # a re-measurement; kept only if the bin agrees
        ids[i], y[i] = ids[original], y[original]
        speedup[i] = jittered if bins_of([jittered])[0] == y[original] else speedup[original]
    assert len(set(ids)) == n - PUBLISHED_DUPLICATES
    raw = pd.DataFrame(dict(comparison_id=ids, pack=pack, anchor_code="def ref(x): return x\n",
                            candidate_code=[f"# {c}\n" for c in ids], hardware="NVIDIA A100-SXM4-80GB",
                            aggregated_speedup=speedup, true_bin=y, source_id="bench", source_search="bench",
                            internal_experiment="bench"))
    return normalise_df(raw, "eval_set", source="bench:eval_set")

def published_prediction_rows(eval_rows: pd.DataFrame, rng) -> pd.DataFrame:
    "7 surrogates × 3 repeats × one prediction per eval row (8,904 rows), published schema plus extras."
    y = eval_rows["true_bin"].to_numpy()
    records = []
    for k, label in enumerate(PUBLISHED_SURROGATES):
        failure_rate = 0.02 + 0.01 * k  # 2%..8%: the surrogates differ, ~5% overall
        for repeat in range(PUBLISHED_REPEATS):
            P = forecasts(y, rng, sharpness=2.0 + k)
            stated = stated_bins(P, rng)
            failed = rng.uniform(size=len(y)) < failure_rate
            for cid, pack, p, b, bad in zip(eval_rows["comparison_id"], eval_rows["pack"], P.tolist(), stated.tolist(), failed):
                records.append(dict(
                    comparison_id=cid, pack=pack, surrogate_label=label, repeat=repeat,
                    predicted_bin=None if bad else b,
                    bin_probabilities=[] if bad else [{"bin": j, "p": q} for j, q in enumerate(p, start=1)],
                    reasoning="" if bad else "r", raw_probability_sum=None if bad else 1.0, parse_failed=bool(bad),
                    parse_error="no_tool_call: the answer has no tool call" if bad else None,
                    input_tokens=1000, output_tokens=200, elapsed_s=1.0))
    return predictions_frame(records)

# ----------------------------------------------------------------------------------------------------- section 1

def full_suite(rows: metrics.SurrogateRows) -> None:
    "Every metric once per population."
    metrics.evaluate_rows(rows, ("all", "parsed"))

def metric_families(rows: metrics.SurrogateRows) -> dict:
    "The pieces of `evaluate_rows(rows, 'all')` as callables, following `metrics._evaluate` (private API)."
    no_reference = lambda r: {name: np.full(len(r), np.nan) for name in metrics.SCORED}
    q = metrics._quantities(rows, no_reference)
    W = np.ones((1, len(rows)))
    speed_W = W * q.speed
    coverages = metrics.DEFAULT_COVERAGES
    shared = ("losses", "row_values", "ece_inputs", "rank_orders", "arranged", "top_fraction_pools", "loss_sequences")
    for name in shared: getattr(q, name)  # computed once per evaluate_rows call, then shared by the populations
    def fresh_shared():
        fresh = metrics._quantities(rows, no_reference)
        for name in shared: getattr(fresh, name)
    def eces():
        views = q.ece_inputs
        for name in ("ece_top", "ece_argmax"): metrics._bucket_ece(*views[name], W)
        for bucket, gap in views["ece_classwise"]: metrics._bucket_ece(bucket, gap, W)
        metrics._bucket_ece(*views["faster_ece"], speed_W)
    def regret_curves():
        for kind in q.orders: metrics._regrets(q, q.arranged[kind], speed_W[0, q.orders[kind]] > 0)
    return {
        "per-row quantities (_quantities, incl. orders)": lambda: metrics._quantities(rows, no_reference),
        "  + their shared caches (losses, ECE inputs, ...)": fresh_shared,
        "proper scores (half_brier, rps, nll)": lambda: (metrics.half_brier(rows.P, rows.y), metrics.rps(rows.P, rows.y), metrics.nll(rows.P, rows.y)),
        "ECEs (top, argmax, classwise, faster)": eces,
        "rank correlations (spearman, kendall)": lambda: metrics._rank_correlations(q.E_l, q.log2_speedup, speed_W, q.rank_orders),
        "selective (_selective: 3 scores x 4 risks)": lambda: metrics._selective(q, W, coverages),
        "  part: regret curves (3 scores x 2 risks)": regret_curves,
        "top10_best_ratio": lambda: metrics._top_fraction_best_ratio(q, W),
    }

def bench_full_suite(n: int, seed: int, runs: int, family_runs: int) -> dict:
    print(f"\n[1] full suite on {n:,} rows ({load()})")
    start = time.perf_counter()
    rows = synthetic_rows(n, seed)
    print(f"  data: {len(rows):,} rows, {int((~rows.parsed).sum()):,} failures, {len(set(rows.pack.tolist()))} packs "
          f"(built in {time.perf_counter() - start:.1f} s, not timed)")
    t = measure(lambda: full_suite(rows), runs)
    show("evaluate_rows all + parsed", t)
    print("  breakdown, population 'all' (the suite computes each piece once per population):")
    try: families = metric_families(rows)
    except Exception as e: print(f"    FAILED to prepare the pieces: {type(e).__name__}: {e}"); families = {}
    family_times = {name: measure(fn, family_runs) for name, fn in families.items()}
    for name, ft in family_times.items(): show(name, ft, width=48)
    print("  cProfile of one full-suite call (top own time):")
    profile_top(lambda: full_suite(rows))
    return dict(suite=t, families=family_times, rows=rows)

# ----------------------------------------------------------------------------------------------------- section 2

def bench_published(seed: int, runs: int, boot_runs: int) -> dict:
    print(f"\n[2] published size end to end ({load()})")
    rng = np.random.default_rng(seed)
    eval_rows = published_eval_rows(rng)
    preds = published_prediction_rows(eval_rows, rng)
    print(f"  data: {len(eval_rows)} eval rows ({eval_rows.comparison_id.nunique()} distinct ids), {len(preds):,} prediction "
          f"rows, {preds.surrogate_label.nunique()} surrogates × {preds.repeat.nunique()} repeats, "
          f"{int(preds.parse_failed.sum())} parse failures")
    build = measure(lambda: metrics.ForecastTable.build(eval_rows, preds), runs)
    show("ForecastTable.build", build)
    table = metrics.ForecastTable.build(eval_rows, preds)
    b0 = measure(lambda: metrics.compute_metrics(table, n_bootstrap=0), runs)
    show("compute_metrics(n_bootstrap=0)", b0)
    per_surrogate = {}
    def progress(label, i, n): per_surrogate[label] = time.perf_counter()
    def with_bootstrap():
        per_surrogate.clear()
        metrics.compute_metrics(table, n_bootstrap=1000, progress=progress)
        per_surrogate["_end"] = time.perf_counter()
    b1000 = measure(with_bootstrap, boot_runs)
    show("compute_metrics(n_bootstrap=1000)", b1000)
    if per_surrogate:
        marks = list(per_surrogate.values())
        print("  per surrogate in the last B=1000 run: " + ", ".join(f"{fmt_time(b - a)}" for a, b in zip(marks, marks[1:])))
    print("  cProfile of compute_metrics(n_bootstrap=1000) (top own time):")
    profile_top(lambda: metrics.compute_metrics(table, n_bootstrap=1000))
    return dict(build=build, b0=b0, b1000=b1000)

# ----------------------------------------------------------------------------------------------------- section 3

def bench_scoringrules(rows: metrics.SurrogateRows, runs: int) -> dict:
    """Ours vs scoringrules on the forecasts of `rows` (failure rows carry the uniform forecast, as in the suite).

    Two comparisons per score: from the same arrays (P, y), each side building the inputs its API needs inside the
    timed call (the headline ratio); and on the score alone, both sides given prebuilt inputs."""
    n = len(rows)
    print(f"\n[3] vs scoringrules {scoringrules.__version__} on {n:,} rows × 8 bins ({load()})")
    P, y = rows.P, rows.y
    onehot = np.eye(8)[y - 1]
    p_faster, event = P[:, 3:].sum(axis=1), (y >= 4).astype(float)
    calls = {
        "ours rps(P, y)": lambda: metrics.rps(P, y),
        "sr rps_score(np.eye(8)[y - 1], P)": lambda: scoringrules.rps_score(np.eye(8)[y - 1], P, onehot=True),
        "sr rps_score(onehot, P), one-hot prebuilt": lambda: scoringrules.rps_score(onehot, P, onehot=True),
        "ours faster Brier (P[:, 3:].sum(1) - (y >= 4))**2": lambda: (P[:, 3:].sum(axis=1) - (y >= 4)) ** 2,
        "sr brier_score(y >= 4, P[:, 3:].sum(1))": lambda: scoringrules.brier_score((y >= 4).astype(float), P[:, 3:].sum(axis=1)),
        "ours (p_faster - event)**2, prebuilt": lambda: (p_faster - event) ** 2,
        "sr brier_score(event, p_faster), prebuilt": lambda: scoringrules.brier_score(event, p_faster),
        "ours half_brier(P, y) (reference)": lambda: metrics.half_brier(P, y),
        "ours nll(P, y) (reference)": lambda: metrics.nll(P, y),
    }
    np.testing.assert_allclose(calls["ours rps(P, y)"](), calls["sr rps_score(onehot, P), one-hot prebuilt"]() / 7, rtol=0, atol=1e-12)
    for ours, theirs in (("ours faster Brier (P[:, 3:].sum(1) - (y >= 4))**2", "sr brier_score(y >= 4, P[:, 3:].sum(1))"),
                         ("ours (p_faster - event)**2, prebuilt", "sr brier_score(event, p_faster), prebuilt")):
        np.testing.assert_allclose(calls[ours](), calls[theirs](), rtol=0, atol=1e-12)
    print("  values agree to 1e-12: rps = rps_score / 7; faster Brier = brier_score")
    t = {name: measure(fn, runs, warmup=3) for name, fn in calls.items()}
    for name, v in t.items(): show(name, v, width=52)
    ratio = lambda a, b: t[a]["median"] / t[b]["median"]
    out = dict(rps=ratio("ours rps(P, y)", "sr rps_score(np.eye(8)[y - 1], P)"),
               rps_prebuilt=ratio("ours rps(P, y)", "sr rps_score(onehot, P), one-hot prebuilt"),
               faster=ratio("ours faster Brier (P[:, 3:].sum(1) - (y >= 4))**2", "sr brier_score(y >= 4, P[:, 3:].sum(1))"),
               faster_prebuilt=ratio("ours (p_faster - event)**2, prebuilt", "sr brier_score(event, p_faster), prebuilt"))
    print(f"  ratio ours / scoringrules (medians), from (P, y): rps {out['rps']:.2f}, faster Brier {out['faster']:.2f}; "
          f"inputs prebuilt: rps {out['rps_prebuilt']:.2f} (ours still builds its one-hot), faster Brier {out['faster_prebuilt']:.2f}")
    return out

# ----------------------------------------------------------------------------------------------------- section 4

SCALE_SIZES = (10_000, 100_000, 1_000_000)
SCALE_VARIANTS = (("threshold", 1000), ("per_sample", 1000), ("threshold", 0))  # (ties, n_bootstrap); the first is the default

def synthetic_table(n: int, seed: int) -> metrics.ForecastTable:
    "One surrogate of n synthetic rows (section 1's), joined with its own truth."
    rows = synthetic_rows(n, seed)
    truth = pd.DataFrame(dict(comparison_id=rows.comparison_id, pack=rows.pack, true_bin=rows.y, speedup=rows.speedup))
    return metrics.ForecastTable(rows={rows.label: rows}, truth=truth, n_eval_rows=n, n_unmatched={}, n_missing={},
                                 n_incomplete={}, warnings=[])

def memory_gb(field: str) -> float:
    "A memory figure of this process from /proc/self/status (VmRSS: now, VmHWM: peak), in GB."
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"): return int(line.split()[1]) * 1024 / 1e9
    return float("nan")

def scale_child(n: int, ties: str, n_bootstrap: int, seed: int) -> None:
    "In a fresh process: build the table (not timed), time one compute_metrics call, print a JSON line."
    table = synthetic_table(n, seed)
    before = memory_gb("VmRSS")
    start = time.perf_counter()
    _, curves = metrics.compute_metrics(table, n_bootstrap=n_bootstrap, ties=ties)
    wall = time.perf_counter() - start
    print(json.dumps(dict(wall=wall, peak_gb=memory_gb("VmHWM"), data_gb=before,
                          curves_bytes=len(json.dumps(metrics._strict(curves))))))

def run_child(n: int, ties: str, n_bootstrap: int, seed: int) -> dict:
    "One measurement in a subprocess; an error is recorded, not raised."
    command = [sys.executable, __file__, "--child", str(n), ties, str(n_bootstrap), str(seed)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode: return dict(error=(done.stderr.strip().splitlines() or ["exit code %d" % done.returncode])[-1][:160])
    return json.loads(done.stdout.strip().splitlines()[-1]) | dict(error=None)

def bench_scale(seed: int, runs: int, sizes) -> dict:
    print(f"\n[4] compute_metrics at scale, one surrogate, B=1000 ({load()}; {runs} run(s) each, a subprocess per run)")
    out = {}
    for n in sizes:
        plan = metrics.bootstrap_plan(n, n, 1000)
        print(f"  {n:,} rows: bootstrap {plan['method']}" + (f" ({plan['subsets']} subsets x {plan['resamples']} resamples of "
              f"{plan['subset_size']:,} comparisons)" if plan["method"] == "bag" else f" (chunks of {plan['chunk']} resamples)"))
        for ties, n_bootstrap in SCALE_VARIANTS:
            results = [run_child(n, ties, n_bootstrap, seed) for _ in range(runs)]
            ok = [r for r in results if not r["error"]]
            name = f"ties={ties}, B={n_bootstrap}"
            if not ok: print(f"    {name:<28} FAILED: {results[0]['error']}"); out[(n, ties, n_bootstrap)] = None; continue
            m = dict(wall=statistics.median(r["wall"] for r in ok), peak_gb=statistics.median(r["peak_gb"] for r in ok),
                     data_gb=statistics.median(r["data_gb"] for r in ok), curves_bytes=ok[0]["curves_bytes"])
            out[(n, ties, n_bootstrap)] = m
            print(f"    {name:<28} median {fmt_time(m['wall']):>9}  peak {m['peak_gb']:.2f} GB (data alone {m['data_gb']:.2f} GB)"
                  f"  curves.json {m['curves_bytes'] / 1e3:,.0f} kB  ({len(ok)} runs)")
        default, peer, no_boot = (out.get((n, *v)) for v in SCALE_VARIANTS)
        if default and peer: print(f"    ratio threshold / per_sample (B=1000): time {default['wall'] / peer['wall']:.2f}, "
                                   f"peak memory {default['peak_gb'] / peer['peak_gb']:.2f}")
        if default and no_boot: print(f"    ratio B=1000 / B=0: time {default['wall'] / no_boot['wall']:.2f}, "
                                      f"peak memory {default['peak_gb'] / no_boot['peak_gb']:.2f}")
    return out

# ----------------------------------------------------------------------------------------------------- section 5

def llm_like_rows(n: int, rng) -> tuple:
    "Forecasts in steps of 0.1 peaked at the true bin or a neighbour, ~5% failures (what LLM surrogates produce)."
    speedup, y = truth(n, rng)
    modes = np.clip(y - 1 + rng.integers(-1, 2, n), 0, 7)
    P = np.stack([rng.multinomial(10, np.full(8, 0.05) + 0.6 * np.eye(8)[m]) / 10 for m in modes])
    P[rng.uniform(size=n) < FAILURE_RATE] = np.nan
    return P, y, speedup

def bench_ties(seed: int, draws: int = 30) -> dict:
    print(f"\n[5] tie order: aurc.bin_error.max_prob over {draws} re-drawn id sets, 424 LLM-like rows ({load()})")
    rng = np.random.default_rng(seed)
    P, y, speedup = llm_like_rows(424, rng)
    out = {}
    for ties in ("per_sample", "threshold"):
        values = []
        for d in range(draws):
            ids = [f"llm/{'a' * 12}__{c}" for c in candidate_hex(424, np.random.default_rng(1000 + d))]
            rows = metrics.SurrogateRows.from_arrays(P, y, speedup, comparison_id=ids)
            values.append(metrics.evaluate_rows(rows, ("all",), ties=ties)["all"]["aurc.bin_error.max_prob"])
        out[ties] = dict(sd=float(np.std(values, ddof=1)), low=min(values), high=max(values))
        print(f"  ties={ties:<10} sd {out[ties]['sd']:.4f}  range {out[ties]['low']:.4f} to {out[ties]['high']:.4f}")
    return out

# -------------------------------------------------------------------------------------------------------- summary

def verdict(ok) -> str: return "n/a" if ok is None else "MET" if ok else "MISSED"

def summary(results: dict, quick: bool) -> None:
    print(f"\nSUMMARY ({load()})")
    lines = []
    def target(name, t, limit):
        ok = None if t is None else (False if t["error"] else t["median"] < limit)
        shown = "skipped" if t is None else ("FAILED" if t["error"] else fmt_time(t["median"]))
        lines.append((name, f"< {fmt_time(limit)}", shown, verdict(ok)))
    if "small" in results:
        target(f"full suite, {N_SMALL:,} rows", results["small"]["suite"], 0.050)
        target(f"full suite, {N_LARGE:,} rows", results["large"]["suite"] if "large" in results else None, 2.0)
    if "published" in results:
        target("compute_metrics B=1000, 7 surrogates", results["published"]["b1000"], 60.0)
        for name, key in (("  (info) ForecastTable.build", "build"), ("  (info) compute_metrics B=0", "b0")):
            t = results["published"].get(key)
            lines.append((name, "–", "FAILED" if t is None or t["error"] else fmt_time(t["median"]), ""))
    for n in SCALE_SIZES:
        m = results.get("scale", {}).get((n, "threshold", 1000)) if "scale" in results else None
        if n == N_LARGE or m is not None:
            shown = "skipped" if "scale" not in results or (n, "threshold", 1000) not in results["scale"] else "FAILED" if m is None else None
            lines.append((f"compute_metrics B=1000, {n:,} rows: wall", "< 60 s" if n == N_LARGE else "–",
                          shown or fmt_time(m["wall"]), verdict(None if shown == "skipped" else m is not None and m["wall"] < 60) if n == N_LARGE else ""))
            lines.append((f"compute_metrics B=1000, {n:,} rows: peak memory", "< 4 GB" if n == N_LARGE else "–",
                          shown or f"{m['peak_gb']:.2f} GB", verdict(None if shown == "skipped" else m is not None and m["peak_gb"] < 4) if n == N_LARGE else ""))
    if "ties" in results:
        lines.append(("aurc.bin_error.max_prob sd over id draws, threshold", "0", f"{results['ties']['threshold']['sd']:.4f}",
                      verdict(results["ties"]["threshold"]["sd"] == 0)))
    for size, key in ((N_SMALL, "sr_small"), (N_LARGE, "sr_large")):
        if key not in results and "small" not in results: continue  # the section was not run
        r = results.get(key)
        for name, k in (("rps", "rps"), ("faster Brier", "faster"), ("rps (sr one-hot prebuilt)", "rps_prebuilt"),
                        ("faster Brier (inputs prebuilt)", "faster_prebuilt")):
            ratio = None if r is None else r[k]
            lines.append((f"vs scoringrules: {name}, {size:,} rows", "ours/sr <= 1", "skipped" if ratio is None else f"{ratio:.2f}",
                          verdict(None if ratio is None else ratio <= 1.0)))
    width = max(len(l[0]) for l in lines)
    print(f"  {'measure':<{width}}  {'target':>13}  {'median':>10}  verdict")
    for name, goal, value, v in lines: print(f"  {name:<{width}}  {goal:>13}  {value:>10}  {v}")
    print("  (B=1000 target is for 2 cores; scoringrules ratios: medians, from the same (P, y) unless marked prebuilt)")
    if quick: print("  --quick: fewer repeats, 1e6-row measurements skipped")

def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, skip the 1e6-row measurements")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic data (default 0)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=SECTIONS, help="sections to run (default: all)")
    parser.add_argument("--runs", type=int, default=None, help="runs per measurement of section 4 (default 3, --quick 1)")
    parser.add_argument("--child", nargs=4, metavar=("ROWS", "TIES", "B", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        n, ties, n_bootstrap, seed = args.child
        return scale_child(int(n), ties, int(n_bootstrap), int(seed))
    q, only = args.quick, set(args.only)
    print(f"bench/metrics.py: gpu_forecasters {gpu_forecasters.__version__}, numpy {np.__version__}, pandas {pd.__version__}, "
          f"scoringrules {scoringrules.__version__}, Python {platform.python_version()}; seed {args.seed}"
          f"{', --quick' if q else ''}\n{load()}; {blas_threads()}; medians over the runs shown, after warm-up")
    started = time.perf_counter()
    results = {}
    if "suite" in only or "scoringrules" in only:
        results["small"] = bench_full_suite(N_SMALL, args.seed, runs=5 if q else 15, family_runs=3 if q else 7)
        if not q: results["large"] = bench_full_suite(N_LARGE, args.seed, runs=3, family_runs=3)
    if "published" in only: results["published"] = bench_published(args.seed, runs=2 if q else 5, boot_runs=1 if q else 3)
    if "scoringrules" in only:
        results["sr_small"] = bench_scoringrules(results["small"]["rows"], runs=31 if q else 201)
        if not q: results["sr_large"] = bench_scoringrules(results["large"]["rows"], runs=11)
    if "scale" in only:
        results["scale"] = bench_scale(args.seed, args.runs or (1 if q else 3), SCALE_SIZES[:2] if q else SCALE_SIZES)
    if "ties" in only: results["ties"] = bench_ties(args.seed)
    summary(results, q)
    print(f"  total wall time {time.perf_counter() - started:.0f} s")

if __name__ == "__main__":
    main()
