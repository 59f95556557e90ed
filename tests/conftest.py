"""Shared test set-up: the suite runs offline and never reaches the Hub, an LLM provider or LiteLLM's price server; each
test process (and every process it starts) computes on one OpenMP thread."""
import os

import pytest

# OMP_NUM_THREADS=1: `-n 2` runs two test processes on a 2-core machine, and with OpenMP's default (a thread per core)
# each of them would spread small torch, BLAS and scikit-learn operations over both cores while the other test process
# keeps them busy; the threads then mostly wait for each other. One `gdn_chunk_fwd_o` benchmark input (torch on the CPU)
# took 50-60 ms to generate on one thread and 800-1000 ms on two, with another test run on the machine. A value set in
# the environment wins. (The harness's cpu worker still sets its own 4 threads: that is the back-end under test.)
for key, value in {'LITELLM_LOCAL_MODEL_COST_MAP': 'True', 'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1',
                   'MPLBACKEND': 'Agg', 'TOKENIZERS_PARALLELISM': 'false', 'OMP_NUM_THREADS': '1'}.items():
    os.environ.setdefault(key, value)


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


# Every test that takes 3 s or more, with its seconds on a 2-core machine under `-n 2` (the sum of setup, call and
# teardown from `python -m pytest -n 2 tests --durations=300`, 2026-12-04 night, after `packs.core` stopped importing
# torch at module level; the full suite took 928 s then, on a machine that another job was also using; a quiet run the
# same evening, before that change, took 1028 s, and an earlier session's 622 s: these machines' speed varies). Two uses:
# - they are started longest first: pytest-xdist hands tests out in collection order, so a long test collected last
#   keeps one worker busy while the other has nothing left to do;
# - a test of SLOW_S seconds or more is marked `slow`, so `python -m pytest -n 2 -m "not slow" tests` is a quick
#   development subset (under 3 minutes) while CI runs everything. A new long test belongs here: rerun the command
#   above and copy the durations.
SLOW_S = 5
DURATIONS = {
    "tests/test_notebooks.py::test_notebook[18b_harness.ipynb]": 137,
    "tests/test_notebooks.py::test_notebook[19_backends.ipynb]": 111,
    "tests/test_train_cli.py::test_shipped_local_debug_run_resumes_and_its_artifact_is_scored": 98,
    "tests/test_notebooks.py::test_notebook[analysis/search_simulation.ipynb]": 62,
    "tests/test_train_cli.py::test_train_resume_and_score_fast": 48,
    "tests/test_notebooks.py::test_notebook[analysis/landscape_search.ipynb]": 40,
    "tests/test_notebooks.py::test_notebook[28_cost_model.ipynb]": 36,
    "tests/test_score_cli.py::test_kill_9_at_random_moments_then_resume_equals_an_uninterrupted_run": 35,
    "tests/test_notebooks.py::test_notebook[03_surrogates.ipynb]": 35,
    "tests/test_notebooks.py::test_notebook[45_figures.ipynb]": 33,
    "tests/test_notebooks.py::test_notebook[29_replay.ipynb]": 23,
    "tests/test_score_cli.py::test_api_key_reaches_the_server_and_appears_in_no_output_or_log": 22,
    "tests/test_notebooks.py::test_notebook[40_evalset.ipynb]": 22,
    "tests/test_notebooks.py::test_notebook[32_grpo.ipynb]": 19,
    "tests/test_notebooks.py::test_notebook[17_kernelbench.ipynb]": 18,
    "tests/test_train_cli.py::test_bad_inputs_exit_2_with_one_line": 18,
    "tests/test_notebooks.py::test_notebook[24_search.ipynb]": 17,
    "tests/test_train_cli.py::test_adapter_on_another_random_base_is_refused": 16,
    "tests/test_measure_cli.py::test_measure_anchor_measures_the_pair_and_blames_a_wrong_anchor": 16,
    "tests/test_cli.py::test_readme_landscape_search_reproduces_the_shipped_replay_run": 16,
    "tests/test_measure_cli.py::test_measure_fp8_seed_on_smoke_rows_and_json": 15,
    "tests/test_replay_tool.py::test_replay_runs_resumes_and_refuses_a_partial_landscape": 15,
    "tests/test_notebooks.py::test_notebook[22_mutation.ipynb]": 14,
    "tests/test_exploits.py::test_predict_inputs[cpu]": 14,
    "tests/test_score_cli.py::test_transport_failure_exits_3_and_the_rerun_finishes": 14,
    "tests/test_notebooks.py::test_notebook[11_trimul.ipynb]": 14,
    "tests/test_cli.py::test_readme_run_command_writes_every_figure_offline": 14,
    "tests/test_notebooks.py::test_notebook[25d_space_gdn_chunk_fwd_o.ipynb]": 14,
    "tests/test_pair_noise_tool.py::test_pairs_measured_head_to_head_summary_and_resume": 13,
    "tests/test_notebooks.py::test_notebook[06_metrics.ipynb]": 13,
    "tests/test_event_log_kill.py::test_sigkill_mid_append_then_resume": 13,
    "tests/test_notebooks.py::test_notebook[25b_space_trimul.ipynb]": 13,
    "tests/test_cli.py::test_bad_prediction_inputs_are_one_line_errors": 13,
    "tests/test_measure_cli.py::test_measure_prints_a_row_per_case_and_the_aggregate": 13,
    "tests/test_score_cli.py::test_rerun_makes_no_calls_and_debug_scores_one_row_per_pack": 12,
    "tests/test_entry_points.py::test_sandbox_unavailable_exits_2": 12,
    "tests/test_score_cli.py::test_interrupt_exits_130_and_keeps_finished_rows": 12,
    "tests/test_entry_points.py::test_top_level_script[stdin]": 12,
    "tests/test_notebooks.py::test_notebook[07_scoring.ipynb]": 12,
    "tests/test_measure_cli.py::test_packs_lists_packs_case_sets_and_counts": 12,
    "tests/test_build_evalset_cli.py::test_real_build_on_a_toy_search": 12,
    "tests/test_notebooks.py::test_notebook[31_backends.ipynb]": 12,
    "tests/test_cli.py::test_h200_landscape_eval_set_renders_offline_with_its_baseline_predictions": 12,
    "tests/test_notebooks.py::test_notebook[25c_space_cross_entropy.ipynb]": 11,
    "tests/test_notebooks.py::test_notebook[26_openevolve.ipynb]": 11,
    "tests/test_build_evalset_cli.py::test_bad_input_is_one_line_and_exit_2": 11,
    "tests/test_entry_points.py::test_top_level_script[file]": 11,
    "tests/test_cli.py::test_bad_eval_set_inputs_are_one_line_errors_naming_file_and_row": 11,
    "tests/test_measure_cli.py::test_baselines_ranks_submissions_and_resumes": 10,
    "tests/test_build_evalset_cli.py::test_unreachable_hub_is_exit_3": 10,
    "tests/test_notebooks.py::test_notebook[08_forecaster.ipynb]": 10,
    "tests/test_measure_cli.py::test_incorrect_candidate_exits_1": 10,
    "tests/test_cli.py::test_figures_renders_search_and_discovery_keys_from_sample_and_project_runs": 9,
    "tests/test_measure_landscape.py::test_cpu_smoke_rows_manifest_and_resume": 9,
    "tests/test_exploits.py::test_global_flags[cpu]": 9,
    "tests/test_parse_fuzz.py::test_malformed_answers_become_failed_rows_with_reasons": 9,
    "tests/test_forecast_cli.py::test_one_pair_table_and_json": 8,
    "tests/test_entry_points.py::test_top_level_script[exec]": 8,
    "tests/test_forecast_cli.py::test_pairs_to_predictions_and_resume": 8,
    "tests/test_search_cli.py::test_sigkill_at_random_moments_then_resume": 8,
    "tests/test_ship_evalset.py::test_ship_scores_writes_checked_files_and_resumes": 7,
    "tests/test_build_evalset_cli.py::test_mine_pairs_from_a_toy_search_and_a_sample_log": 7,
    "tests/test_notebooks.py::test_notebook[analysis/fig2_forecast_error.ipynb]": 7,
    "tests/test_entry_points.py::test_top_level_script[dash_c]": 7,
    "tests/test_build_evalset_cli.py::test_build_from_the_recorded_h200_search": 7,
    "tests/test_build_evalset_cli.py::test_budget_stops_with_exit_75_and_a_rerun_resumes": 7,
    "tests/test_data_inputs_cli.py::test_parquet_written_by_pandas_with_any_index_loads": 6,
    "tests/test_search_cli.py::test_resume_with_another_config_is_refused": 6,
    "tests/test_notebooks.py::test_notebook[30_rewards.ipynb]": 6,
    "tests/test_notebooks.py::test_notebook[50_runbook.ipynb]": 6,
    "tests/test_data_inputs_cli.py::test_missing_config_names_each_place_once": 6,
    "tests/test_notebooks.py::test_notebook[analysis/fig1_calibration.ipynb]": 6,
    "tests/test_notebooks.py::test_notebook[analysis/tab1_headline.ipynb]": 6,
    "tests/test_ship_evalset.py::test_ship_with_pair_noise_carries_the_rows_and_their_summary": 10,
    "tests/test_score_cli.py::test_bad_configs_exit_2_before_any_call[change4-unknown device 'NVIDIA T4']": 5,
    "tests/test_cli.py::test_measured_h200_eval_set_renders_offline_with_its_baseline_predictions": 5,
    "tests/test_search_cli.py::test_both_modes_run_and_a_finished_run_is_only_rewritten": 5,
    "tests/test_notebooks.py::test_notebook[analysis/fig5_discovery.ipynb]": 5,
    "tests/test_measure_cli.py::test_ctrl_c_exits_130_and_leaves_no_process": 5,
    "tests/test_search_cli.py::test_ctrl_c_is_one_clean_line_and_the_same_command_resumes": 5,
    "tests/test_cli.py::test_hub_unreachable_exits_3_with_a_hint": 5,
    "tests/test_notebooks.py::test_notebook[18_worker.ipynb]": 5,
    "tests/test_notebooks.py::test_notebook[analysis/fig4_kernel_search.ipynb]": 5,
    "tests/test_notebooks.py::test_notebook[10_packs.ipynb]": 5,
    "tests/test_notebooks.py::test_notebook[12_cross_entropy.ipynb]": 5,
    "tests/test_exploits.py::test_fork_bomb[cpu]": 5,
    "tests/test_defer_metrics.py::test_abstain_scoring_config_end_to_end[abstain]": 5,
    "tests/test_measure_cli.py::test_unavailable_backends_exit_3": 4,
    "tests/test_notebooks.py::test_notebook[25a_space_fp8_quant.ipynb]": 4,
    "tests/test_hub_offline_cli.py::test_unreachable_hub_is_one_line_and_exit_3_at_once[never_answers-args0---eval-set]": 4,
    "tests/test_hub_offline_cli.py::test_unreachable_hub_is_one_line_and_exit_3_at_once[never_answers-args1---predictions]": 4,
    "tests/test_live_vs_landscape.py::test_live_searches_are_matched_to_the_landscape": 4,
    "tests/test_exploits.py::test_thread_after_return[cpu]": 4,
    "tests/test_notebooks.py::test_notebook[21_events.ipynb]": 4,
    "tests/test_notebooks.py::test_notebook[index.ipynb]": 4,
    "tests/test_notebooks.py::test_notebook[13_gdn_chunk_fwd_h.ipynb]": 4,
    "tests/test_notebooks.py::test_notebook[04_data.ipynb]": 4,
    "tests/test_build_evalset_cli.py::test_dry_run_on_the_bundled_sample": 4,
    "tests/test_notebooks.py::test_notebook[16_fp8_quant.ipynb]": 4,
    "tests/test_data_inputs_cli.py::test_output_path_that_is_a_file_says_so": 3,
    "tests/test_cli.py::test_unwritable_output_dir_fails_before_loading": 3,
    "tests/test_exploits.py::test_returns_input_paper[cpu]": 3,
    "tests/test_notebooks.py::test_notebook[15_gdn_recompute_w_u.ipynb]": 3,
    "tests/test_search_cli.py::test_abstain_config_measures_or_drops_deferrals": 3,
    "tests/test_notebooks.py::test_notebook[14_gdn_chunk_fwd_o.ipynb]": 3,
    "tests/test_exploits.py::test_shape_cache[cpu]": 3,
    "tests/test_notebooks.py::test_notebook[25_variants.ipynb]": 3,
    "tests/test_search_cli.py::test_resume_from_every_prefix_matches_the_uninterrupted_run[d]": 3,
    "tests/test_exploits.py::test_forge_outputs[cpu]": 3,
    "tests/test_notebooks.py::test_notebook[analysis/throughput.ipynb]": 3,
    "tests/test_notebooks.py::test_notebook[analysis/fig3_per_pack.ipynb]": 3,
    "tests/test_exploits.py::test_write_outside[cpu]": 3,
    "tests/test_exploits.py::test_contained_by_landlock[cpu-forge_outputs]": 3,
    "tests/test_exploits.py::test_network[cpu]": 3,
    "tests/test_exploits.py::test_contained_by_landlock[cpu-network]": 3,
    "tests/test_exploits.py::test_data_ptr_cache[cpu]": 3,
    "tests/test_exploits.py::test_contained_by_landlock[cpu-write_outside]": 3,
    "tests/test_search_cli.py::test_resume_from_every_prefix_matches_the_uninterrupted_run[a]": 3,
    "tests/test_notebooks.py::test_notebook[analysis/paper_summary.ipynb]": 3,
    # measured 2026-12-05 with `--durations` on a quiet machine (2.2 s each, as test_forge_outputs[cpu] took there),
    # after the detached_subprocess exploit began to hold its sleepers for a second
    "tests/test_exploits.py::test_detached_subprocess[cpu-strict]": 3,
    "tests/test_exploits.py::test_detached_subprocess[cpu-off]": 3,
    "tests/test_exploits.py::test_contained_by_landlock[cpu-detached_subprocess]": 3,
}


def pytest_collection_modifyitems(config, items):
    """Start the longest tests first (`DURATIONS`, in the same order on every xdist worker), mark those of `SLOW_S`
    seconds or more `slow`, and skip tests marked `cuda` when no CUDA device is available (torch is imported only if
    such a test was collected)."""
    items.sort(key=lambda item: -DURATIONS.get(item.nodeid, 0))  # stable: everything else keeps its order
    for item in items:
        if DURATIONS.get(item.nodeid, 0) >= SLOW_S: item.add_marker(pytest.mark.slow)
    marked = [item for item in items if item.get_closest_marker("cuda") is not None]
    if not marked or _cuda_available(): return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (torch.cuda.is_available() is False)")
    for item in marked: item.add_marker(skip)
