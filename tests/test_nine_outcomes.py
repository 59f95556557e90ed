"""Nine outcomes end to end: a toy search log with failing children, through the eval-set builder (failure rows),
`score` (a 9-outcome surrogate against the scripted server, and the 8-outcome uniform baseline) and the metrics.
"""
import asyncio, json
import numpy as np
import pytest
from gpu_forecasters.data import load_eval_set, read_scoring_output, resolve_config_path
from gpu_forecasters.evalset import build_eval_set, search_log_table
from gpu_forecasters.forecaster import score_candidate
from gpu_forecasters.llm_server import ResponseScript, ScriptedLLMServer
from gpu_forecasters.metrics import ForecastTable, compute_metrics, half_brier
from gpu_forecasters.scoring import ScoreConfig, score
from gpu_forecasters.search.driver import SearchDriver, config_from_dict, make_providers


@pytest.fixture(scope="module")
def eval_set(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nine")
    cfg = config_from_dict(json.loads(resolve_config_path("toy/standard.json").read_text())
                           | {"budgets": {"max_steps": 6}, "mutator": {"kind": "toy", "flips": 1, "invalid_rate": 0.3},
                              "evaluator": {"kind": "toy", "gpu_seconds_per_eval": 1.0, "fail_rate": 0.2}})
    providers = make_providers(cfg)
    SearchDriver(cfg, providers.mutator, providers.evaluator, run_dir=tmp / "run").run()
    log = search_log_table(tmp / "run")
    build_eval_set({"name": "nine", "hardware": "H100", "failure_rows": True, "cap_per_pack_bin": 50,
                    "packs": [{"pack": "toy", "event_logs": [{"tag": "run", "path": str(tmp / "run" / "events.jsonl")}]}],
                    "fill": {"enabled": False}, "remeasure": {"enabled": False}}, tmp / "evalset")
    return tmp, log, tmp / "evalset" / "eval_set.jsonl"


def test_search_log_to_builder_to_score_to_metrics(eval_set):
    tmp, log, path = eval_set
    rows = load_eval_set(path, outcomes=9)
    n_fail = int((rows.true_bin == 0).sum())
    assert n_fail >= 2 and n_fail < len(rows)
    # the builder keeps the candidate's failures and never the back-end's
    assert set(rows.loc[rows.true_bin == 0, "candidate_code"]) <= set(log.loc[log.outcome == "compile_failed", "code"])
    with ScriptedLLMServer(ResponseScript(), latency_s=0.0) as server:
        config = ScoreConfig(eval_set=str(path), n_repeats=2, max_concurrency=4, seed=0, surrogates=[
            {"label": "scripted9", "backend": "openai_http", "model": "m", "api_base": server.base_url, "prompt": {"outcomes": 9}},
            {"label": "uniform", "backend": "uniform"}])
        summary = asyncio.run(score(config, tmp / "scores", progress=False))
    assert summary["complete"] and summary["eval_set"]["n_unique"] == len(rows)
    predictions = read_scoring_output(tmp / "scores")
    nine = predictions[predictions.surrogate_label == "scripted9"]
    assert (nine.bin_probabilities.map(lambda e: e[0]["bin"]) == 0).all()  # p_failure kept in every row
    # the summary's half-Brier is the 9-column one: the uniform baseline's p_failure is 0
    y = rows.set_index("comparison_id").true_bin
    uniform = predictions[predictions.surrogate_label == "uniform"]
    expected = np.mean([0.5625 if y[c] == 0 else 0.4375 for c in uniform.comparison_id])
    assert abs(summary["surrogates"]["uniform"]["half_brier_all"] - expected) < 1e-12
    # the metrics read the failure rows in the 9-outcome mode; the 8-outcome baseline's p_failure counts as 0 there,
    # as in the scoring summary
    table = ForecastTable.build(rows, predictions)
    metrics, _ = compute_metrics(table, n_bootstrap=0, reference="uniform")
    assert abs(metrics["uniform"]["half_brier"]["all"]["pooled"] - expected) < 1e-12
    P = np.array([[e["p"] for e in b] for b in nine.bin_probabilities])
    hb = float(np.mean(half_brier(P, y.loc[nine.comparison_id].to_numpy())))
    assert abs(metrics["scripted9"]["half_brier"]["all"]["pooled"] - hb) < 1e-9
    # a logged 9-outcome record and the live numbers agree under every selection rule
    record = nine.iloc[0].to_dict()
    assert score_candidate("expected_bin", record) == score_candidate("expected_bin", [e["p"] for e in record["bin_probabilities"]])
