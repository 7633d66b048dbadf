"""The selector API, the summary, explain, matrix/shards and the -k builder's invariants."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from hwlint.select.explain import explain
from hwlint.select.kexpr import FANOUT, balanced_or, build, is_term
from hwlint.select.records import SELECTED
from hwlint.select.runners import select_files
from hwlint.select.shards import plan_shards
from tests.conftest import DEFAULT_TAXONOMY, run_tool

ACC = "hw_classification = HardwareClassification.ACCELERATOR"


def write(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return str(path)


def statuses(sel) -> dict[str, str]:
    return {c.name: c.status for c in sel.candidates}


def test_statuses_and_summary(taxonomy, tmp_path):
    path = write(
        tmp_path,
        "test_a.py",
        f"""
        class TestAcc(TestCase):
            {ACC}
            def test_x(self, device): ...

        instantiate_device_type_tests(TestAcc, globals())

        class TestGen(TestCase):
            hw_classification = HardwareClassification.GENERIC
            def test_y(self): ...

        class TestNone(TestCase):
            def test_z(self): ...

        class TestDynamic(TestCase):
            hw_classification = pick()
            def test_w(self): ...
        """,
    )
    sel = select_files(taxonomy, "cuda", [path])
    assert statuses(sel) == {
        "TestAccCUDA": "selected",
        "TestGen": "mismatched",
        "TestNone": "unclassified",
        "TestDynamic": "unplaced",
    }
    assert sel.summary() == (
        "hwselect cuda (device cuda, runs [ACCELERATOR, CUDA]): total=4, selected=1, unclassified=1, "
        "mismatched=1, unplaced=1 classes; 1 test item in 1 file"
    )
    assert [str(w) for w in sel.warnings] == [
        f"{path}::TestDynamic: hw_classification = pick() (line 16) is not a static enum member"
    ]
    assert statuses(select_files(taxonomy, "cuda", [path], include_unclassified=True))["TestNone"] == SELECTED


def test_mixins_and_generated_classes_without_tests_are_not_collected(taxonomy, tmp_path):
    path = write(
        tmp_path,
        "test_b.py",
        f"""
        class _Mixin:
            {ACC}
            def test_m(self): ...

        class TestEmpty(TestCase):
            {ACC}

        instantiate_device_type_tests(TestEmpty, globals())

        class TestUsesMixin(_Mixin, TestCase):
            pass
        """,
    )
    sel = select_files(taxonomy, "cpu", [path])
    assert statuses(sel) == {"TestUsesMixin": "selected"}


def test_unresolvable_filter_and_foreign_generic_are_reported(taxonomy, tmp_path):
    path = write(
        tmp_path,
        "test_c.py",
        f"""
        from other import TestImported

        class TestDyn(TestCase):
            {ACC}
            def test_d(self, device): ...

        instantiate_device_type_tests(TestDyn, globals(), only_for=get_devices())
        instantiate_device_type_tests(TestImported, globals())
        """,
    )
    sel = select_files(taxonomy, "cpu", [path])
    assert statuses(sel) == {"TestDynCPU": "selected", "TestImportedCPU": "unplaced"}
    assert [str(w) for w in sel.warnings] == [
        f"{path}::TestDynCPU: only_for=get_devices() (line 8) cannot be resolved statically; "
        "selected in case it generates cpu",
        f"{path}::TestImportedCPU: TestImported is not defined in this file, so its classification "
        "is unknown here",
    ]


def test_unresolvable_filter_on_a_class_not_selected_says_so(taxonomy, tmp_path):
    path = write(
        tmp_path,
        "test_u.py",
        """
        class TestPlain(TestCase):
            def test_p(self, device): ...

        class TestCuda(TestCase):
            hw_classification = HardwareClassification.CUDA
            def test_c(self, device): ...

        instantiate_device_type_tests(TestPlain, globals(), only_for=get_devices())
        instantiate_device_type_tests(TestCuda, globals(), except_for=SKIP)
        """,
    )
    sel = select_files(taxonomy, "cpu", [path])
    assert statuses(sel) == {"TestPlainCPU": "unclassified", "TestCudaCPU": "mismatched"}
    assert [str(w) for w in sel.warnings] == [
        f"{path}::TestPlainCPU: only_for=get_devices() (line 9) cannot be resolved statically; "
        "not selected either way: the class is unclassified, so the runtime's filter drops it",
        f"{path}::TestCudaCPU: except_for=SKIP (line 10) cannot be resolved statically; "
        "not selected either way: runner cpu does not run CUDA",
    ]


def test_matrix_with_a_positional_runner_points_at_runners(tmp_path):
    (tmp_path / "test_a.py").write_text("class TestA:\n    def test_x(self):\n        pass\n")
    res = run_tool("hwselect", "cuda", "--format", "matrix", ".", cwd=tmp_path)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == (
        "hwselect: error: --format matrix takes its runners from --runners, not a positional RUNNER: "
        "use `hwselect --format matrix --runners cuda [PATH ...]`\n"
    )


def test_empty_selection_exits_3_and_says_why(tmp_path):
    write(
        tmp_path,
        "test_d.py",
        f"""
        class TestA(TestCase):
            {ACC}
            def test_a(self, device): ...

        instantiate_device_type_tests(TestA, globals())

        class TestB(TestCase):
            hw_classification = HardwareClassification.CUDA
            def test_b(self): ...

        instantiate_device_type_tests(TestB, globals(), only_for="cuda")
        """,
    )
    proc = run_tool("hwselect", "mps", ".", cwd=tmp_path)
    assert proc.returncode == 3
    assert proc.stdout == ""
    assert proc.stderr.splitlines()[-3:] == [
        "hwselect: runner mps selects nothing:",
        "  - 1 instantiated class generates nothing for mps: test_d.py::TestB: "
        'only_for="cuda" leaves out mps (line 12)',
        "  - 1 instantiated class generates nothing for mps: test_d.py::TestA: allow_mps=True is not passed "
        "(line 6)",
    ]


def test_unknown_runner_is_a_usage_error(tmp_path):
    proc = run_tool("hwselect", "tpu", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert (
        "unknown runner 'tpu' (the taxonomy defines: cpu, cuda, rocm, mps, xpu, privateuse1)" in proc.stderr
    )


def test_explain(taxonomy, tmp_path):
    path = write(
        tmp_path,
        "test_e.py",
        f"""
        class Base(TestCase):
            {ACC}

        class TestE(Base):
            def test_e(self, device): ...

        instantiate_device_type_tests(TestE, globals(), except_for="cuda")
        """,
    )
    assert explain(taxonomy, "cpu", path, "TestECPU").lines == [
        f"RUNS: {path}::TestECPU on runner cpu (device cpu): selected.",
        "  generated by instantiate_device_type_tests(TestE, ...) at line 8 for cpu; "
        "the generic class TestE itself is not collected.",
        "  classification ACCELERATOR, declared in base class Base.",
        "  runner cpu runs GENERIC, ACCELERATOR, CPU.",
    ]
    assert explain(taxonomy, "cuda", path, "TestE").lines == [
        f'NOT RUN: {path}::TestE generates no class for cuda on runner cuda: except_for="cuda" names cuda '
        "(line 8).",
    ]
    proc = run_tool("hwselect", "explain", "cuda", "test_e.py::TestECUDA", cwd=tmp_path)
    assert proc.returncode == 3
    assert proc.stdout.startswith("NOT RUN: test_e.py::TestE generates no class for cuda")


def test_matrix_and_shards(tmp_path):
    body = "\n".join(
        f"class TestM{i}(TestCase):\n    {ACC}\n"
        + "".join(f"    def test_{j}(self, device): ...\n" for j in range(i + 1))
        + f"instantiate_device_type_tests(TestM{i}, globals())\n"
        for i in range(5)
    )
    write(tmp_path, "test_m.py", body)
    proc = run_tool(
        "hwselect", "--format", "matrix", "--runners", "cpu,cuda,mps", "--shards", "2", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    # 5 classes with 1..5 tests, largest first onto the lighter shard: 5+2+1 / 4+3
    assert json.loads(proc.stdout) == {
        "include": [
            {
                "runner": "cpu",
                "device": "cpu",
                "shard": 1,
                "shards": 2,
                "classes": 3,
                "split_classes": 0,
                "items": 8,
                "estimated_items": 8,
                "exact_items": True,
                "files": 1,
                "seconds": None,
                "first_use_seconds": None,
                "pytest": [".", "--hw-runner", "cpu", "--hw-shard", "1/2"],
            },
            {
                "runner": "cpu",
                "device": "cpu",
                "shard": 2,
                "shards": 2,
                "classes": 2,
                "split_classes": 0,
                "items": 7,
                "estimated_items": 7,
                "exact_items": True,
                "files": 1,
                "seconds": None,
                "first_use_seconds": None,
                "pytest": [".", "--hw-runner", "cpu", "--hw-shard", "2/2"],
            },
            {
                "runner": "cuda",
                "device": "cuda",
                "shard": 1,
                "shards": 2,
                "classes": 3,
                "split_classes": 0,
                "items": 8,
                "estimated_items": 8,
                "exact_items": True,
                "files": 1,
                "seconds": None,
                "first_use_seconds": None,
                "pytest": [".", "--hw-runner", "cuda", "--hw-shard", "1/2"],
            },
            {
                "runner": "cuda",
                "device": "cuda",
                "shard": 2,
                "shards": 2,
                "classes": 2,
                "split_classes": 0,
                "items": 7,
                "estimated_items": 7,
                "exact_items": True,
                "files": 1,
                "seconds": None,
                "first_use_seconds": None,
                "pytest": [".", "--hw-runner", "cuda", "--hw-shard", "2/2"],
            },
        ]
    }
    assert "hwselect: runner mps selects nothing:" in proc.stderr
    one = run_tool("hwselect", "cpu", "--shard", "1/2", cwd=tmp_path).stdout.split()
    two = run_tool("hwselect", "cpu", "--shard", "2/2", cwd=tmp_path).stdout.split()
    assert one == ["test_m.py::TestM0CPU", "test_m.py::TestM1CPU", "test_m.py::TestM4CPU"]
    assert two == ["test_m.py::TestM2CPU", "test_m.py::TestM3CPU"]
    written = run_tool("hwselect", "cpu", "--shard", "2/2", "--argsfile", "ids.args", cwd=tmp_path)
    assert written.stdout == "@ids.args\n"
    assert (tmp_path / "ids.args").read_text() == "test_m.py::TestM2CPU\ntest_m.py::TestM3CPU\n"


def test_shard_is_a_partition(taxonomy, tmp_path):
    body = "".join(f"class TestS{i}(TestCase):\n    {ACC}\n    def test_a(self): ...\n" for i in range(23))
    sel = select_files(taxonomy, "cuda", [write(tmp_path, "test_s.py", body)])
    parts = plan_shards(sel.selected, 4).parts
    assert sorted(len(p) for p in parts) == [5, 6, 6, 6]
    assert all(u.whole for p in parts for u in p)  # 23 equal classes: none needs spreading
    assert sorted(u.candidate.name for p in parts for u in p) == sorted(c.name for c in sel.selected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("TestFoo", True), ("test_foo.py", True), ("or", False), ("a b", False), ("x(y)", False), ("", False)],
)
def test_is_term(text, expected):
    assert is_term(text) is expected


def test_balanced_or_never_chains_more_than_fanout_terms():
    from _pytest.mark.expression import Expression

    terms = [f"T{i}" for i in range(5000)]
    expr = balanced_or(terms)
    ors = [0]  # "or" count of each open parenthesis level
    widest = 0
    for token in expr.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            ors.append(0)
        elif token == ")":
            widest = max(widest, ors.pop())
        elif token == "or":
            ors[-1] += 1
    widest = max(widest, *ors)
    assert len(ors) == 1 and widest == FANOUT - 1  # at most FANOUT terms per level
    compiled = Expression.compile(expr)
    assert compiled.evaluate(lambda name, **kw: name == "T4321")
    assert not compiled.evaluate(lambda name, **kw: name == "T5000")


def test_build_excludes_longer_names(taxonomy, tmp_path):
    path = write(
        tmp_path,
        "test_k.py",
        """
        class TestFoo(TestCase):
            hw_classification = HardwareClassification.CUDA
            def test_a(self): ...

        class TestFooBar(TestCase):
            hw_classification = HardwareClassification.CPU
            def test_b(self): ...

        class TestFooBaz(TestCase):
            hw_classification = HardwareClassification.CPU
            def test_c(self): ...

        class TestQux(TestCase):
            hw_classification = HardwareClassification.CUDA
            def test_d(self): ...

        class TestQu(TestCase):  # inside TestQux: rules out excluding the unselected classes
            hw_classification = HardwareClassification.CPU
            def test_f(self): ...
        """,
    )
    other = write(tmp_path, "test_k2.py", "class TestFooOther(TestCase):\n    def test_e(self): ...\n")
    sel = select_files(taxonomy, "cuda", [path, other])
    plan = build(sel.candidates, sel.selected)
    assert plan.exact
    assert plan.expression == "(test_k.py and ((TestFoo and not (TestFooBar or TestFooBaz)) or TestQux))"


def test_missing_path_and_missing_runner_are_usage_errors(tmp_path):
    proc = run_tool("hwselect", "cpu", "nope/", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "hwselect: error: no such file or directory: nope/\n")
    proc = run_tool("hwselect", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == (
        "hwselect: error: give a RUNNER (one of: cpu, cuda, rocm, mps, xpu, privateuse1)\n"
    )


def test_test_functions_are_never_selected_and_block_a_bare_module_term(taxonomy, tmp_path):
    path = write(
        tmp_path,
        "test_f.py",
        f"""
        class TestF(TestCase):
            {ACC}
            def test_a(self, device): ...

        instantiate_device_type_tests(TestF, globals())

        def test_helper():
            pass
        """,
    )
    sel = select_files(taxonomy, "cpu", [path])
    assert [c.name for c in sel.selected] == ["TestFCPU"]
    assert sel.functions() == {path: ["test_helper"]}
    plan = build(sel.candidates, sel.selected, sel.functions())
    assert plan.expression == "(test_f.py and TestFCPU)"


def test_a_backend_named_on_the_command_line_counts_as_privateuse1(taxonomy, tmp_path):
    path = write(
        tmp_path,
        "test_npu.py",
        f"""
        class TestN(TestCase):
            {ACC}
            def test_n(self, device): ...

        instantiate_device_type_tests(TestN, globals(), only_for=("cuda", "npu"))
        """,
    )
    assert select_files(taxonomy, "privateuse1", [path]).selected == []
    sel = select_files(taxonomy, "privateuse1", [path], backends=["npu"])
    assert [c.names for c in sel.selected] == [("TestNPRIVATEUSE1", "TestNNPU")]


def test_taxonomy_and_discovery_come_from_tool_hwlint(tmp_path):
    runner = "  npu:\n    device: privateuse1\n    backend: npu\n    runs: [ACCELERATOR]\n"
    (tmp_path / "tax.yaml").write_text(DEFAULT_TAXONOMY.read_text() + runner)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hwlint]\ntaxonomy = "tax.yaml"\nextend-exclude = ["legacy"]\n'
    )
    body = f"class TestN(TestCase):\n    {ACC}\n    def test_n(self, device): ...\n"
    body += "instantiate_device_type_tests(TestN, globals())\n"
    write(tmp_path, "test_n.py", body)
    write(tmp_path, "legacy/test_old.py", body.replace("TestN", "TestOld"))
    proc = run_tool("hwselect", "npu", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # one PrivateUse1 class: its name is uncertain; a machine without PYTORCH_TESTING_DEVICE_ONLY_FOR
    # also generates TestNCPU there, so the plugin (which sets it) deselects what is not the runner's
    assert proc.stdout == "test_n.py\n--hw-runner\nnpu\n"
    assert "total=1, selected=1" in proc.stderr


def test_help_names_the_subcommands(tmp_path):
    """`hwselect --help` is where a user finds explain and verify (issue 48, smaller items)."""
    proc = run_tool("hwselect", "--help", cwd=tmp_path)
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert "`hwselect explain RUNNER PATH::Class` says why" in text
    assert "`hwselect verify RUNNER PATH...` collects with torch on the runner and compares" in text
