"""Replay standard and surrogate-filtered searches on a measured landscape, many seeds per arm, resumably.

    python tools/replay_landscape.py                                    # every pack of the H200 landscape, 50 seeds, 64 paid
    python tools/replay_landscape.py --packs trimul --seeds 5 --max-evaluations 32 --out /tmp/replay
    python tools/replay_landscape.py --landscape path/to/folder --no-cost-model --out /tmp/replay
    python tools/replay_landscape.py --rules paper                      # only the paper's selection rule
    python tools/replay_landscape.py --packs cross_entropy --measured-only   # a landscape measured in part
    python tools/replay_landscape.py --jobs 8                           # 8 searches at once (default: one per CPU)

For each pack the arms of `search.replay.landscape_arms` (standard; filtered with the random oracle, the noisy oracle
at accuracy 0.6, the cost model held out from the pack, and the cost model learning online; each surrogate once per
selection rule: the paper's and the selective one) run with seeds 0..N-1.
Each finished (pack, arm, seed) run is appended to `<out>/runs.jsonl` (fsynced); a rerun skips finished runs and
runs again only what is missing or whose arm config or data changed (its pack's measurements and retests in the
landscape, the cost model's file: `search.replay.arm_data_sha256`); at the end, runs of the replayed packs made with other
settings are dropped from the file (runs of other packs are kept). `<out>/MANIFEST.json` records the landscape (name,
sha256 of its measurements), the seeds, the budget, every arm's config hash and the package version; it is
rewritten at the end, with the between-run spread each pack's draws used (from the landscape's retests) and the
sha256 of the retests. Each run also keeps `best_true`, the landscape's speedup of the kernel behind its best
reward. Every pack of the landscape must be complete (every variant of its space measured): a search
may step onto any point. `--measured-only` lifts that for a landscape measured in part: the searches walk only the
measured variants (`Landscape.measured_space`), the manifest says so and records how many of each space that is,
and the results describe that sub-space, not the whole one (a later run without the flag runs every search again:
the arms' configs, and so their hashes, differ).
"""
import argparse, hashlib, json, os, sys, time
from pathlib import Path

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--landscape", default="h200", help="a shipped landscape's name or a folder written by tools/measure_landscape.py")
    ap.add_argument("--packs", default=None, help="comma-separated packs (default: every pack of the landscape)")
    ap.add_argument("--seeds", type=int, default=50, help="seeds per arm (20 left the bootstrap intervals of the H200 replay too wide to decide anything)")
    ap.add_argument("--max-evaluations", type=int, default=64)
    ap.add_argument("--accuracies", default="0.125,0.6")
    ap.add_argument("--no-cost-model", action="store_true", help="no cost-model arms")
    ap.add_argument("--rules", default="paper,selective", help="selection rules of the filtered arms (search.replay.RULES)")
    ap.add_argument("--max-steps", type=int, default=400, help="a run's step backstop (a selective run may stop paying before its budget)")
    ap.add_argument("--measured-only", action="store_true", help="search only the measured variants of a landscape measured in part")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="searches run at once, each in its own process (default: one per CPU); the results do not depend on it")
    ap.add_argument("--out", default=None, help="output folder (default: gpu_forecasters/measured_data/replay_<landscape>)")
    args = ap.parse_args(argv)
    if args.jobs < 1: print(f"replay: --jobs must be >= 1, got {args.jobs}", file=sys.stderr); return 2
    import gpu_forecasters
    from gpu_forecasters.search.landscape import MEASURED_DIR, LandscapeError, load_landscape
    from gpu_forecasters.search.replay import RULES, arm_data_sha256, arm_hash, in_manifest, landscape_arms, replay
    rules = tuple(args.rules.split(","))
    if unknown := [r for r in rules if r not in RULES]:
        print(f"replay: unknown rules {', '.join(unknown)} (valid: {', '.join(RULES)})", file=sys.stderr); return 2
    try: landscape = load_landscape(args.landscape)
    except (FileNotFoundError, LandscapeError) as e:
        print(f"replay: {e}", file=sys.stderr); return 2
    packs = args.packs.split(",") if args.packs else landscape.packs
    for pack in packs:
        if pack not in landscape.packs:
            print(f"replay: landscape {landscape.name} has no pack {pack} (packs: {', '.join(landscape.packs)})", file=sys.stderr); return 2
        measured, size = landscape.coverage(pack)
        if measured < size and args.measured_only:
            try: landscape.measured_space(pack)
            except LandscapeError as e: print(f"replay: {e}", file=sys.stderr); return 2
            print(f"replay {pack}: searching the {measured} measured of its {size} variants", flush=True)
        elif measured < size:
            print(f"replay: landscape {landscape.name} has {measured} of the {size} variants of {pack}; a replay needs them all "
                  "(measure the rest with tools/measure_landscape.py)", file=sys.stderr); return 2
    out = Path(args.out) if args.out else MEASURED_DIR / f"replay_{landscape.name}"
    accuracies = tuple(float(a) for a in args.accuracies.split(","))
    cost_model = None if args.no_cost_model else "h200"
    started, arms_of = time.perf_counter(), {}
    for pack in packs:
        arms = arms_of[pack] = landscape_arms(pack, args.landscape, accuracies, cost_model, rules=rules, max_steps=args.max_steps,
                                              measured_only=args.measured_only)
        print(f"replay {pack}: {len(arms)} arms x {args.seeds} seeds, {args.max_evaluations} paid evaluations each", flush=True)
        replay(arms, range(args.seeds), args.max_evaluations, out=out / "runs.jsonl", tags={"pack": pack}, jobs=args.jobs,
               progress=lambda line, pack=pack: print(f"  {pack} {line}", flush=True))
    files, loaded = landscape.manifest.get("files", {}), {}  # `loaded`: the landscape read once for every arm's data hash
    manifest = {"kind": "replay", "landscape": landscape.name, "landscape_sha256": files.get("measurements.jsonl", {}).get("sha256"),
                "retest_sha256": files.get("retest.jsonl", {}).get("sha256"),
                "between_run_sd": {pack: landscape.between_run_sd(pack) for pack in packs}, "seeds": args.seeds,
                "max_evaluations": args.max_evaluations, "rules": list(rules), "measured_only": args.measured_only,
                "coverage": {pack: list(landscape.coverage(pack)) for pack in packs}, "max_steps": args.max_steps, "package_version": gpu_forecasters.__version__,
                "arms": {pack: {arm: {"hash": arm_hash(raw), "data_sha256": arm_data_sha256(raw, loaded), "config": raw} for arm, raw in arms.items()}
                         for pack, arms in arms_of.items()}}
    stale = compact(out / "runs.jsonl", lambda r: r.get("tags", {}).get("pack") not in arms_of or in_manifest(r, manifest))
    if stale: print(f"replay: dropped {stale} runs of {', '.join(packs)} made with other settings (arm configs or data, budget, seeds or spread)")
    manifest["runs_sha256"] = hashlib.sha256((out / "runs.jsonl").read_bytes()).hexdigest()
    tmp = out / "MANIFEST.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=1) + "\n"); os.replace(tmp, out / "MANIFEST.json")
    print(f"replay: done in {time.perf_counter() - started:.0f} s; {out / 'runs.jsonl'}")
    return 0

def compact(path: Path, keep) -> int:
    "Rewrite the runs file (atomically) with only the runs `keep` accepts; the number dropped."
    from gpu_forecasters.search.replay import _read_runs
    runs = _read_runs(path)
    kept = [r for r in runs if keep(r)]
    if len(kept) < len(runs):
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in kept)); os.replace(tmp, path)
    return len(runs) - len(kept)

if __name__ == "__main__":
    sys.exit(main())
