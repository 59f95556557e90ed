"""Edit notebooks as plain text (jupytext percent format), then rebuild, run and clean them.

    python tools/nbtext.py out nbs/06_metrics.ipynb       # writes .nbsrc/06_metrics.py (git-ignored) to edit
    python tools/nbtext.py in .nbsrc/06_metrics.py        # rebuilds nbs/06_metrics.ipynb, runs it, cleans it, exports
    python tools/nbtext.py in .nbsrc/analysis/tab1.py     # a file under .nbsrc/analysis/ goes to nbs/analysis/
    python tools/nbtext.py build .nbsrc/18_worker.py      # rebuilds and exports only (no run): quick iterations

The notebook stays the source of truth: the text file is a scratch copy. `in` keeps the notebook's cell ids where the
cell source is unchanged, exports it (so that worker processes it spawns import the new code), runs it in place with tools/run_nb.py
(stored outputs for the docs), then `nbdev_clean` and `nbdev_export`.
"""
import json, subprocess, sys
from pathlib import Path
import jupytext

ROOT = Path(__file__).resolve().parents[1]
KERNELSPEC = {'display_name': 'python3', 'language': 'python', 'name': 'python3'}

def _nb_path(src: Path) -> Path:
    rel = src.resolve().relative_to(ROOT / '.nbsrc')
    return ROOT / 'nbs' / rel.with_suffix('.ipynb')

def to_text(nb_path: Path) -> Path:
    out = ROOT / '.nbsrc' / nb_path.resolve().relative_to(ROOT / 'nbs').with_suffix('.py')
    out.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(jupytext.read(nb_path), out, fmt='py:percent')
    return out

def from_text(src: Path, run: bool = True) -> Path:
    nb_path = _nb_path(src)
    nb = jupytext.read(src, fmt='py:percent')
    old_ids = {}
    if nb_path.exists():
        for c in json.loads(nb_path.read_text())['cells']: old_ids.setdefault(''.join(c['source']), c.get('id'))
    for c in nb.cells:
        c.metadata = {}
        if old_ids.get(c.source): c['id'] = old_ids[c.source]
    nb.metadata = {'kernelspec': KERNELSPEC}
    nb_path.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, nb_path, fmt='ipynb')
    bin_dir = Path(sys.executable).parent
    # exported first: worker processes the notebook spawns import the library, not the notebook's session
    subprocess.run([str(bin_dir / 'nbdev_export')], check=True, cwd=ROOT)
    if not run: return nb_path
    subprocess.run([sys.executable, str(ROOT / 'tools' / 'run_nb.py'), str(nb_path)], check=True, cwd=ROOT)
    subprocess.run([str(bin_dir / 'nbdev_clean'), '--fname', str(nb_path)], check=True, cwd=ROOT)
    subprocess.run([str(bin_dir / 'nbdev_export')], check=True, cwd=ROOT)
    return nb_path

if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] not in ('in', 'out', 'build'): sys.exit(__doc__)
    for arg in sys.argv[2:]:
        if sys.argv[1] == 'out': print(to_text(Path(arg)))
        else: print(from_text(Path(arg), run=sys.argv[1] == 'in'))
