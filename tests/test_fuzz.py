"""No input makes hwlint raise: generated programs and mutated fixtures.

The default run is short. Run it long with (HWLINT_PROPERTY_EXAMPLES lengthens every property test):
    HWLINT_FUZZ_EXAMPLES=5000 python -m pytest tests/test_fuzz.py -q
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlint.fix.apply import fix_plan, plan_source
from hwlint.model import build_model
from hwlint.rules.check import check_path
from hwlint.rules.registry import RULES
from hwlint.select.replay import select_model
from hwlint.taxonomy import load_taxonomy

from .conftest import DEFAULT_TAXONOMY, STRICT_TAXONOMY, property_examples

hypothesmith = pytest.importorskip("hypothesmith")

EXAMPLES = int(os.environ.get("HWLINT_FUZZ_EXAMPLES", property_examples(25)))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
TAXONOMIES = [load_taxonomy(DEFAULT_TAXONOMY), load_taxonomy(STRICT_TAXONOMY)]
SEEDS = [p.read_bytes() for p in sorted((Path(__file__).parent / "fixtures").glob("HWC*.py"))]


def assert_sane(findings) -> None:
    for f in findings:
        assert f.code in RULES and f.code != "HWC900", f
        assert f.line >= 1 and f.col >= 0


def exercise(source: str | bytes, taxonomy) -> None:
    """The checker, the fixer (in memory, unsafe fixes included) and the selector, on one input."""
    assert_sane(check_path("test_fz.py", source, taxonomy)[0])
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    result = fix_plan(plan_source(data, "test_fz.py", taxonomy), taxonomy, unsafe=True)
    assert result.error is None or "would not compile" in result.error, result.error
    model = build_model(data, "test_fz.py", taxonomy)
    for runner in taxonomy.runners.values():
        select_model(model, taxonomy, runner, ("openreg",), include_unclassified=True)


@FUZZ
# deferred: building the grammar costs seconds, paid only by the process that runs this test
@pytest.mark.slow
@given(source=st.deferred(hypothesmith.from_grammar), strict=st.booleans())
def test_generated_programs(source: str, strict: bool):
    exercise(source, TAXONOMIES[strict])


@FUZZ
@given(
    seed=st.sampled_from(SEEDS),
    edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 40), st.binary(max_size=12)), max_size=6),
)
def test_mutated_fixtures(seed: bytes, edits):
    data = bytearray(seed)
    for pos, cut, insert in edits:
        pos %= len(data) + 1
        data[pos : pos + cut] = insert
    exercise(bytes(data), TAXONOMIES[0])


HOSTILE = [
    "class TestZ(TestCase):\n    def test_z(self, device): pass\n",
    "instantiate_device_type_tests(TestZ, globals(), only_for=X, except_for=('cpu',), allow_mps=Y)\n",
    "X = ('cuda',) + X\n",
    "class TestZCUDA(TestZ):\n"
    "    hw_classification = HardwareClassification.CUDA\n"
    "    def test_q(self): pass\n",
    "instantiate_device_type_tests(*args, **kwargs)\n",
    "class TestZ(TestZ):\n    hw_classification = HardwareClassification\n    def test_r(self): ...\n",
]


@FUZZ
@given(seed=st.sampled_from(SEEDS), lines=st.lists(st.sampled_from(HOSTILE), max_size=6))
def test_fixtures_with_hostile_statements_appended(seed: bytes, lines):
    source = seed.decode() + "\n" + "".join(lines)
    for taxonomy in TAXONOMIES:
        exercise(source, taxonomy)
