"""`gpu-forecasters score` with the paper's published LoRA adapters (`checkpoint: "hub:NAME"`) when the Hub cannot be
reached: exit code 3 and one line on stderr, before any model is loaded; a Hub adapter on Tinker or an unknown name is
a bad input (exit code 2).
"""
import json, os, socket, subprocess, sys, time
from pathlib import Path
import huggingface_hub.constants
import pytest
import gpu_forecasters.scoring  # imported before the clock starts: the time measured is the command's, not the imports'
from gpu_forecasters.data import CONFIG_DIR
from gpu_forecasters.runbook import EXIT_BAD_INPUT, EXIT_UNAVAILABLE, main

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')

def hub_config(tmp_path, name='correctness'):
    "The shipped config of a published adapter, on the bundled sample (so the adapter is the only thing from the Hub)."
    config = json.loads((CONFIG_DIR / 'trained_scoring' / f'hub_{name}.json').read_text())
    config['eval_set'] = 'sample'
    path = tmp_path / f'hub_{name}.json'
    path.write_text(json.dumps(config))
    return path

@pytest.fixture
def unreachable_hub(tmp_path, monkeypatch):
    "An empty Hugging Face cache and a Hub URL that refuses connections (whatever HF_HUB_OFFLINE says)."
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(huggingface_hub.constants, 'HF_HUB_CACHE', str(tmp_path / 'hf_cache'))
    monkeypatch.setattr(huggingface_hub.constants, 'ENDPOINT', f'http://127.0.0.1:{port}')

@pytest.mark.parametrize('name', ['correctness', 'correctness_brier', 'correctness_crps'])
def test_score_with_a_published_adapter_offline_exits_3_with_one_line(tmp_path, capsys, unreachable_hub, name):
    config = hub_config(tmp_path, name)
    t0 = time.perf_counter()
    code = main(['score', '--config', str(config), '--output-dir', str(tmp_path / 'out')])
    elapsed_s = time.perf_counter() - t0
    err = capsys.readouterr().err
    assert code == EXIT_UNAVAILABLE, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    repo = f"codezakh/gpu-forecasters-gpt-oss-20b-{name.replace('_', '-')}"
    assert lines[0].startswith(f'gpu-forecasters score: error: {repo} (config hub:{name}, revision main) is unavailable: '), err
    assert f'hf download {repo} --revision main' in lines[0] and 'set `checkpoint` to a local adapter directory' in lines[0]
    assert elapsed_s < 10, f'{elapsed_s:.2f} s: an unreachable Hub must fail without the Hub client\'s retries (about 25 s)'  # not a speed test

def test_score_with_hf_hub_offline_exits_3_in_a_subprocess(tmp_path):
    "The user's way: HF_HUB_OFFLINE=1 and a fresh HF_HOME, the console script, nothing patched."
    config = hub_config(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ('HF_HUB_CACHE', 'HF_ENDPOINT')}
    env |= {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'HF_HOME': str(tmp_path / 'hf_home')}
    p = subprocess.run([CLI, 'score', '--config', str(config), '--output-dir', str(tmp_path / 'out')], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == EXIT_UNAVAILABLE, p.stderr
    lines = [l for l in p.stderr.strip().splitlines() if not l.startswith('sample (eval_set.jsonl): ')]  # the sample's own notes
    assert len(lines) == 1 and lines[0].startswith('gpu-forecasters score: error: '), p.stderr  # no traceback, no retries
    assert 'codezakh/gpu-forecasters-gpt-oss-20b-correctness (config hub:correctness, revision main) is unavailable' in lines[0]
    assert 'HF_HUB_OFFLINE' in lines[0], p.stderr  # the cause says why: offline mode

@pytest.mark.parametrize('surrogate, message', [
    ({'label': 'hub_correctness', 'backend': 'tinker', 'checkpoint': 'hub:correctness'}, 'cannot be sampled on Tinker'),
    ({'label': 'hub_brier', 'backend': 'local', 'base_model': 'openai/gpt-oss-20b', 'checkpoint': 'hub:brier'},
     "unknown Hub adapter 'hub:brier'"),
])
def test_a_hub_adapter_on_tinker_or_an_unknown_name_is_bad_input(tmp_path, capsys, unreachable_hub, surrogate, message):
    config = tmp_path / 'config.json'
    config.write_text(json.dumps({'eval_set': 'sample', 'surrogates': [surrogate]}))
    code = main(['score', '--config', str(config), '--output-dir', str(tmp_path / 'out')])
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT, err
    assert len(err.strip().splitlines()) == 1 and message in err, err
