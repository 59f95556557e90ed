"""End to end: tables a user writes with pandas load in `gpu-forecasters metrics`, and the messages about inputs say
each thing once (a missing config, an output path that is a file, the bundled sample's planted duplicates)."""
import json, os, subprocess, sys
from pathlib import Path
import pandas as pd
from gpu_forecasters.data import load_eval_set, load_predictions

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')

def run(*args, cwd=None, timeout=300):
    env = os.environ | {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'MPLBACKEND': 'Agg'}
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)

def error_line(result, code=2):
    "The one stderr line of a failed command (no traceback, nothing else)."
    assert result.returncode == code, (result.returncode, result.stderr[-2000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and 'Traceback' not in result.stderr, result.stderr
    return lines[0]

def concat_written(df, path, index_name=None):
    "`df` written as users often do: two halves concatenated (row labels 0.., 0..: stored as `__index_level_0__`)."
    half = len(df) // 2
    both = pd.concat([df.iloc[:half].reset_index(drop=True), df.iloc[half:].reset_index(drop=True)])
    both.index.name = index_name
    both.to_parquet(path)
    return path

def metrics_of(out_dir):
    return {k: v['accuracy']['all']['value'] for k, v in json.loads((out_dir / 'metrics.json').read_text()).items() if k != '_meta'}

def test_parquet_written_by_pandas_with_any_index_loads(tmp_path):
    import pyarrow.parquet as pq
    evals, preds = load_eval_set('sample'), load_predictions('sample')
    eval_file = concat_written(evals, tmp_path / 'eval.parquet')
    pred_file = concat_written(preds, tmp_path / 'preds.parquet')
    named_file = concat_written(evals, tmp_path / 'eval_named.parquet', index_name='row')
    keyed_file = tmp_path / 'eval_keyed.parquet'
    evals.set_index('comparison_id').to_parquet(keyed_file)  # the id column itself as the index
    assert '__index_level_0__' in pq.read_schema(pred_file).names and 'row' in pq.read_schema(named_file).names
    reference = run('metrics', '--n-bootstrap', '0', '--output-dir', 'reference', cwd=tmp_path)
    assert reference.returncode == 0, reference.stderr
    for name, args in {'concat': ('--eval-set', eval_file, '--predictions', pred_file),
                       'named': ('--eval-set', named_file), 'keyed': ('--eval-set', keyed_file)}.items():
        result = run('metrics', *args, '--n-bootstrap', '0', '--output-dir', name, cwd=tmp_path)
        assert result.returncode == 0, (name, result.stderr[-2000:])
        assert metrics_of(tmp_path / name) == metrics_of(tmp_path / 'reference'), name

def test_missing_config_names_each_place_once(tmp_path):
    absent = tmp_path / 'absent.json'
    line = error_line(run('score', '--config', absent, '--output-dir', tmp_path / 'out'))
    assert line.count(str(absent)) == 1 and 'no such file' in line, line
    line = error_line(run('score', '--config', 'baseline_scoring/nope.json', '--output-dir', tmp_path / 'out'))
    assert 'no shipped config' in line and line.count('baseline_scoring/nope.json') == 2, line  # the name, the shipped path
    line = error_line(run('metrics', '--eval-set', tmp_path / 'nothing.parquet', '--output-dir', tmp_path / 'out'))
    assert line.count('nothing.parquet') == 1, line

def test_output_path_that_is_a_file_says_so(tmp_path):
    (tmp_path / 'taken').write_text('')
    assert error_line(run('metrics', '--output-dir', 'taken', cwd=tmp_path)).endswith("output directory 'taken' is a file, not a directory; name a new or existing directory")
    assert "'taken' is a file, not a directory" in error_line(run('metrics', '--output-dir', 'taken/run', cwd=tmp_path))

def test_sample_duplicates_are_one_short_line_each(tmp_path):
    result = run('metrics', '--n-bootstrap', '0', '--output-dir', 'out', cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    duplicates = [l for l in result.stderr.splitlines() if 'duplicate row(s)' in l]
    assert len(duplicates) == 2 and len(set(duplicates)) == 2, result.stderr  # the eval set's and the predictions'
    for line in duplicates:
        assert '--dedup' in line and 'return_report=True' in line and '__' not in line and len(line) < 200, line
