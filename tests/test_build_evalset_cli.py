"""End to end: `gpu-forecasters build-evalset` as the installed console script.

Offline and fast:
* `--dry-run` on the shipped `evalset/sample.json` (the bundled paper-format sample logs) writes a schema-valid eval set,
  `dropped_rows.jsonl` and a manifest whose per-bin counts add up;
* a small real build on a toy search: the search runs from the CLI, then the builder harvests it (a relative log path,
  taken from the config's folder), fills short bins with goal-band toy searches and re-measures near-edge rows with the
  toy problem's evaluator, reporting each near-edge row and measurement on stderr in order; a rerun into the same
  directory resumes the finished fills and re-measurements and writes the same bytes;
* bad input gets one line on stderr and exit code 2 (unknown config key, another pack's log, a corrupt log line, an
  empty harvest, a missing config); an unreachable Hub gets exit code 3, and so does a failed `--push-to-hub`, after
  the local files were written;
* `mine-pairs` mines a toy search and a bundled paper log into one schema-valid discovery-pair file.
"""
import json, os, re, subprocess, sys
from pathlib import Path
from gpu_forecasters.data import load_eval_set

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')
ENV = os.environ | {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'LITELLM_LOCAL_MODEL_COST_MAP': 'True'}
DROP_REASONS = ('duplicate', 'leakage', 'strip_failed', 'unstable', 'capped', 'in_training_pool')
TOY_SEARCH = {'mode': 'standard', 'seed': 0, 'problem': {'kind': 'toy', 'length': 12, 'noise': 0.05},
              'search': {'batch_size': 2, 'samples_per_parent': 4, 'eval_per_parent': 4, 'archive_top_k': 2},
              'budgets': {'max_steps': 3}, 'mutator': {'kind': 'toy', 'flips': 1}, 'evaluator': {'kind': 'toy'}}

def cli(*args, timeout=300):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, env=ENV, timeout=timeout)

def write_json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj))
    return path

def counts_add_up(manifest: dict):
    for pack, bins in manifest['counts'].items():
        for b, c in bins.items():
            assert c['harvested'] + c['generated'] - sum(c[r] for r in DROP_REASONS) == c['final'], (pack, b, c)

def progress(stderr: str) -> list[str]:
    "The progress messages on stderr, elapsed times dropped."
    return [m.group(1) for m in (re.match(r'^gpu-forecasters build-evalset: \[\d+\.\d s\] (.*)$', l) for l in stderr.splitlines()) if m]

def one_error_line(r, code: int, contains: str):
    assert r.returncode == code, (r.returncode, r.stderr)
    errors = [line for line in r.stderr.splitlines() if 'error' in line]
    assert len(errors) == 1 and contains in errors[0], r.stderr
    assert 'Traceback' not in r.stderr

def test_dry_run_on_the_bundled_sample(tmp_path):
    r = cli('build-evalset', '--config', 'evalset/sample.json', '--output-dir', tmp_path / 'out', '--dry-run')
    assert r.returncode == 0, r.stderr
    out = tmp_path / 'out'
    manifest = json.loads((out / 'manifest.json').read_text())
    assert manifest['dry_run'] is True and manifest['fills'] == [] and manifest['remeasurements'] == []
    assert [i['run'] for i in manifest['inputs']] == ['trimul__sample_standard', 'trimul__sample_surrogate',
                                                      'cross_entropy__sample_standard', 'cross_entropy__sample_surrogate']
    assert all(len(i['sha256']) == 64 for i in manifest['inputs'])
    counts_add_up(manifest)
    df = load_eval_set(out / 'eval_set.jsonl')  # validated against the published schema
    assert len(df) == manifest['rows'] > 0 and sorted(df['pack'].unique()) == ['cross_entropy', 'trimul']
    assert df['comparison_id'].is_unique and (df.groupby(['pack', 'true_bin']).size() <= 10).all()
    assert len(load_eval_set(out / 'eval_set.parquet')) == len(df)
    assert (out / 'hub' / 'combined' / 'eval-00000-of-00001.parquet').is_file()
    assert len((out / 'dropped_rows.jsonl').read_text().splitlines()) == manifest['dropped']
    assert 'trimul: final per bin' in r.stderr

def test_real_build_on_a_toy_search(tmp_path):
    work = tmp_path / 'work'
    work.mkdir()
    r = cli('search', '--config', write_json(work / 'search.json', TOY_SEARCH | {'budgets': {'max_steps': 4}}), '--output-dir', work / 'run')
    assert r.returncode == 0, r.stderr
    config = {'name': 'toy_cli', 'hardware': 'toy', 'packs': [{'pack': 'toy', 'event_logs': [{'path': 'run', 'tag': 't0'}]}],
              'target_per_bin': {'4': 4, '5': 4, '6': 4}, 'cap_per_pack_bin': 4, 'fill': {'search_config': TOY_SEARCH},
              'remeasure': {'enabled': True, 'margin_log2': 0.1, 'n_repeats': 3}}
    cfg = write_json(work / 'build.json', config)
    r = cli('build-evalset', '--config', cfg, '--output-dir', tmp_path / 'out')  # run from elsewhere: 'run' is taken from the config's folder
    assert r.returncode == 0, r.stderr
    out = tmp_path / 'out'
    manifest = json.loads((out / 'manifest.json').read_text())
    counts_add_up(manifest)
    df = load_eval_set(out / 'eval_set.jsonl')
    sources = set(df['source_id'].str.split('/').str[0])
    assert 't0' in sources  # harvested from the search
    assert manifest['fills'], 'no bin was short, so nothing was filled'
    for fill in manifest['fills']:
        assert (out / fill['run_dir'] / 'events.jsonl').is_file() and fill['evaluations'] > 0
    assert sum(c['generated'] for c in manifest['counts']['toy'].values()) == sum(f['in_bin'] for f in manifest['fills'])
    assert manifest['remeasurements'] and all(len(m['measurements']) == 4 for m in manifest['remeasurements'])
    n = len(manifest['remeasurements'])
    lines = progress(r.stderr)
    # announced: the near-edge rows that can make the cap; each unstable one lets one more in
    announced = [l for l in lines if l.startswith('toy: re-measuring ')]
    assert len(announced) == 1 and announced[0].endswith(' near-edge rows, 3 measurements each'), r.stderr
    n0 = int(announced[0].split()[2])
    unstable = sum(not m['stable'] for m in manifest['remeasurements'])
    assert n0 <= n <= n0 + unstable, (n0, n, unstable)
    started = [l.rsplit(' (', 1)[0] for l in lines if ': started (remeasure/' in l]  # every measurement announced, in order
    assert started == [f'toy: near-edge row {j}/{max(n0, j)}: measurement {k}/3: started' for j in range(1, n + 1) for k in (1, 2, 3)], r.stderr
    assert (df.groupby('true_bin').size() <= 4).all()
    dropped = [json.loads(line) for line in (out / 'dropped_rows.jsonl').read_text().splitlines()]
    assert {d['reason'] for d in dropped} <= set(DROP_REASONS) and len(dropped) == manifest['dropped']
    before = (out / 'eval_set.jsonl').read_bytes()
    fill_logs = {f['run_dir']: (out / f['run_dir'] / 'events.jsonl').read_bytes() for f in manifest['fills']}
    r = cli('build-evalset', '--config', cfg, '--output-dir', out)  # a rerun resumes the finished fills: nothing new
    assert r.returncode == 0, r.stderr
    reused = [l for l in progress(r.stderr) if ': measurement ' in l]
    assert len(reused) == 3 * n and all(': finished before, reused (remeasure/' in l for l in reused), r.stderr
    assert (out / 'eval_set.jsonl').read_bytes() == before
    assert {d: (out / d / 'events.jsonl').read_bytes() for d in fill_logs} == fill_logs

def test_bad_input_is_one_line_and_exit_2(tmp_path):
    good = json.loads(Path(__file__).parents[1].joinpath('gpu_forecasters/configs/evalset/sample.json').read_text())
    one_error_line(cli('build-evalset', '--config', write_json(tmp_path / 'a.json', good | {'colour': 1}), '--output-dir', tmp_path / 'o1'),
                   2, 'colour')
    other = good | {'packs': [{'pack': 'fp8_quant', 'event_logs': [{'hub_config': 'trimul__sample_standard', 'source': 'sample', 'tag': 's'}]}]}
    one_error_line(cli('build-evalset', '--config', write_json(tmp_path / 'b.json', other), '--output-dir', tmp_path / 'o2'),
                   2, "a search of pack 'trimul', not 'fp8_quant'")
    run = tmp_path / 'run'
    assert cli('search', '--config', write_json(tmp_path / 's.json', TOY_SEARCH), '--output-dir', run).returncode == 0
    lines = (run / 'events.jsonl').read_text().splitlines(keepends=True)
    (run / 'events.jsonl').write_text(''.join(lines[:3] + ['{"kind": "step_started", "step": \n'] + lines[3:]))
    toy = {'name': 'bad', 'packs': [{'pack': 'toy', 'event_logs': [{'path': str(run), 'tag': 't'}]}], 'fill': {'enabled': False},
           'remeasure': {'enabled': False}}
    one_error_line(cli('build-evalset', '--config', write_json(tmp_path / 'c.json', toy), '--output-dir', tmp_path / 'o3'),
                   2, 'events.jsonl line 4')
    (run / 'events.jsonl').write_text(lines[0])  # only search_initialized: nothing was evaluated
    one_error_line(cli('build-evalset', '--config', write_json(tmp_path / 'd.json', toy), '--output-dir', tmp_path / 'o4'),
                   2, 'the harvest is empty')
    one_error_line(cli('build-evalset', '--config', tmp_path / 'missing.json', '--output-dir', tmp_path / 'o5'), 2, 'not found')
    assert not any((tmp_path / f'o{i}').exists() for i in range(1, 6))

def test_unreachable_hub_is_exit_3(tmp_path):
    hub = {'name': 'hub', 'packs': [{'pack': 'trimul', 'event_logs': [{'hub_config': 'trimul__e0090', 'source': 'hub', 'tag': 'e0090'}]}],
           'fill': {'enabled': False}, 'remeasure': {'enabled': False}}
    r = cli('build-evalset', '--config', write_json(tmp_path / 'hub.json', hub), '--output-dir', tmp_path / 'o')
    assert r.returncode == 3, r.stderr
    assert 'codezakh/gpu-forecasters-puct-search-events' in r.stderr and 'Traceback' not in r.stderr
    r = cli('build-evalset', '--config', 'evalset/sample.json', '--output-dir', tmp_path / 'push', '--push-to-hub', 'me/evalset')
    assert r.returncode == 3, r.stderr
    assert 'me/evalset' in r.stderr and (tmp_path / 'push' / 'eval_set.jsonl').is_file()

def test_build_from_the_recorded_h200_search(tmp_path):
    "The shipped `evalset/h200_search.json` on the recorded real run (a 2-step cross_entropy search on an NVIDIA H200)."
    root = Path(__file__).parents[1]
    run = root / 'tests' / 'data' / 'h200_search_cross_entropy'
    config = json.loads((root / 'gpu_forecasters' / 'configs' / 'evalset' / 'h200_search.json').read_text())
    assert config['packs'][0]['event_logs'][0]['path'] == 'tests/data/h200_search_cross_entropy'  # relative to the CWD
    config['packs'][0]['event_logs'][0]['path'] = str(run)
    r = cli('build-evalset', '--config', write_json(tmp_path / 'h200.json', config), '--output-dir', tmp_path / 'out')
    assert r.returncode == 0, r.stderr
    out = tmp_path / 'out'
    manifest = json.loads((out / 'manifest.json').read_text())
    counts_add_up(manifest)
    assert manifest['fills'] == [] and manifest['remeasurements'] == [] and manifest['dropped'] == 0
    assert manifest['inputs'][0]['format'] == 'project' and manifest['inputs'][0]['rows'] == 4
    df = load_eval_set(out / 'eval_set.jsonl')
    trajectory = {}  # request_id -> S (the search reward is the speedup)
    for line in (run / 'trajectory.csv').read_text().splitlines()[1:]:
        cells = line.split(',')
        trajectory[cells[4]] = float(cells[5])
    assert len(df) == manifest['rows'] == 4
    assert {s.split('/', 1)[1]: v for s, v in zip(df['source_id'], df['aggregated_speedup'])} == trajectory
    assert df['true_bin'].tolist() == [2, 3, 4, 4]  # 0.684, 0.945, then 1.377 and the seed's 1.003
    assert {b: c['final'] for b, c in manifest['counts']['cross_entropy'].items() if c['final']} == {'2': 1, '3': 1, '4': 2}
    assert sum(c['near_edge_unverified'] for c in manifest['counts']['cross_entropy'].values()) == 4  # all within 0.1 octave of an edge
    assert set(df['hardware']) == {'NVIDIA H200'} and set(df['pack']) == {'cross_entropy'}
    assert len(load_eval_set(out / 'eval_set.parquet')) == 4  # the builder writes no discovery pairs (mine_discovery_pairs does)

def test_mine_pairs_from_a_toy_search_and_a_sample_log(tmp_path):
    "`mine-pairs` on a toy search run from the CLI and a bundled paper log: one schema-valid file, one line per log; bad input exits 2 and writes nothing."
    from gpu_forecasters.data import load_discovery_pairs
    run = cli('search', '--config', write_json(tmp_path / 'toy.json', TOY_SEARCH), '--output-dir', tmp_path / 'toy')
    assert run.returncode == 0, run.stderr
    out = tmp_path / 'pairs' / 'discovery_pairs.parquet'
    r = cli('mine-pairs', '--log', tmp_path / 'toy', '--log', 'sample:cross_entropy__sample_standard', '--output', out)
    assert r.returncode == 0, r.stderr
    pairs = load_discovery_pairs(out)
    lines = r.stdout.strip().splitlines()
    per_log = [int(line.split(': ', 1)[1].split(' pairs')[0]) for line in lines[:2]]
    assert len(lines) == 3 and lines[-1].startswith(f'wrote {len(pairs)} discovery pairs') and sum(per_log) == len(pairs), r.stdout
    assert per_log[0] > 0 and per_log[1] > 0, r.stdout
    assert set(pairs['problem_id']) == {'toy', 'cross_entropy'} and pairs['pair_id'].is_unique
    # bad input: a missing log, a bare "sample", an unknown suffix; each one line, exit 2, nothing written
    one_error_line(cli('mine-pairs', '--log', tmp_path / 'nowhere', '--output', tmp_path / 'x.jsonl'), 2, 'no such file')
    one_error_line(cli('mine-pairs', '--log', 'sample', '--output', tmp_path / 'x.jsonl'), 2, 'sample:RUN')
    one_error_line(cli('mine-pairs', '--log', tmp_path / 'toy', '--output', tmp_path / 'x.csv'), 2, '.jsonl or .parquet')
    assert not (tmp_path / 'x.jsonl').exists() and not (tmp_path / 'x.csv').exists()

def test_budget_stops_with_exit_75_and_a_rerun_resumes(tmp_path):
    "`--budget-s`: past the budget no new re-measurement starts, the exit code is 75 and no eval set is written; the rerun finishes."
    from gpu_forecasters.data import resolve_config_path
    cfg = write_json(tmp_path / 'toy.json', json.loads(resolve_config_path('evalset/toy.json').read_text()) | {'remeasure': {'enabled': True, 'margin_log2': 1.0, 'n_repeats': 1}})
    out = tmp_path / 'out'
    r = cli('build-evalset', '--config', cfg, '--output-dir', out, '--budget-s', 0)
    assert r.returncode == 75, r.stderr[-2000:]
    last = r.stderr.strip().splitlines()[-1]
    assert 'the time budget ran out' in last and 'rerun the same command to continue' in last and 'Traceback' not in r.stderr, r.stderr[-2000:]
    assert not (out / 'eval_set.jsonl').exists() and not (out / 'remeasure.jsonl').exists()  # nothing measured, nothing written
    whole = cli('build-evalset', '--config', cfg, '--output-dir', out)
    assert whole.returncode == 0, whole.stderr[-2000:]
    measured = (out / 'remeasure.jsonl').read_text().splitlines()
    assert measured and any('near-edge row' in line for line in progress(whole.stderr))
    again = cli('build-evalset', '--config', cfg, '--output-dir', out, '--budget-s', 0)  # everything is in the log: the budget is never needed
    assert again.returncode == 0, again.stderr[-2000:]
    assert (out / 'remeasure.jsonl').read_text().splitlines() == measured
