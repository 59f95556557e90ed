"""End to end: tools/measure_pair_noise.py samples pairs of an eval set built from a landscape, measures each head to
head through the real sandboxed `cpu` back-end (smoke cases: correctness only, so no speedup), appends one row per
pair, writes a summary, and a rerun measures nothing again."""
import json, subprocess, sys
from pathlib import Path
from gpu_forecasters.evalset import build_eval_set
from gpu_forecasters.search.variants import get_space

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / 'tools' / 'measure_pair_noise.py'

def test_pairs_measured_head_to_head_summary_and_resume(tmp_path):
    space = get_space('fp8_quant')
    torch_points = [p for p in space if p['impl'].startswith('torch')][:3]
    rows = [dict(variant_id=space.variant_id(p), pack='fp8_quant', space_version=space.version, params=p, status='ok', reason=None,
                 message=None, speedup=s, speedup_ci=[s * 0.99, s * 1.01], flags=[], cases=[], gpu_seconds=5.0,
                 device={'name': 'NVIDIA H200'}, config={}) for p, s in zip(torch_points, (1.0, 1.6, 0.7))]
    (tmp_path / 'land').mkdir()
    (tmp_path / 'land' / 'measurements.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows))
    build_eval_set({'name': 'noise', 'hardware': 'NVIDIA H200', 'target_per_bin': 0, 'fill': {'enabled': False},
                    'remeasure': {'enabled': False}, 'packs': [{'pack': 'fp8_quant', 'landscape': {'name': str(tmp_path / 'land')}}]},
                   tmp_path / 'es')
    args = (sys.executable, str(TOOL), '--eval-set', tmp_path / 'es', '--out', tmp_path / 'noise', '--backend', 'cpu', '--case-set', 'smoke', '--n', 2)
    r = subprocess.run(list(map(str, args)), cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    measured = [json.loads(l) for l in (tmp_path / 'noise' / 'pair_noise.jsonl').read_text().splitlines()]
    assert len(measured) == 2 and all(m['status'] == 'ok' and m['remeasured_speedup'] is None for m in measured), measured
    assert {round(m['label_speedup'], 6) for m in measured} <= {1.6, 0.7, round(1 / 1.6, 6), round(0.7 / 1.6, 6), round(1 / 0.7, 6), round(1.6 / 0.7, 6)}
    def no_constants(x): raise ValueError(f'non-strict JSON constant {x}')
    summary = json.loads((tmp_path / 'noise' / 'summary.json').read_text(), parse_constant=no_constants)  # strict JSON: no NaN
    assert (summary['pairs'], summary['measured'], summary['by_status']) == (2, 0, {'ok': 2})
    assert (summary['flip_fraction'], summary['flip_fraction_ci95']) == (None, [None, None])
    assert (summary['failed_now'], summary['outcome_changed'], summary['outcome_change_ci95']) == (0, 0, [None, None])
    r = subprocess.run(list(map(str, args)), cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and '2 measured before, 0 to do' in r.stderr, r.stderr[-2000:]
    assert len((tmp_path / 'noise' / 'pair_noise.jsonl').read_text().splitlines()) == 2
