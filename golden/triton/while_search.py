"""Walk a row's tiles until a running sum passes a limit: `while` loops whose exit is a value
the body sets (Triton's compiler has no `break` or `continue`), one loaded element per
iteration in the second."""
import triton
import triton.language as tl


@triton.jit
def running_sum_until(x_ptr, out_ptr, n_tiles, limit, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    k = 0
    stop = n_tiles
    while k < stop:
        x = tl.load(x_ptr + (row * n_tiles + k) * BLOCK + cols)
        k += 1
        if k != row + 1:  # each row skips one of its tiles
            acc += x.to(tl.float32)
            if tl.max(acc, axis=0) > limit:
                stop = k
    tl.store(out_ptr + row * BLOCK + cols, acc)


@triton.jit
def skip_zero_counts(counts_ptr, out_ptr, n):
    i = 0
    running = 1
    while running != 0:
        if tl.load(counts_ptr + i).to(tl.int32) == 0:
            running = 0
        else:
            i += 1
            if i >= n:
                running = 0
    tl.store(out_ptr + tl.program_id(0), i)
