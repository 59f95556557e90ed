"""End to end: OpenEvolve with the surrogate gate against the scripted OpenAI-compatible server.

OpenEvolve's LLM and the surrogate both talk to one `ScriptedLLMServer` over real HTTP. OpenEvolve's prompts (they ask
for SEARCH/REPLACE diffs) get a diff that sets one more bit of the toy program and marks every second program; forecast
prompts get a forecast tool call: bin 2 (slower) for a program marked `# SLOWER`, bin 6 (faster) otherwise, and an
abstention for one marked `# UNSURE`. With `rule="p_faster"`, `threshold=0.5`, for N generated programs the filter
measures the initial program and the N // 2 unmarked ones (fewer when `max_paid` runs out), against all N + 1 without
it. The paid count comes from the gate's ledger and, independently, from a counter kept by the real evaluation itself;
the generated count from OpenEvolve's evolution trace.
"""
import itertools, json, unittest.mock
from pathlib import Path
import pytest

pytest.importorskip("openevolve")
from openevolve.config import Config, LLMConfig, LLMModelConfig
import gpu_forecasters.llm_server as llm_server
from gpu_forecasters.forecast import probability_fields
from gpu_forecasters.llm_server import ResponseScript, ScriptedLLMServer
from gpu_forecasters.openevolve_filter import SurrogateGate, gated_config, run_openevolve, toy_diff, toy_program

EVALUATOR = '''
from pathlib import Path
from gpu_forecasters.forecaster import Filter, Forecaster, TaskDescription
from gpu_forecasters.openevolve_filter import SurrogateGate, evaluate_toy_program

RUN_DIR, SURROGATE = {run_dir!r}, {surrogate!r}

def counted_toy_evaluation(program_path):  # the real evaluation counts its own calls
    with open(Path(RUN_DIR) / "real_calls.txt", "a") as f: f.write(program_path + "\\n")
    return evaluate_toy_program(program_path)

filter = None if SURROGATE is None else Filter(Forecaster(SURROGATE, cache_dir=RUN_DIR + "/forecasts"), rule="p_faster", threshold=0.5)
gate = SurrogateGate(counted_toy_evaluation, RUN_DIR, filter, task=TaskDescription("toy_bits"), max_paid={max_paid!r}, on_defer={on_defer!r}, anchor={anchor!r})
evaluate, evaluate_stage1, evaluate_stage2 = gate.evaluate, gate.evaluate_stage1, gate.evaluate_stage2
'''

KINDS = {"toy_diff": "a SEARCH/REPLACE diff of a toy program", "faster": "a forecast in bin 6", "slower": "a forecast in bin 2"}


class Scripted:
    "Replies of the scripted server: toy diffs (request k sets bit k; even k carry `marker`) and forecasts in a chosen bin."
    def __init__(self):
        self.requests, self.marker = itertools.count(1), "  # SLOWER"
        self.original = llm_server.reply_body

    def forecast_in(self, bin, request, created):
        status, body = self.original("valid", request, created)
        call = body["choices"][0]["message"]["tool_calls"][0]["function"]
        args = json.loads(call["arguments"])
        args.update({field: 0.86 if b == bin else 0.02 for b, field in enumerate(probability_fields(8), start=1)}, predicted_bin=bin)
        call["arguments"] = json.dumps(args)
        return status, body

    def reply(self, kind, request, created=0):
        if kind == "faster": return self.forecast_in(6, request, created)
        if kind == "slower": return self.forecast_in(2, request, created)
        if kind != "toy_diff": return self.original(kind, request, created)
        status, body = self.original("text_only", request, created)
        k = next(self.requests)
        body["choices"][0]["message"]["content"] = toy_diff(llm_server._user_text(request), k, self.marker if k % 2 == 0 else "")
        return status, body


@pytest.fixture
def scripted():
    s = Scripted()
    rules = [{"match": "SEARCH/REPLACE", "kinds": ["toy_diff"]}, {"match": "# SLOWER", "kinds": ["slower"]}, {"match": "# UNSURE", "kinds": ["defer"]}]
    with unittest.mock.patch.dict(llm_server.REPLY_KINDS, KINDS), unittest.mock.patch.object(llm_server, "reply_body", s.reply):
        with ScriptedLLMServer(ResponseScript(rules, default="faster")) as server:  # the new kinds are known from here on
            s.server = server
            yield s


def run(tmp_path: Path, scripted: Scripted, name: str, *, filtered=True, iterations=6, max_paid=None, on_defer="measure",
        marker="  # SLOWER", anchor="best"):
    "One OpenEvolve run: (its result, the gate, calls of the real evaluation, forecast requests)."
    scripted.requests, scripted.marker = itertools.count(1), marker
    scripted.server.reset()
    run_dir = tmp_path / name
    run_dir.mkdir()
    surrogate = {"label": "scripted", "backend": "openai_http", "model": "scripted", "api_base": scripted.server.base_url,
                 "prompt": {"mode": "abstain"}} if filtered else None
    (run_dir / "evaluator.py").write_text(EVALUATOR.format(run_dir=str(run_dir / "gate"), surrogate=surrogate, max_paid=max_paid,
                                                           on_defer=on_defer, anchor=anchor))
    llm = LLMConfig(models=[LLMModelConfig(name="scripted")], api_base=scripted.server.base_url, api_key="unused", timeout=30,
                    retries=0, retry_delay=0)
    config = gated_config(Config(llm=llm, random_seed=0, log_level="WARNING", checkpoint_interval=1000))
    config.database.num_islands, config.evaluator.parallel_evaluations = 1, 1
    result = run_openevolve(toy_program("0" * 16), run_dir / "evaluator.py", config, iterations, run_dir / "openevolve")
    gate = SurrogateGate(None, run_dir / "gate")
    calls_file = run_dir / "gate" / "real_calls.txt"
    real_calls = len(calls_file.read_text().splitlines()) if calls_file.exists() else 0
    forecasts = sum(r["kind"] in ("faster", "slower", "defer") for r in scripted.server.requests)
    return result, gate, real_calls, forecasts


@pytest.mark.parametrize("iterations", [4, 6])
def test_the_filter_pays_for_fewer_of_the_same_number_of_programs(tmp_path, scripted, iterations):
    off, off_gate, off_calls, off_forecasts = run(tmp_path, scripted, "off", filtered=False, iterations=iterations)
    on, on_gate, on_calls, on_forecasts = run(tmp_path, scripted, "on", iterations=iterations)
    assert off.n_generated == on.n_generated == iterations  # OpenEvolve's own count: every iteration gave a program
    assert (off_gate.paid, off_calls) == (iterations + 1, iterations + 1)  # the initial program and every child
    assert (on_gate.paid, on_calls) == (1 + iterations // 2, 1 + iterations // 2)  # the initial program and the unmarked half
    assert off_gate.summary()["why"] == {"seed": 1, "no_filter": iterations}
    assert on_gate.summary()["why"] == {"seed": 1, "selected": iterations // 2, "threshold": iterations // 2}
    assert (off_forecasts, on_forecasts) == (0, iterations)  # one forecast per generated program, none without the filter
    # the best program OpenEvolve reports was measured: an unmeasured program scores 0
    paid_scores = [e["combined_score"] for e in on_gate.ledger() if e["event"] == "paid"]
    assert on.best_metrics["combined_score"] == max(paid_scores) > 1.0
    trace = [json.loads(line) for line in (on.output_dir / "evolution_trace.jsonl").read_text().splitlines()]
    assert sorted(t["child_metrics"]["surrogate_pass"] for t in trace) == [0.0] * (iterations // 2) + [1.0] * (iterations // 2)


@pytest.mark.parametrize("max_paid", [1, 3, 10])
def test_max_paid_caps_the_real_evaluations(tmp_path, scripted, max_paid):
    result, gate, calls, _ = run(tmp_path, scripted, "capped", max_paid=max_paid)
    expected = min(max_paid, 1 + 6 // 2)
    assert result.n_generated == 6
    assert (gate.paid, calls) == (expected, expected)
    why = gate.summary()["why"]
    assert why.get("budget", 0) == 1 + 6 // 2 - expected and why["threshold"] == 3


@pytest.mark.parametrize("on_defer,paid,why", [("measure", 7, "deferred"), ("drop", 4, "abstained")])
def test_a_deferral_is_measured_or_dropped(tmp_path, scripted, on_defer, paid, why):
    # anchored on the seed: a measured deferral can become the best program, and its marker in the anchor's code would
    # reach every later prompt and make the scripted surrogate defer those too (how often depends on OpenEvolve's sampling)
    result, gate, calls, _ = run(tmp_path, scripted, on_defer, on_defer=on_defer, marker="  # UNSURE", anchor="seed")
    assert result.n_generated == 6
    assert (gate.paid, calls) == (paid, paid)
    assert gate.summary()["why"] == {"seed": 1, "selected": 3, why: 3}
