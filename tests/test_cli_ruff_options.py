"""ruff's habits that users type without reading the docs, each against the installed ``hwlint``:
stdin (``-``, ``--stdin-filename``), ``--fix-only``, ``--no-fix``, ``--exit-non-zero-on-fix``,
``--show-files``, ``--show-settings``, ``--exclude``, ``--respect-gitignore``, ``--watch``, and
options that are never abbreviated (issue 28)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import run_tool, without_enum_note

FIXABLE = "class TestA:\n    def test_x(self):\n        pass\n"
FIXED = (
    "from torch.testing._internal.common_utils import HardwareClassification\n"
    "class TestA:\n    hw_classification = HardwareClassification.GENERIC\n\n"
    "    def test_x(self):\n        pass\n"
)


def _hwlint(
    *args: str, cwd: Path, input: bytes | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    """The installed console script, in a process of its own (stdin is a real byte stream)."""
    exe = Path(sys.executable).parent / "hwlint"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}
    return subprocess.run(
        [str(exe), *args], cwd=cwd, input=input or b"", capture_output=True, timeout=timeout, env=env
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "test_a.py").write_text(FIXABLE)
    return tmp_path


def test_dash_reads_stdin(project):
    res = _hwlint("check", "--no-cache", "-", cwd=project, input=FIXABLE.encode())
    assert res.returncode == 1
    assert res.stdout.decode().splitlines()[0] == (
        "-:1:1: HWC001 [*] Test class `TestA` does not declare `hw_classification`."
    )


def test_stdin_filename_names_the_text_and_picks_its_configuration(project):
    (project / "sub").mkdir()
    (project / "sub/hwlint.toml").write_text('[per-file-ignores]\n"test_b.py" = ["HWC001"]\n')
    named = _hwlint(
        "check", "--no-cache", "--stdin-filename", "test_x.py", "-", cwd=project, input=FIXABLE.encode()
    )
    assert named.stdout.decode().startswith("test_x.py:1:1: HWC001 ")
    # --stdin-filename alone reads stdin too (ruff's); the file's own configuration applies
    ignored = _hwlint(
        "check", "--no-cache", "--stdin-filename", "sub/test_b.py", cwd=project, input=FIXABLE.encode()
    )
    assert (ignored.returncode, ignored.stdout) == (0, b"All checks passed!\n"), ignored.stderr


def test_fix_on_stdin_prints_the_fixed_text(project):
    res = _hwlint(
        "check",
        "--no-cache",
        "--fix",
        "--stdin-filename",
        "test_a.py",
        "-",
        cwd=project,
        input=FIXABLE.encode(),
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.decode() == FIXED
    assert res.stderr.decode() == "Found 1 error (1 fixed, 0 remaining).\n"
    # nothing to fix: the text comes back as it was
    same = _hwlint("check", "--no-cache", "--fix", "-", cwd=project, input=FIXED.encode())
    assert (same.returncode, same.stdout) == (0, FIXED.encode())
    diff = _hwlint(
        "check", "--no-cache", "--diff", "--stdin-filename", "test_a.py", cwd=project, input=FIXABLE.encode()
    )
    assert diff.returncode == 1
    assert b"+    hw_classification = HardwareClassification.GENERIC" in diff.stdout
    assert diff.stderr == b"Would fix 1 error.\n"
    assert (project / "test_a.py").read_text() == FIXABLE  # stdin never writes a file


def test_dash_with_other_paths_is_a_usage_error(project):
    res = run_tool("hwlint", "check", "-", "test_a.py", cwd=project)
    assert (res.returncode, res.stderr) == (
        2,
        "hwlint: error: `-` (stdin) cannot be checked together with other paths\n",
    )


def test_fix_only_reports_nothing_left_over(project):
    (project / "test_b.py").write_text("class TestB:\n    def test_x(self, device):\n        pass\n")
    res = run_tool("hwlint", "check", "--no-cache", "--fix-only", ".", cwd=project)
    assert (res.returncode, res.stdout) == (0, ""), res.stderr
    assert without_enum_note(res.stderr) == "hwlint: fixed 1 error in 1 file\n"
    assert (project / "test_a.py").read_text() == FIXED


def test_exit_non_zero_on_fix(project):
    res = run_tool(
        "hwlint", "check", "--no-cache", "--fix", "--exit-non-zero-on-fix", "test_a.py", cwd=project
    )
    assert res.returncode == 1  # fixed, nothing left: ruff exits 1 all the same
    assert res.stdout == "Found 1 error (1 fixed, 0 remaining).\n"
    again = run_tool(
        "hwlint", "check", "--no-cache", "--fix", "--exit-non-zero-on-fix", "test_a.py", cwd=project
    )
    assert again.returncode == 0  # nothing fixed this time
    both = run_tool("hwlint", "check", "--exit-zero", "--exit-non-zero-on-fix", ".", cwd=project)
    assert (both.returncode, both.stderr) == (
        2,
        "hwlint: error: the argument '--exit-zero' cannot be used with '--exit-non-zero-on-fix'\n",
    )


def test_no_fix_overrides_fix(project):
    res = run_tool("hwlint", "check", "--no-cache", "--fix", "--no-fix", ".", cwd=project)
    assert res.returncode == 1
    assert (project / "test_a.py").read_text() == FIXABLE


def test_show_files_and_show_settings(project):
    (project / "sub").mkdir()
    (project / "sub/test_c.py").write_text(FIXABLE)
    (project / "sub/helper.py").write_text(FIXABLE)
    shown = run_tool("hwlint", "check", "--show-files", cwd=project)
    assert (shown.returncode, shown.stdout) == (0, "sub/test_c.py\ntest_a.py\n")
    settings = run_tool("hwlint", "check", "--show-settings", "--select", "HWC1", ".", cwd=project)
    assert settings.returncode == 0
    lines = settings.stdout.splitlines()
    assert lines[0] == "Resolved settings for: test_a.py"
    assert "  source = (none: defaults)" in lines
    assert "  select = ['HWC1']" in lines


def test_exclude_replaces_and_extend_exclude_adds(project):
    (project / "build").mkdir()
    (project / "build/test_built.py").write_text(FIXABLE)
    (project / "gen").mkdir()
    (project / "gen/test_gen.py").write_text(FIXABLE)

    def files(*args):
        return run_tool("hwlint", "check", "--show-files", *args, ".", cwd=project).stdout.split()

    assert files() == ["gen/test_gen.py", "test_a.py"]  # build/ is a default exclusion
    assert files("--extend-exclude", "gen") == ["test_a.py"]
    assert files("--exclude", "gen") == ["build/test_built.py", "test_a.py"]  # the defaults are replaced


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("--stat", "--statistics"),
        ("--unsafe", "--unsafe-fixes"),
        ("--statistcs", "--statistics"),
        ("--selct", "--select"),
    ],
)
def test_options_are_never_abbreviated_and_a_typo_names_the_option(project, typed, meant):
    res = run_tool("hwlint", "check", typed, ".", cwd=project)
    assert res.returncode == 2
    assert (
        res.stderr.splitlines()[-1]
        == f"hwlint check: error: unrecognized arguments: {typed} (did you mean `{meant}`?)"
    )


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def test_gitignore_is_respected_as_ruff_does(project):
    (project / "generated").mkdir()
    (project / "generated/test_gen.py").write_text(FIXABLE)
    (project / "test_tracked_gen.py").write_text(FIXABLE)
    (project / ".gitignore").write_text("generated/\ntest_*_gen.py\n")
    _git(project, "init", "-q")
    _git(project, "add", "test_a.py", ".gitignore")
    _git(project, "add", "-f", "test_tracked_gen.py")  # tracked: git never ignores it, nor does hwlint

    def files(*args):
        return run_tool("hwlint", "check", "--show-files", *args, cwd=project).stdout.split()

    assert files() == ["test_a.py", "test_tracked_gen.py"]
    assert files("--no-respect-gitignore") == ["generated/test_gen.py", "test_a.py", "test_tracked_gen.py"]
    (project / "hwlint.toml").write_text("respect-gitignore = false\n")
    assert files() == ["generated/test_gen.py", "test_a.py", "test_tracked_gen.py"]
    assert files("--respect-gitignore") == ["test_a.py", "test_tracked_gen.py"]
    # a file named on the command line is checked, ignored or not (ruff's rule)
    assert files("generated/test_gen.py") == ["generated/test_gen.py"]
    (project / "hwlint.toml").unlink()
    assert files("generated") == ["generated/test_gen.py"]  # so is a directory named: its contents


def test_watch_checks_again_when_a_file_changes(project):
    exe = Path(sys.executable).parent / "hwlint"
    env = {**os.environ, "HWLINT_WATCH_INTERVAL": "0.1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [str(exe), "check", "--no-cache", "--watch", "."],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        first = _read_until(proc.stdout, "Found 1 error.", 30)
        assert "test_a.py:1:1: HWC001" in first
        time.sleep(0.3)
        (project / "test_a.py").write_text(FIXED)
        second = _read_until(proc.stdout, "All checks passed!", 30)
        assert "HWC001" not in second
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    err = proc.stderr.read().decode()
    assert err.startswith("Starting hwlint in watch mode...\n")
    assert "File change detected...\n" in err


def _read_until(stream, marker: str, timeout: float) -> str:
    """What the process writes until *marker*, read from the pipe itself (a buffered readline
    would keep what came after it, unseen by the next wait)."""
    import select

    fd = stream.fileno()
    out = b""
    deadline = time.monotonic() + timeout
    while marker.encode() not in out:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"{marker!r} not seen in {timeout} s; got {out!r}")
        chunk = os.read(fd, 65536)
        if not chunk:
            raise AssertionError(f"the watch ended before {marker!r}; got {out!r}")
        out += chunk
    return out.decode()


def test_a_report_of_a_missing_path_is_a_usage_error(tmp_path):
    res = run_tool("hwlint", "report", "--no-cache", "/nonexistent", cwd=tmp_path)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == "hwlint: error: /nonexistent: No such file or directory\n"


def test_the_lintrunner_adapter_says_why_nothing_was_linted(tmp_path):
    import json

    (tmp_path / "paths.txt").write_text("")
    res = subprocess.run(
        [sys.executable, "-m", "hwlint.lintrunner", "--", f"@{tmp_path / 'paths.txt'}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0 and res.stderr == ""
    [msg] = [json.loads(line) for line in res.stdout.splitlines()]
    assert (msg["name"], msg["severity"], msg["path"]) == ("no-files", "advice", None)
    assert "lintrunner --all-files" in msg["description"]


EXEMPT = "# hwlint: noqa\n" + FIXABLE
LINE_NOQA = "class TestB:  # noqa: HWC001\n    def test_x(self):\n        pass\n"


@pytest.mark.slow
def test_ignore_noqa_reports_and_fixes_what_noqa_comments_hide(tmp_path):
    # as ruff's option: a migration declares the classes of files that a blanket file exemption
    # exempts (a classification-filtered run would drop them), and the cache keeps the two apart
    (tmp_path / "test_a.py").write_text(EXEMPT)
    (tmp_path / "test_b.py").write_text(LINE_NOQA)
    plain = _hwlint("check", cwd=tmp_path)
    assert (plain.returncode, plain.stdout.decode()) == (0, "All checks passed!\n")
    ignored = _hwlint("check", "--ignore-noqa", cwd=tmp_path)
    assert ignored.returncode == 1
    assert ignored.stdout.decode().splitlines()[:2] == [
        "test_a.py:2:1: HWC001 [*] Test class `TestA` does not declare `hw_classification`.",
        "test_b.py:1:1: HWC001 [*] Test class `TestB` does not declare `hw_classification`.",
    ]
    assert _hwlint("check", cwd=tmp_path).returncode == 0  # the warm run without the option
    fixed = _hwlint("check", "--ignore-noqa", "--fix", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr.decode()
    assert (tmp_path / "test_a.py").read_text() == "# hwlint: noqa\n" + FIXED
    assert "    hw_classification = HardwareClassification.GENERIC\n" in (tmp_path / "test_b.py").read_text()
    assert _hwlint("check", "--ignore-noqa", cwd=tmp_path).returncode == 0


def test_ignore_noqa_on_stdin_and_with_add_noqa(tmp_path):
    res = _hwlint("check", "--ignore-noqa", "-", cwd=tmp_path, input=EXEMPT.encode())
    assert res.stdout.decode().splitlines()[0] == (
        "-:2:1: HWC001 [*] Test class `TestA` does not declare `hw_classification`."
    )
    both = _hwlint("check", "--ignore-noqa", "--add-noqa", ".", cwd=tmp_path)
    assert both.returncode == 2
    assert "'--add-noqa' cannot be used with '--ignore-noqa'" in both.stderr.decode()
