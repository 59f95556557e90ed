"""End to end, offline: `gpu-forecasters train` with the local back-end on a random Harmony model (the real prompt
format, random weights), its resume, and `gpu-forecasters score` of the adapter it trained, in subprocesses.

The shipped `training/local_debug.json` + `--debug` run samples 2 x 1024 tokens on the CPU, which takes a minute or
more on a busy 2-core machine: that test is marked `slow`. The fast variant runs the same commands with the shipped
configs cut to a few tokens (and `on_all_constant: "keep_one"`, so the step also runs forward_backward and optim_step).
"""
import json, os, subprocess, sys
from pathlib import Path
import pytest
from gpu_forecasters.data import read_scoring_output

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')
CONFIGS = Path(__file__).resolve().parents[1] / 'gpu_forecasters' / 'configs'
RUN_DIR = 'runs/train_local_debug'  # where trained_scoring/local_debug.json looks for the artifact (relative to the CWD)
PREDICTION_COLUMNS = {'comparison_id', 'pack', 'surrogate_label', 'repeat', 'predicted_bin', 'bin_probabilities',
                      'parse_failed', 'parse_error', 'input_tokens', 'output_tokens', 'model_id', 'finish_reason',
                      'error_kind', 'final', 'config_hash', 'prompt_sha256'}

def cli(*args, cwd, env=None, timeout=900):
    base = {k: v for k, v in os.environ.items() if k != 'TINKER_API_KEY'}
    base |= {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'LITELLM_LOCAL_MODEL_COST_MAP': 'True'} | (env or {})
    return subprocess.run([CLI, *map(str, args)], cwd=cwd, env=base, capture_output=True, text=True, timeout=timeout)

def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]

def check_training_run(run: Path, n_steps: int):
    "The files of a finished local run, with adapters that carry the random base's fingerprint."
    artifact = json.loads((run / 'training_artifact.json').read_text())
    assert (artifact['backend'], artifact['base_model'], artifact['steps_run']) == ('local', 'random:harmony-tiny', n_steps)
    assert artifact['checkpoint_uri'] == f"file://{(run / 'checkpoints' / 'final' / 'adapter').resolve()}"
    lines = read_jsonl(run / 'metrics.jsonl')
    assert [m['step'] for m in lines] == list(range(1, n_steps + 1))
    for m in lines:
        assert m['n_samples'] == m['n_groups'] * 2 and m['sampled_output_tokens'] > 0 and m['sampled_prompt_tokens'] > 1000
        assert 0.0 <= m['reward_mean'] and m['time_sample_s'] > 0
    names = [r['name'] for r in read_jsonl(run / 'checkpoints.jsonl')]
    assert names == [f'{s:06d}' for s in range(1, n_steps + 1)] + ['final']
    for name in names:
        adapter = run / 'checkpoints' / name / 'adapter'
        assert (adapter / 'adapter_model.safetensors').is_file() and (run / 'checkpoints' / name / 'state.pt').is_file()
        base = json.loads((adapter / 'base_fingerprint.json').read_text())
        assert base['base_model'] == 'random:harmony-tiny' and len(base['fingerprint']) == 16
    rollouts = read_jsonl(run / 'rollouts' / 'step_000001.jsonl')
    assert len(rollouts) == lines[0]['n_samples'] and isinstance(rollouts[0]['text'], str)  # text of the first group
    return artifact, lines

def check_scores(out: Path, artifact: dict, label: str):
    "Predictions for every comparison of the sample eval set's debug selection, made by the trained adapter."
    df = read_scoring_output(out)
    assert PREDICTION_COLUMNS <= set(df.columns)
    assert len(df) == df['pack'].nunique() == 6  # --debug: one comparison per pack, one repeat
    assert set(df['surrogate_label']) == {label}
    assert set(df['model_id']) == {artifact['checkpoint_uri']}  # the adapter, not the bare base model
    assert df['final'].all() and (df['input_tokens'] > 1000).all() and (df['output_tokens'] > 0).all()
    # a random model rarely finishes a tool call: every row is a parse failure that says why, never a crash
    assert df['parse_failed'].all() and set(df['error_kind']) == {'parse'}
    summary = json.loads((out / 'summary.json').read_text())
    assert summary['complete'] is True

def test_train_resume_and_score_fast(tmp_path):
    train_cfg = json.loads((CONFIGS / 'training' / 'local_debug.json').read_text())
    train_cfg |= dict(max_tokens=8, num_steps=2, groups_per_batch=1, on_all_constant='keep_one')
    (tmp_path / 'train.json').write_text(json.dumps(train_cfg))
    r = cli('train', '--config', 'train.json', '--backend', 'local', '--output-dir', RUN_DIR, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    artifact, lines = check_training_run(tmp_path / RUN_DIR, 2)
    for m in lines:  # keep_one: the constant group is trained with zero advantages
        assert (m['skipped_update'], m['loss'], m['n_groups_kept']) == (False, 0.0, 0)
        assert m['trained_action_tokens'] == m['sampled_output_tokens'] and m['time_train_s'] > 0
        assert abs(m['kl_sample_train']) < 1e-4  # the learner reproduces the sampler's log-probs
    r = cli('train', '--config', 'train.json', '--backend', 'local', '--output-dir', RUN_DIR, cwd=tmp_path)
    assert r.returncode == 0 and 'already complete' in r.stdout, r.stderr
    assert read_jsonl(tmp_path / RUN_DIR / 'metrics.jsonl') == lines
    score_cfg = json.loads((CONFIGS / 'trained_scoring' / 'local_debug.json').read_text())
    score_cfg['surrogates'][0]['max_tokens'] = 8
    (tmp_path / 'score.json').write_text(json.dumps(score_cfg))
    r = cli('score', '--config', 'score.json', '--output-dir', 'scores', '--debug', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    check_scores(tmp_path / 'scores', artifact, score_cfg['surrogates'][0]['label'])
    assert (read_scoring_output(tmp_path / 'scores')['output_tokens'] <= 8).all()

def test_adapter_on_another_random_base_is_refused(tmp_path):
    train_cfg = json.loads((CONFIGS / 'training' / 'local_debug.json').read_text()) | dict(max_tokens=2, num_steps=1, groups_per_batch=1)
    (tmp_path / 'train.json').write_text(json.dumps(train_cfg))
    assert cli('train', '--config', 'train.json', '--output-dir', RUN_DIR, cwd=tmp_path).returncode == 0
    fingerprint = tmp_path / RUN_DIR / 'checkpoints' / 'final' / 'adapter' / 'base_fingerprint.json'
    fingerprint.write_text(json.dumps(json.loads(fingerprint.read_text()) | {'fingerprint': '0123456789abcdef'}))
    r = cli('score', '--config', 'trained_scoring/local_debug.json', '--output-dir', 'scores', '--debug', cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert 'only fits the identical base' in r.stderr and 'Traceback' not in r.stderr

def test_bad_inputs_exit_2_with_one_line(tmp_path):
    r = cli('train', '--config', 'training/correctness.json', '--output-dir', 'run', cwd=tmp_path)
    assert r.returncode == 2 and 'TINKER_API_KEY' in r.stderr and '--backend local' in r.stderr, r.stderr
    cfg = json.loads((CONFIGS / 'training' / 'local_debug.json').read_text()) | {'base_model': 'random:harmony-huge'}
    (tmp_path / 'bad.json').write_text(json.dumps(cfg))
    r = cli('train', '--config', 'bad.json', '--output-dir', 'run2', cwd=tmp_path)
    assert r.returncode == 2 and 'unknown random model' in r.stderr and 'Traceback' not in r.stderr, r.stderr

@pytest.mark.slow
def test_shipped_local_debug_run_resumes_and_its_artifact_is_scored(tmp_path):
    r = cli('train', '--config', 'training/local_debug.json', '--backend', 'local', '--debug', '--output-dir', RUN_DIR, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    artifact, lines = check_training_run(tmp_path / RUN_DIR, 1)
    assert (artifact['config_snapshot']['max_tokens'], artifact['pool']['n_rows'], artifact['token_usage']['n_samples']) == (1024, 4, 2)
    assert lines[0]['skipped_update'] is True  # a random model never parses: a constant group, no update
    r = cli('train', '--config', 'training/local_debug.json', '--backend', 'local', '--debug', '--output-dir', RUN_DIR, cwd=tmp_path)
    assert r.returncode == 0 and 'already complete' in r.stdout, r.stderr
    r = cli('score', '--config', 'trained_scoring/local_debug.json', '--output-dir', 'scores', '--debug', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    check_scores(tmp_path / 'scores', artifact, 'trained_local_debug')
