"""Shards balanced by time (issue 27 item 3, issue 48 item 4): the balance as a property, the
durations files pytest and pytest-split write, per test item, the estimate for tests without a
record, and the split at the test level checked through real pytest collection."""

from __future__ import annotations

import json
import statistics
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
    fast = next(c for c in sel.selected if c.name == "TestFast")
    assert sorted(durations.tests(fast)) == ["test_a", "test_b"]  # each item under its own name


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
    assert d.tests(foo) == {"test_a_cpu": 2.0, "test_b_cpu[float32]": 3.0}
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
    assert "hwselect cpu: 3 classes, 3 test items recorded, 1 estimated at" in proc.stderr
    assert sorted(e["estimated_items"] for e in include) == [0, 1]  # TestNew's one item, estimated
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
    inexact = {
        c.name: [t.name for t in c.test_items if not t.exact]
        for c in select_files(taxonomy, "cpu", [str(path)]).selected
    }
    assert inexact == {"TestExpCPU": ["test_ops"], "TestPlain": []}  # op_db: counted 1, an estimate
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


# -- the split at the test level, through real pytest (issue 48, item 4) ---------------------------

HUGE = {
    "test_huge.py": "class TestHuge(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n"
    + "".join(f"\n    def test_h{i:02d}(self):\n        pass\n" for i in range(12)),
    "test_small.py": "".join(
        f"\n\nclass TestSmall{k}(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n"
        f"\n    def test_s(self):\n        pass\n\n    def test_t(self):\n        pass\n"
        for k in range(4)
    ),
    "test_device.py": """
class TestDev(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_d(self, device):
        pass

    def test_e(self, device):
        pass


instantiate_device_type_tests(TestDev, globals())


class TestNew(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_unrecorded(self):
        pass
""",
}
# TestHuge: 12 tests of 1 s, half the total: no split into 3 with it whole comes near total / 3; its
# first item, the run's, took 0.5 s more (first use): every shard without it pays that again
RECORDS = {
    **{f"test_huge.py::TestHuge::test_h{i:02d}": 1.5 if i == 0 else 1.0 for i in range(12)},
    **{f"test_small.py::TestSmall{k}::test_{t}": 0.5 for k in range(4) for t in "st"},
    "test_device.py::TestDevCPU::test_d_cpu": 0.5,
    "test_device.py::TestDevCPU::test_e_cpu": 0.5,
}


@pytest.fixture(scope="module")
def huge(tmp_path_factory) -> Path:
    root = write_suite(tmp_path_factory.mktemp("huge"), HUGE)
    (root / ".test_durations").write_text(json.dumps(RECORDS))
    return root


def collected(root: Path, *args: str) -> list[str]:
    from tests.pytest_server import shared_server

    proc = shared_server().run(
        root, ["--collect-only", "-q", "-p", "no:randomly", *args], {"HW_DEVICE": "cpu"}
    )
    assert proc.returncode in (0, 5), proc.stdout + proc.stderr
    return [line for line in proc.stdout.splitlines() if "::" in line and not line.startswith("hwselect")]


@pytest.mark.slow
@pytest.mark.parametrize("n", [pytest.param(2, marks=pytest.mark.slow), 3])  # each collects n * 3 + 1 times
def test_shards_partition_the_selection_at_the_test_level(huge, n):
    """Through pytest: the plugin's shards are disjoint, their union is the runner's selection,
    the huge class is spread over shards, each entry of the matrix predicts its shard's items and
    seconds, hwselect's node ids of a shard collect the same items, and the split is the same
    run after run."""
    plugin = ["--hw-runner", "cpu", "--hw-durations", ".test_durations"]
    everything = collected(huge, "--hw-runner", "cpu")
    assert len(everything) == 12 + 8 + 2 + 1
    shards = [collected(huge, *plugin, "--hw-shard", f"{i}/{n}") for i in range(1, n + 1)]
    assert sorted(x for s in shards for x in s) == sorted(everything)  # disjoint, and the union
    assert sum(any("TestHuge" in x for x in s) for s in shards) >= 2  # the class is spread
    matrix = run_tool(
        "hwselect",
        "--format",
        "matrix",
        "--runners",
        "cpu",
        "--shards",
        str(n),
        "--durations",
        ".test_durations",
        cwd=huge,
    )
    assert matrix.returncode == 0, matrix.stderr
    include = json.loads(matrix.stdout)["include"]
    assert [e["items"] for e in include] == [len(s) for s in shards]
    recorded = {i: sum(v for k, v in RECORDS.items() if k in s) for i, s in enumerate(shards, 1)}
    median = statistics.median(RECORDS.values())  # 1.0 s: TestNew's one item is estimated at it
    for e in include:
        estimate = median * e["estimated_items"]
        again = 0.0 if any("test_h00" in x for x in shards[e["shard"] - 1]) else 0.5
        assert e["first_use_seconds"] == again
        assert e["seconds"] == pytest.approx(recorded[e["shard"]] + estimate + again, abs=0.06)
        assert e["pytest"][-4:] == ["--hw-shard", f"{e['shard']}/{n}", "--hw-durations", ".test_durations"]
    total = sum(RECORDS.values()) + median + 0.5 * (n - 1)
    assert max(e["seconds"] for e in include) <= 1.05 * max(total / n, 1.5)
    assert sum(e["estimated_items"] for e in include) == 1
    assert "classes spread over shards" in matrix.stderr or "class spread over shards" in matrix.stderr
    for i, shard in enumerate(shards, 1):  # hwselect's node ids name the plain tests of a split class
        ids = run_tool("hwselect", "cpu", "--shard", f"{i}/{n}", "--durations", ".test_durations", cwd=huge)
        assert ids.returncode == 0, ids.stderr
        (huge / f"ids{n}-{i}.txt").write_text(ids.stdout)
        assert sorted(collected(huge, f"@ids{n}-{i}.txt")) == sorted(shard)
    assert [collected(huge, *plugin, "--hw-shard", f"{i}/{n}") for i in range(1, n + 1)] == shards


def test_without_durations_items_are_balanced_and_marked_estimated(huge):
    """No record: every item is an estimate (counted statically, exactly here) and the summary
    says so; the shards still partition the selection."""
    matrix = run_tool("hwselect", "--format", "matrix", "--runners", "cpu", "--shards", "2", cwd=huge)
    include = json.loads(matrix.stdout)["include"]
    assert [e["seconds"] for e in include] == [None, None]
    assert sum(e["estimated_items"] for e in include) == sum(e["items"] for e in include) == 23
    assert "hwselect cpu: 7 classes, 23 test items (counted statically)" in matrix.stderr
    shards = [collected(huge, "--hw-runner", "cpu", "--hw-shard", f"{i}/2") for i in (1, 2)]
    assert [len(s) for s in shards] == [e["items"] for e in include]


def test_a_part_hwselect_cannot_name_sends_the_user_to_the_plugin(tmp_path, taxonomy):
    """A class spread over shards whose tests expand (dtypes) has no sure node id per part."""
    from hwlint.select.records import TestExpansion
    from hwlint.select.shards import Unit

    c = Candidate(
        "test_x.py",
        ("TestXCPU",),
        "selected",
        None,
        None,
        None,
        generic="TestX",
        methods=("test_a_cpu", "test_b_cpu"),
        test_items=(TestExpansion("test_a", 3, True, False), TestExpansion("test_b", 1, True, True)),
    )
    assert Unit(c, "test_b", None, 1.0, 1, 1, True, plain=True).nodeids() == [
        "test_x.py::TestXCPU::test_b_cpu"
    ]
    assert Unit(c, "test_a", None, 3.0, 3, 3, True).nodeids() is None  # test_a_cpu_float32...
    assert Unit(c, "test_a", "test_a_cpu_float32", 1.0, 1, 0, True, ("test_a_cpu_float32",)).nodeids() is None


def test_items_go_to_their_test_by_the_longest_name():
    from hwlint.select.shards import owning_test

    tests = ["test_add", "test_add_out", "test_x"]
    assert owning_test("test_add_cpu_float32", tests) == "test_add"
    assert owning_test("test_add_out_cpu", tests) == "test_add_out"
    assert owning_test("test_x[1-2]", tests) == "test_x"
    assert owning_test("test_xy", tests) is None


def test_junit_files_merge_and_the_last_record_wins(tmp_path):
    for name, seconds in (("a.xml", 1.0), ("b.xml", 4.0)):
        (tmp_path / name).write_text(
            '<testsuites><testsuite><testcase classname="sub.test_m.TestM" name="test_x_cpu" '
            f'time="{seconds}"/><testcase classname="sub.test_m.TestM" name="test_{name[0]}" time="1"/>'
            "</testsuite></testsuites>"
        )
    d = load_durations([str(tmp_path / "a.xml"), str(tmp_path / "b.xml")])
    c = Candidate("sub/test_m.py", ("TestM",), "selected", None, None, None)
    assert d.tests(c) == {"test_x_cpu": 4.0, "test_a": 1.0, "test_b": 1.0}


def test_the_plan_is_the_same_whatever_the_order_of_the_classes():
    from hwlint.select.durations import Durations
    from hwlint.select.records import TestExpansion

    d = Durations()
    cands = []
    for k in range(6):
        tests = tuple(TestExpansion(f"test_{j}", 1, True, True) for j in range(5))
        cands.append(Candidate(f"test_{k}.py", (f"T{k}",), "selected", None, None, None, test_items=tests))
        for j in range(5):
            d.add((f"test_{k}",), f"T{k}", float(k * 5 + j + 1), f"test_{j}")
    one = plan_shards(cands, 4, d)
    two = plan_shards(list(reversed(cands)), 4, d)
    assert [[(u.candidate.name, u.test, u.item) for u in p] for p in one.parts] == [
        [(u.candidate.name, u.test, u.item) for u in p] for p in two.parts
    ]
    assert max(one.seconds) <= 1.05 * one.bound


def test_items_count_itertools_product_and_list(tmp_path, taxonomy):
    path = tmp_path / "test_prod.py"
    path.write_text(
        textwrap.dedent(
            """
            class TestProd(TestCase):
                hw_classification = HardwareClassification.ACCELERATOR

                @dtypes(*itertools.product((torch.bool, torch.int, torch.float), repeat=2))
                def test_pairs(self, device, dtypes): ...

                @dtypes(*list(itertools.product(floating_types(), (torch.int8, torch.int16))))
                def test_mixed(self, device, dtypes): ...

                @dtypes(*itertools.product(some_list, repeat=2))
                def test_unknown(self, device, dtypes): ...

            instantiate_device_type_tests(TestProd, globals())
            """
        )
    )
    (c,) = select_files(taxonomy, "cpu", [str(path)]).selected
    assert [(t.name, t.items, t.exact, t.plain) for t in c.test_items] == [
        ("test_pairs", 9, True, False),
        ("test_mixed", 4, True, False),
        ("test_unknown", 1, False, False),
    ]
    assert not c.items_exact


# -- first-use costs: paid again by a shard that runs a scope without the item that paid it ----------


def _recorded(records: list[tuple[str, str, str, float]]):
    """Durations in record order (path, class, item, seconds) and the classes they name."""
    from hwlint.select.durations import Durations
    from hwlint.select.records import TestExpansion

    d = Durations()
    tests: dict[tuple[str, str], list[str]] = {}
    for path, cls, item, seconds in records:
        d.add(module_components(path), cls, seconds, item)
        tests.setdefault((path, cls), []).append(item)
    cands = [
        Candidate(
            path,
            (cls,),
            "selected",
            None,
            None,
            None,
            test_items=tuple(TestExpansion(t, 1, True, True) for t in ts),
        )
        for (path, cls), ts in tests.items()
    ]
    return d, cands


def test_the_first_item_of_a_scope_carries_its_first_use_cost():
    """The excess of a class's first recorded item over the class's median belongs to the widest
    scope it opened: the run's first class, a module's first class, or the class alone."""
    from hwlint.select.shards import FirstUse, first_uses

    d, cands = _recorded(
        [
            ("test_a.py", "TestA1", "test_x", 0.5),  # the run's first item: 0.4 s over its class's median
            ("test_a.py", "TestA1", "test_y", 0.1),
            ("test_a.py", "TestA1", "test_z", 0.1),
            ("test_a.py", "TestA2", "test_x", 2.0),  # setUpClass: 1.5 s over
            ("test_a.py", "TestA2", "test_y", 0.5),
            ("test_a.py", "TestA2", "test_z", 0.5),
            ("test_b.py", "TestB", "test_x", 1.0),  # the module's first: 0.9 s over
            ("test_b.py", "TestB", "test_y", 0.1),
            ("test_b.py", "TestB", "test_z", 0.1),
        ]
    )
    firsts = {c.name: f for c in cands if (f := first_uses(cands, d).get(id(c)))}
    assert firsts == {
        "TestA1": FirstUse("test_x", pytest.approx(0.4), "run", "test_a.py"),
        "TestA2": FirstUse("test_x", pytest.approx(1.5), "class", "test_a.py"),
        "TestB": FirstUse("test_x", pytest.approx(0.9), "module", "test_b.py"),
    }


def test_a_shard_pays_again_the_first_use_costs_of_what_it_runs_without_their_first_item():
    """Two shards of one module: the shard without the run's first item pays the run's cost, the
    class spread over both pays its setUpClass again on the side without its first item, and the
    shards' predicted seconds are their items' plus those costs."""
    records = [
        ("test_a.py", "TestSmall", t, s) for t, s in (("test_s", 0.3), ("test_t", 0.1), ("test_u", 0.1))
    ]
    records += [("test_a.py", "TestA", "test_00", 3.0)]  # setUpClass: 2 s over the median item
    records += [("test_a.py", "TestA", f"test_{i:02d}", 1.0) for i in range(1, 12)]
    d, cands = _recorded(records)
    plan = plan_shards(cands, 2, d)
    assert any(c.name == "TestA" and id(c) in plan.spread() for c in cands)  # 14 s: near 14.5 / 2 only so
    items = [sum(u.seconds for u in part) for part in plan.parts]
    holds_first = [
        any("test_00" in u.recorded or u.whole for u in part if u.candidate.name == "TestA")
        for part in plan.parts
    ]
    runs_first = [
        any(u.candidate.name == "TestSmall" and (u.whole or "test_s" in u.recorded) for u in part)
        for part in plan.parts
    ]
    expected = [2.0 * (not a) + 0.2 * (not b) for a, b in zip(holds_first, runs_first, strict=True)]
    assert plan.first_use == pytest.approx(expected)
    assert sum(plan.first_use) == pytest.approx(2.0 + 0.2 * (not all(runs_first)))
    assert plan.seconds == pytest.approx([i + a for i, a in zip(items, plan.first_use, strict=True)])
    assert max(plan.seconds) <= 8.5  # 14.5 s, plus 2.2 s paid again, in two: 8.35 at best


def test_a_class_stays_whole_where_spreading_it_pays_its_setup_again_for_nothing():
    """Spreading TestA would shorten the items' longest shard (6 against 7 s) but pay its 3 s
    setUpClass again: the plan keeps it whole."""
    records = [("test_a.py", "TestB", "test_x", 5.0), ("test_a.py", "TestA", "test_00", 4.0)]
    records += [("test_a.py", "TestA", f"test_{i:02d}", 1.0) for i in range(1, 4)]
    d, cands = _recorded(records)
    plan = plan_shards(cands, 2, d)
    assert plan.spread() == set()
    assert sorted(plan.seconds) == pytest.approx([5.0, 7.0])


def test_a_spread_class_is_in_json_by_node_ids_and_refused_where_a_format_cannot_name_tests(huge):
    """``--shard`` spreads TestHuge over shards: json carries the node ids of its tests in each
    shard (the file's expression goes null), the node ids match the nodeids format's, and k and
    files exit 2 saying why they cannot name a part of a class."""
    common = ["cpu", "--shard", "1/3", "--durations", ".test_durations"]
    ids = run_tool("hwselect", *common, cwd=huge)
    assert ids.returncode == 0, ids.stderr
    doc = run_tool("hwselect", *common, "--format", "json", cwd=huge)
    assert doc.returncode == 0, doc.stderr
    data = json.loads(doc.stdout)
    (huge_file,) = [f for f in data["files"] if f["path"] == "test_huge.py"]
    (cls,) = huge_file["classes"]
    assert cls["nodeids"] and all(n.startswith("test_huge.py::TestHuge::test_h") for n in cls["nodeids"])
    assert len(cls["nodeids"]) < 12  # a part of its 12 tests
    assert huge_file["expression"] is None and data["expression"] is None
    assert any(x["nodeid"] == "test_huge.py::TestHuge" for x in data["inexact"])
    whole = [c for f in data["files"] for c in f["classes"] if c["nodeids"] is None]
    listed = sorted(
        [f"{f['path']}::{c['name']}" for f in data["files"] for c in f["classes"] if c["nodeids"] is None]
        + cls["nodeids"]
    )
    assert listed == sorted(ids.stdout.split()) and whole  # the same shard as the node ids
    for fmt, why in (
        ("k", "a -k expression matches names, not node ids"),
        ("files", "a file runs every test"),
    ):
        proc = run_tool("hwselect", *common, "--format", fmt, cwd=huge)
        assert proc.returncode == 2 and why in proc.stderr, proc.stderr
        assert "pytest . --hw-runner cpu --hw-shard 1/3 --hw-durations .test_durations" in proc.stderr
