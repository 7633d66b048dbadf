"""What a newcomer types without reading the docs, with ruff's answers: unknown selectors, empty
paths, crashes, usage errors and output files all end with a clear line and a documented exit code."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import ROOT, run_tool

CLASS = "class TestA:\n    def test_x(self):\n        pass\n"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "test_a.py").write_text(CLASS)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "flag", "value"),
    [
        (["--select", "FOO"], "--select", "FOO"),
        (["--select", "HWC999"], "--select", "HWC999"),
        (["--ignore", "HWX"], "--ignore", "HWX"),
        (["--extend-select", "HWC1,E501"], "--extend-select", "E501"),
    ],
)
def test_unknown_selector_option_exits_2(project, args, flag, value):
    res = run_tool("hwlint", "check", *args, ".", cwd=project)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == (
        f"hwlint: error: invalid value {value!r} for '{flag}': no rule code starts with it "
        "(`hwlint rule --all` lists the rules)\n"
    )


@pytest.mark.parametrize("selector", ["ALL", "HWC", "HWC1", "HWC10", "HWC101", "hwc2"])
def test_known_selectors_are_accepted(project, selector):
    assert run_tool("hwlint", "check", "--select", selector, ".", cwd=project).returncode in (0, 1)


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ('select = ["HWX"]', "select"),
        ('ignore = ["HWC999"]', "ignore"),
        ('[tool.hwlint.per-file-ignores]\n"x/*" = ["W605"]', "per-file-ignores.'x/*'"),
    ],
)
def test_unknown_selector_in_pyproject_exits_2(project, table, key):
    (project / "pyproject.toml").write_text(f"[tool.hwlint]\n{table}\n")
    res = run_tool("hwlint", "check", ".", cwd=project)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr.startswith(f"hwlint: error: {project / 'pyproject.toml'}: tool.hwlint.{key}: ")
    assert "unknown rule selector" in res.stderr


def test_no_test_files_warns_on_stderr(tmp_path):
    (tmp_path / "helpers.py").write_text(CLASS)
    res = run_tool("hwlint", "check", ".", cwd=tmp_path)
    assert (res.returncode, res.stdout) == (0, "All checks passed!\n")
    assert res.stderr == "warning: No test files found under the given path(s)\n"


def test_a_crash_exits_2_with_one_line(project):
    # yaml made unimportable: the taxonomy cannot load, as when an install lacks a dependency
    code = "import sys; sys.modules['yaml'] = None; from hwlint.cli import main; sys.exit(main(['check']))"
    res = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stdout == ""
    (line,) = res.stderr.splitlines()
    assert line.startswith("hwlint: error: internal error: ModuleNotFoundError: import of yaml halted")


def test_hwselect_crash_exits_2_with_one_line(project):
    code = "import sys; sys.modules['yaml'] = None; from hwlint.select_cli import main; sys.exit(main(['x']))"
    res = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True)
    assert res.returncode == 2
    (line,) = res.stderr.splitlines()
    assert line.startswith("hwselect: error: internal error: ModuleNotFoundError:")


def test_usage_error_prints_the_subcommand_usage(project):
    res = run_tool("hwlint", "check", "--bogus", ".", cwd=project)
    assert res.returncode == 2
    assert res.stderr.startswith("usage: hwlint check ")
    assert res.stderr.endswith("hwlint check: error: unrecognized arguments: --bogus\n")
    res = run_tool("hwlint", "report", "--bogus", cwd=project)
    assert res.stderr.startswith("usage: hwlint report ") and res.returncode == 2


def test_no_import_cycles_between_front_ends_and_report_layers():
    """cli/select_cli and report_render/report_html share what they need through a lower module."""
    import ast

    imports: dict[str, set[str]] = {}
    for path in (ROOT / "hwlint").glob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                found.add(node.module)
        imports[path.stem] = found
    for a, b in [("cli", "select_cli"), ("report_html", "report_render")]:
        assert not (b in imports[a] and a in imports[b]), f"{a} <-> {b}"
