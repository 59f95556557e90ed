"""The abstain-mode metrics on worked examples, and the shipped abstain scoring config end to end.

`defer_rate`, `native_coverage` and `native_risk.*` live in `metrics.py` (06_metrics); these tests pin their values
through the public functions:
* a five-row example worked by hand (two forecasts, one right and one wrong, two deferrals, one parse failure);
* rows without any deferral get none of the abstain metrics;
* `baseline_scoring/gemini3_flash_abstain.json` asks for the abstain prompt, and a surrogate with that prompt block,
  scored on the bundled sample against the scripted OpenAI-compatible server (which defers the 8 trimul pairs of 48), gives
  deferred rows (not parse failures) that the metrics count exactly; the same server answer to a forecast-only prompt
  is a parse failure.
"""
import asyncio, dataclasses
import numpy as np
import pytest
from gpu_forecasters.bins import LOG2_MIDPOINTS
from gpu_forecasters.data import load_eval_set, read_scoring_output
from gpu_forecasters.llm_server import ResponseScript, ScriptedLLMServer
from gpu_forecasters.metrics import ForecastTable, SurrogateRows, compute_metrics, evaluate_rows
from gpu_forecasters.scoring import ScoreConfig, load_score_config, score

def peak(b: int) -> list[float]:
    "0.9 on bin b, 0.1/7 on each other bin."
    return [0.9 if i == b else 0.1 / 7 for i in range(1, 9)]

def expected_log2(p) -> float: return float(np.dot(p, LOG2_MIDPOINTS))

NAN8 = [float("nan")] * 8
# rows: A forecast right (peak 5, truth bin 5), B forecast wrong (peak 7, truth bin 3), C and D deferred, E a parse failure
P = [peak(5), peak(7), NAN8, NAN8, NAN8]
Y = [5, 3, 4, 6, 2]
LOG2_S = [0.75, -0.25, 0.25, 1.25, -0.75]  # each row's measured speedup sits at its bin's log2 midpoint
DEFERRED = [False, False, True, True, False]

def worked_rows(deferred=DEFERRED) -> SurrogateRows:
    rows = SurrogateRows.from_arrays(P, Y, 2.0 ** np.array(LOG2_S), label="abstainer")
    return dataclasses.replace(rows, deferred=np.array(deferred))

def test_worked_example_by_hand():
    rows = worked_rows()
    assert (rows.parsed.tolist(), rows.failed.tolist()) == ([True, True, False, False, False], [False] * 4 + [True])
    m = evaluate_rows(rows, coverages=(0.5,))
    # E_l of a peak-b forecast: 0.9 l_b + (0.1/7)(sum of the other midpoints); sum of all eight log2 midpoints = 4.0
    assert sum(LOG2_MIDPOINTS) == 4.0
    e_a, e_b = 0.9 * 0.75 + 0.1 / 7 * (4.0 - 0.75), 0.9 * 1.75 + 0.1 / 7 * (4.0 - 1.75)
    assert abs(e_a - expected_log2(peak(5))) < 1e-12 and abs(e_b - expected_log2(peak(7))) < 1e-12
    assert abs(e_a - 0.7214285714) < 1e-9 and abs(e_b - 1.6071428571) < 1e-9
    want = {"defer_rate": 2 / 5,  # C, D of five rows
            "native_coverage": 2 / 5,  # A, B were forecast (the parse failure E is neither forecast nor deferred)
            "native_risk.bin_error": (0 + 1) / 2,  # over the forecast rows: A right, B wrong
            "native_risk.log2_error": (abs(e_a - 0.75) + abs(e_b + 0.25)) / 2,  # (0.028571 + 1.857143) / 2
            "parse_rate": 2 / 5, "accuracy": 1 / 5}  # in the all population a deferral counts as wrong
    for name, value in want.items(): assert abs(m["all"][name] - value) < 1e-12, (name, m["all"][name], value)
    assert abs(m["all"]["native_risk.log2_error"] - 0.9428571429) < 1e-9
    assert m["all"]["defer_rate"] + m["all"]["native_coverage"] + float(rows.failed.mean()) == 1.0
    assert "defer_rate" not in m["parsed"] and m["parsed"]["accuracy"] == 0.5
    # in the all population a deferral is scored with the uniform forecast: half-Brier (7/64 + 49/64) / 2 = 0.4375
    q = 0.1 / 7
    half_brier = [0.5 * ((1 - 0.9) ** 2 + 7 * q ** 2), 0.5 * ((1 - q) ** 2 + 0.9 ** 2 + 6 * q ** 2), 0.4375, 0.4375, 0.4375]
    assert abs(m["all"]["half_brier"] - np.mean(half_brier)) < 1e-12 and abs(m["parsed"]["half_brier"] - np.mean(half_brier[:2])) < 1e-12

def test_defer_metrics_move_with_the_deferrals():
    "One more deferral (the parse failure E deferred instead) raises defer_rate by 1/5 and leaves the native risks alone."
    m = evaluate_rows(worked_rows([False, False, True, True, True]))["all"]
    assert (m["defer_rate"], m["native_coverage"]) == (3 / 5, 2 / 5)
    assert m["native_risk.bin_error"] == 0.5

def test_rows_without_deferrals_have_no_abstain_metrics():
    m = evaluate_rows(worked_rows([False] * 5))["all"]
    assert not {"defer_rate", "native_coverage", "native_risk.bin_error", "native_risk.log2_error"} & set(m)
    assert m["parse_rate"] == 2 / 5

def test_bootstrap_weights_count_rows_as_often_as_drawn():
    "With weights, each data set counts a row as often as it was drawn: D twice and A once gives defer_rate 2/3."
    W = np.array([[1, 1, 1, 1, 1], [1, 0, 0, 2, 0], [0, 1, 1, 0, 3]], dtype=float)
    m = evaluate_rows(worked_rows(), populations=("all",), weights=W)["all"]
    assert np.allclose(m["defer_rate"], [2 / 5, 2 / 3, 1 / 5])
    assert np.allclose(m["native_coverage"], [2 / 5, 1 / 3, 1 / 5])
    assert np.allclose(m["native_risk.bin_error"], [0.5, 0.0, 1.0])

@pytest.mark.parametrize("mode", ["abstain", "forecast"])
def test_abstain_scoring_config_end_to_end(tmp_path, mode):
    shipped = load_score_config("baseline_scoring/gemini3_flash_abstain.json")
    (s,) = shipped.surrogates
    assert (s.label, s.backend, s.prompt.mode, shipped.dataset) == ("gemini3_flash_abstain", "litellm", "abstain", "eval_set")
    assert shipped.model_dump(exclude={"surrogates"}) == load_score_config("baseline_scoring/gemini3_flash.json").model_dump(exclude={"surrogates"})
    eval_rows = load_eval_set("sample")  # 50 rows, two ids twice: 48 comparisons, 8 of them trimul
    n, n_trimul = eval_rows.comparison_id.nunique(), eval_rows[eval_rows.pack == "trimul"].comparison_id.nunique()
    assert (n, n_trimul) == (48, 8)
    # the shipped surrogate's prompt block (or the forecast-only one), pointed at the scripted server
    prompt = s.prompt.model_dump() | {"mode": mode}
    with ScriptedLLMServer(ResponseScript([{"match": "## Task: trimul", "kinds": ["defer"]}])) as server:
        config = ScoreConfig(eval_set="sample", n_repeats=1, max_concurrency=4, seed=0, surrogates=[
            {"label": "abstainer", "backend": "litellm", "model": "openai/gpt-4o-mini", "api_base": server.base_url,
             "prompt": prompt, "parse_retries": 0}])
        summary = asyncio.run(score(config, tmp_path / "scores", progress=False))
        assert server.counts()["defer"] == n_trimul
    preds = read_scoring_output(tmp_path / "scores")
    trimul = preds.pack == "trimul"
    if mode == "forecast":  # a defer call answers a prompt that offered no such tool: a parse failure, never a deferral
        assert (int(preds.deferred.sum()), int(preds.parse_failed.sum())) == (0, n_trimul)
        assert summary["surrogates"]["abstainer"]["n_deferred"] == 0
        return
    assert preds.loc[trimul, "deferred"].all() and not preds.loc[~trimul, "deferred"].any()
    assert not preds.parse_failed.any() and preds.loc[trimul, "predicted_bin"].isna().all()
    assert set(preds.loc[trimul, "defer_reason"]) == {"distant bins are equally likely (scripted)"}
    assert summary["surrogates"]["abstainer"]["n_deferred"] == n_trimul
    metrics, _ = compute_metrics(ForecastTable.build(eval_rows, preds), n_bootstrap=0)
    m = {k: v["all"]["value"] for k, v in metrics["abstainer"].items() if v.get("all")}
    assert abs(m["defer_rate"] - n_trimul / n) < 1e-12 and abs(m["native_coverage"] - (n - n_trimul) / n) < 1e-12
    parsed_accuracy = metrics["abstainer"]["accuracy"]["parsed"]["value"]
    assert abs(m["native_risk.bin_error"] - (1 - parsed_accuracy)) < 1e-12  # the forecast rows' error rate
    assert abs(m["accuracy"] - parsed_accuracy * (n - n_trimul) / n) < 1e-12  # deferrals count as wrong in all
    assert metrics["abstainer"]["defer_rate"]["all"]["by_pack"]["trimul"] == 1.0
    assert metrics["abstainer"]["defer_rate"]["all"]["by_pack"]["cross_entropy"] == 0.0
