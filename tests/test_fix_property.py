"""Property: for generated files, the fixed text parses, keeps every original statement, and a
second fix changes nothing (bounded, fast examples).

Long mode: ``HWLINT_PROPERTY_EXAMPLES=5000 python -m pytest tests/test_fix_property.py``."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlint.fix.apply import fix_plan, plan_source
from hwlint.rules.check import Selection

from .conftest import property_examples

ENUM = "HardwareClassification"
IMPORTS = [
    "",
    "from torch.testing._internal.common_utils import TestCase\n",
    "from torch.testing._internal.common_utils import run_tests, TestCase\n",
    "from torch.testing._internal.common_utils import (\n    run_tests,\n    TestCase,\n)\n",
    "from torch.testing._internal.common_utils import (\n    TestCase,\n    run_tests\n)\n",
    "from torch.testing._internal.common_utils import HardwareClassification as HC, TestCase\n",
    "from torch.testing._internal.common_utils import (  # comment\n    HardwareClassification,\n)\n",
    "import torch\n",
    '"""Module docstring."""\nimport torch\n',
    "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n",
    '"""Module docstring."""\nfrom __future__ import annotations\n',
    "import os; import sys\n",
]
BODIES = [
    "def test_a(self):\n    pass\n",
    "def test_a(self, device):\n    pass\n",
    "def test_a(self):\n    torch.cuda.synchronize()\n",
    "def test_a(self):\n    pass\n\ndef test_b(self):\n    torch.ones(1).cuda()\n",
    "@onlyCUDA\ndef test_a(self, device):\n    pass\n",
    "# a comment\ndef test_a(self):\n    x = 1  # trailing\n",
    "x = 1\n\ndef helper(self):\n    pass\n",
    "async def test_a(self):\n    pass\n",
]
DOCSTRINGS = ["", '"""Doc."""\n', '"""Doc\n\nmore lines.\n"""\n\n', "'single'\n"]


@st.composite
def classes(draw, index: int) -> str:
    name = f"Test{index}"
    indent = draw(st.sampled_from(["    ", "  ", "\t"]))
    doc = draw(st.sampled_from(DOCSTRINGS))
    body = draw(st.lists(st.sampled_from(BODIES), min_size=1, max_size=3))
    text = doc + "\n".join(body)
    lines = "".join(indent + line if line.strip() else line for line in text.splitlines(True))
    decorator = draw(st.sampled_from(["", "@unittest.skipIf(False, 'x')\n"]))
    source = f"{decorator}class {name}(TestCase):\n{lines}"
    if draw(st.booleans()):  # nested in an if block
        source = "if True:\n" + "".join("    " + ln if ln.strip() else ln for ln in source.splitlines(True))
    call = draw(st.sampled_from(["", f"instantiate_device_type_tests({name}, globals())\n"]))
    return f"\n\n{source}\n{call}"


@st.composite
def files(draw) -> str:
    head = draw(st.sampled_from(IMPORTS))
    n = draw(st.integers(min_value=1, max_value=3))
    text = head + "".join(draw(classes(i)) for i in range(n))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text


def _without_fixes(tree: ast.Module) -> str:
    """The tree with every declaration and every import of the enum removed, as a dump."""

    class Strip(ast.NodeTransformer):
        def visit_Assign(self, node):
            if any(isinstance(t, ast.Name) and t.id == "hw_classification" for t in node.targets):
                return None
            return node

        def visit_ImportFrom(self, node):
            node.names = [a for a in node.names if a.name != ENUM]
            return node if node.names else None

        def visit_ClassDef(self, node):
            self.generic_visit(node)
            node.body = node.body or [ast.Pass()]
            return node

    return ast.dump(Strip().visit(tree))


def _fix(text: str, taxonomy, selection: Selection | None = None) -> str:
    plan = plan_source(text.encode(), "test_gen.py", taxonomy, selection)
    result = fix_plan(plan, taxonomy, selection, unsafe=True)
    # The fixer refuses text that would not parse; a refusal here is a bug the property must see.
    assert result.error is None
    return result.fixed_text if result.changed else text


@settings(
    max_examples=property_examples(80),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(files())
def test_fix_parses_keeps_statements_and_is_idempotent(taxonomy, text):
    # the declarations alone keep every original statement (device rewrites change some, on purpose)
    declared = _fix(text, taxonomy, Selection(("HWC0",)))
    assert _without_fixes(ast.parse(declared)) == _without_fixes(ast.parse(text))
    fixed = _fix(text, taxonomy)  # every fix, device-neutral rewrites and conversions included
    compile(fixed, "test_gen.py", "exec", dont_inherit=True)  # parses, and compiles (__future__ first)
    assert _fix(fixed, taxonomy) == fixed  # idempotent
    if fixed != text:  # line endings are the file's own
        assert ("\r\n" in text) == ("\r\n" in fixed)
        assert fixed.count("\n") == fixed.count("\r\n") or "\r\n" not in text
