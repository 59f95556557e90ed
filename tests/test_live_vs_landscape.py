"""tools/live_vs_landscape.py end to end without a GPU: the "live" searches answered by the landscape itself (the
plumbing of the H200 check: two arms with one seed, each with its replay twin, every evaluation matched to its
landscape row, agreement and best variants in the summary)."""
import json, subprocess, sys
from pathlib import Path
from tests.test_replay_tool import made_up_landscape

TOOL = Path(__file__).resolve().parents[1] / 'tools' / 'live_vs_landscape.py'

def test_live_searches_are_matched_to_the_landscape(tmp_path):
    land = made_up_landscape(tmp_path / 'land')
    args = ('--pack', 'fp8_quant', '--landscape', land, '--evaluator', 'landscape', '--max-evaluations', 8,
            '--arms', 'standard,filtered_acc0.6', '--out', tmp_path / 'live')
    r = subprocess.run([sys.executable, str(TOOL), *map(str, args)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    summary = json.loads((tmp_path / 'live' / 'summary.json').read_text())
    assert [s['arm'] for s in summary] == ['standard', 'filtered_acc0.6']
    for s in summary:
        assert s['evaluations'] == 9 and s['compared'] == 9 and s['agree'] >= 8 and s['same_status'] == 9, s
        assert s['same_best'] and s['same_best_as_replay'] and s['best_live_speedup'] > 1.0, s
    rows = [json.loads(l) for l in (tmp_path / 'live' / 'comparison.jsonl').read_text().splitlines()]
    assert len(rows) == 18 and all(r['variant_id'].startswith('fp8_quant/') and r['landscape_status'] == 'ok' for r in rows)
    assert (tmp_path / 'live' / 'standard' / 'events.jsonl').exists() and (tmp_path / 'live' / 'standard_replay' / 'summary.json').exists()
