# What the label noise adds once runs/h200/pair_noise/summary.json exists and the set is shipped again with
# --pair-noise (runs/README.md, "When a step finishes", 2). Each piece names where it goes; replace FILL with the reading.
#
# 1. nbs/40_evalset.ipynb: after the cell that ends `near.round(4)` in "The shipped H200 landscape set"
#    (it uses land_set, land_manifest from the cells before)
# %% [markdown]
# Label noise: 30 rows of the set measured again, each in fresh processes, long after the build (`tools/measure_pair_noise.py`).
# FILL: k of 30 flipped bin (interval), median |log2 change|; against the near-edge flips above (those were chosen near an
# edge; these are any rows).

# %%
noise = land_manifest["label_noise"]
noise_rows = [json.loads(l) for l in measured_bytes("h200_landscape", "pair_noise.jsonl").decode().splitlines() if l.strip()]
test_eq(noise["pairs"], len(noise_rows)); test_eq(noise["pairs"], 30)
test_eq(set(r["comparison_id"] for r in noise_rows) <= set(land_set.comparison_id), True)
test_eq(noise["flipped"], sum(r["flipped"] for r in noise_rows if r["remeasured_speedup"] is not None))
lo, hi = noise["flip_fraction_ci95"]
print(f"{noise['flipped']} of {noise['measured']} re-measured rows changed bin ({noise['flip_fraction']:.0%}, 95% interval {lo:.0%} to {hi:.0%}); "
      f"median |log2 change| {noise['median_abs_log2_change']:.3f}")

# 2. nbs/analysis/landscape_search.ipynb: at the end of the cell that ends `near_edge.round(3)` in "The same noise in the
#    eval set's labels" (add measured_manifest to its gpu_forecasters.data import), and a sentence on it in the prose
noise = measured_manifest("h200_landscape")["label_noise"]
print(f"label noise: {noise['flipped']} of {noise['measured']} rows changed bin ({noise['flip_fraction']:.0%}, "
      f"95% interval {noise['flip_fraction_ci95'][0]:.0%} to {noise['flip_fraction_ci95'][1]:.0%})")

# 3. tests/test_cli.py, test_h200_landscape_eval_set_renders_offline_with_its_baseline_predictions:
#    assert manifest['label_noise']['pairs'] == 30
# 4. nbs/index.ipynb, the h200_landscape paragraph: one clause with the flipped fraction and its interval.
