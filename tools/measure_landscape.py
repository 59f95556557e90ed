"""Measure a kernel landscape: every variant of the packs' variant spaces, each timed once against its pack's reference
with the hardened harness, in resumable batches.

    PYTHONPATH=$PWD python tools/measure_landscape.py --out gpu_forecasters/measured_data/landscape_h200 --budget-s 540
    python tools/measure_landscape.py --out /tmp/l --backend cpu --packs fp8_quant --limit 2     # a CPU check (correctness only)
    python tools/measure_landscape.py --out gpu_forecasters/measured_data/landscape_h200 --manifest   # rewrite MANIFEST.json only

Order: each pack's variants in a fixed shuffled order (seeded by the pack's name), the packs interleaved round-robin,
so that a landscape cut short by the device budget is an unbiased sample of every space rather than the first corner
of each. Every evaluation is appended to `<out>/measurements.jsonl` as it finishes (one write, fsynced): the variant's
id, space version and parameters, status and reason, the speedup and its CI, per-case medians and CIs, GPU-seconds and
wall time, and the device record and harness config of the run. A rerun skips every variant with a final result
(failures included: a candidate that is wrong is part of the landscape) and measures again what ended as an
infrastructure failure, unless the failure was a case too big for the device's memory (`insufficient_device_memory`):
that repeats on every rerun, so it is the variant's result on this device. `--budget-s` stops starting new evaluations
after that many seconds, so one call fits the device's per-command limit; the device's machine is fresh each session,
so the file in the repository is the state.

`--retest K` first measures again variants of each pack that an earlier run measured, until the pack has K retests
(a seeded random order of the correct ones, each retested once; a rerun with the same K measures no more), and appends
them to `<out>/retest.jsonl`: how far apart two runs' measurements of one kernel are is what a replay's draws need
(`search.landscape.retest_summary`). `--retest-where PACK:AXIS=VALUE` (e.g. `trimul:pdtype=bf16`) retests that pack's
variants with that parameter value instead, the failing ones too (correct ones first): a kernel whose error sits near
the tolerance can pass one run and fail the next, and the landscape's evaluator answers such a variant as its runs
went (`LandscapeEvaluator.measurement`).

    PYTHONPATH=$PWD python tools/measure_landscape.py --out landscape --packs trimul --retest 87 --retest-where trimul:pdtype=bf16 --budget-s 540
"""
import argparse, hashlib, json, os, random, sys, time
from pathlib import Path

DEFAULT_PACKS = ("fp8_quant", "trimul", "cross_entropy", "gdn_chunk_fwd_o")
RETRY_STATUSES = ("infra_failure",)  # measured again by a rerun; every other status is the variant's result
# The one infrastructure failure that is a result too: a case too big for the device fails the same way on every rerun
# there (trimul's unfused fp32 and tf32 variants on an 80 GB H100, 55 to 61 s each), and a landscape describes one
# device. The reason is the one the harness's judge_oom_verdict gives (the test builds its row with it).
DOES_NOT_FIT = "insufficient_device_memory"

def parse_rows(text: str) -> list:
    "The rows of a measurements file's text (a torn last line, from a killed run, is dropped)."
    rows = []
    for line in text.splitlines():
        try: rows.append(json.loads(line))
        except json.JSONDecodeError: pass
    return rows

def read_rows(log: Path) -> list:
    "The rows of a measurements file (none if it does not exist)."
    return parse_rows(log.read_text()) if log.exists() else []

def final_ids(log: Path) -> set:
    "Variant ids with a final result; rows to measure again, and a torn last line, are removed from the file (atomically)."
    text = log.read_text() if log.exists() else ""
    rows = parse_rows(text)
    kept = [r for r in rows if r["status"] not in RETRY_STATUSES or r.get("reason") == DOES_NOT_FIT]
    if len(kept) < len(rows) or (text and not text.endswith("\n")):
        tmp = log.with_name(log.name + ".tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in kept))
        os.replace(tmp, log)
    return {r["variant_id"] for r in kept}

def append_row(log: Path, row: dict):
    "One row, one write on an append-only descriptor, fsynced."
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(row) + "\n").encode())
        os.fsync(fd)
    finally: os.close(fd)

def plan(packs) -> list:
    "(pack, params) of every variant, each pack shuffled by a seed of its name, the packs interleaved."
    from gpu_forecasters.search.variants import get_space
    orders = []
    for pack in packs:
        points = list(get_space(pack).points)
        random.Random(f"landscape|{pack}").shuffle(points)
        orders.append([(pack, p) for p in points])
    out = []
    for i in range(max(map(len, orders), default=0)):
        out += [order[i] for order in orders if i < len(order)]
    return out

def parse_where(text: str) -> tuple:
    "(pack, axis, value) of a `--retest-where PACK:AXIS=VALUE`; ValueError with the expected form otherwise."
    pack, _, rest = text.partition(":")
    axis, eq, value = rest.partition("=")
    if not (pack and axis and eq and value): raise ValueError(f"--retest-where {text!r}: expected PACK:AXIS=VALUE, e.g. trimul:pdtype=bf16")
    return pack, axis, value

def retest_plan(rows: list, retests: list, packs, k: int, where: tuple | None = None) -> list:
    """(pack, params) of the variants to measure again so that each pack has k retests: correct ones not yet retested, in a seeded random order.
    `where` (pack, axis, value) retests that pack's variants whose axis has that value instead, failing ones too
    (correct ones first): a kernel near its tolerance can pass one run and fail the next, and only runs of both kinds show it."""
    from gpu_forecasters.search.variants import get_space
    again, plan_ = {r["variant_id"] for r in retests}, []
    for pack in packs:
        mine = [r for r in rows if r["pack"] == pack and r["variant_id"] not in again]
        if where is not None and where[0] == pack:
            mine = [r for r in mine if str(r["params"].get(where[1])) == where[2]]
            groups = [[r for r in mine if r["status"] == "ok"], [r for r in mine if r["status"] != "ok"]]
        else: groups = [[r for r in mine if r["status"] == "ok"]]
        order = []
        for group in groups:
            ids = sorted(r["variant_id"] for r in group)
            random.Random(f"retest|{pack}").shuffle(ids)
            order += ids
        plan_ += [(pack, get_space(pack).params_of_id(v)) for v in order[:max(0, k - sum(r["pack"] == pack for r in retests))]]
    return plan_

def row_of(pack: str, params: dict, ev, wall_s: float) -> dict:
    "The landscape row of one evaluation."
    from gpu_forecasters.search.variants import get_space
    space = get_space(pack)
    bench = [c for c in ev.per_case if c.kind == "benchmark"]
    def us(stats): return None if stats is None else round(stats.median_ns / 1e3, 3)
    return dict(variant_id=space.variant_id(params), pack=pack, space_version=space.version, params=params,
                status=ev.status, reason=ev.reason, message=(ev.message or "")[:300] or None,
                speedup=ev.reward, speedup_ci=ev.reward_ci, flags=ev.flags,
                cases=[dict(case_id=c.case_id, status=c.status, speedup=c.speedup, ci=c.speedup_ci,
                            candidate_us=us(c.candidate), anchor_us=us(c.anchor)) for c in bench], case_set=ev.case_set,
                gpu_seconds=round(ev.gpu_seconds, 3), wall_s=round(wall_s, 2), phases_s=ev.phases_s,
                candidate_sha256=ev.candidate_sha256, harness_version=ev.harness_version, backend=ev.backend,
                device=ev.device, config=ev.config, measured_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))

def write_manifest(out: Path):
    "MANIFEST.json: device, spaces (version, size), rows per pack and status, each file's rows and sha256."
    from gpu_forecasters.search.variants import get_space
    rows = read_rows(out / "measurements.jsonl")
    packs = sorted({r["pack"] for r in rows})
    device = next((r["device"] for r in rows if r["backend"] == "local"), rows[0]["device"] if rows else {})
    counts = {p: {} for p in packs}
    for r in rows: counts[r["pack"]][r["status"]] = counts[r["pack"]].get(r["status"], 0) + 1
    files, retests = {}, read_rows(out / "retest.jsonl")
    for name in ("measurements.jsonl", *(["retest.jsonl"] if retests else [])):
        data = (out / name).read_bytes() if (out / name).exists() else b""
        files[name] = {"rows": len(data.decode().splitlines()), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    manifest = {"kind": "landscape", "name": out.name, "hardware": device.get("name"),
                "device": {k: device.get(k) for k in ("name", "compute_capability", "sm_count", "l2_cache_bytes", "cuda_runtime", "torch", "triton", "python")},
                "tool": "tools/measure_landscape.py (every variant of each pack's variant space against the pack's reference; "
                        "hardened harness, paper cases, interleaved timing)",
                "spaces": {p: {"version": get_space(p).version, "size": len(get_space(p)), "measured": sum(counts[p].values())} for p in packs},
                "status_counts": counts, "files": files}
    if retests: manifest["retests"] = {p: sum(r["pack"] == p for r in retests) for p in sorted({r["pack"] for r in retests})}
    tmp = out / "MANIFEST.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=1) + "\n")
    os.replace(tmp, out / "MANIFEST.json")
    return manifest

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the landscape folder (measurements.jsonl, MANIFEST.json)")
    ap.add_argument("--packs", default=",".join(DEFAULT_PACKS))
    ap.add_argument("--backend", default="local", choices=("local", "cpu"))
    ap.add_argument("--budget-s", type=float, default=None, help="start no evaluation after this many seconds")
    ap.add_argument("--limit", type=int, default=None, help="measure at most this many variants")
    ap.add_argument("--ids", nargs="+", default=None, help="measure only these variant ids, in this order")
    ap.add_argument("--case-set", default="paper", help="the packs' case set (smoke: correctness only, for a CPU check)")
    ap.add_argument("--max-measured-s", type=float, default=1.5, help="timed seconds per benchmark case (EvalConfig.max_measured_s)")
    ap.add_argument("--retest", type=int, default=0, metavar="K", help="first measure again measured correct variants until each pack has K retests (retest.jsonl)")
    ap.add_argument("--retest-where", default=None, metavar="PACK:AXIS=VALUE", help="retest that pack's variants with that parameter value, failing ones too (e.g. trimul:pdtype=bf16)")
    ap.add_argument("--manifest", action="store_true", help="only rewrite MANIFEST.json")
    args = ap.parse_args(argv)
    try: where = None if args.retest_where is None else parse_where(args.retest_where)
    except ValueError as e: print(f"landscape: {e}", file=sys.stderr); return 2
    out = Path(args.out); out.mkdir(parents=True, exist_ok=True)
    log = out / "measurements.jsonl"
    if args.manifest: write_manifest(out); return 0
    from gpu_forecasters.backends import get_backend
    from gpu_forecasters.harness import EvalConfig, EvalRequest
    from gpu_forecasters.search.variants import get_space
    packs = [p for p in args.packs.split(",") if p]
    done = final_ids(log)
    if args.ids:
        todo = [(vid.partition("/")[0], get_space(vid.partition("/")[0]).params_of_id(vid)) for vid in args.ids]
        packs = sorted({pack for pack, _ in todo})
        todo = [(pack, p) for pack, p in todo if get_space(pack).variant_id(p) not in done]
    else: todo = [(pack, p) for pack, p in plan(packs) if get_space(pack).variant_id(p) not in done]
    if args.limit is not None: todo = todo[:args.limit]
    if where is not None:
        if where[0] not in packs: print(f"landscape: --retest-where names {where[0]}, not one of the packs measured ({', '.join(packs)})", file=sys.stderr); return 2
        axes = get_space(where[0]).by_name
        if where[1] not in axes: print(f"landscape: {where[0]} has no axis {where[1]} (axes: {', '.join(axes)})", file=sys.stderr); return 2
        values = [str(v) for v in axes[where[1]].values]
        if where[2] not in values: print(f"landscape: {where[0]}'s axis {where[1]} has no value {where[2]} (values: {', '.join(values)})", file=sys.stderr); return 2
    retest = retest_plan(read_rows(log), read_rows(out / "retest.jsonl"), packs, args.retest, where)
    total = sum(len(get_space(p)) for p in packs)
    done_here = sum(vid.partition("/")[0] in packs for vid in done)  # the count names the chosen packs only
    print(f"landscape: {done_here} of {total} variants measured, {len(todo)} to do now"
          + (f", {len(retest)} to measure again first" if retest else ""), file=sys.stderr, flush=True)
    config = EvalConfig(case_set=args.case_set, max_measured_s=args.max_measured_s, max_case_wall_s=30.0)
    started, measured = time.perf_counter(), 0
    device = "cuda" if args.backend == "local" else "cpu"
    backend = get_backend(args.backend, config=config, **({"devices": [0]} if args.backend == "local" else {}))
    try:
        for i, (pack, params, again) in enumerate([(pack, params, True) for pack, params in retest] + [(pack, params, False) for pack, params in todo]):
            elapsed = time.perf_counter() - started
            if args.budget_s is not None and elapsed > args.budget_s:
                print(f"landscape: budget of {args.budget_s:g} s spent after {i} variants; rerun to continue", file=sys.stderr, flush=True)
                break
            space = get_space(pack)
            t0 = time.perf_counter()
            ev = backend.submit(EvalRequest(pack, args.case_set, space.source(params), config=config, device=device)).result()
            row = row_of(pack, params, ev, time.perf_counter() - t0)
            if again:
                if ev.status not in RETRY_STATUSES: append_row(out / "retest.jsonl", row)
                print(f"[retest] {row['variant_id']:70} {ev.status:14} {'-' if ev.reward is None else f'{ev.reward:.3f}'} ({row['wall_s']:.1f} s)", file=sys.stderr, flush=True)
                continue
            append_row(log, row)
            measured += 1
            rate = (time.perf_counter() - started) / (i + 1)
            print(f"[{done_here + measured}/{total}] {row['variant_id']:70} {ev.status:14} "
                  f"{'-' if ev.reward is None else f'{ev.reward:.3f}'} ({row['wall_s']:.1f} s; {rate:.1f} s/variant, "
                  f"{(len(todo) - measured) * rate / 60:.0f} min left)", file=sys.stderr, flush=True)
    finally:
        backend.close()
        if log.exists(): write_manifest(out)
    return 0

if __name__ == "__main__":
    sys.exit(main())
