"""The corpus host-code model follows callers across the package (`transpiler.frontend.host`).

When a kernel's `ct.Constant` arguments depend on a parameter of the launching function
that only a caller gives (a config dict), the callers of that function elsewhere in the
package are run from the outermost one with typical arguments. The made-up package below
has an op file whose launcher takes a `config: Dict[str, int]`, registered under an op name
that an interface module calls through a dispatch stub; the interface builds the config in
a size-dependent helper with dict literals, `dict.get`, `.items()`, f-strings and `min`
(the evaluator's pieces on their own: `test_corpus_evaluator.py`).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from transpiler.frontend.host import callers as host_callers
from transpiler.frontend.host import reader as host_reader
from transpiler.frontend.host import values as host_values
from transpiler.ircheck import host_specs

_OP = '''
    from typing import Dict
    import cuda.tile as ct
    from pkg.registry import register_impl


    @ct.kernel
    def scale_kernel(x, y, TILE: ct.Constant[int], GROUP: ct.Constant[int]):
        pass


    @register_impl("scale_op", backend="tile")
    def launch_scale(x, y, config: Dict[str, int]):
        ct.launch(None, (1,), scale_kernel, (x, y, config["TILE"], config.get("GROUP", 8)))
'''

_REGISTRY = '''
    def register_impl(name, backend):
        return lambda fn: fn


    def dispatch(name):
        return lambda fn: fn
'''

_INTERFACE = '''
    import torch
    from pkg.registry import dispatch


    @dispatch("scale_op")
    def scale_op(*args, **kwargs):
        raise NotImplementedError("no backend")


    def default_config(n):
        table = {f"tile_{size}": size // 2 for size in (512, 1024, 4096)}
        if n >= 1024:
            config = {"TILE": table[f"tile_{n}"]}
        else:
            config = {"TILE": 64}
        return {key: min(value, 256) for key, value in config.items()}


    def scale_impl(x):
        y = torch.empty_like(x)
        scale_op(x, y, default_config(x.shape[-1]))
        return y


    def scale(x):
        return scale_impl(x)
'''


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A package with an op file, a registry and an interface that calls the op."""
    pkg = tmp_path / "pkg"
    (pkg / "ops").mkdir(parents=True)
    for path, text in ((pkg / "__init__.py", ""), (pkg / "ops" / "__init__.py", ""),
                       (pkg / "ops" / "scale.py", _OP), (pkg / "registry.py", _REGISTRY),
                       (pkg / "interface.py", _INTERFACE)):
        path.write_text(textwrap.dedent(text))
    return tmp_path


def test_dict_parameter_gets_no_typical_tensor(package: Path) -> None:
    """A container-annotated parameter is unknown, so the kernel's constants are too."""
    records, _ = host_reader.collect_launches(package / "pkg/ops/scale.py", package,
                                               "float16")
    own = [r for r in records if r.origin == "launch_scale"]
    assert own and isinstance(own[0].args[2], host_values.Unknown)
    assert host_callers.unresolved_origins(own, host_values.Package(package).module_at(
        package / "pkg/ops/scale.py").tree) == ["launch_scale"]


def test_callers_are_found_outermost_first(package: Path) -> None:
    op = (package / "pkg/ops/scale.py").resolve()
    callers = host_callers.find_callers(package, op, {"scale_op": (op, "launch_scale")})
    assert [(c.name, c.depth) for c in callers] == [("scale", 2), ("scale_impl", 1)]


def test_constants_come_from_the_outermost_caller(package: Path) -> None:
    launches, problems, _ = host_reader.discover(package / "pkg/ops/scale.py", package)
    records = launches["scale_kernel"].by_dtype["float16"]
    known = [r for r in records if r.origin == "scale"]
    assert known, problems
    assert known[0].entry == "pkg.interface.scale"
    assert known[0].args[2:] == [256, 8]  # 1024 // 2 capped by min; GROUP from .get
    manifest = {"params": [
        {"name": "x", "kind": "array", "ndim": 2, "element": "E"},
        {"name": "y", "kind": "array", "ndim": 2, "element": "E"},
        {"name": "TILE", "kind": "const", "const_kind": "int"},
        {"name": "GROUP", "kind": "const", "const_kind": "int"}]}
    found = host_specs.specs_for(launches["scale_kernel"], [manifest], {"TILE", "GROUP"})
    assert not found.errors
    assert found.sources[0] == "float32: pkg.interface.scale (ct.launch)"
    assert found.specs[0].label() == "scale_kernel[x:float32/2,y:float32/2,TILE=256,GROUP=8]"


def test_no_callers_are_run_when_constants_are_known(package: Path) -> None:
    op = package / "pkg/ops/scale.py"
    op.write_text(op.read_text().replace('config["TILE"]', "128").replace(
        'config.get("GROUP", 8)', "8"))
    records, _ = host_reader.collect_launches(op, package, "float16")
    assert {r.origin for r in records} == {"launch_scale"}


_SAMPLE = '''
    import cuda.tile as ct
    import torch


    @ct.kernel
    def split_kernel(x, N: ct.Constant[int], A: ct.Constant[int], B: ct.Constant[int]):
        pass


    def run(x, factors):
        A, B = factors
        N = x.shape[1]
        ct.launch(torch.cuda.current_stream(), (1,), split_kernel, (x, N, A, B))


    if __name__ == "__main__":
        SIZE = 8
        FACTORS = (2, 4)
        run(torch.randn(2, SIZE, device="cuda"), factors=FACTORS)
'''


def test_the_files_own_main_block_gives_the_constants(tmp_path: Path) -> None:
    # A sample's configuration lives in its `__main__` block; its host function takes it
    # as a tuple parameter the typical arguments cannot guess.
    sample = tmp_path / "sample.py"
    sample.write_text(textwrap.dedent(_SAMPLE))
    launches, problems, _ = host_reader.discover(sample, tmp_path)
    records = launches["split_kernel"].by_dtype["float32"]
    main = [r for r in records if r.entry == "__main__"]
    assert main, problems
    assert main[0].args[1:] == [8, 2, 4]


def test_no_main_block_run_when_constants_are_known(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(textwrap.dedent(_SAMPLE).replace("A, B = factors", "A, B = 2, 4"))
    launches, _, _ = host_reader.discover(sample, tmp_path)
    assert all(r.entry != "__main__" for r in launches["split_kernel"].by_dtype["float32"])
