import torch
from task import input_t, output_t

def custom_kernel(data: input_t) -> output_t:
    """Log-softmax once; loss and gradient from it."""
    logits, targets, grad_output = data
    logp = torch.log_softmax(logits.float(), dim=-1)
    rows = torch.arange(len(targets), device=logp.device)
    losses = -logp[rows, targets]
    grad = logp.exp_()
    grad[rows, targets] -= 1.0
    return losses, grad.mul_(grad_output[:, None]).to(torch.bfloat16)
