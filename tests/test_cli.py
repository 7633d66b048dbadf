"""`hwlint check` as a user runs it: formats, selection, noqa, configuration and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import EXAMPLES, run_tool

SOURCE = textwrap.dedent(
    """\
    from torch.testing._internal.common_utils import HardwareClassification, TestCase


    class TestA(TestCase):
        def test_x(self):
            pass


    class TestB(TestCase):  # noqa: HWC001
        def test_x(self):
            pass


    class TestC(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_x(self, device):  # noqa
            pass

        def test_y(self, device):
            pass
    """
)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "test_a.py").write_text(SOURCE)
    (tmp_path / "helpers.py").write_text("class TestNotCollected:\n    def test_x(self):\n        pass\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "ops_test.py").write_text("class TestD:\n    def test_x(self):\n        pass\n")
    return tmp_path


def hwlint(*args, cwd):
    return run_tool("hwlint", *args, cwd=cwd)


def test_concise_output_exit_code_and_summary(project):
    res = hwlint("check", ".", cwd=project)
    assert res.returncode == 1
    assert res.stdout == (
        "sub/ops_test.py:1:1: HWC001 [*] Test class `TestD` does not declare `hw_classification`.\n"
        "test_a.py:4:1: HWC001 [*] Test class `TestA` does not declare `hw_classification`.\n"
        "test_a.py:20:22: HWC201 GENERIC test method `TestC.test_y` takes a `device` parameter.\n"
        "Found 3 errors.\n"
        "[*] 2 fixable with the `--fix` option.\n"
    )
    assert res.stderr == ""


def test_explicit_files_are_always_checked(project):
    res = hwlint("check", "helpers.py", cwd=project)
    assert res.stdout.splitlines()[0].startswith("helpers.py:1:1: HWC001")


def test_select_ignore_and_exit_zero(project):
    assert hwlint("check", "--select", "HWC2", ".", cwd=project).stdout.count("HWC") == 1
    res = hwlint("check", "--ignore", "HWC001", ".", cwd=project)
    assert [line.split()[1] for line in res.stdout.splitlines()[:-1]] == ["HWC201"]
    res = hwlint("check", "--select", "HWC2", "--extend-select", "HWC001", ".", cwd=project)
    assert res.stdout.count("HWC") == 3
    res = hwlint("check", "--ignore", "HWC", "--select", "HWC201", ".", cwd=project)
    assert res.stdout.count("HWC201") == 1  # the more specific prefix wins, as in ruff
    res = hwlint("check", "--exit-zero", ".", cwd=project)
    assert res.returncode == 0 and "Found 3 errors." in res.stdout
    clean = hwlint("check", "--ignore", "HWC", ".", cwd=project)
    assert (clean.returncode, clean.stdout) == (0, "All checks passed!\n")


def test_pyproject_configuration(project):
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
        [tool.hwlint]
        include = ["test_*.py"]
        ignore = ["HWC201"]

        [tool.hwlint.per-file-ignores]
        "test_a.py" = ["HWC001"]
        """
        )
    )
    res = hwlint("check", ".", cwd=project)
    assert (res.returncode, res.stdout) == (0, "All checks passed!\n")
    res = hwlint("check", "--isolated", ".", cwd=project)
    assert res.stdout.count("HWC") == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tool.hwlint]\nselct = ['HWC']\n", "tool.hwlint.selct: unknown key"),
        ("[tool.hwlint]\nselect = 'HWC'\n", "tool.hwlint.select: expected a list of strings"),
        ("[tool.hwlint\n", "invalid TOML"),
    ],
)
def test_bad_configuration_exits_2(project, text, message):
    (project / "pyproject.toml").write_text(text)
    if "selct" not in text and "select" not in text:
        res = hwlint("check", "--config", "pyproject.toml", ".", cwd=project)
    else:
        res = hwlint("check", ".", cwd=project)
    assert res.returncode == 2
    # file, and line when the file is not TOML
    prefix = ("pyproject.toml:1: ", f"{project / 'pyproject.toml'}: ", "pyproject.toml: ")
    assert res.stderr.startswith(tuple(f"hwlint: error: {p}" for p in prefix)), res.stderr
    assert message in res.stderr


def test_usage_errors_exit_2(project):
    res = hwlint("check", "--output-format", "xml", ".", cwd=project)
    assert res.returncode == 2 and "invalid choice: 'xml'" in res.stderr
    assert hwlint("frobnicate", cwd=project).returncode == 2


def test_missing_path_is_reported_not_skipped(project):
    res = hwlint("check", "missing_test.py", "test_a.py", cwd=project)
    assert res.returncode == 1
    first = res.stdout.splitlines()[0]
    assert first == "missing_test.py:1:1: HWC901 Cannot check file: No such file or directory."
    assert "test_a.py:4:1: HWC001" in res.stdout


def test_json_contract(project):
    res = hwlint("check", "--output-format", "json", "test_a.py", cwd=project)
    data = json.loads(res.stdout)
    assert data[1] == {
        "code": "HWC201",
        "name": "device-param-forbidden",
        "message": "GENERIC test method `TestC.test_y` takes a `device` parameter.",
        "filename": "test_a.py",
        "location": {"row": 20, "column": 22},
        "end_location": {"row": 20, "column": 28},
        "fix": None,
        "fixable": False,
        "noqa_row": 20,
        "severity": "error",
        "url": "https://github.com/hwlint/hwlint/blob/main/docs/rules.md#hwc201",
    }
    lines = hwlint("check", "--output-format", "json-lines", "test_a.py", cwd=project).stdout.splitlines()
    assert [json.loads(line) for line in lines] == data


def test_github_format(project):
    res = hwlint("check", "--output-format", "github", "test_a.py", cwd=project)
    assert res.stdout.splitlines()[0] == (
        "::error title=hwlint (HWC001),file=test_a.py,line=4,col=1,endLine=4,endColumn=12::"
        "test_a.py:4:1: HWC001 Test class `TestA` does not declare `hw_classification`."
    )


def test_sarif_format(project):
    res = hwlint("check", "--output-format", "sarif", "test_a.py", cwd=project)
    doc = json.loads(res.stdout)
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"HWC001", "HWC107", "HWC901"}
    assert [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]
    ] == [
        ("HWC001", 4),
        ("HWC201", 20),
    ]


def test_full_format_shows_the_source_line(project):
    res = hwlint("check", "--output-format", "full", "test_a.py", cwd=project)
    assert "20 |     def test_y(self, device):\n   |                      ^^^^^^ HWC201\n" in res.stdout


def test_statistics(project):
    res = hwlint("check", "--statistics", ".", cwd=project)
    assert res.stdout.splitlines()[:2] == [
        "2\tHWC001\t[*] missing-hw-classification",
        "1\tHWC201\t    device-param-forbidden",
    ]


def test_rule_docs():
    res = run_tool("hwlint", "rule", "HWC107")
    assert res.returncode == 0
    assert res.stdout.startswith("# generated-name-collision (HWC107)\n\n## What it does\n")
    by_name = run_tool("hwlint", "rule", "missing-hw-classification")
    assert by_name.stdout.startswith("# missing-hw-classification (HWC001)")
    everything = run_tool("hwlint", "rule", "--all", "--output-format", "json")
    codes = [r["code"] for r in json.loads(everything.stdout)]
    assert codes[:3] == ["HWC001", "HWC002", "HWC003"] and "HWC901" in codes
    unknown = run_tool("hwlint", "rule", "HWC999")
    assert unknown.returncode == 2 and "unknown rule 'HWC999'" in unknown.stderr


def test_version_and_module_entry():
    from hwlint import __version__

    assert run_tool("hwlint", "--version").stdout == f"hwlint {__version__}\n"


def test_paths_may_follow_options(project):
    res = hwlint("check", "test_a.py", "--select", "HWC001", "sub", cwd=project)
    assert [line.split(":")[0] for line in res.stdout.splitlines()[:-2]] == ["sub/ops_test.py", "test_a.py"]
    bad = hwlint("check", "test_a.py", "--bogus", cwd=project)
    assert bad.returncode == 2 and "unrecognized arguments: --bogus" in bad.stderr
    sel = run_tool("hwselect", "cpu", "-q", "--format", "files", "test_a.py", cwd=project)
    assert (sel.returncode, sel.stdout) == (0, "test_a.py\n"), sel.stderr


def test_the_parser_loads_no_checker():
    # `hwlint --version` and usage errors must start fast: building the parser imports no rule,
    # model or taxonomy code (the benchmark times it; this pins the cause).
    import subprocess
    import sys

    code = (
        "import sys; from hwlint.cli.check import main; from hwlint.cli.parser import build_parser; "
        "build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith('hwlint.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    light = [
        "cli",
        "cli.baseline",
        "cli.check",
        "cli.common",
        "cli.output",
        "cli.parser",
        "cli.report",
        "cli.rule",
        "cli.run",
        "cli.stdin",
        "cli.taxonomy",
        "cli.watch",
        "report",
        "report.render",
        "rules",
        "rules.docs",
        "words",
    ]
    assert out.strip() == str([f"hwlint.{m}" for m in light])


def test_a_check_that_fixes_nothing_imports_no_fixer_machinery(tmp_path):
    # ast-grep places the few edits the model cannot, multiprocessing serves a pool and hwlint.fix.apply
    # plans fixes: a check of a few files (one with a fixable finding) needs none of them, and a
    # warm run would pay for all three.
    import subprocess
    import sys

    (tmp_path / "test_a.py").write_text("class TestA(TestCase):\n    def test_x(self):\n        pass\n")
    code = (
        "import sys\n"
        "from hwlint.cli.check import main\n"
        f"rc = main(['check', '--isolated', '--no-cache', {str(tmp_path)!r}])\n"
        "heavy = ('ast_grep_py', 'multiprocessing', 'hwlint.fix.apply')\n"
        "print(rc, sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "[*]" in out
    assert out.splitlines()[-1] == "1 []"


def test_console_scripts_behave_as_the_in_process_runs():
    """The suite runs hwlint's commands in its own process (tests/conftest.py); the installed console
    scripts give the same exit codes and output."""
    runs = [
        ("hwlint", "check", "--no-cache", "--output-format", "json", "test"),
        ("hwselect", "cpu", "--no-cache", "--format", "nodeids", "test"),
        ("hwlint", "check", "--bogus"),
    ]
    results = []
    for args in runs:
        here = run_tool(*args, cwd=EXAMPLES)
        results.append(here)
        exe = str(Path(sys.executable).parent / args[0])
        env = {**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        there = subprocess.run([exe, *args[1:]], cwd=EXAMPLES, capture_output=True, text=True, env=env)
        assert (here.returncode, here.stdout, here.stderr) == (there.returncode, there.stdout, there.stderr)
    assert [r.returncode for r in results] == [1, 0, 2]


def test_a_command_runs_without_the_cycle_collector_and_restores_it():
    import gc

    from hwlint.cli.common import UserError, guarded

    seen = []
    assert guarded("hwlint", lambda: seen.append(gc.isenabled()) or 0) == 0

    def fails() -> int:
        seen.append(gc.isenabled())
        raise UserError("no")

    assert guarded("hwlint", fails) == 2
    assert seen == [False, False]
    assert gc.isenabled()


def test_an_output_format_is_one_writer_and_one_registry_entry(monkeypatch, tmp_path, capsys):
    """issue 24: a format registered once is among `--output-format`'s choices and writes the run."""
    from hwlint.cli import output
    from hwlint.cli.check import main

    def write_codes(findings, out, **_):
        out.write("".join(f"{f.code} {f.path}:{f.line}\n" for f in findings))

    monkeypatch.setitem(output.FORMATS, "codes", output.OutputFormat(write_codes))
    (tmp_path / "test_a.py").write_text(SOURCE)
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert "--output-format {concise,full,json,json-lines,github,sarif,codes}" in capsys.readouterr().out
    path = str(tmp_path / "test_a.py")
    assert main(["check", "--isolated", "--no-cache", "--output-format", "codes", path]) == 1
    assert capsys.readouterr().out == f"HWC001 {path}:4\nHWC201 {path}:20\n"


def test_a_report_format_is_one_renderer_and_one_registry_entry(monkeypatch, tmp_path, capsys):
    from hwlint.cli.check import main
    from hwlint.report import render

    monkeypatch.setitem(render.RENDERERS, "classes", lambda doc, **_: f"{doc['total']['classes']}\n")
    (tmp_path / "test_a.py").write_text(SOURCE)
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "--format {table,markdown,json,html,classes}" in capsys.readouterr().out
    assert main(["report", "--isolated", "--no-cache", "--format", "classes", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "3\n"
