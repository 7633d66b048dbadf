"""Configuration per file, as ruff resolves it: the nearest configuration file at or above a file
governs it (its taxonomy, include, exclude, per-file-ignores and selection), and only its own
subtree; ``--config FILE`` and ``--isolated`` pin one for every file; ``--config "key = value"``
and the dedicated options apply over each (issue 26 item 1, issue 28)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import EXAMPLES, run_tool

BAD = "class TestBad:\n    def test_x(self):\n        pass\n"
NPU = (
    "import enum\n"
    'HardwareClassification = enum.Enum("HardwareClassification", "GENERIC NPU")\n\n\n'
    "class TestNpu:\n    hw_classification = HardwareClassification.NPU\n\n"
    "    def test_x(self):\n        pass\n"
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The reproduction of issue 26 item 1: a root configuration, and a pull request's
    ``t/aaa/pyproject.toml`` that ignores everything for "*"."""
    (tmp_path / "pyproject.toml").write_text('[tool.hwlint]\nselect = ["HWC"]\n')
    (tmp_path / "t/aaa").mkdir(parents=True)
    (tmp_path / "t/core").mkdir()
    (tmp_path / "t/aaa/pyproject.toml").write_text('[tool.hwlint.per-file-ignores]\n"*" = ["HWC"]\n')
    (tmp_path / "t/aaa/test_zzz.py").write_text(BAD)
    (tmp_path / "t/core/test_bad.py").write_text(BAD)
    return tmp_path


def _found(res) -> list[str]:
    return sorted(line.split(":")[0] for line in res.stdout.splitlines() if ": HWC" in line)


@pytest.mark.parametrize(
    "paths",
    [["t/aaa/test_zzz.py", "t/core/test_bad.py"], ["t/core/test_bad.py", "t/aaa/test_zzz.py"], ["t"], ["."]],
)
def test_a_subdirectory_config_governs_its_own_subtree_only(tree, paths):
    res = run_tool("hwlint", "check", "--no-cache", *paths, cwd=tree)
    assert res.returncode == 1, res.stdout + res.stderr
    assert _found(res) == ["t/core/test_bad.py"]


def test_config_file_pins_one_configuration_for_every_file(tree):
    res = run_tool("hwlint", "check", "--no-cache", "--config", "pyproject.toml", "t", cwd=tree)
    assert _found(res) == ["t/aaa/test_zzz.py", "t/core/test_bad.py"]
    iso = run_tool("hwlint", "check", "--no-cache", "--isolated", "t", cwd=tree)
    assert _found(iso) == ["t/aaa/test_zzz.py", "t/core/test_bad.py"]


def test_isolated_and_a_config_file_conflict(tree):
    res = run_tool("hwlint", "check", "--isolated", "--config", "pyproject.toml", ".", cwd=tree)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == (
        "hwlint: error: the argument `--config=pyproject.toml` cannot be used with `--isolated` "
        "(`--isolated` ignores every configuration file)\n"
    )
    two = run_tool(
        "hwlint", "check", "--config", "pyproject.toml", "--config", "t/aaa/pyproject.toml", cwd=tree
    )
    assert two.returncode == 2 and "more than one configuration file" in two.stderr


def test_each_subtree_has_its_own_taxonomy_include_and_exclude(tmp_path):
    shutil.copyfile(EXAMPLES / "taxonomy-vendor.yaml", tmp_path / "vendor.yaml")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor/hwlint.toml").write_text('taxonomy = "../vendor.yaml"\ninclude = ["check_*.py"]\n')
    (tmp_path / "vendor/check_npu.py").write_text(NPU)  # NPU exists in the vendor's taxonomy
    (tmp_path / "vendor/test_ignored_name.py").write_text(BAD)  # not what vendor/ includes
    (tmp_path / "core").mkdir()
    (tmp_path / "core/test_npu.py").write_text(NPU)  # the bundled taxonomy has no NPU: HWC002
    (tmp_path / "core/gen").mkdir()
    (tmp_path / "core/gen/test_gen.py").write_text(BAD)
    (tmp_path / "core/.hwlint.toml").write_text('extend-exclude = ["gen"]\n')
    res = run_tool("hwlint", "check", "--no-cache", ".", cwd=tmp_path)
    assert res.returncode == 1
    assert [line.split(": ")[0:2] for line in res.stdout.splitlines()[:-1]] == [
        [
            "core/test_npu.py:6:25",
            "HWC002 Test class `TestNpu` declares `HardwareClassification.NPU`, which is "
            "not a classification in the taxonomy (GENERIC, ACCELERATOR, CPU, CUDA, MPS, XPU).",
        ],
    ]
    shown = run_tool("hwlint", "check", "--show-files", ".", cwd=tmp_path)
    assert shown.stdout == "core/test_npu.py\nvendor/check_npu.py\n"


def test_dot_hwlint_toml_wins_over_hwlint_toml_and_pyproject(tmp_path):
    (tmp_path / "test_a.py").write_text(BAD)
    (tmp_path / "pyproject.toml").write_text('[tool.hwlint]\nignore = ["HWC001"]\n')
    assert run_tool("hwlint", "check", "--no-cache", ".", cwd=tmp_path).returncode == 0
    (tmp_path / "hwlint.toml").write_text('select = ["HWC"]\n')
    assert run_tool("hwlint", "check", "--no-cache", ".", cwd=tmp_path).returncode == 1
    (tmp_path / ".hwlint.toml").write_text('ignore = ["HWC0"]\n')
    assert run_tool("hwlint", "check", "--no-cache", ".", cwd=tmp_path).returncode == 0
    settings = run_tool("hwlint", "check", "--show-settings", ".", cwd=tmp_path).stdout
    assert settings.splitlines()[:2] == [
        "Resolved settings for: test_a.py",
        f"  source = {tmp_path / '.hwlint.toml'}",
    ]


def test_inline_config_overrides_apply_over_every_configuration(tree):
    res = run_tool("hwlint", "check", "--no-cache", "--config", "per-file-ignores = {}", "t", cwd=tree)
    assert _found(res) == ["t/aaa/test_zzz.py", "t/core/test_bad.py"]
    res = run_tool("hwlint", "check", "--no-cache", "--config", "select = ['HWC2']", "t", cwd=tree)
    assert (res.returncode, res.stdout) == (0, "All checks passed!\n")
    # the dedicated options win over an inline override, as in ruff
    res = run_tool(
        "hwlint", "check", "--no-cache", "--config", "select = ['HWC2']", "--select", "HWC", "t", cwd=tree
    )
    assert _found(res) == ["t/core/test_bad.py"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("select = [", "not a configuration file, nor a TOML `key = value` override (invalid TOML: "),
        ("colour = 'red'", "colour: unknown key (expected one of baseline, exclude, "),
        ("select = ['FOO']", "select: unknown rule selector 'FOO'"),
        ("max-file-size = 0", "max-file-size: expected a whole number of megabytes >= 1"),
    ],
)
def test_a_bad_inline_override_is_a_usage_error(tree, value, message):
    res = run_tool("hwlint", "check", "--config", value, "t", cwd=tree)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr.startswith(f"hwlint: error: invalid value {value!r} for '--config': "), res.stderr
    assert message in res.stderr


def test_a_bad_sub_configuration_names_its_file(tree):
    (tree / "t/core/hwlint.toml").write_text("select = ['HWC999']\n")
    res = run_tool("hwlint", "check", "t", cwd=tree)
    assert res.returncode == 2
    assert res.stderr == (
        f"hwlint: error: {tree / 't/core/hwlint.toml'}: select: unknown rule selector 'HWC999' "
        "(`hwlint rule --all` lists the rules)\n"
    )


def test_the_report_follows_each_files_configuration(tree):
    res = run_tool("hwlint", "report", "--no-cache", "--format", "json", "t", cwd=tree)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert [(f["path"], f["code"]) for f in doc["findings"]] == [("t/core/test_bad.py", "HWC001")]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def test_lintrunner_all_files_follows_each_files_configuration(tree, tmp_path):
    # through the real lintrunner: the adapter gets every file at once, the PR's config first
    config = (EXAMPLES / "lintrunner/standalone/.lintrunner.toml").read_text()
    (tree / ".lintrunner.toml").write_text(config.replace("'python3'", repr(sys.executable)))
    _git(tree, "init", "-q")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-qm", "initial")
    res = run_tool(
        "lintrunner", "--data-path", str(tmp_path / "lr-data"), "--all-files", "--output=oneline", cwd=tree
    )
    assert res.returncode == 1, res.stdout + res.stderr
    flagged = sorted({line.split(":")[0] for line in res.stdout.splitlines() if "HW_CLASSIFICATION" in line})
    assert flagged == ["t/core/test_bad.py"], res.stdout
