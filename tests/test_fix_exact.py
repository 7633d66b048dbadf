"""Fixes placed by the model's positions alone, and the model of the fixed text that follows from the
original's parse (hwlint.fix.remodel.Parsed.with_lines) instead of a second one.

Each case is fixed twice: as it is (the exact path, where one applies) and with the model-placed
edits disabled (ast-grep places every edit, the fixed text is parsed again). Both must write the same
bytes, and the model the exact path derives must equal a fresh build of the fixed text.
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

import hwlint.edits.builder
import hwlint.edits.imports
import hwlint.fix.apply
import hwlint.fix.remodel
import hwlint.model
from hwlint.fix.apply import fix_plan, plan_source
from hwlint.model import build_model

CASES = Path(__file__).parent / "fix_cases"
FIX_CASES = sorted(p for p in CASES.glob("*.py") if not p.name.endswith(".fixed.py"))

# parenthesized: a name added to a one-line import that grows too long rewrites the statement
# (wrapped as the formatters wrap it), which the exact path does not model
HEAD = "from torch.testing._internal.common_utils import (\n    TestCase,\n    run_tests,\n)\n"
BODY = '    def test_a(self):\n        x = "cpu"\n'
DECLARING = HEAD.replace("    TestCase,", "    HardwareClassification,\n    TestCase,")
DECLARED = "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
DEVICE_CLASS = (
    "import torch\nfrom torch.testing._internal.common_device_type import instantiate_device_type_tests\n\n\n"
    f"class TestA(TestCase):\n{DECLARED}"
    '    def test_a(self, device):\n        x = torch.ones(2).to("cuda")  # the device\n\n'
    '    def test_b(self, device):\n        torch.ones(1, device="cuda")\n\n\n'
    "instantiate_device_type_tests(TestA, globals())\n"
)
ONE_DEVICE = (
    "import torch\n\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.CUDA\n\n"
    '    def test_a(self):\n        x = torch.ones(2, device="cuda")\n\n'
    "    def test_b(self):\n        torch.cuda.synchronize()\n"
)
SHAPES = {
    # name: (source, whether the exact path applies)
    "docstring": (f'{HEAD}\n\nclass TestA(TestCase):\n    """Doc."""\n\n{BODY}', True),
    "comments_after_colon": (
        f"{HEAD}\n\nclass TestA(  # bases\n    TestCase,\n):  # note\n\n    # c\n{BODY}",
        True,
    ),
    "parenthesized_import": (
        "from torch.testing._internal.common_utils import (\n    TestCase,\n    run_tests,\n)\n\n\n"
        f"class TestA(TestCase):\n{BODY}",
        True,
    ),
    "parenthesized_no_comma": (
        "from torch.testing._internal.common_utils import (\n    TestCase,\n    run_tests)\n\n\n"
        f"class TestA(TestCase):\n{BODY}",
        True,
    ),
    "comma_and_parenthesis": (  # the name goes last, and the line holds the parenthesis
        "from torch.testing._internal.common_utils import (\n    IS_LINUX,\n    IS_WINDOWS,)\n\n\n"
        f"class TestA(TestCase):\n{BODY}",
        False,
    ),
    "import_with_noqa": (
        "from torch.testing._internal.common_utils import run_tests, TestCase  # noqa: F401\n\n\n"
        f"class TestA(TestCase):\n{BODY}",
        True,
    ),
    "import_then_code": (f"import os; x = 1\n\n\nclass TestA(TestCase):\n{BODY}", False),
    "nested": (
        f"{HEAD}\nif True:\n    class TestA(TestCase):\n        def test_a(self):\n            pass\n\n"
        "class TestOuter(TestCase):\n    class TestInner(TestCase):\n"
        '        def test_b(self):\n            x = "cpu"\n'
        f"{BODY}",
        True,
    ),
    "non_ascii": (
        f'{HEAD}\n\nclass TestÜ(TestCase):\n    """Grüße."""\n    def test_ü(self):\n'
        '        x = "ä" + "cpu"\n',
        True,
    ),
    "crlf_tabs": (
        f"{HEAD}\n\nclass TestA(TestCase):\n\tdef test_a(self):\n\t\tx = 1\n".replace("\n", "\r\n"),
        True,
    ),
    # the body continues the header's line: no line can go after it (ast-grep's edit breaks the file)
    "continued_header": (
        f"{HEAD}\n\nclass Base:\n{BODY}\n\nclass TestA(TestCase, Base): \\\n    device = 'cpu'\n",
        False,
    ),
    "docstring_then_code": (f'{HEAD}\n\nclass TestA(TestCase):\n    """Doc."""; y = 2\n{BODY}', False),
    "no_import": (f'"""Module."""\n\n\nclass TestA(TestCase):\n{BODY}', False),
    "future_first": (
        f"from __future__ import annotations\n\nimport os\n\n\nclass TestA(TestCase):\n{BODY}",
        True,
    ),
    "fstring_first": (f'{HEAD}\n\nclass TestA(TestCase):\n    f"not a docstring"\n{BODY}', True),
    # HWC301's rewrites: in a declared class; in one that a first pass declares (a second pass)
    "rewrite": (f"{DECLARING}{DEVICE_CLASS}", True),
    "rewrite_second_pass": (f"{HEAD}{DEVICE_CLASS.replace(DECLARED, '')}", True),
    # HWC302's conversions: the class and its tests made generic, the call added or changed
    "conversion": (
        f'{DECLARING}{ONE_DEVICE}\n\nif __name__ == "__main__":\n    run_tests()\n',
        True,
    ),
    # the call would end the file: ast-grep places it
    "conversion_at_end": (f"{DECLARING}{ONE_DEVICE}", False),
    "conversion_of_instantiated": (
        f"{DECLARING}"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        f'{ONE_DEVICE}\n\ninstantiate_device_type_tests(TestA, globals(), only_for="cuda")\n',
        False,  # the converted call is longer than 79 characters: wrapped across lines, parsed again
    ),
    "bytes_first": (f'{HEAD}\n\nclass TestA(TestCase):\n    b"not a docstring"\n{BODY}', True),
}


def _fix(
    source: bytes, path: str, taxonomy, exact: bool, monkeypatch
) -> tuple[hwlint.fix.outcome.FixResult, list]:
    """Fix *source* with every fix (unsafe ones too); record the Edits each pass made."""
    made = []
    real = hwlint.fix.apply.Edits.of

    def recording(*args, **kwargs):
        edits = real(*args, **kwargs)
        made.append(edits)
        return edits

    with monkeypatch.context() as m:
        m.setattr(hwlint.fix.apply.Edits, "of", recording)
        if not exact:
            m.setattr(hwlint.edits.builder.EditBuilder, "_declaration_by_model", lambda *a, **k: None)
            for name in ("_add_name_edit_at", "new_import_edit_at"):
                m.setattr(hwlint.edits.imports, name, lambda *a, **k: None)
        plan = plan_source(source, path, taxonomy)
        return fix_plan(plan, taxonomy, unsafe=True), made


def _check_both_paths(source: bytes, path: str, taxonomy, monkeypatch) -> bool:
    exact, made = _fix(source, path, taxonomy, True, monkeypatch)
    parsed, _ = _fix(source, path, taxonomy, False, monkeypatch)
    assert (exact.fixed_text, exact.error) == (parsed.fixed_text, parsed.error)
    if exact.fixed_text is None:  # refused, by both
        assert exact.error is not None
        return all(m.exact for m in made)
    data = exact.fixed_text.encode(exact.plan.model.encoding)
    assert exact.after is not None
    assert repr(exact.after.model) == repr(build_model(data, path, taxonomy))
    assert [f.code for f in exact.after.findings] == [f.code for f in parsed.after.findings]
    return all(m.exact for m in made)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_exact_fixes_write_what_ast_grep_would_and_model_what_a_parse_would(name, taxonomy, monkeypatch):
    source, applies = SHAPES[name]
    assert _check_both_paths(source.encode(), f"test_{name}.py", taxonomy, monkeypatch) is applies


@pytest.mark.parametrize("case", FIX_CASES, ids=lambda p: p.stem)
def test_every_fix_case_is_fixed_alike_by_both_paths(case, taxonomy, monkeypatch):
    _check_both_paths(case.read_bytes(), case.name, taxonomy, monkeypatch)


def _records(kind: type, seen: set[type]) -> None:
    """Every dataclass reachable from *kind*'s type hints."""
    if kind in seen or not dataclasses.is_dataclass(kind):
        return
    seen.add(kind)
    for hint in typing.get_type_hints(kind).values():
        for inner in _flatten(hint):
            _records(inner, seen)


def _flatten(hint) -> list:
    args = typing.get_args(hint)
    return [hint] if not args else [x for a in args for x in _flatten(a)]


def test_the_mover_knows_every_line_number_in_the_model():
    """A line number the mover does not know would keep its old value in a derived model: every
    int a record holds is a column, or a line the mover maps."""
    seen: set[type] = set()
    _records(hwlint.model.FileModel, seen)
    assert hwlint.model.Site in seen and hwlint.model.DeviceUse in seen
    for kind in seen:
        for name, hint in typing.get_type_hints(kind).items():
            if name.startswith("_") or int not in _flatten(hint):
                continue
            if kind is hwlint.model.ParseError:
                pass  # a model with an error is never derived
            else:
                assert name in hwlint.fix.remodel._LINE_FIELDS or name in ("col", "end_col"), (kind, name)
