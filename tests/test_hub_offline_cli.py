"""End to end: a `hub` source without a reachable Hub fails at once with one line and exit code 3, instead of retrying
for half a minute. The offline variables are unset (as on a user's machine that lost its network) and `HF_ENDPOINT`
points at a local port where nothing listens, or where a socket listens and never answers; nothing leaves the machine.
The wall-clock bound only catches a hang (the retries took about 25 s); bench/ and the notes hold the real timing."""
import json, os, socket, subprocess, sys, time
from pathlib import Path
import pytest

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')
HANG_S = 10  # far above the probe's 3 s timeout, far below the ~25 s of the libraries' retries

def closed_endpoint():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return f'http://127.0.0.1:{s.getsockname()[1]}'  # released: nothing listens there

@pytest.fixture(params=['closed', 'never_answers'])
def endpoint(request):
    if request.param == 'closed':
        yield closed_endpoint(), 'Connection refused'
        return
    with socket.socket() as silent:  # the kernel accepts connections into the backlog; nobody reads or answers
        silent.bind(('127.0.0.1', 0)); silent.listen()
        yield f'http://127.0.0.1:{silent.getsockname()[1]}', 'no answer within'

def run_online(*args, endpoint, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ('HF_HUB_OFFLINE', 'HF_DATASETS_OFFLINE', 'TRANSFORMERS_OFFLINE')}
    env |= {'HF_ENDPOINT': endpoint, 'MPLBACKEND': 'Agg', 'LITELLM_LOCAL_MODEL_COST_MAP': 'True'}
    t0 = time.perf_counter()
    r = subprocess.run([CLI, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    return r, time.perf_counter() - t0

@pytest.mark.parametrize('args, option', [
    (('metrics', '--eval-set', 'hub', '--output-dir', 'out'), '--eval-set'),
    (('metrics', '--predictions', 'hub', '--output-dir', 'out'), '--predictions'),
])
def test_unreachable_hub_is_one_line_and_exit_3_at_once(tmp_path, endpoint, args, option):
    url, reason = endpoint
    r, wall_s = run_online(*args, endpoint=url, cwd=tmp_path)
    assert r.returncode == 3, r.stderr[-2000:]
    lines = [l for l in r.stderr.strip().splitlines() if not l.startswith('sample (')]  # the bundled eval set's own note
    assert len(lines) == 1, r.stderr  # no retry warnings, no traceback
    assert f'the Hub ({url}) cannot be reached: {reason}' in lines[0] and f'`{option} sample`' in lines[0], lines[0]
    assert 'connect to the network' in lines[0]
    assert wall_s < HANG_S, wall_s

def test_score_with_a_hub_eval_set_is_one_line_and_exit_3(tmp_path):
    url = closed_endpoint()
    config = tmp_path / 'config.json'
    config.write_text(json.dumps({'eval_set': 'hub', 'n_repeats': 1, 'surrogates': [{'label': 'u', 'backend': 'uniform'}]}))
    r, wall_s = run_online('score', '--config', config, '--output-dir', 'run', endpoint=url, cwd=tmp_path)
    assert r.returncode == 3, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and 'gpu-forecasters-eval-set' in lines[0] and 'cannot be reached' in lines[0], r.stderr
    assert wall_s < HANG_S, wall_s

def test_a_hub_source_in_a_config_is_named_once(tmp_path):
    "A config's `hub` source (the training pool here) has no command-line option to suggest: the one line names the dataset once."
    r, wall_s = run_online('train', '--config', 'training/correctness.json', '--output-dir', 'run', '--backend', 'local',
                           endpoint=closed_endpoint(), cwd=tmp_path)
    assert r.returncode == 3, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].count('gpu-forecasters-rl-training-pool') == 1, r.stderr
    assert 'cannot be reached' in lines[0] and 'use source `sample`' in lines[0], lines[0]
    assert wall_s < HANG_S, wall_s
