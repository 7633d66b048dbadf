"""pre-commit through the real ``pre-commit``: the hook this repository ships
(``.pre-commit-hooks.yaml``) gives the findings of one ``hwlint check`` of the same files.

pre-commit splits the files of a hook into one batch per core unless the hook sets
``require_serial``; hwlint parallelises its own work, and a class instantiated in another file is
seen only when both files are in one run (HWC102), so the hook asks for one process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT, run_tool

pytest.importorskip("pre_commit")

# run as a module of this interpreter: its console script is not there when pre-commit came from
# the system site packages
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
BIN = Path(sys.executable).parent
_LINE = re.compile(r"^(?:\./)?([^\s:]+\.py):(\d+):(\d+): (HWC\d{3}) ", re.M)

SHARED = """from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestShared(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_x(self, device):
        pass
"""
INSTANTIATES = """from torch.testing._internal.common_device_type import instantiate_device_type_tests
from test_a_shared import TestShared

instantiate_device_type_tests(TestShared, globals())
"""
PLAIN = "class TestP{i}:\n    def test_x(self):\n        pass\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Ten test files, more than pre-commit puts in one batch on two cores when it may split them:
    the first defines a class the last instantiates."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "test_a_shared.py").write_text(SHARED)
    for i in range(8):
        (repo / f"test_m{i}.py").write_text(PLAIN.format(i=i))
    (repo / "test_z_instantiates.py").write_text(INSTANTIATES)
    (repo / "helpers.py").write_text(PLAIN.format(i=99))  # not a test file name: the hook skips it
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    # the shipped hook, run from this environment (language: system) rather than installed anew
    local = {
        **hook,
        "language": "system",
        "entry": hook["entry"].replace("hwlint", str(BIN / "hwlint"), 1),
    }
    config = {"repos": [{"repo": "local", "hooks": [local]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    return repo


def _pre_commit(repo: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "HWLINT_CACHE_DIR": str(tmp_path / "c"),
    }
    env.pop("PRE_COMMIT", None)
    return subprocess.run(
        [*PRE_COMMIT, "run", "--all-files", "--color", "never"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_the_shipped_hook_asks_for_one_process():
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["require_serial"] is True
    assert hook["entry"] == "hwlint check --force-exclude"


def test_pre_commit_all_files_reports_what_one_check_reports(repo, tmp_path):
    res = _pre_commit(repo, tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    hooked = sorted(_LINE.findall(res.stdout))
    alone = run_tool("hwlint", "check", "--no-cache", ".", cwd=repo)
    assert sorted(_LINE.findall(alone.stdout)) == hooked
    assert len(hooked) == 8  # the eight plain classes; TestShared is instantiated, in another file
    assert "helpers.py" not in res.stdout


def test_split_batches_would_not_see_the_instantiation(repo, tmp_path):
    # what require_serial once guarded against: the hook in two batches. Each batch now reads the
    # project's instantiation calls, so a batch without test_z_instantiates.py agrees too
    config = (
        (repo / ".pre-commit-config.yaml")
        .read_text()
        .replace("require_serial: true", "require_serial: false")
    )
    (repo / ".pre-commit-config.yaml").write_text(config)
    res = _pre_commit(repo, tmp_path)
    split = sorted(_LINE.findall(res.stdout))
    first_batch = run_tool("hwlint", "check", "--no-cache", "test_a_shared.py", "test_m0.py", cwd=repo)
    together = run_tool("hwlint", "check", "--no-cache", ".", cwd=repo)
    assert "HWC102" not in first_batch.stdout
    assert split == sorted(_LINE.findall(together.stdout)) != []
