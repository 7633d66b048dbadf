"""Property: whenever the -k builder calls its expression exact, pytest's own evaluator agrees.

Class, module, directory and test names are drawn from a tiny vocabulary so that substring
collisions (TestFoo / TestFooBar / Foo inside test_foo.py / testfoo directories) are the norm.
Each item is evaluated with the names pytest gives it: directories below the rootdir, the module
file name, the class name and the test name.

Long mode (more examples):
``HWLINT_PROPERTY_EXAMPLES=5000 python -m pytest tests/test_select_kexpr_property.py``.
"""

from __future__ import annotations

import os

from _pytest.mark.expression import Expression
from hypothesis import given, settings
from hypothesis import strategies as st

from hwlint.select.kexpr import build
from hwlint.select.records import Candidate

from .conftest import property_examples

ROOT = "/tmp/hwselect-property-root"
DIRS = ["", "foo", "testfoo", "nn", "testbar_dir"]
MODULES = ["test_foo.py", "test_bar.py", "test_foobar.py", "test_ops.py"]
CLASSES = ["TestFoo", "TestFooBar", "TestFooCUDA", "Foo", "Bar", "TestBar", "TestOps", "TestOpsCPU", "Ops"]
METHODS = ["test_a", "test_foo", "test_bar_cuda", "test_ops"]


@st.composite
def suites(draw):
    files = draw(
        st.lists(
            st.tuples(st.sampled_from(DIRS), st.sampled_from(MODULES)), min_size=1, max_size=4, unique=True
        )
    )
    cands, chosen, functions = [], [], {}
    for d, m in files:
        path = os.path.join(ROOT, d, m)
        names = draw(st.lists(st.sampled_from(CLASSES), min_size=1, max_size=5, unique=True))
        for name in names:
            methods = tuple(draw(st.lists(st.sampled_from(METHODS), min_size=1, max_size=2, unique=True)))
            # a PrivateUse1 class has two possible names; the item carries one of them
            alt = (name + "PRIVATEUSE1", name + "OPENREG") if draw(st.integers(0, 4)) == 0 else (name,)
            c = Candidate(path, alt, "selected", None, None, None, methods=methods)
            cands.append(c)
            if draw(st.booleans()):
                chosen.append(c)
        if draw(st.booleans()):
            functions[path] = [draw(st.sampled_from(["test_helper", "test_foo", "test_ops"]))]
    return cands, chosen, functions


def items(cands, functions):
    """(names pytest gives the item, whether it belongs to a chosen class) per test."""
    for c in cands:
        rel = os.path.relpath(os.path.dirname(c.path), ROOT)
        dirs = [] if rel == "." else rel.split(os.sep)
        for m in c.methods:
            for name in c.names:
                yield c, {*dirs, os.path.basename(c.path), name, m}
    for path, names in functions.items():
        rel = os.path.relpath(os.path.dirname(path), ROOT)
        dirs = [] if rel == "." else rel.split(os.sep)
        for n in names:
            yield None, {*dirs, os.path.basename(path), n}


@settings(max_examples=property_examples(100), deadline=None)
@given(suites())
def test_exact_plans_select_exactly(suite):
    cands, chosen, functions = suite
    plan = build(cands, chosen, functions)
    if not plan.exact or not chosen:
        return
    expr = Expression.compile(plan.expression)
    chosen_ids = {id(c) for c in chosen}
    for owner, names in items(cands, functions):
        lowered = [n.lower() for n in names]
        got = expr.evaluate(lambda term, lowered=lowered, **kw: any(term.lower() in n for n in lowered))
        assert got == (owner is not None and id(owner) in chosen_ids), (plan.expression, owner, names)
