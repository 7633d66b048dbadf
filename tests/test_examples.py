"""The bundled example suite: what `hwlint check examples/` reports is pinned, line by line."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import EXAMPLES, ROOT, expected, run_tool

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
    # examples/pyproject.toml's per-file-ignores silence HWC102 under test/distributed (strict taxonomy)
    res = run_tool(
        "hwlint", "check", "--taxonomy", "taxonomy-strict.yaml", "--output-format", "json", ".", cwd=EXAMPLES
    )
    files = {(Path(f["filename"]).as_posix(), f["code"]) for f in json.loads(res.stdout)}
    assert ("test/distributed/test_c10d_common.py", "HWC202") in files
    assert ("test/distributed/test_c10d_common.py", "HWC102") not in files


def test_examples_flake8_config_uses_the_strict_taxonomy():
    res = run_tool("flake8", "--select", "HWC", "test/test_cuda_kernels.py", cwd=EXAMPLES)
    codes = [line.split()[1] for line in res.stdout.splitlines()]
    assert codes == ["HWC102", "HWC202", "HWC002"], res.stdout + res.stderr


def test_pytorch_config_has_upstream_scope(tmp_path):
    # examples/pytorch/pyproject.toml, copied to a checkout's root, checks what upstream's TEST_LINTER
    # checks: test/**/test_*.py and test/**/*_test.py, minus two vendored directories.
    import os
    import shutil

    from hwlint.config import discover, load_config

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
