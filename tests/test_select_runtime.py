"""hwselect and the runtime's control flow, against torch's real collection (issue 15, items 2-4).

The property: every ``path::Class`` hwselect prints is a class pytest collects, whatever the run-time
facts hwlint cannot see (a condition, a filter it cannot resolve, a rebound base or decorator, dynamic
code); such classes are addressed through their file instead. And every class pytest collects is
either selected or named in a warning. Classification filter off (``--include-unclassified``), so
the generation logic itself is compared.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.conftest import run_tool
from tests.pytest_server import PytestServer, shared_server
from tests.test_select_torch import FULL, PRELUDE, collect

# torch is imported by the processes the tests start, never at collection: every xdist worker
# would pay seconds for it
if importlib.util.find_spec("torch") is None:
    pytest.skip("torch is not installed", allow_module_level=True)
pytestmark = pytest.mark.torch

# Conditions false (or true) when the module runs, but not statically known.
MODULES = {
    "test_rt_try.py": """
try:
    class TestTry(TestCase):  # exists: nothing raises, so the try body's class is bound
        hw_classification = HardwareClassification.GENERIC

        def test_body(self):
            pass
except ImportError:
    class TestTry(TestCase):
        hw_classification = HardwareClassification.CUDA

        def test_handler(self):
            pass

devices = ["cuda"]
devices.append("cpu")


class TestListMut(TestCase):
    def test_lm(self, device):
        pass


instantiate_device_type_tests(TestListMut, globals(), only_for=devices)

later = ["cpu"]


class TestListLater(TestCase):
    def test_ll(self, device):
        pass


instantiate_device_type_tests(TestListLater, globals(), only_for=later)
later.remove("cpu")  # after the call: the call saw ["cpu"]


def _helper(self):
    pass


class TestAssigned(TestCase):
    test_assigned = _helper


class TestGen(TestCase):
    def test_g(self, device):
        pass


class TestGenSub(TestGen):  # the instantiation deletes test_g from TestGen: nothing left to collect
    pass


class TestGenSubOwn(TestGen):
    def test_own(self):
        pass


instantiate_device_type_tests(TestGen, globals())


class KeptTests(TestCase):  # not Test*, but a TestCase: collected
    def test_k(self):
        pass
""",
    "test_rt_flow.py": """
NEVER = torch.__version__ == "0"

if NEVER:
    class TestIf(TestCase):
        def test_then(self):
            pass
else:
    class TestIf(TestCase):
        def test_else(self):
            pass

if NEVER:
    class TestOnlyIf(TestCase):  # never exists: its node id must not be printed
        def test_x(self):
            pass


class TestCondInst(TestCase):  # stays collected as is: the instantiation does not run
    def test_ci(self, device="cpu"):
        pass


if NEVER:
    instantiate_device_type_tests(TestCondInst, globals())

cond = ["cuda"]
if not NEVER:
    cond += ["cpu"]


class TestListCond(TestCase):  # resolvable only at run time: generated here, addressed via the file
    def test_lc(self, device):
        pass


instantiate_device_type_tests(TestListCond, globals(), only_for=cond)


class TestNestedTests(TestCase):
    if not NEVER:
        def test_nested(self):
            pass


class TestClassifiedUnderIf(TestCase):
    if NEVER:
        hw_classification = HardwareClassification.CUDA

    def test_c(self):
        pass
""",
    "test_rt_rebound.py": """
import collections
import functools
import unittest

from torch.testing._internal.common_utils import NoTest

skip = functools.partial(unittest.skipIf, True)


@skip  # skipIf(True, TestSkipped) returns a decorator: the name is bound to a function
class TestSkipped(TestCase):
    def test_s(self):
        pass


class OrderedTests(collections.OrderedDict):  # not Test*, not a TestCase: never collected
    def test_o(self):
        pass


if torch.__version__:  # a dependency is missing at run time
    TestCase = NoTest  # noqa: F811


class TestRebound(TestCase):
    def test_r(self):
        pass


class TestReboundGen(TestCase):
    def test_rg(self, device):
        pass


instantiate_device_type_tests(TestReboundGen, globals())  # NoTest's __test__ = False is inherited
""",
    "test_rt_dynamic.py": """
class TestStatic(TestCase):
    def test_static(self):
        pass


class TestSetattr(TestCase):
    pass


setattr(TestSetattr, "test_added", lambda self: None)
globals()["TestDyn"] = type("TestDyn", (TestCase,), {"test_d": lambda self: None})

""",
}


@pytest.fixture(scope="module")
def server() -> PytestServer:
    """Collections forked from one process that imported torch's testing modules once."""
    return shared_server(FULL)


@pytest.fixture(scope="module")
def rt_suite(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rt_suite")
    for name, body in MODULES.items():
        (root / name).write_text(PRELUDE + body)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return root


def classes(items: set[str]) -> set[str]:
    return {i.rsplit("::", 1)[0] for i in items if i.count("::") == 2}


@pytest.mark.slow  # pytest collects the suite on every runner
def test_printed_nodeids_exist_and_every_collected_class_is_selected_or_warned(server, rt_suite):
    full = collect(server, rt_suite)
    certain = {
        "test_rt_try.py::TestTry",
        "test_rt_try.py::TestListMutCPU",
        "test_rt_try.py::TestListLaterCPU",
        "test_rt_try.py::TestAssigned",
        "test_rt_try.py::TestGenCPU",
        "test_rt_try.py::TestGenSubOwn",
        "test_rt_try.py::KeptTests",
    }
    assert classes(full) == {
        *certain,
        "test_rt_flow.py::TestIf",
        "test_rt_flow.py::TestCondInst",
        "test_rt_flow.py::TestListCondCPU",
        "test_rt_flow.py::TestNestedTests",
        "test_rt_flow.py::TestClassifiedUnderIf",
        "test_rt_dynamic.py::TestStatic",
        "test_rt_dynamic.py::TestSetattr",
        "test_rt_dynamic.py::TestDyn",
    }
    assert "test_rt_try.py::TestTry::test_body" in full
    assert {i for i in full if i.startswith("test_rt_try.py::TestGenSubOwn")} == {
        "test_rt_try.py::TestGenSubOwn::test_own"
    }

    proc = run_tool("hwselect", "cpu", "--include-unclassified", cwd=rt_suite)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    printed = {line for line in lines if "::" in line}
    # a printed node id is a class pytest collects (pytest exits 4 on one it cannot find), and the
    # classes whose existence depends on a run-time fact are addressed through their file
    assert printed == certain
    assert [line for line in lines if "::" not in line][:3] == [
        "test_rt_dynamic.py",
        "test_rt_flow.py",
        "test_rt_rebound.py",
    ]
    (rt_suite / "ids.txt").write_text(proc.stdout)
    got = collect(server, rt_suite, "@ids.txt")
    assert got <= full
    # left out: the class whose classification depends on a condition (named in a warning), and
    # perhaps the classes created at run time (named in warnings too)
    missing = classes(full) - classes(got)
    assert "test_rt_flow.py::TestClassifiedUnderIf" in missing
    assert missing <= {
        "test_rt_flow.py::TestClassifiedUnderIf",
        "test_rt_dynamic.py::TestSetattr",
        "test_rt_dynamic.py::TestDyn",
    }
    assert "TestClassifiedUnderIf: hw_classification depends on a run-time condition" in proc.stderr


def test_warnings_name_what_cannot_be_placed(rt_suite):
    proc = run_tool("hwselect", "cpu", "--include-unclassified", "--format", "json", cwd=rt_suite)
    assert proc.returncode == 0, proc.stderr
    warnings = json.loads(proc.stdout)["warnings"]
    text = "\n".join(warnings)
    assert "test_rt_dynamic.py: line " in text and "setattr" in text
    assert "writes module globals at run time" in text
    assert "creates a class with type()" in text
    assert "only_for=cond" in text and "cannot be resolved statically" in text


def test_explain_says_why_a_class_is_addressed_through_its_file(rt_suite):
    proc = run_tool("hwselect", "explain", "cpu", "test_rt_rebound.py::TestRebound", cwd=rt_suite)
    assert "base TestCase of TestRebound is bound at run time (line" in proc.stdout, proc.stdout
    proc = run_tool("hwselect", "explain", "cpu", "test_rt_rebound.py::TestSkipped", cwd=rt_suite)
    assert "decorator @skip is bound at run time" in proc.stdout, proc.stdout
    proc = run_tool("hwselect", "explain", "cpu", "test_rt_try.py::TestTry", cwd=rt_suite)
    assert "classification GENERIC" in proc.stdout, proc.stdout
    proc = run_tool("hwselect", "explain", "cpu", "test_rt_flow.py::TestCondInst", cwd=rt_suite)
    assert "instantiated under a condition" in proc.stdout, proc.stdout


PROJECT = {
    "sub/test_defs.py": """
class TestDefined(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_d(self):
        pass


class OpsMixin:  # not collected on its own: not Test*, not a TestCase
    hw_classification = HardwareClassification.GENERIC

    def test_from_mixin(self):
        pass


class TestGenericElsewhere(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_ge(self, device="cpu"):
        pass
""",
    "test_imports.py": """
from sub.test_defs import TestDefined  # noqa: F401  (pytest collects it here too)
from sub.test_defs import OpsMixin, TestGenericElsewhere


class TestUsesMixin(OpsMixin, TestCase):  # tests and classification come from the other module
    pass


instantiate_device_type_tests(TestGenericElsewhere, globals())
""",
}


@pytest.mark.slow  # pytest collects a project on every runner
def test_project_imports_mixins_and_imported_generic_classes(server, tmp_path):
    for name, body in PROJECT.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(PRELUDE + body)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    full = collect(server, tmp_path)
    expected = {
        "sub/test_defs.py::TestDefined",
        "sub/test_defs.py::TestGenericElsewhere",
        "test_imports.py::TestDefined",
        "test_imports.py::TestUsesMixin",
        "test_imports.py::TestGenericElsewhereCPU",
    }
    assert classes(full) == expected
    proc = run_tool("hwselect", "cpu", "--include-unclassified", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert set(proc.stdout.splitlines()) == expected
    (tmp_path / "ids.txt").write_text(proc.stdout)
    assert collect(server, tmp_path, "@ids.txt") == full

    doc = json.loads(run_tool("hwselect", "cpu", "--format", "json", cwd=tmp_path).stdout)
    got = {(f["path"], c["name"]): c["classification"] for f in doc["files"] for c in f["classes"]}
    assert got == {
        ("sub/test_defs.py", "TestDefined"): "GENERIC",
        ("sub/test_defs.py", "TestGenericElsewhere"): "ACCELERATOR",
        ("test_imports.py", "TestDefined"): "GENERIC",
        ("test_imports.py", "TestUsesMixin"): "GENERIC",
        ("test_imports.py", "TestGenericElsewhereCPU"): "ACCELERATOR",
    }
    proc = run_tool("hwselect", "explain", "cpu", "test_imports.py::TestDefined", cwd=tmp_path)
    explained = proc.stdout
    assert explained.startswith("TestDefined is imported from sub/test_defs.py (line"), explained
    # the verdict is the imported class's (it runs), not read from the words of the first line
    assert proc.returncode == 0, explained
