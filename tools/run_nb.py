"""Execute notebooks in place so that their stored outputs (which the docs show) are fresh.

    python tools/run_nb.py nbs/00_bins.ipynb nbs/01_forecast.ipynb   # or no argument: every notebook

Cells flagged with a test flag from settings.ini (`cuda`, `network`, `slow`, `notest`) or `#| eval: false` are not
run and keep no output. Each notebook runs in its own folder, like `nbdev_test`; the first error stops with the
notebook's traceback and a non-zero exit. Afterwards run `nbdev_clean` (the pre-commit routine does).
"""
import re, sys
from pathlib import Path
from execnb.nbio import read_nb, write_nb
from execnb.shell import CaptureShell
from fastcore.xtras import working_directory
from nbdev.config import get_config

def _flags(): return set(get_config().get('tst_flags', '').split())

def _skip(cell, flags):
    if cell.cell_type != 'code': return True
    directives = re.findall(r'^\s*#\|\s*(.*)$', cell.source, flags=re.M)
    words = {w.strip(':') for d in directives for w in d.split()}
    return bool(words & flags) or any(re.match(r'eval:\s*false', d, re.I) for d in directives)

def run_notebook(path:Path, flags:set):
    nb = read_nb(path)
    for cell in nb.cells:
        if cell.cell_type == 'code': cell.outputs, cell.execution_count = [], None
    shell = CaptureShell(path)
    with working_directory(path.parent):
        shell.run_all(nb, exc_stop=True, preproc=lambda c: _skip(c, flags))
    write_nb(nb, path)

if __name__ == '__main__':
    cfg = get_config()
    paths = [Path(p) for p in sys.argv[1:]] or sorted(p for p in Path(cfg.nbs_path).rglob('*.ipynb')
                                                      if not any(part.startswith(('_', '.')) for part in p.parts))
    for p in paths:
        print(f'running {p}', flush=True)
        run_notebook(p.resolve(), _flags())
