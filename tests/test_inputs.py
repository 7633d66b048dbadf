"""Odd inputs must be loud: bad configuration, unreadable paths, FIFOs, hostile names (docs/inputs.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import run_tool, without_enum_note
from .pytest_server import shared_server

UNCLASSIFIED = (
    "from torch.testing._internal.common_utils import TestCase\n\n\n"
    "class TestFoo(TestCase):\n    def test_a(self):\n        pass\n"
)
GENERIC = (
    "from torch.testing._internal.common_utils import TestCase\n\n\n"
    "class TestFoo(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
    "    def test_a(self):\n        pass\n"
)

NOT_DECLARED = "does not declare `hw_classification`."

# every command that reads [tool.hwlint], as (argv before the paths, exit status on a clean run)
COMMANDS = {
    "check": ("hwlint", "check"),
    "report": ("hwlint", "report", "--format", "json"),
    "baseline": ("hwlint", "baseline", "--output", "{tmp}/bl.json"),
    "hwselect": ("hwselect", "cpu"),
    "hwselect-matrix": ("hwselect", "--format", "matrix"),
}


def _run_with_timeout(argv: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    """run_tool with a short timeout: a hang fails the test instead of the suite."""
    exe = Path(sys.executable).parent / argv[0]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}
    try:
        return subprocess.run(
            [str(exe), *argv[1:]], cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(argv)} hung for {timeout} s")


def _argv(name: str, tmp_path: Path, *paths: str) -> list[str]:
    return [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[name]] + list(paths)


# -- 6. a pyproject.toml that is not TOML, or not UTF-8 ------------------------------------------


NOT_TOML = (b'[tool.hwlint]\ninclude = ["test_*.py"\n', "invalid TOML", 3)
NOT_UTF8 = (b"[tool.hwlint]\n# caf\xe9\nmax-file-size = 1\n", "not UTF-8", 2)


@pytest.mark.parametrize(
    ("command", "broken"),
    [
        ("check", NOT_TOML),
        ("check", NOT_UTF8),
        ("report", NOT_UTF8),
        ("baseline", NOT_TOML),
        ("hwselect", NOT_UTF8),
        ("hwselect-matrix", NOT_TOML),
    ],
)
def test_broken_pyproject_is_exit_2_naming_file_and_line(tmp_path, command, broken):
    content, detail, line = broken
    proj = tmp_path / "proj"
    (proj / "tests").mkdir(parents=True)
    (proj / "pyproject.toml").write_bytes(content)
    (proj / "tests" / "test_foo.py").write_text(GENERIC)
    res = run_tool(*_argv(command, tmp_path, "tests"), cwd=proj)
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    assert f"{proj / 'pyproject.toml'}:{line}: {detail}" in res.stderr, res.stderr


def test_broken_pyproject_is_a_message_in_the_lintrunner_adapter(tmp_path):
    (tmp_path / "pyproject.toml").write_bytes(b"[tool.hwlint\n")
    (tmp_path / "test_foo.py").write_text(GENERIC)
    res = run_tool(sys.executable, "-m", "hwlint.lintrunner", str(tmp_path / "test_foo.py"), cwd=tmp_path)
    assert res.returncode == 0
    [msg] = [json.loads(line) for line in res.stdout.splitlines()]
    assert msg["name"] == "configuration-error"
    assert f"{tmp_path / 'pyproject.toml'}:1: invalid TOML" in msg["description"]


# -- 7, 8. one rule for finding the configuration, and every shared key honoured -----------------


def _configured_project(tmp_path: Path) -> Path:
    """A project whose [tool.hwlint] excludes `skipped/` and caps files at 1 MB."""
    proj = tmp_path / "proj"
    for d in ("tests", "tests/skipped"):
        (proj / d).mkdir(parents=True)
    (proj / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [tool.hwlint]
            extend-exclude = ["skipped"]
            max-file-size = 1
            """
        )
    )
    (proj / "tests" / "test_foo.py").write_text(GENERIC)
    (proj / "tests" / "skipped" / "test_bar.py").write_text(UNCLASSIFIED.replace("TestFoo", "TestBar"))
    big = GENERIC.replace("TestFoo", "TestBig") + "#" * (1024 * 1024) + "\n"
    (proj / "tests" / "test_big.py").write_text(big)
    return proj


def test_every_command_finds_the_configuration_above_the_first_path(tmp_path):
    proj = _configured_project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    tests = str(proj / "tests")

    check = run_tool("hwlint", "check", "--no-cache", "--output-format", "json", tests, cwd=elsewhere)
    assert check.returncode == 1, check.stderr
    assert [(Path(f["filename"]).name, f["code"]) for f in json.loads(check.stdout)] == [
        ("test_big.py", "HWC901")
    ]

    report = run_tool("hwlint", "report", "--no-cache", "--format", "json", tests, cwd=elsewhere)
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["total"]["files"] == 2

    select = run_tool("hwselect", "cpu", "--no-cache", tests, cwd=elsewhere)
    assert select.returncode == 0, select.stderr
    # skipped/ is excluded; test_big.py is over the 1 MB cap, so it is not read (and says so)
    assert select.stdout.splitlines() == [f"{tests}/test_foo.py::TestFoo"]
    assert "test_big.py: cannot read: the file is larger than the 1 MB limit" in select.stderr

    matrix = run_tool("hwselect", "--format", "matrix", "--no-cache", tests, cwd=elsewhere)
    assert matrix.returncode == 0, matrix.stderr
    assert {(r["runner"], r["classes"]) for r in json.loads(matrix.stdout)["include"]} == {("cpu", 1)}


def test_hwselect_honours_max_file_size(tmp_path):
    proj = _configured_project(tmp_path)
    res = run_tool("hwselect", "cpu", "--no-cache", "tests", cwd=proj)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["tests/test_foo.py::TestFoo"]
    assert "tests/test_big.py: cannot read: the file is larger than the 1 MB limit" in res.stderr


# -- 11. -k never carries a name pytest's lexer rejects ------------------------------------------

ENUM = "import enum\n\n\nclass HardwareClassification(enum.Enum):\n    GENERIC = 'generic'\n\n\n"


def _klass(name: str, classified: bool) -> str:
    decl = "    hw_classification = HardwareClassification.GENERIC\n\n" if classified else ""
    return f"class {name}:\n{decl}    def test_a(self):\n        pass\n\n\n"


def _pytest_collect(root: Path, *args: str) -> set[str]:
    proc = shared_server().run(root, ["--collect-only", "-q", "-p", "no:cacheprovider", *args])
    assert proc.returncode in (0, 5), proc.stdout + proc.stderr
    return {line for line in proc.stdout.splitlines() if "::" in line}


@pytest.mark.parametrize(
    ("classes", "form"),
    [
        # the chosen class cannot be named, but the other one can be excluded: still one -k
        ([("Test·Chosen", True), ("TestOther", False)], "k"),
        # neither can be named: no -k (exit 2); node ids through --argsfile, which pytest resolves exactly
        ([("Test·Chosen", True), ("Test·Other", False)], "nodeids"),
        # an unchosen class that cannot be named is not excluded by name
        ([("TestChosenWithALongName", True), ("Test\u20d7O", False)], "k"),
        # U+20D7 is a combining mark with no precomposed form, so Python's NFKC keeps it
        ([("Test\u20d7Chosen", True), ("Test\u20d7Other", False), ("TestPlain", False)], "nodeids"),
    ],
    ids=["middle-dot-excluded", "middle-dot", "combining-mark-unchosen", "combining-mark-chosen"],
)
def test_k_format_never_emits_what_pytest_rejects(tmp_path, classes, form):
    (tmp_path / "test_names.py").write_text(ENUM + "".join(_klass(n, c) for n, c in classes), "utf-8")
    (tmp_path / "test_more.py").write_text(ENUM + _klass("TestMore", False), "utf-8")
    res = run_tool("hwselect", "cpu", "--format", "k", "--no-cache", ".", cwd=tmp_path)
    if form == "k":
        assert res.returncode == 0, res.stderr
        out = res.stdout.splitlines()
        assert len(out) == 1, out
        args = ["-k", out[0]]
    else:
        assert (res.returncode, res.stdout) == (2, "")
        assert "which pytest's -k cannot parse" in res.stderr and "--argsfile" in res.stderr
        written = run_tool("hwselect", "cpu", "--format", "k", "--argsfile", "sel.args", ".", cwd=tmp_path)
        assert written.stdout == "@sel.args\n"
        out = (tmp_path / "sel.args").read_text().splitlines()
        assert all("::" in line for line in out), out
        args = ["@sel.args"]
    chosen = {f"test_names.py::{n}::test_a" for n, c in classes if c}
    assert _pytest_collect(tmp_path, *args) == chosen


# -- 9. trees nested past the recursion limit, paths past PATH_MAX --------------------------------


def _chain(top: Path, name: str, depth: int, leaf: str) -> None:
    """top/name/name/.../leaf (a test file), built through directory descriptors so that no path
    is ever longer than one name."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            nxt = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        out = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, UNCLASSIFIED.encode())
        os.close(out)
    finally:
        os.close(fd)


def _unchain(top: Path, name: str, depth: int, leaf: str) -> None:
    """Remove what :func:`_chain` built, deepest first (rmtree recurses, and names long paths)."""
    fds = [os.open(top, os.O_RDONLY)]
    for _ in range(depth):
        fds.append(os.open(name, os.O_RDONLY, dir_fd=fds[-1]))
    os.unlink(leaf, dir_fd=fds[-1])
    for fd in reversed(fds[1:]):
        os.close(fd)
        os.rmdir(name, dir_fd=fds[fds.index(fd) - 1])
    os.close(fds[0])


def test_a_tree_nested_past_the_recursion_limit_is_walked(tmp_path):
    depth = sys.getrecursionlimit() + 200
    _chain(tmp_path, "d", depth, "test_deep.py")
    try:
        res = run_tool("hwlint", "check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
        assert "Traceback" not in res.stderr, res.stderr[-2000:]
        assert res.returncode == 1, res.stderr[-2000:]
        [finding] = json.loads(res.stdout)
        assert (finding["filename"], finding["code"]) == ("d/" * depth + "test_deep.py", "HWC001")
    finally:
        _unchain(tmp_path, "d", depth, "test_deep.py")


def test_a_path_past_the_os_limit_is_reported_not_dropped(tmp_path):
    name = "n" * 200
    limit = os.pathconf(tmp_path, "PC_PATH_MAX")
    depth = limit // len(name) + 2
    _chain(tmp_path, name, depth, "test_far.py")
    (tmp_path / "test_near.py").write_text(UNCLASSIFIED)
    try:
        res = run_tool("hwlint", "check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
        assert "Traceback" not in res.stderr, res.stderr
        assert res.returncode == 1, res.stderr
        found = [(f["filename"], f["code"], f["message"]) for f in json.loads(res.stdout)]
        assert ("test_near.py", "HWC001", f"Test class `TestFoo` {NOT_DECLARED}") in found
        # the first directory whose path is too long to list is named, like ruff's E902
        [(path, code, message)] = [f for f in found if f[0] != "test_near.py"]
        assert code == "HWC901"
        assert message == "Cannot check file: cannot list directory: File name too long."
        assert path.startswith(f"{name}/") and len(path) + len(str(tmp_path)) + 1 >= limit
        sel = run_tool("hwselect", "cpu", "--no-cache", "--include-unclassified", ".", cwd=tmp_path)
        assert sel.returncode == 0, sel.stderr
        assert sel.stdout.splitlines() == ["test_near.py::TestFoo"]
        assert f"hwselect: warning: {path}: cannot list directory: File name too long" in sel.stderr
    finally:
        _unchain(tmp_path, name, depth, "test_far.py")


# -- 10. FIFOs and other non-regular files named like test files ----------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
@pytest.mark.parametrize("command", ["check", "report", "hwselect", "hwselect-matrix", "explicit"])
def test_a_fifo_named_like_a_test_file_is_skipped_with_a_warning(tmp_path, command):
    (tmp_path / "test_ok.py").write_text(GENERIC)
    os.mkfifo(tmp_path / "test_fifo.py")
    if command == "explicit":
        argv = ["hwlint", "check", "--no-cache", "test_ok.py", "test_fifo.py"]
    else:
        argv = [*_argv(command, tmp_path), "--no-cache", "."]
    res = _run_with_timeout(argv, tmp_path, 20)
    assert res.returncode == 0, (res.stdout, res.stderr)
    assert "test_fifo.py: not a regular file (FIFO); skipped" in res.stderr, res.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
def test_reading_a_fifo_never_blocks(tmp_path):
    # the lintrunner adapter reads the paths it is given without discovery: the reader itself refuses
    os.mkfifo(tmp_path / "test_fifo.py")
    res = _run_with_timeout(["python", "-m", "hwlint.lintrunner", "test_fifo.py"], tmp_path, 20)
    assert res.returncode == 0, res.stderr
    [msg] = [json.loads(line) for line in res.stdout.splitlines()]
    assert (msg["path"], msg["name"]) == ("test_fifo.py", "HWC901")
    assert msg["description"].startswith("Cannot check file: not a regular file (FIFO).")


# -- 12. the lintrunner adapter: paths are data ---------------------------------------------------


def _adapter(*argv: str, cwd: Path) -> list[dict]:
    res = _run_with_timeout(["python", "-m", "hwlint.lintrunner", *argv], cwd, 60)
    assert res.returncode == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_adapter_paths_are_data(tmp_path):
    names = ["-dash_test.py", "@at_test.py", " lead_test.py", "trail_test.py ", "--code=X_test.py"]
    for name in names:
        (tmp_path / name).write_text(UNCLASSIFIED)
    (tmp_path / "paths.txt").write_text("".join(f"{n}\n" for n in names))
    for argv in (["@paths.txt"], ["--", "@paths.txt"], ["--", *[n for n in names if not n.startswith("@")]]):
        msgs = _adapter(*argv, cwd=tmp_path)
        assert [(m["path"], m["name"], m["code"]) for m in msgs] == [
            (n, "HWC001", "HW_CLASSIFICATION") for n in names if argv[-1] == "@paths.txt" or n[0] != "@"
        ], argv


def test_adapter_help_is_one_json_message(tmp_path):
    for flag in ("-h", "--help"):
        [msg] = _adapter(flag, cwd=tmp_path)
        assert (msg["name"], msg["severity"], msg["path"]) == ("usage", "advice", None)
        assert msg["description"].startswith("usage: python -m hwlint.lintrunner")
        assert "a path starting with - or @ is a path" in " ".join(msg["description"].split())


def test_real_lintrunner_lints_a_path_with_spaces(tmp_path):
    from .test_lintrunner import _git

    repo = tmp_path / "repo"
    (repo / "test").mkdir(parents=True)
    config = (
        Path(__file__).parent.parent / "examples" / "lintrunner" / "pytorch" / ".lintrunner.toml"
    ).read_text()
    config = config.replace("'python3'", repr(sys.executable)).replace(
        "'test/**/test_*.py'", "'test/**/test_*'"
    )
    (repo / ".lintrunner.toml").write_text(config)
    (repo / "test" / "test_space.py ").write_text(UNCLASSIFIED)  # a trailing space
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "initial")
    data = ["--data-path", str(tmp_path / "lintrunner-data")]
    res = run_tool("lintrunner", *data, "--all-files", "--output=oneline", cwd=repo)
    assert res.returncode == 1, res.stdout + res.stderr
    lines = [line for line in res.stdout.splitlines() if "HW_CLASSIFICATION" in line]
    assert len(lines) == 1, res.stdout
    assert lines[0].startswith("test/test_space.py :4:1 :Error Test class `TestFoo`"), lines
    assert lines[0].endswith("[HW_CLASSIFICATION/HWC001]"), lines


# -- 13. output that echoes source text cannot forge output ---------------------------------------

# a file name that, echoed raw, recolours the terminal, rewinds the line and starts a forged one
HOSTILE_NAME = "test_e\x1b[2J\rz\nforged.py:1:1: HWC000 all good.py"
# HWC104 quotes the `only_for=` argument's source text: here it holds a raw ESC
HOSTILE_SOURCE = (
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
    "from torch.testing._internal.common_utils import TestCase\n\n\n"
    "class TestK(TestCase):\n"
    "    hw_classification = HardwareClassification.CUDA\n\n"
    "    def test_a(self, device):\n        pass\n\n\n"
    'instantiate_device_type_tests(TestK, globals(), only_for=(\n    "cpu\x1b[31m",\n))\n'
)


@pytest.mark.parametrize("fmt", ["concise", "full", "github"])
def test_text_outputs_escape_control_characters(tmp_path, fmt):
    from .conftest import STRICT_TAXONOMY

    (tmp_path / HOSTILE_NAME).write_text(HOSTILE_SOURCE, "utf-8")
    res = run_tool(
        "hwlint", "check", "--no-cache", "--taxonomy", str(STRICT_TAXONOMY), "--output-format", fmt, ".",
        cwd=tmp_path,
    )  # fmt: skip
    assert res.returncode == 1, res.stderr
    out = res.stdout
    assert not any(ch in out for ch in "\x1b\r"), repr(out)
    shown = "test_e\\x1b[2J\\rz\\nforged.py:1:1: HWC000 all good.py"
    quoted = 'with `only_for=( "cpu\\x1b[31m", )` instead of `"cuda"`.'
    lines = out.splitlines()
    if fmt == "github":
        assert all(line.startswith("::error ") for line in lines), lines
        assert len(lines) == 1 and quoted in lines[0] and shown.replace(":", "%3A") in lines[0]
        return
    findings = [line for line in lines if line.startswith(shown)]
    assert findings == [f"{shown}:12:58: HWC104 CUDA test class `TestK` is instantiated {quoted}"]
    if fmt == "concise":
        assert lines == [*findings, "Found 1 error."]
    else:  # the source excerpt escapes its own line too
        assert "12 | instantiate_device_type_tests(TestK, globals(), only_for=(" in lines


def _md_html(markdown: str) -> str:
    """The Markdown as GitHub would render it (CommonMark with tables)."""
    markdown_it = pytest.importorskip("markdown_it")
    return markdown_it.MarkdownIt("commonmark").enable("table").render(markdown)


def test_markdown_report_cannot_inject_markup(tmp_path):
    hostile = "a`<img src=x onerror=alert(1)>`|b"
    (tmp_path / hostile).mkdir()
    (tmp_path / hostile / "test_x.py").write_text(UNCLASSIFIED.replace("TestFoo", "TestNever"))
    # a runner name is an identifier: one with markup is a taxonomy error, never a table cell
    (tmp_path / "runs.yaml").write_text(
        (Path(__file__).parent.parent / "taxonomy.yaml").read_text().replace("  cpu:\n", "  c<b>pu*_x_*:\n")
    )
    refused = run_tool("hwlint", "report", "--no-cache", "--taxonomy", "runs.yaml", ".", cwd=tmp_path)
    assert refused.returncode == 2
    assert "runners.c<b>pu*_x_*: expected a name of ASCII letters" in refused.stderr
    args = ("--no-cache", "--format", "markdown", "--depth", "2", ".")
    res = run_tool("hwlint", "report", *args, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    md = res.stdout
    # the hostile name is in code spans fenced past its own backticks, its pipe escaped for the table
    assert "| ``a`<img src=x onerror=alert(1)>`\\|b`` | 1 |" in md
    assert "| ``a`<img src=x onerror=alert(1)>`\\|b/test_x.py:4`` `TestNever` | 1 |" in md
    html = _md_html(md)
    assert "<img" not in html and "<b>" not in html and "<em>" not in html
    assert "<code>a`&lt;img src=x onerror=alert(1)&gt;`|b" in html


# -- 14. the fixer edits what the parser saw; what it cannot fix is not offered ------------------

KELVIN = UNCLASSIFIED.replace("TestFoo", "TestK\u212a")  # Python reads the name as TestKK (NFKC)
# the name added past pycodestyle's 79 columns wraps the import, a name a line, in the file's line ending
KELVIN_FIXED = (
    "from torch.testing._internal.common_utils import (\n    HardwareClassification,\n    TestCase,\n)\n\n\n"
    "class TestK\u212a(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
    "    def test_a(self):\n        pass\n"
)
# a lone CR ends a line for CPython but not for tree-sitter; CRLF and LF around it
MIXED = (
    "from torch.testing._internal.common_utils import TestCase\r\r"
    "class TestA(TestCase):\n    def test_a(self):\r\n        pass\n\n\n"
    "class TestB(TestCase):\r    def test_b(self):\r        pass\n"
)
MIXED_FIXED = (
    "from torch.testing._internal.common_utils import (\r    HardwareClassification,\r    TestCase,\r)\r\r"
    "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
    "    def test_a(self):\r\n        pass\n\n\n"
    "class TestB(TestCase):\r    hw_classification = HardwareClassification.GENERIC\r\r"
    "    def test_b(self):\r        pass\n"
)


@pytest.mark.parametrize(
    ("source", "fixed"),
    [
        (KELVIN, KELVIN_FIXED),
        (MIXED, MIXED_FIXED),
    ],
    ids=["nfkc-name", "mixed-line-endings"],
)  # fmt: skip
def test_fixes_what_the_parser_normalises(tmp_path, source, fixed):
    target = tmp_path / "test_odd.py"
    target.write_bytes(source.encode())
    n = source.count("class Test")
    before = run_tool("hwlint", "check", "--no-cache", ".", cwd=tmp_path)
    assert before.stdout.count("HWC001 [*]") == n
    assert before.stdout.endswith(f"[*] {n} fixable with the `--fix` option.\n")
    res = run_tool("hwlint", "check", "--no-cache", "--fix", ".", cwd=tmp_path)
    errors = f"{n} error{'s' if n > 1 else ''}"
    assert (res.returncode, without_enum_note(res.stderr)) == (0, f"hwlint: fixed {errors} in 1 file\n"), (
        res.stdout
    )
    assert res.stdout == f"Found {errors} ({n} fixed, 0 remaining).\n"
    assert target.read_bytes() == fixed.encode()
    after = run_tool("hwlint", "check", "--no-cache", ".", cwd=tmp_path)
    assert (after.returncode, after.stdout) == (0, "All checks passed!\n")


def test_a_fix_that_fails_is_not_counted_as_fixable(tmp_path):
    target = tmp_path / "test_one.py"
    target.write_text(UNCLASSIFIED)
    target.chmod(0o444)  # the owner's word that it is not to be changed: --fix leaves it alone
    res = run_tool("hwlint", "check", "--no-cache", "--fix", ".", cwd=tmp_path)
    assert res.returncode == 1
    assert res.stdout == f"test_one.py:4:1: HWC001 Test class `TestFoo` {NOT_DECLARED}\nFound 1 error.\n"
    assert res.stderr == "hwlint: warning: test_one.py: the file is read-only; left unchanged\n"


@pytest.mark.slow  # the console scripts as processes
def test_a_path_past_the_os_limit_named_on_the_command_line(tmp_path):
    far = "x/" * (os.pathconf(tmp_path, "PC_PATH_MAX") // 2 + 1) + "test_a.py"
    check = run_tool("hwlint", "check", "--no-cache", "--output-format", "json", far, cwd=tmp_path)
    assert "Traceback" not in check.stderr
    assert check.returncode == 1, check.stderr
    [finding] = json.loads(check.stdout)
    assert (finding["filename"], finding["code"]) == (far, "HWC901")
    assert finding["message"] == "Cannot check file: File name too long."
    select = run_tool("hwselect", "cpu", "--no-cache", far, cwd=tmp_path)
    assert select.returncode == 3, select.stderr
    assert f"hwselect: warning: {far}: cannot read: File name too long\n" in select.stderr


@pytest.mark.parametrize("fmt", ["nodeids", "files"])
def test_hwselect_never_splits_a_path_into_several_arguments(tmp_path, fmt):
    # one node id per line is a pytest argument file: a newline in a name would forge an option
    (tmp_path / "test_a\n-p\nevil\n.py").write_text(GENERIC)
    res = run_tool("hwselect", "cpu", "--no-cache", "--format", fmt, ".", cwd=tmp_path)
    assert (res.returncode, res.stdout) == (2, ""), res.stdout
    assert res.stderr.endswith(
        "hwselect: error: test_a\\n-p\\nevil\\n.py" + ("::TestFoo" if fmt == "nodeids" else "")
        + ": a path with a control character cannot be written one per line; rename the file "
        "(--format k can still select it by class name)\n"
    )  # fmt: skip
    k = run_tool("hwselect", "cpu", "--no-cache", "--format", "k", ".", cwd=tmp_path)
    assert (k.returncode, k.stdout) == (0, "TestFoo\n"), k.stderr
