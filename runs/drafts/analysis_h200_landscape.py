# for nbs/analysis/landscape_search.ipynb, before '## Best kernel against paid evaluations'; imports: json,
# measured_bytes, measured_manifest (gpu_forecasters.data), remeasure_summary (gpu_forecasters.evalset)
# %% [markdown]
# ### The same noise in the eval set's labels
#
# The `h200_landscape` eval set (40_evalset) is built from pairs of these variants, and its build measured every pair
# near a bin edge once more, anchor and candidate head to head in one process. How far those measurements moved from
# the landscape's ratio (two separate runs against the reference) is a second reading of the run-to-run spread above:
# if a run's spread in log is s, a ratio of two runs against one head-to-head measurement should differ by about
# sqrt(2) s (`ratio_sd`). Then 30 rows of the set, near an edge or not, were measured again in fresh processes: the share
# whose bin flips is the label noise a forecaster is scored against.
# FILL: reading (per pack: changed bin, drift sd against ratio_sd; trimul's failures; the noise flips).

# %%
set_build = json.loads(measured_bytes("h200_landscape", "build_manifest.json"))
near_edge = remeasure_summary(set_build)
near_edge["changed share"] = near_edge.changed_bin / near_edge.near_edge
near_edge["ratio_sd"] = [np.sqrt(2) * np.log1p(land.between_run_sd(p)) for p in near_edge.index]
assert set(near_edge.index) == set(land.packs) and (near_edge.kept + near_edge.changed_bin + near_edge.failed == near_edge.near_edge).all()
assert (near_edge.log_dev_sd.between(near_edge.ratio_sd / 2, near_edge.ratio_sd * 2)).all()  # the retests' spread, seen again
noise = measured_manifest("h200_landscape")["label_noise"]
print(f"label noise: {noise['flipped']} of {noise['measured']} rows changed bin ({noise['flip_fraction']:.0%}, "
      f"95% interval {noise['flip_fraction_ci95'][0]:.0%} to {noise['flip_fraction_ci95'][1]:.0%})")
near_edge.round(3)
