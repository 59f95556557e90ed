# What the live trimul searches add once runs/h200/live_trimul/summary.json exists (runs/README.md, "When a step
# finishes", 3). First ship them (no GPU; --landscape h200 unless the retests have joined runs/h200/landscape_h200):
#   python tools/live_vs_landscape.py --pack trimul --landscape h200 --out runs/h200/live_trimul --compare-only \
#       --ship gpu_forecasters/measured_data/live_h200_trimul
# then this section goes into nbs/analysis/landscape_search.ipynb before "## Best kernel against paid evaluations"
# (it needs `import json`, `measured_bytes` and `measured_manifest`, all imported there), the FILL replaced by the
# reading, the asserts set to what was seen; and a line in the README's landscape paragraph and the issue note.
# Checked on a plumbing run (--evaluator landscape, shipped to a scratch folder) on 2026-12-06.

# %% [markdown]
# ### The landscape against live measurement
#
# A replay is only as good as its landscape. Two searches ran live on the H200 (`tools/live_vs_landscape.py`): the
# standard arm and the arm filtered by the learning cost model, trimul, seed 0, 24 paid evaluations each, every
# candidate measured by the harness as a live search measures it; each has a replay twin on the landscape (same config
# and seed). Every live evaluation is matched to the landscape's row of the same variant: a live speedup agrees when it
# lies within 1.96 sqrt(2) sds of the landscape's (two draws of one spread, the sd the larger of the variant's CI and
# the pack's between-run spread), a live status when one of the landscape's runs of that variant had it.
# FILL: per arm, how many of the evaluations agree in speedup and status, whether the best variant found live is the
# landscape's best among the same variants and the replay twin's best; the flaky bf16-projection variants.

# %%
live_manifest = measured_manifest("live_h200_trimul")
live = pd.DataFrame([json.loads(l) for l in measured_bytes("live_h200_trimul", "comparison.jsonl").decode().splitlines() if l.strip()])
live_summary = pd.DataFrame(json.loads(measured_bytes("live_h200_trimul", "summary.json"))).set_index("arm")
assert live_manifest["backend"] == ["local"] and live_manifest["device"]["name"] == "NVIDIA H200"  # measured live, on the landscape's GPU
assert list(live_summary.index) == ["standard", "filtered_cost_model_online"] and live_summary.evaluations.equals(live.groupby("arm").size().reindex(live_summary.index))
# FILL: the asserts that hold the reading, e.g.
# assert live_summary.same_best.all() and live_summary.same_best_as_replay.all()
# assert (live_summary.agree >= 0.9 * live_summary.compared).all() and (live_summary.same_status == live_summary.evaluations).all()
display(live_summary[["evaluations", "compared", "agree", "same_status", "of_flaky_variants", "best_live_speedup", "same_best", "same_best_as_replay"]])
live.groupby("arm").z.describe().round(2)
