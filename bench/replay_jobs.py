"""Benchmark of `search.replay.replay` with several processes: prints wall times and their ratio, asserts nothing
except that both ways give the same runs.

The arms of `search.replay.landscape_arms` for one pack of the shipped H200 landscape (its measured part), under the
paper's rule, N seeds each, 64 paid evaluations per run: once one run at a time (`jobs=1`) and once with `--jobs`
processes, each way `--repeats` times in alternation; the medians and their ratio. Each worker is a spawned process
that loads the landscape and fits its cost models once, so the gain grows with the number of runs.

    .venv/bin/python bench/replay_jobs.py                         # fp8_quant, 12 seeds, jobs 1 against one per CPU
    .venv/bin/python bench/replay_jobs.py --seeds 24 --repeats 3
"""
import argparse, os, statistics, tempfile, time
from pathlib import Path

from gpu_forecasters.search.replay import landscape_arms, replay

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", default="fp8_quant")
    ap.add_argument("--seeds", type=int, default=12)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    print("load avg {:.2f} {:.2f} {:.2f} on {} cores".format(*os.getloadavg(), os.cpu_count()))
    arms = landscape_arms(args.pack, "h200", rules=("paper",), measured_only=True)
    times, frames = {1: [], args.jobs: []}, {}
    for _ in range(args.repeats):
        for jobs in (1, args.jobs):
            with tempfile.TemporaryDirectory() as tmp:
                started = time.perf_counter()
                frames[jobs] = replay(arms, range(args.seeds), 64, out=Path(tmp) / "runs.jsonl", tags={"pack": args.pack}, jobs=jobs)
                times[jobs].append(time.perf_counter() - started)
    runs = len(arms) * args.seeds
    serial, parallel = statistics.median(times[1]), statistics.median(times[args.jobs])
    print(f"{args.pack}: {len(arms)} arms x {args.seeds} seeds = {runs} runs, 64 paid evaluations each, {args.repeats} repeat(s)")
    print(f"jobs=1: median {serial:.1f} s ({runs / serial:.2f} runs/s)")
    print(f"jobs={args.jobs}: median {parallel:.1f} s ({runs / parallel:.2f} runs/s)")
    print(f"speed-up: {serial / parallel:.2f}x; same runs: {frames[1].equals(frames[args.jobs])}")

if __name__ == "__main__":
    main()
