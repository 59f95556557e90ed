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


def pytest_collection_modifyitems(config, items):
    "Skip tests marked `cuda` when no CUDA device is available (torch is imported only if such a test was collected)."
    marked = [item for item in items if item.get_closest_marker("cuda") is not None]
    if not marked or _cuda_available(): return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (torch.cuda.is_available() is False)")
    for item in marked: item.add_marker(skip)
