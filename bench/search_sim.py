"""Benchmark of the surrogate-filtered search on the toy problem: prints numbers, asserts nothing.

Standard against surrogate-filtered search at equal paid evaluations (`search.driver.simulation_arms`: L = 32 onemax,
mutator flipping 3 positions, batch 2, top-k 2; filtered arms write 16 children per parent and pay for 4, ranked by
`expected_bin` against the parent), with noisy-oracle surrogates of accuracy 0.125 (random), 0.4, 0.6 and 0.8. For
every arm: the mean best reward with a 95% t-interval over seeds after 16, 32, 64, 96 and 128 paid evaluations, and
the paid evaluations the arm needs to reach the standard arm's final mean best. With `--rules paper,selective` every
filtered arm also runs under the selective rule (`search.replay.RULES`: at most 2 of the 16 measured, and only those
with P(faster than the parent) >= 0.5; after 2 steps that paid for nothing, one step selects by rank alone), named
selective_<surrogate>.

    .venv/bin/python bench/search_sim.py              # 40 seeds, 128 paid evaluations per run
    .venv/bin/python bench/search_sim.py --seeds 20   # fewer seeds: wider intervals, half the time
    .venv/bin/python bench/search_sim.py --seeds 20 --accuracies 0.125,0.6,0.8 --rules paper,selective
"""
import argparse, os, time

from gpu_forecasters.search.driver import _merge, evaluations_to_match, simulate, simulation_arms, simulation_summary
from gpu_forecasters.search.replay import RULES

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--max-evaluations", type=int, default=128)
    ap.add_argument("--accuracies", default="0.125,0.4,0.6,0.8")
    ap.add_argument("--rules", default="paper", help="selection rules of the filtered arms: paper, selective or both")
    args = ap.parse_args()
    accuracies = tuple(float(a) for a in args.accuracies.split(","))
    print("load avg {:.2f} {:.2f} {:.2f} on {} cores".format(*os.getloadavg(), os.cpu_count()))
    started = time.perf_counter()
    paper = simulation_arms(accuracies)
    arms = {"standard": paper["standard"]}
    for rule in args.rules.split(","):
        prefix, search, selection = RULES[rule]
        for name, raw in paper.items():
            if name == "standard": continue
            arms[name.replace("filtered", prefix, 1)] = _merge(raw, {"search": search, "selection": selection})
    sim = simulate(arms, range(args.seeds), args.max_evaluations)
    elapsed = time.perf_counter() - started
    runs = sim.groupby(["arm", "seed"]).ngroups
    print(f"{runs} searches ({args.seeds} seeds x {runs // args.seeds} arms) in {elapsed:.1f} s ({elapsed / runs * 1e3:.0f} ms per search)\n")
    curves = simulation_summary(sim)
    marks = [k for k in (16, 32, 64, 96, 128) if k <= args.max_evaluations]
    if args.max_evaluations not in marks: marks.append(args.max_evaluations)
    match = evaluations_to_match(sim)
    print(f"{'arm':22}" + "".join(f"{k:>22}" for k in marks) + f"{'evals to match std':>20}")
    for arm in arms:
        g = curves[curves.arm == arm].set_index("evaluations_paid")
        cells = "".join(f"{g.loc[k, 'mean']:>8.2f} [{g.loc[k, 'lo']:.2f}, {g.loc[k, 'hi']:.2f}]" for k in marks)
        m = match.get(arm)
        print(f"{arm:22}{cells}{'never' if m is None else m:>20}")
    final = curves[curves.evaluations_paid == args.max_evaluations].set_index("arm")
    print("\ngain over standard at the budget (mean, SE of the difference):")
    for arm in [a for a in arms if a != "standard"]:
        d = final.loc[arm, "mean"] - final.loc["standard", "mean"]
        se = (final.loc[arm, "sem"] ** 2 + final.loc["standard", "sem"] ** 2) ** 0.5
        print(f"  {arm:22} {d:+.2f} +- {se:.2f}")

if __name__ == "__main__":
    main()
