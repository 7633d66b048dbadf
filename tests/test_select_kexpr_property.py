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
# The same module names in several directories (qualified by directory names, issue 27), nested
# directories, and directory names that hold class or module names.
DIRS = ["", "foo", "testfoo", "nn", "testbar_dir", "foo/nn", "nn/foo", "jit", "distributed/jit", "ops"]
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


def items(cands, functions, above=()):
    """(names pytest gives the item, whether it belongs to a chosen class) per test; *above*: the
    directories between pytest's rootdir and ROOT when the rootdir lies higher up."""
    for c in cands:
        rel = os.path.relpath(os.path.dirname(c.path), ROOT)
        dirs = [*above] + ([] if rel == "." else rel.split(os.sep))
        for m in c.methods:
            for name in c.names:
                yield c, {*dirs, os.path.basename(c.path), name, m}
    for path, names in functions.items():
        rel = os.path.relpath(os.path.dirname(path), ROOT)
        dirs = [*above] + ([] if rel == "." else rel.split(os.sep))
        for n in names:
            yield None, {*dirs, os.path.basename(path), n}


@settings(max_examples=property_examples(100), deadline=None)
@given(suites(), st.booleans())
def test_exact_plans_select_exactly(suite, rootdir_above):
    """Exact means exact whether pytest's rootdir is the scanned directory or one above it."""
    cands, chosen, functions = suite
    plan = build(cands, chosen, functions, ROOT)
    if not plan.exact or not chosen:
        return
    expr = Expression.compile(plan.expression)
    chosen_ids = {id(c) for c in chosen}
    above = ("hwselect-property-root",) if rootdir_above else ()
    for owner, names in items(cands, functions, above):
        lowered = [n.lower() for n in names]
        got = expr.evaluate(lambda term, lowered=lowered, **kw: any(term.lower() in n for n in lowered))
        assert got == (owner is not None and id(owner) in chosen_ids), (plan.expression, owner, names)


def test_shared_module_names_are_exact_more_often_than_not():
    """Not a property but a floor: directory qualifiers make most suites of shared module names exact."""
    from hypothesis import HealthCheck

    exact = []

    @settings(
        max_examples=200,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=True,
    )
    @given(suites())
    def count(suite):
        cands, chosen, functions = suite
        paths = [c.path for c in cands]
        if chosen and len({os.path.basename(p) for p in paths}) < len(set(paths)):
            exact.append(build(cands, chosen, functions, ROOT).exact)

    count()
    assert exact and sum(exact) / len(exact) > 0.5, (sum(exact), len(exact))
