# %% [markdown]
# ## On the H200 landscape eval set
#
# The shipped `h200_landscape` eval set (notebook 40_evalset) asks the question a search asks: is this variant faster
# than that one, both real kernels, measured head to head near the bin edges. Its predictions were scored at shipping
# (`baseline_scoring/baselines_h200_landscape.json`): the cost model held out from the row's pack (`cost_model_lopo`)
# and trained on every pack (`cost_model_seen`), against climatology (each pack's own bin frequencies in the set),
# uniform and the noisy oracle at accuracy 0.5. `cost_model_seen` learned every variant of the set, so it scores
# how well the model fits, not how it forecasts. A search's online model sits between the two: it has measured the
# parent and some of the pack, never the child. `held_variant_forecasts` scores that here: the landscape's variants in
# five folds, each row forecast by the model fitted without its candidate's fold (its anchor is in the training rows
# four times in five, as a parent is).

# %%
from gpu_forecasters.data import load_eval_set, load_predictions
from gpu_forecasters.metrics import ForecastTable, compute_metrics, speed_only

# %%
def held_variant_forecasts(eval_df, # eval rows of variants of `landscape`
                           preds, # the set's predictions, holding `cost_model_seen` (whose rows are copied)
                           landscape, # the landscape the variants come from
                           folds: int = 5, seed: int = 0):
    "Each row forecast by a model fitted without the fold of its candidate, as prediction rows labelled `cost_model_held_variant`."
    rows = landscape_rows(landscape)
    fold_of = {v: i % folds for i, v in enumerate(np.random.default_rng(seed).permutation(sorted(r["variant_id"] for r in rows)))}
    space = {p: get_space(p) for p in set(eval_df.pack)}
    cand = np.array([fold_of[space[p].variant_id(space[p].params_of(c))] for p, c in zip(eval_df.pack, eval_df.candidate_code)])
    P = np.zeros((len(eval_df), N_BINS + 1))
    for k in range(folds):
        at = np.flatnonzero(cand == k)
        model = CostModel.fit([r for r in rows if fold_of[r["variant_id"]] != k], seed=seed, spread="variant")
        P[at] = model.forecast(list(eval_df.anchor_code.iloc[at]), list(eval_df.candidate_code.iloc[at]), list(eval_df.pack.iloc[at]), outcomes=9)
    seen = preds[preds.surrogate_label == "cost_model_seen"].set_index("comparison_id").loc[eval_df.comparison_id].reset_index()
    return seen.assign(surrogate_label="cost_model_held_variant", model_id="cost_model_held_variant", predicted_bin=P.argmax(1), argmax_bin=P.argmax(1),
                       bin_probabilities=[[{"bin": b, "p": float(p)} for b, p in enumerate(row)] for row in P])

# %% [markdown]
# Two views: every row, failures included (9 outcomes), and the rows where both kernels ran, each forecast
# renormalised over the 8 speed bins (`speed_only`).
# FILL: reading.

# %%
land_set = load_eval_set("h200_landscape", outcomes=9)
land_preds = load_predictions("h200_landscape")
land_preds = pd.concat([land_preds, held_variant_forecasts(land_set, land_preds, landscape)], ignore_index=True)
def metric_table(metrics, names): return pd.DataFrame({lab: {n: m[n]["all"]["value"] for n in names} for lab, m in metrics.items() if lab != "_meta"}).T
every_row, _ = compute_metrics(ForecastTable.build(land_set, land_preds), n_bootstrap=1000, seed=0)
ran, _ = compute_metrics(ForecastTable.build(*speed_only(land_set, land_preds)), n_bootstrap=1000, seed=0)
every_tab = metric_table(every_row, ["half_brier", "rps", "nll", "accuracy", "failure_brier", "failure_auroc"])
ran_tab = metric_table(ran, ["half_brier", "rps", "nll", "accuracy", "within_one", "spearman"])
hb = every_tab.half_brier
assert hb["cost_model_held_variant"] < hb["climatology"] < hb["uniform"] and hb["cost_model_seen"] < hb["climatology"]
assert hb["cost_model_lopo"] > hb["cost_model_held_variant"]  # a pack it never saw is the hard case
display(every_tab.round(3)); ran_tab.round(3)
