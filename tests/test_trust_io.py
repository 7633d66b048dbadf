"""Issue 47, what a pull request can make hwlint run, write or read outside the checkout: each test
plants the attack in a tree as the pull request would commit it, runs the real command, and checks
that the attack did nothing and the results are still right (docs/guarantees.md names each test)."""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

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
