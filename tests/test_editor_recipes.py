"""The editor recipes of README.md, run exactly as written there: the VS Code *Run on Save*
command and the Neovim autocommand, with the editor's placeholders filled in for a kernel
file, a file without a kernel and a file with an error; and the pre-commit hooks' entries."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
KERNEL = ROOT / "golden" / "vector_add.py"


def _block(language: str, marker: str) -> str:
    for body in re.findall(rf"```{language}\n(.*?)```", README, re.S):
        if marker in body:
            return body
    raise AssertionError(f"README has no ```{language} block with {marker}")


def vscode_command() -> str:
    settings = json.loads("{" + _block("json", "emeraldwalk.runonsave") + "}")
    (command,) = settings["emeraldwalk.runonsave"]["commands"]
    assert re.search(command["match"], "op.py") and not re.search(command["match"], "op.rs")
    return command["cmd"]


def neovim_command() -> str:
    match = re.search(r'command = "silent !(.*?)"', _block("lua", "BufWritePost"))
    assert match, "the Neovim recipe's command"
    return match.group(1)


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # `transpiler` as the installed console script of this interpreter's environment.
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "transpiler").exists():
        pytest.skip("no `transpiler` console script beside this interpreter")
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ.get('PATH', '')}")
    return subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True,
                          env=env, check=False)


def _vscode(path: Path) -> str:
    return (vscode_command().replace("${fileDirname}", str(path.parent))
            .replace("${fileBasenameNoExtension}", path.stem).replace("${file}", str(path)))


def _neovim(path: Path) -> str:
    return neovim_command().replace("%:r", str(path.with_suffix(""))).replace("%", str(path))


@pytest.mark.parametrize("fill", [_vscode, _neovim], ids=["vscode", "neovim"])
def test_the_recipe_regenerates_the_translation_on_save(fill: Callable[[Path], str],
                                                        tmp_path: Path) -> None:
    source = tmp_path / "vector_add.py"
    shutil.copy(KERNEL, source)
    proc = _shell(fill(source), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert source.with_suffix(".rs").read_text() == KERNEL.with_suffix(".rs").read_text()
    assert proc.stdout == ""


@pytest.mark.parametrize("fill", [_vscode, _neovim], ids=["vscode", "neovim"])
def test_the_recipe_leaves_the_translation_of_a_broken_file(fill: Callable[[Path], str],
                                                            tmp_path: Path) -> None:
    source = tmp_path / "vector_add.py"
    source.write_text(KERNEL.read_text().replace("ct.load(", "ct.lode(", 1))
    source.with_suffix(".rs").write_text("// earlier\n")
    proc = _shell(fill(source), tmp_path)
    assert proc.returncode == 1 and "E0100" in proc.stderr, proc.stderr
    assert source.with_suffix(".rs").read_text() == "// earlier\n"


def test_the_pre_commit_hooks_keep_translations_in_sync(tmp_path: Path) -> None:
    import yaml

    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"transpiler-check", "transpiler-sync"}
    kernel, helper = tmp_path / "vector_add.py", tmp_path / "common.py"
    shutil.copy(KERNEL, kernel)
    helper.write_text("import cuda.tile as ct\n\n\ndef twice(x):\n    return x + x\n")
    files = f"{kernel} {helper}"
    check, sync = (hooks[h]["entry"] + " " + files for h in ("transpiler-check",
                                                             "transpiler-sync"))
    assert _shell(check, tmp_path).returncode == 1  # no .rs yet: stale
    first = _shell(sync, tmp_path)
    assert first.returncode == 1 and "updated" in first.stdout  # wrote it: commit again
    assert kernel.with_suffix(".rs").read_text() == KERNEL.with_suffix(".rs").read_text()
    assert not helper.with_suffix(".rs").exists()
    assert _shell(sync, tmp_path).returncode == 0
    assert _shell(check, tmp_path).returncode == 0
