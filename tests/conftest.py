"""Shared test set-up: the suite runs offline and never reaches the Hub, an LLM provider or LiteLLM's price server; each
test process (and every process it starts) computes on one OpenMP thread."""
import os, signal

import pytest

# OMP_NUM_THREADS=1: `-n 2` runs two test processes on a 2-core machine, and with OpenMP's default (a thread per core)
# each of them would spread small torch, BLAS and scikit-learn operations over both cores while the other test process
# keeps them busy; the threads then mostly wait for each other. One `gdn_chunk_fwd_o` benchmark input (torch on the CPU)
# took 50-60 ms to generate on one thread and 800-1000 ms on two, with another test run on the machine. A value set in
# the environment wins. (The harness's cpu worker still sets its own 4 threads: that is the back-end under test.)
for key, value in {'LITELLM_LOCAL_MODEL_COST_MAP': 'True', 'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1',
                   'MPLBACKEND': 'Agg', 'TOKENIZERS_PARALLELISM': 'false', 'OMP_NUM_THREADS': '1'}.items():
    os.environ.setdefault(key, value)


def sigint_as_at_a_terminal():
    """`preexec_fn` of a CLI child that a test interrupts: Ctrl-C's default action, as at a terminal. A job started with
    `&` (a CI step run in the background, `nohup pytest ... &`) inherits SIGINT ignored, Python then keeps ignoring it,
    and the interrupt the test sends would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


# Every test that takes 3 s or more, with its seconds on a 2-core machine under `-n 2` (the sum of setup, call and
# teardown from `python -m pytest -n 2 tests --durations=0`, 2026-12-06, on an otherwise idle machine: the suite took
# 1283 s then, the listed tests 2074 s of it summed over both workers; a test under 2.5 s is left out, one of 2.5 s to
# 3 s is listed as 3; handed out one at a time (`pytest_configure` below), the suite took 1116 s). Five were cut on
# 2026-12-07 (28_cost_model, the API-key score test, the three replay-tool tests): their values are the 12-06 ones
# scaled by the ratio measured for each alone before and after the change. Two uses:
# - they are started longest first: pytest-xdist hands tests out in collection order, so a long test collected last
#   keeps one worker busy while the other has nothing left to do;
# - a test of SLOW_S seconds or more is marked `slow`, so `python -m pytest -n 2 -m "not slow" tests` is a quick
#   development subset (under 3 minutes) while CI runs everything. A new long test belongs here: rerun the command
#   above and copy the durations.
SLOW_S = 5
DURATIONS = {
    "tests/test_notebooks.py::test_notebook[18b_harness.ipynb]": 138,
    "tests/test_train_cli.py::test_shipped_local_debug_run_resumes_and_its_artifact_is_scored": 101,
    "tests/test_notebooks.py::test_notebook[28_cost_model.ipynb]": 95,
    "tests/test_notebooks.py::test_notebook[19_backends.ipynb]": 95,
    "tests/test_notebooks.py::test_notebook[analysis/search_simulation.ipynb]": 79,
    "tests/test_train_cli.py::test_train_resume_and_score_fast": 66,
    "tests/test_notebooks.py::test_notebook[analysis/landscape_search.ipynb]": 55,
    "tests/test_notebooks.py::test_notebook[03_surrogates.ipynb]": 49,
    "tests/test_notebooks.py::test_notebook[29_replay.ipynb]": 49,
    "tests/test_notebooks.py::test_notebook[45_figures.ipynb]": 48,
    "tests/test_score_cli.py::test_kill_9_at_random_moments_then_resume_equals_an_uninterrupted_run": 47,
    "tests/test_notebooks.py::test_notebook[24_search.ipynb]": 33,
    "tests/test_cli.py::test_readme_landscape_search_reproduces_the_shipped_replay_run": 30,
    "tests/test_notebooks.py::test_notebook[25b_space_trimul.ipynb]": 26,
    "tests/test_notebooks.py::test_notebook[25c_space_cross_entropy.ipynb]": 26,
    "tests/test_train_cli.py::test_adapter_on_another_random_base_is_refused": 24,
    "tests/test_entry_points.py::test_sandbox_unavailable_exits_2": 23,
    "tests/test_notebooks.py::test_notebook[07_scoring.ipynb]": 22,
    "tests/test_build_evalset_cli.py::test_bad_input_is_one_line_and_exit_2": 21,
    "tests/test_measure_cli.py::test_measure_fp8_seed_on_smoke_rows_and_json": 21,
    "tests/test_measure_cli.py::test_baselines_ranks_submissions_and_resumes": 20,
    "tests/test_notebooks.py::test_notebook[06_metrics.ipynb]": 19,
    "tests/test_measure_cli.py::test_measure_anchor_measures_the_pair_and_blames_a_wrong_anchor": 19,
    "tests/test_score_cli.py::test_transport_failure_exits_3_and_the_rerun_finishes": 19,
    "tests/test_cli.py::test_readme_run_command_writes_every_figure_offline": 19,
    "tests/test_score_cli.py::test_rerun_makes_no_calls_and_debug_scores_one_row_per_pack": 18,
    "tests/test_notebooks.py::test_notebook[31_backends.ipynb]": 18,
    "tests/test_cli.py::test_figures_renders_search_and_discovery_keys_from_sample_and_project_runs": 18,
    "tests/test_pair_noise_tool.py::test_pairs_measured_head_to_head_summary_and_resume": 17,
    "tests/test_notebooks.py::test_notebook[08_forecaster.ipynb]": 17,
    "tests/test_notebooks.py::test_notebook[32_grpo.ipynb]": 16,
    "tests/test_live_vs_landscape.py::test_compare_only_matches_finished_runs_to_the_landscape_as_it_is_now": 16,
    "tests/test_measure_landscape.py::test_cpu_smoke_rows_manifest_and_resume": 16,
    "tests/test_notebooks.py::test_notebook[40_evalset.ipynb]": 15,
    "tests/test_cli.py::test_h200_landscape_eval_set_renders_offline_with_its_baseline_predictions": 15,
    "tests/test_replay_tool.py::test_replay_runs_resumes_and_refuses_a_partial_landscape": 14,
    "tests/test_notebooks.py::test_notebook[17_kernelbench.ipynb]": 13,
    "tests/test_cli.py::test_bad_prediction_inputs_are_one_line_errors": 13,
    "tests/test_ship_evalset.py::test_ship_with_pair_noise_carries_the_rows_and_their_summary": 13,
    "tests/test_search_cli.py::test_sigkill_at_random_moments_then_resume": 13,
    "tests/test_replay_tool.py::test_a_changed_arm_replaces_its_old_runs_in_the_file": 12,
    "tests/test_score_cli.py::test_interrupt_exits_130_and_keeps_finished_rows": 12,
    "tests/test_build_evalset_cli.py::test_mine_pairs_from_a_toy_search_and_a_sample_log": 12,
    "tests/test_event_log_kill.py::test_sigkill_mid_append_then_resume": 12,
    "tests/test_measure_cli.py::test_measure_prints_a_row_per_case_and_the_aggregate": 12,
    "tests/test_ship_evalset.py::test_ship_scores_writes_checked_files_and_resumes": 11,
    "tests/test_notebooks.py::test_notebook[22_mutation.ipynb]": 11,
    "tests/test_cli.py::test_bad_eval_set_inputs_are_one_line_errors_naming_file_and_row": 10,
    "tests/test_measure_cli.py::test_incorrect_candidate_exits_1": 10,
    "tests/test_search_cli.py::test_both_modes_run_and_a_finished_run_is_only_rewritten": 10,
    "tests/test_notebooks.py::test_notebook[25d_space_gdn_chunk_fwd_o.ipynb]": 10,
    "tests/test_train_cli.py::test_bad_inputs_exit_2_with_one_line": 10,
    "tests/test_notebooks.py::test_notebook[25a_space_fp8_quant.ipynb]": 10,
    "tests/test_replay_tool.py::test_measured_only_walks_the_measured_part_and_says_so": 9,
    "tests/test_notebooks.py::test_notebook[11_trimul.ipynb]": 9,
    "tests/test_build_evalset_cli.py::test_budget_stops_with_exit_75_and_a_rerun_resumes": 9,
    "tests/test_data_inputs_cli.py::test_parquet_written_by_pandas_with_any_index_loads": 9,
    "tests/test_build_evalset_cli.py::test_unreachable_hub_is_exit_3": 9,
    "tests/test_entry_points.py::test_top_level_script[file]": 9,
    "tests/test_parse_fuzz.py::test_malformed_answers_become_failed_rows_with_reasons": 9,
    "tests/test_exploits.py::test_global_flags[cpu]": 9,
    "tests/test_exploits.py::test_predict_inputs[cpu]": 9,
    "tests/test_score_cli.py::test_bad_configs_exit_2_before_any_call[change4-unknown device 'NVIDIA T4']": 9,
    "tests/test_score_cli.py::test_api_key_reaches_the_server_and_appears_in_no_output_or_log": 8,
    "tests/test_notebooks.py::test_notebook[26_openevolve.ipynb]": 8,
    "tests/test_notebooks.py::test_notebook[50_runbook.ipynb]": 8,
    "tests/test_cli.py::test_measured_h200_eval_set_renders_offline_with_its_baseline_predictions": 8,
    "tests/test_entry_points.py::test_top_level_script[dash_c]": 8,
    "tests/test_measure_cli.py::test_packs_lists_packs_case_sets_and_counts": 8,
    "tests/test_notebooks.py::test_notebook[analysis/fig4_kernel_search.ipynb]": 8,
    "tests/test_notebooks.py::test_notebook[analysis/fig5_discovery.ipynb]": 8,
    "tests/test_notebooks.py::test_notebook[30_rewards.ipynb]": 8,
    "tests/test_measure_cli.py::test_unavailable_backends_exit_3": 8,
    "tests/test_build_evalset_cli.py::test_real_build_on_a_toy_search": 7,
    "tests/test_notebooks.py::test_notebook[21_events.ipynb]": 7,
    "tests/test_entry_points.py::test_top_level_script[stdin]": 7,
    "tests/test_search_cli.py::test_ctrl_c_is_one_clean_line_and_the_same_command_resumes": 7,
    "tests/test_search_cli.py::test_resume_with_another_config_is_refused": 7,
    "tests/test_entry_points.py::test_top_level_script[exec]": 7,
    "tests/test_notebooks.py::test_notebook[12_cross_entropy.ipynb]": 7,
    "tests/test_exploits.py::test_returns_input_paper[cpu]": 7,
    "tests/test_data_inputs_cli.py::test_missing_config_names_each_place_once": 6,
    "tests/test_notebooks.py::test_notebook[27_landscape.ipynb]": 6,
    "tests/test_notebooks.py::test_notebook[18_worker.ipynb]": 6,
    "tests/test_notebooks.py::test_notebook[04_data.ipynb]": 6,
    "tests/test_exploits.py::test_fork_bomb[cpu]": 6,
    "tests/test_build_evalset_cli.py::test_dry_run_on_the_bundled_sample": 6,
    "tests/test_exploits.py::test_thread_after_return[cpu]": 6,
    "tests/test_cli.py::test_hub_unreachable_exits_3_with_a_hint": 6,
    "tests/test_build_evalset_cli.py::test_build_from_the_recorded_h200_search": 6,
    "tests/test_forecast_cli.py::test_pairs_to_predictions_and_resume": 6,
    "tests/test_notebooks.py::test_notebook[16_fp8_quant.ipynb]": 6,
    "tests/test_live_vs_landscape.py::test_live_searches_are_matched_to_the_landscape": 6,
    "tests/test_notebooks.py::test_notebook[index.ipynb]": 6,
    "tests/test_hub_offline_cli.py::test_unreachable_hub_is_one_line_and_exit_3_at_once[never_answers-args1---predictions]": 6,
    "tests/test_light_imports.py::test_search_replay_evalset_and_figures_start_without_torch": 5,
    "tests/test_notebooks.py::test_notebook[10_packs.ipynb]": 5,
    "tests/test_notebooks.py::test_notebook[analysis/fig1_calibration.ipynb]": 5,
    "tests/test_notebooks.py::test_notebook[13_gdn_chunk_fwd_h.ipynb]": 5,
    "tests/test_exploits.py::test_contained_by_landlock[cpu-network]": 5,
    "tests/test_hub_offline_cli.py::test_unreachable_hub_is_one_line_and_exit_3_at_once[never_answers-args0---eval-set]": 5,
    "tests/test_forecast_cli.py::test_one_pair_table_and_json": 5,
    "tests/test_search_cli.py::test_resume_from_every_prefix_matches_the_uninterrupted_run[d]": 5,
    "tests/test_notebooks.py::test_notebook[analysis/fig2_forecast_error.ipynb]": 5,
    "tests/test_search_cli.py::test_resume_from_every_prefix_matches_the_uninterrupted_run[a]": 5,
    "tests/test_exploits.py::test_forge_outputs[cpu]": 5,
    "tests/test_notebooks.py::test_notebook[analysis/throughput.ipynb]": 5,
    "tests/test_live_vs_landscape.py::test_a_variant_whose_runs_disagree_agrees_with_either_outcome": 5,
    "tests/test_measure_cli.py::test_ctrl_c_exits_130_and_leaves_no_process": 5,
    "tests/test_cli.py::test_unwritable_output_dir_fails_before_loading": 5,
    "tests/test_notebooks.py::test_notebook[15_gdn_recompute_w_u.ipynb]": 5,
    "tests/test_data_inputs_cli.py::test_output_path_that_is_a_file_says_so": 5,
    "tests/test_defer_metrics.py::test_abstain_scoring_config_end_to_end[abstain]": 5,
    "tests/test_notebooks.py::test_notebook[analysis/tab1_headline.ipynb]": 5,
    "tests/test_notebooks.py::test_notebook[14_gdn_chunk_fwd_o.ipynb]": 5,
    "tests/test_exploits.py::test_network[cpu]": 4,
    "tests/test_notebooks.py::test_notebook[analysis/paper_summary.ipynb]": 4,
    "tests/test_exploits.py::test_write_outside[cpu]": 4,
    "tests/test_notebooks.py::test_notebook[25_variants.ipynb]": 4,
    "tests/test_notebooks.py::test_notebook[analysis/fig3_per_pack.ipynb]": 4,
    "tests/test_search_cli.py::test_abstain_config_measures_or_drops_deferrals": 4,
    "tests/test_exploits.py::test_data_ptr_cache[cpu]": 4,
    "tests/test_exploits.py::test_contained_by_landlock[cpu-write_outside]": 4,
    "tests/test_exploits.py::test_shape_cache[cpu]": 4,
    "tests/test_measure_cli.py::test_usage_errors_exit_2[args1-min_iter]": 4,
    "tests/test_exploits.py::test_contained_by_landlock[cpu-forge_outputs]": 4,
    "tests/test_cli.py::test_metrics_json_is_strict_and_complete": 4,
    "tests/test_exploits.py::test_detached_subprocess[cpu-off]": 4,
    "tests/test_exploits.py::test_detached_subprocess[cpu-strict]": 4,
    "tests/test_measure_cli.py::test_usage_errors_exit_2[args2---backend modal]": 3,
    "tests/test_adapters_cli.py::test_score_with_hf_hub_offline_exits_3_in_a_subprocess": 3,
    "tests/test_notebooks.py::test_notebook[23_toy.ipynb]": 3,
    "tests/test_exploits.py::test_patch_host_clock[cpu]": 3,
    "tests/test_cli.py::test_interrupt_exits_130": 3,
    "tests/test_exploits.py::test_contained_by_landlock[cpu-detached_subprocess]": 3,
    "tests/test_exploits.py::test_replay_after_five[cpu]": 3,
    "tests/test_docs_check.py::test_check_docs_flags_the_broken_page_only": 3,
    "tests/test_data_inputs_cli.py::test_sample_duplicates_are_one_short_line_each": 3,
    "tests/test_search_cli.py::test_resume_from_every_prefix_matches_the_uninterrupted_run[b]": 3,
    "tests/test_exploits.py::test_inflate_worker_timer[cpu]": 3,
    "tests/test_search_cli.py::test_debug_runs_one_step_one_child": 3,
    "tests/test_ship_evalset.py::test_ship_refuses_bad_inputs_in_one_line": 3,
    "tests/test_exploits.py::test_returns_input_hardened[cpu]": 3,
}


def pytest_configure(config):
    """Hand tests to the xdist workers one at a time. Its default `load` scheduling first gives each worker a block of
    consecutive tests (a quarter of its share, 37 tests here): with the longest first, one worker got the 37 longest
    (about 1,400 s of the suite's 2,560) before the other had any of them, and the run took as long as that block.
    One at a time, longest first, whichever worker is free takes the next: the two finish within a test of each other.
    An explicit `--maxschedchunk` wins."""
    if getattr(config.option, 'maxschedchunk', 0) is None: config.option.maxschedchunk = 1


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
