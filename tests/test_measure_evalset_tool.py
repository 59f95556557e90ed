"""`tools/measure_evalset_gpu.py` on CPU: every variant's source compiles, the CUDA-graph variant keys nested inputs
(TriMul's weights are a dict of tensors, which once failed on the H200 with `unhashable type: 'dict'`), and a rerun
measures failed variants again. The timing itself needs a GPU (run on the H200, recorded in the issue notes)."""
import importlib.util, json
from pathlib import Path
import torch
from torch.utils._pytree import tree_flatten
from fastcore.test import test_eq as eq, test_ne as ne  # renamed: pytest would collect test_*
from gpu_forecasters.packs.core import get_pack

def load_tool():
    path = Path(__file__).resolve().parents[1] / "tools" / "measure_evalset_gpu.py"
    spec = importlib.util.spec_from_file_location("measure_evalset_gpu", path)
    module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
    return module

def test_every_variant_of_every_pack_compiles():
    tool = load_tool()
    for name in tool.PACKS:
        for variant in tool.VARIANTS:
            compile(tool.variant_source(get_pack(name), variant), f"{name}:{variant}", "exec")

def test_graph_variant_keys_nested_inputs_by_shape_and_value():
    tool = load_tool()
    ns = {"custom_kernel": lambda data: data}
    exec(tool.GRAPH.format(n=1), ns)
    pack = get_pack("trimul")
    cases = pack.case_set("smoke").correctness
    shapes = {}
    for case in cases:
        data = pack.generate_input(case, "cpu")
        assert any(isinstance(x, dict) for x in data), "TriMul's input nests a dict (the case this guards)"
        key = ns["_variant_key"](*tree_flatten(data))
        hash(key)  # a dict inside the input no longer breaks the graph cache
        eq(key, ns["_variant_key"](*tree_flatten(pack.generate_input(case, "cpu"))))  # the same case again: the same graph
        shapes.setdefault(key, []).append(case)
    assert len(shapes) > 1, "cases of different shapes or configs get different graphs"

def test_rerun_measures_failed_variants_again(tmp_path):
    tool = load_tool()
    log = tmp_path / "measurements.jsonl"
    rows = [dict(pack="trimul", variant="seed", status="ok"), dict(pack="trimul", variant="seed_graph", status="runtime_error", message="TypeError")]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    eq(tool.measured_variants(log), {("trimul", "seed")})
    eq([json.loads(l)["variant"] for l in log.read_text().splitlines()], ["seed"])  # the failure is dropped, the success kept
    eq(tool.measured_variants(tmp_path / "absent.jsonl"), set())
