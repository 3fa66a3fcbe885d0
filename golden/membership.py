"""`in` / `not in` on tuples inside a kernel, evaluated as cuTile Python evaluates them: a
membership known at compile time folds away; `a in (0, 2)` is `(a == 0) | (a == 2)`; tuples
compare item by item (`&` of the items from `true`, unfolded as cuTile Python leaves it);
`not in` is the membership `^ true`."""
import cuda.tile as ct
import torch


@ct.kernel
def kernel(x):
    if 2 in (1, 2, 3):
        ct.scatter(x, 0, 1)
    if 5 not in (1, 2, 3):
        ct.scatter(x, 3, 1)
    a = ct.bid(0)
    if a in (0, 2):
        ct.scatter(x, (a,), 1)
    if (a, 1) in ((0, 1), (2, 1)):
        ct.scatter(x, (a,), 2)
    if a not in (1, 3):
        ct.scatter(x, (a,), 3)


def host():
    x = torch.zeros(4, dtype=torch.int32, device="cuda")
    ct.launch(torch.cuda.current_stream(), (4,), kernel, (x,))
