"""Live searches on a GPU against the landscape: does a search that measures for real see what the landscape says?

    PYTHONPATH=$PWD python tools/live_vs_landscape.py --pack trimul --seed 0 --max-evaluations 24 --out runs/live_trimul
    python tools/live_vs_landscape.py --pack fp8_quant --out /tmp/live --evaluator landscape   # plumbing only: "live" from the landscape

Two searches with the same seed, the standard arm and the surrogate-filtered arm with the learning cost model (the
arms of `search.replay.landscape_arms`, the evaluator switched from the landscape to live measurement on the GPU),
each a normal run directory under `<out>/<arm>` (rerun the command to resume one cut short by the device's limits),
and its replay twin on the landscape (same config and seed, `<out>/<arm>_replay`). Then, for every live evaluation, the landscape's row of the same variant: the live speedup against the landscape's
95% CI widened by the between-run spread of the pack (`Landscape.between_run_sd`, from the landscape's retests where it
has them: two runs of one kernel differ by that much), and, per arm, the best variant found live against the landscape's best among the same variants
and against the replay twin's best.
A variant whose landscape runs (its measurement and retests) disagree on its status agrees with either outcome live,
and a live pass is held to its first passing run; `of_flaky_variants` counts the evaluations of such variants.
`<out>/comparison.jsonl` has one row per live evaluation and `<out>/summary.json` the agreement per arm.

`--compare-only` runs no search: it matches the finished runs in `<out>` (live and replay twin) to the landscape as it
is now, e.g. once retests measured after the live searches have joined it (a variant retested since may have turned out
flaky). The runs themselves stay as they ran, with the landscape and cost model of their day.

    python tools/live_vs_landscape.py --pack trimul --landscape runs/h200/landscape_h200 --out runs/h200/live_trimul --compare-only

`--ship DEST` then writes the finished comparison as package data (`gpu_forecasters/measured_data/live_h200_trimul`,
read by `measured_bytes`): `comparison.jsonl`, `summary.json`, each live arm's config (`<arm>.json`) and event log
(`<arm>.events.jsonl`, every evaluation with its device and CIs), and a MANIFEST (pack, landscape, the live
evaluations' back-end and device, each file's rows, bytes and sha256) that the loaders check every file against.
The replay twins are not shipped: their configs are, and a replay reruns in seconds.
"""
import argparse, json, math, os, shutil, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from ship_evalset import file_entry, fresh_folder, swap_in  # a shipped file's rows, bytes and sha256; the folder written in place

def compare_run(run_dir: Path, landscape, pack: str) -> tuple:
    "(rows, summary) of one live run against the landscape."
    from gpu_forecasters.search.events import read_events
    from gpu_forecasters.search.landscape import log_sigma, run_passed
    from gpu_forecasters.search.variants import get_space
    space, sd = get_space(pack), landscape.between_run_sd(pack)
    events = read_events(run_dir / "events.jsonl")
    code_of = {e.request_id: e.code for e in events if e.kind == "mutation_completed"}
    seed = next(e for e in events if e.kind == "search_initialized").seed_code
    rows = []
    for e in events:
        if e.kind not in ("seed_evaluation_completed", "evaluation_completed"): continue
        code = seed if e.kind == "seed_evaluation_completed" else code_of[e.request_id]
        vid = space.variant_id(space.params_of(code))
        runs = landscape.runs(vid) if vid in landscape.rows else []
        land = landscape.first_pass(vid) or (runs[0] if runs else None)  # its first passing run, if any: the speedup a live pass is held to
        live, status = e.evaluation.get("reward"), e.evaluation.get("status")
        row = {"arm": run_dir.name, "request_id": getattr(e, "request_id", "seed"), "variant_id": vid, "live_status": status,
               "live_speedup": live, "live_ci": e.evaluation.get("reward_ci"), "landscape_status": None if land is None else land["status"],
               "landscape_speedup": None if land is None else land["speedup"], "landscape_ci": None if land is None else land["speedup_ci"],
               "landscape_runs": len(runs), "landscape_passes": sum(map(run_passed, runs))}
        if land is not None and live is not None and land["status"] == "ok":
            z = math.log(live / land["speedup"]) / max(log_sigma(land, sd), 1e-9)
            row.update(z=z, agrees=abs(z) <= 1.96 * math.sqrt(2))  # two draws of one spread: the difference has sqrt(2) times its sd
        # a live outcome agrees when one of the landscape's runs of that variant had it: a kernel near its tolerance
        # that passed one run and failed another may do either live
        row["same_status"] = None if land is None else (status == "ok") in {r["status"] == "ok" for r in runs}
        rows.append(row)
    ok = [r for r in rows if r["live_speedup"] is not None]
    best_live = max(ok, key=lambda r: r["live_speedup"]) if ok else None
    seen = [r for r in rows if r["landscape_speedup"] is not None]
    best_land = max(seen, key=lambda r: r["landscape_speedup"]) if seen else None
    judged = [r for r in rows if "agrees" in r]
    summary = {"arm": run_dir.name, "evaluations": len(rows), "compared": len(judged), "agree": sum(r["agrees"] for r in judged),
               "same_status": sum(bool(r["same_status"]) for r in rows),
               "of_flaky_variants": sum(0 < r["landscape_passes"] < r["landscape_runs"] for r in rows), "best_live": best_live and best_live["variant_id"],
               "best_live_speedup": best_live and best_live["live_speedup"], "best_landscape_among_these": best_land and best_land["variant_id"],
               "same_best": bool(best_live and best_land and best_live["variant_id"] == best_land["variant_id"])}
    return rows, summary

def ship(out: Path, # a finished --out folder (summary.json, comparison.jsonl, the runs)
         dest: Path, # the folder to write, e.g. gpu_forecasters/measured_data/live_h200_trimul
         pack: str, landscape: str) -> dict:
    "Write the live runs' comparison as package data at `dest` (a fresh folder renamed into place); returns its MANIFEST."
    from gpu_forecasters.search.events import read_events
    summary = json.loads((out / "summary.json").read_text())
    arms = [s["arm"] for s in summary]
    tmp = fresh_folder(dest)
    for name in ("comparison.jsonl", "summary.json"): shutil.copyfile(out / name, tmp / name)
    evaluations, started = [], []
    for arm in arms:
        shutil.copyfile(out / f"{arm}.json", tmp / f"{arm}.json")
        shutil.copyfile(out / arm / "events.jsonl", tmp / f"{arm}.events.jsonl")
        events = read_events(out / arm / "events.jsonl")
        started.append(events[0].at)
        evaluations += [e.evaluation for e in events if e.kind in ("seed_evaluation_completed", "evaluation_completed")]
    first = evaluations[0] if evaluations else {}
    return swap_in(tmp, dest, {"kind": "live_searches", "pack": pack, "landscape": landscape, "arms": arms,
                               "backend": sorted({str(e.get("backend")) for e in evaluations}), "device": first.get("device"),
                               "measured_on": min(started)[:10] if started else None, "tool": "tools/live_vs_landscape.py --ship",
                               "files": {f.name: file_entry(f) for f in sorted(tmp.iterdir())}})

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-evaluations", type=int, default=24)
    ap.add_argument("--landscape", default="h200")
    ap.add_argument("--evaluator", default="local", choices=("local", "landscape"), help="landscape: a CPU check of the plumbing")
    ap.add_argument("--arms", default="standard,filtered_cost_model_online")
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare-only", action="store_true", help="run no search: match the finished runs in --out to the landscape as it is now")
    ap.add_argument("--ship", default=None, metavar="DEST", help="then write the comparison, the live runs' configs and event logs and a MANIFEST to DEST (package data)")
    args = ap.parse_args(argv)
    from gpu_forecasters.search.driver import search_command, simulation_config
    from gpu_forecasters.search.landscape import load_landscape
    from gpu_forecasters.search.replay import landscape_arms
    landscape = load_landscape(args.landscape)
    arms = landscape_arms(args.pack, args.landscape, accuracies=(0.6,), cost_model="h200")
    out = Path(args.out); out.mkdir(parents=True, exist_ok=True)
    rows, summaries = [], []
    for arm in args.arms.split(","):
        runs = {}
        for name, evaluator in ((arm, {"kind": args.evaluator} if args.evaluator == "local" else arms[arm]["evaluator"]), (f"{arm}_replay", arms[arm]["evaluator"])):
            if args.compare_only:
                if not (out / name / "summary.json").exists():
                    print(f"live: no finished run at {out / name}: run without --compare-only first", file=sys.stderr); return 2
            else:
                cfg = {**simulation_config(arms[arm], args.seed, args.max_evaluations), "evaluator": evaluator}
                (out / f"{name}.json").write_text(json.dumps(cfg, indent=1))
                code = search_command(out / f"{name}.json", out / name)
                if code != 0: print(f"live: the {name} search exited {code}; rerun to resume", file=sys.stderr); return code
            runs[name] = compare_run(out / name, landscape, args.pack)
        r, s = runs[arm]
        s["replay_best"] = runs[f"{arm}_replay"][1]["best_live"]
        s["same_best_as_replay"] = s["replay_best"] == s["best_live"]
        rows += r; summaries.append(s)
        print(f"live {arm}: {json.dumps(s)}", flush=True)
    for name, text in (("comparison.jsonl", "".join(json.dumps(r) + "\n" for r in rows)), ("summary.json", json.dumps(summaries, indent=1) + "\n")):
        tmp = out / f"{name}.tmp"; tmp.write_text(text); os.replace(tmp, out / name)  # a rerun never leaves half a file
    if args.ship:
        m = ship(out, Path(args.ship), args.pack, args.landscape)
        print(f"live: shipped {len(m['files'])} files to {args.ship}", flush=True)
    return 0

if __name__ == "__main__":
    sys.exit(main())
