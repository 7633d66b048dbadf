"""A generated example suite for hwselect: unittest classes that pytest collects without torch.

Every module starts with :data:`HEADER`, a stand-in for torch's ``HardwareClassification`` and
``instantiate_device_type_tests`` that behaves like the real one for what selection depends on: it
deletes the generic class, generates ``TestFoo`` + ``DEVICE`` only for the device in ``HW_DEVICE``
(CI's ``PYTORCH_TESTING_DEVICE_ONLY_FOR``), honours only_for / except_for (string or sequence, the
backend name mapped back to privateuse1) and allow_mps / allow_xpu, suffixes test methods, and names
the first PrivateUse1 class of the process ``...PRIVATEUSE1`` and every later one after the backend.

:data:`CONFTEST` adds ``--truth-runs A,B``: the runtime's own filter (``getattr`` on the collected
class), which is the ground truth hwselect's output is compared with.
"""

from __future__ import annotations

from pathlib import Path

HEADER = """\
import enum
import os
import sys
import unittest


class HardwareClassification(enum.Enum):
    GENERIC = "generic"
    ACCELERATOR = "accelerator"
    CPU = "cpu"
    CUDA = "cuda"
    MPS = "mps"
    XPU = "xpu"


def instantiate_device_type_tests(
    generic, scope, except_for=None, only_for=None, include_lazy=False, allow_mps=False, allow_xpu=False
):
    del scope[generic.__name__]
    device = os.environ.get("HW_DEVICE", "cpu")
    backend = os.environ.get("HW_BACKEND", "")
    state = sys.modules.setdefault("_hw_standin_state", type(sys)("_hw_standin_state"))

    def norm(value):
        value = [value] if isinstance(value, str) else list(value or [])
        return [("privateuse1" if backend and v == backend else v) for v in value]

    devices = ["cpu", "cuda", "privateuse1"] + ["mps"] * bool(allow_mps) + ["xpu"] * bool(allow_xpu)
    devices = [d for d in devices if d not in norm(except_for)]
    if only_for:
        devices = [d for d in devices if d in norm(only_for)]
    tests = [k for k in vars(generic) if k.startswith("test")]
    for dev in devices:
        if dev != device:
            continue
        suffix = dev
        if dev == "privateuse1" and backend:
            suffix = backend if getattr(state, "renamed", False) else "privateuse1"
            state.renamed = True
        method_suffix = backend if dev == "privateuse1" and backend else dev
        body = {}
        for k in tests:
            body[k + "_" + method_suffix] = (lambda f, d: lambda self: f(self, d))(vars(generic)[k], dev)
        name = generic.__name__ + suffix.upper()
        scope[name] = type(name, (generic,), body)
    for k in tests:
        delattr(generic, k)


TestCase = unittest.TestCase
"""

CONFTEST = """\
import pytest


def pytest_addoption(parser):
    parser.addoption("--truth-runs", default=None)


def pytest_collection_modifyitems(config, items):
    runs = config.getoption("truth_runs")
    if runs is None:
        return
    wanted = set(runs.split(","))
    keep, drop = [], []
    for item in items:
        member = getattr(getattr(item, "cls", None), "hw_classification", None)
        name = member.name if member is not None else "unclassified"
        (keep if name in wanted else drop).append(item)
    config.hook.pytest_deselected(items=drop)
    items[:] = keep
"""

# Module bodies, by path inside the suite. Comments say what each case exercises.
MODULES: dict[str, str] = {
    # Substring collisions: TestFoo is a prefix of TestFooBar and of the generated TestFooCUDA.
    "test_collide.py": """
class TestFooCUDA(TestCase):  # hand-written; replaced by the generated class on the cuda runner
    hw_classification = HardwareClassification.CUDA

    def test_handwritten(self):
        pass


class TestFoo(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_add(self, device):
        pass

    def test_sub(self, device):
        pass


instantiate_device_type_tests(TestFoo, globals())


class TestFooBar(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_bar(self):
        pass


class TestFooBarCPUOnly(TestCase):
    hw_classification = HardwareClassification.CPU

    def test_cpu_only(self):
        pass


class TestUnclassified(TestCase):
    def test_nothing(self):
        pass
""",
    # Inherited classifications (a plain base, the instantiated generic class), `del`, a main guard.
    "test_inherit.py": """
class Base(TestCase):
    hw_classification = HardwareClassification.GENERIC


class TestChild(Base):
    def test_child(self):
        pass


class DeviceBase(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR


class TestDeviceChild(DeviceBase):
    def test_dev(self, device):
        pass


instantiate_device_type_tests(TestDeviceChild, globals())


class TestOverride(Base):
    hw_classification = HardwareClassification.CUDA

    def test_override(self):
        pass


class _SharedTests(TestCase):  # deleted below: only its subclass is collected
    hw_classification = HardwareClassification.GENERIC

    def test_shared(self):
        pass


class TestUsesShared(_SharedTests):
    pass


del _SharedTests

if __name__ == "__main__":  # pytest imports the module under its own name: never defined

    class TestMainOnly(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_main(self):
            pass
""",
    # Classes and calls nested in if / try / with blocks.
    "test_nested.py": """
import contextlib

if True:
    class TestNestedGeneric(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_nested(self):
            pass

try:
    class TestNestedAcc(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_acc(self, device):
            pass

    instantiate_device_type_tests(TestNestedAcc, globals())
except ImportError:
    pass

with contextlib.suppress(Exception):
    class TestNestedXPU(TestCase):
        hw_classification = HardwareClassification.XPU

        def test_xpu(self):
            pass
""",
    # only_for / except_for in every spelling, module constants, opt-ins.
    "test_filters.py": """
DEVICES = ("cpu", "cuda")
MORE = DEVICES + ("xpu",)


class TestOnlyCuda(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_kernel(self, device):
        pass


instantiate_device_type_tests(TestOnlyCuda, globals(), only_for="cuda")


class TestConstant(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_c(self, device):
        pass


instantiate_device_type_tests(TestConstant, globals(), only_for=DEVICES)


class TestExceptCpu(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_e(self, device):
        pass


instantiate_device_type_tests(TestExceptCpu, globals(), except_for=["cpu"])


class TestMps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_m(self, device):
        pass


instantiate_device_type_tests(TestMps, globals(), allow_mps=True)


class TestXpuOptIn(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_x(self, device):
        pass


instantiate_device_type_tests(TestXpuOptIn, globals(), None, MORE, False, False, True)


class TestBackendName(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_b(self, device):
        pass


instantiate_device_type_tests(TestBackendName, globals(), only_for=("cuda", "openreg"))


class TestNoPrivateUse1(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_n(self, device):
        pass


instantiate_device_type_tests(TestNoPrivateUse1, globals(), except_for="openreg")


def test_plain_function():  # collected by pytest, dropped by the runtime filter: never selected
    pass
""",
    # PrivateUse1 only: every class here is ACCELERATOR and instantiated.
    "test_privateuse.py": """
class TestPrivA(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


instantiate_device_type_tests(TestPrivA, globals())


class TestPrivB(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_b(self, device):
        pass


instantiate_device_type_tests(TestPrivB, globals())
""",
    # A class name inside a directory name: "TestMatmul" is part of "testmatmul_suite", so on the cpu
    # runner -k cannot keep TestMatmul and drop TestMat (hwselect falls back to node ids).
    "testmatmul_suite/test_mm.py": """
class TestMatmul(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_mm(self):
        pass


class TestMmCuda(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_mm_cuda(self):
        pass


class TestMat(TestCase):  # its name is part of TestMatmul's: -k cannot tell them apart here
    hw_classification = HardwareClassification.CUDA

    def test_mat_cuda(self):
        pass
""",
    # A class name inside its module name: "Conv" is part of "test_conv.py".
    "test_conv.py": """
class Conv(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_conv2d(self):
        pass


class TestConvCuda(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_conv_cuda(self):
        pass
""",
}


def write_suite(root: Path, modules: dict[str, str] | None = None) -> Path:
    """Write the suite (header + body per module, conftest, pytest.ini) under *root*."""
    for rel, body in (modules or MODULES).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER + body)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return root
