"""Inference: exact answers for each kind of evidence, and the measured precision docs/check.md reports."""

from __future__ import annotations

import textwrap

import pytest

from hwlint.context import Context
from hwlint.infer import BASE_WITHOUT_DEVICE, infer, inference
from hwlint.model import build_model

from .measure_inference import HELDOUT, rows, summarize

HEADER = """\
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA
from torch.testing._internal.common_utils import HardwareClassification, TestCase
"""


def _infer(taxonomy, body: str, name: str = "TestX"):
    source = HEADER + textwrap.dedent(body)
    model = build_model(source, "test_x.py", taxonomy)
    cls = model.class_named(name)
    assert cls is not None
    return infer(Context(model, taxonomy), cls)


CASES = [
    (
        "instantiated, every test takes device",
        """
        class TestX(TestCase):
            def test_a(self, device): ...
        instantiate_device_type_tests(TestX, globals(), except_for="mps")
        """,
        ("ACCELERATOR", True),
        "ACCELERATOR (safe, instantiated, every test takes device, none pinned): instantiated by "
        "`instantiate_device_type_tests` (line 7) without `only_for`; "
        "every test takes `device`; no device-pinning decorator",
    ),
    (
        "instantiated only for one device",
        """
        class TestX(TestCase):
            def test_a(self, device): ...
        instantiate_device_type_tests(TestX, globals(), only_for=["xpu"], allow_xpu=True)
        """,
        ("XPU", True),
        "XPU (safe, only_for names one device): instantiated by `instantiate_device_type_tests` (line 7) "
        'with `only_for="xpu"`',
    ),
    (
        "nothing device-specific",
        """
        class TestX(TestCase):
            def test_a(self):
                torch.ones(1, device="cpu").cpu()
        """,
        ("GENERIC", True),
        "GENERIC (safe, no device evidence): never instantiated; no test takes `device`; "
        "no device-specific code",
    ),
    (
        "inherited from a base in the file",
        """
        class Base(TestCase):
            hw_classification = HardwareClassification.CUDA
        class TestX(Base):
            def test_a(self): ...
        """,
        ("CUDA", True),
        "CUDA (safe, inherited): inherits CUDA from `Base`, which `getattr` already returns at run time",
    ),
    (
        "every test uses cuda",
        """
        class TestX(TestCase):
            def test_a(self):
                torch.cuda.synchronize()
            def test_b(self):
                x = torch.ones(1).cuda()
        """,
        ("CUDA", False),
        "CUDA (unsafe, every test hard-uses one device): never instantiated; every test uses cuda: "
        "`torch.cuda.synchronize()` (line 7)",
    ),
    (
        "a base in the file whose setUp uses cuda",
        """
        class MemoryBase(TestCase):
            def setUp(self):
                torch.cuda.empty_cache()
        class TestX(MemoryBase):
            def test_a(self): ...
        """,
        ("CUDA", False),
        "CUDA (unsafe, every test hard-uses one device): never instantiated; the class uses cuda: "
        "`torch.cuda.empty_cache()` (line 7)",
    ),
    (
        "a module helper that uses cuda",
        """
        def make():
            return torch.ones(1, device="cuda")
        class TestX(TestCase):
            def test_a(self):
                make()
        """,
        ("CUDA", False),
        "CUDA (unsafe, every test hard-uses one device): never instantiated; every test uses cuda: "
        "`make()` (line 9)",
    ),
    (
        "only for a PrivateUse1 backend",
        """
        class TestX(TestCase):
            def test_a(self, device): ...
        instantiate_device_type_tests(TestX, globals(), only_for="privateuse1")
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, only_for names one device): instantiated by `instantiate_device_type_tests` "
        "(line 7) only for "
        '"privateuse1", whose runners run only ACCELERATOR',
    ),
    (
        "mixed: some tests use cuda",
        """
        class TestX(TestCase):
            def test_a(self):
                torch.cuda.synchronize()
            def test_b(self): ...
        """,
        ("CUDA", False),
        "CUDA (unsafe, half the tests hard-use one device, the others none): never instantiated; 1 of 2 "
        "tests use cuda (`test_a`)",
    ),
    (
        "mixed: some tests pinned",
        """
        class TestX(TestCase):
            @onlyCUDA
            def test_a(self, device): ...
            def test_b(self, device): ...
        instantiate_device_type_tests(TestX, globals())
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, instantiated, some tests pinned to one device: those move to a class of their "
        "own): instantiated by `instantiate_device_type_tests` (line 9) without `only_for`; `test_a` pinned "
        "by @onlyCUDA move to "
        "`TestXCudaOnly`, classified CUDA",
    ),
    (
        "mixed: a pinned test defined twice is not moved (only the last definition runs)",
        """
        class TestX(TestCase):
            @onlyCUDA
            def test_a(self, device): ...
            def test_a(self, device): ...
            def test_b(self, device): ...
        instantiate_device_type_tests(TestX, globals())
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, instantiated, tests not all alike): instantiated by "
        "`instantiate_device_type_tests` (line 10) without `only_for`; tests pinned by @onlyCUDA (`test_a`)",
    ),
    (
        "a name used as a device names its device, whatever its first word",
        """
        class TestX(TestCase):
            def test_a(self):
                torch.randn(3, device=GPU_TYPE)
            def test_b(self):
                torch.ones(1).to(GPU_TYPE)
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, uses an accelerator without naming one): it uses an accelerator without "
        "naming one (`GPU_TYPE` (line 7)) and is not instantiated: give its tests a `device` and "
        "instantiate it; ACCELERATOR runs it on every runner",
    ),
    (
        "a device parameter's default and a device parametrization name their device",
        """
        class TestX(TestCase):
            @parametrize("device", (GPU_TYPE, "cpu"))
            def test_a(self, device): ...
            def test_b(self, device=GPU_TYPE): ...
            @parametrize("device, dtype", [(DEVICE_CUDA, 1)])
            def test_c(self, device, dtype): ...
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, tests hard-use several devices): never instantiated; tests that hard-use "
        "several devices (accelerator, cuda) (`test_a`, `test_b`, `test_c`); ACCELERATOR runs it on every "
        "runner",
    ),
    (
        "a parametrization over a list the module grows with the devices present",
        """
        import itertools
        devices = ["cpu"]
        if torch.cuda.is_available():
            devices.append("cuda")
        class TestX(TestCase):
            @parametrize("device", devices)
            def test_a(self, device): ...
            @parametrize("op,device", itertools.product(["add"], devices))
            def test_b(self, op, device): ...
        """,
        ("CUDA", False),
        "CUDA (unsafe, every test hard-uses one device): never instantiated; every test uses cuda: "
        "`devices` (line 10)",
    ),
    (
        "a base the module rebinds to NoTest without one device",
        """
        from torch.testing._internal.common_utils import NoTest, TEST_CUDA
        if not TEST_CUDA:
            TestCase = NoTest
        class TestX(TestCase):
            def test_a(self): ...
        """,
        ("CUDA", True),
        "CUDA (safe, its base holds no tests without one device): never instantiated; without cuda its "
        "base `TestCase` is bound to a class with no tests (line 7), so its tests exist only with cuda",
    ),
    (
        "the else of an availability test, and an or",
        """
        from torch.testing._internal.common_utils import NoTest
        if torch.backends.mps.is_available():
            pass
        else:
            TestCase = object
        if not torch.xpu.is_available() or IS_WINDOWS:
            Other = NoTest
        class TestX(TestCase):
            def test_a(self): ...
        class TestY(Other):
            def test_a(self): ...
        """,
        ("MPS", True),
        "MPS (safe, its base holds no tests without one device): never instantiated; without mps its "
        "base `TestCase` is bound to a class with no tests (line 9), so its tests exist only with mps",
    ),
    (
        "a rebinding under a condition that names no device is no evidence",
        """
        from torch.testing._internal.common_utils import NoTest, IS_WINDOWS
        if not IS_WINDOWS and not TEST_CUDA:
            TestCase = NoTest
        class TestX(TestCase):
            def test_a(self): ...
        """,
        ("GENERIC", True),
        "GENERIC (safe, no device evidence): never instantiated; no test takes `device`; "
        "no device-specific code",
    ),
    (
        "a name that merely contains a device word is no use",
        """
        class TestX(TestCase):
            def test_a(self):
                check_code_for_cuda_kernel_launches(XpuInterface, gpu_trace)
        """,
        ("GENERIC", True),
        "GENERIC (safe, no device evidence): never instantiated; no test takes `device`; "
        "no device-specific code",
    ),
    (
        "a guard is not a hard use",
        """
        class TestX(TestCase):
            @unittest.skipIf(TEST_CUDA, "not with CUDA")
            def test_a(self):
                if TEST_CUDA:
                    torch.ones(1).cuda()
        """,
        ("GENERIC", False),
        "GENERIC (unsafe, guards only): never instantiated; it only asks for a device: `TEST_CUDA` (line 6)",
    ),
    (
        "a test skipped without a device runs only with it (issue 50: GENERIC skipped it everywhere)",
        """
        class TestX(TestCase):
            @unittest.skipIf(not TEST_CUDA, "needs CUDA")
            def test_a(self):
                if TEST_CUDA:
                    torch.ones(1).cuda()
        """,
        ("CUDA", False),
        "CUDA (unsafe, every test hard-uses one device): never instantiated; every test uses cuda: "
        "`TEST_CUDA` (line 6)",
    ),
    (
        "no evidence, but a base from another file that is not a TestCase may hold some",
        """
        from test_c10d_common import AbstractTimeoutTest
        class TestX(AbstractTimeoutTest, TestCase):
            def test_a(self): ...
        """,
        ("GENERIC", False),
        "GENERIC (unsafe, no device evidence): no device-specific code here, but its base "
        "`AbstractTimeoutTest` is code hwlint does not see",
    ),
    (
        "unresolvable only_for",
        """
        class TestX(TestCase):
            def test_a(self, device): ...
        instantiate_device_type_tests(TestX, globals(), only_for=devices())
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, only_for cannot be resolved): instantiated by `instantiate_device_type_tests` "
        "(line 7) with `only_for=devices()`, which cannot be resolved; ACCELERATOR runs each generated "
        "class on its device's runner; the device-neutral form is `except_for`",
    ),
    (
        "a device hypothesis draws is a parameter, not the fixture (test_workflow_ops.py)",
        """
        class TestX(TestCase):
            @given(device=st.sampled_from(["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]))
            def test_a(self, device):
                torch.ones(1, device=device)
            def test_b(self): ...
        """,
        ("GENERIC", False),
        'GENERIC (unsafe, guards only): never instantiated; it only asks for a device: `"cuda"` (line 6)',
    ),
    (
        "every test requires an accelerator no device names (inductor's WhileLoopTests)",
        """
        class TestX(TestCase):
            @requires_gpu
            def test_a(self):
                pass
            @requires_gpu
            def test_b(self):
                pass
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, uses an accelerator without naming one): it uses an accelerator without "
        "naming one (`requires_gpu` (line 6)) and is not instantiated: give its tests a `device` and "
        "instantiate it; ACCELERATOR runs it on every runner",
    ),
    (
        "a test that only requires a device counts for it, but no more than a hard use would",
        """
        class TestX(TestCase):
            @requires_cuda
            def test_a(self):
                pass
            def test_b(self):
                pass
        """,
        ("GENERIC", False),
        "GENERIC (unsafe, guards only): never instantiated; half its tests require cuda (`test_a`), the "
        "others use none",
    ),
    (
        "tests that hard-use several devices",
        """
        class TestX(TestCase):
            def test_a(self):
                torch.ones(1).cuda()
            def test_b(self):
                torch.ones(1).to("mps")
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, tests hard-use several devices): never instantiated; tests that hard-use "
        "several devices (cuda, mps) (`test_a`, `test_b`); ACCELERATOR runs it on every runner",
    ),
    (
        "half the tests use an unnamed accelerator, the others none",
        """
        class TestX(TestCase):
            def test_a(self):
                torch.ones(1).to(GPU_TYPE)
            def test_b(self): ...
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, uses an accelerator without naming one): never instantiated; tests that use "
        "accelerator (`test_a`, e.g. `GPU_TYPE` (line 7)) with tests that use no device (`test_b`): split "
        "it into a GENERIC class and a class for its accelerator tests; ACCELERATOR runs it on every runner",
    ),
    (
        "a few tests parametrized by an unnamed accelerator, the rest none",
        """
        class TestX(TestCase):
            @parametrize("device", (GPU_TYPE,))
            def test_a(self, device): ...
            def test_b(self): ...
            def test_c(self): ...
        """,
        ("ACCELERATOR", False),
        "ACCELERATOR (unsafe, uses an accelerator without naming one): never instantiated; tests that use "
        "accelerator (`test_a`, e.g. `GPU_TYPE` (line 6)) with tests that use no device (`test_b`, "
        "`test_c`): split it into a GENERIC class and a class for its accelerator tests; the variants of "
        "`test_a`, parametrized by it, exist only where it is; ACCELERATOR runs it on every runner",
    ),
    (
        "half the tests hard-use cuda, the others none",
        """
        class TestX(TestCase):
            def setUp(self):
                self.data = [1, 2]
            def test_plain(self): ...
            def test_also_plain(self): ...
            def test_pin(self):
                DataLoader(self.data, pin_memory_device="cuda")
            def test_stream(self):
                torch.cuda.current_stream()
        """,
        ("CUDA", False),
        "CUDA (unsafe, half the tests hard-use one device, the others none): never instantiated; 2 of 4 "
        "tests use cuda (`test_pin`, `test_stream`)",
    ),
    (
        "tests added by setattr in module code",
        """
        class TestX(TestCase):
            def _check(self, name): ...
        for name in ("a", "b"):
            setattr(TestX, f"test_{name}", lambda self, n=name: self._check(n))
        """,
        ("GENERIC", False),
        "GENERIC (unsafe, tests bound by assignment or setattr): its tests are added by `setattr` (line 8): "
        "their code is not read",
    ),
]


@pytest.mark.parametrize(("body", "answer", "described"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_inference(taxonomy, body, answer, described):
    found = _infer(taxonomy, body)
    assert (found.classification, found.safe) == answer
    assert found.describe() == described


def test_a_negated_availability_in_an_or_rebinds_without_that_device(taxonomy):
    body = next(c[1] for c in CASES if c[0] == "the else of an availability test, and an or")
    found = _infer(taxonomy, body, "TestY")
    assert (found.classification, found.safe, found.rule) == ("XPU", True, BASE_WITHOUT_DEVICE)


def test_vendor_classification_for_its_backend(vendor_taxonomy):
    body = """
    class TestX(TestCase):
        def test_a(self, device): ...
    instantiate_device_type_tests(TestX, globals(), only_for="npu")
    """
    found = _infer(vendor_taxonomy, body)
    assert (found.classification, found.safe) == ("NPU", True)


def test_measured_precision_matches_the_readme(taxonomy):
    found = rows(taxonomy)
    assert len(found) >= 40
    assert summarize(found) == {"safe": (34, 34), "unsafe": (41, 31), "none": (1, 0)}
    heldout = [r for r in found if r.path == HELDOUT]
    assert summarize(heldout) == {"safe": (7, 7), "unsafe": (5, 3), "none": (0, 0)}
    # the cases written from the inference rules: every safe answer right, every answer as written
    from_rules = [r for r in found if r.path == "rules.py"]
    assert all(r.correct for r in from_rules), [r.cls for r in from_rules if not r.correct]


def test_text_prefilter_never_hides_a_device_use(taxonomy, monkeypatch):
    # The builder walks a method only when its text names a device, a device word or a helper; that
    # shortcut must find exactly what a full walk finds.
    from pathlib import Path

    from hwlint.model import devices as model_module

    tests = Path(__file__).parent
    files = [*sorted((tests / "infer_cases").glob("*.py")), *sorted((tests / "fix_cases").glob("*.py"))]

    def uses() -> list:
        out = []
        for path in files:
            m = build_model(path.read_bytes(), str(path), taxonomy)
            out.append([(c.device_uses, [meth.device_uses for meth in c.methods]) for c in m.classes])
        return out

    fast = uses()
    assert sum(len(c[0]) for f in fast for c in f) > 50  # the cases are full of device uses

    def full_walk(self, *nodes):
        return tuple(model_module._DeviceUses(self, *nodes).found) if nodes else ()

    monkeypatch.setattr(model_module.DeviceScan, "device_uses", full_walk)
    assert uses() == fast


def test_assignment_targets_that_name_a_device_are_not_device_uses(taxonomy):
    # NNTestCase's flags (`_do_cuda_memory_leak_check = True`) and fields set on self name cuda but
    # use no device; a Load of TEST_CUDA does.
    from hwlint.context import Context
    from hwlint.model import build_model

    src = (
        "class TestFlags(NNTestCase):\n"
        "    _do_cuda_memory_leak_check = True\n"
        "    def setUp(self):\n"
        "        self.cuda_ready = False\n"
        "    def test_a(self):\n"
        "        pass\n"
        "class TestGuarded(NNTestCase):\n"
        "    def test_b(self):\n"
        "        if TEST_CUDA:\n"
        "            pass\n"
    )
    model = build_model(src, "test_flags.py", taxonomy)
    ctx = Context(model, taxonomy)
    flags, guarded = (inference(ctx, c) for c in model.classes)
    assert (flags.classification, flags.safe) == ("GENERIC", True)
    assert (guarded.classification, guarded.safe, guarded.rule) == ("GENERIC", False, "guards only")
