"""End to end: tools/ship_evalset.py scores the baselines on an eval set built from a landscape (with failure rows)
and writes the shipped folder: the builder's rows unchanged, the predictions, the builder's manifest, and a MANIFEST
whose sha256s match every file; a rerun resumes the scoring and writes the same folder; bad inputs fail in one line."""
import json, hashlib, subprocess, sys
from pathlib import Path
from gpu_forecasters.data import load_eval_set
from gpu_forecasters.evalset import build_eval_set
from gpu_forecasters.search.variants import get_space

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / 'tools' / 'ship_evalset.py'

def _landscape(folder: Path):
    space = get_space('fp8_quant')
    points = list(space)[:5]
    speedups = (1.0, 1.6, 0.7, 3.1, None)  # the last one fails
    rows = [dict(variant_id=space.variant_id(p), pack='fp8_quant', space_version=space.version, params=p,
                 status='ok' if s else 'incorrect', reason=None, message=None, speedup=s,
                 speedup_ci=[s * 0.99, s * 1.01] if s else None, flags=[], cases=[], gpu_seconds=5.0,
                 device={'name': 'NVIDIA H200'}, config={}) for p, s in zip(points, speedups)]
    folder.mkdir()
    (folder / 'measurements.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows))

def _run(*args, cwd):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600)

def test_ship_scores_writes_checked_files_and_resumes(tmp_path):
    _landscape(tmp_path / 'land')
    build_eval_set({'name': 'shipme', 'hardware': 'NVIDIA H200', 'target_per_bin': 0, 'failure_rows': True, 'fill': {'enabled': False},
                    'remeasure': {'enabled': False}, 'packs': [{'pack': 'fp8_quant', 'landscape': {'name': str(tmp_path / 'land')}}]},
                   tmp_path / 'built')
    built = load_eval_set(str(tmp_path / 'built' / 'eval_set.jsonl'), outcomes=9)
    assert (built.true_bin == 0).any() and len(built) == 4 * 3 + 4  # ordered pairs of the 4 correct variants, and each with the failing one
    config = {'eval_set': 'shipme', 'n_repeats': 1, 'seed': 0, 'surrogates': [
        {'label': 'uniform', 'backend': 'uniform'},
        {'label': 'climatology', 'backend': 'climatology', 'training_rows': 'eval_set:shipme'},
        {'label': 'cost_model', 'backend': 'cost_model', 'outcomes': 9}]}
    (tmp_path / 'score.json').write_text(json.dumps(config))
    dest = tmp_path / 'measured' / 'shipme'
    r = _run('--evalset', tmp_path / 'built', '--score-config', tmp_path / 'score.json', '--dest', dest, '--note', 'a test', cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    manifest = json.loads((dest / 'MANIFEST.json').read_text())
    for name, entry in manifest['files'].items():
        data = (dest / name).read_bytes()
        assert (entry['bytes'], entry['sha256']) == (len(data), hashlib.sha256(data).hexdigest()), name
    assert (dest / 'eval_set.jsonl').read_bytes() == (tmp_path / 'built' / 'eval_set.jsonl').read_bytes()
    preds = [json.loads(l) for l in (dest / 'predictions.jsonl').read_text().splitlines()]
    assert len(preds) == 3 * len(built) and {p['surrogate_label'] for p in preds} == {'uniform', 'climatology', 'cost_model'}
    assert {len(p['bin_probabilities']) for p in preds if p['surrogate_label'] == 'cost_model'} == {9}  # the failure outcome too
    assert manifest['rows_per_pack_bin']['fp8_quant']['0'] == 4 and manifest['note'] == 'a test' and manifest['name'] == 'shipme'
    assert manifest['files']['eval_set.jsonl']['rows'] == len(built)
    # re-measurement was off, so the rows near an edge went in unverified: the build lists them, the MANIFEST counts them
    listed = json.loads((tmp_path / 'built' / 'manifest.json').read_text())['near_edge_unverified']
    assert manifest['near_edge_unverified'] == len(listed) > 0
    # a rerun resumes the scoring (every forecast cached) and writes the same folder
    again = _run('--evalset', tmp_path / 'built', '--score-config', tmp_path / 'score.json', '--dest', dest, '--note', 'a test', cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads((dest / 'MANIFEST.json').read_text())['files'] == manifest['files']
    assert not (dest.parent / 'shipme.tmp').exists() and not (dest.parent / 'shipme.old').exists()

def test_ship_refuses_bad_inputs_in_one_line(tmp_path):
    r = _run('--evalset', tmp_path / 'nothing', '--score-config', 'baseline_scoring/baselines_sample.json', cwd=tmp_path)
    assert r.returncode != 0 and 'missing; is' in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    _landscape(tmp_path / 'land')
    build_eval_set({'name': 'shipme', 'hardware': 'NVIDIA H200', 'target_per_bin': 0, 'fill': {'enabled': False},
                    'remeasure': {'enabled': False}, 'packs': [{'pack': 'fp8_quant', 'landscape': {'name': str(tmp_path / 'land')}}]},
                   tmp_path / 'built')
    r = _run('--evalset', tmp_path / 'built', '--score-config', 'baseline_scoring/baselines_sample.json', '--dest', tmp_path / 'out' / 'shipme', cwd=tmp_path)
    assert r.returncode != 0 and "scores 'sample', not the set being shipped ('shipme')" in r.stderr, r.stderr[-2000:]
    assert not (tmp_path / 'out' / 'shipme').exists()

def test_h200_landscape_score_config_is_pointed_at_the_built_folder(tmp_path):
    "The shipped score config for the landscape set parses, and every mention of the set's name moves to the built folder."
    sys.path.insert(0, str(ROOT / 'tools'))
    from ship_evalset import pointed_at
    from gpu_forecasters.scoring import EVAL_SET_ROWS, load_score_config
    config = load_score_config('baseline_scoring/baselines_h200_landscape.json')
    labels = {s.label: s for s in config.surrogates}
    assert config.eval_set == 'h200_landscape' and labels['climatology'].training_rows == EVAL_SET_ROWS + 'h200_landscape'
    assert labels['cost_model_lopo'].hold_out_own_pack and labels['cost_model_lopo'].outcomes == 9  # scored on a pack it never saw
    assert {s.label: s.outcomes for s in config.surrogates} == dict.fromkeys(labels, 9)  # the set has failure rows: every reference forecasts them
    moved = pointed_at(config, 'h200_landscape', tmp_path / 'built')
    assert moved.eval_set == str(tmp_path / 'built')
    assert {s.label: getattr(s, 'training_rows', None) for s in moved.surrogates}['climatology'] == EVAL_SET_ROWS + str(tmp_path / 'built')
    assert pointed_at(config, 'other_set', tmp_path / 'built') == config  # a config of another set is left alone

def test_ship_with_pair_noise_carries_the_rows_and_their_summary(tmp_path):
    "--pair-noise ships the label-noise rows measured on the set, checked like the other files, with their summary; rows of another set are refused."
    _landscape(tmp_path / 'land')
    build_eval_set({'name': 'noisy', 'hardware': 'NVIDIA H200', 'target_per_bin': 0, 'fill': {'enabled': False},
                    'remeasure': {'enabled': False}, 'packs': [{'pack': 'fp8_quant', 'landscape': {'name': str(tmp_path / 'land')}}]},
                   tmp_path / 'built')
    built = load_eval_set(str(tmp_path / 'built' / 'eval_set.jsonl'))
    (tmp_path / 'score.json').write_text(json.dumps({'eval_set': 'noisy', 'n_repeats': 1, 'seed': 0, 'surrogates': [{'label': 'uniform', 'backend': 'uniform'}]}))
    from gpu_forecasters.bins import bin_of
    noise = tmp_path / 'noise'; noise.mkdir()
    rows = []
    for i, r in enumerate(built.head(4).itertuples()):  # two keep their bin, one flips (x2), one failed (no speedup)
        s = None if i == 3 else r.aggregated_speedup * (2.0 if i == 2 else 1.0)
        rows.append({'comparison_id': r.comparison_id, 'pack': r.pack, 'label_speedup': r.aggregated_speedup, 'label_bin': bin_of(r.aggregated_speedup),
                     'remeasured_speedup': s, 'remeasured_bin': None if s is None else bin_of(s),
                     'flipped': None if s is None else bin_of(s) != bin_of(r.aggregated_speedup), 'status': 'ok' if s else 'candidate_failed'})
    (noise / 'pair_noise.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows))
    dest = tmp_path / 'measured' / 'noisy'
    first = _run('--evalset', tmp_path / 'built', '--score-config', tmp_path / 'score.json', '--dest', dest, '--note', 'built for the test', cwd=tmp_path)
    assert first.returncode == 0 and 'label_noise' not in json.loads((dest / 'MANIFEST.json').read_text()), first.stderr[-3000:]
    # shipped again with the noise and no --note: the rows and their summary join, the note stays
    r = _run('--evalset', tmp_path / 'built', '--score-config', tmp_path / 'score.json', '--dest', dest, '--pair-noise', noise, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    manifest = json.loads((dest / 'MANIFEST.json').read_text())
    assert manifest['note'] == 'built for the test'
    data = (dest / 'pair_noise.jsonl').read_bytes()
    assert manifest['files']['pair_noise.jsonl'] == {'rows': 4, 'bytes': len(data), 'sha256': hashlib.sha256(data).hexdigest()}
    assert [json.loads(l) for l in data.decode().splitlines()] == rows
    ln = manifest['label_noise']
    assert (ln['pairs'], ln['measured'], ln['flipped']) == (4, 3, 1) and abs(ln['flip_fraction'] - 1 / 3) < 1e-12
    assert 0 < ln['flip_fraction_ci95'][0] < 1 / 3 < ln['flip_fraction_ci95'][1] < 1 and ln['by_status'] == {'candidate_failed': 1, 'ok': 3}
    # the failed re-measurement is a changed outcome (its label was a speedup), counted apart from the bin flips
    assert (ln['failed_now'], ln['failed_now_by_pack'], ln['outcome_changed']) == (1, {rows[3]['pack']: 1}, 2) and ln['outcome_change_fraction'] == 0.5
    assert ln['outcome_change_ci95'][0] < 0.5 < ln['outcome_change_ci95'][1]
    # a row measured on another build: refused in one line, the shipped folder left as it was
    (noise / 'pair_noise.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows + [{**rows[0], 'comparison_id': 'elsewhere'}]))
    bad = _run('--evalset', tmp_path / 'built', '--score-config', tmp_path / 'score.json', '--dest', dest, '--pair-noise', noise, cwd=tmp_path)
    assert bad.returncode != 0 and 'not in the set being shipped' in bad.stderr and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert (dest / 'pair_noise.jsonl').read_bytes() == data
    # rows without a speedup (a CPU back-end's plumbing check times nothing) are no label noise to ship
    (noise / 'pair_noise.jsonl').write_text(''.join(json.dumps({**r, 'remeasured_speedup': None, 'flipped': None}) + '\n' for r in rows))
    none = _run('--evalset', tmp_path / 'built', '--score-config', tmp_path / 'score.json', '--dest', dest, '--pair-noise', noise, cwd=tmp_path)
    assert none.returncode != 0 and 'no pair measured with a speedup yet (4 rows)' in none.stderr, none.stderr
