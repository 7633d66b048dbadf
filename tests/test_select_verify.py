"""``hwselect verify`` and ``pytest --hw-verify`` against torch's runtime (issue 27, items 4 and 5).

torch 2.13 with torch 2.14.1's testing modules laid over it (they define ``HardwareClassification``
and the runtime's ``filter_by_hw_classification``), loaded by a ``-p`` plugin before anything
imports them; a CUDA runner is faked for collection as benchmarks/real_tree.py does. Each test
plants what the real tree's hard cases do: a class created at run time, a base rebound at run time,
a class-level ``hw_classification`` changed after the class, and tests a class decorator copies on
(upstream's ``inductor/test_torchbind_aoti.py``). Skipped without torch or the 2.14.1 modules.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pytest_server import pytest_env

OVERLAY = Path("/work/cache/t214/torch/testing/_internal")

if importlib.util.find_spec("torch") is None:
    pytest.skip("torch is not installed", allow_module_level=True)
if not (OVERLAY / "common_utils.py").exists():
    pytest.skip(f"torch 2.14.1's testing modules are not at {OVERLAY}", allow_module_level=True)
pytestmark = [pytest.mark.torch, pytest.mark.slow]

OVERLAY_PLUGIN = f'''\
"""torch 2.14.1's testing modules over the installed torch, before anything imports them."""
import torch.testing._internal as _internal

_internal.__path__.insert(0, {str(OVERLAY)!r})
'''

FAKE_CUDA = '''\
"""A one-GPU CUDA machine, for collection only (nothing can run on it)."""
import torch

torch.cuda.is_available = lambda: True
torch.cuda.device_count = lambda: 1
torch.cuda.current_device = lambda: 0
from torch.testing._internal import common_device_type  # noqa: E402


@classmethod
def _set_up(cls):
    cls.no_magma, cls.no_cudnn, cls.cudnn_version = True, True, None
    cls.primary_device = "cuda:0"


common_device_type.CUDATestBase.setUpClass = _set_up
'''

HEADER = """\
import os

import torch
from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase
"""

# Files hwselect reads right: verify must find no difference in them.
CLEAN = {
    "test_agree.py": """
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


class TestGeneric(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_g(self):
        pass


class TestUnclassified(TestCase):
    def test_u(self):
        pass


if torch.__version__:
    class TestNested(TestCase):
        hw_classification = HardwareClassification.CPU

        def test_nested(self, device):
            pass

    instantiate_device_type_tests(TestNested, globals(), only_for=["cpu"])
""",
    # Shaped like upstream's inductor/test_torchbind_aoti.py: the class's tests are copied from a
    # mixin by a class decorator, so hwlint sees none; torch generates one class per device.
    "inductor/test_torchbind_aoti.py": """
class _TorchbindAOTIMixin:
    def test_torchbind_aoti(self, device):
        pass

    def test_torchbind_aoti_constant(self, device):
        pass

    def test_torchbind_aoti_lifted(self, device):
        pass


def _expose_mixin_tests(cls):
    for name in dir(_TorchbindAOTIMixin):
        if name.startswith("test_"):
            setattr(cls, name, getattr(_TorchbindAOTIMixin, name))
    return cls


@_expose_mixin_tests
class TestTorchbindAOTI(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def setUp(self):
        super().setUp()


class TestTorchbindOther(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_other(self, device):
        pass


instantiate_device_type_tests(TestTorchbindAOTI, globals())
instantiate_device_type_tests(TestTorchbindOther, globals(), only_for="cuda")
""",
}

# One planted difference per file (a second one in the same file would blur which is reported).
PLANTED = {
    "test_dynamic.py": """
class TestFine(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_f(self):
        pass


def _make():
    return type("TestDyn", (TestCase,), {"hw_classification": HardwareClassification.GENERIC,
                                          "test_d": lambda self: None})


globals()["TestD" + "yn"] = _make()  # a computed key: hwselect cannot name the class
""",
    "test_rebound.py": """
class CpuBase(TestCase):
    hw_classification = HardwareClassification.GENERIC


class CudaBase(TestCase):
    hw_classification = HardwareClassification.CUDA


if os.environ.get("PYTORCH_TESTING_DEVICE_ONLY_FOR") != "nowhere":  # true on every runner
    CpuBase = CudaBase


class TestRebound(CpuBase):
    def test_r(self):
        pass
""",
    "test_late.py": """
class TestLate(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_l(self):
        pass


TestLate.hw_classification = HardwareClassification.CUDA
""",
}


def write(root: Path, files: dict[str, str]) -> Path:
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER + body)
    (root / "_hw_torch.py").write_text(OVERLAY_PLUGIN)
    (root / "_hw_fake_cuda.py").write_text(FAKE_CUDA)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p _hw_torch -p no:cacheprovider\n")
    return root


def hwselect(root: Path, *args: str) -> subprocess.CompletedProcess:
    """The installed hwselect, in a clean pytest environment (no outer session's variables)."""
    exe = Path(sys.executable).parent / "hwselect"
    return subprocess.run([str(exe), *args], cwd=root, env=pytest_env(), capture_output=True, text=True)


def pytest_run(root: Path, *args: str, device: str = "cpu") -> subprocess.CompletedProcess:
    env = pytest_env({"PYTORCH_TESTING_DEVICE_ONLY_FOR": device})
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", *args]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)


def collected(proc: subprocess.CompletedProcess) -> set[str]:
    return {line for line in proc.stdout.splitlines() if "::" in line and not line.startswith(" ")}


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("clean"), CLEAN)


@pytest.mark.parametrize(
    ("runner", "extra", "compared"),
    [("cpu", [], "5 classes (9 tests)"), ("cuda", ["--", "-p", "_hw_fake_cuda"], "6 classes (10 tests)")],
)
def test_verify_finds_no_difference_where_hwselect_is_right(clean, runner, extra, compared):
    proc = hwselect(clean, "verify", runner, ".", *extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == f"hwselect verify: no difference; compared {compared}"
    assert "torch filter_by_hw_classification" in proc.stdout  # the runtime's own filter ran


def test_verify_reports_each_planted_difference(tmp_path):
    root = write(tmp_path, PLANTED)
    proc = hwselect(root, "verify", "cpu", ".")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    runtime_alone = out[out.index("the runtime runs, hwselect does not select (1):") :]
    assert "test_dynamic.py::TestDyn (live class: GENERIC)" in runtime_alone
    assert "writes module globals at run time" in runtime_alone  # explain: why hwselect missed it
    hwselect_alone = out[out.index("hwselect selects, the runtime does not run (2):") :]
    assert "test_rebound.py::TestRebound (live class: CUDA)" in hwselect_alone
    assert "base CpuBase of TestRebound is bound at run time" in hwselect_alone
    assert "test_late.py::TestLate (live class: CUDA)" in hwselect_alone
    assert "classification GENERIC, declared in its own body." in hwselect_alone
    assert out.splitlines()[-1] == "hwselect verify: 3 differences; compared 4 classes (4 tests)"


def test_pytest_plugin_verifies_in_the_run_and_exits_1(tmp_path):
    root = write(tmp_path, PLANTED)
    proc = pytest_run(root, "--hw-runner", "cpu", "--hw-verify")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "test_dynamic.py::TestDyn (live class: GENERIC)" in proc.stdout
    assert "hwselect verify: 3 differences" in proc.stdout
    agree = pytest_run(root, "--hw-runner", "cpu", "--hw-verify", "test_dynamic.py::TestFine")
    assert agree.returncode == 0, agree.stdout + agree.stderr
    assert "hwselect verify: no difference" in agree.stdout


@pytest.mark.parametrize(
    ("runner", "device", "extra"), [("cpu", "cpu", []), ("cuda", "cuda", ["-p", "_hw_fake_cuda"])]
)
def test_tests_a_class_decorator_copies_on_are_selected_through_the_file(clean, runner, device, extra):
    """torch generates TestTorchbindAOTI<DEVICE> with three tests; hwlint sees none of them."""
    name = f"TestTorchbindAOTI{device.upper()}"
    truth = pytest_run(clean, "inductor/test_torchbind_aoti.py", *extra, device=device)
    expected = {
        f"inductor/test_torchbind_aoti.py::{name}::test_torchbind_aoti{s}_{device}"
        for s in ("", "_constant", "_lifted")
    }
    assert expected <= collected(truth), truth.stdout

    ids = hwselect(clean, runner, "inductor/test_torchbind_aoti.py", "--verbose")
    assert ids.returncode == 0, ids.stderr
    lines = ids.stdout.splitlines()
    assert f"inductor/test_torchbind_aoti.py::{name}" not in lines  # no node id: addressed through its file
    assert "inductor/test_torchbind_aoti.py" in lines
    assert f"inductor/test_torchbind_aoti.py::{name}: class decorator @_expose_mixin_tests" in ids.stderr
    (clean / f"ids-{runner}.txt").write_text(ids.stdout)
    got = collected(pytest_run(clean, f"@ids-{runner}.txt", *extra, device=device))
    assert expected <= got
    assert all(f"::{name}::" in i or "::TestTorchbindOtherCUDA::" in i for i in got), got
