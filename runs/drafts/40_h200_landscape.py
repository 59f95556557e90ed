# %% [markdown]
# ### The shipped H200 landscape set
#
# `h200_landscape` is `evalset/h200_landscape.json` built on the H200 (2026-12-04 to 12-0X, N device sessions) and
# shipped with `tools/ship_evalset.py`: 4,000 landscape pairs per pack, failure rows on, at most 16 rows per pack and
# bin, every near-edge pair that can make the cap measured once more head to head. Rows per pack and bin:
# FILL: which bins are thin and why (cross_entropy's variants cluster, so few of its pairs land in 2x to 4x (bins 6
# and 7); fp8_quant has no failing variant and no pair beyond 4x).

# %%
land_set = load_eval_set("h200_landscape", outcomes=9)
land_manifest, land_build = measured_manifest("h200_landscape"), json.loads(measured_bytes("h200_landscape", "build_manifest.json"))
per_bin = pd.crosstab(land_set.pack, land_set.true_bin, margins=True, margins_name="all")
assert len(land_set) >= 400 and set(land_set.true_bin) == set(range(9))  # every bin, failures included, is populated
test_eq(land_manifest["rows_per_pack_bin"], {p: {str(b): int(n) for b, n in g.true_bin.value_counts().sort_index().items()} for p, g in land_set.groupby("pack")})
test_eq(set(land_set.hardware), {"NVIDIA H200"}); test_eq(land_manifest["device"]["name"], "NVIDIA H200")
test_eq(bool((land_set.anchor_code != land_set.candidate_code).all()), True)
test_eq(bool(land_set[land_set.true_bin == 0].aggregated_speedup.isna().all()), True)  # a failure row has no speedup
per_bin

# %% [markdown]
# The head-to-head re-measurement of the near-edge pairs: FILL (how many per pack, how many kept, how many changed
# bin, the drift mean/sd per pack; cross_entropy's 33 of 65 (its between-run spread of 6%); trimul's 10 failures are
# its flaky bf16-projection kernels: an anchor or candidate that passed in the landscape failed a check here).

# %%
near = remeasure_summary(land_build)
test_eq(int(near.near_edge.sum()), len(land_build["remeasurements"]))
test_eq((near.kept + near.changed_bin + near.failed).tolist(), near.near_edge.tolist())
unstable = {p: sum(c["unstable"] for c in bins.values()) for p, bins in land_build["counts"].items()}
test_eq({p: unstable[p] for p in near.index}, (near.changed_bin + near.failed).to_dict())  # every pair that moved or failed went
display(remeasure_failures(land_build).groupby(["pack", "outcome"]).size().rename("pairs"))
near.round(4)

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
