"""hwselect against torch's real ``instantiate_device_type_tests`` (torch 2.13, CPU build).

torch 2.13 has no ``HardwareClassification``, so the test files fall back to a local enum with the
same member names; the runtime filter is the suite's conftest (getattr on each collected class).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_tool
from tests.select_suite import CONFTEST

pytest.importorskip("torch.testing._internal.common_device_type")
pytestmark = pytest.mark.torch

PRELUDE = """\
import enum

import torch
from torch.testing._internal import common_device_type
from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase

try:
    from torch.testing._internal.common_utils import HardwareClassification
except ImportError:
    class HardwareClassification(enum.Enum):
        GENERIC = "generic"
        ACCELERATOR = "accelerator"
        CPU = "cpu"
        CUDA = "cuda"
        MPS = "mps"
        XPU = "xpu"
"""

MODULES = {
    "test_torch_ops.py": """
DEVICES = ("cpu", "cuda")


class TestOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_add(self, device):
        pass

    @dtypes(torch.float32, torch.float64)
    def test_mul(self, device, dtype):
        pass


instantiate_device_type_tests(TestOps, globals())


class TestOpsCuda(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_kernel(self, device):
        pass


instantiate_device_type_tests(TestOpsCuda, globals(), only_for="cuda")


class TestOpsNotCpu(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_x(self, device):
        pass


instantiate_device_type_tests(TestOpsNotCpu, globals(), except_for="cpu")


class TestOpsConstant(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_c(self, device):
        pass


common_device_type.instantiate_device_type_tests(TestOpsConstant, globals(), only_for=DEVICES)


class TestOpsMpsOnly(TestCase):
    hw_classification = HardwareClassification.MPS

    def test_m(self, device):
        pass


instantiate_device_type_tests(TestOpsMpsOnly, globals(), only_for="mps", allow_mps=True)
""",
    "test_torch_misc.py": """
class TestMiscCPU(TestCase):  # replaced by the class generated from TestMisc below
    hw_classification = HardwareClassification.GENERIC

    def test_handwritten(self):
        pass


class TestMisc(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_generated(self, device):
        pass


instantiate_device_type_tests(TestMisc, globals())


class Base(TestCase):
    hw_classification = HardwareClassification.GENERIC


class TestMiscInherits(Base):
    def test_inherited(self):
        pass


class TestMiscInheritsCuda(Base):
    hw_classification = HardwareClassification.CUDA

    def test_cuda(self):
        pass


class TestMiscUnclassified(TestCase):
    def test_u(self):
        pass


if torch.__version__:
    class TestMiscNested(TestCase):
        hw_classification = HardwareClassification.CPU

        def test_nested(self, device):
            pass

    instantiate_device_type_tests(TestMiscNested, globals(), only_for=["cpu"])
""",
}


@pytest.fixture(scope="module")
def torch_suite(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("torch_suite")
    for name, body in MODULES.items():
        (root / name).write_text(PRELUDE + body)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return root


def collect(root: Path, *args: str) -> set[str]:
    env = {**os.environ, "PYTORCH_TESTING_DEVICE_ONLY_FOR": "cpu", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {line for line in proc.stdout.splitlines() if "::" in line and not line.startswith("hwselect")}


def test_cpu_runner_matches_torch_instantiation(torch_suite):
    expected = collect(torch_suite, "--truth-runs", "GENERIC,ACCELERATOR,CPU")
    assert {i.rsplit("::", 1)[0] for i in expected} == {
        "test_torch_misc.py::TestMiscCPU",  # the generated class (its test is test_generated_cpu)
        "test_torch_misc.py::TestMiscInherits",
        "test_torch_misc.py::TestMiscNestedCPU",
        "test_torch_ops.py::TestOpsCPU",
        "test_torch_ops.py::TestOpsConstantCPU",
    }
    assert "test_torch_ops.py::TestOpsCPU::test_mul_cpu_float64" in expected

    ids = run_tool("hwselect", "cpu", "--format", "nodeids", cwd=torch_suite)
    assert ids.returncode == 0, ids.stderr
    (torch_suite / "ids.txt").write_text(ids.stdout)
    assert collect(torch_suite, "@ids.txt") == expected

    k = run_tool("hwselect", "cpu", "--format", "k", cwd=torch_suite)
    assert k.returncode == 0 and len(k.stdout.splitlines()) == 1, k.stderr
    assert collect(torch_suite, "-k", k.stdout.strip()) == expected

    assert collect(torch_suite, "--hw-runner", "cpu") == expected
