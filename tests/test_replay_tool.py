"""End to end: tools/replay_landscape.py replays every arm on a landscape, one line per finished (pack, arm, seed) run,
writes a manifest naming the landscape and the arms, resumes without running anything again, and refuses a landscape
that is missing variants of a pack with one line and exit 2."""
import json, math, subprocess, sys
from pathlib import Path
from gpu_forecasters.search.variants import get_space

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / 'tools' / 'replay_landscape.py'

def run_tool(*args, cwd):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600)

def made_up_landscape(folder: Path, keep=None):
    space = get_space('fp8_quant')
    rows = []
    for p in space:
        s = 1.0 if p['impl'].startswith('torch') else 2 ** (0.3 + 0.1 * math.log2(p['GROUPS']))
        rows.append(dict(variant_id=space.variant_id(p), pack='fp8_quant', space_version=space.version, params=p, status='ok',
                         reason=None, message=None, speedup=s, speedup_ci=[s * 0.99, s * 1.01], flags=[], cases=[], gpu_seconds=6.0,
                         device={'name': 'NVIDIA H200', 'torch': '2.11.0', 'triton': '3.6.0'}, config={}))
    folder.mkdir()
    (folder / 'measurements.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows[:keep]))
    return folder

def test_replay_runs_resumes_and_refuses_a_partial_landscape(tmp_path):
    land, out = made_up_landscape(tmp_path / 'land'), tmp_path / 'replay'
    args = ('--landscape', land, '--packs', 'fp8_quant', '--seeds', 2, '--max-evaluations', 8, '--no-cost-model', '--max-steps', 20, '--out', out, '--jobs', 2)
    r = run_tool(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    runs = [json.loads(l) for l in (out / 'runs.jsonl').read_text().splitlines()]
    arms = ('standard', 'filtered_random', 'filtered_acc0.6', 'selective_random', 'selective_acc0.6')  # both rules by default
    assert sorted((x['arm'], x['seed']) for x in runs) == sorted((a, s) for a in arms for s in (0, 1))
    assert all(x['tags'] == {'pack': 'fp8_quant'} and len(x['best_reward']) == 9 and x['gpu_seconds'][0] == 6.0 for x in runs)
    assert all(x['summary']['evaluations_paid'] == 8 or x['summary']['steps_completed'] == 20 for x in runs)  # the budget, or the backstop
    assert all(b >= a for x in runs for a, b in zip(x['best_reward'], x['best_reward'][1:]))  # a best never decreases
    speedups = {json.loads(l)['speedup'] for l in (land / 'measurements.jsonl').read_text().splitlines()}
    assert all(len(x['best_true']) == 9 and set(x['best_true']) <= speedups for x in runs)  # the measured speedup of the best kernel
    manifest = json.loads((out / 'MANIFEST.json').read_text())
    assert (manifest['landscape'], manifest['seeds'], manifest['max_evaluations'], manifest['rules'], manifest['max_steps']) == ('land', 2, 8, ['paper', 'selective'], 20)
    assert set(manifest['arms']['fp8_quant']) == set(arms)
    assert all(x['data_sha256'] == manifest['arms']['fp8_quant'][x['arm']]['data_sha256'] for x in runs)  # runs know the data they were made on
    assert manifest['retest_sha256'] is None and manifest['between_run_sd'] == {'fp8_quant': 0.0097}  # no retests: the pack's constant
    r = run_tool(*args, cwd=tmp_path)  # resumed: nothing runs again
    assert r.returncode == 0 and '1/10' not in r.stdout, r.stdout[-2000:]
    assert len((out / 'runs.jsonl').read_text().splitlines()) == 10
    assert [x['seed'] for x in runs] == [0, 1] * 5  # two processes, and still written in (arm, seed) order
    r = run_tool(*args[:-2], '--jobs', 0, cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip() == 'replay: --jobs must be >= 1, got 0', r.stderr
    r = run_tool(*args, '--rules', 'paper,greedy', cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip() == 'replay: unknown rules greedy (valid: paper, selective)', r.stderr
    partial = made_up_landscape(tmp_path / 'partial', keep=100)
    r = run_tool('--landscape', partial, '--no-cost-model', '--out', tmp_path / 'p', cwd=tmp_path)
    assert r.returncode == 2 and 'has 100 of the 171 variants of fp8_quant' in r.stderr and not (tmp_path / 'p').exists(), r.stderr

def test_measured_only_walks_the_measured_part_and_says_so(tmp_path):
    "A landscape measured in part: --measured-only searches its measured variants, and the manifest records that and the coverage."
    partial, out = made_up_landscape(tmp_path / 'partial', keep=100), tmp_path / 'p'
    r = run_tool('--landscape', partial, '--packs', 'fp8_quant', '--seeds', 2, '--max-evaluations', 8, '--no-cost-model', '--rules', 'paper',
                 '--accuracies', '0.6', '--max-steps', 20, '--measured-only', '--out', out, '--jobs', 1, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'replay fp8_quant: searching the 100 measured of its 171 variants' in r.stdout, r.stdout[-2000:]
    manifest = json.loads((out / 'MANIFEST.json').read_text())
    assert (manifest['measured_only'], manifest['coverage']) == (True, {'fp8_quant': [100, 171]})
    assert all(cfg['config']['evaluator']['measured_only'] for cfg in manifest['arms']['fp8_quant'].values())
    runs = [json.loads(l) for l in (out / 'runs.jsonl').read_text().splitlines()]
    assert sorted((x['arm'], x['seed']) for x in runs) == [('filtered_acc0.6', 0), ('filtered_acc0.6', 1), ('standard', 0), ('standard', 1)]
    speedups = {json.loads(l)['speedup'] for l in (partial / 'measurements.jsonl').read_text().splitlines()}
    assert all(x['summary']['evaluations_paid'] > 0 and set(x['best_true']) <= speedups for x in runs)
    # a part that does not hold the space's start cannot be searched: one line, exit 2
    rows = (partial / 'measurements.jsonl').read_text().splitlines()
    (partial / 'measurements.jsonl').write_text('\n'.join(rows[2:]) + '\n')
    r = run_tool('--landscape', partial, '--no-cost-model', '--measured-only', '--out', tmp_path / 'q', cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip().endswith('is not among the 98 kept variants') and not (tmp_path / 'q').exists(), r.stderr

def test_a_changed_arm_replaces_its_old_runs_in_the_file(tmp_path):
    "Rerun with other settings for one pack: its old runs leave the file, the manifest describes what is left, and load_replay reads exactly that."
    from gpu_forecasters.search.replay import load_replay
    land, out = made_up_landscape(tmp_path / 'land'), tmp_path / 'replay'
    args = ('--landscape', land, '--packs', 'fp8_quant', '--seeds', 2, '--max-evaluations', 6, '--no-cost-model', '--rules', 'paper',
            '--accuracies', '0.6', '--max-steps', 20, '--out', out, '--jobs', 1)  # in-process: the first test covers --jobs 2
    assert run_tool(*args, cwd=tmp_path).returncode == 0
    other = json.dumps({'arm': 'standard', 'seed': 0, 'arm_hash': 'x', 'max_evaluations': 6, 'tags': {'pack': 'trimul'}})
    with open(out / 'runs.jsonl', 'a') as f: f.write(other + '\n')  # a run of a pack this invocation does not replay
    r = run_tool(*args, '--rules', 'selective', cwd=tmp_path)  # the filtered arm is now the selective one
    assert r.returncode == 0 and 'replay: dropped 2 runs of fp8_quant' in r.stdout, r.stdout[-2000:]
    lines = (out / 'runs.jsonl').read_text().splitlines()
    assert sorted((json.loads(l)['arm'], json.loads(l)['seed']) for l in lines if 'fp8_quant' in l) == [('selective_acc0.6', 0), ('selective_acc0.6', 1), ('standard', 0), ('standard', 1)]
    assert other in lines  # kept: not this invocation's pack
    runs, manifest = load_replay(out)
    assert len(runs) == 4 and {r['tags']['pack'] for r in runs} == {'fp8_quant'} and set(manifest['arms']['fp8_quant']) == {'standard', 'selective_acc0.6'}
