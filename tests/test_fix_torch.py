"""``hwlint check --fix --unsafe-fixes`` keeps the suite, judged by torch itself (issue 25).

Each case file below is shaped like a file of PyTorch 2.6.0's tree where the migration broke
something (docs/fixes.md, "Does the migration keep the suite?", names the real files), plus two
controls. tests/torch_migration.py fixes a copy, collects AND runs both versions on the six runners
(devices faked; the tests touch no device) with torch 2.14.1's filter on the fixed side, and
asserts the property exactly, per file:

* every file that collected before still collects (on each runner);
* every test collected before runs on some runner after (by device-neutral key);
* every test of a generated device class (``TestFooCUDA``) still runs on that device's runner;
* a test that passed before on some runner passes on every runner that runs it after: the run-time
  half, which is how a rewrite that only fails when the test runs (a nested module's
  ``self.device_type``, a class naming itself in ``setUpClass``) or a class-level
  ``skipIf(not torch.cuda.is_available())`` left on a converted class (selected on mps/xpu, then
  skipped: coverage that only looks present) is caught.

A case the current code breaks is ``xfail(strict=True)`` with its mechanism: fixing one turns it
into an XPASS, which fails the run until the marker is removed.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

if importlib.util.find_spec("torch") is None:
    pytest.skip("torch is not installed", allow_module_level=True)
pytestmark = [pytest.mark.torch, pytest.mark.slow]

from tests import torch_migration  # noqa: E402

from .conftest import DEFAULT_TAXONOMY  # noqa: E402

RUNNERS = ["cpu", "privateuse1", "cuda", "rocm", "mps", "xpu"]

HEAD = """\
import sys
import unittest

import torch
from torch.testing._internal.common_utils import (
    NoTest,
    TEST_CUDA,
    TestCase,
    instantiate_parametrized_tests,
    parametrize,
    run_tests,
)
"""
TAIL = """

if __name__ == "__main__":
    run_tests()
"""
CUDA = 'self.assertEqual(torch.device("cuda").type, "cuda")'

# name -> (module body after HEAD, xfail reason or None)
CASES: dict[str, tuple[str, str | None]] = {
    # controls: a class without device evidence (GENERIC) and a CUDA class HWC302 converts cleanly
    "test_ok_generic.py": (
        """
class TestPlain(TestCase):
    def test_a(self):
        self.assertEqual(torch.ones(1).sum().item(), 1)
""",
        None,
    ),
    "test_ok_converted.py": (
        f"""
class TestConvertible(TestCase):
    def test_a(self):
        {CUDA}

    def test_b(self):
        x = "cuda"
        self.assertEqual(torch.device(x).type, "cuda")
""",
        None,
    ),
    # the 793 HWC203 of the first migration: an instantiated class with tests pinned by @onlyCUDA;
    # the fix declares it ACCELERATOR and moves those tests to a CUDA class of their own
    "test_split_pinned.py": (
        """
from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA


class TestPinnedSome(TestCase):
    def _kind(self, device):
        return torch.device(device).type

    def test_sum(self, device):
        self.assertEqual(self._kind(device), self.device_type)

    @onlyCUDA
    def test_cuda_only(self, device):
        self.assertEqual(torch.device(device).type, "cuda")

    def test_mul(self, device):
        self.assertIsInstance(self._kind(device), str)


instantiate_device_type_tests(TestPinnedSome, globals())
""",
        None,
    ),
    # issue 50, test_out_dtype_op.py / nn/test_pooling.py: a test a device guard skips without CUDA,
    # in a class whose other tests need no device (GENERIC: it was skipped on the only runner)
    "test_split_guarded.py": (
        """
class TestGuarded(TestCase):
    _do_cuda_memory_leak_check = True

    def setUp(self):
        super().setUp()
        self.x = torch.ones(2)

    def _total(self):
        return self.x.sum().item()

    def test_plain(self):
        self.assertEqual(self._total(), 2)

    @unittest.skipIf(not TEST_CUDA, "CUDA unavailable")
    def test_needs_cuda(self):
        self.assertEqual(self._total(), 2)
        self.assertEqual(torch.device("cuda").type, "cuda")

    def test_other(self):
        self.assertEqual(self.x.numel(), 2)
""",
        None,
    ),
    # issue 50, nn/test_pooling.py's TestPoolingNNDeviceType: tests pinned to the CPU and to CUDA,
    # a device-neutral @onlyCUDA test and @onlyNativeDeviceTypes in a class for every device
    "test_split_pins.py": (
        """
from torch.testing._internal.common_device_type import (
    instantiate_device_type_tests,
    onlyCPU,
    onlyCUDA,
    onlyNativeDeviceTypes,
)


class TestPins(TestCase):
    def _kind(self, device):
        return torch.device(device).type

    def test_any(self, device):
        self.assertEqual(self._kind(device), self.device_type)

    @onlyNativeDeviceTypes
    def test_native(self, device):
        self.assertEqual(self._kind(device), self.device_type)

    @onlyCPU
    def test_cpu_only(self, device):
        self.assertEqual(self._kind(device), "cpu")

    @onlyCUDA
    def test_cuda_kernel(self, device):
        self.assertEqual(torch.device("cuda").type, self._kind(device))

    @onlyCUDA
    def test_neutral(self, device):
        self.assertEqual(self._kind(device), self.device_type)


instantiate_device_type_tests(TestPins, globals())
""",
        None,
    ),
    # test_prims.py (TestPrims): two pinned tests in a row, the first right below the header; their
    # deletions shared the blank line between them ("overlapping edits", the file left unfixed)
    "test_split_adjacent.py": (
        """
from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA


class TestPinnedTwo(TestCase):
    @onlyCUDA
    def test_first(self, device):
        self.assertEqual(torch.device(device).type, "cuda")

    @onlyCUDA
    def test_second(self, device):
        self.assertEqual(torch.device(device).type, "cuda")

    def test_any(self, device):
        self.assertEqual(torch.device(device).type, self.device_type)


instantiate_device_type_tests(TestPinnedTwo, globals())
""",
        None,
    ),
    # test_prims.py (TestRefs): a pinned test beside one that takes no `device`; the pinned one moves
    # to a class of its own, the other stays (HWC202 says it ignores its device)
    "test_split_with_plain.py": (
        """
from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA


class TestPinnedPlain(TestCase):
    def test_any(self, device):
        self.assertEqual(torch.device(device).type, self.device_type)

    @onlyCUDA
    def test_cuda_only(self, device):
        self.assertEqual(torch.device(device).type, "cuda")

    def test_no_device(self):
        self.assertEqual(torch.ones(1).sum().item(), 1)


instantiate_device_type_tests(TestPinnedPlain, globals())
""",
        None,
    ),
    # test_serialization.py (TestSerialization, 81 tests): a few tests for cuda, a few for xpu, the
    # rest device-independent; no classification was offered, so no runner ran any of them
    "test_minority_devices.py": (
        f"""
class TestMostlyPlain(TestCase):
    def test_a(self):
        self.assertEqual(torch.ones(1).sum().item(), 1)

    def test_b(self):
        self.assertEqual(torch.zeros(1).sum().item(), 0)

    def test_c(self):
        self.assertEqual(torch.ones(2).sum().item(), 2)

    def test_on_cuda(self):
        {CUDA}

    def test_on_xpu(self):
        self.assertEqual(torch.device("xpu").type, "xpu")
""",
        None,
    ),
    # distributed/fsdp (TestFSDPMixedPrecision...): most tests use cuda, one uses no device; no
    # classification was offered, so no runner ran any of them (CUDA now; HWC302 converts this one)
    "test_majority_device.py": (
        f"""
class TestMostlyCuda(TestCase):
    def test_a(self):
        {CUDA}

    def test_b(self):
        {CUDA}

    def test_plain(self):
        self.assertEqual(torch.ones(1).sum().item(), 1)
""",
        None,
    ),
    # dynamo/test_aot_autograd_cache.py (AOTAutogradCachePicklerTests): a property no test reaches
    # calls torch.cuda.is_available(); the safe GENERIC the fixer then refused left it undeclared
    "test_unreached_guard.py": (
        """
class TestPickler(TestCase):
    @property
    def device_type(self):
        return "cuda" if torch.cuda.is_available() else "cpu"

    def test_dump(self):
        self.assertEqual(torch.ones(1).sum().item(), 1)
""",
        None,
    ),
    # inductor/test_flex_attention.py (TestLearnableBiases), distributed/fsdp/test_wrap.py, ...
    "test_param_after.py": (
        f"""
class TestParamCuda(TestCase):
    @parametrize("n", [1, 2])
    def test_ones(self, n):
        {CUDA}

    def test_twos(self):
        {CUDA}


instantiate_parametrized_tests(TestParamCuda)
""",
        None,  # held since issue 25 was fixed
    ),
    # test_cpp_extensions_stream_and_event.py-like: CppThreadTestCUDA.EventHandler in setUpClass
    "test_self_name.py": (
        f"""
class TestThreadCUDA(TestCase):
    class EventHandler:
        pass

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.handler = TestThreadCUDA.EventHandler()

    def test_events(self):
        {CUDA}

    def test_more(self):
        {CUDA}
""",
        None,  # held since issue 25 was fixed
    ),
    # test_jiterator.py, test_cuda_sanitizer.py
    "test_notest.py": (
        f"""
if not TEST_CUDA:
    print("CUDA not available, skipping tests", file=sys.stderr)
    TestCase = NoTest  # noqa: F811


class TestNoTestCuda(TestCase):
    def test_a(self):
        {CUDA}

    def test_b(self):
        {CUDA}
""",
        None,  # held since issue 25 was fixed
    ),
    # test_matmul_cuda.py: def _test_tautological_mm(self, device: str = "cuda", ...)
    "test_default_arg.py": (
        f"""
class TestDefaultArg(TestCase):
    def _helper(self, device: str = "cuda"):
        return torch.device(device).type

    def test_a(self):
        self.assertEqual(self._helper(), "cuda")

    def test_b(self):
        {CUDA}
""",
        None,  # held since issue 25 was fixed
    ),
    # test_jit_autocast.py: torch.autocast(device_type="cuda") in a nested nn.Module's forward
    "test_nested_helper.py": (
        f"""
class TestNestedModule(TestCase):
    def test_forward(self):
        class Block(torch.nn.Module):
            def forward(self, x):
                with torch.autocast(device_type="cuda", enabled=False):
                    return x + 1

        self.assertEqual(Block()(torch.zeros(1)).item(), 1)
        {CUDA}

    def test_plain(self):
        {CUDA}
""",
        None,  # held since issue 25 was fixed
    ),
    # a class-level guard kept on a converted class
    "test_skip_guard.py": (
        f"""
@unittest.skipIf(not torch.cuda.is_available(), "CUDA not available")
class TestGuarded(TestCase):
    def test_a(self):
        {CUDA}

    def test_b(self):
        {CUDA}
""",
        None,  # held since issue 25 was fixed
    ),
    # test_mps.py: class TestMPS ... def test_exp(self, device="mps")
    "test_mps_default.py": (
        """
class TestMPS(TestCase):
    def test_exp(self, device="mps"):
        self.assertEqual(torch.device(device).type, "mps")

    def test_log(self, device="mps"):
        self.assertEqual(torch.device(device).type, "mps")
""",
        None,  # held since issue 25 was fixed
    ),
    # inductor's GPU_TYPE classes (test_smoke.py's SmokeTest): an accelerator no device names, no
    # instantiation: ACCELERATOR, which every runner runs
    "test_gpu_type.py": (
        """
GPU_TYPE = torch._C._get_accelerator().type if torch.accelerator.is_available() else None


class TestGpuType(TestCase):
    def test_a(self):
        self.assertEqual(torch.empty(0, device=GPU_TYPE).numel(), 0)

    def test_b(self):
        self.assertEqual(torch.ones(1, device=GPU_TYPE).sum().item(), 1)
""",
        None,
    ),
    # test_execution_trace.py: only_for=devices, devices appended to under an `if`
    "test_unresolved_only_for.py": (
        """
from torch.testing._internal.common_device_type import instantiate_device_type_tests


class TestUnresolved(TestCase):
    def test_a(self, device):
        self.assertTrue(device)


devices = ["cpu", "cuda"]
if TEST_CUDA:
    devices.append("hpu")
instantiate_device_type_tests(TestUnresolved, globals(), only_for=devices)
""",
        None,
    ),
    # a class whose tests hard-use two devices: ACCELERATOR, each test where its device exists
    "test_several_devices.py": (
        f"""
class TestTwoDevices(TestCase):
    def test_on_cuda(self):
        {CUDA}

    def test_on_mps(self):
        self.assertEqual(torch.device("mps").type, "mps")
""",
        None,
    ),
    # test_nn.py: TestNN's @parametrize_test("device", ...)
    "test_parametrize_device.py": (
        """
class TestNN(TestCase):
    @parametrize("device", ["cpu", "meta"])
    def test_to(self, device):
        self.assertEqual(torch.empty(1, device=device).device.type, device)

    def test_plain(self):
        self.assertEqual(torch.ones(1).sum().item(), 1)


instantiate_parametrized_tests(TestNN)
""",
        None,  # held since issue 25 was fixed
    ),
}
# a class above the file's only common_utils import (late): the enum is imported on that line
LATE = (
    """\
import torch
from torch.testing._internal.jit_utils import JitTestCase


class TestEarly(JitTestCase):
    def test_a(self):
        self.assertEqual(torch.ones(1).sum().item(), 1)


from torch.testing._internal.common_utils import run_tests  # noqa: E402
"""
    + TAIL,
    None,  # the import goes above the class that uses it
)


def sources() -> dict[str, str]:
    files = {name: HEAD + body + TAIL for name, (body, _) in CASES.items()}
    files["test_late_import.py"] = LATE[0]
    return files


def reasons() -> dict[str, str | None]:
    return {**{name: why for name, (_, why) in CASES.items()}, "test_late_import.py": LATE[1]}


@pytest.fixture(scope="session")
def migrated(tmp_path_factory, taxonomy) -> dict:
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by the workers: one computes, the others read
    runs = {r: taxonomy.runners[r].runs for r in RUNNERS}
    return torch_migration.shared_migration(base, sources(), RUNNERS, runs)


def _case(name: str):
    why = reasons()[name]
    marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
    return pytest.param(name, marks=marks, id=name.removesuffix(".py"))


@pytest.mark.parametrize("name", [_case(n) for n in sorted(reasons())])
def test_fix_keeps_the_suite(migrated, name):
    verdict = torch_migration.Verdict(**migrated["verdicts"][name])
    assert verdict.holds(), f"{name}:\n{migrated['fixed'][name]}\n{verdict}"


def test_pinned_tests_move_to_a_class_of_their_own(migrated):
    """The split is what torch runs: the pinned test on the cuda runner only, in the new class."""
    fixed = migrated["fixed"]["test_split_pinned.py"]
    assert "class TestPinnedSomeCudaOnly(TestPinnedSome):" in fixed
    call = 'instantiate_device_type_tests(\n    TestPinnedSomeCudaOnly, globals(), only_for="cuda"\n)'
    assert call in fixed  # wrapped at 79 characters, as the formatters wrap it
    ran = {
        runner: sorted("::".join(o[0].split("::")[-2:]) for o in after["test_split_pinned.py"]["outcomes"])
        for runner, after in migrated["after"].items()
    }
    assert ran["cuda"] == [
        "TestPinnedSomeCUDA::test_mul_cuda",
        "TestPinnedSomeCUDA::test_sum_cuda",
        "TestPinnedSomeCudaOnlyCUDA::test_cuda_only_cuda",
    ]
    assert ran["privateuse1"] == [
        "TestPinnedSomeOPENREG::test_mul_openreg",
        "TestPinnedSomeOPENREG::test_sum_openreg",
    ]


def _ran(migrated: dict, name: str) -> dict[str, list[str]]:
    return {
        runner: sorted("::".join(o[0].split("::")[-2:]) for o in after[name]["outcomes"])
        for runner, after in migrated["after"].items()
    }


def test_guarded_tests_move_to_a_class_for_their_device(migrated):
    """Issue 50: the test a guard skips without CUDA runs on the cuda runners, in a copy of its class
    on the same bases (setUp, helpers and class attributes kept); the others stay GENERIC."""
    fixed = migrated["fixed"]["test_split_guarded.py"]
    assert (
        "class TestGuardedCudaOnly(TestCase):\n    hw_classification = HardwareClassification.CUDA" in fixed
    )
    ran = _ran(migrated, "test_split_guarded.py")
    assert ran["cpu"] == ["TestGuarded::test_other", "TestGuarded::test_plain"]
    assert ran["cuda"] == ran["rocm"] == ["TestGuardedCudaOnly::test_needs_cuda"]
    assert ran["mps"] == ran["xpu"] == ran["privateuse1"] == []


def test_pinned_tests_split_per_device_and_neutral_pins_go(migrated):
    """Issue 50 (HWC203): @onlyCPU and @onlyCUDA tests move to a class for each device, a
    device-neutral @onlyCUDA test becomes @onlyAccelerator (every accelerator runs it), and
    @onlyNativeDeviceTypes, which skips none of the generated devices, goes."""
    fixed = migrated["fixed"]["test_split_pins.py"]
    assert "@onlyNativeDeviceTypes\n    def test_native" not in fixed
    assert "@onlyAccelerator\n    def test_neutral" in fixed
    assert 'instantiate_device_type_tests(TestPinsCpuOnly, globals(), only_for="cpu")' in fixed
    assert 'instantiate_device_type_tests(TestPinsCudaOnly, globals(), only_for="cuda")' in fixed
    ran = _ran(migrated, "test_split_pins.py")
    assert ran["cpu"] == [
        "TestPinsCPU::test_any_cpu",
        "TestPinsCPU::test_native_cpu",
        "TestPinsCPU::test_neutral_cpu",
        "TestPinsCpuOnlyCPU::test_cpu_only_cpu",
    ]
    assert ran["cuda"] == [
        "TestPinsCUDA::test_any_cuda",
        "TestPinsCUDA::test_native_cuda",
        "TestPinsCUDA::test_neutral_cuda",
        "TestPinsCudaOnlyCUDA::test_cuda_kernel_cuda",
    ]


def test_a_pinned_test_moves_out_beside_a_test_without_device(migrated):
    fixed = migrated["fixed"]["test_split_with_plain.py"]
    assert "class TestPinnedPlainCudaOnly(TestPinnedPlain):" in fixed
    ran = sorted(
        "::".join(o[0].split("::")[-2:])
        for o in migrated["after"]["cuda"]["test_split_with_plain.py"]["outcomes"]
    )
    assert ran == [
        "TestPinnedPlainCUDA::test_any_cuda",
        "TestPinnedPlainCUDA::test_no_device_cuda",
        "TestPinnedPlainCudaOnlyCUDA::test_cuda_only_cuda",
    ]


def test_adjacent_pinned_tests_move_together(migrated):
    """Both pinned tests leave the class in one deletion; the declaration keeps one blank line."""
    fixed = migrated["fixed"]["test_split_adjacent.py"]
    assert (
        "class TestPinnedTwo(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_any(self, device):\n"
    ) in fixed
    assert "class TestPinnedTwoCudaOnly(TestPinnedTwo):" in fixed
    ran = sorted(
        "::".join(o[0].split("::")[-2:])
        for o in migrated["after"]["cuda"]["test_split_adjacent.py"]["outcomes"]
    )
    assert ran == [
        "TestPinnedTwoCUDA::test_any_cuda",
        "TestPinnedTwoCudaOnlyCUDA::test_first_cuda",
        "TestPinnedTwoCudaOnlyCUDA::test_second_cuda",
    ]


@pytest.mark.parametrize("name", ["test_minority_devices.py", "test_unreached_guard.py"])
def test_an_unsafe_generic_answer_keeps_the_class_on_the_cpu_runner(migrated, name):
    """GENERIC, although the next check reports HWC204 for a person to split: undeclared, a
    classification-filtered run would drop every test of the class."""
    assert "hw_classification = HardwareClassification.GENERIC" in migrated["fixed"][name]
    assert {o[1] for o in migrated["after"]["cpu"][name]["outcomes"]} == {"passed"}


@pytest.mark.parametrize(
    "name", ["test_gpu_type.py", "test_unresolved_only_for.py", "test_several_devices.py"]
)
def test_an_unsafe_accelerator_answer_runs_where_the_devices_are(migrated, name):
    """ACCELERATOR for a class no single device names (GPU_TYPE, an only_for no one can compute,
    several devices): declared, and run by the cpu runner as well as the accelerator ones."""
    assert "hw_classification = HardwareClassification.ACCELERATOR" in migrated["fixed"][name]
    assert {o[1] for o in migrated["after"]["cpu"][name]["outcomes"]} == {"passed"}


def test_controls_are_really_fixed(migrated):
    """The controls exercise the fix: one declared GENERIC, one converted for every accelerator."""
    assert "hw_classification = HardwareClassification.GENERIC" in migrated["fixed"]["test_ok_generic.py"]
    converted = migrated["fixed"]["test_ok_converted.py"]
    assert "instantiate_device_type_tests(\n    TestConvertible" in converted
    # and torch generated it on every accelerator runner, run there, not on cpu
    for runner in ("cuda", "mps", "xpu", "privateuse1"):
        outcomes = migrated["after"][runner]["test_ok_converted.py"]["outcomes"]
        assert len(outcomes) == 2 and {o[1] for o in outcomes} == {"passed"}, (runner, outcomes)
    assert migrated["after"]["cpu"]["test_ok_converted.py"]["items"] == []


def test_a_fallback_taxonomy_writes_an_import_torch_without_the_enum_survives(tmp_path):
    """With ``enum.fallback: true`` the import a fix writes defines the enum where the import fails:
    the fixed file imports on the installed torch whether or not it has HardwareClassification."""
    import subprocess
    import sys

    from hwlint.cli.check import main

    text = DEFAULT_TAXONOMY.read_text()
    assert "  module: torch.testing._internal.common_utils\n" in text
    taxonomy = tmp_path / "taxonomy.yaml"
    taxonomy.write_text(
        text.replace(
            "  module: torch.testing._internal.common_utils\n",
            "  module: torch.testing._internal.common_utils\n  fallback: true\n",
            1,
        )
    )
    target = tmp_path / "test_generic.py"
    target.write_text(
        "import unittest\n\nfrom torch.testing._internal.common_utils import TestCase\n\n\n"
        "class TestPlain(TestCase):\n    def test_a(self):\n        self.assertEqual(1, 1)\n"
    )
    assert main(["check", "--isolated", "--no-cache", "--taxonomy", str(taxonomy), "--fix", str(target)]) == 0
    fixed = target.read_text()
    assert "except ImportError:  # a torch without HardwareClassification\n" in fixed
    assert "import enum\n" in fixed and "hw_classification = HardwareClassification.GENERIC" in fixed
    # without the overlay: torch 2.13's own testing modules, which lack the enum
    code = (
        f"import runpy; ns = runpy.run_path({str(target)!r}); print(ns['TestPlain'].hw_classification.name)"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "GENERIC"
