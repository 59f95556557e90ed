# %% [markdown]
# ## On the H200 landscape eval set
#
# The shipped `h200_landscape` eval set (notebook 40_evalset) asks the question a search asks: is this variant faster
# than that one, both real kernels, measured head to head near the bin edges. Its predictions were scored at shipping
# (`baseline_scoring/baselines_h200_landscape.json`): the cost model held out from the row's pack (`cost_model_lopo`)
# and trained on every pack (`cost_model_seen`), against climatology (the set's own bin frequencies), uniform and the
# noisy oracle at accuracy 0.5. Two views: every row, failures included (9 outcomes), and the rows where both kernels
# ran, each forecast renormalised over the 8 speed bins (`speed_only`).
# FILL: reading.

# %%
land_set, land_preds = load_eval_set("h200_landscape", outcomes=9), load_predictions("h200_landscape")
def metric_table(metrics, names): return pd.DataFrame({lab: {n: m[n]["all"]["value"] for n in names} for lab, m in metrics.items() if lab != "_meta"}).T
every_row, _ = compute_metrics(ForecastTable.build(land_set, land_preds), n_bootstrap=1000, seed=0)
ran, _ = compute_metrics(ForecastTable.build(*speed_only(land_set, land_preds)), n_bootstrap=1000, seed=0)
every_tab = metric_table(every_row, ["half_brier", "rps", "nll", "accuracy", "failure_brier", "failure_auroc"])
ran_tab = metric_table(ran, ["half_brier", "rps", "nll", "accuracy", "within_one", "spearman"])
assert every_tab.half_brier["cost_model_seen"] < every_tab.half_brier["climatology"] < every_tab.half_brier["uniform"]
display(every_tab.round(3)); ran_tab.round(3)
