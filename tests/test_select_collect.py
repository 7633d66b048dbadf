"""hwselect against real pytest collection: every runner, every format, the example suite.

The ground truth is the runtime's own filter (the suite's conftest keeps the items whose class's
``hw_classification``, found with getattr, is one the runner runs), applied to what pytest collects
with the stand-in instantiation for the runner's device.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import DEFAULT_TAXONOMY, run_tool
from tests.pytest_server import shared_server
from tests.select_suite import write_suite

OPENREG_RUNNER = "  openreg:\n    device: privateuse1\n    backend: openreg\n    runs: [ACCELERATOR]\n"
# runner -> (device, backend the stand-in registers, extra hwselect arguments)
RUNNERS = {
    "cpu": ("cpu", "", []),
    "cuda": ("cuda", "", []),
    "rocm": ("cuda", "", []),
    "mps": ("mps", "", []),
    "xpu": ("xpu", "", []),
    "privateuse1": ("privateuse1", "openreg", ["--backend", "openreg"]),
    "openreg": ("privateuse1", "openreg", []),
}
RUNS = {
    "cpu": "GENERIC,ACCELERATOR,CPU",
    "cuda": "ACCELERATOR,CUDA",
    "rocm": "ACCELERATOR,CUDA",
    "mps": "ACCELERATOR,MPS",
    "xpu": "ACCELERATOR,XPU",
    "privateuse1": "ACCELERATOR",
    "openreg": "ACCELERATOR",
}


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    root = write_suite(tmp_path_factory.mktemp("suite"))
    (root / "taxonomy.yaml").write_text(DEFAULT_TAXONOMY.read_text() + OPENREG_RUNNER)
    return root


def collect(root: Path, runner: str, *args: str) -> set[str]:
    """Item node ids ``pytest --collect-only -q`` prints for the runner's device."""
    device, backend, _ = RUNNERS[runner]
    proc = shared_server().run(
        root, ["--collect-only", "-q", *args], {"HW_DEVICE": device, "HW_BACKEND": backend}
    )
    assert proc.returncode in (0, 5), proc.stdout + proc.stderr
    return {line for line in proc.stdout.splitlines() if "::" in line and not line.startswith("hwselect")}


def truth(root: Path, runner: str) -> set[str]:
    return collect(root, runner, "--truth-runs", RUNS[runner])


def hwselect(root: Path, runner: str, *args: str) -> subprocess.CompletedProcess:
    extra = RUNNERS[runner][2]
    return run_tool("hwselect", runner, "--taxonomy", "taxonomy.yaml", *extra, *args, cwd=root)


def k_select(expression: str, nodeids: set[str]) -> set[str]:
    """The node ids pytest's -k *expression* keeps (rootdir-relative ids, so no rootdir name)."""
    from _pytest.mark.expression import Expression

    compiled = Expression.compile(expression)
    out = set()
    for nodeid in nodeids:
        path, *rest = nodeid.split("::")  # rest: class and test, or a plain function
        names = [*path.split("/"), *rest]
        lowered = [n.lower() for n in names]
        if compiled.evaluate(lambda term, lowered=lowered, **kw: any(term.lower() in n for n in lowered)):
            out.add(nodeid)
    return out


def as_args(root: Path, text: str, name: str) -> str:
    """Save hwselect's output as a pytest argument file and return ``@file``."""
    (root / name).write_text(text)
    return "@" + name


@pytest.mark.slow  # pytest collects the suite in every format
@pytest.mark.parametrize("runner", list(RUNNERS))
def test_formats_collect_exactly_the_runtime_selection(suite, runner):
    expected = truth(suite, runner)
    assert expected, "the suite must give every runner something to run"

    ids = hwselect(suite, runner, "--format", "nodeids")
    assert ids.returncode == 0, ids.stderr
    assert collect(suite, runner, as_args(suite, ids.stdout, f"ids-{runner}.txt")) == expected

    k = hwselect(suite, runner, "--format", "k")
    if k.returncode == 0:
        assert len(k.stdout.splitlines()) == 1, k.stdout
        assert collect(suite, runner, "-k", k.stdout.strip()) == expected
    else:  # no exact expression: an error (exit 2) that names the --argsfile way, which works
        assert (k.returncode, k.stdout) == (2, ""), k.stderr
        assert "--argsfile sel.args" in k.stderr
        written = hwselect(suite, runner, "--format", "k", "--argsfile", f"k-{runner}.args")
        assert written.stdout == f"@k-{runner}.args\n"
        assert collect(suite, runner, f"@k-{runner}.args") == expected

    files = hwselect(suite, runner, "--format", "files")
    assert set(files.stdout.split()) == {i.split("::")[0] for i in expected}

    # json: each file's expression, and the whole one, evaluated by pytest's own Expression over
    # every item pytest collects on this device (names as -k sees them: dirs, module, class, test)
    everything = collect(suite, runner)
    data = json.loads(hwselect(suite, runner, "--format", "json").stdout)
    listed = {(f["path"], n) for f in data["files"] for c in f["classes"] for n in c["names"]}
    assert {tuple(i.split("::")[:2]) for i in expected} <= listed
    for f in data["files"]:
        if f["expression"] is not None:
            mine = {i for i in everything if i.startswith(f["path"] + "::")}
            assert k_select(f["expression"], mine) == {i for i in expected if i in mine}
    if data["expression"] is not None:
        assert k_select(data["expression"], everything) == expected

    plugin_args = ["--hw-runner", runner, "--hw-taxonomy", "taxonomy.yaml"]
    if RUNNERS[runner][2]:
        plugin_args += ["--hw-backend", "openreg"]
    assert collect(suite, runner, *plugin_args) == expected


def test_expected_cpu_classes_spelled_out(suite):
    """The cpu runner's selection, written by hand (not only compared with the runtime filter)."""
    out = hwselect(suite, "cpu", "--format", "nodeids").stdout.splitlines()
    assert out == [
        "test_collide.py::TestFooCPU",
        "test_collide.py::TestFooBar",
        "test_collide.py::TestFooBarCPUOnly",
        "test_conv.py::Conv",
        "test_filters.py::TestConstantCPU",
        "test_filters.py::TestMpsCPU",
        "test_filters.py::TestXpuOptInCPU",
        "test_filters.py::TestNoPrivateUse1CPU",
        "test_inherit.py::TestChild",
        "test_inherit.py::TestDeviceChildCPU",
        "test_inherit.py::TestUsesShared",
        "test_nested.py",  # TestNestedGeneric is defined under an `if`: no node id is certain
        "test_privateuse.py::TestPrivACPU",
        "test_privateuse.py::TestPrivBCPU",
        "testmatmul_suite/test_mm.py::TestMatmul",
        # a file listed whole is narrowed by the plugin, which composes with a user's own -k
        "--hw-runner",
        "cpu",
        "--hw-taxonomy",
        "taxonomy.yaml",
    ]


def test_cuda_selection_replaces_handwritten_generated_name(suite):
    proc = hwselect(suite, "cuda", "--format", "nodeids")
    out = proc.stdout.split()
    assert "test_collide.py::TestFooCUDA" in out
    assert "replaces the hand-written class TestFooCUDA (line" in proc.stderr
    assert collect(suite, "cuda", "test_collide.py::TestFooCUDA") == {
        "test_collide.py::TestFooCUDA::test_add_cuda",
        "test_collide.py::TestFooCUDA::test_sub_cuda",
    }


def test_k_fails_and_says_why_when_no_expression_is_exact(suite):
    proc = hwselect(suite, "cpu", "--format", "k")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.splitlines() == [
        "hwselect: error: no -k expression selects exactly what runner cpu runs:",
        "  - testmatmul_suite/test_mm.py::TestMatmul: its name is part of the directory name "
        "'testmatmul_suite' of testmatmul_suite/test_mm.py",
        "use a pytest argument file instead: `hwselect cpu . --format k --argsfile sel.args` writes node "
        "ids to sel.args and prints `@sel.args` for pytest",
    ]


def test_k_is_one_expression_when_exact(suite):
    proc = hwselect(suite, "xpu", "--format", "k")
    # test_filters.py also holds a plain test function, so its module name alone would be too much
    assert proc.stdout.splitlines() == [
        "(test_filters.py and TestXpuOptInXPU) or (test_nested.py and TestNestedXPU)"
    ]


def test_include_unclassified(suite):
    proc = hwselect(suite, "cuda", "--format", "nodeids", "--include-unclassified")
    assert "test_collide.py::TestUnclassified" in proc.stdout.split()


def test_privateuse1_accepts_both_names(suite):
    proc = hwselect(suite, "openreg", "--format", "json")
    data = json.loads(proc.stdout)
    classes = {c["name"]: c["names"] for f in data["files"] for c in f["classes"]}
    assert classes["TestPrivAPRIVATEUSE1"] == ["TestPrivAPRIVATEUSE1", "TestPrivAOPENREG"]
    # except_for="openreg" maps back to privateuse1; only_for=("cuda", "openreg") keeps it
    assert "TestNoPrivateUse1PRIVATEUSE1" not in classes
    assert "TestBackendNamePRIVATEUSE1" in classes


def test_plugin_reports_and_keeps_paths_after_its_options(suite):
    args = ["--hw-runner", "cuda", "--hw-taxonomy", "taxonomy.yaml", "test_collide.py", "test_conv.py"]
    proc = shared_server().run(suite, args, {"HW_DEVICE": "cuda"})
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    assert "collected 7 items / 4 deselected / 3 selected" in lines
    assert (
        "hwselect: warning: test_collide.py::TestFooCUDA: replaces the hand-written class TestFooCUDA "
        "(line 52): instantiating TestFoo binds that name in the module"
    ) in lines
    # items, in the runtime's words: TestFooCUDA's 2 tests and TestConvCuda's pass
    assert (
        "hwselect runner cuda active ([ACCELERATOR, CUDA]): total=7, selected=3, unclassified=1, mismatched=3"
    ) in lines


def test_plugin_says_why_nothing_runs(suite):
    args = ["--hw-runner", "mps", "--hw-taxonomy", "taxonomy.yaml", "test_conv.py"]
    proc = shared_server().run(suite, args)
    assert proc.returncode == 5  # pytest's "no tests ran": an empty selection is not green
    # the file holds none of the runner's tests: it is not imported, and the reasons are its classes'
    assert (
        "hwselect runner mps active ([ACCELERATOR, MPS]): total=0, selected=0, unclassified=0, mismatched=0\n"
        "hwselect: runner mps selects nothing:\n"
        "  - 2 classes are classified for other runners: CUDA (1), GENERIC (1); mps runs ACCELERATOR, MPS\n"
        "hwselect: 1 test file without a test of runner mps not imported\n"
    ) in proc.stdout


def test_plugin_rejects_an_unknown_runner(suite):
    proc = shared_server().run(suite, ["--collect-only", "--hw-runner", "tpu"])
    assert proc.returncode == 4
    assert "--hw-runner: unknown runner 'tpu'" in proc.stderr


def test_json_contract(suite):
    data = json.loads(hwselect(suite, "mps", "--format", "json").stdout)
    assert data == {
        "runner": "mps",
        "device": "mps",
        "runs": ["ACCELERATOR", "MPS"],
        "backends": [],
        "counts": {
            "total": 15,
            "selected": 1,
            "mismatched": 13,
            "unclassified": 1,
            "unplaced": 0,
            "tests": 1,
            "not_generated": 11,
            "chosen": 1,
        },
        "expression": "(test_filters.py and TestMpsMPS)",
        "inexact": [],
        "files": [
            {
                "path": "test_filters.py",
                "classes": [
                    {
                        "name": "TestMpsMPS",
                        "names": ["TestMpsMPS"],
                        "classification": "ACCELERATOR",
                        "generic": "TestMps",
                        "tests": 1,
                        "items": 1,
                        "nodeids": None,
                    }
                ],
                "expression": "(test_filters.py and TestMpsMPS)",
                "counts": {
                    "total": 1,
                    "chosen": 1,
                    "selected": 1,
                    "mismatched": 0,
                    "unclassified": 0,
                    "unplaced": 0,
                },
            }
        ],
        "warnings": [],
        "warning_kinds": [],
    }


@pytest.mark.slow  # a pytest session that imports torch
def test_plugin_finds_backend_named_classes_without_being_told_the_backend(suite):
    """The runtime names all but the first PrivateUse1 class after the backend (here: openreg)."""
    expected = truth(suite, "privateuse1")
    assert any("OPENREG::" in i for i in expected)
    assert (
        collect(suite, "privateuse1", "--hw-runner", "privateuse1", "--hw-taxonomy", "taxonomy.yaml")
        == expected
    )


@pytest.mark.slow  # pytest collects every shard
def test_shards_partition_the_selection(suite):
    expected = truth(suite, "cuda")
    parts = []
    for i in (1, 2, 3):
        out = hwselect(suite, "cuda", "--shard", f"{i}/3").stdout
        parts.append(collect(suite, "cuda", as_args(suite, out, f"shard{i}.txt")))
    assert all(parts)
    assert set().union(*parts) == expected
    assert sum(len(p) for p in parts) == len(expected)
    # the plugin's --hw-shard gives the same shards (issue 48, item 1)
    plugin = ["--hw-runner", "cuda", "--hw-taxonomy", "taxonomy.yaml"]
    for i, part in enumerate(parts, 1):
        assert collect(suite, "cuda", *plugin, "--hw-shard", f"{i}/3") == part


def test_plugin_refuses_a_bad_shard(suite):
    proc = shared_server().run(suite, ["--collect-only", "--hw-runner", "cuda", "--hw-shard", "4/3"])
    assert proc.returncode == 4
    assert "--hw-shard expects I/N with 1 <= I <= N, got '4/3'" in proc.stderr


def test_plugin_places_what_the_static_view_cannot(tmp_path):
    """A generic class from another module and a computed declaration: unplaced for hwselect
    (and said so), but the plugin reads the live classification as the runtime does."""
    root = write_suite(
        tmp_path,
        {
            "shared_tests.py": """
class TestForeign(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_f(self, device):
        pass
""",
            "test_uses_shared.py": """
from shared_tests import TestForeign

instantiate_device_type_tests(TestForeign, globals())


class TestComputed(TestCase):
    hw_classification = getattr(HardwareClassification, "GENERIC")

    def test_c(self):
        pass


class TestComputedCuda(TestCase):
    hw_classification = getattr(HardwareClassification, "CUDA")

    def test_cc(self):
        pass
""",
        },
    )
    (root / "taxonomy.yaml").write_text(DEFAULT_TAXONOMY.read_text())
    expected = truth(root, "cpu")
    assert expected == {
        "test_uses_shared.py::TestForeignCPU::test_f_cpu",
        "test_uses_shared.py::TestComputed::test_c",
    }
    assert collect(root, "cpu", "--hw-runner", "cpu") == expected

    proc = hwselect(root, "cpu", "--format", "nodeids")
    assert proc.returncode == 3
    assert "unplaced=3" in proc.stderr
    assert (
        "test_uses_shared.py::TestForeignCPU: TestForeign is not defined in this file, so its "
        "classification is unknown here"
    ) in proc.stderr
