"""The baseline (allowlist): writing it, skipping its files, reporting stale entries (HWC902)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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


def _entries(path: str | Path) -> list[tuple]:
    doc = json.loads(Path(path).read_text())
    assert doc["schema"] == "hwlint-baseline/2"
    return [(e["path"], e["class"], e["code"], e["count"]) for e in doc["entries"]]


PLAIN = [("test/test_plain.py", "TestPlain", "HWC001", 1)]
SEVERAL = [
    ("test/nn/test_several.py", "TestCudaOnly", "HWC001", 1),
    ("test/nn/test_several.py", "TestCudaOnly", "HWC302", 1),
    ("test/nn/test_several.py", "TestDevices", "HWC001", 1),
    ("test/nn/test_several.py", "TestGeneric", "HWC001", 1),
    ("test/nn/test_several.py", "TestMixed", "HWC001", 1),
    ("test/nn/test_several.py", "TestMixed", "HWC004", 1),
    ("test/nn/test_several.py", "TestMixed", "HWC302", 1),
]


def test_baseline_records_file_class_and_code(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "--isolated", "test", "-o", "allow.json"]) == 0
    assert _entries("allow.json") == SEVERAL + PLAIN
    assert capsys.readouterr().err == "hwlint: wrote 8 entries (2 files) to allow.json\n"
    # one entry a line: a diff of the baseline shows each class that changed
    lines = Path("allow.json").read_text().splitlines()
    assert lines[:3] == ["{", '  "schema": "hwlint-baseline/2",', '  "entries": [']
    assert lines[-1] == "}" and len(lines) == 3 + 8 + 2


def test_baseline_output_options_are_aliases(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    for i, flag in enumerate(["-o", "--output-file", "--output"]):
        assert main(["baseline", "--isolated", "test", flag, f"b{i}.json"]) == 0
    assert Path("b0.json").read_text() == Path("b1.json").read_text() == Path("b2.json").read_text()


def test_baseline_refuses_to_overwrite_without_regenerate(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("allow.json").write_text('["test/test_plain.py"]\n')
    assert main(["baseline", "--isolated", "test", "--output", "allow.json"]) == 2
    assert capsys.readouterr().err == "hwlint: error: allow.json exists; pass --regenerate to rewrite it\n"
    assert main(["baseline", "--isolated", "test", "--output", "allow.json", "--regenerate"]) == 0
    assert _entries("allow.json") == SEVERAL + PLAIN


def test_check_hides_recorded_findings(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "--isolated", "test", "-o", "allow.json"]) == 0
    capsys.readouterr()
    assert main(["check", "--isolated", "--baseline", "allow.json", "test"]) == 0
    assert capsys.readouterr().out == "All checks passed!\n"


NEW_CLASS = "\n\nclass TestAdded(unittest.TestCase):\n    def test_two(self):\n        pass\n"


def test_a_new_class_in_a_baselined_file_is_reported(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "--isolated", "test", "-o", "allow.json"]) == 0
    with open("test/test_plain.py", "a") as f:
        f.write(NEW_CLASS)
    capsys.readouterr()
    assert main(["check", "--isolated", "--baseline", "allow.json", "test"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" [*]")[0] for line in out[:-2]] == ["test/test_plain.py:15:1: HWC001"]
    assert "TestAdded" in out[0]


def test_a_new_code_in_a_recorded_class_is_reported(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "--isolated", "test", "-o", "allow.json"]) == 0
    path = Path("test/test_plain.py")
    # TestPlain now uses CUDA only: HWC302 is new for it, its HWC001 is recorded
    path.write_text(
        path.read_text().replace("self.assertEqual(torch.tensor(1).item(), 1)", "torch.cuda.synchronize()")
    )
    capsys.readouterr()
    assert main(["check", "--isolated", "--baseline", "allow.json", "test"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("test/test_plain.py:10:1: HWC302 [advice] CUDA test class `TestPlain` ")
    assert "HWC001" not in out and out.endswith(
        "Found 1 advice.\nNo fixes available (1 hidden fix can be enabled with the "
        "`--unsafe-fixes` option).\n"
    )


def test_a_second_class_of_one_name_is_reported(tmp_path, monkeypatch, capsys):
    # classes of one name count: a second `TestPlain` (the runtime keeps the last) is one more
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "--isolated", "test", "-o", "allow.json"]) == 0
    with open("test/test_plain.py", "a") as f:
        f.write(NEW_CLASS.replace("TestAdded", "TestPlain"))
    capsys.readouterr()
    assert main(["check", "--isolated", "--baseline", "allow.json", "test"]) == 1
    out = capsys.readouterr().out
    assert out.count("HWC001") == 2, out  # the key grew: both are shown, the baseline no longer covers it


def test_the_first_format_is_still_read_with_a_warning(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("allow.json").write_text('["test/nn/test_several.py", "test/test_plain.py"]\n')
    assert main(["check", "--isolated", "--baseline", "allow.json", "test"]) == 0
    res = capsys.readouterr()
    assert res.out == "All checks passed!\n"
    assert res.err == (
        "hwlint: warning: allow.json: a list of files is the first baseline format, which hides every "
        "new finding in a listed file; `hwlint baseline --regenerate -o allow.json` records "
        "(file, class, code)\n"
    )


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


def test_stale_class_entries_are_reported_at_their_line(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "--isolated", "test", "-o", "allow.json"]) == 0
    shutil.copyfile(CASES / "no_import.fixed.py", "test/test_plain.py")  # TestPlain declared now
    capsys.readouterr()
    assert main(["check", "--isolated", "--baseline", "allow.json", "test"]) == 1
    line = 3 + len(SEVERAL) + 1  # the entry's own line
    assert capsys.readouterr().out == (
        f"allow.json:{line}:1: HWC902 [warning] Baseline entry `test/test_plain.py: TestPlain HWC001` "
        "has no findings any more; remove it from allow.json.\n"
        "Found 1 warning.\n"
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
    assert _entries(tmp_path / "tools/hwlint-allowlist.json") == SEVERAL + PLAIN
    capsys.readouterr()
    assert main(["check", "."]) == 0
    assert capsys.readouterr().out == "All checks passed!\n"


def test_bad_baseline_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("allow.json").write_text('{"not": "a list"}')
    assert main(["check", "--isolated", "--baseline", "allow.json", "."]) == 2
    assert capsys.readouterr().err == (
        "hwlint: error: allow.json: not a baseline: expected "
        '{"schema": "hwlint-baseline/2", "entries": [...]}\n'
    )


def _special_files(tmp_path: Path) -> list[Path]:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(64 * 1024 * 1024)  # sparse: costs no disk
    return [zero, fifo, big, Path("/proc/self/fd/0")]


def test_a_baseline_that_is_not_a_regular_file_is_refused_unread(tmp_path, monkeypatch, capsys):
    # /dev/zero read until memory ran out; a FIFO or /proc/self/fd/0 (a terminal, a pipe) hung
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test_a.py").write_text("class TestA:\n    def test_x(self):\n        pass\n")
    expected = {
        "zero.json": "not a regular file (character device)",
        "fifo.json": "not a regular file (FIFO)",
        "big.json": "larger than 32768 KB",
    }
    for special in _special_files(tmp_path):
        (tmp_path / "pyproject.toml").write_text(f'[tool.hwlint]\nbaseline = "{special}"\n')
        res = subprocess.run(
            [sys.executable, "-m", "hwlint", "check", "--no-cache", "."],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.PIPE,
        )
        assert (res.returncode, res.stdout) == (2, ""), (special, res.stderr)
        assert res.stderr.startswith(f"hwlint: error: {special}: cannot read baseline: "), res.stderr
        if special.name in expected:
            assert res.stderr.strip().endswith(expected[special.name])
        # the lintrunner adapter says so in one message, and exits 0 (not "Linter failed")
        run = subprocess.run(
            [sys.executable, "-m", "hwlint.lintrunner", "--", str(tmp_path / "test_a.py")],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.PIPE,
        )
        assert run.returncode == 0 and run.stderr == "", run.stderr
        messages = [json.loads(line) for line in run.stdout.splitlines()]
        assert messages[0]["name"] == "configuration-error"
        assert f"{special}: cannot read baseline" in messages[0]["description"]


def test_stale_baseline_entry_is_documented():
    rule = RULES["HWC902"]
    assert (rule.name, rule.check, rule.severity) == ("stale-baseline-entry", None, "warning")
    assert main(["rule", "HWC902"]) == 0
