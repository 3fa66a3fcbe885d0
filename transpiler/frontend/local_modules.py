"""Absolute imports of the user's own modules: `from kernels.matmul import swizzle_2d`.

Takes the path of the file that imports and the dotted module name; gives the module as a
name below the file's folder (`matmul`), the form sibling imports (`from .matmul import f`)
use, when a folder at or above the file's holds the module as a `.py` file inside the file's
own folder tree; else None (an installed package, or a file elsewhere).
"""

from __future__ import annotations

from pathlib import Path

# How many folders above the importing file a package root may be.
MAX_PACKAGE_DEPTH = 4


def local_module(path: str, module: str) -> str | None:
    """The module below the file's folder that `import module` names, or None."""
    if path.startswith("<") or not module:
        return None
    folder = Path(path).resolve().parent
    parts = module.split(".")
    for root in [folder, *folder.parents][:MAX_PACKAGE_DEPTH]:
        candidate = root.joinpath(*parts).with_suffix(".py")
        if candidate.is_file():
            try:
                relative = candidate.relative_to(folder)
            except ValueError:
                return None
            return ".".join(relative.with_suffix("").parts)
    return None
