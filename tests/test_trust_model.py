"""Issue 47, items 8, 9 and 11: the model never places a class in silence when code it does not
model can change what the runtime reads, or collect a class no front end sees.

Each attack is planted as a pull request would commit it: a test module (and, where the attack
needs one, a helper module beside it). The test first runs the module with Python (the attack is
real: ``getattr`` reads another value, or pytest collects the class), then checks the promised
outcome through the real consumers: ``hwlint check`` and flake8 report the class (HWC006 for a
classification the runtime may read otherwise), and ``hwselect`` warns and addresses it through its
file. Look-alikes that only read stay clean. See docs/guarantees.md.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap
import types
from pathlib import Path

import pytest

from .conftest import run_tool
from .test_trust import HEADER

DECLARED = "    hw_classification = HardwareClassification.GENERIC\n"
TEST = "    def test_a(self):\n        pass\n"
CUDA = "class _Cuda:\n    hw_classification = HardwareClassification.CUDA\n\n\n"
#: A helper module's enum look-alike whose GENERIC is torch's CUDA.
FAKE_ENUM = HEADER + "class HardwareClassification:\n    GENERIC = HardwareClassification.CUDA\n"


def _cls(body: str = "", head: str = "class TestB(TestCase):\n") -> str:
    return head + DECLARED + TEST + textwrap.indent(textwrap.dedent(body), "    ")


#: A helper base whose ``__init_subclass__`` sets every subclass's classification to CUDA.
HELPER_INIT_SUBCLASS = (
    HEADER + "class Base(TestCase):\n    def __init_subclass__(cls, **kwargs):\n"
    "        super().__init_subclass__(**kwargs)\n"
    "        cls.hw_classification = HardwareClassification.CUDA\n"
)
#: A helper descriptor whose ``__set_name__`` sets the owner's classification to CUDA.
HELPER_STAMP = (
    HEADER + "class Stamp:\n    def __set_name__(self, owner, name):\n"
    "        owner.hw_classification = HardwareClassification.CUDA\n"
)

#: item 8: (the test module after HEADER, helper files, the classes reported). In each, TestB
#: declares GENERIC and the runtime's getattr reads something else.
ROUTES: dict[str, tuple[str, dict[str, str], tuple[str, ...]]] = {
    "set-name": (
        "class _Stamp:\n    def __set_name__(self, owner, name):\n"
        "        owner.hw_classification = None\n\n\n" + _cls("stamp = _Stamp()\n"),
        {},
        ("TestB",),
    ),
    "set-name-obfuscated": (
        "class _Stamp:\n    def __set_name__(self, owner, name):\n"
        "        setattr(owner, ''.join(reversed('noitacifissalc_wh')), None)\n\n\n"
        + _cls("stamp = _Stamp()\n"),
        {},
        ("TestB",),
    ),
    "frame-locals": (
        "import sys\n\n\n" + _cls("sys._getframe().f_locals['hw_classification'] = None\n"),
        {},
        ("TestB",),
    ),
    "type-setattr": (_cls() + "\n\ntype.__setattr__(TestB, 'hw_classification', None)\n", {}, ("TestB",)),
    "aliased-setattr": (
        _cls() + "\n\n_put = setattr\n_put(TestB, 'hw_classification', None)\n",
        {},
        ("TestB",),
    ),
    "builtins-setattr": (
        "import builtins\n\n\n" + _cls() + "\n\nbuiltins.setattr(TestB, 'hw_classification', None)\n",
        {},
        ("TestB",),
    ),
    "map-setattr": (
        _cls() + "\n\nlist(map(setattr, [TestB], ['hw_classification'], [None]))\n",
        {},
        ("TestB",),
    ),
    "eval-compile": (
        _cls() + "\n\neval(compile('TestB.hw_classification = None', 'x', 'exec'))\n",
        {},
        ("TestB",),
    ),
    "import-builtins-exec": (
        _cls() + "\n\n__import__('builtins').exec('TestB.hw_' + 'classification = None')\n",
        {},
        ("TestB",),
    ),
    "sys-modules": (
        "import sys\n\n\n"
        + CUDA
        + _cls()
        + "\n\nsys.modules[__name__].TestB = type('TestB', (_Cuda, TestCase), {'test_a': print})\n",
        {},
        ("TestB",),
    ),
    "bases": (
        "class _Mixin:\n" + DECLARED + TEST + "\n\n" + CUDA + "class TestB(_Mixin, TestCase):\n    pass\n\n\n"
        "TestB.__bases__ = (_Cuda, _Mixin, TestCase)\n",
        {},
        ("_Mixin", "TestB"),  # every class of a file with such code is uncertain
    ),
    # names from a helper of the checkout, which hwlint does not read
    "star-import-rebinds-the-enum": (
        "from helpers import *\n\n\n" + _cls(),
        {"helpers.py": FAKE_ENUM},
        ("TestB",),
    ),
    "star-import-rebinds-the-class": (
        _cls() + "\n\nfrom helpers import *\n",
        {"helpers.py": HEADER + CUDA.replace("_Cuda:", "TestB(TestCase):") + TEST},
        ("TestB",),
    ),
    "enum-from-a-helper": (
        "from helpers import HardwareClassification\n\n\n" + _cls(),
        {"helpers.py": FAKE_ENUM},
        ("TestB",),
    ),
    "known-decorator-name-from-a-helper": (
        "from helpers import skipIfRocm\n\n\n@skipIfRocm\n" + _cls(),
        {"helpers.py": "def skipIfRocm(cls):\n    cls.hw_classification = None\n    return cls\n"},
        ("TestB",),
    ),
    # code of a helper module of the checkout, which hwlint reads for what it may do to a class
    "init-subclass-on-a-helper-base": (
        "from helpers import Base\n\n\n" + _cls(head="class TestB(Base):\n"),
        {"helpers.py": HELPER_INIT_SUBCLASS},
        ("TestB",),
    ),
    "metaclass-on-a-helper-base": (
        "import helpers\n\n\n" + _cls(head="class TestB(helpers.Base):\n"),
        {
            "helpers.py": HEADER + "class Meta(type):\n    def __new__(mcs, name, bases, ns):\n"
            "        ns['hw_classification'] = HardwareClassification.CUDA\n"
            "        return super().__new__(mcs, name, bases, ns)\n\n\n"
            "class Base(TestCase, metaclass=Meta):\n    pass\n"
        },
        ("TestB",),
    ),
    "init-subclass-two-helpers-down": (
        "from helpers import Base\n\n\n" + _cls(head="class TestB(Base):\n"),
        {
            "helpers.py": "from common_helpers import Root\n\n\nclass Base(Root):\n    pass\n",
            "common_helpers.py": HELPER_INIT_SUBCLASS.replace("class Base(", "class Root("),
        },
        ("TestB",),
    ),
    "descriptor-from-a-helper": (
        "from helpers import Stamp\n\n\n" + _cls("stamp = Stamp()\n"),
        {"helpers.py": HELPER_STAMP},
        ("TestB",),
    ),
    "descriptor-instance-from-a-helper": (
        "import helpers\n\n\n" + _cls("stamp = helpers.STAMP\n"),
        {"helpers.py": HELPER_STAMP + "\n\nSTAMP = Stamp()\n"},
        ("TestB",),
    ),
}

#: Helper modules beside the tests whose code, read, leaves a declaration as it is: a base with no
#: ``__init_subclass__`` or metaclass, a value whose class has no ``__set_name__`` (PyTorch 2.6.0's
#: tree has only these: its HWC006 findings do not move).
CLEAN_HELPERS = {
    "plain-helper-base": (
        "from helpers import Base\n\n\n" + _cls(head="class TestB(Base):\n"),
        {"helpers.py": HEADER + "class Base(TestCase):\n    def setUp(self):\n        pass\n"},
    ),
    "helper-value-without-set-name": (
        "import helpers\n\n\n" + _cls("tolerance = helpers.Tolerance(1e-5)\n"),
        {"helpers.py": "class Tolerance:\n    def __init__(self, value):\n        self.value = value\n"},
    ),
}

#: Look-alikes in test code: they only read, or run when a test runs (after the filter).
CLEAN = {
    "reads": _cls() + "\n\nassert getattr(TestB, 'hw_classification') is TestB.hw_classification\n",
    "test-code": _cls(
        "def test_b(self):\n"
        "    import builtins, sys\n"
        "    builtins.exec('x = 1', {})\n"
        "    sys.modules['fake_module'] = sys\n"
        "    del sys.modules['fake_module']\n"
        "    eval(compile('1', 'x', 'eval'))\n"
        "    self.hw_classification = None\n"
    ),
    "instance-setattr": "class _Frozen:\n    def __setattr__(self, name, value):\n"
    "        super().__setattr__(name, value)\n        object.__setattr__(self, name, value)\n\n\n" + _cls(),
    "docstring": '"""Declares hw_classification on each class."""\n\n' + _cls(),
    "star-import-from-the-standard-library": "from typing import *\n\n\n" + _cls(),
}


def _plant(tmp_path: Path, source: str, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "test_attack.py"
    path.write_text(HEADER + source)
    return path


def _lines(path: Path, classes: tuple[str, ...]) -> set[int]:
    lines = path.read_text().splitlines()
    return {
        i
        for i, line in enumerate(lines, 1)
        for c in classes
        if line.startswith((f"class {c}(", f"class {c}:"))
    }


def _runtime(path: Path, monkeypatch) -> types.ModuleType:
    """The module at *path* once imported as Python imports it (in this process: torch's import,
    which the header tries, is paid once)."""
    monkeypatch.syspath_prepend(str(path.parent))
    name = f"test_attack_{path.parent.name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    for helper in path.parent.glob("*.py"):  # a helper module of another test's directory
        monkeypatch.delitem(sys.modules, helper.stem, raising=False)
    spec.loader.exec_module(module)
    return module


def _unseen(path: Path) -> set[int]:
    """The lines of a star import from a helper: it may bind a class pytest collects (HWC007)."""
    lines = path.read_text().splitlines()
    return {i for i, line in enumerate(lines, 1) if line.startswith("from helpers import *")}


def _findings(path: Path) -> set[tuple[int, str]]:
    res = run_tool("hwlint", "check", "--no-cache", "--isolated", "--output-format", "json", str(path))
    assert res.returncode in (0, 1), res.stderr
    return {(f["location"]["row"], f["code"]) for f in json.loads(res.stdout)}


def _flake8(paths: list[Path]) -> set[tuple[str, int, str]]:
    res = run_tool(
        "flake8", "--isolated", "--select", "HWC", "--format", "%(path)s %(row)d %(code)s", *map(str, paths)
    )
    assert "Traceback" not in res.stderr, res.stderr
    return {
        (Path(p).parent.name, int(r), c) for p, r, c in (line.split() for line in res.stdout.splitlines())
    }


def test_flake8_reports_what_check_reports(tmp_path):
    """flake8's plugin, one run over every planted module (it builds the same model)."""
    paths, expected = [], set()
    for name, (source, files, classes) in ROUTES.items():
        (tmp_path / name).mkdir()
        paths.append(_plant(tmp_path / name, source, files))
        expected |= {(name, line, "HWC006") for line in _lines(paths[-1], classes)}
        expected |= {(name, line, "HWC007") for line in _unseen(paths[-1])}
    for name, source in CLEAN.items():
        (tmp_path / name).mkdir()
        paths.append(_plant(tmp_path / name, source, {}))
    assert _flake8(paths) == expected


@pytest.mark.slow
@pytest.mark.parametrize("attack", ROUTES)
def test_a_route_hwlint_does_not_follow_makes_the_class_uncertain(tmp_path, attack, monkeypatch):
    source, files, classes = ROUTES[attack]
    path = _plant(tmp_path, source, files)
    module = _runtime(path, monkeypatch)
    value = getattr(module.TestB, "hw_classification", None)
    assert getattr(value, "name", None) != "GENERIC"  # the attack is real: the enum's GENERIC it is not
    expected = {(line, "HWC006") for line in _lines(path, classes)}
    assert _findings(path) == expected | {(line, "HWC007") for line in _unseen(path)}
    res = run_tool("hwselect", "cpu", "-v", "--no-cache", str(path), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "test_attack.py::TestB" in res.stderr and "warning" in res.stderr
    assert res.stdout.split() == ["test_attack.py"]  # through its file: the runtime's filter decides


@pytest.mark.parametrize("case", CLEAN)
def test_code_that_only_reads_or_runs_in_a_test_stays_clean(tmp_path, case, monkeypatch):
    path = _plant(tmp_path, CLEAN[case], {})
    module = _runtime(path, monkeypatch)
    assert module.TestB.hw_classification is module.HardwareClassification.GENERIC
    assert _findings(path) == set()
    res = run_tool("hwselect", "cpu", "--no-cache", str(path), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["test_attack.py::TestB"]


@pytest.mark.parametrize("case", CLEAN_HELPERS)
def test_a_helper_module_read_that_leaves_the_declaration_is_clean(tmp_path, case, monkeypatch):
    source, files = CLEAN_HELPERS[case]
    path = _plant(tmp_path, source, files)
    module = _runtime(path, monkeypatch)
    assert module.TestB.hw_classification is module.HardwareClassification.GENERIC
    assert _findings(path) == set()
    assert _flake8([path]) == set()
    res = run_tool("hwselect", "cpu", "--no-cache", str(path), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["test_attack.py::TestB"]


# -- item 9: what pytest collects that a front end did not see ------------------------------------

#: A header without torch: pytest's own collection of these modules takes a moment.
PLAIN = "from unittest import TestCase\n\n\n"


def test_tests_inherited_from_a_helper_module_are_hwc005_where_hwselect_warns(tmp_path):
    (tmp_path / "helpers.py").write_text("class Mixin:\n" + TEST)
    path = tmp_path / "test_attack.py"
    path.write_text(PLAIN + "from helpers import Mixin\n\n\nclass TestB(Mixin, TestCase):\n    pass\n")
    res = run_tool("pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(path), cwd=tmp_path)
    assert "test_attack.py::TestB::test_a" in res.stdout  # pytest collects the mixin's test
    assert _findings(path) == {(_lines(path, ("TestB",)).pop(), "HWC005")}
    res = run_tool("hwselect", "cpu", "--no-cache", str(path), cwd=tmp_path)
    assert "warning" in res.stderr and "TestB" in res.stderr


#: item 9: (the test module after PLAIN, helper files, hwselect's warning, whether the class has a
#: name hwselect can list it under). pytest collects ``TestB`` (or ``TestHidden``) in each.
UNSEEN_BINDINGS = {
    "class-built-in-a-function": (
        "def _make():\n    class TestB(TestCase):\n        def test_a(self):\n            pass\n\n"
        "    return TestB\n\n\nTestB = _make()\n",
        {},
        "`TestB` is bound to a value computed at run time",
        True,
    ),
    "globals-write": (
        "def _make():\n    class Made(TestCase):\n        def test_a(self):\n            pass\n\n"
        "    return Made\n\n\nglobals()['TestB'] = _make()\n",
        {},
        "writes module globals at run time",
        True,
    ),
    "star-imported-from-a-helper": (
        "from helpers import *\n",
        {"helpers.py": PLAIN + "class TestB(TestCase):\n" + TEST},
        "`from helpers import *` may bind any `Test*` class",
        False,
    ),
    "imported-by-name-from-a-helper": (
        "from helpers import TestHidden\n",
        {"helpers.py": PLAIN + "class TestHidden(TestCase):\n" + TEST},
        "imports TestHidden from helpers, which is not among the scanned files",
        True,
    ),
    "attribute-of-a-helper-module": (
        "import helpers\n\n\nTestB = helpers.Hidden\n",
        {"helpers.py": PLAIN + "class Hidden(TestCase):\n" + TEST},
        "`TestB` is bound to a class of `helpers`, which hwlint does not read",
        True,
    ),
}


def _unseen_line(path: Path) -> int:
    """The line of the module's last statement: the one that binds the class."""
    return len(path.read_text().rstrip("\n").splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("case", UNSEEN_BINDINGS)
def test_a_class_bound_where_hwlint_cannot_see_is_hwc007_and_its_file_listed(tmp_path, case):
    """A class pytest collects that no front end sees is HWC007 in check and flake8 (one rule
    table), and hwselect warns; a file holding only such a class under a name is listed whole on
    every runner (the runtime's filter reads the classification)."""
    source, files, warning, named = UNSEEN_BINDINGS[case]
    path = _plant(tmp_path, source, files).with_name("test_attack.py")
    path.write_text(PLAIN + source)
    res = run_tool("pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(path), cwd=tmp_path)
    collected = "TestHidden" if "TestHidden" in source else "TestB"
    assert f"test_attack.py::{collected}::test_a" in res.stdout  # pytest collects it
    assert _findings(path) == {(_unseen_line(path), "HWC007")}
    assert _flake8([path]) == {(tmp_path.name, _unseen_line(path), "HWC007")}
    for runner in ("cpu", "cuda"):
        res = run_tool("hwselect", runner, "-v", "--no-cache", str(path), cwd=tmp_path)
        assert "warning" in res.stderr and warning in res.stderr
        if named:
            assert res.returncode == 0, res.stderr
            assert res.stdout.split() == ["test_attack.py"]
            assert f"test_attack.py::{collected}: no certain node id" in res.stderr


def test_a_class_imported_from_a_test_module_is_seen_not_hwc007(tmp_path):
    """pytest's tree imports test classes from other test modules (``from
    quantization.core.test_quantized_op import TestQuantizedOps``): hwlint checks them there and
    hwselect places them here, by node id."""
    (tmp_path / "test_other.py").write_text(HEADER + "class TestHidden(TestCase):\n" + DECLARED + TEST)
    path = tmp_path / "test_attack.py"
    path.write_text(PLAIN + "from test_other import TestHidden  # noqa: F401\n")
    assert _findings(path) == set()
    res = run_tool("hwselect", "cpu", "--no-cache", str(path), str(tmp_path / "test_other.py"), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert sorted(res.stdout.split()) == ["test_attack.py::TestHidden", "test_other.py::TestHidden"]
    assert "warning" not in res.stderr


#: pytest walks a plain ``Test*`` class's body: it collects a TestCase there whatever its name, and
#: a nested plain ``Test*`` class's classes in turn; it does not walk a TestCase's body.
NESTED = (
    "class TestOuter:\n"
    "    class TestInner(TestCase):\n"
    "        def test_a(self):\n            pass\n\n"
    "    class Helper(TestCase):\n"
    "        def test_b(self):\n            pass\n\n"
    "    class TestMiddle:\n"
    "        class TestDeep(TestCase):\n"
    "            def test_c(self):\n                pass\n\n\n"
    "class TestCaseOuter(TestCase):\n"
    "    class TestNotCollected(TestCase):\n"
    "        def test_d(self):\n            pass\n"
)


def test_a_class_nested_in_a_plain_test_class_is_hwc001_and_warned(tmp_path):
    path = tmp_path / "test_attack.py"
    path.write_text(PLAIN + NESTED)
    res = run_tool("pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(path), cwd=tmp_path)
    collected = {line for line in res.stdout.splitlines() if "::" in line}
    assert collected == {
        "test_attack.py::TestOuter::TestInner::test_a",
        "test_attack.py::TestOuter::Helper::test_b",
        "test_attack.py::TestOuter::TestMiddle::TestDeep::test_c",
    }
    lines = path.read_text().splitlines()
    where = {
        n: lines.index(next(x for x in lines if f"class {n}(" in x)) + 1
        for n in ("TestInner", "Helper", "TestDeep")
    }
    assert _findings(path) == {(line, "HWC001") for line in where.values()}
    res = run_tool("hwselect", "cpu", "-v", "--no-cache", str(path), cwd=tmp_path)
    for name in ("TestOuter.TestInner", "TestOuter.Helper", "TestOuter.TestMiddle.TestDeep"):
        assert f"pytest collects `{name}`, a class nested in a class" in res.stderr
    assert "TestNotCollected" not in res.stderr


def test_a_declared_nested_class_is_clean_and_its_file_listed(tmp_path):
    nested = "class TestOuter:\n" + textwrap.indent("class TestInner(TestCase):\n" + DECLARED + TEST, "    ")
    path = _plant(tmp_path, "class TestA(TestCase):\n" + DECLARED + TEST + "\n\n" + nested, {})
    assert _findings(path) == set()
    res = run_tool("hwselect", "cpu", "--no-cache", str(path), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["test_attack.py"]  # through its file: the runtime's filter decides
    assert "pytest collects `TestOuter.TestInner`" in res.stderr
