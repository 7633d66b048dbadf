"""The lintrunner adapter: its JSON contract, and the real ``lintrunner`` binary driving it."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint import __version__
from hwlint import lintrunner as adapter

from .conftest import EXAMPLES, run_tool

CASES = Path(__file__).parent / "fix_cases"
KEYS = ["path", "line", "char", "code", "severity", "name", "original", "replacement", "description"]


def _messages(*argv: str) -> list[dict]:
    out = io.StringIO()
    assert adapter.run(list(argv), out) == 0
    lines = out.getvalue().splitlines()
    messages = [json.loads(line) for line in lines]
    assert all(list(m) == KEYS for m in messages)
    return messages


def test_one_message_per_finding_and_one_replacement_per_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "test_doc.py"
    shutil.copyfile(CASES / "docstring_first.py", target)
    pathsfile = tmp_path / "paths.txt"
    pathsfile.write_text(f"{target}\n")
    messages = _messages(f"@{pathsfile}")
    assert [(m["path"], m["line"], m["char"], m["code"], m["severity"], m["name"]) for m in messages] == [
        (str(target), 6, 1, "HW_CLASSIFICATION", "error", "HWC001"),
        (str(target), 16, 1, "HW_CLASSIFICATION", "error", "HWC001"),
    ]
    first, second = messages
    assert first["original"] == (CASES / "docstring_first.py").read_text()
    assert first["replacement"] == (CASES / "docstring_first.fixed.py").read_text()
    assert (second["original"], second["replacement"]) == (None, None)
    assert first["description"] == (
        "Test class `TestParser` does not declare `hw_classification`. "
        "(HWC001 missing-hw-classification; `hwlint rule HWC001` explains it)\n"
        "Fix: Declare `hw_classification = HardwareClassification.GENERIC` in `TestParser` (safe; no "
        "device evidence: never instantiated; no test takes `device`; no device-specific code)\n"
        "The replacement applies every safe fix in this file (2)."
    )


def test_unparsable_missing_and_mixed_files_become_messages(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    broken = tmp_path / "test_broken.py"
    broken.write_text("class TestBroken(TestCase)\n    pass\n")
    mixed = tmp_path / "test_mixed.py"
    shutil.copyfile(CASES / "several_classes.py", mixed)
    messages = _messages("--code", "HWLINT", str(broken), str(tmp_path / "test_missing.py"), str(mixed))
    brief = [(Path(m["path"]).name, m["line"], m["name"], m["severity"]) for m in messages]
    assert brief == [
        ("test_broken.py", 1, "HWC901", "error"),
        ("test_missing.py", 1, "HWC901", "error"),
        ("test_mixed.py", 6, "HWC001", "error"),
        ("test_mixed.py", 11, "HWC001", "error"),
        ("test_mixed.py", 16, "HWC001", "error"),
        ("test_mixed.py", 16, "HWC004", "warning"),
        ("test_mixed.py", 16, "HWC302", "advice"),
        ("test_mixed.py", 24, "HWC001", "error"),
        ("test_mixed.py", 24, "HWC302", "advice"),
    ]
    assert {m["code"] for m in messages} == {"HWLINT"}
    assert [m["name"] for m in messages if m["replacement"] is not None] == ["HWC001"]
    assert messages[0]["description"].startswith("Cannot check file: SyntaxError: expected ':'.")


def test_bad_taxonomy_is_a_message_and_exit_zero(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 99\n")
    [msg] = _messages("--taxonomy", str(bad), str(tmp_path / "test_x.py"))
    assert (msg["path"], msg["name"], msg["severity"]) == (None, "configuration-error", "error")
    assert msg["description"].startswith("hwlint cannot start: ")


def test_internal_error_is_a_message(tmp_path, monkeypatch):
    import hwlint.fix.apply

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(hwlint.fix.apply, "plan_file", explode)
    [msg] = _messages(str(tmp_path / "test_x.py"))
    assert (msg["name"], msg["description"]) == (
        "HWC900",
        "Internal error in hwlint: RuntimeError: boom. Please report it.",
    )


def test_module_entry_point_exits_zero(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "hwlint.lintrunner", str(tmp_path / "test_gone.py")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["name"] == "HWC901"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture(params=["pytorch", "standalone"])
def repo(tmp_path: Path, request) -> Path:
    """A git repository laid out like PyTorch, with one of the shipped .lintrunner.toml files."""
    repo = tmp_path / "repo"
    (repo / "test" / "nn").mkdir(parents=True)
    (repo / "test" / "cpython").mkdir()
    (repo / "tools" / "linter" / "adapters").mkdir(parents=True)
    # PyTorch's pip_init.py installs name==version from an index: it must never be called
    (repo / "tools/linter/adapters/pip_init.py").write_text(
        'import sys\nopen("init-args.txt", "w").write(" ".join(sys.argv[1:]))\n'
    )
    config = (EXAMPLES / "lintrunner" / request.param / ".lintrunner.toml").read_text()
    assert config.count("'python3'") == 2
    # nothing by name from an index: see test_init_installs_only_what_is_named
    assert "hwlint==" not in config.partition("[[linter]]")[2]
    (repo / ".lintrunner.toml").write_text(config.replace("'python3'", repr(sys.executable)))
    shutil.copyfile(CASES / "docstring_first.py", repo / "test/test_doc.py")
    shutil.copyfile(CASES / "crlf.py", repo / "test/nn/test_crlf.py")
    shutil.copyfile(CASES / "multiline_import.py", repo / "test/nn/cudnn_test.py")
    if request.param == "pytorch":  # PyTorch's config leaves test/cpython out
        shutil.copyfile(CASES / "no_import.py", repo / "test/cpython/test_excluded.py")
    shutil.copyfile(CASES / "no_import.py", repo / "test/helpers.py")  # not a test file name
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "initial")
    return repo


def _wheel(directory: Path) -> Path:
    """A wheel named as hwlint's, holding only its metadata: enough for pip to resolve (the
    hwlint under test stays the installed one)."""
    import zipfile

    wheel = directory / f"hwlint-{__version__}-py3-none-any.whl"
    info = f"hwlint-{__version__}.dist-info"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: hwlint\nVersion: {__version__}\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")
    return wheel


@pytest.mark.slow  # lintrunner init, report and apply, as processes
def test_real_lintrunner_reports_applies_and_is_clean_after(repo: Path, tmp_path: Path, monkeypatch):
    data = ["--data-path", str(tmp_path / "lintrunner-data")]
    monkeypatch.setenv("HWLINT_INSTALL_FROM", str(_wheel(tmp_path)))
    monkeypatch.setenv("PIP_DRY_RUN", "1")  # pip resolves the wheel, offline, and installs nothing
    init = run_tool("lintrunner", *data, "init", cwd=repo)
    assert init.returncode == 0, init.stdout + init.stderr
    assert not (repo / "init-args.txt").exists()  # PyTorch's pip_init.py was not called
    dry = run_tool("lintrunner", *data, "init", "--dry-run", cwd=repo)  # pip, on the wheel named
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert f"-m pip install --quiet --no-index --find-links {tmp_path} {tmp_path}/hwlint-" in dry.stdout

    report = run_tool("lintrunner", *data, "--all-files", "--output=oneline", cwd=repo)
    assert report.returncode == 1, report.stdout + report.stderr
    lines = sorted(line for line in report.stdout.splitlines() if "HW_CLASSIFICATION" in line)
    assert len(lines) == 4, report.stdout
    for path, line in [
        ("test/nn/cudnn_test.py", 15),
        ("test/nn/test_crlf.py", 5),
        ("test/test_doc.py", 6),
        ("test/test_doc.py", 16),
    ]:
        assert any(entry.startswith(f"{path}:{line}:") for entry in lines), (path, report.stdout)
    assert "cpython" not in report.stdout and "helpers" not in report.stdout

    applied = run_tool("lintrunner", *data, "--all-files", "-a", cwd=repo)
    assert applied.returncode == 1, applied.stdout + applied.stderr  # it reports what it fixed
    assert (repo / "test/test_doc.py").read_bytes() == (CASES / "docstring_first.fixed.py").read_bytes()
    assert (repo / "test/nn/test_crlf.py").read_bytes() == (CASES / "crlf.fixed.py").read_bytes()
    assert (repo / "test/nn/cudnn_test.py").read_bytes() == (CASES / "multiline_import.fixed.py").read_bytes()
    if (repo / "test/cpython/test_excluded.py").exists():
        assert (repo / "test/cpython/test_excluded.py").read_bytes() == (CASES / "no_import.py").read_bytes()

    again = run_tool("lintrunner", *data, "--all-files", cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "No lint issues" in again.stdout


def test_usage_errors_are_messages_too(tmp_path):
    [msg] = _messages("--no-such-option", "x.py")
    assert (msg["name"], msg["description"]) == (
        "usage-error",
        "hwlint.lintrunner: unrecognized arguments: --no-such-option",
    )
    [msg] = _messages(f"@{tmp_path / 'missing-pathsfile'}")
    assert msg["name"] == "usage-error"


@pytest.mark.parametrize(
    ("source", "installed"),
    [
        (None, None),  # the placeholder: refused
        (f"hwlint=={__version__}", None),  # a name: pip would ask an index for it
        ("hwlint", None),
        ("git+https://example.com/hwlint.git", None),  # not pinned
        ("git+https://example.com/hwlint.git@main", None),
        ("git+https://example.com/hwlint.git@0123abc", None),  # a short commit names no one commit
        ("/no/such/hwlint-0.1.0-py3-none-any.whl", None),
        ("wheel", "--no-index --find-links"),
        (
            "git+https://example.com/hwlint.git@" + "0123456789" * 4,
            "--no-index --no-deps --no-build-isolation",
        ),
    ],
)
@pytest.mark.parametrize("block", ["standalone", "pytorch"])
def test_init_installs_only_what_is_named(tmp_path, monkeypatch, source, installed, block):
    """Dependency confusion: hwlint is on no index, so whoever registers the name there would be
    installed by every `lintrunner init`. Both configs (the standalone one and PyTorch's block)
    install only a wheel file or a git URL pinned to a commit, never from an index (--no-index),
    and refuse anything else."""
    repo = tmp_path / "repo"
    repo.mkdir()
    config = (EXAMPLES / "lintrunner" / block / ".lintrunner.toml").read_text()
    (repo / ".lintrunner.toml").write_text(config.replace("'python3'", repr(sys.executable)))
    _git(repo, "init", "-q")
    if source == "wheel":
        source = str(_wheel(tmp_path))
    if source is None:
        monkeypatch.delenv("HWLINT_INSTALL_FROM", raising=False)
    else:
        monkeypatch.setenv("HWLINT_INSTALL_FROM", source)
    data = ["--data-path", str(tmp_path / "lintrunner-data")]
    dry = run_tool("lintrunner", *data, "init", "--dry-run", cwd=repo)
    out = dry.stdout + dry.stderr
    if installed is None:
        assert dry.returncode != 0, out
        assert "never from a package index: set HWLINT_INSTALL_FROM" in out
        assert "pip install" not in out
        return
    assert dry.returncode == 0, out
    [command] = [line for line in dry.stdout.splitlines() if "-m pip install" in line]
    assert f"-m pip install --quiet {installed} " in command
    assert command.endswith(source if source.endswith(".whl") else f"hwlint @ {source}")


def test_both_configs_install_with_one_init_command():
    """One installer: PyTorch's block runs the standalone config's init_command, word for word."""
    inits = [
        (EXAMPLES / "lintrunner" / block / ".lintrunner.toml").read_text().partition("init_command = [")[2]
        for block in ("standalone", "pytorch")
    ]
    assert inits[0] and inits[0] == inits[1]
