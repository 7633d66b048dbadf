"""Shards balanced by time (issue 27, item 3): the balance as a property, the durations files pytest
and pytest-split write, and the estimate for classes without a record."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwlint.select.durations import load_durations, module_components
from hwlint.select.records import Candidate
from hwlint.select.runners import select_files
from hwlint.select.shards import MAX_SHARDS, lower_bound, plan_shards, split
from tests.conftest import property_examples, run_tool
from tests.select_suite import write_suite

weights_st = st.lists(st.floats(min_value=0.001, max_value=1000, allow_nan=False), min_size=1, max_size=300)


def loads(weights, assignment, n):
    out = [0.0] * n
    for w, k in zip(weights, assignment, strict=True):
        out[k] += w
    return out


@settings(max_examples=property_examples(200), deadline=None)
@given(weights_st, st.integers(1, 64))
def test_longest_shard_is_within_the_largest_class_of_the_mean(weights, n):
    """Always: longest <= total / N + largest (list scheduling's bound)."""
    assignment = split(weights, n)
    assert len(assignment) == len(weights) and all(0 <= k < n for k in assignment)
    longest = max(loads(weights, assignment, n))
    assert longest <= sum(weights) / n + max(weights) + 1e-6
    assert longest >= lower_bound(weights, n) - 1e-6
    assert split(weights, n) == assignment  # the same split on every CI job


@pytest.mark.slow  # a property over 200 drawn splits
@settings(max_examples=property_examples(200), deadline=None)
@given(st.integers(1, 32), st.data())
def test_when_no_class_dominates_the_longest_shard_is_within_5_percent(n, data):
    """The promise: largest <= 5% of total / N  =>  longest <= 1.05 * max(total / N, largest)."""
    count = data.draw(st.integers(20 * n, 60 * n))
    weights = data.draw(st.lists(st.floats(0.01, 100, allow_nan=False), min_size=count, max_size=count))
    if max(weights) > 0.05 * sum(weights) / n:
        return
    longest = max(loads(weights, split(weights, n), n))
    assert longest <= 1.05 * lower_bound(weights, n) + 1e-9


def test_one_dominating_class_gets_a_shard_of_its_own():
    weights = [100.0] + [1.0] * 50
    longest = max(loads(weights, split(weights, 4), 4))
    assert longest == pytest.approx(100.0)  # the bound is the largest class; the rest fits beside it


def test_the_shard_count_is_bounded():
    from hwlint.select.records import SelectionError

    with pytest.raises(SelectionError, match="between 1 and 10,000"):
        split([1.0], MAX_SHARDS + 1)


# -- durations files ----------------------------------------------------------------------------

SUITE = {
    "sub/test_timed.py": """
class TestFast(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_a(self):
        pass

    def test_b(self):
        pass


class TestSlow(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_s(self):
        import time
        time.sleep(0.3)
""",
    "test_unrecorded.py": """
class TestNew(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_n(self):
        pass
""",
}


@pytest.fixture(scope="module")
def timed(tmp_path_factory) -> Path:
    root = write_suite(tmp_path_factory.mktemp("timed"), SUITE)
    env = {"PATH": "/usr/bin:/bin", "HW_DEVICE": "cpu", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "--junitxml=run.xml",
            "sub/test_timed.py",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root


def test_junit_xml_from_pytest_is_read_per_class(timed, taxonomy):
    durations = load_durations([str(timed / "run.xml")])
    sel = select_files(taxonomy, "cpu", [str(timed / p) for p in SUITE])
    by_name = {c.name: durations.recorded(c) for c in sel.selected}
    assert by_name["TestSlow"] >= 0.3
    assert by_name["TestFast"] is not None and by_name["TestFast"] < 0.3
    assert by_name["TestNew"] is None  # no record: estimated
    assert len(durations.per_item) == 3


def test_pytest_split_durations_match_whatever_the_rootdir(tmp_path):
    """Records made with the rootdir at the repository root match paths given from test/."""
    (tmp_path / ".test_durations").write_text(
        json.dumps(
            {
                "test/inductor/test_foo.py::TestFooCPU::test_a_cpu": 2.0,
                "test/inductor/test_foo.py::TestFooCPU::test_b_cpu[float32]": 3.0,
                "test/test_bar.py::TestBar::test_c": 0.5,
                "test/test_bar.py::test_function": 9.0,
            }
        )
    )
    d = load_durations([str(tmp_path / ".test_durations")])
    foo = Candidate("inductor/test_foo.py", ("TestFooCPU",), "selected", None, None, None)
    other = Candidate("jit/test_foo.py", ("TestFooCPU",), "selected", None, None, None)
    assert d.recorded(foo) == 5.0
    assert d.recorded(other) == 5.0  # same module name: the longest common tail wins, here the name
    assert d.recorded(Candidate("test/test_bar.py", ("TestBar",), "selected", None, None, None)) == 0.5
    assert module_components("./test/inductor/test_foo.py") == ("test", "inductor", "test_foo")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not durations", "neither JUnit XML"),
        ("<testsuites><testcase", "not well-formed XML"),
        ("[1, 2]", "neither"),
    ],
)
def test_a_bad_durations_file_is_a_usage_error(tmp_path, content, message):
    write_suite(tmp_path, {"test_one.py": SUITE["test_unrecorded.py"]})
    (tmp_path / "d.txt").write_text(content)
    proc = run_tool("hwselect", "cpu", "--shard", "1/2", "--durations", "d.txt", cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_matrix_carries_predicted_seconds(timed):
    proc = run_tool(
        "hwselect",
        "--format",
        "matrix",
        "--runners",
        "cpu",
        "--shards",
        "2",
        "--durations",
        "run.xml",
        cwd=timed,
    )
    assert proc.returncode == 0, proc.stderr
    include = json.loads(proc.stdout)["include"]
    assert [e["shard"] for e in include] == [1, 2]
    assert all("seconds" in e for e in include)
    slow = next(e for e in include if e["seconds"] >= 0.3)
    assert slow["classes"] == 1  # the slow class alone; the fast ones and the estimate share the other
    assert "hwselect cpu: durations recorded for 2 of 3 classes, 1 estimated at" in proc.stderr
    one = run_tool("hwselect", "cpu", "--shard", "1/2", "--durations", "run.xml", cwd=timed).stdout.split()
    two = run_tool("hwselect", "cpu", "--shard", "2/2", "--durations", "run.xml", cwd=timed).stdout.split()
    assert sorted(one + two) == sorted(
        ["sub/test_timed.py::TestFast", "sub/test_timed.py::TestSlow", "test_unrecorded.py::TestNew"]
    )
    assert ("sub/test_timed.py::TestSlow" in one) != ("sub/test_timed.py::TestSlow" in two)


# -- the estimate: items the decorators expand into ----------------------------------------------


def test_items_count_dtypes_parametrize_and_ops(tmp_path, taxonomy):
    path = tmp_path / "test_expand.py"
    path.write_text(
        textwrap.dedent(
            """
            class TestExp(TestCase):
                hw_classification = HardwareClassification.ACCELERATOR

                @dtypes(torch.float32, torch.float64)
                def test_two(self, device, dtype): ...

                @dtypes(*floating_types_and(torch.half, torch.bfloat16))
                @dtypesIfCUDA(torch.float16)
                def test_helper(self, device, dtype): ...

                @parametrize("x", [1, 2, 3])
                @parametrize("y", range(2))
                def test_grid(self, device, x, y): ...

                @ops(op_db)
                def test_ops(self, device, op): ...

                @ops([op_a, op_b])
                @dtypes(torch.int8, torch.int16, torch.int32)
                def test_ops_list(self, device, dtype, op): ...

                def test_plain(self, device): ...

            instantiate_device_type_tests(TestExp, globals())

            class TestPlain(TestCase):
                hw_classification = HardwareClassification.GENERIC

                @parametrize("z", ["a", "b"])
                def test_p(self, z): ...

                @dtypes(torch.float32, torch.float64)  # not instantiated: dtypes make no items
                def test_d(self): ...
            """
        )
    )
    cpu = {c.name: c.items for c in select_files(taxonomy, "cpu", [str(path)]).selected}
    # 2 + 4 (floating_types_and: 2 + 2) + 6 + 1 (op_db: not countable) + 2 * 3 + 1
    assert cpu == {"TestExpCPU": 20, "TestPlain": 3}
    cuda = {c.name: c.items for c in select_files(taxonomy, "cuda", [str(path)]).selected}
    assert cuda == {"TestExpCUDA": 2 + 1 + 6 + 1 + 6 + 1}  # dtypesIfCUDA wins on cuda


def test_estimates_scale_the_median_by_items():
    from hwlint.select.durations import Durations

    d = Durations()
    for s in (1.0, 2.0, 3.0):
        d.add(("test_a",), "TestRecorded", s)
    rec = Candidate("test_a.py", ("TestRecorded",), "selected", None, None, None, tests=3, items=3)
    new = Candidate("test_b.py", ("TestNew",), "selected", None, None, None, tests=2, items=10)
    plan = plan_shards([rec, new], 2, d)
    assert sorted(plan.seconds) == [6.0, 20.0]  # recorded 6 s; 10 items at the 2 s median
    assert (plan.recorded, plan.estimated, plan.per_item) == (1, 1, 2.0)
