"""Label noise of an eval set: a seeded sample of its pairs measured again head to head, and the fraction whose bin flips.

    PYTHONPATH=$PWD python tools/measure_pair_noise.py --eval-set runs/h200_landscape --out runs/pair_noise --n 30 --budget-s 500
    python tools/measure_pair_noise.py --eval-set DIR --out /tmp/noise --backend cpu --case-set smoke --n 2   # a CPU check (no timings)

The sample: the eval set's rows with a speedup (failure rows have none), ordered by a hash of (seed, comparison id),
the first N. Each pair is measured with the harness's compare mode (`PackEvaluator.compare`: anchor and candidate
checked for correctness, then timed interleaved in one judge, each program in a fresh sandboxed worker), against the
eval set's label (its `aggregated_speedup`: for landscape pairs the ratio of two separate runs against the reference,
or a head-to-head re-measurement when it lay near a bin edge). Every measurement is appended to `<out>/pair_noise.jsonl`
as it finishes (fsynced); a rerun skips pairs with a result and measures infrastructure failures again. `--budget-s`
stops starting new measurements after that many seconds. `<out>/summary.json`: pairs measured, bins flipped, the
fraction with a 95% Wilson interval, and the median |log2(new / label)|; and the pairs where a side failed its
correctness checks this time (per pack), with the fraction of outcomes changed (a flip or such a failure) among the
pairs that were judged (infrastructure failures are not).
"""
import argparse, hashlib, json, math, os, sys, time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure_landscape import append_row, read_rows  # one row per write, fsynced; a torn last line is dropped

def wilson(k: int, n: int, z: float = 1.96) -> tuple:
    "The 95% Wilson score interval of k successes in n trials."
    if n == 0: return (math.nan, math.nan)
    p, d = k / n, 1 + z * z / n
    c, h = (p + z * z / (2 * n)) / d, z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))

def sample(df, n: int, seed: int) -> list:
    "The first n rows with a speedup, ordered by sha256(seed:comparison_id)."
    rows = [r for r in df.to_dict("records") if r["aggregated_speedup"] is not None and math.isfinite(r["aggregated_speedup"])]
    rows.sort(key=lambda r: hashlib.sha256(f"{seed}:{r['comparison_id']}".encode()).hexdigest())
    return rows[:n]

FAILED = ("candidate_failed", "anchor_failed")  # a side failed its correctness checks: the pair has no speedup to label

def summarise(rows: list) -> dict:
    """Flips among the pairs measured with a speedup, and outcome changes: a flip, or a side that failed its checks this
    time. Every sampled label is a speedup (failure rows are not sampled), so a failure now is a changed outcome; it is
    counted apart from the bin flips because a 9-outcome label would move to the failure outcome, not to another bin."""
    done = [r for r in rows if r["remeasured_speedup"] is not None]
    failed = [r for r in rows if r["status"] in FAILED]
    flips = sum(r["flipped"] for r in done)
    changed, judged = flips + len(failed), len(done) + len(failed)
    interval = lambda k, n: list(wilson(k, n)) if n else [None, None]  # strict JSON: no NaN when nothing was measured
    errs = sorted(abs(math.log2(r["remeasured_speedup"] / r["label_speedup"])) for r in done)
    return {"pairs": len(rows), "measured": len(done), "flipped": flips, "flip_fraction": flips / len(done) if done else None,
            "flip_fraction_ci95": interval(flips, len(done)), "median_abs_log2_change": errs[len(errs) // 2] if errs else None,
            "failed_now": len(failed), "failed_now_by_pack": dict(sorted(Counter(r["pack"] for r in failed).items())),
            "outcome_changed": changed, "outcome_change_fraction": changed / judged if judged else None,
            "outcome_change_ci95": interval(changed, judged),
            "by_status": {s: sum(r["status"] == s for r in rows) for s in sorted({r["status"] for r in rows})}}

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eval-set", required=True, help="an eval set: a folder with eval_set.jsonl, or the file")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="local", choices=("local", "cpu"))
    ap.add_argument("--case-set", default="paper")
    ap.add_argument("--budget-s", type=float, default=None)
    args = ap.parse_args(argv)
    from gpu_forecasters.backends import PackEvaluator, get_backend
    from gpu_forecasters.bins import bin_of
    from gpu_forecasters.data import load_eval_set
    from gpu_forecasters.harness import EvalConfig
    path = Path(args.eval_set)
    if path.is_dir(): path = path / "eval_set.jsonl"
    if not path.exists(): print(f"pair noise: no eval set at {args.eval_set}", file=sys.stderr); return 2
    df = load_eval_set(path, outcomes=9)
    out = Path(args.out); out.mkdir(parents=True, exist_ok=True)
    log = out / "pair_noise.jsonl"
    done = {r["comparison_id"] for r in read_rows(log) if r["status"] != "infra_failure"}
    picked = sample(df, args.n, args.seed)
    todo = [r for r in picked if r["comparison_id"] not in done]
    print(f"pair noise: {len(picked)} pairs sampled, {len(picked) - len(todo)} measured before, {len(todo)} to do", file=sys.stderr, flush=True)
    config = EvalConfig(case_set=args.case_set)
    backend = get_backend(args.backend, config=config, **({"devices": [0]} if args.backend == "local" else {}))
    started = time.perf_counter()
    try:
        for i, r in enumerate(todo, 1):
            if args.budget_s is not None and time.perf_counter() - started > args.budget_s:
                print(f"pair noise: budget of {args.budget_s:g} s spent after {i - 1} pairs; rerun to continue", file=sys.stderr); break
            t0 = time.perf_counter()
            pair = PackEvaluator(r["pack"], args.case_set, backend, config).compare(r["anchor_code"], r["candidate_code"], request_id=r["comparison_id"])
            s = pair.pair_speedup if pair.status == "ok" and pair.pair_speedup else None
            label = float(r["aggregated_speedup"])
            row = {"comparison_id": r["comparison_id"], "pack": r["pack"], "source_id": r.get("source_id"), "label_speedup": label,
                   "label_bin": bin_of(label), "remeasured_speedup": s, "remeasured_ci": pair.pair_speedup_ci,
                   "remeasured_bin": None if s is None else bin_of(s), "flipped": None if s is None else bin_of(s) != bin_of(label),
                   "status": pair.status, "reason": pair.reason, "gpu_seconds": round(pair.gpu_seconds, 3),
                   "wall_s": round(time.perf_counter() - t0, 2), "device": pair.device}
            append_row(log, row)
            say = "no speedup" if s is None else f"{s:.3f}x (bin {row['remeasured_bin']}, label {label:.3f}x bin {row['label_bin']})"
            print(f"[{i}/{len(todo)}] {r['pack']} {pair.status} {say} ({row['wall_s']:.1f} s)", file=sys.stderr, flush=True)
    finally: backend.close()
    rows = [x for x in read_rows(log) if x["comparison_id"] in {r["comparison_id"] for r in picked}]
    summary = summarise(rows)
    tmp = out / "summary.json.tmp"; tmp.write_text(json.dumps(summary, indent=1) + "\n"); os.replace(tmp, out / "summary.json")
    print(f"pair noise: {json.dumps(summary)}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
