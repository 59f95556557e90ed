"""Pin every requirement of settings.ini at its declared lower bound, as a pip constraints file.

A lower bound nobody installs is a guess: `numpy>=1.26` was declared while the code called numpy 2's `np.strings`, and
`matplotlib>=3.8` while IPython 9 (what `ipykernel` brings today) breaks matplotlib 3.8's inline backend. This writes
`name==floor` for each `>=` requirement so that a fresh environment can be built at the floors and the tests run there:

    python tools/floor_constraints.py --skip huggingface_hub > floors.txt
    pip install -c floors.txt torch==2.13.0 -e ".[dev]"
    python -m pytest -n 2 tests

`--skip` leaves a package to the resolver; huggingface_hub needs it with `[dev]`, whose transformers requires a newer
hub than the base floor (the base install alone runs at hub 0.23).
"""
import argparse, configparser, re, sys
from pathlib import Path

def floor_pins(settings: Path, skip=()) -> list[str]:
    "`name==version` for every `name>=version` in settings.ini's `requirements`, markers kept, in their order."
    cfg = configparser.ConfigParser(); cfg.read(settings)
    skip = {s.lower().replace("-", "_") for s in skip}
    pins = []
    for req in cfg["DEFAULT"]["requirements"].split():
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)([^;]*)(;.*)?", req)  # name, specifiers, marker
        floor = re.search(r"(?:^|,)\s*>=\s*([^,\s]+)", m[2])  # without packaging: this runs before any install
        if floor and m[1].lower().replace("-", "_") not in skip: pins.append(f"{m[1]}=={floor[1]}{m[3] or ''}")
    return pins

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--settings", type=Path, default=Path(__file__).resolve().parents[1] / "settings.ini")
    p.add_argument("--skip", nargs="*", default=[], help="packages to leave to the resolver")
    args = p.parse_args(argv)
    print("\n".join(floor_pins(args.settings, args.skip)))

if __name__ == "__main__": sys.exit(main())
