"Shared test set-up: the suite runs offline and never reaches the Hub, an LLM provider or LiteLLM's price server."
import os

for key, value in {'LITELLM_LOCAL_MODEL_COST_MAP': 'True', 'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1',
                   'MPLBACKEND': 'Agg', 'TOKENIZERS_PARALLELISM': 'false'}.items():
    os.environ.setdefault(key, value)
