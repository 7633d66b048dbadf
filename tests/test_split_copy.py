"""What a class split by copy (HWC001's GENERIC split) copies for the tests it takes: the table of
:func:`hwlint.rules.split.copied`; tests/fix_cases/split_copied_helpers.py shows it on a file."""

from __future__ import annotations

import pytest

from hwlint.rules.split import copied

MEMBERS = [
    ("", "_do_cuda_memory_leak_check = True\n"),
    ("setUp", "def setUp(self):\n    super().setUp()\n"),
    ("_a", "def _a(self):\n    return self._b()\n"),
    ("_b", "def _b(self):\n    return 1\n"),
    ("_c", "def _c(self):\n    return 2\n"),
    ("helper", "def helper(self):\n    return 3\n"),
    ("_p", "@property\ndef _p(self):\n    return 4\n"),
    ("__init__", "def __init__(self, *args):\n    super().__init__(*args)\n"),
]
TESTS = {"test_x", "test_y"}
STAY = ("test_y", "def test_y(self):\n    self._c()\n")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # _a named, _b through _a; _c only by the test that stays
        ("self._a()", ["", "setUp", "_a", "_b", "helper", "_p", "__init__", "test_x"]),
        ("self.helper()", ["", "setUp", "helper", "_p", "__init__", "test_x"]),
        # a name in a string is a use: a helper passed by name stays
        ('self.assertTrue(hasattr(self, "_c"))', ["", "setUp", "_c", "helper", "_p", "__init__", "test_x"]),
        # a name computed at run time: every helper
        (
            'getattr(self, "_" + "a")()',
            ["", "setUp", "_a", "_b", "_c", "helper", "_p", "__init__", "test_x"],
        ),
    ],
)
def test_copied_members(body, expected):
    members = [*MEMBERS, ("test_x", f"def test_x(self):\n    {body}\n"), STAY]
    assert [name for name, _ in copied(members, TESTS, ("test_x",))] == expected


def test_a_base_but_testcase_may_call_any_helper():
    """``NNTestCase`` calls its subclass's ``_forward``: under such a base every helper is copied."""
    members = [*MEMBERS, ("test_x", "def test_x(self):\n    pass\n"), STAY]
    kept = copied(members, TESTS, ("test_x",), plain=False)
    assert [name for name, _ in kept] == ["", "setUp", "_a", "_b", "_c", "helper", "_p", "__init__", "test_x"]


def test_seed_names_a_helper():
    """The class's decorators and header count as kept text."""
    members = [*MEMBERS, ("test_x", "def test_x(self):\n    pass\n"), STAY]
    kept = copied(members, TESTS, ("test_x",), '@skipIf(lambda: C._c(), "")\nclass C(TestCase)')
    assert "_c" in [name for name, _ in kept]
