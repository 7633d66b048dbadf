"""Fixes, snapshot style: each file in tests/fix_cases/ against its ``.fixed.py`` twin, byte for byte.

A case with a ``.unsafe.fixed.py`` twin is also fixed with ``--unsafe-fixes``. Every fixed file must
re-check without the findings that were fixed, and a second ``--fix`` must change nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from hwlint.cli.check import main
from hwlint.fix.apply import fix_plan, plan_file, plan_source
from hwlint.fix.merge import insert_declarations
from hwlint.fix.write import write_fixed
from hwlint.model import build_model
from hwlint.rules.check import check_path

from .conftest import run_tool

CASES = Path(__file__).parent / "fix_cases"
SAFE = sorted(p for p in CASES.glob("*.py") if not p.name.endswith(".fixed.py"))
UNSAFE = sorted(CASES.glob("*.unsafe.fixed.py"))


def _fix(tmp_path: Path, case: Path, *flags: str) -> tuple[Path, int]:
    target = tmp_path / case.name
    shutil.copyfile(case, target)
    code = main(["check", "--isolated", "--quiet", "--fix", *flags, str(target)])
    return target, code


@pytest.mark.parametrize("case", SAFE, ids=lambda p: p.stem)
def test_fix_matches_snapshot(case: Path, tmp_path, taxonomy, capsys):
    target, _ = _fix(tmp_path, case)
    assert target.read_bytes() == case.with_suffix(".fixed.py").read_bytes()


@pytest.mark.parametrize("case", UNSAFE, ids=lambda p: p.name.split(".")[0])
def test_unsafe_fix_matches_snapshot(case: Path, tmp_path, capsys):
    source = CASES / (case.name.split(".")[0] + ".py")
    target, _ = _fix(tmp_path, source, "--unsafe-fixes")
    assert target.read_bytes() == case.read_bytes()


@pytest.mark.parametrize("flags", [(), ("--unsafe-fixes",)], ids=["safe", "unsafe"])
@pytest.mark.parametrize("case", SAFE, ids=lambda p: p.stem)
def test_fixed_file_rechecks_clean_and_second_fix_changes_nothing(case, flags, tmp_path, taxonomy, capsys):
    target, _ = _fix(tmp_path, case, *flags)
    once = target.read_bytes()
    plan = plan_file(str(target), taxonomy)
    # Whatever HWC001 is left has no enabled fix: it was left alone on purpose.
    unsafe = bool(flags)
    assert [f for f in plan.findings if f.fix is not None and f.fix.enabled(unsafe)] == []
    _fix_again = main(["check", "--isolated", "--quiet", "--fix", *flags, str(target)])
    assert target.read_bytes() == once
    assert _fix_again in (0, 1)


def _ruff_codes(*paths: Path) -> dict[str, Counter]:
    """ruff's E, W, I and F401 findings (its defaults otherwise: 88 columns) and flake8's blank-line
    codes (E30, W3) per file, by code."""
    out = subprocess.run(
        ["ruff", "check", "--isolated", "--select", "E,W,I,F401", "--output-format", "json", "--exit-zero"]
        + [str(p) for p in paths],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, Counter] = {Path(p).name: Counter() for p in paths}
    for d in json.loads(out.stdout):
        found[Path(d["filename"]).name][d["code"]] += 1
    # pycodestyle's blank lines, which ruff checks only in preview
    blank = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "E30,W3", *map(str, paths)],
        capture_output=True,
        text=True,
    )
    for line in blank.stdout.splitlines():
        path, _, rest = line.partition(":")
        found[Path(path).name][rest.split(": ", 1)[1].split()[0]] += 1
    return found


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_fixed_cases_add_no_style_finding():
    """Written code is clean under ruff's defaults: no fixed case holds more of a code than its case.
    W191 (a tab in the indent) aside: written lines follow the file's indent, tabs in tabs.py."""
    twins = sorted(CASES.glob("*.fixed.py"))
    found = _ruff_codes(*SAFE, *twins)
    worse = {}
    for twin in twins:
        before, after = found[twin.name.split(".")[0] + ".py"], found[twin.name]
        more = {c: (before[c], n) for c, n in after.items() if n > before[c] and c != "W191"}
        if more:
            worse[twin.name] = more
    assert worse == {}
    assert found["unused_import.py"]["F401"] == 0 and found["split_pinned.unsafe.fixed.py"]["F401"] == 0


def test_several_classes_report_fixed_and_remaining(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(CASES / "several_classes.py", "test_several.py")
    assert main(["check", "--isolated", "--fix", "test_several.py"]) == 1
    assert capsys.readouterr().out == (
        "test_several.py:24:1: HWC001 Test class `TestMixed` does not declare `hw_classification`.\n"
        "test_several.py:24:1: HWC004 [warning] Test class `TestMixed` mixes tests that use cuda "
        "(`test_needs_cuda`, e.g. `torch.cuda.synchronize()` (line 29)) with tests that use no device "
        "(`test_cpu_only`): split it into a GENERIC class and a CUDA class.\n"
        "test_several.py:24:1: HWC302 [advice] CUDA test class `TestMixed` could run on every "
        "accelerator: each hard-coded device has a device-neutral spelling.\n"
        "test_several.py:32:1: HWC001 Test class `TestCudaOnly` does not declare `hw_classification`.\n"
        "test_several.py:32:1: HWC302 [advice] CUDA test class `TestCudaOnly` could run on every "
        "accelerator: each hard-coded device has a device-neutral spelling.\n"
        "Found 4 errors, 1 warning and 2 advice (2 fixed, 5 remaining).\n"
        "No fixes available (4 hidden fixes can be enabled with the `--unsafe-fixes` option).\n"
    )


def test_concise_output_marks_fixable_findings(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(CASES / "several_classes.py", "test_several.py")
    assert main(["check", "--isolated", "--select", "HWC001", "test_several.py"]) == 1
    assert capsys.readouterr().out == (
        "test_several.py:6:1: HWC001 [*] Test class `TestGeneric` does not declare `hw_classification`.\n"
        "test_several.py:11:1: HWC001 [*] Test class `TestDevices` does not declare `hw_classification`.\n"
        "test_several.py:16:1: HWC001 Test class `TestMixed` does not declare `hw_classification`.\n"
        "test_several.py:24:1: HWC001 Test class `TestCudaOnly` does not declare `hw_classification`.\n"
        "Found 4 errors.\n"
        "[*] 2 fixable with the `--fix` option "
        "(2 hidden fixes can be enabled with the `--unsafe-fixes` option).\n"
    )
    assert main(["check", "--isolated", "--select", "HWC001", "--unsafe-fixes", "test_several.py"]) == 1
    out = capsys.readouterr().out
    assert "test_several.py:24:1: HWC001 [*] Test class `TestCudaOnly`" in out
    assert out.endswith("Found 4 errors.\n[*] 4 fixable with the `--fix` option.\n")


def test_fix_everything_exits_zero(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(CASES / "docstring_first.py", "test_doc.py")
    assert main(["check", "--isolated", "--fix", "test_doc.py"]) == 0
    assert capsys.readouterr().out == "Found 2 errors (2 fixed, 0 remaining).\n"
    assert main(["check", "--isolated", "--fix", "test_doc.py"]) == 0
    assert capsys.readouterr().out == "All checks passed!\n"


def test_diff_writes_nothing_and_exits_one(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(CASES / "no_import.py", "test_plain.py")
    before = Path("test_plain.py").read_bytes()
    assert main(["check", "--isolated", "--diff", "test_plain.py"]) == 1
    captured = capsys.readouterr()
    assert Path("test_plain.py").read_bytes() == before
    assert captured.out == (
        "--- test_plain.py\n"
        "+++ test_plain.py\n"
        "@@ -5,8 +5,11 @@\n"
        " import unittest\n"
        " \n"
        " import torch\n"
        "+from torch.testing._internal.common_utils import HardwareClassification\n"
        " \n"
        " \n"
        " class TestPlain(unittest.TestCase):\n"
        "+    hw_classification = HardwareClassification.GENERIC\n"
        "+\n"
        "     def test_one(self):\n"
        "         self.assertEqual(torch.tensor(1).item(), 1)\n"
    )
    assert captured.err == (  # each declaration the diff adds, with the rule that chose it
        "test_plain.py:10:1: HWC001 Declare `hw_classification = HardwareClassification.GENERIC` in "
        "`TestPlain` (safe; no device evidence: never instantiated; no test takes `device`; no "
        "device-specific code)\n"
        "Would fix 1 error.\n"
    )
    shutil.copyfile(CASES / "no_import.fixed.py", "test_plain.py")
    assert main(["check", "--isolated", "--diff", "test_plain.py"]) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "No errors would be fixed.\n")


def test_show_fixes_lists_what_was_fixed_and_why(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(CASES / "aliased_import.py", "test_alias.py")
    assert main(["check", "--isolated", "--fix", "--show-fixes", "test_alias.py"]) == 0
    assert capsys.readouterr().out == (
        "Found 1 error (1 fixed, 0 remaining).\n"
        "\n"
        "Fixed 1 error:\n"
        "- test_alias.py:\n"
        "    1 × HWC001 (missing-hw-classification)\n"
        "      line 12: Declare `hw_classification = HC.MPS` in `TestMps` (safe; only_for names one "
        "device: instantiated by `instantiate_device_type_tests` (line 17) "
        'with `only_for="mps"`)\n'
    )


def test_body_on_the_header_line(taxonomy):
    # Not a test class (a test method cannot share the header line), but the engine handles it.
    source = 'class T(TestCase): pass\n\n\nclass U(TestCase):  """Doc."""\n'
    model = build_model(source, "t.py", taxonomy)
    wanted = [(c, "GENERIC") for c in model.classes]
    assert insert_declarations(source, model, taxonomy, wanted) == (
        "from torch.testing._internal.common_utils import HardwareClassification\n"
        "class T(TestCase):\n"
        "    hw_classification = HardwareClassification.GENERIC\n"
        "    pass\n"
        "\n"
        "\n"
        "class U(TestCase):\n"
        '    """Doc."""\n'
        "    hw_classification = HardwareClassification.GENERIC\n"
    )


def test_unparsable_file_is_never_touched(tmp_path, capsys):
    target = tmp_path / "test_broken.py"
    target.write_text("class TestBroken(TestCase)\n    def test_a(self):\n        pass\n")
    before = target.read_bytes()
    assert main(["check", "--isolated", "--fix", "--unsafe-fixes", str(target)]) == 1
    assert target.read_bytes() == before
    assert "HWC901" in capsys.readouterr().out


def test_file_changed_on_disk_is_left_alone(tmp_path, taxonomy):
    target = tmp_path / "test_race.py"
    shutil.copyfile(CASES / "no_import.py", target)
    result = fix_plan(plan_file(str(target), taxonomy), taxonomy)
    target.write_text("# edited by someone else meanwhile\n")
    assert write_fixed(result) is False
    assert result.error == "the file changed on disk while hwlint was fixing it; left unchanged"
    assert target.read_text() == "# edited by someone else meanwhile\n"


def test_edit_landing_just_before_the_rename_is_a_conflict(tmp_path, taxonomy, monkeypatch):
    import hwlint.fix.write

    target = tmp_path / "test_race.py"
    shutil.copyfile(CASES / "no_import.py", target)
    result = fix_plan(plan_file(str(target), taxonomy), taxonomy)
    last_look = hwlint.fix.write._changed_since

    def edit_then_look(*args):
        target.write_text("# edited by someone else meanwhile\n")  # after the first comparison
        return last_look(*args)

    monkeypatch.setattr(hwlint.fix.write, "_changed_since", edit_then_look)
    assert write_fixed(result) is False
    assert result.error == "the file changed on disk while hwlint was fixing it; left unchanged"
    assert target.read_text() == "# edited by someone else meanwhile\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_race.py"]  # no temporary file left


def test_stale_temporary_files_are_removed_and_live_ones_kept(tmp_path, capsys):
    target = tmp_path / "test_x.py"
    shutil.copyfile(CASES / "no_import.py", target)
    stale, live = tmp_path / ".hwlint-killed.tmp", tmp_path / ".hwlint-running.tmp"
    stale.write_text("half a file")
    live.write_text("another run's file")
    os.utime(stale, (1, 1))
    main(["check", "--isolated", "--fix", str(target)])
    assert sorted(p.name for p in tmp_path.iterdir()) == [".hwlint-running.tmp", "test_x.py"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another owner")
def test_fix_keeps_owner_and_group(tmp_path, capsys):
    target = tmp_path / "test_owned.py"
    shutil.copyfile(CASES / "no_import.py", target)
    os.chown(target, 4321, 8765)
    main(["check", "--isolated", "--fix", str(target)])
    assert "hw_classification" in target.read_text()
    assert (target.stat().st_uid, target.stat().st_gid) == (4321, 8765)


def test_hard_linked_file_is_rewritten_in_place(tmp_path, capsys):
    target = tmp_path / "test_linked.py"
    shutil.copyfile(CASES / "no_import.py", target)
    other = tmp_path / "elsewhere.py"
    os.link(target, other)
    inode = target.stat().st_ino
    main(["check", "--isolated", "--fix", str(target)])
    assert "hw_classification" in other.read_text()
    assert target.stat().st_ino == inode and target.stat().st_nlink == 2


def test_symlink_out_of_the_checked_tree_is_not_written_through(tmp_path, capsys):
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    shutil.copyfile(CASES / "no_import.py", outside / "test_x.py")
    (tree / "test_x.py").symlink_to(outside / "test_x.py")
    shutil.copyfile(CASES / "no_import.py", tree / "test_real.py")
    (tree / "test_in.py").symlink_to(tree / "test_real.py")
    before = (outside / "test_x.py").read_bytes()
    main(["check", "--isolated", "--fix", str(tree / "test_x.py"), str(tree / "test_in.py")])
    assert (outside / "test_x.py").read_bytes() == before
    assert "hw_classification" in (tree / "test_real.py").read_text()
    out = capsys.readouterr().out  # such a link is not even read (docs/inputs.md, symbolic links)
    assert "test_x.py:1:1: HWC901 Cannot check file: a symlink to a file outside the checked tree" in out
    # and were it read, it would not be written through
    from hwlint.fix.write import write_if_unchanged

    error = write_if_unchanged(str(tree / "test_x.py"), before, b"x = 1\n", [str(tree / "test_x.py")])
    assert error == "a symlink to a file outside the checked tree; left unchanged"
    assert (outside / "test_x.py").read_bytes() == before


def test_fix_keeps_file_mode_and_leaves_no_temporary_file(tmp_path, capsys):
    target = tmp_path / "test_mode.py"
    shutil.copyfile(CASES / "no_import.py", target)
    os.chmod(target, 0o750)
    main(["check", "--isolated", "--fix", str(target)])
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_mode.py"]


def test_fixed_file_has_no_hwc001_for_fixed_classes(tmp_path, taxonomy, capsys):
    target, _ = _fix(tmp_path, CASES / "several_classes.py", "--unsafe-fixes")
    remaining = {
        f.message for f in check_path(str(target), target.read_bytes(), taxonomy)[0] if f.code == "HWC001"
    }
    # TestMixed, split evenly between cuda and no device, takes CUDA: no class is left undeclared
    assert remaining == set()


def test_a_fixer_bug_leaves_the_file_alone_and_is_reported(tmp_path, capsys, monkeypatch):
    import hwlint.edits.builder

    def broken(*args, **kwargs):
        raise LookupError("no such node")

    monkeypatch.setattr(hwlint.edits.builder.EditBuilder, "declare", broken)
    target = tmp_path / "test_plain.py"
    shutil.copyfile(CASES / "no_import.py", target)
    assert main(["check", "--isolated", "--quiet", "--fix", str(target)]) == 1
    assert target.read_bytes() == (CASES / "no_import.py").read_bytes()
    assert capsys.readouterr().err == (
        f"hwlint: warning: {target}: internal error while fixing "
        "(LookupError: no such node); left unchanged\n"
    )


def test_show_fixes_without_fix_explains_every_missing_declaration(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(CASES / "several_classes.py", "test_several.py")
    assert (
        main(["check", "--isolated", "--quiet", "--select", "HWC001", "--show-fixes", "test_several.py"]) == 1
    )
    report = capsys.readouterr().out.split("\nFixes:\n", 1)[1]
    assert report.splitlines() == [
        "- test_several.py:6: HWC001 Declare `hw_classification = HardwareClassification.GENERIC` in "
        "`TestGeneric` (safe; no device evidence: never instantiated; no test takes `device`; "
        "no device-specific code)",
        "- test_several.py:11: HWC001 Declare `hw_classification = HardwareClassification.ACCELERATOR` "
        "in `TestDevices` (safe; instantiated, every test takes device, none pinned: instantiated by "
        "`instantiate_device_type_tests` (line 36) without `only_for`; every test takes `device`; "
        "no device-pinning decorator)",
        "- test_several.py:16: HWC001 needs --unsafe-fixes: Declare `hw_classification = "
        "HardwareClassification.CUDA` in `TestMixed` (unsafe; half the tests hard-use one device, the "
        "others none: never instantiated; 1 of 2 tests use cuda (`test_needs_cuda`))",
        "- test_several.py:24: HWC001 needs --unsafe-fixes: Declare `hw_classification = "
        "HardwareClassification.CUDA` in `TestCudaOnly` (unsafe; every test hard-uses one device: never "
        "instantiated; every test uses cuda: `torch.cuda.current_stream()` (line 26))",
    ]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            '"""Doc."""\nfrom __future__ import annotations\n'
            "class TestA(TestCase):\n    def test_a(self): ...\n",
            '"""Doc."""\nfrom __future__ import annotations\n'
            "from torch.testing._internal.common_utils import HardwareClassification\n"
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
            "    def test_a(self): ...\n",
            id="after-future-import",
        ),
        pytest.param(
            "class TestA(TestCase):\n    def test_a(self): ...",
            "from torch.testing._internal.common_utils import HardwareClassification\n"
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
            "    def test_a(self): ...",
            id="no-import-no-final-newline",
        ),
        pytest.param(
            "from torch.testing._internal.common_utils import TestCase, \\\n    run_tests\n"
            "class TestA(TestCase):\n    def test_a(self): ...\n",
            # the head would grow longer than 79 characters: the name it sorts before goes on
            "from torch.testing._internal.common_utils import HardwareClassification, \\\n"
            "    TestCase, \\\n    run_tests\nclass TestA(TestCase):\n"
            "    hw_classification = HardwareClassification.GENERIC\n\n"
            "    def test_a(self): ...\n",
            id="backslash-continued-import",
        ),
    ],
)
def test_small_snapshots(taxonomy, before, after):
    result = fix_plan(plan_source(before.encode(), "test_x.py", taxonomy), taxonomy)
    assert result.fixed_text == after


def test_byte_order_mark_is_kept(tmp_path, capsys):
    target = tmp_path / "test_bom.py"
    target.write_bytes(b"\xef\xbb\xbfimport torch\r\nclass TestA(TestCase):\r\n    def test_a(self): ...\r\n")
    main(["check", "--isolated", "--fix", str(target)])
    assert target.read_bytes() == (
        b"\xef\xbb\xbfimport torch\r\n"
        b"from torch.testing._internal.common_utils import HardwareClassification\r\n"
        b"class TestA(TestCase):\r\n    hw_classification = HardwareClassification.GENERIC\r\n\r\n"
        b"    def test_a(self): ...\r\n"
    )


def test_check_fix_reports_a_file_changed_meanwhile(tmp_path, capsys, monkeypatch):
    import hwlint.fix.apply

    target = tmp_path / "test_race.py"
    shutil.copyfile(CASES / "no_import.py", target)
    real_plan_model = hwlint.fix.apply.plan_model

    def plan_then_edit(data, model, *args, **kwargs):
        plan = real_plan_model(data, model, *args, **kwargs)
        if data == (CASES / "no_import.py").read_bytes():  # the plan, not the fixed text's
            with open(model.path, "a") as f:  # someone saves the file while hwlint works on it
                f.write("# saved meanwhile\n")
        return plan

    monkeypatch.setattr(hwlint.fix.apply, "plan_model", plan_then_edit)
    assert main(["check", "--isolated", "--quiet", "--fix", str(target)]) == 1
    assert target.read_text() == (CASES / "no_import.py").read_text() + "# saved meanwhile\n"
    assert capsys.readouterr().err == (
        f"hwlint: warning: {target}: the file changed on disk while hwlint was fixing it; left unchanged\n"
    )


def test_read_only_file_is_reported_and_the_others_are_fixed(tmp_path, capsys):
    locked = tmp_path / "test_locked.py"
    shutil.copyfile(CASES / "no_import.py", locked)
    os.chmod(locked, 0o444)
    other = tmp_path / "test_other.py"
    shutil.copyfile(CASES / "no_import.py", other)
    before = locked.read_bytes()
    main(["check", "--isolated", "--no-cache", "--fix", str(tmp_path)])
    err = capsys.readouterr().err
    assert f"hwlint: warning: {locked}: the file is read-only; left unchanged" in err
    assert locked.read_bytes() == before and stat.S_IMODE(locked.stat().st_mode) == 0o444
    assert other.read_bytes() != before


def test_fix_ends_with_a_summary_of_files_changed(tmp_path, capsys):
    for name in ("test_one.py", "test_two.py"):
        shutil.copyfile(CASES / "no_import.py", tmp_path / name)
    main(["check", "--isolated", "--no-cache", "--quiet", "--fix", str(tmp_path)])
    summary = capsys.readouterr().err.splitlines()[-2:]
    assert summary[0] == "hwlint: fixed 2 errors in 2 files"
    # which import of the enum the fixes wrote, and the evidence (conftest's torch has the enum)
    assert summary[1].startswith(
        "hwlint: where a fix imports the enum, it writes "
        "`from torch.testing._internal.common_utils import HardwareClassification`: the checkout's "
    )
    assert summary[1].endswith("torch/testing/_internal/common_utils.py defines HardwareClassification")


def _one_pass_matches_separate_planning(tree: Path, taxonomy, flags: tuple[str, ...], capsys) -> None:
    """Fix *tree* with ``hwlint check --fix`` (checked, planned and fixed per file in one pass, on
    two processes) and assert that every file is what planning and fixing it alone gives, and
    that the findings reported are what a fresh check of the fixed tree reports."""
    expected = {}
    for p in sorted(tree.rglob("test_*.py")):
        result = fix_plan(plan_file(str(p), taxonomy), taxonomy, unsafe="--unsafe-fixes" in flags)
        expected[p] = result.after.data if result.changed and result.after is not None else p.read_bytes()
    run = ["check", "--isolated", "--no-cache", "--quiet", "--exit-zero", "--jobs", "2", *flags, str(tree)]
    main([*run, "--fix"])
    reported = capsys.readouterr().out
    assert {p: p.read_bytes() for p in expected} == expected
    main(run)
    assert reported == capsys.readouterr().out != ""


@pytest.mark.parametrize("flags", [(), ("--unsafe-fixes",)], ids=["safe", "unsafe"])
def test_one_pass_fix_writes_what_planning_alone_writes_and_leaves_a_fresh_checks_findings(
    flags, tmp_path, taxonomy, capsys
):
    for case in SAFE:
        shutil.copyfile(case, tmp_path / f"test_{case.stem}.py")
    _one_pass_matches_separate_planning(tmp_path, taxonomy, flags, capsys)


REAL_TREE = os.environ.get("HWLINT_REAL_TREE", "")


@pytest.mark.slow
@pytest.mark.skipif(not REAL_TREE, reason="set HWLINT_REAL_TREE to a PyTorch test/ directory")
def test_one_pass_fix_on_a_real_tree_sample(tmp_path, taxonomy, capsys):
    """Every 25th file of a real tree, and a module whose base classes come from another one
    (planned after the check, where the project model can resolve them)."""
    tree = Path(REAL_TREE)
    files = sorted(tree.rglob("test_*.py"))[::25]
    files += [tree / "test_jit.py", tree / "test_jit_string.py"]
    for p in files:
        target = tmp_path / p.relative_to(tree)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, target)
    _one_pass_matches_separate_planning(tmp_path, taxonomy, ("--unsafe-fixes",), capsys)


def test_apply_fixes_plans_with_a_resolver_in_this_process(tmp_path, taxonomy):
    """The seam for the project model: files left out of the check's pass (their findings depend
    on another scanned module) are planned and fixed after it, in this process, with their resolver."""
    from hwlint.fix.apply import FixOptions, apply_fixes
    from hwlint.model import LocalResolver
    from hwlint.pipeline.check import check_paths
    from hwlint.pipeline.config import Config
    from hwlint.pipeline.session import RunOptions, Session
    from hwlint.rules.check import Selection

    (tmp_path / "test_b.py").write_text(
        "from test_a import Base\n\n\nclass TestB(Base):\n    def test_x(self): ...\n"
    )
    asked = []

    class Recording(LocalResolver):
        def resolve_base(self, model, cls, base):
            asked.append((os.getpid(), cls.name, base))
            return super().resolve_base(model, cls, base)

    paths = [str(tmp_path / "test_b.py")]
    found = list(zip(paths, check_paths(paths, taxonomy, jobs=1), strict=True))
    run = apply_fixes(
        found,
        Session.from_config(Config(), RunOptions(2, no_cache=True), taxonomy),
        lambda p: Selection(),
        FixOptions(diff=True),
        resolvers={paths[0]: Recording()},
    )
    assert (os.getpid(), "TestB", "Base") in asked
    assert [f.code for f in run.findings] == ["HWC001"]


def test_a_warm_fix_reads_again_only_the_files_with_something_to_fix(tmp_path, monkeypatch, capsys):
    import hwlint.pipeline.engine

    tree = tmp_path / "tree"
    tree.mkdir()
    fixable, clean = tree / "test_fixable.py", tree / "test_clean.py"
    shutil.copyfile(CASES / "no_import.py", fixable)
    shutil.copyfile(CASES / "no_import.fixed.py", clean)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    main(["check", "--isolated", "--quiet", *cache, str(tree)])  # a warm cache for both files
    read = []
    real_read = hwlint.pipeline.engine.read_stamped
    monkeypatch.setattr(
        hwlint.pipeline.engine,
        "read_stamped",
        lambda path, *a, **k: read.append(path) or real_read(path, *a, **k),
    )
    main(["check", "--isolated", "--quiet", "--fix", *cache, str(tree)])
    assert fixable.read_bytes() == (CASES / "no_import.fixed.py").read_bytes()
    # every file is read to be hashed (both were written just now: their stamps do not stand for
    # their bytes yet); only the one with something to fix is read again, to fix it
    assert sorted(read) == [str(clean), str(fixable), str(fixable)]


@pytest.mark.parametrize(
    ("after", "displaced"),
    [
        # the enum's import above the future import: only a compile would tell
        ("from m import HardwareClassification\nfrom __future__ import annotations\nimport os\n", True),
        # between two future imports
        ("from __future__ import annotations\nimport x\nfrom __future__ import division\nimport os\n", True),
        # after it: nothing to compile
        ("from __future__ import annotations\nimport os\nfrom m import HardwareClassification\n", False),
        # an existing import changed in place, after the future import
        ("from __future__ import annotations\nimport os, sys\n", False),
        # no future import at all
        ("import os\nfrom m import HardwareClassification\n", False),
    ],
)
def test_a_fix_is_compiled_only_when_an_import_may_precede_a_future_import(taxonomy, after, displaced):
    from hwlint.fix.apply import future_displaced

    before = "from __future__ import annotations\nimport os\n"
    if "division" in after:
        before = "from __future__ import annotations\nfrom __future__ import division\nimport os\n"
    old, new = build_model(before, "t.py", taxonomy), build_model(after, "t.py", taxonomy)
    assert future_displaced(old, new) is displaced


def test_a_fix_that_would_break_its_class_is_refused_and_said(tmp_path, capsys, monkeypatch):
    """An answer that would give its class findings that make its tests fail or vanish (GENERIC on
    an instantiated class whose test takes `device`: HWC201, HWC101) is not written, and the run
    says why. No rule answers so today; the inference is replaced to get one."""
    import hwlint.rules.declarations as declarations
    from hwlint.infer import Inference

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(
        declarations,
        "inference",
        lambda ctx, cls: Inference(cls, "GENERIC", False, ("planted",), rule="planted"),
    )
    source = (
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        "from torch.testing._internal.common_utils import TestCase\n\n\n"
        "class TestOps(TestCase):\n    def test_add(self, device):\n        self.assertTrue(True)\n\n\n"
        "instantiate_device_type_tests(TestOps, globals())\n"
    )
    Path("test_ops.py").write_text(source)
    args = [
        "check",
        "--isolated",
        "--no-cache",
        "-j",
        "1",
        "--fix",
        "--unsafe-fixes",
        "--show-fixes",
        "test_ops.py",
    ]
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert Path("test_ops.py").read_text() == source
    assert out.endswith(
        "Fixes:\n- test_ops.py:5: HWC001 no fix: the fixed class would have HWC201: GENERIC test method "
        "`TestOps.test_add` takes a `device` parameter.\n"
    )
    assert "[*]" not in out
    assert err == (
        "hwlint: warning: 1 fix not applied: the fixed class would lose a test, or hold a finding that "
        "breaks its tests (`--show-fixes` says which, and why)\n"
    )


def test_accelerator_on_a_class_nothing_instantiates_is_written_and_left_for_review(
    tmp_path, capsys, monkeypatch
):
    """Tests that take `device` in a class no scanned file instantiates: nothing supplies the
    parameter, before the fix or after it, so ACCELERATOR (the unsafe answer, which every runner
    runs) is written and HWC102 says what a person does next."""
    monkeypatch.chdir(tmp_path)
    source = (
        "from torch.testing._internal.common_utils import TestCase\n\n\n"
        "class TestOps(TestCase):\n    def test_add(self, device):\n        self.assertTrue(True)\n"
    )
    Path("test_ops.py").write_text(source)
    assert main(["check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "test_ops.py"]) == 1
    out, _ = capsys.readouterr()
    assert "    hw_classification = HardwareClassification.ACCELERATOR\n" in Path("test_ops.py").read_text()
    assert out.splitlines()[0] == (
        "test_ops.py:7:1: HWC102 ACCELERATOR test class `TestOps` is never passed to "
        "`instantiate_device_type_tests` in the scanned files."
    )


def test_an_unsafe_fix_may_leave_a_finding_for_a_person(tmp_path, capsys, monkeypatch):
    """AOTAutogradCachePicklerTests-like: a property no test reaches calls torch.cuda.is_available().
    Not safe (GENERIC forbids the call); with --unsafe-fixes the class is declared GENERIC, so a
    classification-filtered run still runs its tests, and the check says what is left (HWC204)."""
    monkeypatch.chdir(tmp_path)
    source = (
        "import torch\nfrom torch.testing._internal.common_utils import TestCase\n\n\n"
        "class TestPickler(TestCase):\n    @property\n    def on_gpu(self):\n"
        "        return torch.cuda.is_available()\n\n"
        "    def test_dump(self):\n        self.assertTrue(True)\n"
    )
    Path("test_pickler.py").write_text(source)
    assert main(["check", "--isolated", "--no-cache", "--fix", "test_pickler.py"]) == 1
    assert Path("test_pickler.py").read_text() == source
    capsys.readouterr()
    assert main(["check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "test_pickler.py"]) == 1
    out, err = capsys.readouterr()
    assert "hw_classification = HardwareClassification.GENERIC" in Path("test_pickler.py").read_text()
    assert out.endswith(
        "test_pickler.py:13:16: HWC204 GENERIC test class `TestPickler` calls the accelerator API "
        "`torch.cuda.is_available()`.\nFound 2 errors (1 fixed, 1 remaining).\n"
    )
    assert "not applied" not in err


def test_a_class_most_of_whose_tests_use_one_device_gets_that_device(tmp_path, capsys, monkeypatch):
    """Undeclared, a classification-filtered run drops the class whole; CUDA (unsafe) runs every
    test on the cuda runner, and HWC004 still says which test to move."""
    monkeypatch.chdir(tmp_path)
    Path("test_mostly.py").write_text(
        "import torch\nfrom torch.testing._internal.common_utils import TestCase\n\n\n"
        "class TestMostlyCuda(TestCase):\n"
        "    def test_a(self):\n        torch.cuda.get_device_properties(0)\n\n"
        "    def test_b(self):\n        torch.cuda.get_device_properties(0)\n\n"
        "    def test_plain(self):\n        pass\n"
    )
    assert main(["check", "--isolated", "--no-cache", "--show-fixes", "test_mostly.py"]) == 1
    out = capsys.readouterr().out
    assert out.endswith(
        "Fixes:\n- test_mostly.py:5: HWC001 needs --unsafe-fixes: Declare `hw_classification = "
        "HardwareClassification.CUDA` in `TestMostlyCuda` (unsafe; most tests hard-use one device, the "
        "others none: never instantiated; 2 of 3 tests use cuda (`test_a`, `test_b`))\n"
    )
    assert "HWC004 [warning] Test class `TestMostlyCuda` mixes tests that use cuda" in out


def test_no_self_device_type_in_a_class_nothing_instantiates(tmp_path, capsys, monkeypatch):
    """`self.device_type` is set by the instantiation on the classes it generates: in an ACCELERATOR
    class that is not instantiated (the unsafe answer for tests on several devices) a hard-coded
    "cuda" is reported (HWC301) but not rewritten to it, where the test would fail with
    AttributeError on every runner."""
    monkeypatch.chdir(tmp_path)
    source = (
        "import torch\n"
        "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
        "class TestTwo(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        '    def test_a(self):\n        torch.ones(1, device="cuda")\n'
    )
    Path("test_two.py").write_text(source)
    assert main(["check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "test_two.py"]) == 1
    out, _ = capsys.readouterr()
    assert Path("test_two.py").read_text() == source
    hwc301 = "test_two.py:9:30: HWC301 ACCELERATOR test class `TestTwo` hard-codes cuda in `test_a`: "
    hwc301 += '`"cuda"`.'
    assert hwc301 + "\n" in out
    assert "[*]" not in out


def test_diff_with_show_fixes_keeps_stdout_a_patch(tmp_path, capsys, monkeypatch):
    """The README pairs them: the diff on stdout, the fix report after the count on stderr."""
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(CASES / "no_import.py", "test_plain.py")
    assert main(["check", "--isolated", "--diff", "test_plain.py"]) == 1
    alone = capsys.readouterr()
    assert main(["check", "--isolated", "--diff", "--show-fixes", "test_plain.py"]) == 1
    both = capsys.readouterr()
    assert both.out == alone.out
    assert both.err.startswith(alone.err)
    assert both.err[len(alone.err) :] == (
        "\nFixes:\n- test_plain.py:10: HWC001 Declare `hw_classification = HardwareClassification.GENERIC` "
        "in `TestPlain` (safe; no device evidence: never instantiated; no test takes `device`; no "
        "device-specific code)\n"
    )


CUDA_ONLY = """\
import torch
from torch.testing._internal.common_utils import TestCase


class TestCudaOnly(TestCase):
    def test_stream(self):
        torch.cuda.current_stream()
"""


def test_the_fix_summaries_count_by_severity(tmp_path, capsys, monkeypatch):
    """One error (HWC001) and one advice (HWC302) fixed: each summary counts them apart, as the
    closing `Found ...` line does, never as two errors (issue 51)."""
    monkeypatch.chdir(tmp_path)
    Path("test_cuda.py").write_text(CUDA_ONLY)
    assert main(["check", "--isolated", "--no-cache", "--unsafe-fixes", "--diff", "test_cuda.py"]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == "Would fix 1 error and 1 advice."
    res = run_tool(
        "hwlint", "check", "--isolated", "--no-cache", "--unsafe-fixes", "--diff", "--stdin-filename",
        "test_cuda.py", "-", input=CUDA_ONLY, cwd=tmp_path,
    )  # fmt: skip
    assert (res.returncode, res.stderr) == (1, "Would fix 1 error and 1 advice.\n")
    assert (
        main(["check", "--isolated", "--no-cache", "--unsafe-fixes", "--fix", "--show-fixes", "test_cuda.py"])
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith(
        "Found 1 error and 1 advice (2 fixed, 0 remaining).\n\nFixed 1 error and 1 advice:\n"
    )
