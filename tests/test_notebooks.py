"Every notebook is a test case: pytest runs each one as `nbdev_test` would, skipping the cells flagged in settings.ini."
import os, shutil, tempfile
from pathlib import Path
import pytest
import nbdev.test as nbt
from nbdev.config import get_config

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / 'nbs').rglob('*.ipynb')
                   if not any(part.startswith(('_', '.')) for part in p.relative_to(ROOT / 'nbs').parts))

@pytest.fixture
def own_tempdir(monkeypatch):
    "A temporary folder of the notebook's own, for it and the processes it starts, removed afterwards: the notebooks' `mkdtemp`s leave nothing in /tmp."
    path = tempfile.mkdtemp(prefix='nb_')  # short: unix socket paths stay under their 108-byte limit
    monkeypatch.setenv('TMPDIR', path)
    monkeypatch.setattr(tempfile, 'tempdir', path)
    monkeypatch.delenv('TORCHINDUCTOR_CACHE_DIR', raising=False)  # torch sets it to a folder in here on first use: unset again afterwards
    yield path
    shutil.rmtree(path, ignore_errors=True)

@pytest.mark.parametrize('notebook', NOTEBOOKS, ids=[str(p.relative_to(ROOT / 'nbs')) for p in NOTEBOOKS])
def test_notebook(notebook, capsys, own_tempdir):
    skip_flags = get_config(path=ROOT).tst_flags.split()
    ok, elapsed_s = nbt.test_nb(notebook, skip_flags=skip_flags, showerr=True)
    assert ok, f'{notebook.name} failed; its traceback is above'
