"""Expectations: the file's schema, the pytest plugin applying them with pytest's own accounting,
stale entries, and a node-id list imported into them (round trip)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hwlint.cli.select import main
from hwlint.collection import all_suffixes, key_of_nodeid
from hwlint.select.expectations import ExpectationsError, import_nodeids, load_expectations

from .conftest import DEFAULT_TAXONOMY
from .pytest_server import shared_server

SUITE = """\
import unittest


def instantiate_device_type_tests(generic, scope, **kwargs):
    # torch's, for the cpu device alone (no torch import): TestFoo -> TestFooCPU, test_x ->
    # test_x_cpu, and test_add once per dtype as @dtypes would make it
    tests = {}
    for name, fn in vars(generic).items():
        if name.startswith("test"):
            for dtype in ("_float32", "_float64") if name == "test_add" else ("",):
                tests[f"{name}_cpu{dtype}"] = fn
    del scope[generic.__name__]
    scope[generic.__name__ + "CPU"] = type(generic.__name__ + "CPU", (unittest.TestCase,), tests)


class TestFoo(unittest.TestCase):
    def test_add(self): assert False
    def test_ok(self): pass
    def test_skipme(self): assert False


instantiate_device_type_tests(TestFoo, globals())


class TestBar(unittest.TestCase):
    def test_passes(self): pass
"""

EXPECTATIONS = """\
expectations:
  - key: test_x.py::TestFoo::test_add
    status: xfail
    reason: wrong on this device
    issue: https://example.org/issues/1
    runners: [cpu]
  - key: test_x.py::TestFoo::test_skip*
    status: skip
    reason: hangs
  - key: test_x.py::TestBar::test_passes
    status: xfail
    reason: strict, so its pass fails the run
  - key: test_x.py::TestGone::test_x
    status: skip
    reason: stale
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "test_x.py").write_text(SUITE)
    (tmp_path / "exp.yaml").write_text(EXPECTATIONS)
    # relative: an absolute path among pytest's arguments would move its rootdir, and node ids
    (tmp_path / "taxonomy.yaml").write_text(DEFAULT_TAXONOMY.read_text())
    return tmp_path


def outcome(proc) -> str:
    """pytest's own summary line (``1 failed, 1 passed ...``)."""
    last = proc.stdout.strip().splitlines()[-1]
    return re.sub(r" in [\d.]+s.*$", "", last.strip("= "))


PLUGIN = ["--hw-runner", "cpu", "--hw-include-unclassified", "--hw-taxonomy", "taxonomy.yaml"]


def test_plugin_marks_xfail_strict_and_skip(suite):
    proc = shared_server().run(suite, ["-p", "no:cacheprovider", *PLUGIN, "--hw-expectations", "exp.yaml"])
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the strict xfail that passes
    assert outcome(proc) == "1 failed, 1 passed, 1 skipped, 2 xfailed"
    assert "[XPASS(strict)] strict, so its pass fails the run" in proc.stdout
    assert "3 of 4 entries name collected tests (xfail)" in proc.stdout
    assert "1 name no collected test: test_x.py::TestGone::test_x" in proc.stdout


def test_plugin_deselects(suite):
    args = [
        "-p",
        "no:cacheprovider",
        *PLUGIN,
        "--hw-expectations",
        "exp.yaml",
        "--hw-expectations-mode",
        "deselect",
    ]
    proc = shared_server().run(suite, args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert outcome(proc) == "1 passed, 4 deselected"


def test_entries_for_another_runner_do_not_apply(suite):
    proc = shared_server().run(
        suite,
        ["-p", "no:cacheprovider", "--hw-expectations", "exp.yaml", "--hw-expectations-mode", "deselect"],
    )
    assert outcome(proc) == "2 failed, 1 passed, 2 deselected"  # the cpu entry needs --hw-runner cpu


def test_bad_file_is_a_usage_error_naming_the_entry(suite):
    (suite / "bad.yaml").write_text("- key: test_x.py::TestFoo::test_add\n  status: maybe\n  reason: r\n")
    proc = shared_server().run(suite, ["--hw-expectations", "bad.yaml"])
    assert proc.returncode == 4
    assert "--hw-expectations: " in proc.stderr
    assert "bad.yaml: entry 1: `status` must be one of xfail, skip, got 'maybe'" in proc.stderr


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"key": "a.py::T::t", "status": "skip"}\n', "x.jsonl:1: `reason` must say why"),
        (
            '\n{"key": "a.py::T", "status": "skip", "reason": "r"}\n',
            "x.jsonl:2: `key` must be path::Class::test",
        ),
        (
            '{"key": "a.py::T::t", "status": "skip", "reason": "r", "why": 1}\n',
            "x.jsonl:1: unknown field 'why'",
        ),
        ("{not json\n", "x.jsonl:1: not JSON"),
    ],
)
def test_jsonl_errors_name_the_line(tmp_path, text, error):
    path = tmp_path / "x.jsonl"
    path.write_text(text)
    with pytest.raises(ExpectationsError) as e:
        load_expectations(str(path))
    assert str(e.value).startswith(str(tmp_path / error.split(":")[0]) + error[len(error.split(":")[0]) :])


@pytest.mark.parametrize(
    ("nodeid", "key"),
    [
        ("t.py::TestFooCUDA::test_add_cuda_float32", "t.py::TestFoo::test_add"),
        ("t.py::TestFooCUDA::test_p_x_1_cuda", "t.py::TestFoo::test_p_x_1"),
        ("t.py::TestFooCUDA::test_to_cuda_cuda_int64", "t.py::TestFoo::test_to_cuda"),
        ("t.py::TestFooPRIVATEUSE1::test_add_openreg", "t.py::TestFoo::test_add"),
        ("t.py::TestFooOPENREG::test_add_openreg_bfloat16", "t.py::TestFoo::test_add"),
        ("t.py::TestGeneric::test_to_cuda", "t.py::TestGeneric::test_to_cuda"),
        ("t.py::TestHandCPU::test_plain", "t.py::TestHandCPU::test_plain"),
        ("t.py::TestP::test_x[1-2]", "t.py::TestP::test_x"),
        ("t.py::test_function", None),
    ],
)
def test_key_of_nodeid(taxonomy, nodeid, key):
    assert key_of_nodeid(nodeid, all_suffixes(taxonomy, ("openreg",))) == key


def test_imported_nodeid_list_round_trips(suite, taxonomy, monkeypatch, capsys):
    """Ascend's form (JSON objects holding a node id) and plain lines import into keys; applied by
    the plugin they deselect exactly the listed tests; importing again writes the same file."""
    listed = [
        "test_x.py::TestFooCPU::test_add_cpu_float32",
        "test_x.py::TestFooCPU::test_add_cpu_float64",
        "test_x.py::TestFooCPU::test_skipme_cpu",
    ]
    (suite / "skip.jsonl").write_text(
        json.dumps({"nodeid": listed[0], "reason": "npu precision"})
        + "\n"
        + json.dumps({"nodeid": listed[1]})
        + "\n"
        + listed[2]
        + "\n"
        + "test_x.py::not_in_a_class\n"
    )
    monkeypatch.chdir(suite)
    args = ["expectations", "import", "skip.jsonl", "-o", "out.jsonl", "--taxonomy", str(DEFAULT_TAXONOMY)]
    assert main([*args, "--runner", "cpu"]) == 0
    err = capsys.readouterr().err
    assert "not a test in a class, left out: test_x.py::not_in_a_class" in err
    written = (suite / "out.jsonl").read_text()
    assert [json.loads(line) for line in written.splitlines()] == [
        {
            "key": "test_x.py::TestFoo::test_add",
            "status": "skip",
            "reason": "npu precision",
            "runners": ["cpu"],
        },
        {
            "key": "test_x.py::TestFoo::test_skipme",
            "status": "skip",
            "reason": "imported from a node-id list",
            "runners": ["cpu"],
        },
    ]
    assert main([*args, "--runner", "cpu"]) == 0
    assert (suite / "out.jsonl").read_text() == written
    proc = shared_server().run(
        suite,
        [
            "-p",
            "no:cacheprovider",
            *PLUGIN,
            "--hw-expectations",
            "out.jsonl",
            "--hw-expectations-mode",
            "deselect",
            "--collect-only",
            "-q",
        ],
    )
    kept = {line for line in proc.stdout.splitlines() if "::" in line and not line.startswith("hwselect")}
    assert kept == {"test_x.py::TestFooCPU::test_ok_cpu", "test_x.py::TestBar::test_passes"}
    entries, rejected = import_nodeids(listed, all_suffixes(taxonomy), ["cpu"], "skip", "r")
    assert [e.key for e in entries] == ["test_x.py::TestFoo::test_add", "test_x.py::TestFoo::test_skipme"]
    assert rejected == []


def test_hwselect_reports_stale_entries(suite, monkeypatch, capsys):
    monkeypatch.chdir(suite)
    rc = main(
        [
            "cpu",
            "--taxonomy",
            str(DEFAULT_TAXONOMY),
            "--include-unclassified",
            "--no-cache",
            "--expectations",
            "exp.yaml",
        ]
    )
    assert rc == 0
    err = capsys.readouterr().err
    stale = [line for line in err.splitlines() if "stale on cpu" in line]
    assert stale == [
        "hwselect: exp.yaml: entry 4: test_x.py::TestGone::test_x: stale on cpu: matches no test it selects"
    ]
