"Every notebook is a test case: pytest runs each one as `nbdev_test` would, skipping the cells flagged in settings.ini."
from pathlib import Path
import pytest
import nbdev.test as nbt
from nbdev.config import get_config

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / 'nbs').rglob('*.ipynb')
                   if not any(part.startswith(('_', '.')) for part in p.relative_to(ROOT / 'nbs').parts))

@pytest.mark.parametrize('notebook', NOTEBOOKS, ids=[str(p.relative_to(ROOT / 'nbs')) for p in NOTEBOOKS])
def test_notebook(notebook, capsys):
    skip_flags = get_config(path=ROOT).tst_flags.split()
    ok, elapsed_s = nbt.test_nb(notebook, skip_flags=skip_flags, showerr=True)
    assert ok, f'{notebook.name} failed; its traceback is above'
