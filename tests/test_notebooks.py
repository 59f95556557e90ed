"""Every notebook is a test case: pytest runs each one as `nbdev_test` would, skipping the cells flagged in settings.ini,
each in a fresh Python process. Notebooks change process-wide state (environment variables such as TRITON_INTERPRET,
which Triton reads once at import; imported modules; patched libraries), so a notebook that ran earlier in the same
xdist worker must not decide whether the next one passes."""
import shutil, subprocess, sys, tempfile
from pathlib import Path
import pytest
from nbdev.config import get_config

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / 'nbs').rglob('*.ipynb')
                   if not any(part.startswith(('_', '.')) for part in p.relative_to(ROOT / 'nbs').parts))
RUN_ONE = ("import sys; from pathlib import Path; import nbdev.test as nbt\n"
           "ok, elapsed_s = nbt.test_nb(Path(sys.argv[1]), skip_flags=sys.argv[2].split(), showerr=True)\n"
           "sys.exit(0 if ok else 1)")

@pytest.fixture
def own_tempdir(monkeypatch):
    "A temporary folder of the notebook's own, for it and the processes it starts, removed afterwards: the notebooks' `mkdtemp`s leave nothing in /tmp."
    path = tempfile.mkdtemp(prefix='nb_')  # short: unix socket paths stay under their 108-byte limit
    monkeypatch.setenv('TMPDIR', path)
    monkeypatch.delenv('TORCHINDUCTOR_CACHE_DIR', raising=False)
    yield path
    shutil.rmtree(path, ignore_errors=True)

@pytest.mark.parametrize('notebook', NOTEBOOKS, ids=[str(p.relative_to(ROOT / 'nbs')) for p in NOTEBOOKS])
def test_notebook(notebook, own_tempdir):
    skip_flags = get_config(path=ROOT).tst_flags
    r = subprocess.run([sys.executable, '-c', RUN_ONE, str(notebook), skip_flags], capture_output=True, text=True,
                       cwd=notebook.parent)  # the environment, TMPDIR included, is inherited
    assert r.returncode == 0, f'{notebook.name} failed:\n{r.stderr[-6000:]}\n{r.stdout[-2000:]}'
