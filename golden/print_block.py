"""Debug prints as cuTile Python formats them: an f-string with a block id (`%d`, a literal
`%` doubled), and a row maximum printed with `sep`/`end` whose conversion follows the launched
element type (`%f` for float tiles, `%d` for int32: one entry per type)."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def scale_and_report_kernel(x, y, TILE: ConstInt):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(y, index=(bid,), tile=t * 2.0)
    ct.print(f"block {bid}: 100% scaled")


@ct.kernel
def row_max_kernel(x, TILE: ConstInt):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE))
    print("row max", ct.max(t), sep=" = ", end=";\n")


def scale_and_report(x: torch.Tensor, tile: int = 128) -> torch.Tensor:
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], tile), 1, 1),
              scale_and_report_kernel, (x, y, tile))
    return y


def row_max(x: torch.Tensor, tile: int = 64) -> None:
    ct.launch(torch.cuda.current_stream(), (x.shape[0], 1, 1), row_max_kernel, (x, tile))


def row_max_of_counts(rows: int, tile: int = 64) -> None:
    counts = torch.ones((rows, tile), dtype=torch.int32, device="cuda")
    ct.launch(torch.cuda.current_stream(), (rows, 1, 1), row_max_kernel, (counts, tile))
