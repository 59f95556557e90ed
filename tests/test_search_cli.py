"""End to end: `gpu-forecasters search` as the installed console script, and crash/resume equivalence.

With real processes and real files:
* toy searches in both modes run from the CLI and write the six outputs; a re-run of a finished run appends nothing;
* the shipped abstain config, measured and dropped: exact counts of deferrals and paid evaluations, read from the log;
* `--debug` gives 1 step, 1 parent, 1 mutation and 1 paid evaluation;
* a resume with a changed config is refused naming the fields, the log's bytes unchanged; an operational change is
  accepted; bad configs, corrupt or invalid logs and locked run directories get their exit codes;
* a run resumed from every prefix of its log (whole lines, and half a line more) ends with the archive, PUCT
  statistics and summary of the uninterrupted run; and a CLI search SIGKILLed at random moments (one kill followed by a
  torn record, as a kill inside a write leaves) and re-run until it finishes ends where an uninterrupted CLI run ends;
  both with deferrals measured, also when the evaluation budget runs out on them;
* a CLI search interrupted with SIGINT (Ctrl-C) while forecasts are running exits 130 with one clean line on stderr
  (no asyncio noise about pending tasks or coroutines), and the same command then finishes the run as if it had never
  been interrupted.
"""
import json, os, random, signal, subprocess, sys, time, warnings
from pathlib import Path
import pytest
from gpu_forecasters.data import resolve_config_path
from gpu_forecasters.runbook import EXIT_INTERRUPTED
from gpu_forecasters.search.driver import SearchDriver, archive_json, config_from_dict, make_providers, search_command
from gpu_forecasters.search.events import FileEventLog, read_events
from tests.conftest import sigint_as_at_a_terminal

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')
ENV = os.environ | {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'LITELLM_LOCAL_MODEL_COST_MAP': 'True'}
OUTPUTS = ['archive.json', 'best_kernel.py', 'config.json', 'events.jsonl', 'summary.json', 'trajectory.csv']
VOLATILE = ('redispatches', 'process_runs', 'wall_clock_seconds')  # the only summary fields a crash may change

def search(*args, timeout=120):
    return subprocess.run([CLI, 'search', *map(str, args)], capture_output=True, text=True, env=ENV, timeout=timeout)

def write_config(path: Path, raw: dict) -> Path:
    path.write_text(json.dumps(raw))
    return path

def comparable(summary: dict) -> dict: return {k: v for k, v in summary.items() if k not in VOLATILE}

def outputs(run_dir: Path) -> tuple[dict, dict]:
    return json.loads((run_dir / 'archive.json').read_text()), comparable(json.loads((run_dir / 'summary.json').read_text()))

TOY = {'preset': 'standard', 'problem': {'kind': 'toy', 'length': 12}, 'budgets': {'max_steps': 3}}

def test_both_modes_run_and_a_finished_run_is_only_rewritten(tmp_path):
    for name in ('toy/standard.json', 'toy/surrogate_filtered.json'):
        run_dir = tmp_path / name.split('/')[1].removesuffix('.json')
        r = search('--config', name, '--output-dir', run_dir)
        assert r.returncode == 0, r.stderr
        assert OUTPUTS == sorted(p.name for p in run_dir.iterdir() if p.name != 'events.jsonl.lock')
        lines = r.stderr.splitlines()
        assert lines[0].startswith('gpu-forecasters search: step 0: parents seed; ') and 'stopped (steps) after 10 steps' in lines[-1]
        summary = json.loads((run_dir / 'summary.json').read_text())
        assert summary['mode'] == name.split('/')[1].removesuffix('.json') and summary['steps_completed'] == 10
        assert summary['best_reward'] > 1.0 and summary['stop_reason'] == 'steps'
        if summary['mode'] == 'surrogate_filtered': assert summary['forecasts_completed'] > 0 and summary['deferred_rank'] > 0
    before = {n: (run_dir / n).read_bytes() for n in OUTPUTS}
    r = search('--config', 'toy/surrogate_filtered.json', '--output-dir', run_dir)
    assert r.returncode == 0, r.stderr
    assert {n: (run_dir / n).read_bytes() for n in OUTPUTS} == before

def deferral_counts(log: Path) -> tuple[int, int, int]:
    "(forecast_deferred events, evaluation requests, evaluation requests of deferred candidates) in a log."
    events = read_events(log)
    deferred = {e.request_id for e in events if e.kind == 'forecast_deferred'}
    requested = [e.request_id for e in events if e.kind == 'evaluation_requested']
    return len(deferred), len(requested), sum(r in deferred for r in requested)

def test_abstain_config_measures_or_drops_deferrals(tmp_path):
    "The shipped toy abstain config (inline: its evaluation budget cuts a step, and the cut must be exact)."
    raw = json.loads(resolve_config_path('toy/surrogate_filtered_abstain.json').read_text())
    measure = write_config(tmp_path / 'measure.json', {**raw, 'concurrency': {'executor': 'inline'}})
    r = search('--config', measure, '--output-dir', tmp_path / 'measure')
    assert r.returncode == 0, r.stderr
    assert '80 paid evaluations (17 deferred by the surrogate)' in r.stderr.splitlines()[-1], r.stderr
    assert deferral_counts(tmp_path / 'measure' / 'events.jsonl') == (17, 80, 17)
    s = json.loads((tmp_path / 'measure' / 'summary.json').read_text())
    assert (s['surrogate_deferrals'], s['deferrals_measured'], s['deferrals_dropped'], s['evaluations_paid']) == (17, 17, 0, 80)
    assert (s['budget_use']['evaluations'], s['stop_reason'], s['steps_completed'], s['skipped']) == (80, 'evaluations', 9, 1)
    trajectory = (tmp_path / 'measure' / 'trajectory.csv').read_text().splitlines()
    assert len(trajectory) == 1 + 1 + 80  # header, seed, every paid evaluation (deferrals included)
    drop = write_config(tmp_path / 'drop.json', {**raw, 'concurrency': {'executor': 'inline'},
                                                 'selection': {**raw['selection'], 'on_defer': 'drop'}})
    assert search_command(drop, tmp_path / 'drop') == 0
    assert deferral_counts(tmp_path / 'drop' / 'events.jsonl') == (27, 76, 0)
    s = json.loads((tmp_path / 'drop' / 'summary.json').read_text())
    assert (s['surrogate_deferrals'], s['deferrals_measured'], s['deferrals_dropped'], s['evaluations_paid']) == (27, 0, 27, 76)
    assert (s['stop_reason'], s['steps_completed']) == ('steps', 10)

def test_debug_runs_one_step_one_child(tmp_path):
    r = search('--config', 'toy/standard.json', '--output-dir', tmp_path / 'run', '--debug')
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / 'run' / 'summary.json').read_text())
    assert (summary['steps_completed'], summary['mutations_requested'], summary['evaluations_paid']) == (1, 1, 1)
    started = [e for e in read_events(tmp_path / 'run' / 'events.jsonl') if e.kind == 'step_started']
    assert [len(e.parents) for e in started] == [1]

def test_resume_with_another_config_is_refused(tmp_path):
    run_dir = tmp_path / 'run'
    assert search('--config', write_config(tmp_path / 'a.json', TOY), '--output-dir', run_dir).returncode == 0
    log = run_dir / 'events.jsonl'
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b''.join(lines[:len(lines) // 2]))  # a run that crashed halfway
    before = log.read_bytes()
    changed = {**TOY, 'search': {'samples_per_parent': 5, 'eval_per_parent': 5}}
    r = search('--config', write_config(tmp_path / 'b.json', changed), '--output-dir', run_dir)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert 'search.samples_per_parent: logged=4, given=5' in r.stderr and 'search.eval_per_parent: logged=4, given=5' in r.stderr
    assert log.read_bytes() == before
    operational = {**TOY, 'concurrency': {'mutator': 2}}
    r = search('--config', write_config(tmp_path / 'c.json', operational), '--output-dir', run_dir)
    assert r.returncode == 0, r.stderr
    resumed = [e for e in read_events(log) if e.kind == 'run_resumed']
    assert [e.operational for e in resumed] == [{'concurrency.mutator': 2}]

def test_bad_config_is_one_line_and_writes_nothing(tmp_path):
    bad = write_config(tmp_path / 'bad.json', {**TOY, 'budgets': {'max_stepz': 3}, 'search': {'batch_size': 0}})
    r = search('--config', bad, '--output-dir', tmp_path / 'never')
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    assert 'budgets.max_stepz: unknown key' in r.stderr and 'search.batch_size: Input should be greater than or equal to 1' in r.stderr
    assert not (tmp_path / 'never').exists()

def test_exit_codes_of_run_directories_and_logs(tmp_path, capsys):
    "The same command body in-process (a console-script start costs seconds): not a run dir, locked, corrupt, invalid."
    (tmp_path / 'mine').mkdir(); (tmp_path / 'mine' / 'notes.txt').write_text('keep')
    assert search_command('toy/standard.json', tmp_path / 'mine') == 2
    assert 'not a search run directory' in capsys.readouterr().err
    good = write_config(tmp_path / 'good.json', {**TOY, 'budgets': {'max_steps': 1}})
    run_dir = tmp_path / 'run'
    assert search_command(good, run_dir) == 0
    log = run_dir / 'events.jsonl'
    lines = log.read_bytes().splitlines(keepends=True)
    proc = subprocess.Popen([sys.executable, '-c', HOLD_LOCK, str(log)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == 'locked'
        capsys.readouterr()
        assert search_command(good, run_dir) == 2
        assert f'locked by process {proc.pid}' in capsys.readouterr().err
    finally:
        proc.kill(); proc.wait()
    corrupt = b''.join([lines[0], b'{"kind": "nonsense"}\n', *lines[2:]])
    log.write_bytes(corrupt)
    assert search_command(good, run_dir) == 3
    err = capsys.readouterr().err
    assert 'corrupt log' in err and 'line 2' in err and log.read_bytes() == corrupt, err
    invalid = b''.join([lines[0], *lines[2:]])  # the seed's result without its request
    log.write_bytes(invalid)
    assert search_command(good, run_dir) == 3
    err = capsys.readouterr().err
    assert 'invalid log' in err and 'line 2' in err and log.read_bytes() == invalid, err

HOLD_LOCK = """
import sys, time
from gpu_forecasters.search.events import FileEventLog
log = FileEventLog(sys.argv[1]); log.open(); print('locked', flush=True); time.sleep(60)
"""

# The crash runs (a), (b), (c): toy L = 8 onemax, seed 0, batch 2, 3 steps, inline executor; 10% mutator failures and invalid
# kernels; oracle (0.9, 0.7) with 10% failures. (d), (e): (a) and (c) with an oracle of accuracy 0.5 that defers every wrong
# forecast, measured: 7 deferrals of 13 paid evaluations; with max_evaluations 7, 3 of the 7, and one candidate skipped.
CRASH_A = {'mode': 'surrogate_filtered', 'seed': 0, 'problem': {'kind': 'toy', 'length': 8}, 'budgets': {'max_steps': 3},
           'search': {'batch_size': 2, 'samples_per_parent': 4, 'eval_per_parent': 2, 'archive_top_k': 2},
           'mutator': {'kind': 'toy', 'fail_rate': 0.1, 'invalid_rate': 0.1},
           'surrogate': {'kind': 'toy_oracle', 'accuracy': 0.9, 'peak': 0.7, 'fail_rate': 0.1},
           'concurrency': {'executor': 'inline'}, 'log': {'fsync': False}}
CRASH = {'a': CRASH_A,
         'b': {**CRASH_A, 'mode': 'standard', 'surrogate': None,
               'search': {'batch_size': 2, 'samples_per_parent': 4, 'eval_per_parent': 4, 'archive_top_k': 2}},
         'c': {**CRASH_A, 'budgets': {'max_steps': 3, 'max_evaluations': 7}}}
CRASH['d'] = {**CRASH_A, 'surrogate': {**CRASH_A['surrogate'], 'accuracy': 0.5, 'defer_when_wrong': 1.0}}
CRASH['e'] = {**CRASH['d'], 'budgets': {'max_steps': 3, 'max_evaluations': 7}}
CRASH_COUNTS = {'d': ('steps', 13, 7, 0), 'e': ('evaluations', 7, 3, 1)}  # stop, paid, deferrals measured, skipped

def run_in_process(config, path: Path):
    p = make_providers(config)
    driver = SearchDriver(config, p.mutator, p.evaluator, p.surrogate, log=FileEventLog(path, fsync=False))
    summary = driver.run()
    return archive_json(driver.state), comparable(summary.to_json())

@pytest.mark.parametrize('name', sorted(CRASH))
def test_resume_from_every_prefix_matches_the_uninterrupted_run(tmp_path, name):
    config = config_from_dict(CRASH[name])
    want = run_in_process(config, tmp_path / 'full.jsonl')
    lines = (tmp_path / 'full.jsonl').read_bytes().splitlines(keepends=True)
    assert want[1]['stop_reason'] == ('evaluations' if name in ('c', 'e') else 'steps')
    if name == 'c': assert want[1]['evaluations_paid'] == 7
    if name in CRASH_COUNTS:
        assert tuple(want[1][k] for k in ('stop_reason', 'evaluations_paid', 'deferrals_measured', 'skipped')) == CRASH_COUNTS[name]
    path = tmp_path / 'events.jsonl'
    for k in range(len(lines) + 1):
        for torn in ((False, True) if k < len(lines) else (False,)):
            path.write_bytes(b''.join(lines[:k]) + (lines[k][:len(lines[k]) // 2] if torn else b''))
            with warnings.catch_warnings():
                warnings.simplefilter('ignore', RuntimeWarning)  # "dropped a torn last line"
                got = run_in_process(config, path)
            assert got == want, f'config ({name}) resumed from {k} lines{" and half a line" if torn else ""}'

def _lines(path: Path) -> int:
    try: return path.read_bytes().count(b'\n')
    except FileNotFoundError: return 0

def test_sigkill_at_random_moments_then_resume(tmp_path):
    raw = {'preset': 'surrogate_filtered', 'problem': {'kind': 'toy', 'length': 12}, 'budgets': {'max_steps': 4},
           'search': {'samples_per_parent': 6, 'eval_per_parent': 3, 'archive_top_k': 2},
           'mutator': {'kind': 'toy', 'fail_rate': 0.1, 'invalid_rate': 0.1, 'delay_s': 0.03},
           'surrogate': {'kind': 'toy_oracle', 'fail_rate': 0.1, 'accuracy': 0.6, 'defer_when_wrong': 0.5},
           'concurrency': {'mutator': 3, 'surrogate': 2, 'evaluator': 2}}
    config = write_config(tmp_path / 'toy.json', raw)
    assert search_command(config, tmp_path / 'reference') == 0  # uninterrupted, in-process (same config, same outputs)
    run_dir, rng, kills = tmp_path / 'killed', random.Random(0), 0
    log = run_dir / 'events.jsonl'
    for _ in range(10):
        proc = subprocess.Popen([CLI, 'search', '--config', str(config), '--output-dir', str(run_dir)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
        if kills < 4:
            target = _lines(log) + rng.randint(1, 40)
            while proc.poll() is None and _lines(log) < target: time.sleep(0.002)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
                kills += 1
                if kills == 2:  # a kill inside a write leaves a torn record
                    last = log.read_bytes().splitlines(keepends=True)[-1]
                    with open(log, 'ab') as f: f.write(last[:len(last) // 2])
                continue
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        break
    assert kills >= 3
    assert outputs(run_dir) == outputs(tmp_path / 'reference')
    summary = json.loads((run_dir / 'summary.json').read_text())
    assert summary['process_runs'] == kills + 1
    assert summary['deferrals_measured'] > 0 and summary['deferrals_measured'] == summary['surrogate_deferrals']
    resumed = [e for e in read_events(log) if e.kind == 'run_resumed']
    assert any(e.dropped_bytes > 0 for e in resumed)

INTERRUPTED = 'gpu-forecasters search: interrupted; finished work is on disk, rerun the same command to continue'
SLOW_FORECASTS = {'mode': 'surrogate_filtered', 'problem': {'kind': 'toy', 'length': 32}, 'budgets': {'max_steps': 2},
                  'search': {'samples_per_parent': 4, 'eval_per_parent': 2, 'archive_top_k': 2},
                  'surrogate': {'kind': 'toy_oracle', 'accuracy': 0.6, 'delay_s': 0.5},
                  'concurrency': {'surrogate': 4}, 'log': {'fsync': False}}

def forecasts_in_flight(log: Path) -> int:
    "Forecasts requested in `log` and not answered yet (0 while it does not exist)."
    if not log.exists(): return 0
    running = set()
    for e in read_events(log):  # a line being written is a torn tail, which `read_events` ignores
        if e.kind == 'forecast_requested': running.add(e.request_id)
        elif e.kind in ('forecast_completed', 'forecast_failed', 'forecast_deferred'): running.discard(e.request_id)
    return len(running)

def test_ctrl_c_is_one_clean_line_and_the_same_command_resumes(tmp_path):
    "SIGINT while forecasts wait on the surrogate's event loop: the driver cancels and awaits them before it exits."
    config = write_config(tmp_path / 'slow.json', SLOW_FORECASTS)
    assert search_command(config, tmp_path / 'reference') == 0  # uninterrupted, in-process
    run_dir = tmp_path / 'run'
    args = [CLI, 'search', '--config', str(config), '--output-dir', str(run_dir)]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV,
                            preexec_fn=sigint_as_at_a_terminal)
    deadline = time.monotonic() + 300  # generous: a loaded machine starts the interpreter slowly
    while not forecasts_in_flight(run_dir / 'events.jsonl'):
        assert proc.poll() is None and time.monotonic() < deadline, 'the search ended before a forecast was in flight'
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert [l for l in err.splitlines() if not l.startswith('gpu-forecasters search: step ')] == [INTERRUPTED], err
    logged = read_events(run_dir / 'events.jsonl')  # whole lines only: the interrupt tore nothing
    assert (run_dir / 'events.jsonl').read_bytes().endswith(b'\n') and logged[-1].kind != 'search_stopped'
    r = search('--config', config, '--output-dir', run_dir, timeout=300)
    assert r.returncode == 0 and 'stopped (steps) after 2 steps' in r.stderr.splitlines()[-1], r.stderr
    assert outputs(run_dir) == outputs(tmp_path / 'reference')
    resumed = [e for e in read_events(run_dir / 'events.jsonl') if e.kind == 'run_resumed']
    assert len(resumed) == 1 and resumed[0].dropped_bytes == 0
    assert json.loads((run_dir / 'summary.json').read_text())['process_runs'] == 2
