"""End to end: `gpu-forecasters measure` and `gpu-forecasters packs`, run as the installed console script.

On the cpu back-end, `measure` prints one row per case and the aggregate line;
`--json` parses as an `Evaluation`; a missing candidate file exits 2; an incorrect candidate exits 1. Every evaluation
here spawns real judge and worker processes (Triton interpreter), so each test takes a few seconds.

Progress goes to stderr, one line per phase and case as the judge begins it (`case 1/N` in order), while stdout keeps
only the table or the JSON. `packs --seed PACK` writes the pack's seed kernel to stdout: redirected to a file, it is a
candidate `measure` accepts.

The fp8_quant smoke set has no benchmark cases, and its paper set takes 25-50 s on a CPU (its largest case moves
117 MB per call), so the aggregate line is checked on gdn_chunk_fwd_o's paper set with a shortened timing protocol
passed through `--config`.
"""
import json, os, re, signal, subprocess, sys, time
from pathlib import Path
import pytest
from gpu_forecasters.backends import descendants
from gpu_forecasters.harness import Evaluation
from gpu_forecasters.packs.core import get_pack
from gpu_forecasters.packs.fp8_quant import FP8_SEED_KERNEL
from tests.conftest import sigint_as_at_a_terminal

CLI = str(Path(sys.executable).parent / 'gpu-forecasters')
QUICK = json.dumps({'min_iters': 3, 'max_iters': 3, 'max_measured_s': 0.05, 'max_case_wall_s': 0.5, 'warmup_min_calls': 1,
                    'warmup_min_ms': 0, 'bootstrap_resamples': 200})
ZEROS = 'import torch\ndef custom_kernel(data):\n    x, x_q, x_s = data\n    return torch.zeros_like(x), torch.zeros_like(x_s)\n'
AGGREGATE = re.compile(r'^aggregated speedup \(geomean over (\d+) cases\): \d+\.\d{3}x \[\d+\.\d{3}, \d+\.\d{3}\]$', re.M)

def run(*args, cwd=None, timeout=300):
    env = os.environ | {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'LITELLM_LOCAL_MODEL_COST_MAP': 'True'}
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)

def write(path: Path, text: str) -> Path: path.write_text(text); return path

def case_rows(stdout: str) -> list[str]: return [l for l in stdout.splitlines() if re.match(r'^[cbh]\d+\s', l)]

PROGRESS = re.compile(r'^gpu-forecasters (?:measure|baselines): \[\d+\.\d s\] (.*)$')

def progress(stderr: str, prefix: str = '') -> list[str]:
    "The progress messages on stderr (elapsed times dropped), those starting with `prefix` without it."
    found = [m.group(1) for m in map(PROGRESS.match, stderr.splitlines()) if m]
    return [line.removeprefix(prefix) for line in found if line.startswith(prefix)]

def test_measure_prints_a_row_per_case_and_the_aggregate(tmp_path):
    pack = get_pack('gdn_chunk_fwd_o')
    seed = write(tmp_path / 'seed.py', pack.seed_kernel)
    result = run('measure', '--pack', pack.name, '--candidate', seed, '--backend', 'cpu', '--config', QUICK)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith('timings not meaningful: cpu back-end') and lines[1].startswith('device: cpu | torch ')
    cs = pack.case_set('paper')
    rows = case_rows(result.stdout)
    assert len(rows) == len(cs.correctness) + len(cs.benchmark) == 6
    assert all(r.split()[-1] in ('ok', 'cpu_backend') or ' ok' in r for r in rows)
    bench = [r for r in rows if r.startswith('b')]
    assert all(re.search(r'\d+\.\d{3}x \[\d+\.\d{3}, \d+\.\d{3}\]', r) for r in bench)
    assert AGGREGATE.search(result.stdout).group(1) == '3'
    lines = progress(result.stderr)  # in order: what and where, the worker's start, each case, how it finished
    assert lines[:-1] == ['gdn_chunk_fwd_o, case set paper (3 correctness, 3 benchmark cases), 1 run on the cpu back-end',
                          'starting a worker and importing the kernel',
                          *[f'checking correctness, case {k}/3 (c{k - 1})' for k in (1, 2, 3)],
                          *[f'timing the candidate against the reference, case {k}/3 (b{k - 1})' for k in (1, 2, 3)]], result.stderr
    assert re.fullmatch(r'finished: ok, \d+\.\d{3}x', lines[-1]), lines[-1]
    assert 'checking correctness' not in result.stdout

def test_measure_fp8_seed_on_smoke_rows_and_json(tmp_path):
    "The seed from `packs --seed fp8_quant > kernel.py` measures; progress on stderr, the table (or the JSON) alone on stdout."
    written = run('packs', '--seed', 'fp8_quant')
    assert written.returncode == 0 and written.stdout == FP8_SEED_KERNEL and written.stderr == '', written.stderr
    seed = write(tmp_path / 'kernel.py', written.stdout)
    text = run('measure', '--pack', 'fp8_quant', '--candidate', seed, '--case-set', 'smoke', '--backend', 'cpu')
    assert text.returncode == 0, text.stderr
    assert [r.split()[0] for r in case_rows(text.stdout)] == ['c0', 'c1']
    assert 'aggregated speedup: none (case set smoke has no benchmark cases' in text.stdout
    assert progress(text.stderr) == ['fp8_quant, case set smoke (2 correctness, 0 benchmark cases), 1 run on the cpu back-end',
                                     'starting a worker and importing the kernel', 'checking correctness, case 1/2 (c0)',
                                     'checking correctness, case 2/2 (c1)', 'finished: ok'], text.stderr
    assert text.stdout.splitlines()[0].startswith('timings not meaningful') and 'gpu-forecasters measure' not in text.stdout
    ledger = tmp_path / 'ledger.jsonl'
    js = run('measure', '--pack', 'fp8_quant', '--candidate', seed, '--case-set', 'smoke', '--backend', 'cpu', '--json',
             '--repeats', '2', '--ledger', ledger)
    assert js.returncode == 0, js.stderr
    evs = [Evaluation.from_json(d) for d in json.loads(js.stdout)]  # stdout is the JSON and nothing else
    assert [(e.status, e.pack, e.case_set, e.backend, e.timing_meaningful) for e in evs] == [('ok', 'fp8_quant', 'smoke', 'cpu', False)] * 2
    assert 'cpu_backend' in evs[0].flags and 'timings not meaningful' in js.stderr
    for run_label in ('run 1/2: ', 'run 2/2: '):
        assert progress(js.stderr, run_label) == ['starting a worker and importing the kernel', 'checking correctness, case 1/2 (c0)',
                                                  'checking correctness, case 2/2 (c1)', 'finished: ok'], js.stderr
    assert [json.loads(l)['status'] for l in ledger.read_text().splitlines()] == ['ok', 'ok']

def test_missing_candidate_file_exits_2_with_path_and_os_error(tmp_path):
    result = run('measure', '--pack', 'fp8_quant', '--candidate', tmp_path / 'nope.py', '--backend', 'cpu')
    assert result.returncode == 2
    assert 'nope.py' in result.stderr and 'No such file or directory' in result.stderr and 'Traceback' not in result.stderr

def test_incorrect_candidate_exits_1(tmp_path):
    zeros = write(tmp_path / 'zeros.py', ZEROS)
    result = run('measure', '--pack', 'fp8_quant', '--candidate', zeros, '--case-set', 'smoke', '--backend', 'cpu')
    assert result.returncode == 1, result.stderr
    assert re.search(r'^status: incorrect \(case c0: checker', result.stdout, re.M)
    assert [r.split()[0] for r in case_rows(result.stdout)] == ['c0', 'c1'] and 'not_run' in case_rows(result.stdout)[1]

@pytest.mark.parametrize('args, needle', [
    (('--pack', 'nope'), 'fp8_quant'),                                     # unknown pack: the valid names
    (('--pack', 'fp8_quant', '--config', '{"min_iter": 3}'), 'min_iter'),  # unknown EvalConfig field
    (('--pack', 'fp8_quant', '--gpu', 'H100'), '--backend modal'),          # --gpu without modal
])
def test_usage_errors_exit_2(tmp_path, args, needle):
    seed = write(tmp_path / 'seed.py', FP8_SEED_KERNEL)
    result = run('measure', '--candidate', seed, '--backend', 'cpu', *args)
    assert result.returncode == 2 and needle in result.stderr and 'Traceback' not in result.stderr, result.stderr

def test_unavailable_backends_exit_3(tmp_path):
    seed = write(tmp_path / 'seed.py', FP8_SEED_KERNEL)
    import torch
    if not torch.cuda.is_available():
        local = run('measure', '--pack', 'fp8_quant', '--candidate', seed)
        assert local.returncode == 3 and '`cpu` back-end' in local.stderr and '`modal` back-end' in local.stderr, local.stderr
    env_has_modal = any(k.startswith('MODAL_TOKEN') for k in os.environ) or (Path.home() / '.modal.toml').exists()
    if not env_has_modal:
        modal = run('measure', '--pack', 'fp8_quant', '--candidate', seed, '--backend', 'modal', '--gpu', 'H100')
        assert modal.returncode == 3 and 'no Modal credentials' in modal.stderr and '`cpu` back-end' in modal.stderr, modal.stderr

def test_packs_lists_packs_case_sets_and_counts():
    result = run('packs')
    assert result.returncode == 0, result.stderr
    rows = [l.split() for l in result.stdout.splitlines()]
    assert ['fp8_quant', 'gpu_mode', 'paper', '5', '0', '3'] in rows
    assert ['hardened', '8', '11', '3'] in rows and ['trimul', 'gpu_mode', 'paper', '18', '0', '7'] in rows
    assert run('packs', '--seed', 'trimul').stdout == get_pack('trimul').seed_kernel
    unknown = run('packs', '--seed', 'fp8')
    assert unknown.returncode == 2 and unknown.stdout == '' and len(unknown.stderr.splitlines()) == 1, unknown.stderr
    assert "unknown pack 'fp8'; valid: cross_entropy, fp8_quant" in unknown.stderr and 'Traceback' not in unknown.stderr

def test_ctrl_c_exits_130_and_leaves_no_process(tmp_path):
    hang = write(tmp_path / 'hang.py', 'def custom_kernel(data):\n    while True: pass\n')
    env = os.environ | {'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'LITELLM_LOCAL_MODEL_COST_MAP': 'True'}
    proc = subprocess.Popen([CLI, 'measure', '--pack', 'fp8_quant', '--candidate', str(hang), '--case-set', 'smoke', '--backend', 'cpu'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=sigint_as_at_a_terminal)
    deadline, seen = time.time() + 120, {}
    while time.time() < deadline and len(seen) < 2:  # the judge and the candidate's worker
        seen = descendants(proc.pid)
        time.sleep(0.2)
    assert len(seen) >= 2, 'the judge and its worker never started'
    time.sleep(1)
    seen = descendants(proc.pid)
    proc.send_signal(signal.SIGINT)  # what a terminal sends to the foreground process (judges and workers have their own groups)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert 'interrupted' in err
    time.sleep(0.5)
    table = {}
    for pid, started in seen.items():
        try: stat = Path(f'/proc/{pid}/stat').read_text()
        except OSError: continue
        fields = stat[stat.rfind(')') + 2:].split()
        if int(fields[19]) == started and fields[0] != 'Z': table[pid] = fields[0]
    assert not table, f'processes left running: {table}'

def test_measure_anchor_measures_the_pair_and_blames_a_wrong_anchor(tmp_path):
    pack = get_pack('gdn_chunk_fwd_o')
    seed = write(tmp_path / 'seed.py', pack.seed_kernel)
    anchor = write(tmp_path / 'anchor.py', pack.reference_code + '\n\ncustom_kernel = ref_kernel\n')
    pair = run('measure', '--pack', pack.name, '--candidate', seed, '--anchor', anchor, '--backend', 'cpu', '--config', QUICK)
    assert pair.returncode == 0, pair.stdout + pair.stderr
    assert re.search(r'pair speedup \(geomean over 3 cases\): \d+\.\d{3}x \[\d+\.\d{3}, \d+\.\d{3}\]', pair.stdout), pair.stdout
    zeros = write(tmp_path / 'zeros.py', 'import torch\ndef custom_kernel(data):\n    x, x_q, x_s = data\n'
                                        '    return torch.zeros_like(x), torch.zeros_like(x_s)\n')
    fp8 = write(tmp_path / 'fp8.py', FP8_SEED_KERNEL)
    bad = run('measure', '--pack', 'fp8_quant', '--candidate', fp8, '--anchor', zeros, '--case-set', 'smoke', '--backend', 'cpu')
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert 'status: anchor_failed (anchor status: incorrect (case c0: checker' in bad.stdout, bad.stdout


def test_baselines_ranks_submissions_and_resumes(tmp_path):
    "`baselines` on the cpu back-end: two submissions re-measured, the incorrect one unranked, published ratios, a rerun reuses both."
    pack = get_pack('gdn_chunk_fwd_o')
    subs = tmp_path / 'subs'
    subs.mkdir()
    write(subs / 'seed.py', pack.seed_kernel)
    write(subs / 'zeros.py', 'import torch\ndef custom_kernel(data):\n    return torch.zeros_like(data[2])  # v_new-shaped zeros: o has its shape\n')
    write(subs / 'published.json', json.dumps({'seed': 50.0}))
    out = tmp_path / 'baselines.jsonl'
    result = run('baselines', '--pack', pack.name, '--submissions', subs, '--out', out, '--backend', 'cpu', '--repeats', '1', '--config', QUICK)
    assert result.returncode == 0, result.stdout + result.stderr
    records = {r['name']: r for r in map(json.loads, out.read_text().splitlines())}
    assert records['seed']['rank_all'] == 1 and records['seed']['geomean_us'] > 0, records['seed']
    assert records['seed']['ratio_to_published'] == records['seed']['geomean_us'] / 50.0
    assert records['zeros']['rank_all'] is None and records['zeros']['runs'][0]['status'] == 'incorrect', records['zeros']
    assert 'Caveats: leaderboard numbers are context' in result.stdout
    seed_lines = progress(result.stderr, '[1/2] seed.py, paper run 1/1: ')  # each submission's runs report their phases and cases
    assert seed_lines[:2] == ['starting a worker and importing the kernel', 'checking correctness, case 1/3 (c0)'], result.stderr
    assert seed_lines[-1] == 'timing the candidate against the reference, case 3/3 (b2)', result.stderr
    assert progress(result.stderr, '[2/2] zeros.py, paper run 1/1: ')[-1] == 'checking correctness, case 1/3 (c0)'  # where it failed
    assert 'starting a worker' not in result.stdout
    again = run('baselines', '--pack', pack.name, '--submissions', subs, '--out', out, '--backend', 'cpu', '--repeats', '1', '--config', QUICK)
    assert again.returncode == 0 and again.stderr.count('reused from baselines.jsonl') == 2, again.stderr
    assert run('baselines', '--pack', pack.name, '--submissions', tmp_path / 'none', '--out', out, '--backend', 'cpu').returncode == 2
