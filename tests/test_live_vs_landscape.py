"""tools/live_vs_landscape.py end to end without a GPU: the "live" searches answered by the landscape itself (the
plumbing of the H200 check: two arms with one seed, each with its replay twin, every evaluation matched to its
landscape row, agreement and best variants in the summary)."""
import hashlib, json, subprocess, sys
from pathlib import Path
from tests.test_replay_tool import made_up_landscape

TOOL = Path(__file__).resolve().parents[1] / 'tools' / 'live_vs_landscape.py'

def test_live_searches_are_matched_to_the_landscape(tmp_path):
    land = made_up_landscape(tmp_path / 'land')
    args = ('--pack', 'fp8_quant', '--landscape', land, '--evaluator', 'landscape', '--max-evaluations', 8,
            '--arms', 'standard,filtered_acc0.6', '--out', tmp_path / 'live', '--ship', tmp_path / 'shipped')
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
    # --ship: the comparison, the live arms' configs and event logs, and a MANIFEST whose sha256s match every file
    manifest = json.loads((tmp_path / 'shipped' / 'MANIFEST.json').read_text())
    assert sorted(manifest['files']) == ['comparison.jsonl', 'filtered_acc0.6.events.jsonl', 'filtered_acc0.6.json', 'standard.events.jsonl',
                                         'standard.json', 'summary.json']
    for name, entry in manifest['files'].items():
        data = (tmp_path / 'shipped' / name).read_bytes()
        assert (entry['bytes'], entry['sha256']) == (len(data), hashlib.sha256(data).hexdigest()), name
    assert manifest['files']['comparison.jsonl']['rows'] == 18 and manifest['arms'] == ['standard', 'filtered_acc0.6']
    assert manifest['backend'] == ['landscape'] and manifest['pack'] == 'fp8_quant' and len(manifest['measured_on']) == 10
    assert (tmp_path / 'shipped' / 'standard.events.jsonl').read_bytes() == (tmp_path / 'live' / 'standard' / 'events.jsonl').read_bytes()

def retest_triton_as_failed(land: Path) -> set:
    "Retest every Triton variant of a made-up landscape once, as incorrect (a kernel near its tolerance): returns their ids."
    rows = [json.loads(l) for l in (land / 'measurements.jsonl').read_text().splitlines()]
    flaky = {r['variant_id'] for r in rows if not r['params']['impl'].startswith('torch')}
    (land / 'retest.jsonl').write_text(''.join(json.dumps({**r, 'status': 'incorrect', 'reason': 'recheck', 'message': 'timed iteration 3: 2 elements off',
                                                           'speedup': None, 'speedup_ci': None}) + '\n' for r in rows if r['variant_id'] in flaky))
    return flaky

def run_tool(tmp_path, *args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], cwd=tmp_path, capture_output=True, text=True, timeout=600)

def test_a_variant_whose_runs_disagree_agrees_with_either_outcome(tmp_path):
    "Every Triton variant of the made-up landscape retested once as incorrect: the landscape answers it as a pass half the time, and either live outcome agrees."
    land = made_up_landscape(tmp_path / 'land')
    flaky = retest_triton_as_failed(land)
    r = run_tool(tmp_path, '--pack', 'fp8_quant', '--landscape', land, '--evaluator', 'landscape', '--max-evaluations', 16,
                 '--arms', 'standard', '--out', tmp_path / 'live')
    assert r.returncode == 0, r.stderr[-3000:]
    live = [json.loads(l) for l in (tmp_path / 'live' / 'comparison.jsonl').read_text().splitlines()]
    of_flaky = [x for x in live if x['variant_id'] in flaky]
    assert of_flaky and all((x['landscape_runs'], x['landscape_passes'], x['landscape_status']) == (2, 1, 'ok') for x in of_flaky)
    assert {x['live_status'] for x in of_flaky} == {'ok', 'incorrect'}  # the landscape's own answers: both outcomes
    assert all(x['same_status'] for x in live)
    summary = json.loads((tmp_path / 'live' / 'summary.json').read_text())[0]
    assert summary['of_flaky_variants'] == len(of_flaky) and summary['same_status'] == len(live)

def test_compare_only_matches_finished_runs_to_the_landscape_as_it_is_now(tmp_path):
    "Runs made before any retest, then compared again once retests have joined the landscape: the runs stay as they ran, the matching moves."
    land = made_up_landscape(tmp_path / 'land')
    common = ('--pack', 'fp8_quant', '--landscape', land, '--arms', 'standard', '--out', tmp_path / 'live')
    r = run_tool(tmp_path, *common, '--compare-only')
    assert r.returncode == 2 and 'no finished run' in r.stderr and 'without --compare-only' in r.stderr
    assert run_tool(tmp_path, *common, '--evaluator', 'landscape', '--max-evaluations', 8).returncode == 0
    events = {d: (tmp_path / 'live' / d / 'events.jsonl').read_bytes() for d in ('standard', 'standard_replay')}
    before = [json.loads(l) for l in (tmp_path / 'live' / 'comparison.jsonl').read_text().splitlines()]
    assert before and all(x['landscape_runs'] == 1 for x in before)
    flaky = retest_triton_as_failed(land)
    r = run_tool(tmp_path, *common, '--compare-only')
    assert r.returncode == 0, r.stderr[-3000:]
    assert {d: (tmp_path / 'live' / d / 'events.jsonl').read_bytes() for d in events} == events  # no search ran
    after = [json.loads(l) for l in (tmp_path / 'live' / 'comparison.jsonl').read_text().splitlines()]
    assert [x['request_id'] for x in after] == [x['request_id'] for x in before]
    of_flaky = [x for x in after if x['variant_id'] in flaky]
    assert of_flaky and all((x['landscape_runs'], x['landscape_passes']) == (2, 1) for x in of_flaky)
    summary = json.loads((tmp_path / 'live' / 'summary.json').read_text())[0]
    assert summary['of_flaky_variants'] == len(of_flaky) and summary['evaluations'] == len(before)
    assert not list((tmp_path / 'live').glob('*.tmp'))
