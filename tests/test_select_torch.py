"""hwselect against torch's real ``instantiate_device_type_tests`` (torch 2.13, CPU build).

torch 2.13 has no ``HardwareClassification``, so the test files fall back to a local enum with the
same member names; the runtime filter is the suite's conftest (getattr on each collected class).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.conftest import DEFAULT_TAXONOMY, run_tool
from tests.pytest_server import PytestServer, shared_server
from tests.select_suite import CONFTEST

# Importing torch's test helpers costs seconds: not at collection (every xdist worker would pay it),
# only in the process the tests fork their sessions from; the tests skip when that import fails.
if importlib.util.find_spec("torch") is None:
    pytest.skip("torch is not installed", allow_module_level=True)
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


class TestOpsCommaString(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_s(self, device):
        pass


# torch tests `device_type in only_for`: on a string, a substring test that keeps cpu here
instantiate_device_type_tests(TestOpsCommaString, globals(), only_for="cuda,cpu")


class TestOpsSpelledInADict(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_d(self, device):
        pass


# keywords spelled in a dict display are keywords: no TestOpsSpelledInADictCPU (issue 47, item 11)
instantiate_device_type_tests(TestOpsSpelledInADict, globals(), **{"only_for": "cuda"})

CHANGED = ["cuda"]


class TestOpsChangedConstant(TestCase):
    hw_classification = HardwareClassification.CPU

    def test_k(self, device):
        pass


CHANGED[0] = "cpu"  # the list only_for reads is changed in place: TestOpsChangedConstantCPU exists
instantiate_device_type_tests(TestOpsChangedConstant, globals(), only_for=CHANGED)
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


@pytest.fixture
def torch_pytest(request):
    """Pytest sessions forked from one process that imported *preload* (tests/pytest_server.py):
    torch's import is paid once per worker and preload, not once per collection."""
    try:
        return shared_server(request.param)
    except ImportError as e:
        pytest.skip(str(e))


# torch's test helpers read the PrivateUse1 backend when they are imported; the openreg suite's
# conftest registers it first, so its sessions share only the heavy part of torch's import.
FULL = ("torch.testing._internal.common_device_type",)
BEFORE_BACKEND = ("torch._inductor.utils", "hypothesis", "numpy", "expecttest")


def collect(server: PytestServer, root: Path, *args: str, env: dict[str, str] | None = None) -> set[str]:
    env = {"PYTORCH_TESTING_DEVICE_ONLY_FOR": "cpu", **(env or {})}
    proc = server.run(root, ["--collect-only", "-q", *args], env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {line for line in proc.stdout.splitlines() if "::" in line and not line.startswith("hwselect")}


@pytest.mark.slow
@pytest.mark.parametrize("torch_pytest", [FULL], indirect=True, ids=["preloaded"])
def test_cpu_runner_matches_torch_instantiation(torch_suite, torch_pytest):
    expected = collect(torch_pytest, torch_suite, "--truth-runs", "GENERIC,ACCELERATOR,CPU")
    assert {i.rsplit("::", 1)[0] for i in expected} == {
        "test_torch_misc.py::TestMiscCPU",  # the generated class (its test is test_generated_cpu)
        "test_torch_misc.py::TestMiscInherits",
        "test_torch_misc.py::TestMiscNestedCPU",
        "test_torch_ops.py::TestOpsCPU",
        "test_torch_ops.py::TestOpsConstantCPU",
        "test_torch_ops.py::TestOpsCommaStringCPU",
        "test_torch_ops.py::TestOpsChangedConstantCPU",
    }
    assert "test_torch_ops.py::TestOpsCPU::test_mul_cpu_float64" in expected

    ids = run_tool("hwselect", "cpu", "--format", "nodeids", cwd=torch_suite)
    assert ids.returncode == 0, ids.stderr
    (torch_suite / "ids.txt").write_text(ids.stdout)
    assert collect(torch_pytest, torch_suite, "@ids.txt") == expected

    k = run_tool("hwselect", "cpu", "--format", "k", cwd=torch_suite)
    assert k.returncode == 0 and len(k.stdout.splitlines()) == 1, k.stderr
    assert collect(torch_pytest, torch_suite, "-k", k.stdout.strip()) == expected

    assert collect(torch_pytest, torch_suite, "--hw-runner", "cpu") == expected


OPENREG = """\
import types

import torch

# A stand-in PrivateUse1 backend named "openreg", registered before any test module imports
# common_device_type, so torch's own PrivateUse1TestBase generates the classes.
torch.utils.rename_privateuse1_backend("openreg")
_mod = types.ModuleType("openreg")
_mod.is_available = lambda: True
_mod.current_device = lambda: 0
_mod.device_count = lambda: 1
torch._register_device_module("openreg", _mod)
"""

PU1_MODULE = """
class Test{a}(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


instantiate_device_type_tests(Test{a}, globals())


class Test{b}(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_b(self, device):
        pass


instantiate_device_type_tests(Test{b}, globals(), except_for="openreg")


class Test{c}(TestCase):
    hw_classification = HardwareClassification.CPU

    def test_c(self, device):
        pass


instantiate_device_type_tests(Test{c}, globals(), only_for=("cpu", "openreg"))


class Test{a}Generic(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_g(self):
        pass
"""


@pytest.mark.slow
@pytest.mark.parametrize("torch_pytest", [BEFORE_BACKEND], indirect=True, ids=["preloaded"])
def test_privateuse1_runner_matches_torch_naming(tmp_path, torch_pytest):
    """torch names the first PrivateUse1 class of the process ...PRIVATEUSE1, later ones ...OPENREG."""
    (tmp_path / "test_pu_a.py").write_text(PRELUDE + PU1_MODULE.format(a="Alpha", b="Beta", c="Gamma"))
    (tmp_path / "test_pu_b.py").write_text(PRELUDE + PU1_MODULE.format(a="Delta", b="Epsilon", c="Zeta"))
    (tmp_path / "conftest.py").write_text(OPENREG + CONFTEST)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    runner = "  openreg:\n    device: privateuse1\n    backend: openreg\n    runs: [ACCELERATOR]\n"
    (tmp_path / "taxonomy.yaml").write_text(DEFAULT_TAXONOMY.read_text() + runner)

    env = {"PYTORCH_TESTING_DEVICE_ONLY_FOR": "privateuse1"}
    expected = collect(torch_pytest, tmp_path, "--truth-runs", "ACCELERATOR", env=env)
    assert expected == {
        "test_pu_a.py::TestAlphaPRIVATEUSE1::test_a_openreg",
        "test_pu_b.py::TestDeltaOPENREG::test_a_openreg",
    }

    ids = run_tool("hwselect", "openreg", "--taxonomy", "taxonomy.yaml", cwd=tmp_path)
    assert ids.returncode == 0, ids.stderr
    (tmp_path / "ids.txt").write_text(ids.stdout)
    assert collect(torch_pytest, tmp_path, "@ids.txt", env=env) == expected

    k = run_tool("hwselect", "openreg", "--taxonomy", "taxonomy.yaml", "--format", "k", cwd=tmp_path)
    assert collect(torch_pytest, tmp_path, "-k", k.stdout.strip(), env=env) == expected

    plugin = ["--hw-runner", "openreg", "--hw-taxonomy", "taxonomy.yaml"]
    assert collect(torch_pytest, tmp_path, *plugin, env=env) == expected
    # the generic privateuse1 runner, told nothing about the backend
    assert collect(torch_pytest, tmp_path, "--hw-runner", "privateuse1", env=env) == expected


INHERIT = """
class TestAfterP(TestCase):
    hw_classification = HardwareClassification.CPU

    @dtypes(torch.float32, torch.float64)
    def test_p(self, device, dtype):
        pass


class TestAfterS(TestAfterP):
    def test_s(self, device):
        pass


instantiate_device_type_tests(TestAfterP, globals(), only_for="cpu")
instantiate_device_type_tests(TestAfterS, globals(), only_for="cpu")


class TestBeforeP(TestCase):
    hw_classification = HardwareClassification.CPU

    @dtypes(torch.float32, torch.float64)
    def test_p(self, device, dtype):
        pass


class TestBeforeS(TestBeforeP):
    def test_s(self, device):
        pass


# instantiated before its base, TestBeforeS still loses test_p: pytest looks it up on the
# generated class after the module ran, when instantiating TestBeforeP has deleted it
instantiate_device_type_tests(TestBeforeS, globals(), only_for="cpu")
instantiate_device_type_tests(TestBeforeP, globals(), only_for="cpu")


class TestNeverP(TestCase):
    hw_classification = HardwareClassification.CPU

    @dtypes(torch.float32, torch.float64)
    def test_p(self, device, dtype):
        pass


class TestNeverS(TestNeverP):
    def test_s(self, device):
        pass


# TestNeverP is never instantiated: TestNeverSCPU inherits its generic test_p, one item, unexpanded
instantiate_device_type_tests(TestNeverS, globals(), only_for="cpu")
"""

# Every test TestCondSCPU holds is defined under a condition (its base's test is gone): hwselect
# cannot name a node id for certain and lists the file whole.
INHERIT_CONDITIONAL = """
import sys


class TestCondP(TestCase):
    hw_classification = HardwareClassification.CPU

    def test_p(self, device):
        pass


class TestCondS(TestCondP):
    if sys.platform:

        def test_s(self, device):
            pass


instantiate_device_type_tests(TestCondP, globals(), only_for="cpu")
instantiate_device_type_tests(TestCondS, globals(), only_for="cpu")
"""


@pytest.mark.slow
@pytest.mark.parametrize("torch_pytest", [FULL], indirect=True, ids=["preloaded"])
def test_inherited_tests_of_an_instantiated_base_are_gone(tmp_path, torch_pytest):
    """A class deriving from an instantiated class, instantiated after or before it, holds only
    its own tests: hwselect's classes, tests and item counts are pytest's collection."""
    (tmp_path / "test_torch_inherit.py").write_text(PRELUDE + INHERIT)
    (tmp_path / "test_torch_inherit_cond.py").write_text(PRELUDE + INHERIT_CONDITIONAL)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    expected = collect(torch_pytest, tmp_path, "--truth-runs", "CPU")
    assert sorted(i.partition("::")[2] for i in expected) == [
        "TestAfterPCPU::test_p_cpu_float32",
        "TestAfterPCPU::test_p_cpu_float64",
        "TestAfterSCPU::test_s_cpu",
        "TestBeforePCPU::test_p_cpu_float32",
        "TestBeforePCPU::test_p_cpu_float64",
        "TestBeforeSCPU::test_s_cpu",
        "TestCondPCPU::test_p_cpu",
        "TestCondSCPU::test_s_cpu",
        "TestNeverP::test_p",
        "TestNeverSCPU::test_p",
        "TestNeverSCPU::test_s_cpu",
    ]
    per_class: dict[str, int] = {}
    for item in expected:
        cls = item.split("::")[1]
        per_class[cls] = per_class.get(cls, 0) + 1

    out = run_tool("hwselect", "cpu", "--format", "json", "--no-cache", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    classes = [c for f in json.loads(out.stdout)["files"] for c in f["classes"]]
    assert {c["name"]: c["items"] for c in classes} == per_class

    ids = run_tool("hwselect", "cpu", "-v", "--format", "nodeids", cwd=tmp_path)
    assert ids.returncode == 0, ids.stderr
    assert "test_torch_inherit_cond.py::TestCondSCPU: no certain node id" in ids.stderr
    assert "test_torch_inherit_cond.py" in ids.stdout.split()
    (tmp_path / "ids.txt").write_text(ids.stdout)
    assert collect(torch_pytest, tmp_path, "@ids.txt") == expected
