"""What a newcomer types without reading the docs, with ruff's answers: unknown selectors, empty
paths, crashes, usage errors and output files all end with a clear line and a documented exit code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import run_tool

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


BROKEN = "import sys; sys.modules['hwlint.pipeline.config'] = None; "


def test_a_crash_exits_2_with_one_line(project):
    # a module made unimportable, as when an install is incomplete
    code = BROKEN + "from hwlint.cli.check import main; sys.exit(main(['check']))"
    res = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stdout == ""
    (line,) = res.stderr.splitlines()
    assert line.startswith(
        "hwlint: error: internal error: ModuleNotFoundError: import of hwlint.pipeline.config halted"
    )


def test_hwselect_crash_exits_2_with_one_line(project):
    code = BROKEN + "from hwlint.cli.select import main; sys.exit(main(['x']))"
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


FIXABLE = (
    "from torch.testing._internal.common_utils import TestCase\n"
    "\n"
    "\n"
    "class TestPlain(TestCase):\n"
    "    def test_x(self):\n"
    "        pass\n"
)


def _apply(text: str, edits: list[dict]) -> str:
    """Apply ruff-style edits (1-based rows and columns), last first."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def pos(loc):
        return starts[loc["row"] - 1] + loc["column"] - 1

    for e in sorted(edits, key=lambda e: pos(e["location"]), reverse=True):
        text = text[: pos(e["location"])] + e["content"] + text[pos(e["end_location"]) :]
    return text


def test_json_fix_is_filled_as_ruff_does_and_matches_fix(tmp_path):
    (tmp_path / "test_a.py").write_text(FIXABLE)
    res = run_tool("hwlint", "check", "--output-format", "json", "test_a.py", cwd=tmp_path)
    (finding,) = json.loads(res.stdout)
    assert finding["fixable"] is True
    assert finding["fix"] == {
        "applicability": "safe",
        "message": "Declare `hw_classification = HardwareClassification.GENERIC` in `TestPlain`",
        "edits": [
            {  # the name added past pycodestyle's 79 columns: the import wrapped, a name a line
                "content": (
                    "from torch.testing._internal.common_utils import (\n"
                    "    HardwareClassification,\n    TestCase,\n)"
                ),
                "location": {"row": 1, "column": 1},
                "end_location": {"row": 1, "column": 58},
            },
            {
                "content": "    hw_classification = HardwareClassification.GENERIC\n\n",
                "location": {"row": 5, "column": 1},
                "end_location": {"row": 5, "column": 1},
            },
        ],
    }
    assert run_tool("hwlint", "check", "--fix", "test_a.py", cwd=tmp_path).returncode == 0
    assert _apply(FIXABLE, finding["fix"]["edits"]) == (tmp_path / "test_a.py").read_text()
    lines = run_tool("hwlint", "check", "--output-format", "json-lines", ".", cwd=tmp_path)
    assert lines.stdout == ""  # fixed: nothing left


def test_unsafe_fix_is_described_and_mixed_class_has_none(tmp_path):
    source = FIXABLE.replace("(self)", "(self, device)") + (
        "\n\nclass TestMixed(TestCase):\n    def test_a(self, device):\n        pass\n\n"
        "    def test_b(self):\n        torch.cuda.synchronize()\n"
    )
    (tmp_path / "test_a.py").write_text(source)
    res = run_tool("hwlint", "check", "--output-format", "json-lines", "test_a.py", cwd=tmp_path)
    found = [json.loads(line) for line in res.stdout.splitlines()]
    summary = [(f["code"], f["fixable"], f["fix"] and f["fix"]["applicability"]) for f in found]
    assert summary[:2] == [("HWC001", False, "unsafe"), ("HWC001", False, None)]
    assert found[0]["fix"]["message"] == (
        "Declare `hw_classification = HardwareClassification.ACCELERATOR` in `TestPlain`"
    )


def test_add_noqa_round_trip(tmp_path):
    source = (
        FIXABLE
        + "\n\nclass TestB(TestCase):  # noqa: E501\n    hw_classification = HardwareClassification.GPU\n\n"
        "    def test_y(self):  # a comment stays\n        pass\n"
    )
    (tmp_path / "test_a.py").write_text(source)
    before = run_tool("hwlint", "check", ".", cwd=tmp_path)
    assert before.returncode == 1
    res = run_tool("hwlint", "check", "--add-noqa", ".", cwd=tmp_path)
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "Added 2 noqa directives.\n")
    text = (tmp_path / "test_a.py").read_text()
    assert "class TestPlain(TestCase):  # noqa: HWC001\n" in text
    assert "    hw_classification = HardwareClassification.GPU  # noqa: HWC002\n" in text
    assert "class TestB(TestCase):  # noqa: E501\n" in text
    after = run_tool("hwlint", "check", ".", cwd=tmp_path)
    assert (after.returncode, after.stdout) == (0, "All checks passed!\n")
    again = run_tool("hwlint", "check", "--add-noqa", ".", cwd=tmp_path)
    assert again.stderr == "Added 0 noqa directives.\n"
    assert (tmp_path / "test_a.py").read_text() == text


def test_add_noqa_merges_into_an_existing_directive(tmp_path):
    (tmp_path / "test_a.py").write_text(FIXABLE.replace("(TestCase):", "(TestCase):  # noqa: E501"))
    res = run_tool("hwlint", "check", "--add-noqa", ".", cwd=tmp_path)
    assert res.returncode == 0
    assert "class TestPlain(TestCase):  # noqa: E501, HWC001\n" in (tmp_path / "test_a.py").read_text()


def test_output_file(tmp_path):
    (tmp_path / "test_a.py").write_text(FIXABLE)
    res = run_tool("hwlint", "check", "-o", "out.json", "--output-format", "json", ".", cwd=tmp_path)
    assert (res.returncode, res.stdout) == (1, "")
    assert [f["code"] for f in json.loads((tmp_path / "out.json").read_text())] == ["HWC001"]
    res = run_tool("hwlint", "check", "--output-file", "missing/dir/out.txt", ".", cwd=tmp_path)
    assert res.returncode == 2 and res.stderr.startswith("hwlint: error: missing/dir/out.txt: cannot write")
