"""Pin every requirement of settings.ini at its declared lower bound, as a pip constraints file.

A lower bound nobody installs is a guess (settings.ini says which floors failed when tried, and were raised). This
writes `name==floor` for each `>=` requirement so that a fresh environment can be built at the floors and the tests
run there:

    python tools/floor_constraints.py --skip huggingface_hub > floors.txt
    pip install -c floors.txt torch==2.13.0 -e ".[dev]"
    python -m pytest -n 2 tests

`--skip` leaves a package to the resolver; huggingface_hub needs it with `[dev]`, whose transformers requires a newer
hub than the base floor (the base install alone runs at hub 0.23).
"""
import argparse, configparser, re, sys
from pathlib import Path

def _canonical(name: str) -> str: "A project name as pip compares them (PEP 503)."; return re.sub(r"[-_.]+", "-", name).lower()

def floor_pins(settings: Path, skip=()) -> list[str]:
    "`name==version` for every `name>=version` in settings.ini's `requirements`, markers kept, in their order."
    cfg = configparser.ConfigParser(); cfg.read(settings)
    skip = {_canonical(s) for s in skip}
    pins = []
    for req in cfg["DEFAULT"]["requirements"].split():
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)([^;]*)(;.*)?", req)  # name, specifiers, marker
        floor = re.search(r"(?:^|,)\s*>=\s*([^,\s]+)", m[2])  # without packaging: this runs before any install
        if floor and _canonical(m[1]) not in skip: pins.append(f"{m[1]}=={floor[1]}{m[3] or ''}")
    return pins

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--settings", type=Path, default=Path(__file__).resolve().parents[1] / "settings.ini")
    p.add_argument("--skip", nargs="*", default=[], help="packages to leave to the resolver")
    args = p.parse_args(argv)
    print("\n".join(floor_pins(args.settings, args.skip)))

if __name__ == "__main__": sys.exit(main())
