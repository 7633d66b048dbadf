"""The import of the enum a fix writes, decided from the torch the tree runs on
(hwlint.edits.torch_enum), and the written code clean under flake8's and ruff's defaults."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from hwlint.cli.check import main
from hwlint.edits import torch_enum
from hwlint.edits.torch_enum import enum_form

from .conftest import torch_checkout

SOURCE = '''\
"""A test module as PyTorch writes them."""

import os
import unittest

import torch
from torch.testing._internal.common_utils import run_tests, TestCase


class TestPlain(TestCase):
    def test_a(self):
        self.assertEqual(os.sep, os.sep)


class TestOther(unittest.TestCase):
    def test_b(self):
        self.assertTrue(torch.ones(1).sum() == 1)


if __name__ == "__main__":
    run_tests()
'''


def test_the_nearest_checkout_decides(tmp_path, taxonomy):
    torch_checkout(tmp_path, enum=True)
    inner = tmp_path / "sub"
    torch_checkout(inner, enum=False)
    (inner / "test").mkdir()
    assert enum_form(taxonomy, [str(tmp_path / "test_x.py")]).fallback is False
    form = enum_form(taxonomy, [str(inner / "test" / "test_x.py")])
    assert form.fallback is True
    assert form.reason.startswith("the checkout's ") and form.reason.endswith(" lacks HardwareClassification")


def test_without_a_checkout_the_installed_package_decides_then_the_taxonomy(tmp_path, taxonomy, monkeypatch):
    monkeypatch.setattr(torch_enum, "checkout_module", lambda paths, module: None)
    installed = torch_checkout(tmp_path / "site", enum=False)
    monkeypatch.setattr(torch_enum, "installed_module", lambda module: str(installed))
    assert enum_form(taxonomy, ["x"]).fallback is True
    assert enum_form(taxonomy, ["x"]).reason.startswith("the installed ")
    monkeypatch.setattr(torch_enum, "installed_module", lambda module: None)
    assert enum_form(taxonomy, ["x"]) == torch_enum.EnumForm(
        False, "no torch.testing._internal.common_utils found and the taxonomy leaves `enum.fallback` false"
    )
    fallback = replace(taxonomy, enum_fallback=True)
    assert enum_form(fallback, ["x"]).fallback is True


def test_the_installed_package_is_found_without_importing_it(taxonomy):
    found = torch_enum.installed_module("json.decoder")
    assert found is not None and found.endswith("json/decoder.py")
    assert torch_enum.installed_module("no_such_package_hwlint.mod") is None


def _style(path: Path) -> list[str]:
    """ruff's E, W and I findings (its defaults otherwise) and flake8's E and W: the lines."""
    ruff = subprocess.run(
        ["ruff", "check", "--isolated", "--select", "E,W,I", "--output-format", "concise", str(path)],
        capture_output=True,
        text=True,
    )
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "E,W", str(path)],
        capture_output=True,
        text=True,
    )
    return [line for line in (ruff.stdout + flake8.stdout).splitlines() if line.startswith(str(path))]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_a_tree_on_a_torch_without_the_enum_gets_the_fallback_clean_under_the_style_checkers(
    tmp_path, capsys
):
    torch_checkout(tmp_path, enum=False)
    target = tmp_path / "test" / "test_plain.py"
    target.parent.mkdir()
    target.write_text(SOURCE)
    before = _style(target)  # PyTorch's order is not ruff's: one I001 before
    assert before == [f"{target}:3:1: I001 [*] Import block is un-sorted or un-formatted"]
    assert main(["check", "--isolated", "--no-cache", "--fix", str(target)]) == 0
    fixed = target.read_text()
    assert (
        "from torch.testing._internal.common_utils import run_tests, TestCase\n\n"
        "try:\n"
        "    from torch.testing._internal.common_utils import HardwareClassification\n"
        "except ImportError:  # a torch without HardwareClassification\n"
        "    import enum\n"
        "    HardwareClassification = enum.Enum(\n"
        '        "HardwareClassification", "GENERIC ACCELERATOR CPU CUDA MPS XPU"\n'
        "    )\n\n\n"
        "class TestPlain(TestCase):\n"
        "    hw_classification = HardwareClassification.GENERIC\n\n"
    ) in fixed
    assert _style(target) == before
    assert "lacks HardwareClassification" in capsys.readouterr().err
    # torch without the enum (a stand-in module): the fixed file imports and declares
    fake = tmp_path / "fake"
    (fake / "torch" / "testing" / "_internal").mkdir(parents=True)
    for init in ("torch", "torch/testing", "torch/testing/_internal"):
        (fake / init / "__init__.py").write_text("")
    (fake / "torch" / "testing" / "_internal" / "common_utils.py").write_text(
        "import unittest\nTestCase = unittest.TestCase\ndef run_tests():\n    unittest.main()\n"
    )
    (fake / "torch" / "__init__.py").write_text("def ones(n):\n    return None\n")
    code = "import test_plain; print(test_plain.TestPlain.hw_classification.name)"
    env = {"PYTHONPATH": f"{target.parent}:{fake}"}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert (res.returncode, res.stdout) == (0, "GENERIC\n"), res.stderr


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_the_name_added_to_an_import_keeps_its_order(tmp_path):
    """ruff's default order (by type: constants, classes, the rest) where the names follow it,
    else case-insensitive (PyTorch's); a line the name makes too long is wrapped as the
    formatters wrap it."""
    torch_checkout(tmp_path, enum=True)
    typed = "from torch.testing._internal.common_utils import TEST_CUDA, TestCase, run_tests\n"
    usort = "from torch.testing._internal.common_utils import run_tests, TEST_CUDA, TestCase\n"
    body = "\n\nclass TestA(TestCase):\n    def test_a(self):\n        self.assertTrue(run_tests)\n"
    for name, line, expected in (
        ("test_typed.py", typed, "import (\n    TEST_CUDA,\n    HardwareClassification,\n    TestCase,\n"),
        ("test_usort.py", usort, "import (\n    HardwareClassification,\n    run_tests,\n    TEST_CUDA,\n"),
    ):
        target = tmp_path / name
        target.write_text(line + body)
        before = _style(target)
        assert main(["check", "--isolated", "--no-cache", "--fix", str(target)]) == 0
        assert target.read_text().startswith("from torch.testing._internal.common_utils " + expected)
        assert _style(target) == before
