"""End to end, offline: `gpu-forecasters train` with the local back-end on a random Harmony model (the real prompt
format, random weights), its resume, and `gpu-forecasters score` of the adapter it trained, in subprocesses.

The shipped `training/local_debug.json` + `--debug` run samples 2 x 1024 tokens on the CPU, which takes a minute or
more on a busy 2-core machine: that test is marked `slow`. The fast variant runs the same commands with the shipped
config cut to a few tokens and `add_reference` on, as `--debug` sets it. A random model never writes a valid forecast,
so in both the update comes from the reference completion, and both check that the saved adapter really changed.
"""
import json, os, subprocess, sys
from pathlib import Path
import pytest
from gpu_forecasters.data import read_scoring_output
from gpu_forecasters.training.grpo import SCORING_CONFIG_FILE, resolve_config

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')
CONFIGS = Path(__file__).resolve().parents[1] / 'gpu_forecasters' / 'configs'
RUN_DIR = 'runs/train_local_debug'  # where the shipped trained_scoring/local_debug.json looks for the artifact (relative to the CWD)
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
    assert len(rollouts) == lines[0]['n_samples'] + lines[0]['n_reference'] and isinstance(rollouts[0]['text'], str)  # text of the first group
    return artifact, lines

def adapter_tensors(adapter_dir: Path) -> dict:
    from safetensors.torch import load_file
    return load_file(str(adapter_dir / 'adapter_model.safetensors'))

def initial_adapter(train_cfg, where: Path) -> dict:
    "The adapter tensors the run started from: the same back-end, config and seed, saved before any step."
    from gpu_forecasters.training.backends import LocalBackend
    ref = LocalBackend.from_config(resolve_config(train_cfg, backend='local'), where).save('initial', None)
    return adapter_tensors(Path(ref.sampler_uri[len('file://'):]))

def check_update(run: Path, lines: list, initial: dict) -> list:
    "Every step kept its group and updated; the final adapter differs from the initial one. Returns the changed tensors."
    for m in lines:  # the samples fail (reward 0); the reference earns the maximum, so the group has spread
        assert (m['skipped_update'], m['n_groups_kept'], m['n_reference'], m['parse_rate']) == (False, 1, 1, 0.0)
        assert m['loss'] != 0.0 and m['optim_grad_norm'] > 0 and m['time_train_s'] > 0
        assert abs(m['kl_sample_train']) < 1e-4  # the learner reproduces the sampler's log-probs of the samples
    rollouts = read_jsonl(run / 'rollouts' / 'step_000001.jsonl')
    assert [r['reference'] for r in rollouts] == [False, False, True]
    assert rollouts[2]['parsed'] and rollouts[2]['advantage'] > 0 > rollouts[0]['advantage']
    final = adapter_tensors(run / 'checkpoints' / 'final' / 'adapter')
    assert set(final) == set(initial)
    assert all(float(t.abs().max()) == 0 for k, t in initial.items() if 'lora_B' in k)  # LoRA B starts at 0
    changed = [k for k in initial if not (initial[k] == final[k]).all()]
    assert changed and any('lora_B' in k and float(final[k].abs().max()) > 0 for k in changed), changed
    return changed

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
    train_cfg |= dict(max_tokens=8, num_steps=2, groups_per_batch=1, add_reference=True)
    (tmp_path / 'train.json').write_text(json.dumps(train_cfg))
    r = cli('train', '--config', 'train.json', '--backend', 'local', '--output-dir', RUN_DIR, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count('kept 1/1 groups') == 2 and 'update skipped' not in r.stdout, r.stdout
    run = tmp_path / RUN_DIR
    artifact, lines = check_training_run(run, 2)
    check_update(run, lines, initial_adapter(train_cfg, tmp_path / 'initial'))
    step1 = adapter_tensors(run / 'checkpoints' / '000001' / 'adapter')
    final = adapter_tensors(run / 'checkpoints' / 'final' / 'adapter')
    assert any(not (step1[k] == final[k]).all() for k in final)  # step 2 updated again
    r = cli('train', '--config', 'train.json', '--backend', 'local', '--output-dir', RUN_DIR, cwd=tmp_path)
    assert r.returncode == 0 and 'already complete' in r.stdout, r.stderr
    assert read_jsonl(run / 'metrics.jsonl') == lines
    # the run's own scoring config names the artifact by its absolute path: it scores from any working directory
    scoring = run / SCORING_CONFIG_FILE
    assert f'gpu-forecasters score --config {scoring.resolve()}' in r.stdout
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    r = cli('score', '--config', scoring, '--output-dir', 'scores', '--debug', cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    check_scores(elsewhere / 'scores', artifact, 'train_local_debug')
    assert (read_scoring_output(elsewhere / 'scores')['output_tokens'] <= 8).all()
    # the shipped config names the artifact relative to the working directory: elsewhere it is refused in one line
    r = cli('score', '--config', 'trained_scoring/local_debug.json', '--output-dir', 'scores2', '--debug', cwd=elsewhere)
    assert r.returncode == 2 and 'runs/train_local_debug/training_artifact.json' in r.stderr and 'Traceback' not in r.stderr, r.stderr

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
    assert r.stdout.startswith('debug run: 1 step of 1 group (2 samples + 1 reference completion') and 'kept 1/1 groups' in r.stdout, r.stdout
    artifact, lines = check_training_run(tmp_path / RUN_DIR, 1)
    assert (artifact['config_snapshot']['max_tokens'], artifact['pool']['n_rows'], artifact['token_usage']['n_samples']) == (1024, 4, 2)
    assert artifact['steps_skipped'] == 0
    changed = check_update(tmp_path / RUN_DIR, lines, initial_adapter('training/local_debug.json', tmp_path / 'initial'))
    assert all('lora_B' in k for k in changed)  # one step from B = 0: only B has a gradient
    r = cli('train', '--config', 'training/local_debug.json', '--backend', 'local', '--debug', '--output-dir', RUN_DIR, cwd=tmp_path)
    assert r.returncode == 0 and 'already complete' in r.stdout, r.stderr
    r = cli('score', '--config', 'trained_scoring/local_debug.json', '--output-dir', 'scores', '--debug', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    check_scores(tmp_path / 'scores', artifact, 'trained_local_debug')
