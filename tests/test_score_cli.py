"""End to end: `gpu-forecasters score` in a subprocess against the scripted OpenAI-compatible server.

Kill -9 at random moments and resume (the result equals an uninterrupted run), exit codes 0 / 2 / 3 / 130, and
one-line errors before any model call.
"""
import json, os, random, signal, subprocess, sys, time
from pathlib import Path
import pandas as pd
import pytest
from gpu_forecasters.data import load_eval_set, read_scoring_output
from gpu_forecasters.llm_server import ResponseScript, ScriptedLLMServer
from tests.conftest import sigint_as_at_a_terminal

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')
VOLATILE = ['elapsed_s']  # the only column that differs between two runs of the same tasks

def start(*args, cwd, env_extra=None):
    env = os.environ | {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'LITELLM_LOCAL_MODEL_COST_MAP': 'True'} | (env_extra or {})
    return subprocess.Popen([CLI, 'score', *map(str, args)], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=sigint_as_at_a_terminal)

def run(*args, cwd, timeout=300, env_extra=None):
    p = start(*args, cwd=cwd, env_extra=env_extra)
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err

@pytest.fixture
def server():
    with ScriptedLLMServer(ResponseScript([{'match': 'SCRIPT_PARSE_FAIL', 'kinds': ['text_only']}]), latency_s=0.02) as s:
        yield s

def write_config(path, server, **kw):
    config = {'eval_set': 'sample', 'n_repeats': 2, 'max_concurrency': 4, 'seed': 0, 'surrogates': [
        {'label': 'scripted', 'backend': 'litellm', 'model': 'openai/gpt-4o-mini', 'api_base': server.base_url},
        {'label': 'climatology', 'backend': 'climatology', 'training_rows': 'sample'}], **kw}
    path.write_text(json.dumps(config))
    return path

def predictions(out):
    return read_scoring_output(out).drop(columns=VOLATILE).reset_index(drop=True)

def test_kill_9_at_random_moments_then_resume_equals_an_uninterrupted_run(tmp_path, server):
    config = write_config(tmp_path / 'config.json', server)
    t0 = time.perf_counter()
    code, _, err = run('--config', config, '--output-dir', 'reference', cwd=tmp_path)
    assert code == 0, err
    whole = time.perf_counter() - t0  # the kill moments are fractions of it: on a fast machine a fixed 2-6 s can outlast the run
    reference = predictions(tmp_path / 'reference')
    n_tasks = len(reference)
    rng = random.Random(0)
    kills = 0
    for attempt in range(6):
        p = start('--config', config, '--output-dir', 'resumed', cwd=tmp_path)
        time.sleep(rng.uniform(0.15, 0.7) * whole)  # the first ~2-3 s import LiteLLM: kills land before and during the work
        if p.poll() is not None: break
        p.send_signal(signal.SIGKILL); p.communicate()
        kills += 1
        cache = list((tmp_path / 'resumed' / 'cache').rglob('*.json'))
        for f in cache: json.loads(f.read_text())  # atomic writes: no record is ever half written
    assert kills >= 1
    code, _, err = run('--config', config, '--output-dir', 'resumed', cwd=tmp_path)
    assert code == 0, err
    resumed = predictions(tmp_path / 'resumed')
    assert len(resumed) == n_tasks
    pd.testing.assert_frame_equal(resumed, reference)
    summary = json.loads((tmp_path / 'resumed' / 'summary.json').read_text())
    assert summary['complete'] is True

def test_rerun_makes_no_calls_and_debug_scores_one_row_per_pack(tmp_path, server):
    config = write_config(tmp_path / 'config.json', server)
    code, out, err = run('--config', config, '--output-dir', 'run', '--debug', cwd=tmp_path)
    assert code == 0, err
    packs = load_eval_set('sample').pack.nunique()
    assert len(server.requests) == packs and len(read_scoring_output(tmp_path / 'run')) == 2 * packs
    assert 'scripted' in out and 'complete' in out
    server.reset()
    code, _, err = run('--config', config, '--output-dir', 'run', '--debug', cwd=tmp_path)
    assert code == 0 and len(server.requests) == 0, err

def test_transport_failure_exits_3_and_the_rerun_finishes(tmp_path, server):
    server.script = ResponseScript(default='http_500')
    config = write_config(tmp_path / 'config.json', server, n_repeats=1,
                          surrogates=[{'label': 'scripted', 'backend': 'litellm', 'model': 'openai/gpt-4o-mini',
                                       'api_base': server.base_url, 'transport_retries': 0}])
    code, out, err = run('--config', config, '--output-dir', 'run', cwd=tmp_path)
    assert code == 3, err
    assert 'INCOMPLETE' in out
    rows = read_scoring_output(tmp_path / 'run')
    assert not rows.final.any() and set(rows.error_kind) == {'transport'}
    server.script = ResponseScript()
    code, _, err = run('--config', config, '--output-dir', 'run', cwd=tmp_path)
    assert code == 0, err
    assert read_scoring_output(tmp_path / 'run').final.all()

def test_api_key_reaches_the_server_and_appears_in_no_output_or_log(tmp_path, server):
    canary = 'sk-canary-7f3a9c1e'
    # trimul's rows (9 of the 50) get a 500 first: retries to log, without a 1-2 s backoff for every row
    server.script = ResponseScript([{'match': 'SCRIPT_PARSE_FAIL', 'kinds': ['text_only']}, {'match': 'trimul', 'kinds': ['http_500', 'valid']}])
    config = write_config(tmp_path / 'config.json', server, n_repeats=1, surrogates=[
        {'label': 'lean', 'backend': 'openai_http', 'model': 'gpt-4o-mini', 'api_base': server.base_url, 'key_env': 'CANARY_KEY',
         'transport_retries': 1}])
    code, out, err = run('--config', config, '--output-dir', 'run', cwd=tmp_path, env_extra={'CANARY_KEY': canary})
    assert code == 0, err
    assert server.requests and {r['authorization'] for r in server.requests} == {f'Bearer {canary}'}
    assert 'retrying' in err  # the retried 500s were logged, without the key
    files = [f for f in (tmp_path / 'run').rglob('*') if f.is_file()]
    assert len(files) > 10 and all(canary.encode() not in f.read_bytes() for f in files)
    assert canary not in out and canary not in err
    code, _, err = run('--config', config, '--output-dir', 'run2', cwd=tmp_path)  # the variable unset: a config error
    assert code == 2 and 'CANARY_KEY' in err and canary not in err

@pytest.mark.parametrize('change, needle', [
    ({'n_repeat': 2}, 'n_repeat'),
    ({'surrogates': [{'label': 'm', 'backend': 'litellm', 'model': 'x', 'openai_api_key': 'sk-1'}]}, 'API keys may not'),
    ({'surrogates': [{'label': 'u', 'backend': 'uniform'}, {'label': 'u', 'backend': 'uniform'}]}, 'duplicate surrogate label'),
    ({'surrogates': [{'label': 'g', 'backend': 'litellm', 'model': 'gemini/gemini-3-flash-preview'}]}, 'GEMINI_API_KEY'),
    ({'eval_set': 'T4_ROWS'}, "unknown device 'NVIDIA T4'"),
    ({'surrogates': [{'label': 't', 'backend': 'tinker', 'training_artifact': 'missing/training_artifact.json'}]}, 'cannot read training_artifact'),
])
def test_bad_configs_exit_2_before_any_call(tmp_path, server, change, needle):
    if change.get('eval_set') == 'T4_ROWS':
        rows = load_eval_set('sample').assign(hardware='NVIDIA T4')
        (tmp_path / 't4.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows.to_dict('records')))
        change = {'eval_set': str(tmp_path / 't4.jsonl')}
    config = write_config(tmp_path / 'config.json', server, **change)
    code, _, err = run('--config', config, '--output-dir', 'run', cwd=tmp_path)
    assert code == 2, err
    errors = [l for l in err.splitlines() if 'error:' in l]
    assert len(errors) == 1 and 'Traceback' not in err and needle in errors[0], err
    assert len(server.requests) == 0

def test_hub_eval_set_offline_exits_3_with_a_hint(tmp_path, server):
    config = write_config(tmp_path / 'config.json', server, eval_set='hub')
    code, _, err = run('--config', config, '--output-dir', 'run', cwd=tmp_path)
    assert code == 3, err
    assert 'eval_set sample' in err and 'Traceback' not in err

PROVIDER_KEYS = ('GEMINI_API_KEY', 'GOOGLE_API_KEY', 'TOGETHER_API_KEY', 'TOGETHERAI_API_KEY', 'TOGETHER_AI_API_KEY', 'TOGETHER_AI_TOKEN')

def run_without_keys(*args, cwd, env_extra=None):
    "`score` with no provider key in the environment and the Hub reachable as far as the command knows (no offline flags)."
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_KEYS + ('HF_HUB_OFFLINE', 'HF_DATASETS_OFFLINE')}
    env |= {'LITELLM_LOCAL_MODEL_COST_MAP': 'True', 'HF_ENDPOINT': 'http://127.0.0.1:9'} | (env_extra or {})  # port 9: nothing listens
    r = subprocess.run([CLI, 'score', *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr

def test_missing_key_is_reported_before_the_hub_eval_set_is_read(tmp_path):
    code, out, err = run_without_keys('--config', 'baseline_scoring/gemini3_flash.json', '--output-dir', 'run', cwd=tmp_path)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and 'GEMINI_API_KEY' in lines[0] and "surrogate 'gemini3_flash'" in lines[0], err
    assert 'huggingface' not in err.lower() and not (tmp_path / 'run' / 'cache').exists()

def test_the_documented_together_key_passes_the_key_check(tmp_path):
    code, _, err = run_without_keys('--config', 'baseline_scoring/gpt_oss_120b_together.json', '--output-dir', 'run',
                                    cwd=tmp_path, env_extra={'TOGETHER_API_KEY': 'sk-not-used'})
    assert code == 3 and 'TOGETHER' not in err, err  # past the key check, stopped by the unreachable Hub

def test_interrupt_exits_130_and_keeps_finished_rows(tmp_path, server):
    server.latency_s = 0.3
    config = write_config(tmp_path / 'config.json', server, max_concurrency=2)
    p = start('--config', config, '--output-dir', 'run', cwd=tmp_path)
    cache = tmp_path / 'run' / 'cache'
    deadline = time.time() + 60
    while time.time() < deadline and len(list(cache.rglob('*.json'))) < 20:  # some rows finished, many to go
        time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    summary = json.loads((tmp_path / 'run' / 'summary.json').read_text())
    assert summary['complete'] is False
    assert len(read_scoring_output(tmp_path / 'run')) == len(list(cache.rglob('*.json')))
