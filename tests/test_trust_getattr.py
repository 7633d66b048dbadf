"""Issue 26, item 2: classes that checked clean while the runtime dropped them or read another value.

Each attack is planted as a pull request would commit it: a test module whose class declares
GENERIC, followed by code that changes what the runtime's ``getattr(cls, "hw_classification")``
reads once the module ran. The test runs the module (the value really is another one), then checks
the promised outcome through the real consumers: ``hwlint check`` and flake8 report HWC006 on the
class, and ``hwselect`` warns and addresses the class through its file. Clean look-alikes stay clean.
See docs/guarantees.md.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import run_tool
from .test_trust import HEADER

DECLARED = "    hw_classification = HardwareClassification.GENERIC\n"
TEST = "    def test_a(self):\n        pass\n"


def _cls(body: str = "", head: str = "class TestB(TestCase):\n", declared: bool = True) -> str:
    return head + (DECLARED if declared else "") + TEST + textwrap.indent(textwrap.dedent(body), "    ")


#: Attacks: the code after HEADER. In each, TestB declares GENERIC and getattr reads something else.
ATTACKS = {
    # later in the class body
    "del": _cls("del hw_classification\n"),
    "for": _cls("for hw_classification in [None]:\n    pass\n"),
    "except-as": _cls("try:\n    raise ValueError\nexcept ValueError as hw_classification:\n    pass\n"),
    "import-as": _cls("import os as hw_classification\n"),
    "from-import-as": _cls("from os import sep as hw_classification\n"),
    "with-as": "import contextlib\n\n\n"
    + _cls("with contextlib.nullcontext() as hw_classification:\n    pass\n"),
    "walrus": _cls("(hw_classification := None)\n"),
    "def": _cls("def hw_classification(self):\n    pass\n"),
    "nested-class": _cls("class hw_classification:\n    pass\n"),
    "tuple-target": _cls("hw_classification, _other = None, 1\n"),
    "star-target": _cls("*hw_classification, = [None]\n"),
    "match": _cls("match 1:\n    case hw_classification:\n        pass\n"),
    "global": "class TestB(TestCase):\n    global hw_classification\n" + DECLARED + TEST,
    "locals": _cls("locals()['hw_classification'] = None\n"),
    "exec-in-body": _cls("exec('hw_classification = None')\n"),
    # the declaration may not run
    "if-false": "class TestB(TestCase):\n    if False:\n    " + DECLARED + TEST,
    "while-false": "class TestB(TestCase):\n    while False:\n    " + DECLARED + TEST,
    # module code
    "module-assign": _cls() + "\n\nTestB.hw_classification = None\n",
    "module-del": _cls() + "\n\ndel TestB.hw_classification\n",
    "setattr": _cls() + "\n\nsetattr(TestB, 'hw_classification', None)\n",
    "setattr-concatenated": _cls() + "\n\nsetattr(TestB, 'hw_' + 'classification', None)\n",
    "delattr": _cls() + "\n\ndelattr(TestB, 'hw_classification')\n",
    "loop-variable": _cls() + "\n\nfor _c in [TestB]:\n    _c.hw_classification = None\n",
    "module-function": _cls() + "\n\ndef _patch():\n    TestB.hw_classification = None\n\n\n_patch()\n",
    "module-exec": _cls() + "\n\nexec('TestB.hw_classification = None')\n",
    # the enum's name reads members of torch's enum other than the ones named
    "enum-rebound": "class _Members:\n    GENERIC = HardwareClassification.CUDA\n\n\n"
    "HardwareClassification = _Members\n\n\n" + _cls(),
    "enum-defined-locally": "_Real = HardwareClassification\n\n\n"
    "class HardwareClassification:\n    GENERIC = _Real.CUDA\n\n\n" + _cls(),
    "enum-rebound-in-body": "class TestB(TestCase):\n"
    "    HardwareClassification = type('M', (), {'GENERIC': HardwareClassification.CUDA})\n"
    + DECLARED
    + TEST,
    # machinery that runs when the class is made
    "metaclass": "class Meta(type):\n"
    "    def __new__(mcs, name, bases, ns):\n"
    "        ns['hw_classification'] = None\n"
    "        return super().__new__(mcs, name, bases, ns)\n\n\n"
    + _cls(head="class TestB(TestCase, metaclass=Meta):\n"),
    "init-subclass": "class Base(TestCase):\n"
    "    def __init_subclass__(cls, **kw):\n"
    "        super().__init_subclass__(**kw)\n"
    "        cls.hw_classification = None\n\n\n" + _cls(head="class TestB(Base):\n"),
    "class-decorator": "def strip(cls):\n    cls.hw_classification = None\n    return cls\n\n\n"
    "@strip\n" + _cls(),
    "class-decorator-imported": "from helpers import strip\n\n\n@strip\n" + _cls(),
    # class decorators of the file that look like the ones that keep the class (KEPT), but do not
    "class-decorator-returns-another-class": "def wrap(cls):\n"
    "    return type(cls.__name__, (cls,), {'hw_classification': None})\n\n\n@wrap\n" + _cls(),
    "class-decorator-setattr-any-name": "def strip(cls):\n    for name in ('hw_classification',):\n"
    "        setattr(cls, name, None)\n    return cls\n\n\n@strip\n" + _cls(),
    "class-decorator-guard-then-rebound": "def strip(cls):\n    for name in ('test_a',):\n"
    "        if name.startswith('test_'):\n            name = 'hw_classification'\n"
    "            setattr(cls, name, None)\n    return cls\n\n\n@strip\n" + _cls(),
    "class-decorator-calls-a-method": "def prepare(cls):\n    cls.reset()\n    return cls\n\n\n@prepare\n"
    + _cls("@classmethod\ndef reset(cls):\n    cls.hw_classification = None\n"),
    "class-decorator-rebound": "def keep(cls):\n    return cls\n\n\n"
    "keep = lambda cls: type(cls.__name__, (cls,), {'hw_classification': None})  # noqa: E731\n\n\n@keep\n"
    + _cls(),
}
#: Attacks hwselect already placed nowhere (a declaration under a condition: not selected, warned).
UNPLACED = frozenset({"if-false", "while-false"})
HELPERS = "def strip(cls):\n    del cls.hw_classification\n    return cls\n"

#: Look-alikes the runtime reads as declared: they check clean and select by node id.
CLEAN = {
    "plain": _cls(),
    "bound-before-the-declaration": "class TestB(TestCase):\n"
    "    for hw_classification in [None]:\n        pass\n" + DECLARED + TEST,
    "condition-then-declared": "class TestB(TestCase):\n    if False:\n"
    "        hw_classification = HardwareClassification.CUDA\n" + DECLARED + TEST,
    "known-decorators": "from torch.testing._internal.common_utils import instantiate_parametrized_tests\n"
    "from torch.testing._internal.common_utils import skipIfTorchDynamo\n\n\n"
    "@skipIfTorchDynamo('no')\n@instantiate_parametrized_tests\n" + _cls(),
    "setattr-adds-tests": _cls() + "\n\nfor _n in ('x', 'y'):\n"
    "    setattr(TestB, f'test_{_n}', lambda self: None)\n",
    "other-attribute": _cls() + "\n\nTestB.device = 'cpu'\n",
    "abc-metaclass": "import abc\n\n\n" + _cls(head="class TestB(TestCase, metaclass=abc.ABCMeta):\n"),
    "enum-alias": "HC = HardwareClassification\n\n\n" + _cls().replace("= HardwareClassification.", "= HC."),
    "rebound-after-the-class": _cls() + "\n\nHardwareClassification = None\n",
}


#: Class decorators the runtime reads the declaration through: a skip decorator of torch's
#: (``@requires_triton()``, upstream's inductor/test_gpu_codecache.py) and functions of the file that
#: return the class they are given and write no classification (upstream's ``_expose_mixin_tests`` in
#: inductor/test_torchbind_aoti.py copies a mixin's tests onto the class). No HWC006; hwselect still
#: addresses the class through its file (tests a decorator adds are not counted).
KEPT = {
    "copies-a-mixins-tests": "class _Mixin:\n" + DECLARED + "\n    def test_m(self):\n        pass\n\n\n"
    "def _expose_mixin_tests(cls):\n    for name, meth in _Mixin.__dict__.items():\n"
    "        if name.startswith('test_'):\n            setattr(cls, name, meth)\n    return cls\n\n\n"
    "@_expose_mixin_tests\n" + _cls(),
    "names-the-class": "def documented(cls):\n    cls.__doc__ = 'doc'\n    assert isinstance(cls, type)\n"
    "    return cls\n\n\n@documented\n" + _cls(),
    "requires-triton": "from torch.testing._internal.inductor_utils import requires_triton\n\n\n"
    "@requires_triton()\n" + _cls(),
}


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    # torch's inductor_utils imports most of inductor: several seconds of CPU
    [pytest.param(c, marks=pytest.mark.slow) if "from torch" in KEPT[c] else c for c in KEPT],
)
def test_a_class_decorator_that_keeps_the_class_is_no_doubt(tmp_path, case, monkeypatch):
    if "from torch" in KEPT[case]:
        pytest.importorskip("torch")
    path = _plant(tmp_path, KEPT[case])
    value, generic = _runtime_value(path, monkeypatch)
    assert value is generic
    assert _findings(path) == set()
    assert _flake8(path) == set()
    res = run_tool("hwselect", "cpu", "--no-cache", str(path), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    expected = ["test_attack.py::TestB"] if case == "requires-triton" else ["test_attack.py"]
    assert res.stdout.split() == expected


def _plant(tmp_path: Path, source: str) -> Path:
    (tmp_path / "helpers.py").write_text(HELPERS)
    path = tmp_path / "test_attack.py"
    path.write_text(HEADER + source)
    return path


def _class_line(path: Path) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith("class TestB"))


def _runtime_value(path: Path, monkeypatch) -> tuple[object, object]:
    """What getattr reads on TestB once the module ran, and the enum's GENERIC as the header bound it."""
    monkeypatch.syspath_prepend(str(path.parent))
    namespace: dict[str, object] = {"__name__": "test_attack"}
    exec(compile(HEADER, str(path), "exec"), namespace)
    generic = namespace["HardwareClassification"].GENERIC  # type: ignore[attr-defined]
    exec(compile(path.read_text()[len(HEADER) :], str(path), "exec"), namespace)
    return getattr(namespace["TestB"], "hw_classification", None), generic


def _findings(path: Path) -> set[tuple[int, str]]:
    res = run_tool("hwlint", "check", "--no-cache", "--isolated", "--output-format", "json", str(path))
    assert res.returncode in (0, 1), res.stderr
    return {(f["location"]["row"], f["code"]) for f in json.loads(res.stdout)}


def _flake8(path: Path) -> set[tuple[int, str]]:
    res = run_tool("flake8", "--isolated", "--select", "HWC", "--format", "%(row)d %(code)s", str(path))
    assert "Traceback" not in res.stderr, res.stderr
    return {(int(r), c) for r, c in (line.split() for line in res.stdout.splitlines())}


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_value_getattr_may_not_read_is_hwc006_and_hwselect_lists_the_file(tmp_path, attack, monkeypatch):
    path = _plant(tmp_path, ATTACKS[attack])
    value, generic = _runtime_value(path, monkeypatch)
    assert value is not generic  # the attack is real: the runtime reads another value
    expected = {(_class_line(path), "HWC006")}
    assert _findings(path) == expected
    assert _flake8(path) == expected
    res = run_tool("hwselect", "cpu", "-v", "--no-cache", str(path), cwd=tmp_path)
    assert "test_attack.py::TestB" in res.stderr and "warning" in res.stderr
    if attack in UNPLACED:  # a declaration that may not run: a classification hwlint cannot read
        assert res.returncode == 3 and res.stdout == ""
        assert "1 class has a classification hwlint cannot read" in res.stderr
        return
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["test_attack.py"]  # through its file: the runtime's filter decides


@pytest.mark.parametrize("case", CLEAN)
def test_look_alikes_the_runtime_reads_as_declared_stay_clean(tmp_path, case, monkeypatch):
    if "from torch" in CLEAN[case]:
        pytest.importorskip("torch")  # the runtime's own decorators: run where torch is installed
    path = _plant(tmp_path, CLEAN[case])
    value, generic = _runtime_value(path, monkeypatch)
    assert value is generic
    assert _findings(path) == set()
    assert _flake8(path) == set()
    res = run_tool("hwselect", "cpu", "--no-cache", str(path), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["test_attack.py::TestB"]


#: Enums of the file's own, from constants: their members are not torch's, so the runtime's filter
#: raises TypeError on them (loudly); where torch has no enum (this project's suites), they are it.
STAND_INS = {
    "enum-class": "class HardwareClassification(enum.Enum):\n"
    "    GENERIC = 'generic'\n    CUDA = 'cuda'\n\n\n",
    "functional": "HardwareClassification = enum.Enum('HardwareClassification', 'GENERIC CUDA')\n\n\n",
}


@pytest.mark.parametrize("case", STAND_INS)
def test_a_stand_in_enum_is_no_doubt(tmp_path, case, monkeypatch):
    path = _plant(tmp_path, STAND_INS[case] + _cls())
    value, generic = _runtime_value(path, monkeypatch)
    assert value is not generic and not isinstance(value, type(generic))  # the real filter's TypeError
    assert _findings(path) == set()
    res = run_tool("hwselect", "cpu", "--no-cache", str(path), cwd=tmp_path)
    assert res.stdout.split() == ["test_attack.py::TestB"]


#: Tests bound without a ``def`` (pytest collects them); the class declares nothing.
UNDECLARED_TESTS = {
    "lambda": ("class TestB(TestCase):\n    test_x = lambda self: None\n", "HWC001"),
    "staticmethod": (
        "class TestB(TestCase):\n    def _f():\n        pass\n    test_x = staticmethod(_f)\n",
        "HWC001",
    ),
    "partialmethod": (
        "import functools\n\n\nclass TestB(TestCase):\n    def _f(self, n):\n        pass\n"
        "    test_x = functools.partialmethod(_f, 1)\n",
        "HWC001",
    ),
    "imported": ("class TestB(TestCase):\n    from helpers import strip as test_x\n", "HWC001"),
    "exec": ("class TestB(TestCase):\n    exec('def test_x(self): pass')\n", "HWC005"),
    "locals": ("class TestB(TestCase):\n    locals()['test_x'] = lambda self: None\n", "HWC005"),
}


@pytest.mark.parametrize("case", UNDECLARED_TESTS)
def test_tests_bound_otherwise_make_an_undeclared_class_a_finding(tmp_path, case, monkeypatch):
    source, code = UNDECLARED_TESTS[case]
    path = _plant(tmp_path, source)
    monkeypatch.syspath_prepend(str(tmp_path))
    for helper in tmp_path.glob("*.py"):  # a module of that name another test imported first
        monkeypatch.delitem(sys.modules, helper.stem, raising=False)
    namespace: dict[str, object] = {"__name__": "test_attack"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    assert callable(namespace["TestB"].test_x)  # type: ignore[attr-defined]  # pytest collects it; the filter drops the class
    expected = {(_class_line(path), code)}
    assert _findings(path) == expected
    assert _flake8(path) == expected
    res = run_tool("hwselect", "cpu", "--no-cache", str(path), cwd=tmp_path)
    assert res.returncode == 3 and res.stdout == ""
    assert "1 class is unclassified" in res.stderr


@pytest.mark.parametrize(
    ("text", "declarations", "heads", "walked"),
    [
        ("class T(TestCase):\n    def test_a(self): ...\n", 0, {}, False),
        ("class T(TestCase):\n    hw_classification = HC.GENERIC\n", 1, {"HC": 1}, False),
        (
            "class T(TestCase):\n    hw_classification = HC.GENERIC\n    del hw_classification\n",
            1,
            {"HC": 1},
            True,
        ),
        ("class T(TestCase):\n    hw_classification = HC.GENERIC\n    HC = None\n", 1, {"HC": 1}, True),
        ("class T(TestCase):\n    exec ('x = 1')\n", 0, {}, True),
        ("class T(TestCase):\n    locals()['test_x'] = f\n", 0, {}, True),
        ("class T(TestCase):\n    def __init_subclass__(cls): ...\n", 0, {}, True),
        ("class T(TestCase):\n    def test_a(self):\n        self.evaluate(executor)\n", 0, {}, False),
        # a call's name is found as a word, its parenthesis after any blanks, a line end included
        ("class T(TestCase):\n    def test_a(self):\n        model.eval()\n", 0, {}, True),
        ("class T(TestCase):\n    x = vars\\\n        (Base)\n", 0, {}, True),
        ("class T(TestCase):\n    def test_a(self):\n        myvars(x), exec_(y)\n", 0, {}, False),
    ],
)
def test_the_text_gate_skips_only_bodies_that_cannot_rebind(text, declarations, heads, walked):
    """The builder walks a class body for rebindings only when its text may hold one: a body that
    names neither the attribute nor the enum beyond its declarations, and has no dynamic call,
    is skipped; every body an attack above writes is walked."""
    from hwlint.model.bindings import may_rebind

    assert may_rebind(text, "hw_classification", declarations, heads) is walked
