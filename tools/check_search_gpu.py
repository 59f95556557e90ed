"""A real-GPU end-to-end check of the search: a 2-step standard search on cross_entropy through the `local`
back-end, with a deterministic (non-LLM) mutator that applies known variants of the seed.

    PYTHONPATH=$PWD python tools/check_search_gpu.py --out runs/search_gpu

Step 0 mutates the seed into a fused in-place variant (expected faster) and a deliberately slowed one (the softmax
computed twice); step 1 mutates the best kernel into a log-softmax variant and a copy of the seed (a known duplicate:
deduplicated, not paid for). Prints the summary and the trajectory; the run directory holds every output.
"""
import argparse, json, sys, time
from pathlib import Path

from gpu_forecasters.backends import PackEvaluator
from gpu_forecasters.harness import EvalConfig
from gpu_forecasters.packs.core import get_pack
from gpu_forecasters.search.driver import SearchDriver, config_from_dict
from gpu_forecasters.search.toy import ScriptedMutator

HEADER = "import torch\nfrom task import input_t, output_t\n\n"
FUSED = HEADER + '''def custom_kernel(data: input_t) -> output_t:
    """In-place softmax gradient: one fp32 buffer instead of three."""
    logits, targets, grad_output = data
    z = logits.float()
    rows = torch.arange(len(targets), device=z.device)
    lse = torch.logsumexp(z, dim=-1)
    losses = lse - z[rows, targets]
    z.sub_(lse[:, None]).exp_()
    z[rows, targets] -= 1.0
    return losses, z.mul_(grad_output[:, None]).to(torch.bfloat16)
'''
SLOWED = HEADER + '''def custom_kernel(data: input_t) -> output_t:
    """Deliberately slowed: the softmax is computed twice."""
    logits, targets, grad_output = data
    z = logits.float()
    rows = torch.arange(len(targets), device=z.device)
    losses = torch.logsumexp(z, dim=-1) - z[rows, targets]
    grad = torch.softmax(z, dim=-1)
    grad = torch.softmax(z, dim=-1) + 0 * grad
    grad[rows, targets] -= 1.0
    return losses, (grad * grad_output[:, None]).to(torch.bfloat16)
'''
LOG_SOFTMAX = HEADER + '''def custom_kernel(data: input_t) -> output_t:
    """Log-softmax once; loss and gradient from it."""
    logits, targets, grad_output = data
    logp = torch.log_softmax(logits.float(), dim=-1)
    rows = torch.arange(len(targets), device=logp.device)
    losses = -logp[rows, targets]
    grad = logp.exp_()
    grad[rows, targets] -= 1.0
    return losses, grad.mul_(grad_output[:, None]).to(torch.bfloat16)
'''

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="run directory (must not hold another run)")
    ap.add_argument("--backend", default="local", help="local (default); cpu with --case-set smoke checks the plumbing only")
    ap.add_argument("--case-set", default="paper")
    args = ap.parse_args(argv)
    seed = get_pack("cross_entropy").seed_kernel
    config = config_from_dict({
        "preset": "standard", "mode": "standard",
        "problem": {"kind": "gpu_mode_pack", "pack": "cross_entropy", "case_set": args.case_set, "seed_code": None},
        "search": {"batch_size": 1, "samples_per_parent": 2, "eval_per_parent": 2, "archive_top_k": 2},
        "budgets": {"max_steps": 2},
        "concurrency": {"mutator": 2, "surrogate": 1, "evaluator": 1, "executor": "threads"},
        "mutator": {"kind": "litellm", "model": "scripted-variants"},
        # the config's evaluator block is a record here (the evaluator is passed in; its describe() logs the back-end used)
        "evaluator": {"kind": "local", "aggregator": "geomean"}})
    mutator = ScriptedMutator({"s0-p0-c0": FUSED, "s0-p0-c1": SLOWED, "s1-p0-c0": LOG_SOFTMAX, "s1-p0-c1": seed})
    started = time.perf_counter()
    with PackEvaluator("cross_entropy", args.case_set, args.backend, EvalConfig(max_measured_s=2.0)) as evaluator:
        summary = SearchDriver(config, mutator, evaluator, run_dir=Path(args.out)).run()
    print(json.dumps(summary.to_json() if hasattr(summary, "to_json") else summary.__dict__, indent=1, default=str))
    print((Path(args.out) / "trajectory.csv").read_text())
    print(f"wall {time.perf_counter() - started:.1f} s")
    return 0

if __name__ == "__main__":
    sys.exit(main())
