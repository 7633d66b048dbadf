"""The bundled example suite: what `hwlint check examples/` reports is pinned, line by line."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from .conftest import EXAMPLES, ROOT, expected, run_tool
from .pytest_server import shared_server
from .test_select_torch import FULL

SUITE = EXAMPLES / "test"


def _marked() -> set[tuple[str, int, str]]:
    return {
        (p.relative_to(ROOT).as_posix(), line, code)
        for p in sorted(SUITE.rglob("test_*.py"))
        for line, code in expected(p)
    }


def test_examples_report_exactly_the_marked_lines():
    res = run_tool("hwlint", "check", "--output-format", "json", "examples", cwd=ROOT)
    assert res.returncode == 1, res.stderr
    found = {(f["filename"], f["location"]["row"], f["code"]) for f in json.loads(res.stdout)}
    assert found == _marked()
    assert len(found) == 9


def test_examples_config_applies_when_checking_from_inside(tmp_path):
    # examples/pyproject.toml's per-file-ignores silence HWC102 under test/distributed (strict taxonomy),
    # and only there; its tests without `device` are no finding of their own (HWC102's, once)
    res = run_tool(
        "hwlint", "check", "--taxonomy", "taxonomy-strict.yaml", "--output-format", "json", ".", cwd=EXAMPLES
    )
    files = {(Path(f["filename"]).as_posix(), f["code"]) for f in json.loads(res.stdout)}
    assert ("test/test_cuda_kernels.py", "HWC102") in files
    assert not {f for f in files if f[0] == "test/distributed/test_c10d_common.py"}


def test_flake8_and_hwlint_agree_on_examples():
    # examples/.flake8 and examples/pyproject.toml set one policy; both tools read it from the directory
    lint = run_tool("hwlint", "check", "--output-format", "json", "test", cwd=EXAMPLES)
    ours = {
        (Path(f["filename"]).as_posix(), f["location"]["row"], f["location"]["column"], f["code"])
        for f in json.loads(lint.stdout)
    }
    flake = run_tool("flake8", "--select", "HWC", "test", cwd=EXAMPLES)
    theirs = set()
    for line in flake.stdout.splitlines():
        path, row, col, rest = line.split(":", 3)
        theirs.add((Path(path).as_posix(), int(row), int(col), rest.split()[0]))
    assert len(ours) == 9, lint.stdout + lint.stderr
    assert theirs == ours, flake.stdout + flake.stderr


@pytest.mark.torch
@pytest.mark.slow  # one pytest run that imports torch: about 5 s of torch import alone
def test_examples_run_under_pytest_and_fail_only_where_hwlint_says(tmp_path):
    """With the project's torch (2.13 has no HardwareClassification: the examples' fallback covers it),
    the examples collect and run; the only failures are the mistakes hwlint flags in them."""
    # (forked from the server that imported torch's testing modules for the selection tests)
    try:
        server = shared_server(FULL)
    except ImportError as e:
        pytest.skip(str(e))
    report = tmp_path / "junit.xml"
    res = server.run(EXAMPLES, ["-q", "-p", "no:cacheprovider", f"--junitxml={report}", "test"])
    cases = ElementTree.parse(report).getroot().iter("testcase")
    outcome = {}
    for case in cases:
        kind = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
        outcome[f"{case.get('classname').rsplit('.', 1)[-1]}.{case.get('name')}"] = kind
    failed = sorted(name for name, kind in outcome.items() if kind in ("failure", "error"))
    # HWC201: a GENERIC test taking `device`; HWC102: an ACCELERATOR class never instantiated
    assert failed == ["TestParametrizeGeneric.test_cache", "TestParametrizeStray.test_stray"], res.stdout
    assert res.returncode == 1
    assert sum(kind == "passed" for kind in outcome.values()) >= 10, res.stdout


def test_pytorch_config_has_upstream_scope(tmp_path):
    # examples/pytorch/pyproject.toml, copied to a checkout's root, checks what upstream's TEST_LINTER
    # checks: test/**/test_*.py and test/**/*_test.py, minus two vendored directories.
    import os
    import shutil

    from hwlint.pipeline.config import discover, load_config

    shutil.copyfile(EXAMPLES / "pytorch" / "pyproject.toml", tmp_path / "pyproject.toml")
    files = [
        "test/test_ops.py",
        "test/nn/test_init.py",
        "test/dynamo/export_test.py",
        "test/helpers.py",
        "test/cpython/test_math.py",
        "test/cpp_extensions/open_registration_extension/test/test_openreg.py",
        "test/cpp_extensions/test_other.py",
    ]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    config = load_config(tmp_path / "pyproject.toml")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        found = sorted(Path(p).as_posix() for p in discover(["test"], config))
    finally:
        os.chdir(cwd)
    assert found == [
        "test/cpp_extensions/test_other.py",
        "test/dynamo/export_test.py",
        "test/nn/test_init.py",
        "test/test_ops.py",
    ]
