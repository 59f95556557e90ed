"""Ship a built eval set as package data: `gpu_forecasters/measured_data/<name>/`, loaded by name afterwards
(`load_eval_set("<name>")`, `--eval-set <name>`).

    gpu-forecasters build-evalset --config evalset/h200_landscape.json --output-dir runs/h200_landscape   # on the GPU
    python tools/ship_evalset.py --evalset runs/h200_landscape --score-config baseline_scoring/baselines_h200_landscape.json

It scores the baselines of `--score-config` on the built rows (a scoring run under `<evalset>/score`, resumable), then
writes, into a fresh folder renamed into place at the end (a failure leaves the shipped set as it was):

- `eval_set.jsonl`: the builder's rows;
- `predictions.jsonl`: the baselines' forecasts of them;
- `build_manifest.json`: the builder's manifest (its config, inputs with their sha256, counts, every re-measurement);
- `pair_noise.jsonl`, with `--pair-noise DIR` (a `tools/measure_pair_noise.py` output folder): the label-noise check, pairs
  of the set measured again in fresh processes, and its summary (recomputed from the rows) as the MANIFEST's `label_noise`;
- `MANIFEST.json`: what the loaders check each file against (rows, bytes, sha256), the hardware, the device the
  measurements were made on (from the landscape the pairs were drawn from), rows per pack and bin, and `--note`.

The score config names the set it scores by the shipped name (`"eval_set": "<name>"`, a climatology's
`"training_rows": "eval_set:<name>"`); here both are pointed at the built folder, since the name exists only once shipped.
"""
import argparse, asyncio, hashlib, json, os, shutil, sys, time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from measure_landscape import read_rows  # one row per line; a torn last line is dropped
from measure_pair_noise import summarise  # the label-noise summary, the same as the measuring tool writes


def file_entry(p: Path) -> dict:
    "Rows, bytes and sha256 of a JSON-lines (or JSON) file."
    data = p.read_bytes()
    rows = sum(1 for line in data.splitlines() if line.strip()) if p.suffix == ".jsonl" else None
    return {**({"rows": rows} if rows is not None else {}), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def fresh_folder(dest: Path) -> Path:
    "An empty scratch folder next to `dest`, to fill and then `swap_in`."
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    return tmp


def swap_in(tmp: Path, dest: Path, manifest: dict) -> dict:
    "Write `manifest` as tmp/MANIFEST.json, then put `tmp` in the place of `dest` (a failure before leaves `dest` as it was)."
    (tmp / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
    old = dest.with_name(dest.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if dest.exists(): os.replace(dest, old)
    os.replace(tmp, dest)
    shutil.rmtree(old, ignore_errors=True)
    return manifest


def pointed_at(config, name: str, folder: Path):
    "The score config with every mention of the shipped set `name` pointed at the built folder."
    from gpu_forecasters.scoring import EVAL_SET_ROWS
    updates = {"eval_set": str(folder)} if config.eval_set == name else {}
    surrogates = [s.model_copy(update={"training_rows": EVAL_SET_ROWS + str(folder)})
                  if getattr(s, "training_rows", None) == EVAL_SET_ROWS + name else s for s in config.surrogates]
    return config.model_copy(update={**updates, "surrogates": surrogates})


def landscape_device(build_manifest: dict) -> dict | None:
    "The device record of the landscape the builder drew pairs from, when it drew from one."
    from gpu_forecasters.search.landscape import LANDSCAPES, LandscapeError, load_landscape
    names = {i["path"] for i in build_manifest.get("inputs", []) if isinstance(i, dict) and i.get("format") == "landscape" and i.get("path")}
    for name in sorted(names):
        try: land = load_landscape(name if name in LANDSCAPES else Path(name))
        except (FileNotFoundError, LandscapeError): continue  # moved or changed since the build: the manifest says device null
        device = land.manifest.get("device")
        if device: return device
    return None


def noise_rows(folder: Path, # a measure_pair_noise.py output folder
               ids: set, # the comparison ids of the set being shipped
              ) -> list:
    "The label-noise rows of `folder`, each a pair of the set; a row of another set is an error, not something to drop."
    f = Path(folder) / "pair_noise.jsonl"
    if not f.is_file(): raise SystemExit(f"ship_evalset: {f}: missing; is {folder} a measure_pair_noise.py output folder?")
    rows = read_rows(f)
    foreign = [r["comparison_id"] for r in rows if r["comparison_id"] not in ids]
    if foreign: raise SystemExit(f"ship_evalset: {f}: {len(foreign)} of {len(rows)} pairs are not in the set being shipped (e.g. {foreign[0]}); measured on another build?")
    if not any(r.get("remeasured_speedup") for r in rows): raise SystemExit(f"ship_evalset: {f}: no pair measured with a speedup yet ({len(rows)} rows)")
    return rows


def ship(evalset: Path, # a builder output folder (eval_set.jsonl, manifest.json)
         score_config: str, # a score config (path or shipped name) whose baselines forecast the rows
         dest: Path, # the folder to write (gpu_forecasters/measured_data/<name>)
         note: str | None = None, # one line for the manifest; None keeps the note of the folder being replaced
         pair_noise: Path | None = None, # a measure_pair_noise.py output folder (pair_noise.jsonl) measured on this set
         log=sys.stderr) -> dict:
    "Score the baselines on a built eval set and write the shipped folder; returns its MANIFEST."
    from gpu_forecasters.data import load_eval_set
    from gpu_forecasters.scoring import load_score_config, score
    for f in ("eval_set.jsonl", "manifest.json"):
        if not (evalset / f).is_file(): raise SystemExit(f"ship_evalset: {evalset / f}: missing; is {evalset} a build-evalset output folder?")
    build = json.loads((evalset / "manifest.json").read_text())
    if build.get("dry_run"): raise SystemExit(f"ship_evalset: {evalset} is a dry run (no re-measurement); build it for real first")
    name = dest.name
    rows = load_eval_set(str(evalset / "eval_set.jsonl"), outcomes=9)
    noise = noise_rows(pair_noise, set(rows.comparison_id)) if pair_noise is not None else None
    config = pointed_at(load_score_config(score_config), name, evalset)
    if config.eval_set != str(evalset):
        raise SystemExit(f"ship_evalset: {score_config} scores {config.eval_set!r}, not the set being shipped ({name!r})")
    print(f"ship_evalset: scoring {len(config.surrogates)} baseline(s) on {len(rows)} rows", file=log)
    summary = asyncio.run(score(config, evalset / "score", progress=False))
    if not summary["complete"]: raise SystemExit(f"ship_evalset: the scoring run under {evalset / 'score'} is incomplete; rerun to resume")
    if note is None:  # shipping again (say, to add the label noise) keeps what the last ship said about the set
        old = dest / "MANIFEST.json"
        note = json.loads(old.read_text()).get("note", "") if old.is_file() else ""
    tmp = fresh_folder(dest)
    shutil.copyfile(evalset / "eval_set.jsonl", tmp / "eval_set.jsonl")
    shutil.copyfile(evalset / "score" / "predictions.jsonl", tmp / "predictions.jsonl")
    shutil.copyfile(evalset / "manifest.json", tmp / "build_manifest.json")
    if noise is not None: (tmp / "pair_noise.jsonl").write_text("".join(json.dumps(r) + "\n" for r in noise))
    per_pack_bin = {p: dict(sorted(Counter(int(b) for b in g.true_bin).items())) for p, g in rows.groupby("pack")}
    manifest = {"kind": "measured", "name": name, "hardware": build.get("config", {}).get("hardware") or str(rows.hardware.iloc[0]),
                "measured_on": (build.get("generated_at") or time.strftime("%Y-%m-%d"))[:10], "device": landscape_device(build),
                "tool": "gpu-forecasters build-evalset (config in build_manifest.json), shipped by tools/ship_evalset.py",
                "packs_measured": sorted(per_pack_bin), "rows_per_pack_bin": per_pack_bin,
                "note": note, "predictions": f"baseline surrogates ({score_config}): {', '.join(s.label for s in config.surrogates)}",
                # rows near a bin edge that the build kept without measuring them again (`build-evalset --from-log`); listed in build_manifest.json
                "near_edge_unverified": len(build.get("near_edge_unverified") or []),
                **({"label_noise": summarise(noise)} if noise is not None else {}),
                "files": {f: file_entry(tmp / f) for f in ("eval_set.jsonl", "predictions.jsonl", "build_manifest.json", "pair_noise.jsonl") if (tmp / f).exists()}}
    swap_in(tmp, dest, manifest)
    print(f"ship_evalset: wrote {dest} ({len(rows)} rows, {manifest['files']['predictions.jsonl']['rows']} predictions)", file=log)
    return manifest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Ship a built eval set as package data, with the baselines' predictions and a manifest")
    ap.add_argument("--evalset", required=True, type=Path, help="a build-evalset output folder")
    ap.add_argument("--score-config", required=True, help="the baselines to score it with (a score config, path or shipped name)")
    ap.add_argument("--dest", type=Path, default=None, help="the folder to write (default: gpu_forecasters/measured_data/<the set's name>)")
    ap.add_argument("--note", default=None, help="one line for the manifest (default: the note of the folder being replaced)")
    ap.add_argument("--pair-noise", type=Path, default=None, help="a measure_pair_noise.py output folder measured on this set: shipped as pair_noise.jsonl")
    args = ap.parse_args(argv)
    build = args.evalset / "manifest.json"
    if not build.is_file(): raise SystemExit(f"ship_evalset: {build}: missing; is {args.evalset} a build-evalset output folder?")
    dest = args.dest or ROOT / "gpu_forecasters" / "measured_data" / json.loads(build.read_text())["name"]
    ship(args.evalset, args.score_config, dest, args.note, args.pair_noise)
    return 0


if __name__ == "__main__":
    sys.exit(main())
