"""One GRPO step of the local back-end at GPU scale, with the real prompt format and the real reward, and its numbers.

    PYTHONPATH=$PWD python tools/check_grpo_gpu.py --json grpo_h200.json        # training/local_h200.json on CUDA
    PYTHONPATH=$PWD python tools/check_grpo_gpu.py --device cpu --base random:harmony-tiny --dtype float32 --max-tokens 16

Needs torch, transformers, peft, pydantic, pandas and the Tinker cookbook (the Harmony renderer and its offline
tokenizer, `tml_renderers`); no network, no Hugging Face download (the model is built from a config).

It runs `gpu_forecasters.training.grpo.train` with the shipped `training/local_h200.json` (`random:harmony-small`, a
~0.5 B-parameter Llama with the gpt-oss vocabulary, random weights; the sample pool; 4 groups of 4; one step;
`on_all_constant: "keep_one"`, so forward_backward and optim_step run although a random model never parses), then
prints the step's numbers from `metrics.jsonl`: reward mean, parse rate, sampled tokens, the sampling and training
times, and the sampled output tokens per second. `--json F` also writes them to F. The run directory is kept
(`--output-dir`, default a fresh temporary directory) and is printed.
"""
import argparse, json, sys, tempfile, time
from pathlib import Path


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="training/local_h200.json", help="training config (path or shipped name)")
    p.add_argument("--device", default=None, help="override backend.device (default: the config's, cuda)")
    p.add_argument("--base", default=None, help="override base_model, e.g. random:harmony-tiny")
    p.add_argument("--dtype", default=None, help="override backend.dtype (float32, bfloat16, float16)")
    p.add_argument("--max-tokens", type=int, default=None, help="override max_tokens")
    p.add_argument("--output-dir", default=None, help="run directory (default: a new temporary directory)")
    p.add_argument("--json", default=None, help="also write the numbers to this JSON file")
    return p.parse_args(argv)


def resolved_config(args):
    "The config with the command line's overrides, as a `TrainingConfig`."
    from gpu_forecasters.data import load_json_config
    from gpu_forecasters.training.grpo import TrainingConfig, resolve_config
    data = load_json_config(args.config, TrainingConfig).model_dump(mode="json")
    if data["backend"]["kind"] != "local": sys.exit(f"check_grpo_gpu: {args.config} is not a local-back-end config")
    if args.base: data["base_model"], data["backend"]["model"] = args.base, None
    if args.device: data["backend"]["device"] = args.device
    if args.dtype: data["backend"]["dtype"] = args.dtype
    if args.max_tokens: data["max_tokens"] = args.max_tokens
    return resolve_config(data)


def step_numbers(run_dir: Path) -> dict:
    "The numbers of the run's first step, from metrics.jsonl."
    line = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[0])
    t_sample = line["time_sample_s"]
    return dict(step=line["step"], reward_mean=line["reward_mean"], parse_rate=line["parse_rate"],
                n_samples=line["n_samples"], n_truncated=line["n_truncated"],
                sampled_prompt_tokens=line["sampled_prompt_tokens"], sampled_output_tokens=line["sampled_output_tokens"],
                trained_tokens=line["trained_tokens"], skipped_update=line["skipped_update"], loss=line["loss"],
                kl_sample_train=line["kl_sample_train"], time_sample_s=t_sample, time_train_s=line["time_train_s"],
                sampled_output_tokens_per_s=line["sampled_output_tokens"] / t_sample if t_sample > 0 else None)


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch
    from gpu_forecasters.training.grpo import train
    cfg = resolved_config(args)
    out = Path(args.output_dir or tempfile.mkdtemp(prefix="check_grpo_gpu_")) / "run"
    device = cfg.backend.device
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() and device != "cpu" else "cpu"
    print(f"check_grpo_gpu: {cfg.base_model} on {device} ({gpu}), dtype {cfg.backend.dtype}, {cfg.groups_per_batch} groups of "
          f"{cfg.group_size}, max_tokens {cfg.max_tokens}; torch {torch.__version__}; run dir {out}", flush=True)
    t0 = time.monotonic()
    try: art = train(cfg, out)
    except ValueError as e:  # config, back-end set-up (e.g. no CUDA), checkpoint errors: one line
        print(f"check_grpo_gpu: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    numbers = step_numbers(out) | dict(wall_s=round(time.monotonic() - t0, 2), base_model=cfg.base_model, device=device,
                                       gpu=gpu, dtype=cfg.backend.dtype, group_size=cfg.group_size,
                                       groups_per_batch=cfg.groups_per_batch, max_tokens=cfg.max_tokens,
                                       torch=torch.__version__, checkpoint_uri=art.checkpoint_uri)
    if torch.cuda.is_available() and device != "cpu":
        numbers["max_memory_allocated_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    for key in ("reward_mean", "parse_rate", "n_samples", "n_truncated", "sampled_prompt_tokens", "sampled_output_tokens",
                "trained_tokens", "skipped_update", "loss", "kl_sample_train", "time_sample_s", "time_train_s",
                "sampled_output_tokens_per_s", "wall_s", "max_memory_allocated_gib"):
        if key in numbers:
            v = numbers[key]
            print(f"  {key:30s} {v:.4g}" if isinstance(v, float) else f"  {key:30s} {v}")
    if args.json: Path(args.json).write_text(json.dumps(numbers, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
