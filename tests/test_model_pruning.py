"""The model's text index only prunes: a model built with it equals one built by a full walk.

The device walk skips every node whose text names no device word, and the search for classes made
at run time every statement that names none of ``globals``, ``type``, ``setattr``... (the index in
``hwlint.model.syntax.WordIndex``). Turning the index off (every node "names a word") must give the
same model, field for field: on every fixture, on the examples and on inputs where positions are
tricky (non-ASCII text, decorators above a nested def, a chain continued on the next line). The one
known difference is by design: a device string assembled from pieces (``"cu" "da"``) is no use, as
no text names it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hwlint.model import build as build_module
from hwlint.model import build_model, syntax
from hwlint.model import devices as model_module
from hwlint.model import noqa as noqa_module

from .conftest import EXAMPLES

FIXTURES = Path(__file__).parent / "fixtures"

TRICKY = {
    "non_ascii": """
class TestÜmlaut(TestCase):
    def test_a(self):
        x = "ä" * 3; y = torch.ones(1, device="cuda")  # ünïcode before the use on the same line
        self.assertEqual("é", "é")

    def test_b(self):
        return torch.zeros(1).cuda()  # ß
""",
    "decorated_nested": """
class TestNested(TestCase):
    def test_a(self):
        @skipIf(not TEST_CUDA, "needs cuda")
        def inner():
            pass
        inner()
""",
    "helpers": """
def _make():
    return torch.ones(1, device="xpu")


def _wrap():
    return _make()


class TestHelpers(TestCase):
    def helper(self):
        return _wrap()

    def test_a(self):
        self.helper()

    def test_b(self):
        myself.helper()
""",
    "split_words": """
class TestSplit(TestCase):
    def test_a(self):
        return torch.\\
cuda.synchronize()
""",
    "dynamic": """
def _add(cls):
    setattr(cls, "test_x", lambda self: None)


globals()["TestDyn"] = type("TestDyn", (TestCase,), {})
dtype_only = torch.float32
""",
    "noqa": """
import os  # noqa: F401
x = "# noqa"; import sys  # NOQA:HWC001
y = ("#", 1)  # noqa : HWC001


class TestN(TestCase if "#noqa" else object):  # noqa: HWC001
    hw_classification = HardwareClassification.GENERIC  # noqa
    text = \"\"\"
    # noqa: HWC001
    \"\"\"

    def test_a(self):  # noqa: HWC201,HWC004
        pass  # a comment # noqa
""",
}


def _sources() -> list[tuple[str, bytes]]:
    files = sorted(FIXTURES.glob("*.py")) + sorted(EXAMPLES.rglob("test_*.py"))
    return [(p.name, p.read_bytes()) for p in files] + [(k, v.encode()) for k, v in TRICKY.items()]


@pytest.mark.parametrize("taxonomy_name", ["taxonomy", "strict_taxonomy", "vendor_taxonomy"])
def test_index_changes_no_model(taxonomy_name, request, monkeypatch):
    taxonomy = request.getfixturevalue(taxonomy_name)
    sources = _sources()
    pruned = [repr(build_model(data, f"test_{name}.py", taxonomy)) for name, data in sources]
    monkeypatch.setattr(syntax.WordIndex, "names_word", lambda self, node: True)
    monkeypatch.setattr(syntax.WordIndex, "lines", lambda self, first, last: True)
    full = [repr(build_model(data, f"test_{name}.py", taxonomy)) for name, data in sources]
    assert pruned == full


@pytest.mark.parametrize("taxonomy_name", ["taxonomy", "strict_taxonomy", "vendor_taxonomy"])
def test_noqa_shortcuts_change_no_model(taxonomy_name, request, monkeypatch):
    """The lines saying noqa found in the lowered text, and a plain line's comment read without the
    tokenizer, give the model the tokenizer over every line gives."""
    taxonomy = request.getfixturevalue(taxonomy_name)
    sources = _sources()
    quick = [repr(build_model(data, f"test_{name}.py", taxonomy)) for name, data in sources]
    directives = build_model(TRICKY["noqa"], "test_noqa.py", taxonomy).noqa
    assert [d.line for d in directives] == [2, 3, 4, 7, 8, 13, 14]  # the case holds some to find
    monkeypatch.setattr(build_module, "rows_saying", lambda word, lowered, starts: None)
    monkeypatch.setattr(noqa_module, "_simple_comment", lambda text, col: None)
    slow = [repr(build_model(data, f"test_{name}.py", taxonomy)) for name, data in sources]
    assert quick == slow


def test_index_prunes(taxonomy, monkeypatch):
    """The index does prune: on a method full of code with one device use, the walk visits few nodes."""
    body = "\n".join(f"        self.assertEqual(compute({i}, [1, 2, 3]), expected[{i}])" for i in range(200))
    source = f"class TestBig(TestCase):\n    def test_a(self):\n{body}\n        torch.ones(1).cuda()\n"
    visited = []
    visit = model_module._DeviceUses.visit

    def counting(self, node, mode):
        visited.append(node)
        return visit(self, node, mode)

    monkeypatch.setattr(model_module._DeviceUses, "visit", counting)
    model = build_model(source, "test_big.py", taxonomy)
    assert [u.device for u in model.classes[0].device_uses] == ["cuda"]
    assert len(visited) < 20


def test_the_generic_runners_device_is_no_use_yet_still_guards(taxonomy):
    """A use of the generic runners' device (``cpu``: a test that moves a tensor to the CPU runs on
    every runner) is evidence of nothing, so the model records none and its word prunes nothing;
    a condition that names it still makes what it guards a guard."""
    assert taxonomy.generic_runner_devices() == {"cpu"}
    source = """
class TestMoves(TestCase):
    def test_a(self):
        x = torch.ones(1).cpu()
        y = torch.ones(1, device="cpu").to("cpu")

    def test_b(self):
        if self.device_type == "cpu":
            pass
        else:
            torch.ones(1).cuda()
"""
    test_a, test_b = build_model(source, "test_moves.py", taxonomy).classes[0].methods
    assert test_a.device_uses == ()
    assert [(u.device, u.kind, u.site.line) for u in test_b.device_uses] == [("cuda", "guard", 11)]


def _without_device_evidence(model):
    """*model* less what only the device scan fills."""
    from dataclasses import replace

    classes = tuple(
        replace(
            c,
            methods=tuple(replace(m, device_uses=(), calls=()) for m in c.methods),
            availability_checks=(),
            device_uses=(),
            shared_uses=(),
            test_uses=(),
            mentions=(),  # looked for only where the scan found a hard use
        )
        for c in model.classes
    )
    return replace(model, classes=classes)


@pytest.mark.parametrize("taxonomy_name", ["taxonomy", "strict_taxonomy", "vendor_taxonomy"])
def test_a_model_without_devices_differs_only_by_device_evidence(taxonomy_name, request):
    """The selector builds models without the device scan (it reads no device evidence): such a
    model is the full one less its device evidence, field for field."""
    taxonomy = request.getfixturevalue(taxonomy_name)
    sources = _sources()
    full = [build_model(data, f"test_{name}.py", taxonomy) for name, data in sources]
    bare = [build_model(data, f"test_{name}.py", taxonomy, devices=False) for name, data in sources]
    assert sum(len(c.device_uses) for m in full for c in m.classes) > 50
    assert not any(c.device_uses or c.test_uses for m in bare for c in m.classes)
    assert [repr(_without_device_evidence(m)) for m in full] == [repr(m) for m in bare]


def test_module_level_run_time_facts_are_found_however_they_are_spelled(taxonomy):
    """Classes created at run time and imports that may end early are searched for in the text of
    the module's statements other than its classes (whose bodies hold neither): a spelling with a
    space, or `quit()` alone, is found as surely as `type(` and `sys.exit(` next to other words."""
    source = (
        "class TestA(TestCase):\n"
        "    def test_a(self):\n"
        "        return globals()\n"
        "\n"
        'Built = type ("Built", (TestCase,), {})\n'
        "quit()\n"
    )
    model = build_model(source, "test_x.py", taxonomy)
    assert [(d.site.line, d.kind) for d in model.dynamic] == [(5, "type"), (6, "exit")]


def _naive_hits(text: str, words: list[str], whole: bool, spans: list[tuple[int, int]]) -> list[int]:
    found = []
    for word in set(words):
        if any(other in word for other in set(words) if other != word):
            continue
        for start, end in spans:
            for pos in range(start, end - len(word) + 1):
                if text.startswith(word, pos) and not (whole and syntax.after_word(text, pos)):
                    found.append(pos)
    return sorted(found)


def test_words_found_through_a_shared_anchor_are_every_occurrence():
    """Words sharing a substring are searched for once (`pu` for gpu, xpu, .hpu): the index holds
    every occurrence of every word a search per word finds, overlapping ones and those at the
    edges of the spans searched included."""
    rng = random.Random(7)
    alphabet = "gxhipuccdanl._ "
    vocabularies = [
        [".hpu", ".ipu", "gpu", "xpu", "cuda", "cudnn", "nccl", "xccl", "accelerator", "mps"],
        ["exit", "quit", "skip"],
        ["globals", "locals", "vars", "type", "exec"],
        ["aa", "aaa", "aab"],
    ]
    for case in range(300):
        words = vocabularies[case % len(vocabularies)]
        text = "".join(rng.choice(alphabet + "".join(words)) for _ in range(rng.randint(0, 120)))
        cut = sorted(rng.randint(0, len(text)) for _ in range(4))
        spans = [(0, len(text))] if case % 2 else [(cut[0], cut[1]), (cut[2], cut[3])]
        whole = case % 3 == 0
        index = syntax.WordIndex(text, ([0], [len(text)]), True, words, whole, spans)
        assert index.hits == _naive_hits(text, words, whole, spans), (text, words, spans, whole)
    # a word the edge of a span cuts is no occurrence, whichever end cuts it
    for text, spans, found in [
        ("xcudax", [(0, 4)], []),
        ("xcudax", [(0, 5)], [1]),
        ("cudnncuda", [(1, 9)], [5]),
    ]:
        index = syntax.WordIndex(text, ([0], [len(text)]), True, vocabularies[0], False, spans)
        assert index.hits == found == _naive_hits(text, vocabularies[0], False, spans)
    shared = [a for a, members in syntax._anchors(tuple(sorted(vocabularies[0]))) if len(members) > 1]
    assert shared == ["pu", "cc", "cud"]
