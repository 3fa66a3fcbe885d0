"""Host functions for the golden Triton kernels, which define kernels only.

Takes nothing; gives, per golden Triton file (`golden/triton/<op>.py`), the text of a host
function that allocates the outputs and launches the file's kernel with `kernel[grid](...)`,
the way Triton's tutorials do (grids as tuples and `META` lambdas, `triton.cdiv`,
`triton.next_power_of_2`, strides passed from the tensors). `launcher/stage_triton_bench.sh`
appends it to the kernel file before translation (so the generated wrapper's glue is
exercised) and to the staged original that `bench/gpu_bench_triton.py` runs under Triton.
"""

from __future__ import annotations

import ast

HOSTS: dict[str, str] = {
    "vector_add": '''
def vector_add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[lambda META: (triton.cdiv(n, META["BLOCK_SIZE"]),)](x, y, out, n, BLOCK_SIZE=1024)
    return out
''',
    "saxpy": '''
def saxpy(x, y, a):
    n = x.numel()
    saxpy_kernel[(triton.cdiv(n, 1024),)](x, y, a, n, BLOCK=1024)
    return y
''',
    "relu_leaky": '''
def leaky_relu(x):
    y = torch.empty_like(x)
    n = x.numel()
    leaky_relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
''',
    "sigmoid_gate": '''
def gate(x, g):
    y = torch.empty_like(x)
    n = x.numel()
    gate_kernel[(triton.cdiv(n, 1024),)](x, g, y, n, BLOCK=1024)
    return y
''',
    "gelu_helper": '''
def gelu(x):
    y = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
''',
    "static_unroll": '''
def sum4(x):
    n = x.numel()
    y = torch.empty((triton.cdiv(n, 4),), dtype=torch.float32, device=x.device)
    sum4_kernel[(triton.cdiv(n, 4 * 256),)](x, y, n, BLOCK=256)
    return y
''',
    "dropout_mask": '''
def dropout(x, noise, p):
    out = torch.empty_like(x)
    n = x.numel()
    dropout_kernel[(triton.cdiv(n, 1024),)](x, noise, out, n, p, BLOCK=1024)
    return out
''',
    "fused_softmax": '''
def softmax(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols,
                              BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return y
''',
    "online_softmax": '''
def online_softmax(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    online_softmax_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=1024)
    return y
''',
    "rms_norm": '''
def rms_norm(x, w, eps):
    y = torch.empty_like(x)
    rows, n = x.shape
    rms_norm_fwd[(rows,)](x, y, w, x.stride(0), n, eps,
                          BLOCK_SIZE=min(4096, triton.next_power_of_2(n)))
    return y
''',
    "layer_norm": '''
def layer_norm(x, w, b, eps):
    y = torch.empty_like(x)
    rows, n = x.shape
    mean = torch.empty((rows,), dtype=torch.float32, device=x.device)
    rstd = torch.empty((rows,), dtype=torch.float32, device=x.device)
    layer_norm_fwd[(rows,)](x, y, w, b, mean, rstd, x.stride(0), n, eps,
                            BLOCK_SIZE=min(4096, triton.next_power_of_2(n)))
    return y, mean, rstd
''',
    "cumsum_rows": '''
def cumsum(x):
    rows, n = x.shape
    y = torch.empty_like(x)
    cumsum_kernel[(rows,)](x, y, n, x.stride(0), BLOCK=triton.next_power_of_2(n))
    return y
''',
    "argmax_rows": '''
def argmax(x):
    rows, n = x.shape
    out = torch.empty((rows,), dtype=torch.int32, device=x.device)
    argmax_kernel[(rows,)](x, out, n, x.stride(0), BLOCK=triton.next_power_of_2(n))
    return out
''',
    "cross_entropy": '''
def cross_entropy(logits, target):
    rows, n = logits.shape
    loss = torch.empty((rows,), dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(rows,)](logits, target, loss, n, logits.stride(0),
                                  BLOCK=triton.next_power_of_2(n))
    return loss
''',
    "embedding": '''
def embedding(ids, table):
    dim = table.shape[1]
    out = torch.empty((ids.numel(), dim), dtype=table.dtype, device=table.device)
    embedding_kernel[(ids.numel(),)](ids, table, out, dim, BLOCK_D=triton.next_power_of_2(dim))
    return out
''',
    "transpose_2d": '''
def transpose(x):
    m, n = x.shape
    y = torch.empty((n, m), dtype=x.dtype, device=x.device)
    transpose_kernel[lambda META: (triton.cdiv(m, META["BM"]), triton.cdiv(n, META["BN"]))](
        x, y, m, n, BM=64, BN=64)
    return y
''',
    "col_sum_2d": '''
def col_sum(x):
    m, n = x.shape
    y = torch.empty((n,), dtype=torch.float16, device=x.device)
    col_sum_kernel[(triton.cdiv(n, 128),)](x, y, m, n, BM=64, BN=128)
    return y
''',
    "row_extrema": '''
def row_range(x):
    m, n = x.shape
    y = torch.empty((m, n), dtype=torch.float32, device=x.device)
    row_range_kernel[(triton.cdiv(m, 16),)](x, y, m, n, BM=16, BN=triton.next_power_of_2(n))
    return y
''',
    "grid_3d": '''
def add_bias(x, b):
    z, r, c = x.shape
    y = torch.empty_like(x)
    add_bias_3d[(triton.cdiv(c, 256), r, z)](x, b, y, r, c, BLOCK=256)
    return y
''',
    "bias_flag": '''
def linear_bias(x, b):
    rows, n = x.shape
    y = torch.empty((rows, n), dtype=torch.float32, device=x.device)
    linear_bias_kernel[(rows,)](x, b, y, n, HAS_BIAS=b is not None,
                                BLOCK=triton.next_power_of_2(n))
    return y
''',
    "early_return": '''
def scale_rows_host(x, scale):
    rows, n = x.shape
    y = torch.empty_like(x)
    scale_rows[(rows + 3,)](x, y, rows, n, scale, BLOCK=triton.next_power_of_2(n))
    return y
''',
    "autotuned_scale": '''
def scale(x, alpha):
    y = torch.empty_like(x)
    n = x.numel()
    scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, n, alpha)
    return y
''',
    "matmul": '''
def matmul(a, b):
    m, k = a.shape
    _, n = b.shape
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    grid = lambda META: (triton.cdiv(m, META["BLOCK_M"]), triton.cdiv(n, META["BLOCK_N"]))
    matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32)
    return c
''',
    "matmul_grouped": '''
def grouped_matmul(a, b):
    m, k = a.shape
    _, n = b.shape
    c = torch.empty((m, n), dtype=torch.float16, device=a.device)
    grid = lambda META: (triton.cdiv(m, META["BLOCK_M"]) * triton.cdiv(n, META["BLOCK_N"]),)
    grouped_matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                                b.stride(1), c.stride(0), c.stride(1), BLOCK_M=128,
                                BLOCK_N=128, BLOCK_K=32, GROUP_M=8)
    return c
''',
}


def with_host(op: str, text: str) -> str:
    """The kernel file's text with its bench host function (and `import torch`) appended."""
    host = HOSTS.get(op)
    if host is None:
        return text
    return text.rstrip("\n") + "\n\nimport torch  # noqa: E402 - the bench host function's\n" + host


#: Bench host functions for Triton's tutorials whose own host function is not a plain launch
#: (tutorial 02 sizes its persistent grid from the compiled Triton kernel's registers, which
#: a translation has no handle for): the same kernel, a grid of one program per row.
TUTORIAL_HOSTS: dict[str, str] = {
    "02-fused-softmax": '''
def bench_softmax(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(n_rows, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                   BLOCK_SIZE=triton.next_power_of_2(n_cols), num_stages=2)
    return y
''',
}

#: Module-level calls that draw data or run work (a tutorial's test and benchmark code).
_RUNNING_CALLS = ("torch.", "print", "benchmark", "triton.testing")


def library_text(text: str) -> str:
    """A tutorial-style file as a library: its imports, functions, classes and the module
    assignments its functions may read, without the statements that run tests or benchmarks
    at import (expression statements, asserts, loops, `if` blocks, assignments that call
    torch or the file's own functions, or read a name so dropped, and functions decorated
    by `triton.testing`)."""
    tree = ast.parse(text)
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    dropped: set[str] = set()
    keep: list[ast.stmt] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom | ast.ClassDef):
            keep.append(stmt)
        elif isinstance(stmt, ast.FunctionDef):
            if any("triton.testing" in ast.unparse(d) for d in stmt.decorator_list):
                dropped.add(stmt.name)
            else:
                keep.append(stmt)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            names = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)} \
                if stmt.value is not None else set()
            calls = [ast.unparse(c.func) for c in ast.walk(stmt) if isinstance(c, ast.Call)]
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            runs = any(c in defined or c.startswith(_RUNNING_CALLS) for c in calls)
            if runs or names & dropped:
                dropped |= bound
            else:
                keep.append(stmt)
    lines = text.splitlines()
    out = ["\n".join(lines[s.lineno - 1 - len(getattr(s, "decorator_list", [])):s.end_lineno])
           for s in keep]
    return "\n\n\n".join(out) + "\n"
