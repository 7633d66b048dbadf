"""Issue 47, what a pull request can make hwlint run, write or read outside the checkout: each test
plants the attack in a tree as the pull request would commit it, runs the real command, and checks
that the attack did nothing and the results are still right (docs/guarantees.md names each test)."""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

import pytest

from .conftest import ROOT, run_tool

HEADER = (
    "from unittest import TestCase\n"
    "from torch.testing._internal.common_utils import HardwareClassification\n\n\n"
)
DECLARED = HEADER + (
    "class TestA(TestCase):\n"
    "    hw_classification = HardwareClassification.CPU\n\n"
    "    def test_x(self):\n"
    "        pass\n\n\n"
    "class TestB(TestCase):\n"
    "    def test_y(self):\n"
    "        pass\n"
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


# -- 1. git reads no configuration, hook or helper from the checkout ------------------------------


def _plant_repository(tree: Path, marker: Path) -> None:
    """Make *tree* a directory git enters as a repository of its own (``git -C tree`` finds
    ``HEAD``, ``objects/`` and ``refs/`` there), whose configuration runs a command that creates
    *marker*: as ``core.fsmonitor``, and as every hook."""
    (tree / "HEAD").write_text("ref: refs/heads/main\n")
    (tree / "objects").mkdir()
    (tree / "refs").mkdir()
    (tree / "hooks").mkdir()
    for hook in ("post-index-change", "pre-commit", "post-checkout", "reference-transaction"):
        (tree / "hooks" / hook).write_text(f"#!/bin/sh\ntouch '{marker}'\n")
        (tree / "hooks" / hook).chmod(0o755)
    (tree / "config").write_text(
        "[core]\n"
        "\trepositoryformatversion = 0\n"
        "\tworktree = .\n"
        f"\tfsmonitor = \"touch '{marker}'; false\"\n"
        "\thooksPath = hooks\n"
    )


def test_git_runs_nothing_the_checkout_configures(tmp_path):
    """A pull request's ``test/`` is a repository to git, with a ``core.fsmonitor`` command and
    hooks; CI runs hwlint on ``test/`` inside its clone. git is asked only about the clone (its
    ``.gitignore`` still applies), and runs nothing of the plant."""
    marker = tmp_path / "MARKER"
    repo = tmp_path / "repo"
    test = repo / "test"
    test.mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / ".gitignore").write_text("test_gen_*.py\n")
    (test / "test_a.py").write_text(DECLARED)
    _git(repo, "add", ".gitignore", "test/test_a.py")
    _git(repo, "commit", "-q", "-m", "init")
    (test / "test_gen_b.py").write_text(DECLARED.replace("TestB", "TestGen"))  # untracked, ignored
    _plant_repository(test, marker)

    # the plant works: git itself, asked from test/, runs the command
    subprocess.run(["git", "-C", "test", "ls-files", "--others"], cwd=repo, capture_output=True)
    assert marker.exists(), "the planted fsmonitor did not run: this git would not show the attack"
    marker.unlink()

    res = run_tool("hwlint", "check", "--no-cache", "test/", cwd=repo)
    assert res.returncode == 1 and res.stdout.count("HWC001") == 1, res.stdout + res.stderr
    assert "test/test_a.py:12:1: HWC001" in res.stdout  # test_gen_b.py is ignored, as the clone says
    res = run_tool("hwlint", "check", "--no-cache", "--no-respect-gitignore", "test/", cwd=repo)
    assert res.stdout.count("HWC001") == 2 and "test/test_gen_b.py:12:1: HWC001" in res.stdout
    res = run_tool("hwselect", "cpu", "--no-cache", "test/", cwd=repo)
    assert res.returncode == 0 and res.stdout.split() == ["test/test_a.py::TestA"], res.stdout + res.stderr
    res = run_tool("hwlint", "report", "--no-cache", "--format", "json", "test/", cwd=repo)
    assert res.returncode == 0 and '"test/test_a.py"' in res.stdout and "test_gen_b" not in res.stdout
    # from inside test/, the links are relative to the clone's top (git would have said test/)
    res = run_tool(
        "hwlint", "report", "--no-cache", "--format", "html", "--base-url", "https://x/", ".", cwd=test
    )
    assert res.returncode == 0 and "https://x/test/test_a.py#L" in res.stdout
    assert not marker.exists()


def test_every_subprocess_runs_through_one_function():
    """No module but hwlint/effects.py starts a process: whatever git (or pytest) hwlint runs has
    the checkout's configuration pinned off there."""
    starters = {"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}
    starters |= {"system", "popen", "posix_spawn", "posix_spawnp", "fork", "forkpty"}
    found = []
    for path in sorted((ROOT / "hwlint").rglob("*.py")):
        if path.name == "effects.py" and path.parent.name == "hwlint":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            name = node.func.attr
            if isinstance(owner, ast.Name) and (
                (owner.id in ("subprocess", "pty") and name in starters)
                or (owner.id == "os" and (name in starters or name.startswith(("exec", "spawn"))))
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {owner.id}.{name}")
    assert not found


def test_a_git_started_below_hwlint_is_pinned_too(tmp_path):
    """What a child process (pytest under ``hwselect verify``) runs of git is pinned as well."""
    from hwlint.effects import run

    marker = tmp_path / "MARKER"
    test = tmp_path / "test"
    test.mkdir()
    _plant_repository(test, marker)
    res = run(["git", "-C", str(test), "ls-files", "--others"], timeout=60, env=dict(os.environ))
    assert not marker.exists(), res.stderr


# -- 5. an output file is replaced, never written through a link -----------------------------------

OUTPUTS = {
    "argsfile": ("selection.args", ["hwselect", "cpu", "--no-cache", "--format", "nodeids", "--argsfile"]),
    "check": ("findings.json", ["hwlint", "check", "--no-cache", "--output-format", "json", "-o"]),
    "report": ("report.html", ["hwlint", "report", "--no-cache", "--format", "html", "-o"]),
    "baseline": ("hwlint-baseline.json", ["hwlint", "baseline", "--regenerate", "-o"]),
}


def _tree_with_links(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A checkout holding a test file and *name* committed as a symlink to a file outside it."""
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (tree / "test_a.py").write_text(DECLARED)
    target = outside / "authorized_keys"
    target.write_text("ssh-ed25519 AAAA... ci@runner\n")
    (tree / name).symlink_to(target)
    return tree, target


@pytest.mark.parametrize("output", sorted(OUTPUTS))
def test_an_output_replaces_a_committed_symlink_and_writes_nothing_outside(tmp_path, output):
    name, command = OUTPUTS[output]
    tree, target = _tree_with_links(tmp_path, name)
    res = run_tool(*command, name, ".", cwd=tree)
    assert res.returncode in (0, 1), res.stderr
    assert target.read_text() == "ssh-ed25519 AAAA... ci@runner\n"  # untouched
    written = tree / name
    assert not written.is_symlink() and written.is_file()
    assert "test_a.py" in written.read_text()
    assert sorted(p.name for p in tree.iterdir() if p.name.endswith(".tmp")) == []


@pytest.mark.parametrize("output", sorted(OUTPUTS))
def test_an_output_under_a_committed_directory_symlink_is_refused(tmp_path, output):
    name, command = OUTPUTS[output]
    tree, target = _tree_with_links(tmp_path, "unused")
    (tree / "out").symlink_to(target.parent, target_is_directory=True)
    res = run_tool(*command, f"out/{name}", ".", cwd=tree)
    assert res.returncode == 2
    assert "out is a symlink; an output is never written through one" in res.stderr
    assert sorted(p.name for p in target.parent.iterdir()) == ["authorized_keys"]


def test_an_output_aimed_at_the_cache_key_leaves_the_key_alone(tmp_path, monkeypatch):
    """``report.html -> ~/.cache/hwlint/cache-key``: the page replaces the link, the key stays
    the user's, and the next run still signs and reads its cache with it."""
    key_file = tmp_path / "home" / "cache-key"
    monkeypatch.setenv("HWLINT_CACHE_KEY_FILE", str(key_file))
    tree, _ = _tree_with_links(tmp_path, "unused")
    assert run_tool("hwlint", "check", ".", cwd=tree).returncode == 1  # creates the key
    key = key_file.read_bytes()
    (tree / "report.html").symlink_to(key_file)
    res = run_tool("hwlint", "report", "--format", "html", "-o", "report.html", ".", cwd=tree)
    assert res.returncode == 0, res.stderr
    assert key_file.read_bytes() == key and oct(key_file.stat().st_mode & 0o777) == "0o600"
    res = run_tool("hwlint", "check", ".", cwd=tree)
    assert res.returncode == 1 and "cache key not used" not in res.stderr


def test_an_output_keeps_streams_and_modes(tmp_path):
    tree, _ = _tree_with_links(tmp_path, "unused")
    assert run_tool("hwlint", "check", "--no-cache", "-o", "/dev/null", ".", cwd=tree).returncode == 1
    assert Path("/dev/null").is_char_device()
    out = tree / "findings.txt"
    out.write_text("old\n")
    out.chmod(0o640)
    assert run_tool("hwlint", "check", "--no-cache", "-o", "findings.txt", ".", cwd=tree).returncode == 1
    assert oct(out.stat().st_mode & 0o777) == "0o640" and "HWC001" in out.read_text()


def test_every_output_file_is_written_through_one_helper():
    """No module but hwlint/effects.py opens a file for writing, renames one or writes one whole;
    hwlint/fix/write.py, which rewrites the checked files themselves (keeping their mode, owner and
    hard links), is the one other writer."""
    by_module = {
        "os": {"replace", "rename", "renames", "link", "symlink"},
        "shutil": {"move", "copy", "copy2", "copyfile", "copytree"},
        "tempfile": {"mkstemp", "NamedTemporaryFile", "TemporaryFile"},
    }
    found = []
    for path in sorted((ROOT / "hwlint").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in ("hwlint/effects.py", "hwlint/fix/write.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                modes = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "mode")]
                if any(not isinstance(m, ast.Constant) or set(str(m.value)) & set("wax+") for m in modes):
                    found.append(f"{rel}:{node.lineno}: open for writing")
            elif isinstance(func, ast.Attribute) and (
                func.attr in ("write_text", "write_bytes")
                or (isinstance(func.value, ast.Name) and func.attr in by_module.get(func.value.id, ()))
            ):
                found.append(f"{rel}:{node.lineno}: {func.attr}")
    # the one temporary file hwselect verify makes for pytest's report, in the system's temporary directory
    assert found == [f"hwlint/select/verify.py:{_line_of('hwlint/select/verify.py', 'mkstemp(')}: mkstemp"]


def _line_of(rel: str, needle: str) -> int:
    return next(i for i, line in enumerate((ROOT / rel).read_text().splitlines(), 1) if needle in line)


# -- 6. a named directory that is a symlink out of the checkout is not read ------------------------


def test_a_named_directory_linked_out_of_the_checkout_is_neither_read_nor_fixed(tmp_path):
    """The pull request commits ``test -> /home/ci/secrets`` (a directory outside the checkout) and
    CI runs ``hwlint check --output-format full test/``, ``--fix``, hwselect and the report on it."""
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    secret = (
        HEADER
        + "class TestSecret(TestCase):  # SECRET_TOKEN_4711\n"
        + "    def test_x(self):\n        pass\n"
    )
    (outside / "test_secret.py").write_text(secret)
    (outside / "pyproject.toml").write_text('[tool.hwlint]\ntaxonomy = "/nonexistent.yaml"\n')
    (tree / "test").symlink_to(outside, target_is_directory=True)
    (tree / "real").mkdir()
    (tree / "real" / "test_a.py").write_text(DECLARED)
    (tree / "inside").symlink_to(tree / "real", target_is_directory=True)  # inside the checkout: read
    away = "a symlink to a directory outside the checked tree; not read"
    for args in (["--diff"], ["--output-format", "full"], ["--fix", "--unsafe-fixes"]):
        res = run_tool("hwlint", "check", "--no-cache", *args, "test", "inside", cwd=tree)
        out = res.stdout + res.stderr
        assert "SECRET_TOKEN_4711" not in out and "TestSecret" not in out, out
        assert "--diff" in args or f"test:1:1: HWC901 Cannot check file: {away}" in out, out
    assert (outside / "test_secret.py").read_text() == secret
    assert (tree / "real" / "test_a.py").read_text().count("hw_classification =") == 2  # inside: fixed
    res = run_tool("hwlint", "check", "--no-cache", "test/test_secret.py", cwd=tree)
    assert "under a symlink to a directory outside the checked tree; not read" in res.stdout
    assert "SECRET_TOKEN_4711" not in res.stdout + res.stderr and res.returncode == 1
    res = run_tool("hwselect", "cpu", "--no-cache", "--verbose", "test", "inside", cwd=tree)
    assert res.stdout.split() == ["inside/test_a.py::TestA", "inside/test_a.py::TestB"]  # TestB: fixed above
    assert "TestSecret" not in res.stdout + res.stderr
    assert f"hwselect: warning: test: {away}" in res.stderr, res.stderr
    res = run_tool("hwlint", "report", "--no-cache", "--format", "json", "test", "inside", cwd=tree)
    assert res.returncode == 0 and "TestSecret" not in res.stdout and "inside/test_a.py" in res.stdout


# -- 7. a path from the checkout's configuration stays in its tree ---------------------------------


def _confined_tree(tmp_path: Path, setting: str) -> tuple[Path, Path]:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (outside / "secret.yaml").write_text('version: "ghp_SECRET0123456789"\n')
    (outside / "secret.json").write_text('["AKIASECRET0123456789"]\n')
    (outside / "src").mkdir()
    (tree / "test_a.py").write_text(DECLARED)
    (tree / "linked.yaml").symlink_to(outside / "secret.yaml")
    (tree / "pyproject.toml").write_text(f"[tool.hwlint]\n{setting}\n")
    return tree, outside


@pytest.mark.parametrize(
    ("setting", "key"),
    [
        ('taxonomy = "{outside}/secret.yaml"', "tool.hwlint.taxonomy"),
        ('baseline = "{outside}/secret.json"', "tool.hwlint.baseline"),
        ('baseline = "../outside/secret.json"', "tool.hwlint.baseline"),
        ('taxonomy = "linked.yaml"', "tool.hwlint.taxonomy"),  # a link out of the tree
        ('roots = ["{outside}/src"]', "tool.hwlint.roots"),
    ],
)
def test_a_configured_path_outside_the_configurations_tree_is_refused(tmp_path, setting, key):
    outside = tmp_path / "outside"
    tree, _ = _confined_tree(tmp_path, setting.format(outside=outside))
    expected = f"pyproject.toml: {key}: "
    for command in (
        ["hwlint", "check", "--no-cache", "."],
        ["hwselect", "cpu", "--no-cache", "."],
        ["hwlint", "report", "--no-cache", "."],
    ):
        res = run_tool(*command, cwd=tree)
        assert res.returncode == 2, (command, res.stdout, res.stderr)
        assert expected in res.stderr and "lies outside the configuration's tree" in res.stderr, res.stderr
        assert "SECRET" not in res.stdout + res.stderr
    res = run_tool("python", "-m", "hwlint.lintrunner", "--", "test_a.py", cwd=tree)
    assert '"configuration-error"' in res.stdout and expected in res.stdout and "SECRET" not in res.stdout
    # the same file, named on the command line, is CI's choice and is read
    res = run_tool(
        "hwlint", "check", "--no-cache", "--isolated", "--taxonomy", str(outside / "secret.yaml"), cwd=tree
    )
    assert res.returncode == 2 and "version" in res.stderr


def test_a_configured_path_inside_the_tree_is_read_and_quoted_short_and_escaped(tmp_path):
    tree, _ = _confined_tree(tmp_path, 'taxonomy = "taxonomy.yaml"')
    (tree / "taxonomy.yaml").write_text('version: "\\e]0;owned\\a\\n::error::forged' + "A" * 200 + '"\n')
    res = run_tool("hwlint", "check", "--no-cache", ".", cwd=tree)
    assert res.returncode == 2
    line = res.stderr.splitlines()[-1]
    assert "taxonomy.yaml:1: version: expected an integer, got a string '\\x1b]0;owned\\x07\\n::error" in line
    assert "\x1b" not in res.stderr and "\n::error" not in res.stderr and "A" * 40 not in res.stderr
    assert len(res.stderr.splitlines()) == 1 and line.endswith("…")


@pytest.mark.parametrize(
    "text",
    [
        "version: 1\nx: *" + "A" * 200 + "\n",  # an alias
        "version: !<tag:" + "A" * 200 + "> 1\n",  # a tag
        "version: 1\n" + "A" * 200 + ": [1\n",  # malformed: PyYAML's message quotes a token
        '"\\e]0;' + "A" * 200 + '": 1\n',  # an unknown key
    ],
)
def test_a_taxonomy_error_quotes_the_file_short_and_escaped(tmp_path, text):
    (tmp_path / "taxonomy.yaml").write_text(text)
    res = run_tool("hwlint", "taxonomy", "check", "taxonomy.yaml", cwd=tmp_path)
    assert res.returncode == 2 and res.stderr.startswith("hwlint: error: taxonomy.yaml:")
    assert "A" * 70 not in res.stderr and "\x1b" not in res.stderr and len(res.stderr.splitlines()) == 1


def test_a_configuration_key_is_quoted_escaped(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.hwlint]\n"\\u001b[31m\\nx::error::" = 1\n')
    res = run_tool("hwlint", "check", "--no-cache", ".", cwd=tmp_path)
    assert res.returncode == 2 and "tool.hwlint.\\x1b[31m\\nx::error::: unknown key" in res.stderr
    assert "\x1b" not in res.stderr and len(res.stderr.splitlines()) == 1
