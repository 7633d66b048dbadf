"""Parity with upstream's TEST_LINTER on the upstream files where hwlint once disagreed (issue 51).

Each module below keeps the parts of an upstream test file (newer than PyTorch 2.6.0) that decide the
outcome, written as the file writes them:

* ``inductor/test_gpu_codecache.py``: ``TestXPUCodeCacheClear`` (XPU) under ``@requires_triton()``,
  torch's ``functools.partial(unittest.skipIf, ...)``: a skip decorator, not a doubt (HWC006);
* ``inductor/test_torchbind_aoti.py``: two classes (CPU, ACCELERATOR) under
  ``@_expose_mixin_tests``, a function of the file that copies a mixin's ``test_*`` methods onto
  the class and returns it: the runtime reads the declared classification, so no HWC006;
* ``export/test_export_opinfo.py``: ``# flake8: noqa`` at the top and an ACCELERATOR class
  instantiated with ``only_for=("cuda",)``: upstream's linter reports it (HWC103 here), and so do
  ``hwlint check`` and the lintrunner adapter, which honour ``# hwlint: noqa`` only; flake8 skips
  the file before the plugin sees it, as flake8 does.

Every outcome goes through the real consumers: ``hwlint check``, the ``flake8`` and ``lintrunner``
binaries.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import run_tool

GPU_CODECACHE = """\
# Owner(s): ["module: inductor"]
import unittest
from unittest import mock

from torch._inductor.codecache import XPUCodeCache
from torch._inductor.test_case import TestCase as InductorTestCase
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification
from torch.testing._internal.inductor_utils import requires_triton


class TestGPUCodeCache(InductorTestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_compile(self, device):
        pass


instantiate_device_type_tests(TestGPUCodeCache, globals(), except_for="cpu", allow_xpu=True)


@requires_triton()
class TestXPUCodeCacheClear(InductorTestCase):
    hw_classification = HardwareClassification.XPU

    def test_cache_clear_clears_dll_cache(self):
        XPUCodeCache.dll_cache["fake_path.so"] = mock.MagicMock()
        XPUCodeCache.cache_clear()
        self.assertEqual(len(XPUCodeCache.dll_cache), 0)
"""

TORCHBIND_AOTI = """\
# Owner(s): ["module: higher order operators"]
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class _TorchbindAOTIHelpers:
    def compile_and_load(self, model, inputs):
        return model(*inputs)


class _TorchbindAOTITests:
    def test_torchbind_aoti(self, device):
        self.compile_and_load(torch.nn.Identity(), (torch.ones(2, device=device),))

    def test_custom_objs_empty_when_no_torchbind(self, device):
        self.compile_and_load(torch.nn.Identity(), (torch.ones(2, device=device),))


def _expose_mixin_tests(cls):
    for name, meth in _TorchbindAOTITests.__dict__.items():
        if name.startswith("test_"):
            setattr(cls, name, meth)
    return cls


@_expose_mixin_tests
class TestTorchbindAOTI(_TorchbindAOTIHelpers, TestCase):
    hw_classification = HardwareClassification.CPU


@_expose_mixin_tests
class TestTorchbindAOTIAccelerator(_TorchbindAOTIHelpers, TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def setUp(self):
        super().setUp()


instantiate_device_type_tests(TestTorchbindAOTI, globals(), only_for="cpu")
instantiate_device_type_tests(TestTorchbindAOTIAccelerator, globals(), except_for="cpu", allow_xpu=True)


if __name__ == "__main__":
    run_tests()
"""

EXPORT_OPINFO = """\
# Owner(s): ["oncall: export"]
# ruff: noqa: F841
# flake8: noqa

import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests, ops
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests

selected_op_db = [op for op in op_db if op.name == "nonzero"]


class TestExportOnFakeDevice(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    @ops(selected_op_db, allowed_dtypes=(torch.float,))
    def test_fake_export(self, device, dtype, op):
        pass


instantiate_device_type_tests(TestExportOnFakeDevice, globals(), only_for=("cuda",))


if __name__ == "__main__":
    run_tests()
"""

FILES = {
    "test/inductor/test_gpu_codecache.py": GPU_CODECACHE,
    "test/inductor/test_torchbind_aoti.py": TORCHBIND_AOTI,
    "test/export/test_export_opinfo.py": EXPORT_OPINFO,
}


def _line(rel: str, text: str) -> int:
    return FILES[rel].splitlines().index(text) + 1


#: What upstream's TEST_LINTER reports on the classes these files classify: one finding, the
#: only_for of an ACCELERATOR class (HWC103, on the call's line). And the mixin whose tests
#: ``_expose_mixin_tests`` copies declares nothing while its body defines ``test_*`` methods: a test
#: class as upstream's rule reads one (HWC001); it is outside the parity corpus, which counts the
#: classes upstream classifies.
UPSTREAM = {
    (
        "test/export/test_export_opinfo.py",
        _line(
            "test/export/test_export_opinfo.py",
            'instantiate_device_type_tests(TestExportOnFakeDevice, globals(), only_for=("cuda",))',
        ),
        "HWC103",
    )
}
MIXIN = (
    "test/inductor/test_torchbind_aoti.py",
    _line("test/inductor/test_torchbind_aoti.py", "class _TorchbindAOTITests:"),
    "HWC001",
)
EXPECTED = UPSTREAM | {MIXIN}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def _check(repo: Path) -> set[tuple[str, int, str]]:
    res = run_tool("hwlint", "check", "--no-cache", "--isolated", "--output-format", "json", "test", cwd=repo)
    assert res.returncode in (0, 1), res.stderr
    return {(f["filename"], f["location"]["row"], f["code"]) for f in json.loads(res.stdout)}


def _flake8(repo: Path) -> set[tuple[str, int, str]]:
    res = run_tool(
        "flake8", "--isolated", "--select", "HWC", "--format", "%(path)s %(row)d %(code)s", "test", cwd=repo
    )
    assert res.returncode in (0, 1) and res.stderr == "", res.stderr
    return {(p, int(r), c) for p, r, c in (line.split() for line in res.stdout.splitlines())}


def test_hwlint_check_reports_what_upstream_reports(repo):
    assert _check(repo) == EXPECTED


def test_flake8_skips_the_file_flake8_noqa_exempts_and_agrees_elsewhere(repo):
    assert _flake8(repo) == {MIXIN}
    # without the comment, flake8 reads the file and reports what hwlint check reports
    path = repo / "test/export/test_export_opinfo.py"
    path.write_text(EXPORT_OPINFO.replace("# flake8: noqa\n", "# (no directive)\n"))
    assert _flake8(repo) == EXPECTED


def test_hwlint_noqa_exempts_the_file_in_hwlint_check_and_flake8(repo):
    path = repo / "test/export/test_export_opinfo.py"
    path.write_text(EXPORT_OPINFO.replace("# flake8: noqa\n", "# hwlint: noqa\n"))
    assert _check(repo) == _flake8(repo) == {MIXIN}


def test_the_real_lintrunner_reports_what_upstream_reports(repo):
    (repo / ".lintrunner.toml").write_text(
        "[[linter]]\n"
        "code = 'HW_CLASSIFICATION'\n"
        "include_patterns = ['test/**/test_*.py']\n"
        f"command = [{sys.executable!r}, '-m', 'hwlint.lintrunner', '--code=HW_CLASSIFICATION', "
        "'--', '@{{PATHSFILE}}']\n"
    )
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "files"], cwd=repo, check=True)
    data = ["--data-path", str(repo / ".lintrunner-data")]
    res = run_tool("lintrunner", *data, "--all-files", "--output=json", cwd=repo)
    assert res.returncode == 1, res.stdout + res.stderr
    messages = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    found = {(str(Path(m["path"]).relative_to(repo)), m["line"], m["name"]) for m in messages}
    assert found == EXPECTED
