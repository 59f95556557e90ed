# gpu_forecasters variant {"space": "trimul", "version": "1", "params": {"fusion": "none", "proj": "separate", "pdtype": "fp32", "contract": "torch", "cdtype": "tf32", "BLOCK_MN": 64, "BLOCK_K": 32, "num_warps": 4, "num_stages": 3}}
import contextlib
import torch
import torch.nn.functional as F
from task import input_t, output_t


@contextlib.contextmanager
def _tf32():
    "cuBLAS may use TF32 for fp32 matrix products inside the block; the caller's setting is restored after."
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try: yield
    finally: torch.backends.cuda.matmul.allow_tf32 = saved


def custom_kernel(data: input_t) -> output_t:
    """fusion none; projections separate in fp32; the k-contraction by torch in tf32 with an fp32 result."""
    x, mask, weights, config = data
    dim, hidden_dim = config["dim"], config["hidden_dim"]
    xp = F.layer_norm(x, (dim,), weights["norm.weight"], weights["norm.bias"], 1e-5)
    w = lambda name: weights[name + ".weight"]
    pl, pr, gl, gr, go = (F.linear(xp, w(name)) for name in ('left_proj', 'right_proj', 'left_gate', 'right_gate', 'out_gate'))
    m = mask.to(x.dtype).unsqueeze(-1)
    left = pl * m * torch.sigmoid(gl)
    right = pr * m * torch.sigmoid(gr)
    bs, n, _, h = left.shape
    l = left.permute(0, 3, 1, 2).reshape(bs * h, n, n)
    r = right.permute(0, 3, 2, 1).reshape(bs * h, n, n)
    with _tf32(): out = torch.bmm(l, r)
    out = out.reshape(bs, h, n, n).permute(0, 2, 3, 1)
    out = F.layer_norm(out, (hidden_dim,), weights["to_out_norm.weight"], weights["to_out_norm.bias"], 1e-5)
    z = out * torch.sigmoid(go)
    return F.linear(z, weights["to_out.weight"])
