"""The baseline (allowlist): writing it, skipping its files, reporting stale entries (HWC902)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hwlint.cli.check import main
from hwlint.pipeline.config import load_config
from hwlint.rules.registry import RULES

CASES = Path(__file__).parent / "fix_cases"


def _project(root: Path, config: str = "") -> None:
    """A small project: two files with findings, one clean, and one not matching the test pattern."""
    (root / "test" / "nn").mkdir(parents=True)
    shutil.copyfile(CASES / "no_import.py", root / "test/test_plain.py")
    shutil.copyfile(CASES / "several_classes.py", root / "test/nn/test_several.py")
    shutil.copyfile(CASES / "no_import.fixed.py", root / "test/test_clean.py")
    shutil.copyfile(CASES / "no_import.py", root / "test/helper.py")
    if config:
        (root / "pyproject.toml").write_text(config)


def test_baseline_lists_files_with_findings(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "--isolated", "test", "--output", "allow.json"]) == 0
    assert Path("allow.json").read_text() == '[\n  "test/nn/test_several.py",\n  "test/test_plain.py"\n]\n'
    assert capsys.readouterr().err == "hwlint: wrote 2 files to allow.json\n"


def test_baseline_refuses_to_overwrite_without_regenerate(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("allow.json").write_text('["test/test_plain.py"]\n')
    assert main(["baseline", "--isolated", "test", "--output", "allow.json"]) == 2
    assert capsys.readouterr().err == "hwlint: error: allow.json exists; pass --regenerate to rewrite it\n"
    assert main(["baseline", "--isolated", "test", "--output", "allow.json", "--regenerate"]) == 0
    assert json.loads(Path("allow.json").read_text()) == ["test/nn/test_several.py", "test/test_plain.py"]


def test_check_skips_baselined_files(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("allow.json").write_text('["test/nn/test_several.py", "test/test_plain.py"]\n')
    assert main(["check", "--isolated", "--baseline", "allow.json", "test"]) == 0
    assert capsys.readouterr().out == "All checks passed!\n"


def test_stale_entries_are_reported(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("allow.json").write_text(
        json.dumps(["test/nn/test_several.py", "test/test_clean.py", "test/test_gone.py"], indent=2) + "\n"
    )
    assert main(["check", "--isolated", "--baseline", "allow.json", "test"]) == 1
    assert capsys.readouterr().out == (
        "allow.json:3:1: HWC902 [warning] Baseline entry `test/test_clean.py` has no findings any more; "
        "remove it from allow.json.\n"
        "allow.json:4:1: HWC902 [warning] Baseline entry `test/test_gone.py` has no findings any more; "
        "remove it from allow.json.\n"
        "test/test_plain.py:10:1: HWC001 [*] Test class `TestPlain` does not declare `hw_classification`.\n"
        "Found 1 error and 2 warnings.\n"
        "[*] 1 fixable with the `--fix` option.\n"
    )


def test_fix_leaves_baselined_files_alone(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("allow.json").write_text('["test/test_plain.py"]\n')
    before = Path("test/test_plain.py").read_bytes()
    main(["check", "--isolated", "--baseline", "allow.json", "--fix", "test"])
    assert Path("test/test_plain.py").read_bytes() == before


def test_baseline_from_pyproject(tmp_path, monkeypatch, capsys):
    _project(tmp_path, '[tool.hwlint]\nbaseline = "tools/hwlint-allowlist.json"\n')
    (tmp_path / "tools").mkdir()
    monkeypatch.chdir(tmp_path / "test")  # entries stay relative to the project root, not the cwd
    assert load_config().baseline == str(tmp_path / "tools/hwlint-allowlist.json")
    assert main(["baseline", "."]) == 0
    written = json.loads((tmp_path / "tools/hwlint-allowlist.json").read_text())
    assert written == ["test/nn/test_several.py", "test/test_plain.py"]
    capsys.readouterr()
    assert main(["check", "."]) == 0
    assert capsys.readouterr().out == "All checks passed!\n"


def test_bad_baseline_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("allow.json").write_text('{"not": "a list"}')
    assert main(["check", "--isolated", "--baseline", "allow.json", "."]) == 2
    assert capsys.readouterr().err == "hwlint: error: allow.json: a baseline is a JSON list of file paths\n"


def test_stale_baseline_entry_is_documented():
    rule = RULES["HWC902"]
    assert (rule.name, rule.check, rule.severity) == ("stale-baseline-entry", None, "warning")
    assert main(["rule", "HWC902"]) == 0
