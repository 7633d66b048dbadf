"""Fixes on real files of a PyTorch test tree (slow; opt-in): the import of the enum, the style
checkers, the classes that stay on their device.

    HWLINT_REAL_TREE=/work/src/pytorch-v2.6.0/test python -m pytest tests/test_fix_real_tree.py

Real files, fixed with ``--fix --unsafe-fixes`` outside any checkout: the installed torch decides the
form (hwlint.edits.torch_enum). The fixed files must import on the installed torch (2.13: no enum)
and with torch 2.14.1's testing modules laid over it (the enum), with no taxonomy change.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .torch_migration import overlay

TREE = os.environ.get("HWLINT_REAL_TREE", "")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.torch,
    pytest.mark.skipif(not TREE, reason="set HWLINT_REAL_TREE to a PyTorch test/ directory"),
]

# files of the issue (#50): a parenthesized common_utils import (test_dataloader.py), a plain one
FILES = ("test_dataloader.py", "test_out_dtype_op.py")

IMPORT = """
import sys
sys.argv = ["x"]
if {overlay!r}:
    import torch.testing._internal as internal
    internal.__path__.insert(0, {overlay!r})
import torch.testing._internal.common_utils as cu
print("enum in torch:", hasattr(cu, "HardwareClassification"))
for name in {modules!r}:
    module = __import__(name)
    declared = sorted({{
        c.hw_classification.name for c in vars(module).values()
        if isinstance(c, type) and "hw_classification" in vars(c)
    }})
    print(name, declared)
"""


def _import_all(root: Path, modules: list[str], over: str) -> str:
    code = IMPORT.format(overlay=over, modules=modules)
    res = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout


def _style(paths: list[Path]) -> dict[str, int]:
    """ruff's E, W and I findings (its defaults otherwise) and flake8's E and W, by code."""
    from collections import Counter

    ruff = subprocess.run(
        ["ruff", "check", "--isolated", "--select", "E,W,I", "--output-format", "concise", *map(str, paths)],
        capture_output=True,
        text=True,
    )
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "E,W", *map(str, paths)],
        capture_output=True,
        text=True,
    )
    lines = [line for line in (ruff.stdout + flake8.stdout).splitlines() if line.count(":") >= 3]
    return Counter(line.split(":")[3].split()[0] for line in lines if ": " in line)


def test_fixed_real_files_import_with_and_without_the_enum():
    pytest.importorskip("torch")
    from hwlint.cli.check import main

    # outside pytest's base temporary directory: conftest makes that a checkout of a torch with the enum
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        for name in FILES:
            shutil.copyfile(Path(TREE) / name, root / name)
        assert (
            main(["check", "--isolated", "--no-cache", "--exit-zero", "--fix", "--unsafe-fixes", work]) == 0
        )
        texts = {name: (root / name).read_text() for name in FILES}
        for name, text in texts.items():
            assert "except ImportError:  # a torch without HardwareClassification\n" in text, name
            assert text.count("from torch.testing._internal.common_utils import HardwareClassification") == 1
        # clean under the style checkers' defaults: no finding a fix added
        before = _style([Path(TREE) / name for name in FILES])
        after = _style([root / name for name in FILES])
        assert {code: n for code, n in after.items() if n > before.get(code, 0)} == {}, (before, after)
        modules = [name.removesuffix(".py") for name in FILES]
        plain = _import_all(root, modules, "")
        assert "enum in torch: False" in plain
        for module in modules:
            assert f"{module} []" not in plain  # the module declares its classes
        if overlay():
            laid = _import_all(root, modules, overlay())
            assert "enum in torch: True" in laid
            assert laid.splitlines()[1:] == plain.splitlines()[1:]


def test_a_class_testing_one_devices_autocast_stays_on_that_device(taxonomy):
    """test_xpu.py's TestXpuAutocast gives "xpu" to autocast (``torch.autocast("xpu")``, the
    autocast lists of ``torch.device("xpu")``): every unsafe fix leaves it an XPU class, never
    converted to ACCELERATOR (its XPU autocast tests would go to the CUDA and MPS runners)."""
    from hwlint.fix.apply import fix_plan, plan_file

    result = fix_plan(plan_file(str(Path(TREE) / "test_xpu.py"), taxonomy), taxonomy, unsafe=True)
    fixed = result.after.data.decode() if result.after is not None else ""
    body = fixed[fixed.index("class TestXpuAutocast(TestAutocast):") :]
    assert body.split("\n")[1] == "    hw_classification = HardwareClassification.XPU"
    assert 'torch.device("xpu")' in body and "instantiate_device_type_tests(TestXpuAutocast" not in fixed
