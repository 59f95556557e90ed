"""Measure a small real eval set on a CUDA GPU: for each GPU MODE pack, candidate kernels spread over the
speedup bins, each timed against the pack's reference with the hardened harness (the `local` back-end).

    PYTHONPATH=$PWD python tools/measure_evalset_gpu.py --out runs/h200_evalset [--packs fp8_quant,...] [--variants seed,...]

The candidates are generated from each pack's seed kernel and reference (so every one is a real, runnable kernel):

| variant | what it is | expected |
|---|---|---|
| `seed` | the pack's seed kernel | about 1 (the seeds re-implement the reference) |
| `reference` | the reference itself, as a candidate | 1 |
| `seed_x2`, `seed_x3`, `seed_x6` | the seed's work done 2, 3, 6 times per call (deliberately slowed) | 1/2, 1/3, 1/6 of the seed |
| `reference_compiled` | the reference under `torch.compile` (fusion) | above 1 where the reference is a chain of small ops |
| `seed_graph`, `seed_graph_x2`, `seed_graph_x4` | the seed captured once per input shape in a CUDA graph, the inputs copied into the graph's buffers and the graph replayed 1, 2 or 4 times | well above 1 for launch-bound kernels (the host's launch overhead is gone), then halved and quartered |

Every evaluation is appended to `<out>/measurements.jsonl` as it finishes (a rerun skips what succeeded and measures failures again), with the
status, the speedup and its CI, the per-case medians, the device record and the harness config; `eval_set.jsonl`
(the published eval-set schema, successful rows only, hardware from the device) and `MANIFEST.json` (what the loaders
check the files against) are rewritten after each pack. After adding rows to the shipped set
(`gpu_forecasters/measured_data/h200`), rescore it (`gpu-forecasters score --config baseline_scoring/baselines_h200.json
--output-dir D`, then copy `D/predictions.jsonl` there) and run `--rewrite` once more so the manifest covers it.
"""
import argparse, json, os, sys, time
from pathlib import Path

VARIANTS = ("seed", "reference", "seed_x2", "seed_x3", "seed_x6", "reference_compiled", "seed_graph", "seed_graph_x2", "seed_graph_x4")
PACKS = ("fp8_quant", "cross_entropy", "gdn_chunk_fwd_h", "gdn_chunk_fwd_o", "gdn_recompute_w_u", "trimul")

REPEAT = '''

# --- variant: the same work {n} times per call (deliberately slowed) ---
_variant_once = custom_kernel

def custom_kernel(data):
    for _ in range({n} - 1): _variant_once(data)
    return _variant_once(data)
'''
COMPILED = '''

# --- variant: the function under torch.compile ---
import torch as _variant_torch
_variant_compiled = _variant_torch.compile({fn}, dynamic=False)

def custom_kernel(data):
    return _variant_compiled(data)
'''
GRAPH = '''

# --- variant: captured in a CUDA graph per input shape, replayed {n} time(s) per call ---
import torch as _variant_torch
from torch.utils._pytree import tree_flatten as _variant_flatten, tree_unflatten as _variant_unflatten
_variant_eager = custom_kernel
_variant_graphs = {{}}

def _variant_key(leaves, spec):
    # tensors by shape and dtype, everything else (sizes, flags, config dicts' values) by value
    return str(spec), tuple((tuple(x.shape), x.dtype) if isinstance(x, _variant_torch.Tensor) else repr(x) for x in leaves)

def custom_kernel(data):
    leaves, spec = _variant_flatten(data)  # inputs may nest tensors in dicts (TriMul's weights)
    key = _variant_key(leaves, spec)
    entry = _variant_graphs.get(key)
    if entry is None:
        static = [x.clone() if isinstance(x, _variant_torch.Tensor) else x for x in leaves]
        static_data = _variant_unflatten(static, spec)
        side = _variant_torch.cuda.Stream()
        side.wait_stream(_variant_torch.cuda.current_stream())
        with _variant_torch.cuda.stream(side):
            for _ in range(3): _variant_eager(static_data)
        _variant_torch.cuda.current_stream().wait_stream(side)
        graph = _variant_torch.cuda.CUDAGraph()
        with _variant_torch.cuda.graph(graph): out = _variant_eager(static_data)
        entry = _variant_graphs[key] = (graph, static, out)
    graph, static, out = entry
    for dst, src in zip(static, leaves):
        if isinstance(dst, _variant_torch.Tensor): dst.copy_(src)
    for _ in range({n}): graph.replay()
    return tuple(t.clone() for t in out) if isinstance(out, (tuple, list)) else out.clone()
'''

def variant_source(pack, name: str) -> str:
    "The candidate source of one variant of a pack."
    from gpu_forecasters.harness import _anchor_source
    seed, reference = pack.seed_kernel, _anchor_source(pack)
    if name == "seed": return seed
    if name == "reference": return reference
    if name.startswith("seed_x"): return seed + REPEAT.format(n=int(name.removeprefix("seed_x")))
    if name == "reference_compiled": return reference + COMPILED.format(fn="custom_kernel")
    if name.startswith("seed_graph"): return seed + GRAPH.format(n=int(name.partition("_x")[2] or 1))
    raise ValueError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--packs", default=",".join(PACKS))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--max-measured-s", type=float, default=1.5, help="timed seconds per benchmark case (EvalConfig.max_measured_s)")
    ap.add_argument("--budget-s", type=float, default=None, help="stop starting new evaluations after this many seconds")
    ap.add_argument("--rewrite", action="store_true", help="only rewrite eval_set.jsonl and MANIFEST.json from measurements.jsonl (no GPU)")
    args = ap.parse_args(argv)
    if args.rewrite:
        from gpu_forecasters.bins import bin_of
        write_eval_set(Path(args.out), bin_of); return 0
    from gpu_forecasters.backends import LocalGPUBackend
    from gpu_forecasters.bins import bin_of
    from gpu_forecasters.harness import EvalConfig, EvalRequest, _anchor_source
    from gpu_forecasters.packs.core import get_pack
    out = Path(args.out); out.mkdir(parents=True, exist_ok=True)
    log = out / "measurements.jsonl"
    done = measured_variants(log)
    config = EvalConfig(max_measured_s=args.max_measured_s, max_case_wall_s=30.0)
    started = time.perf_counter()
    with LocalGPUBackend(devices=[0]) as backend:
        for pack_name in args.packs.split(","):
            pack = get_pack(pack_name)
            for variant in args.variants.split(","):
                if (pack_name, variant) in done: continue
                if args.budget_s and time.perf_counter() - started > args.budget_s:
                    write_eval_set(out, bin_of)
                    print(f"budget of {args.budget_s:g} s spent: stopping (rerun to continue)"); return 0
                code = variant_source(pack, variant)
                t0 = time.perf_counter()
                ev = backend.submit(EvalRequest(pack_name, "paper", code, config=config, device="cuda")).result()
                bench = [c for c in ev.per_case if c.kind == "benchmark"]
                record = dict(pack=pack_name, variant=variant, status=ev.status, reason=ev.reason, message=(ev.message or "")[:300] or None,
                              speedup=ev.reward, speedup_ci=ev.reward_ci, flags=ev.flags, wall_s=round(time.perf_counter() - t0, 1),
                              cases=[dict(case_id=c.case_id, speedup=c.speedup, ci=c.speedup_ci,
                                          candidate_us=c.candidate and round(c.candidate.median_ns / 1e3, 2),
                                          anchor_us=c.anchor and round(c.anchor.median_ns / 1e3, 2)) for c in bench],
                              device=ev.device, config=config.to_dict(), anchor_code=_anchor_source(pack), candidate_code=code)
                with open(log, "a") as f: f.write(json.dumps(record, default=str) + "\n")
                print(f"{pack_name:18} {variant:20} {ev.status:14} {ev.reward if ev.reward is None else round(ev.reward, 3)} "
                      f"{ev.reward_ci and [round(x, 3) for x in ev.reward_ci]} ({record['wall_s']} s)", flush=True)
            write_eval_set(out, bin_of)
    write_eval_set(out, bin_of)
    return 0

def measured_variants(log: Path) -> set:
    "The (pack, variant) pairs already measured successfully; failed rows are dropped from the log (atomically) so a rerun measures them again."
    if not log.exists(): return set()
    rows = [json.loads(l) for l in log.read_text().splitlines()]
    kept = [r for r in rows if r["status"] == "ok"]
    for r in rows:
        if r["status"] != "ok": print(f"{r['pack']:18} {r['variant']:20} measured again (last time {r['status']}: {str(r.get('message'))[:80]})")
    if len(kept) < len(rows):
        tmp = log.with_name(log.name + ".tmp")
        tmp.write_text("".join(json.dumps(r, default=str) + "\n" for r in kept))
        os.replace(tmp, log)
    return {(r["pack"], r["variant"]) for r in kept}

def write_eval_set(out: Path, bin_of):
    "eval_set.jsonl in the published schema from the successful measurements (atomic)."
    from gpu_forecasters.forecast import comparison_id
    rows = []
    for r in map(json.loads, (out / "measurements.jsonl").read_text().splitlines()):
        if r["status"] != "ok" or not r["speedup"]: continue
        a, c = r["anchor_code"], r["candidate_code"]
        rows.append(dict(comparison_id=comparison_id(r["pack"], a, c), pack=r["pack"], anchor_code=a, candidate_code=c,
                         hardware=r["device"].get("name", "unknown"), aggregated_speedup=r["speedup"], true_bin=bin_of(r["speedup"]),
                         source_id=f"h200/{r['pack']}/{r['variant']}", source_search="measured_variants", internal_experiment="h200_eval_set"))
    tmp = out / "eval_set.jsonl.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.replace(tmp, out / "eval_set.jsonl")
    write_manifest(out)

def write_manifest(out: Path):
    "MANIFEST.json of a measured set (the loaders check every file against it): device, packs, each file's rows and sha256."
    import hashlib
    measured = [json.loads(l) for l in (out / "measurements.jsonl").read_text().splitlines()]
    device = measured[0]["device"] if measured else {}
    packs = sorted({m["pack"] for m in measured})
    files = {}
    for name in ("eval_set.jsonl", "predictions.jsonl", "measurements.jsonl"):
        if (out / name).exists():
            data = (out / name).read_bytes()
            files[name] = {"rows": len(data.decode().splitlines()), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    previous = json.loads((out / "MANIFEST.json").read_text()) if (out / "MANIFEST.json").exists() else {}
    manifest = {"kind": "measured", "name": out.name, "hardware": device.get("name"),
                "measured_on": previous.get("measured_on") or time.strftime("%Y-%m-%d"),
                "device": {k: device.get(k) for k in ("name", "compute_capability", "sm_count", "l2_cache_bytes", "cuda_runtime", "torch", "triton", "python")},
                "tool": "tools/measure_evalset_gpu.py (variants of each pack's seed kernel and reference; local back-end, hardened harness, "
                        f"paper cases, interleaved timing, EvalConfig max_measured_s={measured[0]['config']['max_measured_s'] if measured else None})",
                "packs_measured": packs, "packs_missing": [p for p in PACKS if p not in packs],
                "variants_per_pack": {p: sum(m["pack"] == p for m in measured) for p in packs},
                **{k: previous[k] for k in ("note", "predictions") if k in previous},
                "files": files}
    tmp = out / "MANIFEST.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=1) + "\n")
    os.replace(tmp, out / "MANIFEST.json")

if __name__ == "__main__":
    sys.exit(main())
