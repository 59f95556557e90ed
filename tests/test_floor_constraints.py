"""tools/floor_constraints.py: every `>=` requirement of settings.ini pinned at its floor, as pip reads constraints."""
import configparser, subprocess, sys
from pathlib import Path
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / 'tools' / 'floor_constraints.py'

def floors(*args, settings=ROOT / 'settings.ini'):
    r = subprocess.run([sys.executable, str(TOOL), '--settings', str(settings), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [Requirement(line) for line in r.stdout.splitlines()]

def test_each_floor_of_settings_is_pinned_once_with_its_marker():
    cfg = configparser.ConfigParser(); cfg.read(ROOT / 'settings.ini')
    declared = [Requirement(s) for s in cfg['DEFAULT']['requirements'].split()]
    lower = {r.name: (next(s.version for s in r.specifier if s.operator == '>='), r.marker) for r in declared
             if any(s.operator == '>=' for s in r.specifier)}
    pins = floors()
    assert {p.name: (next(iter(p.specifier)).version, p.marker) for p in pins} == lower
    assert all(str(p.specifier).startswith('==') for p in pins) and len(pins) == len(lower)
    assert 'fastcore' not in {p.name for p in pins}  # an upper bound only: nothing to pin
    assert {p.name: str(p.specifier) for p in pins}['numpy'] == '==1.26'

def test_skip_leaves_a_package_to_the_resolver(tmp_path):
    (tmp_path / 'settings.ini').write_text('[DEFAULT]\nrequirements = numpy>=1.26 huggingface-hub>=0.23 tqdm>=4.66,<5 '
                                           'landlock>=1.0.0.dev5;sys_platform=="linux"\n')
    assert [str(p) for p in floors('--skip', 'huggingface_hub', settings=tmp_path / 'settings.ini')] == [
        'numpy==1.26', 'tqdm==4.66', 'landlock==1.0.0.dev5; sys_platform == "linux"']
