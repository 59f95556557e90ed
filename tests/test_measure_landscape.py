"""End to end: tools/measure_landscape.py measures variants through the real sandboxed `cpu` back-end (the smoke case
set: correctness only, the Triton interpreter), appends one row per variant, writes a manifest that `load_landscape`
accepts, and a rerun measures nothing that already has a final result; `--retest K` measures measured variants again
(each once, until a pack has K retests) into retest.jsonl, and `--retest-where` picks one parameter value's variants,
failing ones too."""
import json, subprocess, sys
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from gpu_forecasters.search.landscape import load_landscape
from gpu_forecasters.search.variants import get_space

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / 'tools' / 'measure_landscape.py'

def run_tool(*args, cwd):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600)

def test_cpu_smoke_rows_manifest_and_resume(tmp_path):
    space = get_space('fp8_quant')
    torch_points = [space.variant_id(p) for p in space if p['impl'].startswith('torch')][:2]
    out = tmp_path / 'land'
    r = run_tool('--out', out, '--backend', 'cpu', '--case-set', 'smoke', '--ids', *torch_points, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = [json.loads(l) for l in (out / 'measurements.jsonl').read_text().splitlines()]
    assert [row['variant_id'] for row in rows] == torch_points
    assert all(row['status'] == 'ok' and row['case_set'] == 'smoke' and row['space_version'] == space.version for row in rows), rows
    assert all(row['params'] == space.params_of_id(row['variant_id']) for row in rows)
    manifest = json.loads((out / 'MANIFEST.json').read_text())
    assert manifest['spaces']['fp8_quant'] == {'version': space.version, 'size': len(space), 'measured': 2}
    assert manifest['status_counts'] == {'fp8_quant': {'ok': 2}}
    land = load_landscape(out)
    assert land.coverage('fp8_quant') == (2, len(space))
    # the rerun measures nothing new; --retest 1 measures one measured variant again, into retest.jsonl
    r = run_tool('--out', out, '--backend', 'cpu', '--case-set', 'smoke', '--ids', *torch_points, '--retest', '1', cwd=tmp_path)
    assert r.returncode == 0 and '0 to do now, 1 to measure again first' in r.stderr, r.stderr[-2000:]
    assert len((out / 'measurements.jsonl').read_text().splitlines()) == 2
    retests = [json.loads(l) for l in (out / 'retest.jsonl').read_text().splitlines()]
    assert len(retests) == 1 and retests[0]['variant_id'] in torch_points and retests[0]['status'] == 'ok', retests
    manifest = json.loads((out / 'MANIFEST.json').read_text())
    assert manifest['retests'] == {'fp8_quant': 1} and manifest['files']['retest.jsonl']['rows'] == 1
    land = load_landscape(out)
    assert {v: len(rs) for v, rs in land.retests.items()} == {retests[0]['variant_id']: 1}
    # --retest K tops each pack up to K retests, and a variant is retested once: K = 1 again asks for nothing, K = 5 for the other one
    spec = spec_from_file_location('measure_landscape', TOOL); tool = module_from_spec(spec); spec.loader.exec_module(tool)
    assert tool.retest_plan(list(land.rows.values()), retests, ['fp8_quant'], 1) == []
    again = tool.retest_plan(list(land.rows.values()), retests, ['fp8_quant'], 5)
    assert [space.variant_id(p) for _, p in again] == [v for v in torch_points if v != retests[0]['variant_id']]

def _tool():
    spec = spec_from_file_location('measure_landscape', TOOL); tool = module_from_spec(spec); spec.loader.exec_module(tool)
    return tool

def test_retest_where_takes_one_precision_failing_variants_too():
    "`--retest-where trimul:pdtype=bf16`: the H200 landscape's bf16-projection variants of trimul, correct ones first, failures included; other packs as before."
    tool, land = _tool(), load_landscape('h200')
    rows, retests = list(land.rows.values()), [r for rs in land.retests.values() for r in rs]
    plan = tool.retest_plan(rows, retests, ['trimul', 'fp8_quant'], 1000, where=('trimul', 'pdtype', 'bf16'))
    tri = [land.rows[get_space('trimul').variant_id(p)] for pack, p in plan if pack == 'trimul']
    assert len(tri) == 87 and all(r['params']['pdtype'] == 'bf16' for r in tri)
    statuses = [r['status'] for r in tri]
    assert statuses == ['ok'] * 32 + [s for s in statuses[32:] if s != 'ok'] and len(set(statuses[32:]) - {'ok'}) >= 1
    fp8 = [p for pack, p in plan if pack == 'fp8_quant']  # fp8_quant: its correct variants not yet retested, as without `where`
    assert len(fp8) == sum(r['pack'] == 'fp8_quant' and r['status'] == 'ok' and r['variant_id'] not in land.retests for r in rows)
    assert len(tool.retest_plan(rows, [], ['trimul'], 5, where=('trimul', 'pdtype', 'bf16'))) == 5  # K still caps a pack
    assert tool.parse_where('trimul:BLOCK_MN=64') == ('trimul', 'BLOCK_MN', '64')

def test_retest_where_refuses_bad_forms(tmp_path):
    for where, says in (('trimul-pdtype', 'expected PACK:AXIS=VALUE'), ('cross_entropy:pdtype=bf16', 'not one of the packs measured'),
                        ('trimul:precision=bf16', 'trimul has no axis precision'), ('trimul:pdtype=bf17', "trimul's axis pdtype has no value bf17")):
        r = run_tool('--out', tmp_path / 'land', '--backend', 'cpu', '--packs', 'trimul', '--retest', '5', '--retest-where', where, cwd=tmp_path)
        assert r.returncode == 2 and says in r.stderr and r.stderr.count('\n') == 1, (where, r.stderr)

def test_a_case_too_big_for_the_device_is_final_other_infra_failures_are_measured_again(tmp_path):
    "On an 80 GB H100, trimul's unfused fp32 and tf32 variants run out of memory (55 to 61 s each, every rerun): such a row is the variant's result on that device and stays; an infrastructure failure of another kind, and a torn last line, go."
    from gpu_forecasters.harness import judge_oom_verdict
    land = load_landscape('h200')
    rows = [land.rows[v] for v in sorted(land.rows) if v.startswith('trimul/fusion=none,proj=concat,pdtype=fp32')][:3]
    status, reason, message = judge_oom_verdict(int(25.5 * 2**30), int(79.2 * 2**30))  # what the H100 said
    assert (status, reason) == ('infra_failure', 'insufficient_device_memory') and 'does not fit this device' in message
    too_big = {**rows[1], 'status': status, 'reason': reason, 'message': message, 'speedup': None, 'speedup_ci': None}
    crashed = {**rows[2], 'status': 'infra_failure', 'reason': 'worker_died', 'speedup': None, 'speedup_ci': None}
    log = tmp_path / 'measurements.jsonl'
    log.write_text(''.join(json.dumps(r) + '\n' for r in (rows[0], too_big, crashed)) + '{"variant_id": "trimul/torn", "sta')
    assert _tool().final_ids(log) == {rows[0]['variant_id'], too_big['variant_id']}
    assert [json.loads(l) for l in log.read_text().splitlines()] == [rows[0], too_big]  # rewritten: the final rows, in order
