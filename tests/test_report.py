"""`hwlint report`: the hwlint-report/1 JSON contract, the pinned markdown comment, --compare, --depth.

Values on the example suite are pinned exactly; every number was checked by hand against the
example files (see the comments) and against hwselect's own counts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from hwlint import __version__
from hwlint.model import build as builder
from hwlint.pipeline.cache import Cache
from hwlint.pipeline.config import Config
from hwlint.pipeline.session import RunOptions, Session
from hwlint.report.data import SCHEMA, report_paths, summarize_paths
from hwlint.select.runners import select_paths
from hwlint.taxonomy import load_taxonomy

from .conftest import DEFAULT_TAXONOMY, ROOT, VENDOR_TAXONOMY, run_tool

CLASSIFICATIONS = ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU"]


def report(*args: str, cwd: Path = ROOT) -> dict:
    res = run_tool("hwlint", "report", "--no-cache", "--format", "json", *args, cwd=cwd)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    return json.loads(res.stdout)


def by_class(**counts: int) -> dict[str, int]:
    return {c: counts.get(c, 0) for c in CLASSIFICATIONS}


def write(root: Path, files: dict[str, str]) -> None:
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body))


# ---------------------------------------------------------------------------------------------
# The example suite


@pytest.fixture(scope="module")
def examples_doc() -> dict:
    return report("examples")


def test_json_top_level_schema(examples_doc):
    assert list(examples_doc) == [
        "schema",
        "hwlint_version",
        "taxonomy",
        "root",
        "depth",
        "total",
        "directories",
        "runners",
        "classes",
        "never_run",
        "findings",
        "compare",
    ]
    assert examples_doc["schema"] == SCHEMA == "hwlint-report/1"
    assert examples_doc["hwlint_version"] == __version__
    assert examples_doc["taxonomy"] == {
        "digest": load_taxonomy(DEFAULT_TAXONOMY).digest,
        "classifications": CLASSIFICATIONS,
    }
    assert (examples_doc["root"], examples_doc["depth"], examples_doc["compare"]) == ("examples", None, None)


def test_json_total_on_examples(examples_doc):
    # 18 test classes (4 + 3 + 4 in test/, 2 in distributed/, 5 in nn/) with 21 test methods; all but
    # TestCudaStreams (GPU, unknown) and TestLegacyFormat (unclassified) are classified.
    assert examples_doc["total"] == {
        "files": 5,
        "unparsable_files": 0,
        "classes": 18,
        "tests": 21,
        "classified": 16,
        "classified_percent": 88.9,
        "by_classification": by_class(GENERIC=5, ACCELERATOR=4, CPU=1, CUDA=5, MPS=1),
        "unclassified": 1,
        "unknown": 1,
        "unresolvable": 0,
        "never_run_classes": 3,
        "never_run_tests": 3,
        "hardcoded_device_classes": 0,
        "generalizable_classes": 0,
        "findings": {f"HWC{n}": 1 for n in ("001", "002", "101", "102", "107", "201", "202", "203", "204")},
        "findings_total": 9,
    }


def test_json_directories_are_cumulative_in_tree_order(examples_doc):
    dirs = examples_doc["directories"]
    assert [(d["path"], d["depth"], d["files"], d["classes"], d["tests"]) for d in dirs] == [
        ("examples", 0, 5, 18, 21),
        ("examples/test", 1, 5, 18, 21),
        ("examples/test/distributed", 2, 1, 2, 2),
        ("examples/test/nn", 2, 1, 5, 5),
    ]
    assert dirs[0] == {"path": "examples", "depth": 0, **examples_doc["total"]}
    nn = dirs[3]
    assert nn["by_classification"] == by_class(GENERIC=2, ACCELERATOR=2, MPS=1)
    assert (nn["classified"], nn["classified_percent"], nn["unclassified"]) == (5, 100.0, 0)
    assert nn["findings"] == {"HWC101": 1, "HWC102": 1, "HWC201": 1}
    # examples/pyproject.toml's per-file-ignores apply: no HWC102 under test/distributed
    assert dirs[2]["findings"] == {}


def test_json_runners_on_examples(examples_doc):
    rows = {r["name"]: r for r in examples_doc["runners"]}
    assert list(rows) == ["cpu", "cuda", "rocm", "mps", "xpu", "privateuse1"]
    # cpu: TestBinaryOpsCPU 2, TestReductionsCPU 3, TestSave 1, TestSaveSubclass 2 (1 inherited),
    # TestLoadToDevice 1, TestProcessGroupGloo 1, TestParametrizeAPICPU 1, TestParametrizeDevicesCPU 1,
    # TestParametrizeGeneric 1, TestParametrizeStray 1
    assert rows["cpu"] == {
        "name": "cpu",
        "device": "cpu",
        "runs": ["GENERIC", "ACCELERATOR", "CPU"],
        "classes": 10,
        "tests": 14,
        "files": 4,
        "classes_by_classification": {"GENERIC": 5, "ACCELERATOR": 4, "CPU": 1},
        "tests_by_classification": {"GENERIC": 6, "ACCELERATOR": 7, "CPU": 1},
        "collected": 15,
        "mismatched": 3,
        "unclassified": 1,
        "unplaced": 1,
        "not_generated": 3,
    }
    assert {n: (r["classes"], r["tests"], r["files"]) for n, r in rows.items()} == {
        "cpu": (10, 14, 4),
        "cuda": (8, 11, 4),  # TestCudnnDeterministicCUDA: test_conv is deleted from its base
        "rocm": (8, 11, 4),
        "mps": (3, 4, 2),  # TestBinaryOpsMPS (allow_mps), TestParametrizeMPSMPS, TestParametrizeStray
        "xpu": (2, 3, 2),
        "privateuse1": (4, 7, 2),
    }
    assert rows["xpu"]["tests_by_classification"] == {"ACCELERATOR": 3, "XPU": 0}


def test_runner_counts_agree_with_hwselect(examples_doc):
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    for row in examples_doc["runners"]:
        sel = select_paths(taxonomy, row["name"], [str(ROOT / "examples")])
        assert row["classes"] == sel.counts()["selected"]
        assert row["tests"] == sel.counts()["tests"]


def test_json_never_run_on_examples(examples_doc):
    assert examples_doc["never_run"] == [
        {
            "path": "examples/test/test_cuda_kernels.py",
            "line": 40,
            "name": "TestCudaStreams",
            "tests": 1,
            "status": "unknown",
            "classification": "GPU",
            "runners": [],
            "never_run": "GPU is not a classification in the taxonomy",
            "hardcoded_device": False,
            "generalizable": False,
        },
        {
            "path": "examples/test/test_ops.py",
            "line": 48,
            "name": "TestReductionsCUDA",
            "tests": 1,
            "status": "classified",
            "classification": "CUDA",
            "runners": [],
            "never_run": "cuda, rocm: replaced by the class TestReductions generates (line 56)",
            "hardcoded_device": False,
            "generalizable": False,
        },
        {
            "path": "examples/test/test_serialization.py",
            "line": 45,
            "name": "TestLegacyFormat",
            "tests": 1,
            "status": "unclassified",
            "classification": None,
            "runners": [],
            "never_run": "unclassified: every classification-filtered run drops it",
            "hardcoded_device": False,
            "generalizable": False,
        },
    ]


def test_json_classes_and_findings_on_examples(examples_doc):
    classes = {c["name"]: c for c in examples_doc["classes"]}
    assert len(classes) == 18
    assert classes["TestBinaryOps"]["runners"] == ["cpu", "cuda", "rocm", "mps", "xpu", "privateuse1"]
    assert classes["TestReductions"]["runners"] == ["cpu", "cuda", "rocm", "privateuse1"]  # except_for="mps"
    assert classes["TestParametrizeMPS"]["runners"] == ["mps"]
    assert classes["TestSave"] == {
        "path": "examples/test/test_serialization.py",
        "line": 16,
        "name": "TestSave",
        "tests": 1,
        "status": "classified",
        "classification": "GENERIC",
        "runners": ["cpu"],
        "never_run": None,
        "hardcoded_device": False,
        "generalizable": False,
    }
    assert examples_doc["findings"][0] == {
        "path": "examples/test/nn/test_parametrize.py",
        "line": 40,
        "col": 26,
        "code": "HWC201",
        "message": "GENERIC test method `TestParametrizeGeneric.test_cache` takes a `device` parameter.",
    }
    assert [(f["path"].rpartition("/")[2], f["line"], f["code"]) for f in examples_doc["findings"]] == [
        ("test_parametrize.py", 40, "HWC201"),
        ("test_parametrize.py", 44, "HWC102"),
        ("test_parametrize.py", 53, "HWC101"),
        ("test_cuda_kernels.py", 41, "HWC002"),
        ("test_ops.py", 40, "HWC203"),
        ("test_ops.py", 44, "HWC202"),
        ("test_ops.py", 48, "HWC107"),
        ("test_serialization.py", 40, "HWC204"),
        ("test_serialization.py", 45, "HWC001"),
    ]


MARKDOWN = """\
### hwlint report: `examples`

**16 of 18 test classes classified (88.9%)** · 21 test methods in 5 files · **3 classes (3 tests) never run** · 9 findings

| Runner | Device | Runs | Classes | Tests |
| --- | --- | --- | ---: | ---: |
| cpu | cpu | GENERIC, ACCELERATOR, CPU | 10 | 14 |
| cuda | cuda | ACCELERATOR, CUDA | 8 | 11 |
| rocm | cuda | ACCELERATOR, CUDA | 8 | 11 |
| mps | mps | ACCELERATOR, MPS | 3 | 4 |
| xpu | xpu | ACCELERATOR, XPU | 2 | 3 |
| privateuse1 | privateuse1 | ACCELERATOR | 4 | 7 |

<details><summary>Never run by any runner: 3 classes, 3 test methods</summary>

| Class | Tests | Why |
| --- | ---: | --- |
| `examples/test/test_cuda_kernels.py:40` `TestCudaStreams` | 1 | GPU is not a classification in the taxonomy |
| `examples/test/test_ops.py:48` `TestReductionsCUDA` | 1 | cuda, rocm: replaced by the class TestReductions generates (line 56) |
| `examples/test/test_serialization.py:45` `TestLegacyFormat` | 1 | unclassified: every classification-filtered run drops it |

</details>

<details><summary>Directories (4)</summary>

| Directory | Files | Classes | Tests | Classified | GENERIC | ACCELERATOR | CPU | CUDA | MPS | XPU | unclassified | unknown | unresolvable | Findings |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| `examples` | 5 | 18 | 21 | 88.9% | 5 | 4 | 1 | 5 | 1 | 0 | 1 | 1 | 0 | 9 |
| `examples/test` | 5 | 18 | 21 | 88.9% | 5 | 4 | 1 | 5 | 1 | 0 | 1 | 1 | 0 | 9 |
| `examples/test/distributed` | 1 | 2 | 2 | 100.0% | 0 | 0 | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 |
| `examples/test/nn` | 1 | 5 | 5 | 100.0% | 2 | 2 | 0 | 0 | 1 | 0 | 0 | 0 | 0 | 3 |

</details>

<details><summary>Findings by rule (9)</summary>

| Rule | Name | Count |
| --- | --- | ---: |
| `HWC001` | missing-hw-classification | 1 |
| `HWC002` | unknown-hw-classification | 1 |
| `HWC101` | instantiation-forbidden | 1 |
| `HWC102` | instantiation-missing | 1 |
| `HWC107` | generated-name-collision | 1 |
| `HWC201` | device-param-forbidden | 1 |
| `HWC202` | device-param-missing | 1 |
| `HWC203` | device-specific-decorator | 1 |
| `HWC204` | availability-check | 1 |

| Directory | HWC001 | HWC002 | HWC101 | HWC102 | HWC107 | HWC201 | HWC202 | HWC203 | HWC204 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| `examples` | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 |
| `examples/test` | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 |
| `examples/test/distributed` | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |
| `examples/test/nn` | 0 | 0 | 1 | 1 | 0 | 1 | 0 | 0 | 0 |

</details>

<details><summary>Left to a person (9)</summary>

| Where | Rule | Finding | What to do |
| --- | --- | --- | --- |
| `examples/test/nn/test_parametrize.py:40` | `HWC201` | GENERIC test method `TestParametrizeGeneric.test_cache` takes a `device` parameter. | drop the `device` parameter, or classify the class ACCELERATOR and instantiate it |
| `examples/test/nn/test_parametrize.py:44` | `HWC102` | ACCELERATOR test class `TestParametrizeStray` is never passed to `instantiate_device_type_tests` in the scanned files. | nothing instantiates this ACCELERATOR class: give its tests `device` and instantiate it, or classify it for the one device its tests need (instantiation replaces the class by one per device, whose device base's setUpClass runs instead of the class's own) |
| `examples/test/nn/test_parametrize.py:53` | `HWC101` | GENERIC test class `TestParametrizeAPI` is passed to `instantiate_device_type_tests`. | drop the instantiation call, or classify the class ACCELERATOR and give its tests `device` |
| `examples/test/test_cuda_kernels.py:41` | `HWC002` | Test class `TestCudaStreams` declares `HardwareClassification.GPU`, which is not a classification in the taxonomy (GENERIC, ACCELERATOR, CPU, CUDA, MPS, XPU). | declare a classification the taxonomy knows |
| `examples/test/test_ops.py:40` | `HWC203` | ACCELERATOR test method `TestReductions.test_sum_cub` is decorated with `@onlyCUDA`. | `hwlint check --fix --unsafe-fixes` fixes it (Replace `@onlyCUDA` with `@onlyAccelerator`), unless it refuses: then by hand |
| `examples/test/test_ops.py:44` | `HWC202` | ACCELERATOR test method `TestReductions.test_mean_cpu_only` takes no `device` or `devices` parameter. | `hwlint check --fix` fixes it (Add `device` to `TestReductions.test_mean_cpu_only`), unless it refuses: then by hand |
| `examples/test/test_ops.py:48` | `HWC107` | Class `TestReductionsCUDA` has the name that `instantiate_device_type_tests` generates for `TestReductions` on cuda (line 56); at run time one replaces the other. | rename the hand-written class: instantiation replaces it at run time |
| `examples/test/test_serialization.py:40` | `HWC204` | GENERIC test class `TestLoadToDevice` calls the accelerator API `torch.cuda.is_available()`. | `hwlint check --fix --unsafe-fixes` fixes it (Classify `TestLoadToDevice` CUDA), unless it refuses: then by hand |
| `examples/test/test_serialization.py:45` | `HWC001` | Test class `TestLegacyFormat` does not declare `hw_classification`. | `hwlint check --fix` fixes it (Declare `hw_classification = HardwareClassification.GENERIC` in `TestLegacyFormat`), unless it refuses: then by hand |

</details>
"""  # noqa: E501


def test_markdown_on_examples_is_pinned():
    res = run_tool("hwlint", "report", "--no-cache", "--format", "markdown", "examples", cwd=ROOT)
    assert (res.returncode, res.stderr) == (0, "")
    assert res.stdout == MARKDOWN


def test_table_on_examples():
    res = run_tool("hwlint", "report", "--no-cache", "examples", "--depth", "1", cwd=ROOT)
    assert (res.returncode, res.stderr) == (0, "")
    lines = res.stdout.splitlines()
    assert lines[:2] == [
        "hwlint report: examples",
        "  16 of 18 test classes classified (88.9%) · 21 test methods in 5 files"
        " · 3 classes (3 tests) never run · 9 findings",
    ]
    assert lines[3].split() == [
        "Directory",
        "Files",
        "Classes",
        "Tests",
        "Classified",
        *CLASSIFICATIONS,
        "unclassified",
        "unknown",
        "unresolvable",
        "Findings",
    ]
    assert lines[4].split() == [
        "examples",
        "5",
        "18",
        "21",
        "88.9%",
        "5",
        "4",
        "1",
        "5",
        "1",
        "0",
        "1",
        "1",
        "0",
        "9",
    ]
    assert lines[5].startswith("  examples/test ")
    assert lines[6] == ""  # --depth 1: nothing below examples/test
    assert (
        "  examples/test/test_serialization.py:45: TestLegacyFormat (1 test): unclassified: every "
        in res.stdout
    )
    assert "      1  HWC001  missing-hw-classification" in lines


# ---------------------------------------------------------------------------------------------
# A synthetic tree


TREE = {
    "test/test_top.py": """\
        class TestA(TestCase):
            hw_classification = HardwareClassification.GENERIC
            def test_a(self): ...
            def test_b(self): ...

        class TestB(TestCase):
            def test_c(self): ...
        """,
    "test/inductor/test_codegen.py": """\
        class TestGen(TestCase):
            hw_classification = HardwareClassification.ACCELERATOR
            def test_x(self, device): ...

        instantiate_device_type_tests(TestGen, globals(), only_for="cuda")

        class TestDyn(TestCase):
            hw_classification = pick()
            def test_y(self): ...
        """,
    "test/inductor/cpp/test_cpp.py": """\
        class TestCpp(TestCase):
            hw_classification = HardwareClassification.CPU
            def test_z(self): ...

        class TestCpp(TestCase):
            hw_classification = HardwareClassification.CPU
            def test_z2(self): ...
        """,
    "test/broken/test_bad.py": "class Broken(:\n",
}


@pytest.fixture
def tree(tmp_path) -> Path:
    write(tmp_path, TREE)
    return tmp_path


def test_synthetic_tree(tree):
    doc = report("--isolated", "test", cwd=tree)
    dirs = {d["path"]: d for d in doc["directories"]}
    assert [
        (p, d["depth"], d["files"], d["classes"], d["tests"], d["classified"]) for p, d in dirs.items()
    ] == [
        ("test", 0, 4, 6, 7, 4),
        ("test/broken", 1, 1, 0, 0, 0),
        ("test/inductor", 1, 2, 4, 4, 3),
        ("test/inductor/cpp", 2, 1, 2, 2, 2),
    ]
    assert dirs["test/broken"]["unparsable_files"] == 1
    assert dirs["test/broken"]["classified_percent"] is None  # no test classes: no share to show
    assert dirs["test/broken"]["findings"] == {"HWC901": 1}
    assert dirs["test/inductor"]["classified_percent"] == 75.0
    assert (dirs["test"]["unclassified"], dirs["test"]["unresolvable"]) == (1, 1)
    assert dirs["test"]["by_classification"] == by_class(GENERIC=1, ACCELERATOR=1, CPU=2)
    never = [(c["path"], c["line"], c["name"], c["never_run"]) for c in doc["never_run"]]
    assert never == [
        ("test/test_top.py", 6, "TestB", "unclassified: every classification-filtered run drops it"),
        (
            "test/inductor/test_codegen.py",
            7,
            "TestDyn",
            "hw_classification = pick() cannot be read statically",
        ),
        ("test/inductor/cpp/test_cpp.py", 1, "TestCpp", "redefined at line 5, which replaces it"),
    ]
    assert {r["name"]: r["tests"] for r in doc["runners"]} == {
        "cpu": 3,  # TestA (2), the second TestCpp (1)
        "cuda": 1,  # TestGenCUDA
        "rocm": 1,
        "mps": 0,
        "xpu": 0,
        "privateuse1": 0,  # only_for="cuda" leaves the PrivateUse1 class out
    }
    assert doc["total"]["never_run_tests"] == 3


def test_depth_collapses_the_directory_list(tree):
    def listed(depth: str) -> list[str]:
        return [d["path"] for d in report("--isolated", "--depth", depth, "test", cwd=tree)["directories"]]

    assert listed("0") == ["test"]
    assert listed("1") == ["test", "test/broken", "test/inductor"]
    assert listed("5") == ["test", "test/broken", "test/inductor", "test/inductor/cpp"]
    doc = report("--isolated", "--depth", "0", "test", cwd=tree)
    assert doc["depth"] == 0
    assert doc["directories"][0] == {"path": "test", "depth": 0, **doc["total"]}


def test_root_is_the_common_directory_of_the_paths(tree):
    doc = report("--isolated", "test/inductor/cpp", "test/inductor/test_codegen.py", cwd=tree)
    assert doc["root"] == "test/inductor"
    assert [d["path"] for d in doc["directories"]] == ["test/inductor", "test/inductor/cpp"]


def test_a_base_run_through_its_subclass_is_not_never_run(tmp_path, taxonomy):
    write(
        tmp_path,
        {
            "test_mixin.py": """\
            class _Checks:
                def test_shared(self): ...

            class TestUses(_Checks, TestCase):
                hw_classification = HardwareClassification.GENERIC
                def test_own(self): ...
            """
        },
    )
    rep = report_paths([str(tmp_path)], taxonomy, Config(root=tmp_path))
    assert [(c.name, c.status, c.runners, c.never_run) for c in rep.classes] == [
        ("_Checks", "unclassified", ["cpu"], None),
        ("TestUses", "classified", ["cpu"], None),
    ]
    assert rep.runners[0].tally.tests["GENERIC"] == 2


def test_a_class_in_a_file_exempt_from_linting_says_so(tmp_path, taxonomy):
    """A `# hwlint: noqa` (here inside a test's body, as dynamo/test_misc.py holds a `# flake8:
    noqa`) exempts the whole file: hwlint neither checks nor fixes TestMisc, and the report says why
    it runs nowhere. flake8's own comment is flake8's: the class is merely unclassified."""
    body = """\
            class TestMisc(TestCase):
                def test_a(self):
                    # {directive}: noqa
                    x = ( 1 )
            """
    write(tmp_path, {"test_exempt.py": body.format(directive="hwlint")})
    rep = report_paths([str(tmp_path)], taxonomy, Config(root=tmp_path))
    assert [(c.name, c.never_run) for c in rep.classes] == [
        (
            "TestMisc",
            "unclassified, in a file exempt from linting (`# hwlint: noqa`), which "
            "hwlint neither checks nor fixes: every classification-filtered run drops it",
        )
    ]
    write(tmp_path, {"test_exempt.py": body.format(directive="flake8")})
    rep = report_paths([str(tmp_path)], taxonomy, Config(root=tmp_path))
    assert [(c.name, c.never_run) for c in rep.classes] == [
        ("TestMisc", "unclassified: every classification-filtered run drops it")
    ]


def test_a_template_whose_tests_are_copied_is_not_never_run(tmp_path, taxonomy):
    """inductor's CommonTemplate (590 tests) is collected nowhere itself: copy_tests puts its tests
    into CpuTests, which runs them; an uncollected class passed to nothing still runs nowhere."""
    write(
        tmp_path,
        {
            "test_template.py": """\
            class CommonTemplate:
                def test_add(self): ...

            class Orphan:
                def test_lost(self): ...

            class CpuTests(TestCase):
                hw_classification = HardwareClassification.GENERIC

            copy_tests(CommonTemplate, CpuTests, "cpu")
            """
        },
    )
    rep = report_paths([str(tmp_path)], taxonomy, Config(root=tmp_path))
    assert [(c.name, c.never_run) for c in rep.never_run] == [
        ("Orphan", "unclassified: every classification-filtered run drops it")
    ]


def test_filtered_instantiation_and_runnerless_classification(tmp_path):
    data = yaml.safe_load(DEFAULT_TAXONOMY.read_text())
    del data["runners"]["xpu"]
    (tmp_path / "tax.yaml").write_text(yaml.safe_dump(data))
    write(
        tmp_path,
        {
            "test/test_f.py": """\
            class TestOnlyMps(TestCase):
                hw_classification = HardwareClassification.CUDA
                def test_m(self, device): ...

            instantiate_device_type_tests(TestOnlyMps, globals(), only_for="mps", allow_mps=True)

            class TestXpu(TestCase):
                hw_classification = HardwareClassification.XPU
                def test_x(self): ...

            class Helper:
                hw_classification = HardwareClassification.GENERIC
                def test_h(self): ...
            """
        },
    )
    doc = report("--isolated", "--taxonomy", "tax.yaml", "test", cwd=tmp_path)
    assert [(c["name"], c["never_run"]) for c in doc["never_run"]] == [
        ("TestOnlyMps", 'cuda, rocm: not generated, only_for="mps" leaves out cuda (line 5)'),
        ("TestXpu", "no runner runs XPU"),
        ("Helper", "cpu: not collected: its name does not start with Test and no base can be a TestCase"),
    ]


def test_privateuse1_tests_count_once_per_class():
    # the vendor taxonomy's npu runner accepts ...PRIVATEUSE1 and ...NPU names for every generated class
    doc = report("--taxonomy", str(VENDOR_TAXONOMY), "examples/test/test_ops.py")
    npu = next(r for r in doc["runners"] if r["name"] == "npu")
    assert (npu["classes"], npu["tests"]) == (2, 5)  # TestBinaryOps 2, TestReductions 3


# ---------------------------------------------------------------------------------------------
# --compare


@pytest.fixture
def changed_suite(tmp_path) -> Path:
    """A copy of the example suite, an old report of it, then three edits."""
    shutil.copytree(ROOT / "examples" / "test", tmp_path / "test")
    res = run_tool(
        "hwlint",
        "report",
        "--isolated",
        "--no-cache",
        "--format",
        "json",
        "-o",
        "old.json",
        "test",
        cwd=tmp_path,
    )
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "")
    ser = tmp_path / "test" / "test_serialization.py"
    ser.write_text(
        ser.read_text().replace(
            "class TestLegacyFormat(TestCase):  # HWC001: unclassified classes are dropped by every filtered"
            " run\n",
            "class TestLegacyFormat(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n",
        )
    )
    nn = tmp_path / "test" / "nn" / "test_parametrize.py"
    nn.write_text(nn.read_text().replace("HC.MPS", "HC.XPU"))
    (tmp_path / "test" / "nn" / "test_new.py").write_text(
        "class TestNew(TestCase):\n    def test_n(self): ...\n"
    )
    return tmp_path


def test_compare_json(changed_suite):
    cmp = report("--isolated", "--compare", "old.json", "test", cwd=changed_suite)["compare"]
    assert cmp["against"] == "old.json"
    assert cmp["total"] == {
        "files": [5, 6],
        "classes": [18, 19],
        "tests": [21, 22],
        "classified": [16, 17],
        "classified_percent": [88.9, 89.5],
        "never_run_tests": [
            3,
            4,
        ],  # TestLegacyFormat runs now; TestParametrizeMPS (XPU, only_for mps), TestNew
        "findings_total": [9, 9],
    }
    assert cmp["newly_classified"] == [
        {
            "path": "test/test_serialization.py",
            "line": 45,
            "name": "TestLegacyFormat",
            "tests": 1,
            "before": "unclassified",
            "after": "GENERIC",
        }
    ]
    assert cmp["declassified"] == []
    assert [(c["name"], c["before"], c["after"]) for c in cmp["reclassified"]] == [
        ("TestParametrizeMPS", "MPS", "XPU")
    ]
    assert cmp["new_classes"] == [{"path": "test/nn/test_new.py", "line": 1, "name": "TestNew", "tests": 1}]
    assert cmp["removed_classes"] == []
    assert [(f["path"], f["line"], f["code"]) for f in cmp["new_findings"]] == [
        ("test/nn/test_new.py", 1, "HWC001")
    ]
    assert [(f["path"], f["line"], f["code"]) for f in cmp["fixed_findings"]] == [
        ("test/test_serialization.py", 45, "HWC001")
    ]
    assert [d["path"] for d in cmp["directories"]] == ["test", "test/nn"]
    assert cmp["directories"][1] == {
        "path": "test/nn",
        "files": [1, 2],
        "classes": [5, 6],
        "tests": [5, 6],
        "classified": [5, 5],
        "classified_percent": [100.0, 83.3],
        "never_run_tests": [0, 2],
        "findings_total": [3, 4],
    }
    cpu = next(r for r in cmp["runners"] if r["name"] == "cpu")
    assert cpu == {"name": "cpu", "classes": [10, 11], "tests": [14, 15]}


def test_compare_in_markdown_and_table(changed_suite):
    res = run_tool(
        "hwlint",
        "report",
        "--isolated",
        "--no-cache",
        "--format",
        "markdown",
        "--compare",
        "old.json",
        "test",
        cwd=changed_suite,
    )
    assert res.returncode == 0, res.stderr
    start = res.stdout.index("**Since `old.json`:**")
    assert res.stdout[start:].split("\n\n| Runner | Device |")[0] == textwrap.dedent(
        """\
        **Since `old.json`:**

        - classified: 16 → 17 of 18 → 19 classes (88.9% → 89.5%)
        - tests never run: 3 → 4
        - findings: 9 (1 new, 1 fixed)
        - classes: 1 class newly classified, 0 declassified, 1 reclassified; 1 new, 0 removed

        <details><summary>What changed</summary>

        **Newly classified**

        - `test/test_serialization.py:45: TestLegacyFormat: unclassified → GENERIC`

        **Classification changed**

        - `test/nn/test_parametrize.py:30: TestParametrizeMPS: MPS → XPU`

        **New test classes**

        - `test/nn/test_new.py:1: TestNew`

        **New findings**

        - `test/nn/test_new.py:1` `HWC001` Test class `TestNew` does not declare `hw_classification`.

        **Fixed findings**

        - `test/test_serialization.py:45` `HWC001` Test class `TestLegacyFormat` does not declare `hw_classification`.

        | Directory | Classes | Classified | Tests never run | Findings |
        | --- | ---: | ---: | ---: | ---: |
        | `test` | 18 → 19 | 88.9% → 89.5% | 3 → 4 | 9 |
        | `test/nn` | 5 → 6 | 100.0% → 83.3% | 0 → 2 | 3 → 4 |

        | Runner | Classes | Tests |
        | --- | ---: | ---: |
        | cpu | 10 → 11 | 14 → 15 |
        | mps | 3 → 2 | 4 → 3 |

        </details>"""  # noqa: E501
    )
    res = run_tool(
        "hwlint", "report", "--isolated", "--no-cache", "--compare", "old.json", "test", cwd=changed_suite
    )
    assert res.returncode == 0, res.stderr
    assert "Since old.json:\n  classified: 16 → 17 of 18 → 19 classes (88.9% → 89.5%)\n" in res.stdout
    assert (
        "\nNewly classified:\n  test/test_serialization.py:45: TestLegacyFormat: unclassified → GENERIC\n"
        in res.stdout
    )
    assert "\nNew findings:\n  test/nn/test_new.py:1: HWC001 Test class `TestNew` does not" in res.stdout
    assert res.stdout.endswith(
        "\nRunners that changed:\n  Runner  Classes    Tests\n"
        "  cpu     10 → 11  14 → 15\n  mps       3 → 2    4 → 3\n"
    )


def test_compare_with_itself_changes_nothing(tmp_path):
    write(tmp_path, TREE)
    run_tool(
        "hwlint",
        "report",
        "--isolated",
        "--no-cache",
        "--format",
        "json",
        "-o",
        "r.json",
        "test",
        cwd=tmp_path,
    )
    cmp = report("--isolated", "--compare", "r.json", "test", cwd=tmp_path)["compare"]
    assert all(a == b for a, b in cmp["total"].values())
    for key in ("directories", "newly_classified", "declassified", "reclassified", "new_classes"):
        assert cmp[key] == [], key
    assert (cmp["removed_classes"], cmp["new_findings"], cmp["fixed_findings"]) == ([], [], [])


# ---------------------------------------------------------------------------------------------
# Exit codes and errors


def test_findings_do_not_fail_a_report_and_o_writes_a_file(tmp_path):
    res = run_tool(
        "hwlint",
        "report",
        "--no-cache",
        "-o",
        str(tmp_path / "r.md"),
        "--format",
        "markdown",
        "examples",
        cwd=ROOT,
    )
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "")
    assert (tmp_path / "r.md").read_text() == MARKDOWN


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--compare", "missing.json"],
            "hwlint: error: missing.json: cannot read: No such file or directory\n",
        ),
        (["--compare", "notjson.json"], "hwlint: error: notjson.json: not a JSON report: "),
        (
            ["--compare", "other.json"],
            "hwlint: error: other.json: not a hwlint-report/1 report (schema: 'x/9')\n",
        ),
        (["--taxonomy", "missing.yaml"], "hwlint: error: missing.yaml"),
        (
            ["--depth", "-1"],
            "hwlint report: error: argument --depth: expected a whole number >= 0, got '-1'\n",
        ),
        (["--format", "pdf"], "hwlint report: error: argument --format: invalid choice"),
        (["-o", "nodir/r.txt"], "hwlint: error: nodir/r.txt: cannot write: No such file or directory\n"),
    ],
)
def test_usage_and_input_errors_exit_2(tmp_path, args, message):
    (tmp_path / "notjson.json").write_text("{")
    (tmp_path / "other.json").write_text('{"schema": "x/9"}')
    write(tmp_path, {"test_a.py": "class TestA(TestCase):\n    def test_a(self): ...\n"})
    res = run_tool("hwlint", "report", "--isolated", "--no-cache", *args, ".", cwd=tmp_path)
    assert res.returncode == 2
    assert res.stdout == ""
    assert message in res.stderr


def test_markdown_cuts_long_lists_to_fit_a_comment(tmp_path):
    # a GitHub comment holds 65,536 characters; the JSON and HTML reports keep every row
    body = "".join(f"class TestU{i}(TestCase):\n    def test_u(self): ...\n\n" for i in range(105))
    write(tmp_path, {"test_many.py": body})
    res = run_tool("hwlint", "report", "--isolated", "--no-cache", "--format", "markdown", ".", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    never = res.stdout.split("<summary>Never run by any runner: 105 classes, 105 test methods</summary>")[1]
    never = never.split("</details>")[0]
    assert never.count("| `test_many.py:") == 100
    assert "| `test_many.py:298` `TestU99` | 1 | unclassified" in never
    assert never.endswith("\n\n*… and 5 more: see the JSON or HTML report.*\n\n")
    assert len(report("--isolated", ".", cwd=tmp_path)["never_run"]) == 105


# ---------------------------------------------------------------------------------------------
# The per-file summaries: parallel and cached like the checker's findings


def many_files(root: Path, n: int = 12) -> list[str]:
    files = {
        f"test/d{i % 3}/test_{i}.py": f"""\
        class TestA{i}(TestCase):
            hw_classification = HardwareClassification.ACCELERATOR
            def test_a(self, device): ...

        instantiate_device_type_tests(TestA{i}, globals(), except_for="mps")

        class TestB{i}(TestCase):
            def test_b(self): ...
        """
        for i in range(n)
    }
    write(root, files)
    return [str(root / name) for name in files]


def test_parallel_summaries_equal_serial_ones(tmp_path, taxonomy):
    files = many_files(tmp_path)
    serial = summarize_paths(files, taxonomy, jobs=1)
    assert summarize_paths(files, taxonomy, jobs=2) == serial
    assert [len(s.rows) for s in serial] == [2] * 12
    assert serial[0].runners["cpu"].tests == {"ACCELERATOR": 1}


def test_summaries_come_from_the_cache_until_a_file_changes(tmp_path, taxonomy, monkeypatch):
    files = many_files(tmp_path, 3)
    cache_dir = tmp_path / "cache"
    first = summarize_paths(files, taxonomy, jobs=1, cache=Cache(cache_dir, taxonomy.digest))
    built = []
    real = builder.parse_file  # the report's one pass builds its model where the checker does
    monkeypatch.setattr(builder, "parse_file", lambda *a: built.append(a[1]) or real(*a))
    os.utime(files[1], ns=(1, 1))  # touched, same content: the hash says it is unchanged
    assert summarize_paths(files, taxonomy, jobs=1, cache=Cache(cache_dir, taxonomy.digest)) == first
    assert built == []
    Path(files[2]).write_text("class TestC(TestCase):\n    def test_c(self): ...\n")
    again = summarize_paths(files, taxonomy, jobs=1, cache=Cache(cache_dir, taxonomy.digest))
    assert built == [files[2]]
    assert [r.name for r in again[2].rows] == ["TestC"]
    # asked for under another spelling of the same file, a cached summary carries the new one
    other = os.path.relpath(files[0])
    (moved,) = summarize_paths([other], taxonomy, jobs=1, cache=Cache(cache_dir, taxonomy.digest))
    assert built == [files[2]]
    assert (moved.path, moved.rows[0].path) == (other, other)


def test_directories_count_hardcoded_and_generalizable_classes(tmp_path):
    write(
        tmp_path,
        {
            "ops/test_ops.py": """
                import torch
                from torch.testing._internal.common_device_type import instantiate_device_type_tests
                from torch.testing._internal.common_utils import HardwareClassification, TestCase

                class TestOps(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR

                    def test_add(self, device):
                        torch.ones(1).cuda()

                instantiate_device_type_tests(TestOps, globals(), except_for="cpu")

                class TestKernels(TestCase):
                    hw_classification = HardwareClassification.CUDA

                    def test_sum(self):
                        torch.ones(1, device="cuda")

                class TestStreams(TestCase):
                    hw_classification = HardwareClassification.CUDA

                    def test_stream(self):
                        torch.cuda.Stream()
            """,
            "nn/test_nn.py": """
                from torch.testing._internal.common_utils import HardwareClassification, TestCase

                class TestShapes(TestCase):
                    hw_classification = HardwareClassification.GENERIC

                    def test_view(self):
                        pass
            """,
        },
    )
    doc = report("--isolated", ".", cwd=tmp_path)
    counts = {
        d["path"]: (d["hardcoded_device_classes"], d["generalizable_classes"]) for d in doc["directories"]
    }
    assert counts == {".": (1, 1), "nn": (0, 0), "ops": (1, 1)}
    flagged = {c["name"]: (c["hardcoded_device"], c["generalizable"]) for c in doc["classes"]}
    assert flagged == {
        "TestOps": (True, False),
        "TestKernels": (False, True),
        "TestStreams": (False, False),
        "TestShapes": (False, False),
    }
    text = run_tool("hwlint", "report", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert (
        "Directory  Hard-coded  HWC301  Generalizable  HWC302\n"
        ".                   1       1              1       1\n  ops"
    ) in text


def test_device_class_counts_come_from_the_findings_listed(tmp_path):
    # one source for each number: a class counts as hard-coding a device when the report lists an
    # HWC301 finding for it (through the project: here its classification comes from a base in
    # another file), and as generalizable when its HWC302 finding has a fix; a class HWC302 says is
    # held back by one line is an HWC302 finding, not a generalizable class (issue 28)
    write(
        tmp_path,
        {
            "ops/test_base.py": """
                from torch.testing._internal.common_utils import HardwareClassification, TestCase

                class DeviceBase(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
            """,
            "ops/test_derived.py": """
                import torch
                from torch.testing._internal.common_device_type import instantiate_device_type_tests
                from test_base import DeviceBase

                class TestDerived(DeviceBase):
                    def test_add(self, device):
                        torch.ones(1).cuda()
                        torch.cuda.synchronize()

                instantiate_device_type_tests(TestDerived, globals(), except_for="cpu")
            """,
            "ops/test_held.py": """
                import torch
                from torch.testing._internal.common_utils import HardwareClassification, TestCase

                class TestHeld(TestCase):
                    hw_classification = HardwareClassification.CUDA

                    def test_a(self):
                        torch.ones(1, device="cuda")

                    def test_b(self):
                        torch.ones(1).cuda(self.rank)
            """,
        },
    )
    doc = report("--isolated", ".", cwd=tmp_path)
    codes = {}
    for f in doc["findings"]:
        codes.setdefault(f["code"], []).append(f)
    assert len(codes["HWC301"]) == 2 and len(codes["HWC302"]) == 1, doc["findings"]
    assert "but for line" in codes["HWC302"][0]["message"]
    total = doc["total"]
    assert (total["hardcoded_device_classes"], total["generalizable_classes"]) == (1, 0)
    assert (total["findings"]["HWC301"], total["findings"]["HWC302"]) == (2, 1)
    flagged = {c["name"]: (c["hardcoded_device"], c["generalizable"]) for c in doc["classes"]}
    assert flagged == {"TestDerived": (True, False), "TestHeld": (False, False)}
    text = run_tool("hwlint", "report", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert (
        "Directory  Hard-coded  HWC301  Generalizable  HWC302\n"
        ".                   1       2              0       1\n" in text
    )


def test_every_count_is_written_one_way(tmp_path):
    # "1782 of 1,912" mixed separators; "1 test methods" lost its plural
    body = "".join(f"class TestC{i}:\n    def test_x(self):\n        pass\n\n" for i in range(1001))
    write(
        tmp_path,
        {"test_many.py": body, "sub/test_one.py": "class TestOne:\n    def test_x(self):\n        pass\n"},
    )
    text = run_tool("hwlint", "report", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "0 of 1,002 test classes classified (0.0%) · 1,002 test methods in 2 files" in text
    counts = (
        text.split("Never run by any runner")[0]
        + text.split("Findings by rule")[1].split("Left to a person")[0]
    )
    assert re.findall(r"(?<![\d,.:])\d{4,}(?![\d,])", counts) == []  # no 1002 beside a 1,002
    assert "Findings by rule: 1,002" in text
    md = run_tool(
        "hwlint", "report", "--isolated", "--no-cache", "--format", "markdown", ".", cwd=tmp_path
    ).stdout
    assert re.findall(r"(?<![\d,.:L])\d{4,}(?![\d,])", md.split("Never run")[0]) == []
    one = run_tool(
        "hwlint", "report", "--isolated", "--no-cache", "--format", "html", "sub", cwd=tmp_path
    ).stdout
    assert "0 of 1 test class<" in one and "of 1 test classes" not in one
    assert "test methods in 1 class" not in one and "test method in 1 class no runner runs" in one


PROJECT = Path(__file__).parent / "fixtures" / "project"


def test_rows_and_runner_tallies_see_the_project_as_hwselect_does(taxonomy):
    from hwlint.select.runners import select_all

    files = [str(p) for p in sorted(PROJECT.glob("*/test_*.py"))]
    rep = report_paths(files, taxonomy, Config(root=PROJECT))
    rows = {r.name: r for r in rep.classes}
    # classified through ClassifiedBase, defined in another scanned test module
    assert (rows["TestInherits"].status, rows["TestInherits"].classification) == ("classified", "GENERIC")
    assert rows["TestInherits"].runners == ["cpu"]
    selections = select_all(Session.from_config(Config(), RunOptions(no_cache=True), taxonomy), files)
    for row in rep.runners:
        chosen = selections[row.runner.name]
        assert (sum(row.tally.classes.values()), row.tally.counts["total"]) == (
            len(chosen.selected),
            chosen.counts()["total"],
        ), row.runner.name
    # TestDeviceOps is generated in test_instantiates.py, from the class it imports; so is
    # TestGenericHelpersCPU, GENERIC as its class (HWC101 says so), beside TestGenericHelpers itself
    cpu = next(r for r in rep.runners if r.runner.name == "cpu")
    assert dict(cpu.tally.classes) == {"GENERIC": 4, "ACCELERATOR": 4}


def _parses(monkeypatch) -> list[str]:
    import ast

    seen: list[str] = []
    real = ast.parse
    monkeypatch.setattr(
        ast,
        "parse",
        lambda src, filename="<unknown>", *a, **k: seen.append(str(filename)) or real(src, filename, *a, **k),
    )
    return seen


def test_a_cold_report_parses_each_file_once_and_a_warm_one_none(tmp_path, taxonomy, monkeypatch):
    files = many_files(tmp_path, 6)
    parses = _parses(monkeypatch)
    cache_dir = tmp_path / "cache"
    cold = report_paths(
        [str(tmp_path)],
        taxonomy,
        Config(root=tmp_path),
        options=RunOptions(cache=Cache(cache_dir, taxonomy.digest)),
    )
    assert sorted(parses) == sorted(files)  # findings, selections and rows from one model per file
    parses.clear()
    warm = report_paths(
        [str(tmp_path)],
        taxonomy,
        Config(root=tmp_path),
        options=RunOptions(cache=Cache(cache_dir, taxonomy.digest)),
    )
    assert parses == []
    assert warm.to_json() == cold.to_json()


def test_a_check_after_a_report_parses_nothing_and_finds_the_same(tmp_path, taxonomy, monkeypatch):
    """A report's value holds each file's check (its findings and links): the report caches them
    as the check does, so `hwlint check` after `hwlint report` finds every file warm."""
    from hwlint.pipeline.check import check_paths

    files = many_files(tmp_path, 6)
    alone = check_paths(files, taxonomy, 1)  # no cache: what a check finds
    cache_dir = tmp_path / "cache"
    report_paths(
        [str(tmp_path)],
        taxonomy,
        Config(root=tmp_path),
        options=RunOptions(cache=Cache(cache_dir, taxonomy.digest)),
    )
    parses = _parses(monkeypatch)
    after = check_paths(files, taxonomy, 1, Cache(cache_dir, taxonomy.digest))
    assert parses == []
    assert after == alone
    assert any(after)


def test_table_lists_each_finding_left_to_a_person_with_its_reason(tmp_path):
    # the reason a finding's fix gives for having none, else what its rule says a person does
    write(
        tmp_path,
        {
            "test_left.py": (
                "import torch\n"
                "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n"
                "\n"
                "\n"
                "class TestNotInstantiated(TestCase):\n"
                "    hw_classification = HardwareClassification.ACCELERATOR\n"
                "\n"
                "    def test_a(self):\n"
                "        pass\n"
                "\n"
                "\n"
                "class TestAsks(TestCase):\n"
                "    hw_classification = HardwareClassification.GENERIC\n"
                "\n"
                "    def test_b(self):\n"
                "        torch.accelerator.synchronize()\n"
            )
        },
    )
    text = run_tool("hwlint", "report", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert text.split("Left to a person")[1].splitlines() == [
        ": 2 findings, each with what to do",
        "  test_left.py:5:1: HWC102 ACCELERATOR test class `TestNotInstantiated` is never passed to "
        "`instantiate_device_type_tests` in the scanned files.",
        "    instantiating `TestNotInstantiated` is no neutral fix: none of its tests takes `device`",
        "  test_left.py:16:9: HWC204 GENERIC test class `TestAsks` calls the accelerator API "
        "`torch.accelerator.synchronize()`.",
        "    the call stays: `test_b` stays: it calls an accelerator API that names no one device",
    ]
