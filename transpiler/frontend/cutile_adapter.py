"""cuTile Python as a `FrontEnd`: the existing parser and analysis behind the interface.

Takes what `frontend.base.FrontEnd` asks for; gives it from `frontend/cutile_py.py` (the
source index), `frontend.syntax_facts` (the file's syntax facts its kernels share) and
`frontend.variants.analyze_kernel_variants` (the typed models), unchanged. Its pass profile
is cuTile Python's compiler: fma contraction, loop splitting, loop-invariant hoisting and
per-array token order, all reproduced so that the two sides' Tile IR match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from transpiler.frontend.base import FrontEnd, KernelSource, PassProfile, SourceIndex
from transpiler.frontend.cutile_py import KernelDef, SourceModule, parse_source
from transpiler.frontend.syntax_facts import SyntaxFacts
from transpiler.frontend.variants import analyze_kernel_variants
from transpiler.model import KernelModel

_IMPORTS_CUDA_TILE = re.compile(r"^\s*(import\s+cuda\.tile\b|from\s+cuda(\.tile)?\s+import\b)",
                                re.MULTILINE)


class CutilePyFrontEnd(FrontEnd):
    name = "cutile"
    profile = PassProfile(contract_fma=True, split_loops=True, hoist_invariants=True,
                          token_order="per-array")
    no_kernel_message = "no `@ct.kernel` function found (is `cuda.tile` imported?)"

    def detect(self, text: str) -> bool:
        return _IMPORTS_CUDA_TILE.search(text) is not None

    def parse(self, text: str, path: str) -> SourceModule:
        return parse_source(text, path)

    def analysis_state(self, source: SourceIndex) -> SyntaxFacts:
        assert isinstance(source, SourceModule)
        return SyntaxFacts(source)

    def analyze(self, source: SourceIndex, kernel: KernelSource, allow_holes: bool,
                state: object = None) -> Iterable[KernelModel]:
        assert isinstance(source, SourceModule) and isinstance(kernel, KernelDef)
        facts = state if isinstance(state, SyntaxFacts) else None
        return analyze_kernel_variants(source, kernel, allow_holes=allow_holes, facts=facts)
