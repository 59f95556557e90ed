"""Processes that never compute with tensors start without torch (about 1.5 s of CPU each): the search driver, the
landscape, the replay, the cost model, the eval-set builder and the figures import `packs.core` for its dataclasses
and code helpers only, and `packs.core` imports torch inside the functions that compute with tensors. The modules are
imported in a fresh interpreter, which then says whether torch was loaded; an annotation that names torch still
resolves (through the module's stand-in, which imports torch when asked)."""
import subprocess, sys

LIGHT = ("gpu_forecasters.search.driver", "gpu_forecasters.search.landscape", "gpu_forecasters.search.replay",
         "gpu_forecasters.cost_model", "gpu_forecasters.evalset", "gpu_forecasters.figures")

PROBE = f"""
import importlib, inspect, sys
for m in {LIGHT!r}: importlib.import_module(m)
print("torch loaded:", "torch" in sys.modules)
from gpu_forecasters.packs import core
print("annotation:", inspect.signature(core.e4m3_codes, eval_str=True).parameters["t"].annotation.__name__, "torch" in sys.modules)
"""

def test_search_replay_evalset_and_figures_start_without_torch():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["torch loaded: False", "annotation: Tensor True"], done.stdout
