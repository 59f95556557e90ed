"""End to end: `gpu-forecasters forecast` in a subprocess against the scripted OpenAI-compatible server.

One pair from two files (table and JSON), a file of pairs to predictions that a rerun resumes without a model call,
and bad input: one line, exit code 2, no model call, nothing written.
"""
import json, os, subprocess, sys
from pathlib import Path
import pytest
from gpu_forecasters.data import load_eval_set, read_scoring_output
from gpu_forecasters.llm_server import ResponseScript, ScriptedLLMServer

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')

def run(*args, cwd, timeout=300):
    env = os.environ | {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'LITELLM_LOCAL_MODEL_COST_MAP': 'True'}
    p = subprocess.run([CLI, 'forecast', *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr

@pytest.fixture
def server():
    with ScriptedLLMServer(ResponseScript([{'match': 'SCRIPT_PARSE_FAIL', 'kinds': ['text_only']}]), latency_s=0.01) as s:
        yield s

@pytest.fixture
def kernels(tmp_path):
    rows = load_eval_set('h200').drop_duplicates('comparison_id').head(4)
    (tmp_path / 'anchor.py').write_text(rows.anchor_code.iloc[0])
    (tmp_path / 'candidate.py').write_text(rows.candidate_code.iloc[0])
    config = {'label': 'scripted', 'backend': 'openai_http', 'model': 'gpt-4o-mini', 'usd_per_million_input': 0.15,
              'usd_per_million_output': 0.6}
    return rows, config

def test_one_pair_table_and_json(tmp_path, server, kernels):
    rows, config = kernels
    (tmp_path / 'c.json').write_text(json.dumps({**config, 'api_base': server.base_url}))
    args = ('--config', 'c.json', '--anchor', 'anchor.py', '--candidate', 'candidate.py', '--pack', rows.pack.iloc[0], '--hardware', 'H200')
    code, out, err = run(*args, '--repeats', '3', cwd=tmp_path)
    assert code == 0, err
    assert out.count('\n  bin ') == 8 and '<- stated' in out and 'P(faster)' in out and '3/3 repeats' in out
    assert len(server.requests) == 3
    code, out, err = run(*args, '--json', cwd=tmp_path)
    assert code == 0, err
    result = json.loads(out)
    assert result['bins'] == list(range(1, 9)) and abs(sum(result['probs']) - 1) < 1e-9
    assert result['cost_usd'] > 0 and result['input_tokens'] > 0 and result['n_forecasts'] == 1
    assert 0 <= result['p_faster'] <= 1 and 1 <= result['expected_bin'] <= 8

def test_pairs_to_predictions_and_resume(tmp_path, server, kernels):
    rows, config = kernels
    (tmp_path / 'c.json').write_text(json.dumps({'surrogates': [{**config, 'api_base': server.base_url}, {'label': 'uniform', 'backend': 'uniform'}]}))
    pairs = [{'pair_id': f'mine-{i}', 'pack': r.pack, 'anchor_code': r.anchor_code, 'candidate_code': r.candidate_code, 'hardware': 'H200'}
             for i, r in enumerate(rows.itertuples())]
    pairs[-1]['candidate_code'] += '\n# SCRIPT_PARSE_FAIL\n'  # the model answers this one with text only
    (tmp_path / 'pairs.jsonl').write_text(''.join(json.dumps(p) + '\n' for p in pairs))
    args = ('--config', 'c.json', '--surrogate', 'scripted', '--pairs', 'pairs.jsonl', '--output-dir', 'out', '--repeats', '2')
    code, out, err = run(*args, cwd=tmp_path)
    assert code == 0, err
    assert 'score:' in err and 'tokens' in err  # progress with tokens and cost on stderr
    calls = len(server.requests)
    predictions = read_scoring_output(tmp_path / 'out')
    assert len(predictions) == 2 * len(pairs) and set(predictions.surrogate_label) == {'scripted'}
    assert sorted(predictions.comparison_id.unique()) == sorted(f"{p['pack']}/{p['pair_id']}" for p in pairs)
    forecasts = [json.loads(l) for l in (tmp_path / 'out' / 'forecasts.jsonl').read_text().splitlines()]
    by_pair = {f['pair_id']: f for f in forecasts}
    assert set(by_pair) == {p['pair_id'] for p in pairs}
    assert by_pair['mine-3']['failed'] and by_pair['mine-3']['errors']
    assert all(by_pair[f'mine-{i}']['n_forecasts'] == 2 for i in range(3))
    summary = json.loads((tmp_path / 'out' / 'summary.json').read_text())
    assert summary['complete'] and summary['surrogates']['scripted']['cost_usd'] > 0
    assert summary['surrogates']['scripted']['accuracy_all'] is None  # unlabelled: no quality numbers
    before = (tmp_path / 'out' / 'predictions.parquet').read_bytes()
    code, out, err = run(*args, cwd=tmp_path)  # a rerun: every call cached
    assert code == 0, err
    assert len(server.requests) == calls and (tmp_path / 'out' / 'predictions.parquet').read_bytes() == before

@pytest.mark.parametrize('case', ['missing_anchor', 'unknown_pack', 'pair_without_code', 'no_output_dir', 'bad_label'])
def test_bad_input_is_one_line_and_exit_2(tmp_path, server, kernels, case):
    rows, config = kernels
    (tmp_path / 'c.json').write_text(json.dumps({**config, 'api_base': server.base_url}))
    (tmp_path / 'pairs.jsonl').write_text(json.dumps({'pair_id': 'x', 'pack': 'trimul', 'anchor_code': 'a = 1', 'candidate_code': ''}) + '\n')
    args, message = {
        'missing_anchor': (('--anchor', 'nope.py', '--candidate', 'candidate.py', '--pack', 'trimul'), 'nope.py: no such file'),
        'unknown_pack': (('--anchor', 'anchor.py', '--candidate', 'candidate.py', '--pack', 'trimull'), "unknown pack 'trimull'"),
        'pair_without_code': (('--pairs', 'pairs.jsonl', '--output-dir', 'out'), 'the pair has no candidate_code'),
        'no_output_dir': (('--pairs', 'pairs.jsonl'), '--pairs needs --output-dir'),
        'bad_label': (('--surrogate', 'other', '--anchor', 'anchor.py', '--candidate', 'candidate.py', '--pack', 'trimul'), "not 'other'"),
    }[case]
    code, out, err = run('--config', 'c.json', *args, cwd=tmp_path)
    assert code == 2 and err.count('\n') == 1 and 'Traceback' not in err, err
    assert message in err, err
    assert not server.requests and not (tmp_path / 'out' / 'predictions.parquet').exists()
