"""Conventions the docs build and the test flags rely on (TOOLCHAIN.md):

- nbdev's docs processing executes every cell that contains an import anywhere (even inside a function), ignoring
  test flags; so a non-exported cell with an import must hold imports only, or the docs build runs code whose inputs
  were never computed;
- a cell flagged `cuda`, `network` or `slow` must contain no import, or the docs build would execute it.
"""
import ast, json
from pathlib import Path
import pytest
from tests.test_notebooks import NOTEBOOKS, ROOT

FLAGS = {'cuda', 'network', 'slow'}

def _directives(source: str) -> set:
    return {w.strip(':') for line in source.splitlines() if line.lstrip().startswith('#|') for w in line.lstrip()[2:].split()}

def _problems(path: Path) -> list[str]:
    problems = []
    for i, cell in enumerate(json.loads(path.read_text())['cells']):
        if cell['cell_type'] != 'code': continue
        source = ''.join(cell['source'])
        if 'nbdev_export' + '()' in source: continue
        directives = _directives(source)
        try: tree = ast.parse('\n'.join(l for l in source.splitlines() if not l.lstrip().startswith(('%', '!'))))
        except SyntaxError: continue
        has_import = any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree))
        if not has_import: continue
        if directives & FLAGS: problems.append(f'cell {i}: flagged {sorted(directives & FLAGS)} but contains an import')
        elif not directives & {'export', 'exports', 'exporti'} and not all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in tree.body):
            problems.append(f'cell {i}: mixes imports with other code: {source.splitlines()[0][:80]!r}')
    return problems

@pytest.mark.parametrize('notebook', NOTEBOOKS, ids=[str(p.relative_to(ROOT / 'nbs')) for p in NOTEBOOKS])
def test_imports_live_in_their_own_cells(notebook):
    assert not _problems(notebook), '\n'.join(_problems(notebook))
