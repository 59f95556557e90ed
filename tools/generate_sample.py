"""Regenerate the bundled synthetic sample (gpu_forecasters/sample_data/) from `gpu_forecasters.data.generate_sample`.

    python tools/generate_sample.py           # rewrite the bundled files (seed 0) and MANIFEST.json
    python tools/generate_sample.py --check   # regenerate into a temporary folder and compare; exit 1 on a difference

Run it after changing the generator in nbs/04_data.ipynb (and `nbdev_export`); the notebook's test compares a fresh
generation with the bundled copy byte for byte.
"""
import argparse, sys, tempfile
from pathlib import Path
from gpu_forecasters.data import SAMPLE_DIR, generate_sample

def _differences(a: Path, b: Path, manifest: dict) -> list[str]:
    names = sorted(manifest["files"]) + ["MANIFEST.json"]
    return [n for n in names if not (b / n).is_file() or (a / n).read_bytes() != (b / n).read_bytes()]

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare a fresh generation with the bundled copy; write nothing")
    parser.add_argument("--seed", type=int, default=0, help="random seed (the bundled sample uses 0)")
    args = parser.parse_args(argv)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            manifest = generate_sample(tmp, seed=args.seed)
            diff = _differences(Path(tmp), SAMPLE_DIR, manifest)
        for name in diff: print(f"differs: {SAMPLE_DIR / name}")
        print("bundled sample is up to date" if not diff else f"{len(diff)} file(s) differ; run tools/generate_sample.py")
        return 1 if diff else 0
    manifest = generate_sample(SAMPLE_DIR, seed=args.seed)
    total = sum(f["bytes"] for f in manifest["files"].values())
    print(f"wrote {len(manifest['files'])} files ({total / 1024:.0f} KiB) and MANIFEST.json to {SAMPLE_DIR}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
