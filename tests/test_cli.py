"""End to end: the installed `gpu-forecasters` console script, run in a subprocess as a user runs it.

Covers the README's offline run command, strict metrics.json, byte-identical reruns, the exit codes (0, 2, 3, 130)
and one-line errors for bad input that name the file and the row.
"""
import csv, json, os, signal, subprocess, sys, time
from pathlib import Path
import pytest
from gpu_forecasters.data import SAMPLE_DIR
from tests.conftest import sigint_as_at_a_terminal

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')
KEYS = ('tab1_headline', 'paper_summary', 'fig1_calibration', 'fig2_forecast_error', 'fig3_per_pack',
        'fig4_kernel_search', 'fig5_discovery', 'throughput')

def run(*args, cwd=None, timeout=300):
    env = os.environ | {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'MPLBACKEND': 'Agg'}
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)

def no_constants(x): raise ValueError(f'non-strict JSON constant {x}')

def sample_lines(name): return (SAMPLE_DIR / name).read_text().splitlines()

def write_jsonl(path, rows): path.write_text(''.join(json.dumps(r) + '\n' for r in rows)); return path

def assert_one_line_error(result, *needles):
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    errors = [l for l in result.stderr.splitlines() if 'error:' in l]
    assert len(errors) == 1 and 'Traceback' not in result.stderr, result.stderr
    for needle in needles: assert needle in errors[0], (needle, errors[0])

def test_readme_run_command_writes_every_figure_offline(tmp_path):
    result = run('figures', '--eval-set', 'sample', '--predictions', 'sample', '--output-dir', 'out', cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = tmp_path / 'out'
    index = (out / 'index.html').read_text()
    for key in KEYS: assert f"id='{key}'" in index
    assert "synthetic sample, not the paper's results" in index
    for key in ('fig1_calibration', 'fig2_forecast_error', 'fig3_per_pack'):
        for ext in ('png', 'pdf'): assert (out / 'figures' / f'{key}.{ext}').stat().st_size > 1000
    for key in ('tab1_headline', 'tab1_headline_per_repeat', 'paper_summary', 'fig3_per_pack', 'data_report'):
        for ext in ('csv', 'md'): assert (out / 'tables' / f'{key}.{ext}').exists()
    manifest = json.loads((out / 'figures_manifest.json').read_text())
    assert manifest['options']['sample'] is True and manifest['skipped'] == {}
    first = {p.name: p.read_bytes() for p in (out / 'tables').iterdir()}
    assert run('figures', '--output-dir', 'out', cwd=tmp_path).returncode == 0
    assert {p.name: p.read_bytes() for p in (out / 'tables').iterdir()} == first

def test_figures_renders_search_and_discovery_keys_from_sample_and_project_runs(tmp_path):
    assert run('search', '--config', 'toy/standard.json', '--output-dir', tmp_path / 'runs' / 'toy').returncode == 0
    keys = ('fig4_kernel_search', 'fig5_discovery', 'throughput')
    result = run('figures', '--only', ','.join(keys), '--search-runs', tmp_path / 'runs', '--output-dir', 'out', cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = tmp_path / 'out'
    for key in keys:
        for ext in ('png', 'pdf'): assert (out / 'figures' / f'{key}.{ext}').stat().st_size > 1000
        for ext in ('csv', 'md'): assert (out / 'tables' / f'{key}.{ext}').exists()
    assert json.loads((out / 'figures_manifest.json').read_text())['skipped'] == {}
    import pandas as pd
    throughput = pd.read_csv(out / 'tables' / 'throughput.csv').set_index('run')
    for log in sorted((SAMPLE_DIR / 'search_events').glob('*__sample_*.jsonl')):  # counts straight from the sample's events
        kinds = [json.loads(l)['event_kind'] for l in log.read_text().splitlines()]
        row = throughput.loc[log.stem]
        assert (row.candidates_considered, row.paid_evaluations) == (kinds.count('mutation_completed'), kinds.count('evaluation_requested'))
        assert row.candidates_per_evaluation == kinds.count('mutation_completed') / kinds.count('evaluation_requested')
    summary = json.loads((tmp_path / 'runs' / 'toy' / 'summary.json').read_text())
    toy = throughput.loc['runs/toy']
    assert (toy.paid_evaluations, toy.redispatches, toy['mode']) == (summary['evaluations_paid'], 0, 'standard')
    trajectories = pd.read_csv(out / 'tables' / 'fig4_kernel_search.csv')
    for name, traj in trajectories.groupby('run'):
        assert traj.best_rel.iloc[0] == 1.0 and (traj.best_rel.diff().dropna() >= 0).all(), name
    logged = pd.read_csv(tmp_path / 'runs' / 'toy' / 'trajectory.csv')
    assert trajectories[trajectories.run == 'runs/toy'].best.tolist() == logged.best_reward.tolist()
    pairs = [json.loads(l) for l in sample_lines('discovery_pairs.jsonl')]
    discovery = pd.read_csv(out / 'tables' / 'fig5_discovery.csv')
    assert set(discovery.scope) == {'gpu_mode', 'kernelbench_l3', 'combined'} and discovery.surrogate.nunique() == 3
    assert (discovery[discovery.scope == 'combined'].base_rate == sum(p['g_speedup'] > 1 for p in pairs) / len(pairs)).all()
    assert discovery.ap_mean.between(0, 1).all()
    assert '[SAMPLE DATA]' in (out / 'index.html').read_text()
    missing = run('figures', '--eval-set', SAMPLE_DIR / 'eval_set.jsonl', '--only', 'throughput', '--strict', '--output-dir', tmp_path / 'o')
    assert_one_line_error(missing, 'no search logs')

def test_metrics_json_is_strict_and_complete(tmp_path):
    result = run('metrics', '--output-dir', tmp_path, '--json', '--n-bootstrap', '100')
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout, parse_constant=no_constants)
    written = json.loads((tmp_path / 'metrics.json').read_text(), parse_constant=no_constants)
    assert printed == written
    assert set(written) == {'_meta', 'sample_calibrated', 'sample_offbyone', 'sample_uniform'}
    stat = written['sample_uniform']['accuracy']['all']
    assert set(stat) == {'value', 'sd', 'ci95', 'pooled', 'n', 'by_repeat', 'by_pack'}
    assert written['sample_uniform']['parse_rate']['all']['value'] == 0.9
    assert (tmp_path / 'metrics.csv').read_text().startswith('surrogate,metric,population,scope,value,sd,ci95_low,ci95_high,pooled,n\n')
    json.loads((tmp_path / 'curves.json').read_text(), parse_constant=no_constants)

def test_hub_unreachable_exits_3_with_a_hint(tmp_path):
    for command in ('metrics', 'figures'):
        result = run(command, '--eval-set', 'hub', '--output-dir', tmp_path)
        assert result.returncode == 3, result.stderr
        assert '`--eval-set sample`' in result.stderr and 'Traceback' not in result.stderr

@pytest.fixture
def eval_rows(): return [json.loads(l) for l in sample_lines('eval_set.jsonl')]

@pytest.fixture
def pred_rows(): return [json.loads(l) for l in sample_lines('predictions.jsonl')]

def test_bad_eval_set_inputs_are_one_line_errors_naming_file_and_row(tmp_path, eval_rows):
    missing = write_jsonl(tmp_path / 'missing_column.jsonl', [{k: v for k, v in r.items() if k != 'true_bin'} for r in eval_rows])
    assert_one_line_error(run('metrics', '--eval-set', missing, '--output-dir', tmp_path / 'o'), 'missing_column.jsonl', 'true_bin')
    bad_type = write_jsonl(tmp_path / 'bad_type.jsonl', eval_rows[:7] + [eval_rows[7] | {'aggregated_speedup': 'fast'}] + eval_rows[8:])
    assert_one_line_error(run('metrics', '--eval-set', bad_type, '--output-dir', tmp_path / 'o'), 'bad_type.jsonl', 'aggregated_speedup', '7')
    row = eval_rows[3]
    wrong_bin = write_jsonl(tmp_path / 'wrong_bin.jsonl', eval_rows[:3] + [row | {'true_bin': row['true_bin'] % 8 + 1}] + eval_rows[4:])
    assert_one_line_error(run('metrics', '--eval-set', wrong_bin, '--output-dir', tmp_path / 'o'), 'wrong_bin.jsonl', row['comparison_id'])
    empty = tmp_path / 'empty.jsonl'; empty.write_text('')
    assert_one_line_error(run('figures', '--eval-set', empty, '--output-dir', tmp_path / 'o'), 'empty.jsonl', 'empty')

def test_bad_prediction_inputs_are_one_line_errors(tmp_path, pred_rows):
    row = pred_rows[5]
    wrong_pack = write_jsonl(tmp_path / 'wrong_pack.jsonl', pred_rows[:5] + [row | {'pack': 'no_such_pack'}] + pred_rows[6:])
    assert_one_line_error(run('metrics', '--predictions', wrong_pack, '--output-dir', tmp_path / 'o'), 'wrong_pack.jsonl', 'no_such_pack')
    unmatched = write_jsonl(tmp_path / 'unmatched.jsonl', [r | {'comparison_id': r['comparison_id'].rsplit('__', 1)[0] + '__' + 'f' * 12}
                                                           for r in pred_rows[:10]])
    assert_one_line_error(run('metrics', '--predictions', unmatched, '--output-dir', tmp_path / 'o'), 'unmatched.jsonl')
    assert_one_line_error(run('metrics', '--predictions', 'sample', '--predictions', 'sample', '--output-dir', tmp_path / 'o'), 'unique')
    assert_one_line_error(run('figures', '--surrogates', 'gemini3_flash', '--output-dir', tmp_path / 'o'), 'gemini3_flash')
    assert_one_line_error(run('figures', '--only', 'fig9', '--output-dir', tmp_path / 'o'), 'fig9')

def test_unwritable_output_dir_fails_before_loading(tmp_path):
    blocker = tmp_path / 'file'; blocker.write_text('x')
    assert_one_line_error(run('figures', '--output-dir', blocker / 'sub'), 'not writable')

def test_interrupt_exits_130(tmp_path):
    env = os.environ | {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1'}
    proc = subprocess.Popen([CLI, 'metrics', '--output-dir', tmp_path, '--n-bootstrap', '200000'], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_as_at_a_terminal)
    seen = []
    for line in proc.stderr:  # wait until the bootstrap of the first surrogate is under way
        seen.append(line)
        if line.startswith('metrics: '): break
    assert proc.poll() is None, ''.join(seen)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert 'interrupted' in err and 'Traceback' not in err

def test_measured_h200_eval_set_renders_offline_with_its_baseline_predictions(tmp_path):
    "The README's second offline run: the eval set measured on an H200, scored by the baseline surrogates."
    from gpu_forecasters.data import load_eval_set, load_predictions, measured_manifest
    result = run('figures', '--eval-set', 'h200', '--predictions', 'h200', '--output-dir', 'out', cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out, manifest = tmp_path / 'out', measured_manifest('h200')
    index = (out / 'index.html').read_text()
    assert "synthetic sample, not the paper's results" not in index
    for key in ('tab1_headline', 'fig1_calibration', 'fig2_forecast_error', 'fig3_per_pack'): assert f"id='{key}'" in index
    tab = (out / 'tables' / 'tab1_headline.csv').read_text().splitlines()
    n_rows = manifest['files']['eval_set.jsonl']['rows']
    assert [l.split(',')[:2] for l in tab[1:]] == [[s, str(n_rows)] for s in ('climatology', 'oracle_noise_0.5', 'uniform')]
    ev, preds = load_eval_set('h200'), load_predictions('h200')
    assert set(ev.hardware) == {'NVIDIA H200'} and set(preds.comparison_id) == set(ev.comparison_id)
    in_bin_4 = (ev.true_bin == 4).sum() / len(ev)  # the uniform forecast's argmax is bin 4 (12 of the 54 rows measured)
    assert 0 < in_bin_4 < 1 and ev.true_bin.nunique() == 8  # every bin populated
    assert [float(l.split(',')[7]) for l in tab[1:] if l.startswith('uniform')] == [in_bin_4]

def test_h200_landscape_eval_set_renders_offline_with_its_baseline_predictions(tmp_path):
    "The eval set built from the H200 landscape loads by name, 9 outcomes, and the figures run on it with its shipped predictions."
    from gpu_forecasters.data import load_eval_set, load_predictions, measured_manifest
    result = run('figures', '--eval-set', 'h200_landscape', '--predictions', 'h200_landscape', '--output-dir', 'out', cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    manifest, ev, preds = measured_manifest('h200_landscape'), load_eval_set('h200_landscape', outcomes=9), load_predictions('h200_landscape')
    assert len(ev) == manifest['files']['eval_set.jsonl']['rows'] >= 400 and set(ev.true_bin) == set(range(9))
    assert set(ev.hardware) == {'NVIDIA H200'} and set(preds.comparison_id) == set(ev.comparison_id)
    assert manifest['near_edge_unverified'] == 4  # the pairs the H200 did not come back for, flagged
    assert manifest['label_noise']['pairs'] == manifest['files']['pair_noise.jsonl']['rows'] == 30  # the label noise measured on it ships
    with open(tmp_path / 'out' / 'tables' / 'tab1_headline.csv') as f: tab = list(csv.DictReader(f))
    labels = ['climatology', 'cost_model_lopo', 'cost_model_seen', 'oracle_noise_0.5', 'uniform']
    assert [(r['surrogate'], int(r['n_comparisons'])) for r in tab] == [(s, len(ev)) for s in labels]
    half_brier = {r['surrogate']: float(r['half_brier_all_mean']) for r in tab}
    assert abs(half_brier['uniform'] - 4 / 9) < 1e-9  # 9 outcomes: 1/2 (1 - 1/9)
    assert half_brier['oracle_noise_0.5'] < half_brier['cost_model_seen'] < half_brier['climatology'] < half_brier['uniform']

def test_readme_landscape_search_reproduces_the_shipped_replay_run(tmp_path):
    "The README's offline real-kernel search: a shipped landscape-search config, run by the console script, is the shipped replay's seed-0 run of its arm; a rerun of the finished run changes nothing."
    from gpu_forecasters.search.replay import load_replay
    result = run('search', '--config', 'landscape_search/trimul__selective_cost_model.json', '--output-dir', 'out/ls', cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    run_dir = tmp_path / 'out' / 'ls'
    summary = json.loads((run_dir / 'summary.json').read_text())
    runs, _ = load_replay('h200')
    replayed = next(r for r in runs if (r['tags']['pack'], r['arm'], r['seed']) == ('trimul', 'selective_cost_model', 0))
    assert (summary['evaluations_paid'], summary['best_kernel_id']) == (64, replayed['summary']['best_kernel_id'])
    assert abs(summary['best_reward'] - replayed['best_reward'][-1]) < 1e-12
    assert '@triton.jit' in (run_dir / 'best_kernel.py').read_text() and (run_dir / 'trajectory.csv').exists()
    events = (run_dir / 'events.jsonl').read_bytes()
    again = run('search', '--config', 'landscape_search/trimul__selective_cost_model.json', '--output-dir', 'out/ls', cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads((run_dir / 'summary.json').read_text())['best_reward'] == summary['best_reward']
    assert (run_dir / 'events.jsonl').read_bytes()[:len(events)] == events  # the log is only ever appended to
