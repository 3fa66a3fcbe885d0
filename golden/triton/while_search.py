"""Walk a row's tiles until a running sum passes a limit: `while` with `break` and
`continue`, and a `while` whose condition loads a value before each test."""
import triton
import triton.language as tl


@triton.jit
def running_sum_until(x_ptr, out_ptr, n_tiles, limit, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    k = 0
    while k < n_tiles:
        x = tl.load(x_ptr + (row * n_tiles + k) * BLOCK + cols)
        k += 1
        if k == row + 1:
            continue
        acc += x.to(tl.float32)
        if tl.max(acc, axis=0) > limit:
            break
    tl.store(out_ptr + row * BLOCK + cols, acc)


@triton.jit
def skip_zero_counts(counts_ptr, out_ptr, n):
    # Counts the leading nonzero entries: the condition reads memory before every test.
    i = 0
    while tl.load(counts_ptr + i).to(tl.int32) != 0:
        i += 1
        if i >= n:
            break
    tl.store(out_ptr + tl.program_id(0), i)
