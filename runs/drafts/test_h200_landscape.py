# for tests/test_cli.py (uses its `run` helper)
def test_h200_landscape_eval_set_renders_offline_with_its_baseline_predictions(tmp_path):
    "The eval set built from the H200 landscape loads by name, 9 outcomes, and the figures run on it with its shipped predictions."
    from gpu_forecasters.data import load_eval_set, load_predictions, measured_manifest
    result = run('figures', '--eval-set', 'h200_landscape', '--predictions', 'h200_landscape', '--output-dir', 'out', cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    manifest, ev, preds = measured_manifest('h200_landscape'), load_eval_set('h200_landscape', outcomes=9), load_predictions('h200_landscape')
    assert len(ev) == manifest['files']['eval_set.jsonl']['rows'] >= 400 and set(ev.true_bin) == set(range(9))
    assert set(ev.hardware) == {'NVIDIA H200'} and set(preds.comparison_id) == set(ev.comparison_id)
    import csv
    with open(tmp_path / 'out' / 'tables' / 'tab1_headline.csv') as f: tab = list(csv.DictReader(f))
    labels = ['climatology', 'cost_model_lopo', 'cost_model_seen', 'oracle_noise_0.5', 'uniform']
    assert [(r['surrogate'], int(r['n_comparisons'])) for r in tab] == [(s, len(ev)) for s in labels]
    half_brier = {r['surrogate']: float(r['half_brier_all_mean']) for r in tab}
    assert abs(half_brier['uniform'] - 4 / 9) < 1e-9  # 9 outcomes: 1/2 (1 - 1/9)
    assert half_brier['oracle_noise_0.5'] < half_brier['cost_model_seen'] < half_brier['climatology'] < half_brier['uniform']
    assert manifest['label_noise']['pairs'] == 30
