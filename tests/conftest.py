"Shared test set-up: the suite runs offline and never reaches the Hub, an LLM provider or LiteLLM's price server."
import os

import pytest

for key, value in {'LITELLM_LOCAL_MODEL_COST_MAP': 'True', 'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1',
                   'MPLBACKEND': 'Agg', 'TOKENIZERS_PARALLELISM': 'false'}.items():
    os.environ.setdefault(key, value)


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


# The longest tests, with their seconds on a 2-core machine (pytest --durations, 2026-12-03). They are started first:
# pytest-xdist hands tests out in collection order, so a long test collected last keeps one worker busy while the
# other has nothing left to do (longest-first keeps that tail short).
LONGEST = {"tests/test_notebooks.py::test_notebook[18b_harness.ipynb]": 190,
           "tests/test_notebooks.py::test_notebook[analysis/search_simulation.ipynb]": 78,
           "tests/test_notebooks.py::test_notebook[19_backends.ipynb]": 73,
           "tests/test_train_cli.py::test_train_resume_and_score_fast": 54,
           "tests/test_measure_cli.py::test_measure_anchor_measures_the_pair_and_blames_a_wrong_anchor": 53,
           "tests/test_train_cli.py::test_shipped_local_debug_run_resumes_and_its_artifact_is_scored": 50,
           "tests/test_notebooks.py::test_notebook[45_figures.ipynb]": 48,
           "tests/test_score_cli.py::test_kill_9_at_random_moments_then_resume_equals_an_uninterrupted_run": 46,
           "tests/test_measure_cli.py::test_baselines_ranks_submissions_and_resumes": 43,
           "tests/test_measure_cli.py::test_measure_prints_a_row_per_case_and_the_aggregate": 38,
           "tests/test_cli.py::test_readme_run_command_writes_every_figure_offline": 37}


def pytest_collection_modifyitems(config, items):
    """Start the longest tests first (`LONGEST`, in the same order on every xdist worker), and skip tests marked `cuda`
    when no CUDA device is available (torch is imported only if such a test was collected)."""
    items.sort(key=lambda item: -LONGEST.get(item.nodeid, 0))  # stable: everything else keeps its order
    marked = [item for item in items if item.get_closest_marker("cuda") is not None]
    if not marked or _cuda_available(): return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (torch.cuda.is_available() is False)")
    for item in marked: item.add_marker(skip)
