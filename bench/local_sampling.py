"""Throughput of `LocalBackend.sample`: all prompts' rows decoded together vs one prompt at a time. Prints tokens/s.

    .venv/bin/python bench/local_sampling.py                                   # tiny Llama, CPU (seconds)
    .venv/bin/python bench/local_sampling.py --model random:harmony-tiny --device cuda --dtype bfloat16 --max-tokens 256

Prompts have different lengths (--prompt-len, --prompt-len + 1, ...), so the batch is really left-padded. No stop
ids: every row decodes --max-tokens tokens, so tokens/s = prompts × n × max_tokens / seconds. "one prompt at a time"
is `max_sampling_rows = n` (one prompt per batch, as before batching); "batched" is --max-rows. The best of --repeats
runs is printed, after one warm-up call. Seeded, so both modes sample the same tokens (checked, up to ties).
"""
import argparse, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="tiny", help='"tiny" (tiny_llama), a random preset ("random:harmony-tiny") or a HF name')
    ap.add_argument("--prompts", type=int, default=4)
    ap.add_argument("--n", type=int, default=4, help="completions per prompt")
    ap.add_argument("--max-tokens", type=int, default=40)
    ap.add_argument("--prompt-len", type=int, default=16)
    ap.add_argument("--max-rows", type=int, default=64, help="max_sampling_rows of the batched mode")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--repeats", type=int, default=2)
    a = ap.parse_args()
    from gpu_forecasters.training.backends import LocalBackend, tiny_llama
    model = tiny_llama(0, vocab_size=256) if a.model == "tiny" else a.model
    backend = LocalBackend(model, lora_rank=8, device=a.device, dtype=a.dtype)
    torch, vocab = backend.torch, backend.model.get_input_embeddings().weight.shape[0]
    prompts = [[(7 * j + 3 * i) % vocab for i in range(a.prompt_len + j)] for j in range(a.prompts)]
    seeds = list(range(a.prompts))
    print(f"{backend.model_name} on {backend.device} ({a.dtype}): {a.prompts} prompts × n={a.n} × {a.max_tokens} tokens, "
          f"prompt lengths {a.prompt_len}..{a.prompt_len + a.prompts - 1}", flush=True)
    results = {}
    for mode, rows in (("one prompt at a time", a.n), (f"batched (max_sampling_rows={a.max_rows})", a.max_rows)):
        backend.max_sampling_rows = rows
        backend.sample(prompts, a.n, 1.0, min(a.max_tokens, 4), stop=[], seeds=seeds)  # warm-up
        best = float("inf")
        for _ in range(a.repeats):
            if backend.device.startswith("cuda"): torch.cuda.synchronize()
            t0 = time.perf_counter()
            groups = backend.sample(prompts, a.n, 1.0, a.max_tokens, stop=[], seeds=seeds)
            if backend.device.startswith("cuda"): torch.cuda.synchronize()
            best = min(best, time.perf_counter() - t0)
        n_tokens = sum(len(s.tokens) for g in groups for s in g)
        results[mode] = [s.tokens for g in groups for s in g]
        print(f"  {mode:<36} {best:8.3f} s  {n_tokens / best:10.1f} sampled tokens/s", flush=True)
    same = sum(x == y for x, y in zip(*results.values()))
    print(f"  same tokens in both modes: {same}/{a.prompts * a.n} rows (low precision may break ties differently)")

if __name__ == "__main__": main()
