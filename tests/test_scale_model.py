"""One huge file costs time linear in its classes and calls, and memory within a cap."""

from __future__ import annotations

import gc
import time

import pytest

from hwlint.fix.apply import fix_plan, plan_source
from hwlint.fix.diff import unified_diff
from hwlint.model import MAX_PARSE_COST, build_model, parse_cost
from hwlint.rules.check import check_path
from hwlint.select.replay import select_model
from hwlint.select.runners import get_runner


def generated(classes: int) -> str:
    """A test file of *classes* device-generic classes, one in three instantiated (the shape of the
    50,000-class file that took 213 s to check and over 5 minutes to --diff)."""
    out = [
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests",
        "from torch.testing._internal.common_utils import TestCase, run_tests",
        "",
    ]
    for i in range(classes):
        out.append(f"class TestC{i}(TestCase):\n    def test_a(self, device):\n        x = 1  # noqa: E501\n")
        if i % 3 == 0:
            out.append(f"instantiate_device_type_tests(TestC{i}, globals())\n")
    return "\n".join(out)


def pipeline_seconds(source: str, taxonomy) -> float:
    """The fastest of three runs of everything a front end does with one file: check, plan and
    diff the fixes (what --fix, --diff and the lintrunner adapter do), select for a runner. CPU
    time: the suite's other workers share the cores, and a wall clock counts their turns too."""
    runner = get_runner(taxonomy, "cuda")
    best = float("inf")
    # The cycle collector is off, as in hwlint's workers: in a test process whose heap holds every
    # earlier test's objects, one full collection during the larger run would cost more than the run.
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            start = time.process_time()
            assert check_path("test_gen.py", source, taxonomy)[0]
            result = fix_plan(plan_source(source.encode(), "test_gen.py", taxonomy), taxonomy)
            assert unified_diff(result).count("\n+    hw_classification = ") > 0
            assert select_model(build_model(source, "test_gen.py", taxonomy), taxonomy, runner).candidates
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


@pytest.mark.slow  # models of generated files of growing size
def test_pipeline_is_linear_in_classes_and_calls(taxonomy):
    small = pipeline_seconds(generated(150), taxonomy)
    large = pipeline_seconds(generated(600), taxonomy)
    # 4x the classes and calls: about 4x the time when linear, 16x when quadratic
    assert large / small < 8, (small, large)


def test_parse_cost_is_capped_before_parsing(taxonomy):
    ones = "1\n" * (MAX_PARSE_COST // 4 + 1)  # 4 MB of this took 3.3 GB in CPython's parser
    start = time.perf_counter()
    [finding] = check_path("test_ones.py", ones, taxonomy)[0]
    assert time.perf_counter() - start < 1
    assert (finding.code, finding.line) == ("HWC901", 1)
    assert finding.message == (
        f"Cannot check file: the file is too large to parse safely ({parse_cost(ones):,} syntax units, "
        f"more than {MAX_PARSE_COST:,})."
    )
    assert parse_cost(generated(50_000)) < MAX_PARSE_COST  # the large generated file is still checked
