"""Check every registered kernel pack on a CUDA GPU, before the hardened harness exists to do it properly.

For each pack and each case of the chosen case sets: generate the input on the GPU, run the reference, load the
pack's seed kernel exactly as a candidate is loaded (`load_candidate`) and judge its output with the pack's oracle;
check that the reference is finite and meets the output contract, that inputs are bitwise-deterministic on the
device, and time reference and seed with CUDA events (median of 20 calls after 3 warm-up calls, no L2 flush: a preview,
not the harness's protocol). Prints one line per case and writes a JSON report.

    python tools/check_packs_gpu.py [--packs fp8_quant,trimul] [--case-sets paper,hardened] [--json out.json]

Needs only torch (the device machine has no other dependency of the package): run with PYTHONPATH=<repo root>.
"""
import argparse, json, sys, tempfile, time
from pathlib import Path
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gpu_forecasters.packs.core import get_pack, list_packs, load_candidate  # noqa: E402

def cuda_median_ms(fn, data, iters: int = 20, warmup: int = 3) -> float:
    for _ in range(warmup): fn(data)
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(); fn(data); end.record(); torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]

def check_pack(name: str, case_sets: list[str], workdir: Path) -> list[dict]:
    pack = get_pack(name)
    seed = load_candidate(pack.seed_kernel, pack, workdir / name)
    rows = []
    for cs_name in case_sets:
        if cs_name not in pack.case_sets: continue
        cs = pack.case_set(cs_name)
        for case in cs.cases():
            t0 = time.perf_counter()
            row = dict(pack=name, case_id=case.case_id, kind=case.kind, label=pack.format_case(case.args))
            try:
                data = pack.generate_input(case, "cuda")
                again = pack.generate_input(case, "cuda")
                row["deterministic"] = all(torch.equal(a, b) if isinstance(a, torch.Tensor) and not torch.isnan(a.float()).any() else True
                                           for a, b in zip(data, again) if isinstance(a, torch.Tensor))
                del again
                ref = pack.reference(data, cs.reference_variant)
                refs = (ref,) if isinstance(ref, torch.Tensor) else tuple(ref)
                row["reference_finite"] = all(bool(torch.isfinite(t.float()).all()) for t in refs)
                row["contract"] = [(tuple(t.shape), str(t.dtype)) for t in refs] == [(o.shape(case.args), str(o.dtype)) for o in pack.outputs]
                ok, message = pack.check(data, seed(data), case)
                row.update(seed_ok=ok, message=message[:300])
                if case.kind == "benchmark":
                    row["reference_ms"] = cuda_median_ms(lambda d: pack.reference(d, cs.reference_variant), data)
                    row["seed_ms"] = cuda_median_ms(seed, data)
                    row["seed_speedup"] = row["reference_ms"] / row["seed_ms"]
                del data, ref, refs
            except Exception as e:
                row.update(seed_ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
            torch.cuda.empty_cache()
            row["wall_s"] = round(time.perf_counter() - t0, 2)
            rows.append(row)
            timing = f" ref {row['reference_ms']:.3f} ms seed {row['seed_ms']:.3f} ms ({row['seed_speedup']:.2f}x)" if "seed_ms" in row else ""
            flags = "" if row.get("deterministic", True) and row.get("reference_finite", True) and row.get("contract", True) else " CONTRACT/DETERMINISM PROBLEM"
            print(f"{row['case_id']:<34} {row['label']:<52} seed {'ok' if row['seed_ok'] else 'FAIL'}{timing}{flags}"
                  + (f"  {row.get('error') or row.get('message')}" if not row["seed_ok"] else ""), flush=True)
    return rows

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--packs", default=None, help="comma-separated pack names (default: all registered)")
    p.add_argument("--case-sets", default="paper,hardened")
    p.add_argument("--json", default=None, help="write the report here")
    args = p.parse_args(argv)
    if not torch.cuda.is_available(): sys.exit("no CUDA device")
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name}, CC {props.major}.{props.minor}, {props.total_memory / 2**30:.0f} GiB, torch {torch.__version__}", flush=True)
    names = args.packs.split(",") if args.packs else list_packs()
    report = dict(device=props.name, torch=torch.__version__, packs={})
    with tempfile.TemporaryDirectory() as d:
        for name in names: report["packs"][name] = check_pack(name, args.case_sets.split(","), Path(d))
    rows = [r for rs in report["packs"].values() for r in rs]
    report["all_ok"] = all(r["seed_ok"] and r.get("deterministic", True) and r.get("reference_finite", True) and r.get("contract", True) for r in rows)
    print(f"{len(rows)} cases, seed ok on {sum(r['seed_ok'] for r in rows)}; all checks passed: {report['all_ok']}")
    if args.json: Path(args.json).write_text(json.dumps(report, indent=1))

if __name__ == "__main__": main()
